"""How far to trust the leaderboard, measured: the intervals and pair probabilities of
judges/intervals.py against NIST's assessors on rag24-support, on topics the judge never saw.

Usage::

    python bench/intervals.py [--data ../shared/data] [--splits 50]

rag24-support (45 real TREC 2024 RAG runs, 14 topics, NIST's support labels on 2,348 citations)
is judged once by the real CLI (default workflow); then, for every topic ``k``:

* the support model is refitted on the other 13 topics (``calibrate``'s cross-validation) and
  gives the probabilities of topic ``k``'s citations: the judge's weights (expected weights,
  grounding cap on) and their independent variances;
* the spreads (``report_sd``, ``run_sd``) used for topic ``k``'s reports are fitted without
  topic ``k`` either, NESTED: on the other 13 topics, with those topics' probabilities
  cross-validated among themselves (each from a model fitted on 12 topics), as
  ``run_judge.py calibrate`` would fit them on those 13 topics' labels.

A run's interval is ``J ± 1.96 sd`` with ``sd^2 = [sum_t V_ind,t + sum_t u_t^2 report_sd_t^2
+ (sum_t u_t run_sd_t)^2] / T^2`` (judges.intervals.judge_variance, each topic's reports with the
spreads fitted without that topic), clipped to [0, 1]; ``J`` and the assessors' ``H`` are the
run's mean over the topics NIST judged it on (truth.eval.txt), a report without a citation with
text here 0 on both sides (as bench/support_agreement.py's leaderboard run tau). Printed:

* coverage of ``H`` by the 95% run intervals (45 runs), their mean width; the same with
  independence only (``report_sd = run_sd = 0``), with the spreads fitted leaving one topic out
  but not nested, and fitted on all 14 topics (the shipped model's: in-sample, optimistic);
* ``CITATION_SUPPORT`` (the share of citations judged ``supported`` against the share NIST
  labelled fully supported) the same way: the per-citation error as judges/intervals.py takes it
  (the squared error of the judge's 0/1 under ``P(full)``), and the people's variance alone;
* pairs: of the 990 pairs, the share the judge calls at least 95% sure (``p_same_order >= 0.95``)
  and the share of those the assessors order the same way; the mean ``p_same_order`` against the
  share ordered the same, by band of ``p``;
* the ``_topics`` variants (topic sampling added), on the 36 runs NIST judged on all 14 topics,
  by split halves: ``--splits`` random splits of the topics into two halves of 7; the interval
  and pair probabilities from half A (judge error and half A's topic variance), scored against
  the assessors on half B (new topics). ``H_B`` carries its own topic sampling, which the
  ``_topics`` interval (aimed at the value over many topics) does not: the bench also prints the
  coverage of the prediction interval that adds it (half A's topic variance over 7 once more),
  which checks the topic-variance estimate itself.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from support_agreement import judge, lacks, read_truth  # noqa: E402

from judges import intervals as iv  # noqa: E402
from judges.formats.tables import read_assessments  # noqa: E402
from judges.measures import expected_weight  # noqa: E402
from judges.meta.labels import read_labels  # noqa: E402
from judges.meta.calibrate import FEATURE_COLUMNS, cross_validate, labelled_features  # noqa: E402
from judges.support.model import fit  # noqa: E402


def weights_and_variances(table: pd.DataFrame, p_any: np.ndarray, p_full: np.ndarray):
    """The judge's expected weights (grounding cap on) and their independent variances."""
    ruled = lacks(table)
    weight = expected_weight(p_any, np.minimum(p_full, p_any), full_weight=np.where(ruled, 0.5, 1.0))
    return weight, iv.weight_variances(iv.level_distribution(p_any, p_full), ruled)


def spreads_of(table: pd.DataFrame, p_any: np.ndarray, p_full: np.ndarray) -> dict:
    weight, variance = weights_and_variances(table, p_any, p_full)
    return iv.fit_spreads(table["run_id"], table["topic_id"], table["y"].to_numpy() / 2.0, weight, variance)


