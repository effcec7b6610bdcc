"""How far the nugget leaderboard can be trusted: intervals and run pairs of the nugget measures
against NIST's assessors on rag24-nuggets, on topics neither the nugget model nor the spreads saw.

Usage::

    python bench/nugget_intervals.py [--data /work/shared/data] [--write judges/scores/nugget_intervals.json]
        [--splits 70] [--regimes 0.05,topic] [--labels 0,0.05,0.1] [--f1]

The judge's probabilities are cross-validated by topic (each pair from a nugget model fitted
without its topic: ``judges.nuggets.model.cross_validate``). The intervals are
:func:`judges.scores.intervals.nugget_trust`'s (the per-pair independent errors of
:func:`judges.scores.intervals.nugget_report_variances` and the report / run spreads fitted by
:func:`judges.scores.intervals.fit_spreads`). Held out: for every split of the 8 topics into two halves
of 4 (``--splits``: the first N of the 70, in order), the spreads are fitted on one half's answers and the
intervals made for the runs on the other half's topics (their mean over those 4 topics), then the halves swap.
Printed per measure: the share of 95% run intervals (``low``/``high``) covering the assessors'
value on the same topics, their mean width, and the run pairs called at least 95% sure
(``p_same_order >= 0.95``) with the share the assessors order the same way. Also under a
shift: the nugget model fitted without the topic *and* the half of the teams scored; and labels
made stricter (the assessors' level moved one down for 30% of the supported or partial pairs,
chosen at random: the truth, and the labels drawn, are the stricter ones).

The regime term (a bias shared by every run: labels made another way), per ``--regimes`` entry:
a number is a fixed allowance for every measure (0.05 before: not fitted); ``topic`` fits it per
measure from the data's own heterogeneity: the spread between topics (each topic's assessor) of
the mean residual human minus judge, restricted maximum likelihood on the fitting half
(:func:`judges.scores.intervals.fit_regime`); ``topic-predictive`` and ``topic-upper`` the same at its
posterior predictive and its one-sided 95% upper bound.

``--labels``: shares of the scored half's nugget pairs drawn by the plan (``plan-assessments
--nuggets``'s: :func:`judges.attest.plan.make_plan` with ``PLAN_MIX``, inclusion probabilities
kept) and labelled from NIST's assignments (the stricter ones under that shift); the intervals then
combine the judge's value on every pair with the labels (PPI, :func:`judges.scores.intervals.nugget_draws`).
Labels are drawn on the unseen-topic and stricter-labels settings.

``--f1``: NUGGET_F1 too, against the human F1 (HUMAN_WEIGHTED_PRECISION and the assessors'
NUGGET_ALL): the citation judge's WEIGHTED_PRECISION per answer and its judge-error variance
come from one run of the real CLI (``--judge citation``, the shipped support model, which was
fitted on rag24-support: in-sample for the precision half), the interval is the delta method's.

``--write`` fits the spreads on all 8 topics (posterior predictive, as the support judge's) and the
regime term per measure (``topic``: its restricted maximum likelihood on all 8 topics) and writes the
file the session's nugget intervals read.
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple, Optional

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from judges.attest.kinds import NUGGET  # noqa: E402
from judges.attest.plan import PLAN_MIX, Quota, make_plan  # noqa: E402
from judges.scores import intervals as I  # noqa: E402
from judges.nuggets import features as F  # noqa: E402
from judges.nuggets.judge import topic_features  # noqa: E402
from judges.nuggets.measures import F1, NUGGET_MEASURES, answer_measures, f1, from_levels  # noqa: E402
from judges.nuggets.model import cross_validate  # noqa: E402

from nuggets import labelled_answers, load  # noqa: E402

WORDS = ("not_support", "partial_support", "support")


class Pair(NamedTuple):
    """A nugget judgment as the intervals read it (judges.nuggets.judge.NuggetJudgment's fields)."""

    run_id: str
    topic_id: str
    nugget_index: int
    importance: str
    assignment: str
    p_support: float
    p_partial: float
    p_not: float
    labelled: bool = False
    model: Optional[tuple] = None

    @property
    def score(self) -> float:
        """The pair's expected value (as NuggetJudgment.score)."""
        return self.p_support + 0.5 * self.p_partial


def fitted_spreads(keys, y, vital, p_any, p_full) -> dict:
    """Per measure the spreads fitted to these pairs (their answers' residuals) and its regime term
    from the topics' heterogeneity, at its maximum and its posterior predictive."""
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
        args = (run_ids[sel], topic_ids[sel], human[sel], judged[sel], variance[sel])
        out[m] = {
            **I.fit_spreads(*args),
            "regime_sd": I.fit_regime(*args),
            "regime_sd_predictive": round(I.fit_regime(*args, "predictive"), 4),
            "regime_sd_upper": I.fit_regime(*args, "upper"),
        }
    return out


FIELD = {"topic": "regime_sd", "topic-predictive": "regime_sd_predictive", "topic-upper": "regime_sd_upper"}


def spreads_for(fitted: dict, regime: str) -> dict:
    """The intervals' spreads per measure under one ``--regimes`` entry."""
    out = {}
    for m, f in fitted.items():
        r = f[FIELD[regime]] if regime in FIELD else float(regime)
        out[m] = I.Spreads.honest(f, r)._replace(source="rag24-nuggets")
    return out


def planned_labels(rows: list[Pair], share: float, topics: int, seed: int) -> dict:
    """The pairs ``plan-assessments --nuggets --budget SHARE`` would draw: key -> inclusion probability."""
    columns = {
        "run_id": np.array([r.run_id for r in rows], dtype=object),
        "topic_id": np.array([r.topic_id for r in rows], dtype=object),
        "nugget_index": np.array([r.nugget_index for r in rows], dtype=np.int64),
        "status": np.array(["partial"] * len(rows), dtype=object),
        "p_any": np.array([1.0 - r.p_not for r in rows]),
        "p_full": np.array([r.p_support for r in rows]),
        "weight": np.array([r.p_support + 0.5 * r.p_partial for r in rows]),
    }
    answered = {r.run_id: topics for r in rows}
    quota = Quota(share, mix=PLAN_MIX, seed=seed)
    plan = make_plan(columns, answered, np.zeros(len(rows), bool), quota, order=False, key=NUGGET.key)
    return {k: p.probability for k, p in plan.chosen.items()}


def labelled(rows: list[Pair], drawn: dict, level: dict) -> list[Pair]:
    """``rows`` with the drawn pairs' assessors' levels in effect (the judge's own kept in ``model``)."""
    out = []
    for r in rows:
        key = (r.run_id, r.topic_id, r.nugget_index)
        if key not in drawn:
            out.append(r)
            continue
        one = np.eye(3)[level[key]]
        own = (r.p_support, r.p_partial, r.p_not)
        out.append(r._replace(assignment=WORDS[level[key]], p_support=one[2], p_partial=one[1], p_not=one[0],
                              labelled=True, model=own))  # fmt: skip
    return out


def citation_side(d: Path) -> tuple[dict, dict]:
    """Per (run, topic) the citation judge's WEIGHTED_PRECISION and its (u, {WEIGHTED_PRECISION:
    independent error variance}) (the real CLI, one process, the shipped models)."""
    import pyarrow.parquet as pq

    from judges.core.config import Workflow
    from judges.session.writer import assessment_order

    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, str(ROOT / "run_judge.py"), "--judge", "citation", "--rag-topics",
               str(d / "topics.jsonl"), "--rag-responses", str(d / "runs"), "--corpus", str(d / "segments.jsonl"),
               "--out-dir", out, "--name", "c", "--no-debug-log"]  # fmt: skip
        subprocess.run(cmd, check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        per_topic: dict = defaultdict(dict)
        for line in Path(out, "c.leaderboard.txt").read_text().splitlines():
            run, topic, measure, value = line.split("\t")
            if topic != "all":
                per_topic[(run, topic)][measure] = float(value)
        table = pq.read_table(Path(out, "c.assessments.parquet"))
    wf = Workflow()
    reports = I.report_variances(table, assessment_order(table), per_topic, wf.grounding.cap, wf.attest.answer_error)
    wp = {k: v["WEIGHTED_PRECISION"] for k, v in per_topic.items()}
    return wp, {k: (u, {"WEIGHTED_PRECISION": v["WEIGHTED_PRECISION"]}) for k, (u, v) in reports.items()}


def trust_of(rows: list[Pair], drawn: dict, on, runs, measures, spreads, citations) -> I.Trust:
    """The session's nugget intervals and pairs over ``rows`` (labels ``drawn`` in effect: PPI), as
    the writer makes them (judges.session.writer); ``citations``: :func:`citation_side` for NUGGET_F1."""
    judged_rows: dict = defaultdict(list)
    for r in rows:
        judged_rows[(r.run_id, r.topic_id)].append(r)
    pt = {k: answer_measures(v) for k, v in judged_rows.items()}
    cit = None
    if citations is not None:
        wp, cit = citations
        for k, v in pt.items():
            v["WEIGHTED_PRECISION"] = wp.get(k, 0.0)
            v[F1] = f1(v["WEIGHTED_PRECISION"], v["NUGGET_ALL"])
    values = pt if citations is not None else None
    reports = I.nugget_report_variances(judged_rows, cit, values, known=lambda j: j.labelled)
    draws = I.nugget_draws(judged_rows, drawn, len(on)) if drawn else None
    rest = None
    if draws is not None:
        random = draws.random
        rest = I.nugget_report_variances(
            judged_rows, cit, values, known=lambda j: j.labelled,
            drawn=lambda j: (j.run_id, j.topic_id, j.nugget_index) in random,
        )  # fmt: skip
    return I.nugget_trust(pt, runs, on, reports, measures, spreads, draws, rest)


def tally(cover: dict, found: I.Trust, truth_run: dict, regime: str, share: float) -> None:
    for row in found.intervals:
        run, m, _value, low, high = row[:5]
        c = cover[(regime, share, m)]
        c[0] += low - 1e-9 <= truth_run[m][run] <= high + 1e-9
        c[1] += 1
        c[2] += high - low
    for a, b, m, _gap, p, _ in found.pairs:
        if p >= 0.95:
            cover[(regime, share, m)][3] += 1
            cover[(regime, share, m)][4] += truth_run[m][a] > truth_run[m][b]


def main() -> None:  # noqa: C901
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data", type=Path, default=Path(os.environ.get("CITEJUDGE_SHARED", ROOT.parent / "shared")) / "data"
    )
    ap.add_argument("--write", type=Path, help="write the spreads fitted on every topic here")
    ap.add_argument("--splits", type=int, default=70, help="the first N of the 70 splits into halves")
    ap.add_argument(
        "--regimes", default="0.05,topic", help="regime terms compared (a number: fixed; topic; topic-predictive)"
    )
    ap.add_argument("--labels", default="0,0.05,0.1", help="shares of planned nugget labels (with the last regime)")
    ap.add_argument("--f1", action="store_true", help="NUGGET_F1 too (one run of the citation judge's CLI)")
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

    unseen = cross_validate(x, y, topic_ids)
    settings = {
        "topic unseen": (unseen, y),
        "topic and half the teams unseen": (cross_validate(x, y, topic_ids, team_half), y),
        "topic unseen, labels stricter": (unseen, stricter),
    }
    if args.write:
        p_any, p_full, _ = unseen
        fitted = fitted_spreads(keys, y, vital, p_any, p_full)
        for f in fitted.values():
            for k in ("regime_sd_predictive", "regime_sd_upper"):
                del f[k]
        doc = {
            "source": "rag24-nuggets",
            "topic_ids": sorted({str(t) for t in topic_ids}),  # what the session's topics are checked against
            "measures": fitted,
            "fitted_on": "rag24-nuggets (NIST's nugget assignments of 45 TREC 2024 RAG runs on 8 topics, 4,408 pairs): "
            "residuals human minus judge per answer, the nugget model's probabilities cross-validated by topic",
            "method": "bench/nugget_intervals.py --write: restricted maximum likelihood per measure, posterior "
            "predictive (as judges/scores/intervals.json); regime_sd per measure: the spread between topics "
            "(assessors) of the mean residual, restricted maximum likelihood (judges.scores.intervals.fit_regime)",
        }
        from judges.formats.intervals import write_spreads

        write_spreads(args.write, doc)  # the file's shape: judges.formats.intervals
        print(f"wrote {args.write}")

    citations = citation_side(d) if args.f1 else None
    measures = NUGGET_MEASURES + ((F1,) if args.f1 else ())
    regimes = args.regimes.split(",")
    shares = [float(v) for v in args.labels.split(",")]
    splits = [set(c) for c in itertools.combinations(topics, 4)][: args.splits]
    print(
        f"nugget intervals on unseen topics (rag24-nuggets, 45 runs, 8 topics; {len(splits)} splits into halves of 4, "
        "both ways)"
    )
    print("| setting | regime | labels | measure | coverage of 95% run intervals | mean width | pairs >= 95% sure "
          "(per split) | their accuracy |")  # fmt: skip
    print("|---|---|---:|---|---:|---:|---:|---:|")
    fits: dict = {}
    for name, ((p_any, p_full, _), human_y) in settings.items():
        level = {(k[0], k[1], k[2]): int(h) for k, h in zip(keys, human_y)}
        rows_all = [
            Pair(k[0], k[1], k[2], k[4], "", float(f), float(a - f), float(1 - a))
            for k, a, f in zip(keys, p_any, p_full)
        ]
        by_answer: dict = defaultdict(list)
        for r, h in zip(rows_all, human_y):
            by_answer[(r.run_id, r.topic_id)].append((r, h))
        human = {
            key: from_levels([h for _, h in v], [r.importance == "vital" for r, _ in v]) for key, v in by_answer.items()
        }
        for key, v in human.items():
            if args.f1:
                v[F1] = f1(truth[key]["HUMAN_WEIGHTED_PRECISION"], v["NUGGET_ALL"]) if key in truth else 0.0
        cover: dict = defaultdict(lambda: [0, 0, 0.0, 0, 0])  # covered, intervals, width, sure pairs, right
        label_shares = shares if name != "topic and half the teams unseen" else [0.0]
        for si, scored in enumerate(splits):
            for fit_on, score_on in ((set(topics) - scored, scored), (scored, set(topics) - scored)):
                sel = np.isin(topic_ids, sorted(fit_on))
                cache_key = (id(p_any), tuple(sorted(fit_on)))
                if cache_key not in fits:  # the spreads are fitted on the assessors' own labels
                    fits[cache_key] = fitted_spreads(
                        [keys[i] for i in np.flatnonzero(sel)], y[sel], vital[sel], p_any[sel], p_full[sel]
                    )
                on = sorted(score_on)
                scored_rows = [r for r in rows_all if r.topic_id in score_on]
                truth_run = {
                    m: {r: np.mean([human[(r, t)][m] if (r, t) in human else 0.0 for t in on]) for r in runs}
                    for m in measures
                }
                for regime in regimes:
                    spreads = spreads_for(fits[cache_key], regime)
                    for share in label_shares if regime == regimes[-1] else [0.0]:
                        drawn = planned_labels(scored_rows, share, len(on), si) if share > 0 else {}
                        found = trust_of(
                            labelled(scored_rows, drawn, level), drawn, on, runs, measures, spreads, citations
                        )
                        tally(cover, found, truth_run, regime, share)
        for (regime, share, m), c in cover.items():
            acc = f"{c[4] / c[3]:.3f}" if c[3] else "-"
            print(
                f"| {name} | {regime} | {share:.0%} | {m} | {c[0] / c[1]:.3f} | {c[2] / c[1]:.3f} | "
                f"{c[3] / (2 * len(splits)):.1f} | {acc} |",
                flush=True,
            )
    shift = np.mean(stricter / 2.0) - np.mean(y / 2.0)
    print(f"(labels made stricter move the mean NUGGET_ALL of a pair by {shift:+.3f})")
    for regime in regimes:
        if regime in ("topic", "topic-predictive"):
            field = "regime_sd" if regime == "topic" else "regime_sd_predictive"
            per = {m: np.mean([f[m][field] for f in fits.values()]) for m in NUGGET_MEASURES}
            print(
                f"(regime {regime}: mean over the fits per measure "
                + ", ".join(f"{m} {v:.3f}" for m, v in per.items())
                + ")"
            )


if __name__ == "__main__":
    main()
