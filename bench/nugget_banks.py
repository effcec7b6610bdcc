"""Nugget banks made from the answers (no LLM) against NIST's assessors on rag24-nuggets.

Usage::

    python bench/nugget_banks.py [--data /work/shared/data] [--boot 1000]

Data: ``rag24-nuggets`` (8 topics, 45 runs; the 337 answers NIST assessed). Every figure is run
Kendall tau (tau-b; per run the mean over its assessed topics) against the assessors'
leaderboards ``HUMAN_NUGGET_ALL``, ``HUMAN_NUGGET_VITAL_STRICT`` and the human ``NUGGET_F1`` (per
answer the harmonic mean of ``HUMAN_WEIGHTED_PRECISION`` and ``HUMAN_NUGGET_ALL``), with a 95%
bootstrap interval over topics (topics drawn with replacement, the runs' means recomputed).

Nothing is fitted on the topic it is scored on:

* the nugget model judging every bank is refitted leaving the topic out (NIST's assignments of
  the other 7 topics), for NIST's bank as for the made ones;
* the made bank's parameters (``group``: the grouping similarity; ``min_runs``: the runs a group
  needs; ``vital_share``: the share of the widest group's runs that makes a nugget vital) are chosen
  for each topic on the 7 others (leave one topic out; the objective is the mean
  of the three taus over the 7), and the topic is scored with the bank its fold chose: the
  figure printed is that cross-validated one. The cap (30) is fixed.

Printed: the cross-validated taus with their intervals for the made bank judged fairly (a run
only by nuggets other runs state, never by its own wording: :func:`judges.nuggets.made.view_for`),
the same bank with no exclusion (every run by the whole bank), a bank rebuilt without each run
(true leave-one-run-out, at the chosen parameters), NIST's bank, and support alone (the citation
judge's ``WEIGHTED_PRECISION``, the real CLI); the parameters each fold chose; the same at the shipped
defaults with only the claims the run's cited documents ground (in-sample); the share of NIST's
nuggets a made bank recovers (each NIST nugget judged by the nugget judge in the made bank's
nuggets as one text: support, or support or partial); the bank sizes.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from nuggets import citation_precision, labelled_answers, load  # noqa: E402

from judges.formats.nuggets import OKAY, VITAL  # noqa: E402
from judges.meta.correlation import kendall  # noqa: E402
from judges.nuggets import features as F  # noqa: E402
from judges.nuggets.judge import judge_topic, topic_features  # noqa: E402
from judges.nuggets.made import Params, judge_made_topic, make_bank  # noqa: E402
from judges.nuggets.measures import answer_measures, f1  # noqa: E402
from judges.nuggets.model import fit  # noqa: E402

GROUPS = (0.35, 0.4, 0.5, 0.6)
MIN_RUNS = (2, 3, 4, 6)
VITAL_SHARES = (0.1, 0.3, 0.5)
TARGETS = (("NUGGET_ALL", "HUMAN_NUGGET_ALL"), ("NUGGET_VITAL_STRICT", "HUMAN_NUGGET_VITAL_STRICT"), ("NUGGET_F1", ""))


def loto_models(nist, labels, answers) -> dict:
    """Per topic, the nugget model fitted to NIST's assignments of the other topics."""
    encoder = F.Encoder()
    xs, ys, ts = [], [], []
    for qid, b in sorted(nist.banks.items()):
        judged = labelled_answers(answers, labels, qid)
        x, _ = topic_features(encoder, b, [t for _, t in judged])
        xs.append(x)
        ys += [lv for run, _ in judged for lv in labels[(run, qid)].levels]
        ts += [qid] * len(x)
    x, y, t = np.vstack(xs), np.array(ys), np.array(ts)
    return {qid: fit(x[t != qid], y[t != qid]) for qid in sorted(nist.banks)}


def scored(per: dict, wp: dict) -> dict:
    """Per (run, topic) the judge's measures with NUGGET_F1 beside WEIGHTED_PRECISION."""
    for k, m in per.items():
        m["NUGGET_F1"] = f1(wp.get(k, 0.0), m["NUGGET_ALL"])
    return per


def human(truth: dict, keys) -> dict:
    out = {}
    for k in keys:
        t = truth[k]
        out[k] = {
            "NUGGET_ALL": t["HUMAN_NUGGET_ALL"],
            "NUGGET_VITAL_STRICT": t["HUMAN_NUGGET_VITAL_STRICT"],
            "NUGGET_F1": f1(t["HUMAN_WEIGHTED_PRECISION"], t["HUMAN_NUGGET_ALL"]),
        }
    return out


def run_tau(judged: dict, truth: dict, measure: str, topics, truth_measure: str | None = None) -> float:
    """Kendall tau of the run means over ``topics`` (a list: repeats count, as a bootstrap draws)."""
    jr, hr = defaultdict(list), defaultdict(list)
    by_topic = defaultdict(list)
    for run, topic in truth:
        by_topic[topic].append(run)
    for topic in topics:
        for run in by_topic[topic]:
            jr[run].append(judged[(run, topic)][measure])
            hr[run].append(truth[(run, topic)][truth_measure or measure])
    runs = sorted(jr)
    return kendall([np.mean(hr[r]) for r in runs], [np.mean(jr[r]) for r in runs])


