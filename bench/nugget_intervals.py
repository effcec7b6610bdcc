"""How far the nugget leaderboard can be trusted: intervals and run pairs of the nugget measures
against NIST's assessors on rag24-nuggets, on topics neither the nugget model nor the spreads saw.

Usage::

    python bench/nugget_intervals.py [--data /work/shared/data] [--write judges/nugget_intervals.json]

The judge's probabilities are cross-validated by topic (each pair from a nugget model fitted
without its topic: ``judges.nuggets.model.cross_validate``). The intervals are
:func:`judges.scores.intervals.nugget_trust`'s (the per-pair independent errors of
:func:`judges.scores.intervals.nugget_report_variances` and the report / run spreads fitted by
:func:`judges.scores.intervals.fit_spreads`). Held out: for every split of the 8 topics into two halves
of 4, the spreads are fitted on one half's answers and the intervals made for the runs on the
other half's topics (their mean over those 4 topics), then the halves swap: 70 splits x 2. Printed
per measure: the share of 95% run intervals (``low``/``high``, the judge's error only) covering
the assessors' value on the same topics, their mean width, and the run pairs called at least 95%
sure (``p_same_order >= 0.95``) with the share the assessors order the same way. Also under a
shift: the nugget model fitted without the topic *and* the half of the teams scored; and labels
made stricter (the assessors' level moved one down for 30% of the supported or partial pairs of
the scored half, chosen at random).

``--write`` fits the spreads on all 8 topics (posterior predictive, as the support judge's) and
writes the file the session's nugget intervals read; ``regime_sd`` there is an allowance for a
bias shared by every run under labels made another way, not a fit (the stricter labels' shift of
NUGGET_ALL printed here says how large such a bias is).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from judges.scores import intervals as I  # noqa: E402
from judges.nuggets import features as F  # noqa: E402
from judges.nuggets.judge import topic_features  # noqa: E402
from judges.nuggets.measures import NUGGET_MEASURES  # noqa: E402
from judges.nuggets.model import cross_validate  # noqa: E402

from nuggets import labelled_answers, load  # noqa: E402

REGIME_SD = 0.05  # the allowance --write records (see the module doc)


class Pair(NamedTuple):
    importance: str
    p_support: float
    p_partial: float
    p_not: float


def human_measures(levels, vital) -> dict:
    levels, vital = np.asarray(levels), np.asarray(vital, dtype=bool)
    graded, full = levels / 2.0, (levels == 2).astype(float)
    mean = lambda a: float(a.mean()) if len(a) else 0.0  # noqa: E731
    return {
        "NUGGET_ALL": mean(graded),
        "NUGGET_ALL_STRICT": mean(full),
        "NUGGET_VITAL": mean(graded[vital]),
        "NUGGET_VITAL_STRICT": mean(full[vital]),
    }


def judge_measures(rows: list[Pair]) -> dict:
    s = np.array([r.p_support for r in rows])
    graded = s + 0.5 * np.array([r.p_partial for r in rows])
    vital = np.array([r.importance == "vital" for r in rows])
    mean = lambda a: float(a.mean()) if len(a) else 0.0  # noqa: E731
    return {
        "NUGGET_ALL": mean(graded),
        "NUGGET_ALL_STRICT": mean(s),
        "NUGGET_VITAL": mean(graded[vital]),
        "NUGGET_VITAL_STRICT": mean(s[vital]),
    }


def spreads_of(keys, y, vital, p_any, p_full, regime_sd: float) -> dict:
    """Per measure the spreads fitted to these pairs (their answers' residuals)."""
    run_ids = np.array([k[0] for k in keys])
    topic_ids = np.array([k[1] for k in keys])
    p_partial = p_any - p_full
    v_all, v_strict = I.nugget_pair_variances(p_full, p_partial, 1.0 - p_any)
    out = {}
    for m, strict in I.NUGGET_STRICT.items():
        sel = vital if "VITAL" in m else np.ones(len(y), dtype=bool)
        human = (y == 2).astype(float) if strict else y / 2.0
        judged = p_full if strict else p_full + 0.5 * p_partial
        variance = v_strict if strict else v_all
        fitted = I.fit_spreads(run_ids[sel], topic_ids[sel], human[sel], judged[sel], variance[sel])
        out[m] = fitted
    return {m: I.Spreads.honest(f, regime_sd)._replace(source="rag24-nuggets") for m, f in out.items()}, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data", type=Path, default=Path(os.environ.get("CITEJUDGE_SHARED", ROOT.parent / "shared")) / "data"
    )
    ap.add_argument("--write", type=Path, help="write the spreads fitted on every topic here")
    args = ap.parse_args()
    d = args.data / "rag24-nuggets"
    bank, labels, answers, truth = load(d)
    encoder = F.Encoder()
    xs, keys = [], []
    for qid, b in sorted(bank.banks.items()):
        judged = labelled_answers(answers, labels, qid)
        x, _ = topic_features(encoder, b, [t for _, t in judged])
        xs.append(x)
        for run, _ in judged:
            for i, n in enumerate(b.nuggets):
                keys.append((run, qid, i, labels[(run, qid)].levels[i], n.importance))
    x = np.vstack(xs)
    y = np.array([k[3] for k in keys])
    vital = np.array([k[4] == "vital" for k in keys])
    run_ids = np.array([k[0] for k in keys])
    topic_ids = np.array([k[1] for k in keys])
    topics = sorted(bank.banks)
    runs = sorted(set(run_ids.tolist()))
    teams = sorted({r.split(".")[0] for r in runs})
    half_of_team = {t: i % 2 for i, t in enumerate(teams)}
    team_half = np.array([half_of_team[r.split(".")[0]] for r in run_ids])
    rng = np.random.default_rng(0)
    stricter = y.copy()
    down = (y > 0) & (rng.random(len(y)) < 0.3)
    stricter[down] -= 1

    settings = {
        "topic unseen": (cross_validate(x, y, topic_ids), y),
        "topic and half the teams unseen": (cross_validate(x, y, topic_ids, team_half), y),
        "topic unseen, labels stricter": (cross_validate(x, y, topic_ids), stricter),
    }
    if args.write:
        p_any, p_full, _ = settings["topic unseen"][0]
        _, fitted = spreads_of(keys, y, vital, p_any, p_full, REGIME_SD)
        doc = {
            "source": "rag24-nuggets",
            "regime_sd": REGIME_SD,
            "measures": fitted,
            "fitted_on": "rag24-nuggets (NIST's nugget assignments of 45 TREC 2024 RAG runs on 8 topics, 4,408 pairs): "
            "residuals human minus judge per answer, the nugget model's probabilities cross-validated by topic",
            "method": "bench/nugget_intervals.py --write: restricted maximum likelihood per measure, posterior "
            "predictive (as judges/intervals.json); regime_sd an allowance, not a fit",
        }
        args.write.write_text(json.dumps(doc, indent=2) + "\n")
        print(f"wrote {args.write}")

    print("nugget intervals on unseen topics (rag24-nuggets, 45 runs, 8 topics; 70 splits into halves of 4, both ways)")
    print("| setting | measure | coverage of 95% run intervals | mean width | pairs >= 95% sure | their accuracy |")
    print("|---|---|---:|---:|---:|---:|")
    splits = [set(c) for c in itertools.combinations(topics, 4)]
    for name, ((p_any, p_full, _), human_y) in settings.items():
        per_pair = [Pair(k[4], float(f), float(a - f), float(1 - a)) for k, a, f in zip(keys, p_any, p_full)]
        by_answer: dict = {}
        for k, p, h in zip(keys, per_pair, human_y):
            by_answer.setdefault((k[0], k[1]), []).append((p, h))
        judged_rows = {key: [p for p, _ in v] for key, v in by_answer.items()}
        per_topic = {key: judge_measures(v) for key, v in judged_rows.items()}
        human = {
            key: human_measures([h for _, h in v], [p.importance == "vital" for p, _ in v])
            for key, v in by_answer.items()
        }
        reports = I.nugget_report_variances(judged_rows)
        cover = {m: [0, 0, 0.0, 0, 0] for m in NUGGET_MEASURES}  # covered, intervals, width, sure pairs, right
        for scored in splits:
            for fit_on, score_on in ((set(topics) - scored, scored), (scored, set(topics) - scored)):
                sel = np.isin(topic_ids, sorted(fit_on))
                spreads, _ = spreads_of(
                    [keys[i] for i in np.flatnonzero(sel)], y[sel], vital[sel], p_any[sel], p_full[sel], REGIME_SD
                )
                on = sorted(score_on)
                pt = {k: v for k, v in per_topic.items() if k[1] in score_on}
                rp = {k: v for k, v in reports.items() if k[1] in score_on}
                found = I.nugget_trust(pt, runs, on, rp, NUGGET_MEASURES, spreads)
                truth_run = {
                    m: {r: np.mean([human[(r, t)][m] if (r, t) in human else 0.0 for t in on]) for r in runs}
                    for m in NUGGET_MEASURES
                }
                for row in found.intervals:
                    run, m, value, low, high = row[:5]
                    c = cover[m]
                    c[0] += low - 1e-9 <= truth_run[m][run] <= high + 1e-9
                    c[1] += 1
                    c[2] += high - low
                for a, b, m, _gap, p, _ in found.pairs:
                    if p >= 0.95:
                        cover[m][3] += 1
                        cover[m][4] += truth_run[m][a] > truth_run[m][b]
        for m in NUGGET_MEASURES:
            c = cover[m]
            acc = f"{c[4] / c[3]:.3f}" if c[3] else "-"
            print(f"| {name} | {m} | {c[0] / c[1]:.3f} | {c[2] / c[1]:.3f} | {c[3] / (2 * len(splits)):.1f} | {acc} |")
    shift = np.mean(stricter / 2.0) - np.mean(y / 2.0)
    print(f"(labels made stricter move the mean NUGGET_ALL of a pair by {shift:+.3f}; regime_sd allowance {REGIME_SD})")
    print(f"(answers with assessors' values: {len(truth) and sum(1 for k in truth if k[1] != 'all')})")


if __name__ == "__main__":
    main()