def inner_cv(table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Probabilities of every row from a model fitted without its topic (within ``table`` only)."""
    x = table[FEATURE_COLUMNS].to_numpy(dtype=np.float64)
    y, topics = table["y"].to_numpy(), table["topic_id"].to_numpy()
    p_any, p_full = np.zeros(len(y)), np.zeros(len(y))
    for t in sorted(set(topics)):
        test = topics == t
        p_any[test], p_full[test] = fit(x[~test], y[~test], {}).probabilities(x[test])
    return p_any, p_full


class Reports:
    """Per (run, topic) of the truth: the judge's value, its independent variance and share ``u``."""

    def __init__(self, table: pd.DataFrame, weight: np.ndarray, variance: np.ndarray, truth: pd.Series):
        g = pd.DataFrame({"run": table["run_id"], "topic": table["topic_id"], "w": weight, "v": variance})
        g = g.groupby(["run", "topic"]).agg(w=("w", "mean"), v=("v", "sum"), n=("w", "size"))
        g = g.reindex(truth.index)
        self.truth = truth
        self.j = g["w"].fillna(0.0)
        self.ind = (g["v"] / g["n"] ** 2).fillna(0.0)
        self.u = g["n"].notna().astype(float)


def run_figures(rep: Reports, spreads_by_topic: dict, runs_topics: dict, bias: float = 0.0, scale: float = 1.0):
    """Per run: J, H, the judge-error variance, with each topic's spreads (``spreads_by_topic``:
    topic -> Spreads; the shared parts times ``scale``); ``runs_topics``: run -> the topics to use."""
    out = {}
    for run, topics in runs_topics.items():
        keys = [(run, t) for t in topics]
        t_n = len(keys)
        u = rep.u.loc[keys].to_numpy()
        rsd = np.array([spreads_by_topic[t].report_sd for t in topics])
        qsd = np.array([spreads_by_topic[t].run_sd for t in topics])
        var = (rep.ind.loc[keys].sum() + scale * (np.sum(u**2 * rsd**2) + np.sum(u * qsd) ** 2)) / t_n**2
        j = rep.j.loc[keys].mean() + bias * u.mean()
        per_topic = rep.j.loc[keys].to_numpy()
        out[run] = (j, rep.truth.loc[keys].mean(), var, per_topic)
    return out


def coverage(fig: dict) -> tuple[float, float]:
    hits, widths = [], []
    for j, h, var, _ in fig.values():
        lo, hi = iv.interval(j, var)
        hits.append(lo - 1e-12 <= h <= hi + 1e-12)
        widths.append(hi - lo)
    return float(np.mean(hits)), float(np.mean(widths))


def pair_figures(fig: dict, topic_part: float = 0.0, target: dict | None = None):
    """(p, same order by the assessors) per pair: ``p`` from judge error (and ``topic_part`` times
    the paired per-topic differences' variance over T); the assessors' values from ``target``
    (run -> H; default the same topics')."""
    runs = sorted(fig)
    out = []
    for i, a in enumerate(runs):
        for b in runs[i + 1 :]:
            (ja, ha, va, xa), (jb, hb, vb, xb) = fig[a], fig[b]
            if target is not None:
                ha, hb = target[a], target[b]
            first_h, second_h = (ha, hb) if ja >= jb else (hb, ha)
            var = va + vb
            if topic_part:
                var += topic_part * iv.topic_variance(xa - xb)
            out.append((iv.p_same_order(abs(ja - jb), var), first_h > second_h, first_h == second_h))
    return out


def pair_line(name: str, pairs: list) -> str:
    p = np.array([x[0] for x in pairs])
    same = np.array([x[1] for x in pairs])
    sure = p >= 0.95
    return (
        f"| {name} | {len(pairs)} | {sure.mean():.1%} | {same[sure].mean() if sure.any() else float('nan'):.1%} "
        f"| {p.mean():.3f} | {same.mean():.3f} |"
    )


def bands(pairs: list) -> str:
    p = np.array([x[0] for x in pairs])
    same = np.array([x[1] for x in pairs])
    rows = []
    for lo, hi in ((0.5, 0.75), (0.75, 0.9), (0.9, 0.95), (0.95, 0.99), (0.99, 1.01)):
        m = (p >= lo) & (p < hi)
        if m.any():
            rows.append(f"| {lo:.2f}-{min(hi, 1.0):.2f} | {m.sum()} | {p[m].mean():.3f} | {same[m].mean():.3f} |")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--splits", type=int, default=50, help="random halvings of the topics for the _topics figures")
    args = ap.parse_args()
    d = args.data / "rag24-support"
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        judge(d / "topics.jsonl", d / "runs", Path(tmp), "r24", {}, "--corpus", str(d / "segments.jsonl"))
        table = labelled_features(read_assessments(tmp, "r24"), read_labels(d / "labels.jsonl"))
    truth = read_truth(d / "truth.eval.txt")
    topics = sorted(set(table["topic_id"]))
    runs_topics = truth.index.to_frame(index=False).groupby("run_id")["topic_id"].agg(list).to_dict()

    # the judge on unseen topics: each topic's probabilities from a model fitted on the others
    p_any, p_full, level = cross_validate(table)
    weight, variance = weights_and_variances(table, p_any, p_full)
    rep = Reports(table, weight, variance, truth)

    # the spreads for each topic: nested (fitted without it, its 13 topics cross-validated among
    # themselves), leave-one-topic-out but not nested, and in-sample (all 14: the shipped model's)
    nested, loto = {}, {}
    topics_arr = table["topic_id"].to_numpy()
    for k in topics:
        rest = table[topics_arr != k].reset_index(drop=True)
        nested[k] = spreads_of(rest, *inner_cv(rest))
        keep = topics_arr != k
        loto[k] = spreads_of(rest, p_any[keep], p_full[keep])
    everything = spreads_of(table, p_any, p_full)
    schemes = {
        "nested (fitted without the topic)": {k: iv.Spreads.of(f) for k, f in nested.items()},
        "leave-one-topic-out, not nested": {k: iv.Spreads.of(f) for k, f in loto.items()},
        "in-sample, all 14 topics (shipped)": dict.fromkeys(topics, iv.Spreads.of(everything)),
        "independence only (report_sd = run_sd = 0)": dict.fromkeys(topics, iv.INDEPENDENT),
    }

    print(f"## rag24-support ({d}): 45 runs, {len(topics)} topics, {len(table)} labelled citations\n")
    print(
        "Spreads fitted on all 14 topics (cross-validated probabilities; what calibrate writes): "
        f"report_sd {everything['report_sd']}, run_sd {everything['run_sd']}, bias {everything['bias']:+.4f}"
    )
    for name, fits in (("nested", nested), ("not nested", loto)):
        r = [f["report_sd"] for f in fits.values()]
        q = [f["run_sd"] for f in fits.values()]
        b = [f["bias"] for f in fits.values()]
        print(
            f"Leave one topic out, {name}: report_sd {min(r):.4f}-{max(r):.4f} (mean {np.mean(r):.4f}), "
            f"run_sd {min(q):.4f}-{max(q):.4f} (mean {np.mean(q):.4f}), bias {min(b):+.4f} to {max(b):+.4f}"
        )

    print("\n### Run intervals for the assessors' WEIGHTED_PRECISION (judge error only), unseen topics\n")
    print("| spreads | coverage of the 45 runs | mean width |")
    print("|---|---:|---:|")
    figures = {}
    for name, by_topic in schemes.items():
        figures[name] = run_figures(rep, by_topic, runs_topics)
        cov, width = coverage(figures[name])
        print(f"| {name} | {cov:.1%} ({round(cov * 45)}/45) | {width:.3f} |")
    nested_bias = float(np.mean([f["bias"] for f in nested.values()]))
    with_bias = run_figures(rep, schemes["nested (fitted without the topic)"], runs_topics, bias=nested_bias)
    cov, width = coverage(with_bias)
    print(f"| nested, bias applied ({nested_bias:+.4f} x share of reports with citations) | {cov:.1%} | {width:.3f} |")

    # CITATION_SUPPORT: the share judged supported (grounding cap applied) against the share labelled
    # fully supported; per citation the expected squared error of the judge's 0/1 under P(full)
    # (judges/intervals.py), or the people's variance alone, P(full)(1 - P(full)); shared parts scaled
    # by the ratio of independent errors, as judges/intervals.py does
    ruled = lacks(table)
    p_full_capped = np.where(ruled, 0.0, np.minimum(p_full, p_any))
    human_cs = (table["y"] == 2).astype(float).groupby([table["run_id"], table["topic_id"]]).mean()
    human_cs = human_cs.rename_axis(truth.index.names).reindex(truth.index).fillna(0.0)
    judged_cs = ((level == 2) & ~ruled).astype(float)
    print("\nCITATION_SUPPORT (a share of thresholded statuses), the same spreads scaled:\n")
    print("| per citation | spreads | coverage of the 45 runs | mean width |")
    print("|---|---|---:|---:|")
    for unit, error in (
        (
            "squared error of the judge's 0/1 (judges/intervals.py)",
            np.where(judged_cs == 1, 1 - p_full_capped, p_full_capped),
        ),
        ("the people's variance alone", p_full_capped * (1 - p_full_capped)),
    ):
        rep_cs = Reports(table, judged_cs, error, human_cs)
        scale = float(rep_cs.ind.sum() / rep.ind.sum())
        for name in ("nested (fitted without the topic)", "independence only (report_sd = run_sd = 0)"):
            cov, width = coverage(run_figures(rep_cs, schemes[name], runs_topics, scale=scale))
            print(f"| {unit} | {name}, x {scale:.2f} | {cov:.1%} ({round(cov * 45)}/45) | {width:.3f} |")

    print("\n### Run pairs (990): does the judge's confidence hold?\n")
    print("| spreads | pairs | judge >= 95% sure | of those, assessors agree | mean p | share agreeing |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in schemes:
        print(pair_line(name, pair_figures(figures[name])))
    print("\nBy band of p_same_order (nested spreads):\n")
    print("| p | pairs | mean p | assessors order them so |")
    print("|---|---:|---:|---:|")
    print(bands(pair_figures(figures["nested (fitted without the topic)"])))

    # _topics: split halves over the runs judged on all 14 topics
    full_runs = {r: t for r, t in runs_topics.items() if len(t) == len(topics)}
    rng = np.random.default_rng(0)
    by_topic = schemes["nested (fitted without the topic)"]
    cov_a, cov_b, cov_pred, width, pairs_b, pairs_a, pairs_pred = [], [], [], [], [], [], []
    for _ in range(args.splits):
        half = set(rng.permutation(topics)[: len(topics) // 2].tolist())
        a_topics = {r: [t for t in ts if t in half] for r, ts in full_runs.items()}
        b_topics = {r: [t for t in ts if t not in half] for r, ts in full_runs.items()}
        fa = run_figures(rep, by_topic, a_topics)
        fb = run_figures(rep, by_topic, b_topics)
        for run, (j, h, var, x) in fa.items():
            topic_var = iv.topic_variance(x)
            lo, hi = iv.interval(j, var + topic_var)
            cov_a.append(lo <= h <= hi)
            cov_b.append(lo <= fb[run][1] <= hi)
            width.append(hi - lo)
            lo2, hi2 = iv.interval(j, var + 2 * topic_var)
            cov_pred.append(lo2 <= fb[run][1] <= hi2)
        pairs_b += pair_figures(fa, topic_part=1.0, target={r: v[1] for r, v in fb.items()})
        pairs_pred += pair_figures(fa, topic_part=2.0, target={r: v[1] for r, v in fb.items()})
        pairs_a += pair_figures(fa, topic_part=1.0)
    print(
        f"\n### The `_topics` variants: {len(full_runs)} runs judged on all 14 topics, {args.splits} random "
        "halvings 7 / 7; interval and p from half A\n"
    )
    print(f"* mean width of the 95% `_topics` intervals (7 topics): {np.mean(width):.3f}")
    print(f"* coverage of the assessors' value on half B (new topics): {np.mean(cov_b):.1%}")
    print(
        "* coverage of the same with B's own topic sampling added (prediction interval, half A's topic "
        f"variance over 7 twice): {np.mean(cov_pred):.1%}"
    )
    print(f"* coverage of the assessors' value on half A itself (conservative): {np.mean(cov_a):.1%}\n")
    print("| `_topics` pairs, target | pairs | judge >= 95% sure | of those, assessors agree | mean p | share agree |")
    print("|---|---:|---:|---:|---:|---:|")
    print(pair_line("assessors on half B (new topics)", pairs_b))
    print(pair_line("assessors on half B, p with B's own topic sampling added", pairs_pred))
    print(pair_line("assessors on half A (same topics)", pairs_a))
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