def with_interval(judged: dict, truth: dict, measure: str, topics: list, boot: int, truth_measure=None) -> str:
    value = run_tau(judged, truth, measure, topics, truth_measure)
    rng = np.random.default_rng(0)
    draws = [run_tau(judged, truth, measure, list(rng.choice(topics, len(topics))), truth_measure) for _ in range(boot)]
    lo, hi = np.nanpercentile(draws, [2.5, 97.5])
    return f"{value:.3f} [{lo:.3f}, {hi:.3f}]"


def vital_if(vital: bool) -> str:
    return VITAL if vital else OKAY


def relabel_bank(bank, vital_runs: int):
    """``bank`` with vital as ``vital_runs`` says (what make_bank gives at that vital_share)."""
    nuggets = tuple(
        replace(n, importance=vital_if(len(r) >= vital_runs)) for n, r in zip(bank.nuggets, bank.made.stated_by)
    )
    return replace(bank, nuggets=nuggets, made=replace(bank.made, vital_runs=vital_runs))


def judge_made(encoder, bank, judged_answers, model, fair: bool) -> dict:
    if fair:
        out = judge_made_topic(encoder, bank, judged_answers, model)
    else:
        out = judge_topic(encoder, replace(bank, made=None), judged_answers, model)
    return {(run, bank.qid): answer_measures(js) for (run, _), js in zip(judged_answers, out)}


def cited_text(d: Path) -> dict:
    """Per topic and run, the text of the segments the run's answer cites (``segments.jsonl``)."""
    import json

    from judges.formats.runs import read_reports
    from judges.session.scan import run_files

    segments = {}
    for line in (d / "segments.jsonl").read_text().splitlines():
        r = json.loads(line)
        segments[r["docid"]] = r["segment"]
    out: dict = defaultdict(dict)
    for path in run_files([d / "runs"])[0]:
        for _, rep in read_reports(path):
            ids = sorted({c.doc_id for s in rep.sentences for c in s.citations if c.doc_id})
            out[rep.topic_id][rep.run_id] = " ".join(segments.get(i, "") for i in ids)
    return out


def print_grounded(d: Path, default: Params, ctx: tuple) -> None:
    """Run taus at the shipped defaults when only the claims the run's cited documents ground count (in-sample)."""
    encoder, nist, all_answers, judged_answers, models, truth, topics, wp = ctx
    cited = cited_text(d)
    for share in (0.5, 0.7):
        grounded: dict = {}
        for q in topics:
            bank = make_bank(
                encoder, q, nist.banks[q].query, all_answers[q], replace(default, grounded=share), cited[q]
            )
            grounded.update(judge_made(encoder, bank, judged_answers[q], models[q], True))
        scored(grounded, wp)
        print(
            f"grounded in the cited documents (share {share}; shipped defaults, in-sample): "
            + ", ".join(f"{m} {run_tau(grounded, truth, m, topics):.3f}" for m, _ in TARGETS)
        )


def print_recovery(banks: dict, chosen: dict, default: Params, ctx: tuple) -> None:
    """The share of NIST's nuggets the made banks recover, judged by the nugget judge."""
    encoder, nist, all_answers, judged_answers, models, truth, topics, wp = ctx
    for name, pick in (("chosen per fold", lambda q: chosen[q]), ("default", lambda q: default)):
        full = anyp = n = 0
        sizes, vitals = [], []
        for q in topics:
            bank = banks[(pick(q), q)]
            sizes.append(len(bank.nuggets))
            vitals.append(sum(x.vital for x in bank.nuggets))
            text = " ".join(x.text.rstrip(".") + "." for x in bank.nuggets)
            js = judge_topic(encoder, nist.banks[q], [("made", text)], models[q])[0]
            full += sum(j.assignment == "support" for j in js)
            anyp += sum(j.assignment != "not_support" for j in js)
            n += len(js)
        print(
            f"NIST nuggets recovered by the made bank ({name}): support {full}/{n} = {full / n:.1%}, "
            f"support or partial {anyp}/{n} = {anyp / n:.1%}; made nuggets per topic {sizes} (vital {vitals}); "
            f"NIST's {[len(nist.banks[q].nuggets) for q in topics]}"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--boot", type=int, default=1000)
    args = ap.parse_args()
    d = args.data / "rag24-nuggets"
    started = time.time()
    nist, labels, answers, truth_rows = load(d)
    topics = sorted(nist.banks)
    keys = sorted(labels)
    truth = human(truth_rows, keys)
    models = loto_models(nist, labels, answers)
    wp = citation_precision(d)
    encoder = F.Encoder()
    all_answers = {q: sorted((r, t) for (r, qq), t in answers.items() if qq == q) for q in topics}
    judged_answers = {q: labelled_answers(answers, labels, q) for q in topics}

    # every parameter setting: its banks, judged fairly and with no exclusion; vital_share only
    # relabels a bank's nuggets (the judgments' probabilities do not depend on importance)
    grid = [Params(g, k, v) for g in GROUPS for k in MIN_RUNS for v in VITAL_SHARES]
    fair: dict = {p: {} for p in grid}
    plain: dict = {p: {} for p in grid}
    banks: dict = {}
    for g in GROUPS:
        for k in MIN_RUNS:
            for q in topics:
                bank = make_bank(encoder, q, nist.banks[q].query, all_answers[q], Params(g, k))
                judged_fair = judge_made_topic(encoder, bank, judged_answers[q], models[q])
                judged_plain = judge_topic(encoder, replace(bank, made=None), judged_answers[q], models[q])
                widest = max((len(r) for r in bank.made.stated_by), default=0)
                for v in VITAL_SHARES:
                    p = Params(g, k, v)
                    vital_runs = max(k, int(np.ceil(v * widest)))
                    banks[(p, q)] = relabel_bank(bank, vital_runs)
                    for (run, _), js, jp in zip(judged_answers[q], judged_fair, judged_plain):
                        stated = bank.made.stated_by
                        fair[p][(run, q)] = answer_measures(
                            [
                                replace(j, importance=vital_if(len(set(stated[j.nugget_index]) - {run}) >= vital_runs))
                                for j in js
                            ]
                        )
                        plain[p][(run, q)] = answer_measures(
                            [replace(j, importance=vital_if(len(stated[j.nugget_index]) >= vital_runs)) for j in jp]
                        )
            print(f"  grid {g} {k}: {time.time() - started:.0f} s", file=sys.stderr, flush=True)
    for p in grid:
        scored(fair[p], wp)
        scored(plain[p], wp)

    def objective(per: dict, train: list) -> float:
        return float(np.mean([run_tau(per, truth, m, train) for m, _ in TARGETS]))

    chosen = {}
    for q in topics:
        train = [t for t in topics if t != q]
        chosen[q] = max(grid, key=lambda p: (objective(fair[p], train), -grid.index(p)))
    cv_fair = {k: fair[chosen[k[1]]][k] for k in keys}
    cv_plain = {k: plain[chosen[k[1]]][k] for k in keys}

    # true leave-one-run-out at each topic's chosen parameters: a bank without the run's answer
    loro: dict = {}
    for q in topics:
        for run, text in judged_answers[q]:
            others = [(r, t) for r, t in all_answers[q] if r != run]
            bank = make_bank(encoder, q, nist.banks[q].query, others, chosen[q])
            js = judge_topic(encoder, replace(bank, made=None), [(run, text)], models[q])[0]
            loro[(run, q)] = answer_measures(js)
    scored(loro, wp)

    nist_per: dict = {}
    for q in topics:
        out = judge_topic(encoder, nist.banks[q], judged_answers[q], models[q])
        nist_per.update({(run, q): answer_measures(js) for (run, _), js in zip(judged_answers[q], out)})
    scored(nist_per, wp)
    support = {k: {m: wp.get(k, 0.0) for m, _ in TARGETS} for k in keys}

    print(f"rag24-nuggets: {len(topics)} topics, {len({r for r, _ in keys})} runs, {len(keys)} assessed answers")
    print("run Kendall tau [95% bootstrap over topics], cross-validated by topic (model and bank parameters):")
    header = f"{'judged with':<52}" + "".join(f"{m:>26}" for m, _ in TARGETS)
    print(header)
    rows = (
        ("made bank, other runs only (shipped rule)", cv_fair),
        ("made bank, leave-one-run-out (rebuilt per run)", loro),
        ("made bank, no exclusion (own words count)", cv_plain),
        ("NIST's bank", nist_per),
        ("support alone (WEIGHTED_PRECISION)", support),
    )
    for name, per in rows:
        print(f"{name:<52}" + "".join(f"{with_interval(per, truth, m, topics, args.boot):>26}" for m, _ in TARGETS))
    print(
        "parameters chosen per fold (group, min_runs, vital_share):",
        {q: (p.group, p.min_runs, p.vital_share) for q, p in chosen.items()},
    )
    default = Params()
    print(
        f"at the shipped defaults (group {default.group}, min_runs {default.min_runs}, "
        f"vital_share {default.vital_share}; "
        "chosen on all 8 topics, so in-sample): "
        + ", ".join(f"{m} {run_tau(fair[default], truth, m, topics):.3f}" for m, _ in TARGETS)
    )

    ctx = (encoder, nist, all_answers, judged_answers, models, truth, topics, wp)
    print_grounded(d, default, ctx)
    print_recovery(banks, chosen, default, ctx)
    print(f"({time.time() - started:.0f} s)")


if __name__ == "__main__":
    main()
