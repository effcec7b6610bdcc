"""How far to trust the leaderboard, measured: the intervals and pair probabilities of
judges/scores/intervals.py against NIST's assessors on rag24-support, on topics the judge never saw.

Usage::

    python bench/intervals.py [--data ../shared/data] [--splits 50] [--draws 20]

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
+ (sum_t u_t run_sd_t)^2] / T^2`` (judges.scores.intervals.judge_variance, each topic's reports with the
spreads fitted without that topic), clipped to [0, 1]; ``J`` and the assessors' ``H`` are the
run's mean over the topics NIST judged it on (truth.eval.txt), a report without a citation with
text here 0 on both sides (as bench/support_agreement.py's leaderboard run tau). Printed:

* coverage of ``H`` by the 95% run intervals (45 runs), their mean width; the same with
  independence only (``report_sd = run_sd = 0``), with the spreads fitted leaving one topic out
  but not nested, and fitted on all 14 topics (the shipped model's: in-sample, optimistic);
* ``CITATION_SUPPORT`` (the share of citations judged ``supported`` against the share NIST
  labelled fully supported) the same way: the per-citation error as judges/scores/intervals.py takes it
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

Then (issue 38) the intervals as they are now, the spreads at their posterior predictive (nested
per topic) with the regime allowance, against the point fit before:

* without labels, under shifts that mimic topics labelled another way: the spreads fitted on half
  of the runs and coverage counted on the other half (``--splits`` halvings); stricter labels
  (partial and full labels flipped to none at random until 30% are none, the truth moved with
  them); the report-level residuals of a donor run (:data:`WORLDS`): matched (a donor with at least
  as many reports with citations, taken without replacement), the same scaled by the reports'
  numbers of citations (harsher), and the two flawed worlds of before (a run drawn at random, its
  topics drawn with replacement, as many as it has or as the run has: a donor's few reports then
  stand for the run's many);
* what each value of the regime allowance buys without labels: width against coverage and the
  pairs called sure right in every world, and the smallest value that holds in every sound one
  (:data:`SOUND`); ``--no-labels-only`` stops there;
* a heteroscedastic run term without labels (the run effect's variance ``run_sd^2 exp(gamma z)``,
  ``z`` a covariate of the run's judged value: :func:`judges.scores.intervals.fit_run_scale`,
  nested per topic, fitted on the other half for the held-out runs) against the constant one, under
  every shift; measured, not shipped;
* with 2%, 5% and 10% of the citations labelled, planned (``plan-assessments``' design:
  :func:`judges.attest.plan.narrowing` for the sure part, :func:`judges.attest.plan.inclusion_probabilities`,
  :func:`judges.attest.plan.systematic_draw`) and at random
  (a simple random sample, taken as an organiser's labels), ``--draws`` draws each: coverage,
  mean width, pairs called >= 95% sure and the share ordered alike (pooled over draws), run tau
  of the intervals' estimate and of the leaderboard with the labels substituted, the effective
  labels, the labels-alone intervals; on the unseen topics, under the stricter labels and under
  the held-out-runs split (one halving's table, then the mean over ``--held-out`` halvings with the
  run tau gain of planned over random per halving); what the intervals' variance is made of with
  5% and 10% labels; and the plan's mix and placement measured (5%);
* what the labels drawn for sure would say through the error model (measured, not shipped: the
  shared bias's GLS estimate from their residuals, :func:`judges.scores.intervals.sure_bias`, and a
  run's and its reports' errors after them, :func:`judges.scores.intervals.shared_posterior`), with
  the plan's mix 0.0 / 0.1 / 0.2 / 0.35: unseen topics, held-out runs (the mean over ``--held-out``
  halvings), stricter labels, the report residuals resampled with the labels real, and three worlds
  whose labels carry another run's residuals (each citation a donor report's citation's residual;
  or its own, moved by the donor report's mean residual; the same with the donor matched: at least
  as many reports, taken without replacement). ``--sure-only`` prints that table alone.

``--line``: the run's mean error a line in its judged value (``fit_spreads(line=True)``), measured,
not shipped.
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

from judges.scores import intervals as iv  # noqa: E402
from judges.formats.tables import read_assessments  # noqa: E402
from judges.core.measures import expected_weight  # noqa: E402
from judges.formats.labels import read_labels  # noqa: E402
from judges.meta.calibrate import FEATURE_COLUMNS, cross_validate, labelled_features  # noqa: E402
from judges.support.model import fit  # noqa: E402
from judges.attest.plan import PLAN_MIX  # noqa: E402


def weights_and_variances(table: pd.DataFrame, p_any: np.ndarray, p_full: np.ndarray):
    """The judge's expected weights (grounding cap on) and their independent variances."""
    ruled = lacks(table)
    weight = expected_weight(p_any, np.minimum(p_full, p_any), full_weight=np.where(ruled, 0.5, 1.0))
    return weight, iv.weight_variances(iv.level_distribution(p_any, p_full), ruled)


def spreads_of(table: pd.DataFrame, p_any: np.ndarray, p_full: np.ndarray, line: bool = False) -> dict:
    weight, variance = weights_and_variances(table, p_any, p_full)
    return iv.fit_spreads(table["run_id"], table["topic_id"], table["y"].to_numpy() / 2.0, weight, variance, line=line)


def run_scale_of(table: pd.DataFrame, p_any: np.ndarray, p_full: np.ndarray, covariate: str) -> dict:
    """A heteroscedastic run term fitted on ``table`` (:func:`judges.scores.intervals.fit_run_scale`)."""
    weight, variance = weights_and_variances(table, p_any, p_full)
    y = table["y"].to_numpy() / 2.0
    return iv.fit_run_scale(table["run_id"], table["topic_id"], y, weight, variance, covariate)


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
        x = float(rep.j.loc[keys].to_numpy()[u > 0].mean()) if u.any() else 0.0
        rsd = np.array([spreads_by_topic[t].report_sd for t in topics])
        qsd = np.array([spreads_by_topic[t].run_sd for t in topics])
        gsd = np.array([spreads_by_topic[t].regime_sd for t in topics])
        line = np.array([spreads_by_topic[t].line(x) for t in topics])  # (mean, variance) per topic
        shared = (
            np.sum(u**2 * rsd**2) + np.sum(u * qsd) ** 2 + np.sum(u * gsd) ** 2 + np.sum(u * np.sqrt(line[:, 1])) ** 2
        )
        var = (rep.ind.loc[keys].sum() + scale * shared) / t_n**2
        j = rep.j.loc[keys].mean() + bias * u.mean() + float(np.sum(u * line[:, 0])) / t_n
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
    ap.add_argument("--draws", type=int, default=20, help="draws of the labelled citations per share and design")
    ap.add_argument("--held-out", type=int, default=20, help="halvings of the runs, held-out figures with labels")
    ap.add_argument("--mix", type=float, default=PLAN_MIX, help="the plan's share of draws spread evenly")
    ap.add_argument(
        "--plan-order",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="the plan's order factor (plan-assessments plans without it)",
    )
    ap.add_argument("--kind", default="predictive", choices=("predictive", "upper"), help="the spreads' honest fit")
    ap.add_argument("--regime-sd", type=float, default=iv.REGIME_SD, help="sd of a bias shared by every run")
    ap.add_argument(
        "--line",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="the run's mean error a line in its judged value (fit_spreads(line=True)); measured, not shipped",
    )
    ap.add_argument(
        "--no-labels-only",
        action="store_true",
        help="only the tables without labels (the shifts, the regime allowance against them), then stop",
    )
    ap.add_argument(
        "--sure-only",
        action="store_true",
        help="only what the labels drawn for sure say through the error model (the section's inputs computed)",
    )
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
    nested, loto, nested_line = {}, {}, {}
    nested_scale: dict = {cov: {} for cov in iv.RUN_COVARIATES}  # the heteroscedastic run term, nested
    topics_arr = table["topic_id"].to_numpy()
    for k in topics:
        rest = table[topics_arr != k].reset_index(drop=True)
        inner = inner_cv(rest)
        nested[k] = spreads_of(rest, *inner)
        nested_line[k] = spreads_of(rest, *inner, line=True)
        for cov in () if args.sure_only or args.no_labels_only else iv.RUN_COVARIATES:
            nested_scale[cov][k] = run_scale_of(rest, *inner, cov)
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
        f"report_sd {everything['report_sd']}, run_sd {everything['run_sd']}, bias {everything['bias']:+.4f}; "
        f"posterior predictive report_sd {everything['report_sd_predictive']}, "
        f"run_sd {everything['run_sd_predictive']}; "
        f"upper bounds {everything['report_sd_upper']}, {everything['run_sd_upper']} (judges/scores/intervals.json)"
    )
    line = spreads_of(table, p_any, p_full, line=True)
    print(
        "With the run's mean error a line in its judged value (fit_spreads(line=True), not shipped): "
        f"slope {line['slope']} +- {line['slope_sd']}, bias {line['bias']} +- {line['bias_sd']} at center "
        f"{line['center']}; report_sd {line['report_sd']}, run_sd {line['run_sd']}; posterior predictive "
        f"{line['report_sd_predictive']}, {line['run_sd_predictive']}"
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
    # which runs get the narrow intervals: the judged value against the width (nested spreads)
    from scipy.stats import spearmanr

    nested_fig = figures["nested (fitted without the topic)"]
    values = np.array([f[0] for f in nested_fig.values()])
    widths = np.array([np.diff(iv.interval(f[0], f[2]))[0] for f in nested_fig.values()])
    low = np.argsort(values)[:10]
    rest = np.setdiff1d(np.arange(len(values)), low)
    print(
        f"\nWidth against the judged value (nested): Spearman {spearmanr(values, widths)[0]:+.2f}; "
        f"mean width of the 10 runs judged lowest {widths[low].mean():.3f}, of the other {len(rest)} "
        f"{widths[rest].mean():.3f}"
    )

    # CITATION_SUPPORT: the share judged supported (grounding cap applied) against the share labelled
    # fully supported; per citation the expected squared error of the judge's 0/1 under P(full)
    # (judges/scores/intervals.py), or the people's variance alone, P(full)(1 - P(full)); shared parts scaled
    # by the ratio of independent errors, as judges/scores/intervals.py does
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
            "squared error of the judge's 0/1 (judges/scores/intervals.py)",
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
    # the spreads the intervals take (posterior predictive, regime allowance, the line if fitted), nested
    by_topic = {
        k: iv.Spreads.honest(f, args.regime_sd, args.kind) for k, f in (nested_line if args.line else nested).items()
    }
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
        "halvings 7 / 7; interval and p from half A (the intervals' spreads: posterior predictive, regime "
        f"allowance{', the line' if args.line else ''}; nested)\n"
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
    honest_section(
        args, table, truth, runs_topics, p_any, p_full, weight, variance, nested, nested_line, topics, nested_scale
    )
    print(f"\n({time.perf_counter() - started:.0f} s; the machine was loaded: CPU shared with other work)")


# -- honest spreads, and labels drawn with known probabilities (issue 38) ---------------------------
class Citations:
    """The labelled citations of the runs' truth reports, as arrays: run and topic, leverage in the
    run's value over its truth topics, the judge's weight ``f``, its independent variance ``v``, the
    assessors' weight ``h``; and per run the truth value ``H`` (mean of truth.eval over its topics)."""

    def __init__(self, table: pd.DataFrame, weight, variance, truth: pd.Series, runs_topics: dict):
        keep = np.array([(r, t) in truth.index for r, t in zip(table["run_id"], table["topic_id"])])
        t = table[keep].reset_index(drop=True)
        self.table = t
        self.run = t["run_id"].to_numpy().astype(str)
        self.topic = t["topic_id"].to_numpy().astype(str)
        self.f, self.v = np.asarray(weight)[keep], np.asarray(variance)[keep]
        self.h = t["y"].to_numpy() / 2.0
        n = t.groupby(["run_id", "topic_id"])["y"].transform("size").to_numpy().astype(np.float64)
        self.lev = 1.0 / (n * np.array([len(runs_topics[r]) for r in self.run]))
        self.runs = sorted(runs_topics)
        self.rows = {r: np.flatnonzero(self.run == r) for r in self.runs}
        self.truth = truth
        self.runs_topics = runs_topics
        self.board: dict = {}  # the leaderboard's values with the drawn labels substituted (set per draw)
        self.H = {r: float(truth.loc[[(r, x) for x in runs_topics[r]]].mean()) for r in self.runs}
        # each run's judged value over its reports (the mean of their mean weights): where the line is read
        per_report = pd.Series(self.f).groupby([self.run, self.topic]).mean()
        self.x = per_report.groupby(level=0).mean().to_dict()


def model_variance(
    c: Citations, run: str, rest: np.ndarray, spreads_by_topic: dict, regime_sd: float, scales: dict | None = None
) -> float:
    """The judge-error variance of run ``run``'s value over its citations ``rest`` (a mask over its
    rows): independent parts, each topic's report and run spreads (``spreads_by_topic``), and a bias
    shared by every run (``regime_sd``) on the share the judge still values; ``scales``: topic ->
    a heteroscedastic run term's fit (:func:`judges.scores.intervals.fit_run_scale`), whose factor at
    the run's judged value multiplies the run effect's variance."""
    rows = c.rows[run]
    topics = c.runs_topics[run]
    t_n = len(topics)
    ind, u2, urun, ushare, uline = 0.0, 0.0, 0.0, 0.0, 0.0
    for x in topics:
        m = c.topic[rows] == x
        n = m.sum()
        if n == 0:
            continue
        r = m & rest
        u = r.sum() / n
        sp = spreads_by_topic[x]
        ind += c.v[rows][r].sum() / n**2
        u2 += u**2 * sp.report_sd**2
        urun += u * sp.run_sd * (float(np.sqrt(iv.run_scale(scales[x], c.x[run]))) if scales else 1.0)
        ushare += u
        uline += u * np.sqrt(sp.line(c.x[run])[1])
    return (ind + u2 + urun**2 + (regime_sd * ushare) ** 2 + uline**2) / t_n**2


def line_shift(c: Citations, run: str, spreads_by_topic: dict) -> float:
    """The mean error per uncertain citation weight the run's line gives (its topics' fits, averaged)."""
    return float(np.mean([spreads_by_topic[x].line(c.x[run])[0] for x in c.runs_topics[run]]))


THROUGH = ("drawn at random only (shipped)", "the bias from the sure ones too", "the bias, and the run's own errors")


def estimates(
    c: Citations,
    labelled: np.ndarray,
    pi: np.ndarray,
    h: np.ndarray,
    spreads_by_topic: dict,
    regime_sd,
    scales=None,
    through: int = 0,
):
    """Per run: (estimate with its regime allowance, the same without it for pairs); ``scales``: a
    heteroscedastic run term per topic (:func:`model_variance`); ``through``: what the labels drawn
    for sure say through the error model (:data:`THROUGH`: 0 nothing, as before; 1 the shared bias,
    :func:`judges.scores.intervals.sure_bias`; 2 that and the run's and its reports' errors,
    :func:`judges.scores.intervals.shared_posterior`; measured, not shipped)."""
    out = {}
    shift, learned_sd = learned_bias(c, labelled, pi, h, spreads_by_topic, regime_sd, through)
    if labelled.any():
        regime_sd = learned_sd
    sub = np.where(labelled, h, c.f)
    c.board = {r: float(np.sum(c.lev[c.rows[r]] * sub[c.rows[r]])) for r in c.runs}
    for run in c.runs:
        rows = c.rows[run]
        lab, p = labelled[rows], pi[rows]
        rest = ~(lab & (p >= 1.0))
        args = (c.lev[rows], c.f[rows], h[rows], lab, p)
        report_sd = np.array([spreads_by_topic[x].report_sd for x in c.topic[rows]])
        within = c.v[rows] + report_sd**2  # a residual's expected square about its run's mean residual
        moved = shift + line_shift(c, run, spreads_by_topic)
        change = 0.0
        if through >= 2:
            change, expected = run_posterior(c, run, labelled, pi, h, shift, spreads_by_topic)
            moved = moved + expected
        out[run] = (
            iv.labelled_estimate(
                *args, model_variance(c, run, rest, spreads_by_topic, regime_sd, scales) + change, within, moved
            ),
            iv.labelled_estimate(
                *args, model_variance(c, run, rest, spreads_by_topic, 0.0, scales) + change, within, moved
            ),
        )
    return out


def learned_bias(c: Citations, labelled, pi, h, spreads_by_topic: dict, regime_sd: float, through: int = 0):
    """The bias shared by every run after the labels (:func:`judges.scores.intervals.regime_update`):
    from those drawn at random, and (``through``) from those drawn for sure through the error model
    (:func:`judges.scores.intervals.sure_bias`, each label with its topic's spreads): (mean, sd)."""
    drawn, sure_rows = labelled & (pi < 1.0), labelled & (pi >= 1.0)
    sure = (0.0, np.inf)
    if through and sure_rows.any():
        sd_report = np.array([spreads_by_topic[x].report_sd for x in c.topic[sure_rows]])
        sd_run = np.array([spreads_by_topic[x].run_sd for x in c.topic[sure_rows]])
        key = np.char.add(np.char.add(c.run[sure_rows], "\t"), c.topic[sure_rows])
        sure = iv.sure_bias((h - c.f)[sure_rows], c.v[sure_rows], key, c.run[sure_rows], sd_report, sd_run)
    return iv.regime_update(c.f[drawn], h[drawn], pi[drawn], regime_sd, sure)


def run_posterior(c: Citations, run: str, labelled, pi, h, shift: float, spreads_by_topic: dict):
    """Run ``run``'s shared errors after its labels drawn for sure (:func:`judges.scores.intervals.shared_posterior`,
    each report with its topic's spreads): the change in its value's variance, and each of its
    citations' expected error (0 where the judge is sure: a missing citation)."""
    rows = c.rows[run]
    sure = labelled[rows] & (pi[rows] >= 1.0)
    if not sure.any():
        return 0.0, 0.0
    at = c.topic[rows]
    here = [x for x in c.runs_topics[run] if (at == x).any()]
    seen = sure & (c.v[rows] > 0)
    inv = np.where(seen, 1.0 / np.where(seen, c.v[rows], 1.0), 0.0)
    u = [float(np.mean(~sure[at == x])) for x in here]
    s = [float(np.sum(inv[at == x])) for x in here]
    m = [float(np.sum((inv * (h[rows] - c.f[rows] - shift))[at == x])) for x in here]
    sd_report = [spreads_by_topic[x].report_sd for x in here]
    sd_run = [spreads_by_topic[x].run_sd for x in here]
    mean, after, before = iv.shared_posterior(u, sd_report, sd_run, s, m, len(c.runs_topics[run]))
    by_topic = dict(zip(here, mean))
    return after - before, (c.v[rows] > 0) * np.array([by_topic[x] for x in at])


def scores(c: Citations, est: dict, H: dict, runs=None) -> dict:
    from scipy.stats import kendalltau

    runs = c.runs if runs is None else runs
    hits, widths, alone_hits, alone_widths = [], [], [], []
    for r in runs:
        e = est[r][0]
        lo, hi = iv.interval(e.value, e.variance)
        hits.append(lo - 1e-12 <= H[r] <= hi + 1e-12)
        widths.append(hi - lo)
        if e.labels_variance == e.labels_variance:
            lo, hi = iv.interval(e.labels_value, e.labels_variance)
            alone_hits.append(lo - 1e-12 <= H[r] <= hi + 1e-12)
            alone_widths.append(hi - lo)
    p, same = [], []
    for i, a in enumerate(runs):
        for b in runs[i + 1 :]:
            ea, eb = est[a][1], est[b][1]
            gap = ea.value - eb.value
            p.append(iv.p_same_order(abs(gap), ea.variance + eb.variance))
            same.append((H[a] - H[b]) * gap > 0)
    p, same = np.array(p), np.array(same)
    sure = p >= 0.95
    tau = kendalltau([est[r][0].value for r in runs], [H[r] for r in runs]).statistic
    board = kendalltau([c.board[r] for r in runs], [H[r] for r in runs]).statistic if c.board else tau
    return {
        "coverage": float(np.mean(hits)),
        "width": float(np.mean(widths)),
        "sure": float(sure.mean()),
        "sure_right": float(same[sure].mean()) if sure.any() else float("nan"),
        "sure_pairs": int(sure.sum()),
        "sure_wrong": int((sure & ~same).sum()),
        "tau": float(tau),
        "board_tau": float(board),
        "alone_runs": len(alone_hits),
        "alone_coverage": float(np.mean(alone_hits)) if alone_hits else float("nan"),
        "alone_width": float(np.mean(alone_widths)) if alone_widths else float("nan"),
        "effective": float(np.mean([est[r][0].effective for r in runs])),
    }


def mean_scores(rows: list[dict]) -> dict:
    import warnings

    with warnings.catch_warnings():  # the labels alone: NaN in draws where no run had two drawn labels
        warnings.simplefilter("ignore", RuntimeWarning)
        out = {k: float(np.nanmean([r[k] for r in rows])) for k in rows[0]}
    wrong, sure = sum(r["sure_wrong"] for r in rows), sum(r["sure_pairs"] for r in rows)
    out["sure_right"] = 1.0 - wrong / sure if sure else float("nan")  # pooled over draws
    return out


def designs(c: Citations, gain: np.ndarray, share: float, draws: int, mix: float, seed: int = 0, narrow: bool = True):
    """(planned, random) lists of (labelled mask, inclusion probabilities), ``draws`` each; the
    planned ones' sure part where the labels narrow the intervals most (``narrow``, as
    plan-assessments) or of largest gain (before)."""
    from judges.attest.plan import inclusion_probabilities, narrowing, shipped_spreads, systematic_draw

    n = len(c.f)
    k = int(round(share * n))
    sure = k - int(round(mix * k))  # as plan-assessments: for sure where they narrow the intervals most
    first = narrowing(c.run, c.topic, c.lev, c.v, np.ones(n, dtype=bool), sure, *shipped_spreads()) if narrow else None
    pi_plan = inclusion_probabilities(gain, k, mix, first)
    planned, rand = [], []
    rng = np.random.default_rng(seed)
    for d in range(draws):
        m = np.zeros(n, dtype=bool)
        m[systematic_draw(pi_plan, seed + d)] = True
        planned.append((m, pi_plan))
        m = np.zeros(n, dtype=bool)
        m[rng.choice(n, k, replace=False)] = True
        rand.append((m, np.full(n, k / n)))
    return planned, rand


def label_table(c: Citations, gain, spreads_by_topic, regime_sd, H, h, draws, mix, runs=None, title="", show=True):
    say = print if show else (lambda *_: None)
    say(f"\n{title}\n")
    say(
        "| labels | drawn | coverage | mean width | pairs >= 95% sure | of those right | run tau | "
        "leaderboard tau (labels substituted) | mean effective labels per run | "
        "labels alone: runs with an interval, coverage, width |"
    )
    say("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    none = np.zeros(len(c.f), dtype=bool)
    s = scores(c, estimates(c, none, np.zeros(len(c.f)), h, spreads_by_topic, regime_sd), H, runs)
    say(
        f"| 0% | - | {s['coverage']:.1%} | {s['width']:.3f} | {s['sure']:.1%} | {s['sure_right']:.1%} | "
        f"{s['tau']:.3f} | {s['board_tau']:.3f} | 0 | - |"
    )
    out = {0.0: s}
    for share in (0.02, 0.05, 0.10):
        planned, rand = designs(c, gain, share, draws, mix)
        for name, ds in (("planned", planned), ("at random", rand)):
            rows = [scores(c, estimates(c, m, p, h, spreads_by_topic, regime_sd), H, runs) for m, p in ds]
            s = mean_scores(rows)
            out[(share, name)] = s
            say(
                f"| {share:.0%} | {name} | {s['coverage']:.1%} | {s['width']:.3f} | {s['sure']:.1%} | "
                f"{s['sure_right']:.1%} | {s['tau']:.3f} | {s['board_tau']:.3f} | {s['effective']:.1f} | "
                f"{s['alone_runs']:.0f}, {s['alone_coverage']:.1%}, {s['alone_width']:.3f} |"
            )
    return out


def honest_section(
    args, table, truth, runs_topics, p_any, p_full, weight, variance, nested, nested_line, topics, nested_scale
):
    from judges.attest.plan import gains

    regime_sd = args.regime_sd
    honest = {k: iv.Spreads.honest(f, regime_sd, args.kind) for k, f in (nested_line if args.line else nested).items()}
    point = {k: iv.Spreads.of(f) for k, f in nested.items()}
    c = Citations(table, weight, variance, truth, runs_topics)
    ct = c.table
    ruled = lacks(ct)
    keep = np.array([(r, t) in truth.index for r, t in zip(table["run_id"], table["topic_id"])])
    columns = {
        "run_id": c.run,
        "topic_id": c.topic,
        "status": ct["status"].to_numpy(),
        "p_any": p_any[keep],
        "p_full": p_full[keep],
        "weight": c.f,
    }
    answered = {r: len(t) for r, t in runs_topics.items()}
    gain, _ = gains(columns, answered, ruled, order=args.plan_order)
    r = [f[f"report_sd_{args.kind}"] for f in nested.values()]
    q = [f[f"run_sd_{args.kind}"] for f in nested.values()]
    print(
        f"\n## Honest intervals (issue 38): spreads {args.kind} (nested per topic): "
        f"report_sd {min(r):.4f}-{max(r):.4f}, run_sd {min(q):.4f}-{max(q):.4f}; a bias shared by every run "
        f"for another label regime, sd {regime_sd} per citation weight; labels planned with mix {args.mix} "
        f"(share of the draws spread evenly), {args.draws} draws per share\n"
    )
    print("### Without labels, under the shifts\n")
    print("| shift | spreads | runs | coverage | mean width | pairs >= 95% sure | of those right | run tau |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    none = np.zeros(len(c.f), dtype=bool)
    zero = np.zeros(len(c.f))

    def line(shift, name, est, H, runs=None):
        s = scores(c, est, H, runs)
        n = len(runs or c.runs)
        print(
            f"| {shift} | {name} | {n} | {s['coverage']:.1%} ({round(s['coverage'] * n)}/{n}) | {s['width']:.3f} | "
            f"{s['sure']:.1%} | {s['sure_right']:.1%} | {s['tau']:.3f} |"
        )

    for name, sp, rsd in (("point (before)", point, 0.0), ("honest (now)", honest, regime_sd)):
        line("unseen topics", name, estimates(c, none, zero, c.h, sp, rsd), c.H)

    # held-out runs: spreads fitted on half of the runs, coverage on the other half
    rng = np.random.default_rng(1)
    rows_h, rows_p = [], []
    all_runs = np.array(c.runs)
    halvings = []  # (the other half, its honest fit) for the regime frontier below
    for _ in range(args.splits):
        half = set(rng.permutation(all_runs)[: len(all_runs) // 2].tolist())
        fit_rows = table["run_id"].isin(half).to_numpy()
        f = spreads_of(table[fit_rows].reset_index(drop=True), p_any[fit_rows], p_full[fit_rows])
        fl = spreads_of(table[fit_rows].reset_index(drop=True), p_any[fit_rows], p_full[fit_rows], line=args.line)
        other = [x for x in c.runs if x not in half]
        halvings.append((other, fl, fit_rows))
        for rows, sp, rsd in (
            (rows_p, iv.Spreads.of(f), 0.0),
            (rows_h, iv.Spreads.honest(fl, regime_sd, args.kind), regime_sd),
        ):
            rows.append(scores(c, estimates(c, none, zero, c.h, dict.fromkeys(topics, sp), rsd), c.H, other))
    for name, rows in (("point (before)", rows_p), ("honest (now)", rows_h)):
        s = mean_scores(rows)
        print(
            f"| held-out runs ({args.splits} halvings) | {name} | {len(c.runs) // 2 + 1} | {s['coverage']:.1%} | "
            f"{s['width']:.3f} | {s['sure']:.1%} | {s['sure_right']:.1%} | {s['tau']:.3f} |"
        )

    # report-level residuals resampled: each run's truth the judge's value plus the residuals of the
    # reports of a run drawn at random, its topics drawn with replacement: as many as the donor has
    # (as before), and as many as the run itself has (the donor's few topics otherwise give a run of
    # 14 topics the error of a run of 2: a sample size the run does not have, not a label regime)
    resid = {x: (rep_truth_minus_judge(c, x)) for x in c.runs}
    resampled: dict = {kind: [] for kind in WORLDS}  # the truths drawn, for the regime frontier below
    for kind in WORLDS:
        rows_h, rows_p = [], []
        draw = rng if kind == "donor" else np.random.default_rng(SEEDS[kind])  # the donor's: the draws as before
        for _ in range(args.splits):
            H = resampled_truths(c, draw, kind, resid)
            resampled[kind].append(H)
            for rows, sp, rsd in ((rows_p, point, 0.0), (rows_h, honest, regime_sd)):
                rows.append(scores(c, estimates(c, none, zero, c.h, sp, rsd), H))
        for name, rows in (("point (before)", rows_p), ("honest (now)", rows_h)):
            s = mean_scores(rows)
            print(
                f"| {WORLDS[kind]} ({args.splits} draws) | {name} | {len(c.runs)} | "
                f"{s['coverage']:.1%} | {s['width']:.3f} | {s['sure']:.1%} | {s['sure_right']:.1%} | {s['tau']:.3f} |"
            )

    print(report_error_parts(c, honest))

    # stricter labels: partial and full labels flipped to none at random until 30% are none
    h_strict, H_strict = stricter(c, rng)
    print(
        f"\n(the stricter labels move the mean label weight per citation by {np.mean(h_strict - c.h):+.4f}; "
        f"the regime allowance, sd {regime_sd}, is not fitted to it)\n"
    )
    for name, sp, rsd in (("point (before)", point, 0.0), ("honest (now)", honest, regime_sd)):
        line(
            f"stricter labels ({np.mean(h_strict == 0):.0%} none)",
            name,
            estimates(c, none, zero, c.h, sp, rsd),
            H_strict,
        )

    if args.sure_only:
        sure_section(
            c,
            gain,
            honest,
            regime_sd,
            args.draws,
            held_out_fits(args, c, table, p_any, p_full, regime_sd, topics),
            resampled,
        )
        return
    # the regime allowance is not fitted: what each value of it buys, without labels, under every shift
    regime_sweep(args, c, nested_line if args.line else nested, halvings, resampled, H_strict, topics)
    if args.no_labels_only:
        return

    hetero_section(args, c, table, p_any, p_full, nested, nested_scale, halvings, resampled, H_strict, topics)

    out = {}
    out["unseen"] = label_table(
        c, gain, honest, regime_sd, c.H, c.h, args.draws, args.mix, title="### With labels: unseen topics (45 runs)"
    )
    variance_parts(c, gain, honest, regime_sd, args.draws, args.mix)
    out["strict"] = label_table(
        c,
        gain,
        honest,
        regime_sd,
        H_strict,
        h_strict,
        args.draws,
        args.mix,
        title="### With labels: stricter labels (the labels drawn are the flipped ones too)",
    )
    fits = held_out_fits(args, c, table, p_any, p_full, regime_sd, topics)
    out["held_out"] = held_out_section(args, c, gain, regime_sd, honest, fits)
    # the mix of the planned draws, measured (5% labels, unseen topics)
    print("\n### The plan's mix (5% labels, unseen topics): share of the draws spread evenly\n")
    print(
        "| mix | the sure ones | coverage | mean width | pairs >= 95% sure | of those right | run tau "
        "| stricter labels: coverage, run tau | drawn for sure |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    k = int(round(0.05 * len(c.f)))
    h_strict, H_strict = stricter(c, np.random.default_rng(5))
    for mix, narrow in [(m, True) for m in (0.0, 0.2, 0.35, 0.5, 0.8, 1.0)] + [(0.5, False), (0.35, False)]:
        planned, _ = designs(c, gain, 0.05, args.draws, mix, narrow=narrow)
        s = mean_scores([scores(c, estimates(c, m, p, c.h, honest, regime_sd), c.H) for m, p in planned])
        t = mean_scores([scores(c, estimates(c, m, p, h_strict, honest, regime_sd), H_strict) for m, p in planned])
        how = "narrow the intervals most" if narrow else "largest gain (before)"
        print(
            f"| {mix} | {how} | {s['coverage']:.1%} | {s['width']:.3f} | {s['sure']:.1%} | {s['sure_right']:.1%} | "
            f"{s['tau']:.3f} | {t['coverage']:.1%}, {t['tau']:.3f} | {k - int(round(mix * k))} |"
        )
    sure_section(c, gain, honest, regime_sd, args.draws, fits, resampled)


def sure_section(c: Citations, gain, honest: dict, regime_sd: float, draws: int, fits: list, resampled: dict) -> None:
    """What the labels drawn for sure say through the error model (:data:`THROUGH`), with the plan's
    mix 0.0 / 0.1 / 0.2 / 0.35, 5% labels: unseen topics, held-out runs (the mean over the halvings
    ``fits``, run tau gain over 5% at random per halving), stricter labels, the report residuals
    resampled (the labels the real ones: their residuals are other citations' than the truth's)."""
    h_strict, H_strict = stricter(c, np.random.default_rng(5))
    worlds = resampled_with_labels(c, np.random.default_rng(8), draws)
    moved = resampled_with_labels(c, np.random.default_rng(9), draws, citations=False)
    fair = resampled_with_labels(c, np.random.default_rng(10), draws, citations=False, matched=True)
    _, rand = designs(c, gain, 0.05, draws, 0.0)
    base = {
        "unseen": mean_scores([scores(c, estimates(c, m, p, c.h, honest, regime_sd), c.H) for m, p in rand]),
        "strict": mean_scores([scores(c, estimates(c, m, p, h_strict, honest, regime_sd), H_strict) for m, p in rand]),
        "worlds_none": mean_scores(
            [
                scores(c, estimates(c, m & False, p * 0, w[0], honest, regime_sd), w[1])
                for (m, p), w in zip(rand, worlds)
            ]
        ),
        "moved_none": mean_scores(
            [scores(c, estimates(c, m & False, p * 0, w[0], honest, regime_sd), w[1]) for (m, p), w in zip(rand, moved)]
        ),
        "moved": mean_scores(
            [scores(c, estimates(c, m, p, w[0], honest, regime_sd), w[1]) for (m, p), w in zip(rand, moved)]
        ),
        "fair_none": mean_scores(
            [scores(c, estimates(c, m & False, p * 0, w[0], honest, regime_sd), w[1]) for (m, p), w in zip(rand, fair)]
        ),
        "fair": mean_scores(
            [scores(c, estimates(c, m, p, w[0], honest, regime_sd), w[1]) for (m, p), w in zip(rand, fair)]
        ),
        "worlds": mean_scores(
            [scores(c, estimates(c, m, p, w[0], honest, regime_sd), w[1]) for (m, p), w in zip(rand, worlds)]
        ),
        "held": [
            mean_scores([scores(c, estimates(c, m, p, c.h, sp, regime_sd), c.H, o) for m, p in rand]) for o, sp in fits
        ],
    }
    print(
        f"\n### What the labels drawn for sure say through the error model (5% labels, {draws} draws; held-out "
        f"runs: the mean over {len(fits)} halvings, run tau gain over 5% at random per halving; resampled: the "
        "report residuals of a run drawn at random, the donor's topics, one truth per draw, the labels the real "
        "ones; resampled with the labels: each report a report of a run drawn at random, each citation's label "
        "the judge's weight plus the residual of one of that report's citations, the truth from those labels)\n"
    )
    r, st, hm, wo = base["unseen"], base["strict"], mean_scores(base["held"]), base["worlds"]
    print(
        f"5% at random: unseen {r['coverage']:.1%} at {r['width']:.3f}, run tau {r['tau']:.3f}; held-out "
        f"{hm['coverage']:.1%} at {hm['width']:.3f}, run tau {hm['tau']:.3f}; stricter {st['coverage']:.1%} at "
        f"{st['width']:.3f}, run tau {st['tau']:.3f}; resampled with the labels {wo['coverage']:.1%} at "
        f"{wo['width']:.3f}, pairs sure right {wo['sure_right']:.1%} (without labels "
        f"{base['worlds_none']['coverage']:.1%}, {base['worlds_none']['sure_right']:.1%}); report residuals moved "
        f"{base['moved']['coverage']:.1%}, pairs sure right {base['moved']['sure_right']:.1%} (without labels "
        f"{base['moved_none']['coverage']:.1%}, {base['moved_none']['sure_right']:.1%}); the same, donors matched "
        f"{base['fair']['coverage']:.1%}, pairs sure right {base['fair']['sure_right']:.1%} (without labels "
        f"{base['fair_none']['coverage']:.1%}, {base['fair_none']['sure_right']:.1%})\n"
    )
    print(
        "| sure labels | mix | unseen: coverage | width | sure pairs right | run tau | held-out: coverage | width "
        "| run tau | gain | stricter: coverage | width | run tau | gain | resampled: coverage | sure pairs right "
        "| resampled with the labels: coverage | width | sure pairs right | report residuals moved: coverage "
        "| sure pairs right | donors matched: coverage | sure pairs right |"
    )
    print("|---|---:|" + "---:|" * 21)
    for mix in (0.0, 0.1, 0.2, 0.35):
        planned, _ = designs(c, gain, 0.05, draws, mix)
        for through, name in enumerate(THROUGH):

            def run(h, H, sp, runs=None, resample=None, labels=None, through=through, planned=planned):
                return mean_scores(
                    [
                        scores(
                            c,
                            estimates(c, m, p, h if labels is None else labels[i][0], sp, regime_sd, through=through),
                            H if resample is None else resample[i % len(resample)],
                            runs,
                        )
                        for i, (m, p) in enumerate(planned)
                    ]
                )

            u, t = run(c.h, c.H, honest), run(h_strict, H_strict, honest)
            held = [run(c.h, c.H, sp, o) for o, sp in fits]
            hm = mean_scores(held)
            gain_ = np.mean([a["tau"] - b["tau"] for a, b in zip(held, base["held"])])
            res = run(c.h, None, honest, resample=resampled["donor"])
            wor = run(None, None, honest, resample=[w[1] for w in worlds], labels=worlds)
            mov = run(None, None, honest, resample=[w[1] for w in moved], labels=moved)
            fai = run(None, None, honest, resample=[w[1] for w in fair], labels=fair)
            print(
                f"| {name} | {mix} | {u['coverage']:.1%} | {u['width']:.3f} | {u['sure_right']:.1%} | {u['tau']:.3f} | "
                f"{hm['coverage']:.1%} | {hm['width']:.3f} | {hm['tau']:.3f} | {gain_:+.3f} | {t['coverage']:.1%} | "
                f"{t['width']:.3f} | {t['tau']:.3f} | {t['tau'] - st['tau']:+.3f} | {res['coverage']:.1%} | "
                f"{res['sure_right']:.1%} | {wor['coverage']:.1%} | {wor['width']:.3f} | {wor['sure_right']:.1%} | "
                f"{mov['coverage']:.1%} | {mov['sure_right']:.1%} | {fai['coverage']:.1%} | {fai['sure_right']:.1%} |",
                flush=True,
            )


def variance_parts(c: Citations, gain, spreads_by_topic: dict, regime_sd: float, draws: int, mix: float) -> None:
    """What a run's variance is made of with labels (unseen topics, the mean over runs and draws):
    the error model's parts on the citations not labelled for sure (independent, report, run, the
    shared bias after the labels drawn at random), the combined variance, and the weight of the
    run's own drawn labels (the PPI part) in the combination."""
    print(
        "\nWhat the intervals' variance is made of (unseen topics, mean over the runs and draws; the model's "
        "parts on the citations not labelled for sure; `design weight`: the share of the precision the run's "
        "own drawn labels give, model and labels combined)\n"
    )
    print(
        "| labels | drawn | independent | report | run | report and run after the sure labels | shared bias "
        "| model total | combined | design weight |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for share in (0.05, 0.10):
        planned, rand = designs(c, gain, share, draws, mix)
        for name, ds, through in (
            ("planned", planned, 0),
            ("at random", rand, 0),
            ("planned, the sure labels through the model (not shipped)", planned, 2),
        ):
            rows = []
            for m, p in ds:
                shift, learned_sd = learned_bias(c, m, p, c.h, spreads_by_topic, regime_sd, through)
                est = estimates(c, m, p, c.h, spreads_by_topic, regime_sd, through=through)
                for run in c.runs:
                    rows_ = c.rows[run]
                    rest = ~(m[rows_] & (p[rows_] >= 1.0))
                    t_n = len(c.runs_topics[run])
                    ind = rep = urun = ushare = 0.0
                    for x in c.runs_topics[run]:
                        here = c.topic[rows_] == x
                        if not here.any():
                            continue
                        left = here & rest
                        u = left.sum() / here.sum()
                        ind += c.v[rows_][left].sum() / here.sum() ** 2
                        rep += u**2 * spreads_by_topic[x].report_sd ** 2
                        urun += u * spreads_by_topic[x].run_sd
                        ushare += u
                    parts = np.array([ind, rep, urun**2, (learned_sd * ushare) ** 2]) / t_n**2
                    after = parts[1] + parts[2]
                    if through >= 2:
                        after += run_posterior(c, run, m, p, c.h, shift, spreads_by_topic)[0]
                    model = parts[0] + after + parts[3]
                    combined = est[run][0].variance
                    rows.append(
                        [*parts[:3], after, parts[3], model, combined, 1.0 - combined / model if model else 0.0]
                    )
            mean = np.mean(rows, axis=0)
            print(f"| {share:.0%} | {name} | " + " | ".join(f"{v:.5f}" for v in mean[:7]) + f" | {mean[7]:.1%} |")


def held_out_fits(args, c, table, p_any, p_full, regime_sd, topics) -> list:
    """``--held-out`` halvings of the runs: (the other half, the spreads fitted on one half, per topic)."""
    all_runs = np.array(c.runs)
    rng_held = np.random.default_rng(2)
    out = []
    for _ in range(args.held_out):
        half = set(rng_held.permutation(all_runs)[: len(all_runs) // 2].tolist())
        fit_rows = table["run_id"].isin(half).to_numpy()
        f = spreads_of(table[fit_rows].reset_index(drop=True), p_any[fit_rows], p_full[fit_rows], line=args.line)
        out.append(
            ([x for x in c.runs if x not in half], dict.fromkeys(topics, iv.Spreads.honest(f, regime_sd, args.kind)))
        )
    return out


def held_out_section(args, c, gain, regime_sd, honest, fits: list) -> dict:
    """With labels, the spreads fitted on half of the runs and scored on the other half (``fits``,
    :func:`held_out_fits`): the first halving's table, then the mean over the halvings; returns the
    first's figures."""
    # held-out runs with labels: spreads from one half, scored on the other; the first halving's table,
    # then the mean over --held-out halvings (one halving of 23 runs is a noisy run tau)
    held, others = [], []
    for i, (other, sp) in enumerate(fits):
        others.append(other)
        title = (
            f"### With labels: held-out runs (spreads fitted on {len(c.runs) - len(other)} runs, scored on the "
            f"other {len(other)})"
        )
        held.append(label_table(c, gain, sp, regime_sd, c.H, c.h, args.draws, args.mix, other, title, show=i == 0))
    print(
        f"\n### With labels: held-out runs, the mean over {args.held_out} halvings (each {args.draws} draws; "
        "run tau gain: planned minus at random, per halving)\n"
    )
    print("| labels | drawn | coverage | mean width | pairs >= 95% sure | of those right | run tau | run tau gain |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for share in (0.02, 0.05, 0.10):
        gains_ = [h[(share, "planned")]["tau"] - h[(share, "at random")]["tau"] for h in held]
        for name in ("planned", "at random"):
            s = {k: float(np.mean([h[(share, name)][k] for h in held])) for k in held[0][(share, name)]}
            g = f"{np.mean(gains_):+.3f} (from {min(gains_):+.3f} to {max(gains_):+.3f})" if name == "planned" else "-"
            print(
                f"| {share:.0%} | {name} | {s['coverage']:.1%} | {s['width']:.3f} | {s['sure']:.1%} | "
                f"{s['sure_right']:.1%} | {s['tau']:.3f} | {g} |"
            )
    subset_gain(c, gain, honest, regime_sd, args.draws, args.mix, others)
    return held[0]


def subset_gain(c: Citations, gain, spreads_by_topic: dict, regime_sd: float, draws: int, mix: float, others: list):
    """What counting run tau on half of the runs does alone: the unseen-topics estimates (nested
    spreads), 5% labels planned and at random, tau-a gain on 400 random halves of the runs, and on
    the held-out halves ``others`` (lists of runs)."""
    planned, rand = designs(c, gain, 0.05, draws, mix)
    truth = np.array([c.H[r] for r in c.runs])

    def values(ds):
        return [
            np.array([e[r][0].value for r in c.runs])
            for e in (estimates(c, m, p, c.h, spreads_by_topic, regime_sd) for m, p in ds)
        ]

    def tau_a(v: np.ndarray, idx: np.ndarray) -> float:
        x, y = v[idx], truth[idx]
        return float(
            np.sum(np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])) / (len(idx) * (len(idx) - 1))
        )

    vp, vr = values(planned), values(rand)
    everyone = np.arange(len(c.runs))
    full = np.mean([tau_a(v, everyone) for v in vp]) - np.mean([tau_a(v, everyone) for v in vr])
    rng = np.random.default_rng(7)
    half, n = len(c.runs) - len(c.runs) // 2, 400
    found = []
    for _ in range(n):
        idx = rng.permutation(len(c.runs))[:half]
        found.append(np.mean([tau_a(v, idx) for v in vp]) - np.mean([tau_a(v, idx) for v in vr]))
    sd = float(np.std(found))
    index = {r: i for i, r in enumerate(c.runs)}
    same = [
        np.mean([tau_a(v, idx) for v in vp]) - np.mean([tau_a(v, idx) for v in vr])
        for idx in (np.array([index[r] for r in o]) for o in others)
    ]
    halvings = len(others)
    print(
        f"\nCounting run tau on {half} runs alone (the unseen topics' estimates, 5% labels, {draws} draws; "
        f"Kendall's tau-a): the gain of planned over random is {full:+.3f} on all {len(c.runs)} runs and "
        f"{np.mean(found):+.3f} on average over {n} random halves, sd {sd:.3f} from half to half (a mean over "
        f"{halvings} halvings: standard error about {sd / np.sqrt(halvings):.3f}); on the {halvings} held-out halves "
        f"above, with these estimates (the spreads fitted without the scored topic, on every run), {np.mean(same):+.3f}"
    )


WORLDS = {
    "donor": "report residuals resampled, the donor's number of topics (flawed: a few reports stand for many)",
    "own": "the same, the run's own number of topics (flawed: drawn with replacement from the donor's few)",
    "matched": "donor matched: at least as many reports, taken without replacement",
    "scaled": "donor matched, each report residual scaled by sqrt(donor's citations / run's)",
}
SEEDS = {"own": 4, "matched": 11, "scaled": 12}  # the donor's world draws from the held-out halvings' generator
SOUND = ("unseen", "held", "strict", "matched")  # the worlds a regime allowance must hold in


def resampled_truths(c: Citations, draw, kind: str, resid: dict) -> dict:
    """One world of :data:`WORLDS` without labels: run -> truth. ``donor``, ``own``: the judge's value
    plus the mean of the report residuals (``resid``: run -> per topic) of a run drawn at random,
    drawn with replacement, as many as the donor has or as the run has; ``matched``, ``scaled``:
    :func:`matched_truths`."""
    if kind in ("matched", "scaled"):
        return matched_truths(c, draw, kind == "scaled")
    H = {}
    for x in c.runs:
        donor = resid[c.runs[draw.integers(len(c.runs))]]
        size = len(donor) if kind == "donor" else len(c.runs_topics[x])
        H[x] = float(np.clip(judge_value(c, x) + draw.choice(donor, size).mean(), 0.0, 1.0))
    return H


def report_error_parts(c: Citations, spreads_by_topic: dict) -> str:
    """What a report residual's variance is made of under the error model, on average over the reports
    with citations: the independent part (``sum v / n^2``, which goes as ``1 / n``) against the report and
    run spreads' squares (which do not): how far scaling a donor's residual by ``sqrt(n_donor / n_run)``
    is from a matched sample size."""
    ind, rep, run, ratio = [], [], [], []
    for x in c.runs:
        rows = c.rows[x]
        for t in c.runs_topics[x]:
            m = rows[c.topic[rows] == t]
            if len(m):
                ind.append(float(c.v[m].sum()) / len(m) ** 2)
                rep.append(spreads_by_topic[t].report_sd ** 2)
                run.append(spreads_by_topic[t].run_sd ** 2)
                ratio.append(len(m))
    ind_, rep_, run_ = np.mean(ind), np.mean(rep), np.mean(run)
    judged = [len(c.runs_topics[x]) for x in c.runs]
    cited = [len({t for t in c.topic[c.rows[x]]}) for x in c.runs]
    return (
        f"\n(a run is judged on {min(judged)} to {max(judged)} topics, {min(cited)} to {max(cited)} of its reports "
        "with citations; "
        f"a report residual's variance under the error model, mean over the {len(ind)} reports with citations: "
        f"independent {ind_:.5f} (goes as 1 / n citations; n from {min(ratio)} to {max(ratio)}, median "
        f"{np.median(ratio):.0f}), report spread {rep_:.5f} and run spread {run_:.5f} (do not): the scaled world "
        f"scales the {(rep_ + run_) / (ind_ + rep_ + run_):.0%} that does not go as 1 / n too, and the bias)"
    )


def matched_truths(c: Citations, rng, scaled: bool = False) -> dict:
    """One world without labels in which each run's report residuals (the assessors' value minus the
    judge's, per report with citations) are those of a donor run drawn among the runs with at least
    as many reports with citations, its reports taken without replacement (a random ``k`` of them for
    the run's ``k``), so that the run keeps the sampling error of its own number of reports; a report
    without a citation keeps its residual 0 (both sides 0). ``scaled``: each donor residual times
    ``sqrt(n_donor / n_run)``, the two reports' numbers of citations (harsher: the independent part of a
    report's error goes as ``1 / n``, but the factor scales its shared parts and the bias too). Returns
    run -> truth (clipped to [0, 1])."""
    reports = {}
    for x in c.runs:
        rows = c.rows[x]
        reports[x] = []
        for t in c.runs_topics[x]:
            m = rows[c.topic[rows] == t]
            if len(m):
                reports[x].append((float(c.truth.loc[(x, t)]) - float(c.f[m].mean()), len(m)))
    out = {}
    for x in c.runs:
        k = len(reports[x])
        big = [r for r in c.runs if len(reports[r]) >= k]
        donor = reports[big[rng.integers(len(big))]]
        order = rng.permutation(len(donor))[:k]
        moved = 0.0
        for (_, n), i in zip(reports[x], order):
            r, n_donor = donor[i]
            moved += r * (np.sqrt(n_donor / n) if scaled else 1.0)
        out[x] = float(np.clip(judge_value(c, x) + moved / len(c.runs_topics[x]), 0.0, 1.0))
    return out


def regime_sweep(args, c, fits_by_topic: dict, halvings: list, resampled: dict, H_strict: dict, topics) -> None:
    """Without labels, each value of the regime allowance: the unseen topics' width, the coverage and
    the pairs called >= 95% sure right in every world, and the smallest value that holds (>= 90% coverage,
    sure pairs >= 95% right) in every sound one (:data:`SOUND`)."""
    none, zero = np.zeros(len(c.f), dtype=bool), np.zeros(len(c.f))
    print(
        "\n### Without labels: the regime allowance against coverage under the shifts (the width is the "
        "unseen topics'; each cell: coverage, pairs called >= 95% sure right; the resampled worlds are "
        "flawed, a donor's few reports standing for the run's many)\n"
    )
    print(
        "| regime_sd | mean width | pairs >= 95% sure (unseen; held-out) | unseen topics | held-out runs "
        "| stricter labels | donor matched | matched, scaled by citations | resampled, donor's topics (flawed) "
        "| resampled, run's own number (flawed) |"
    )
    print("|---:|---:|---|---|---|---|---|---|---|---|")
    found = []
    for rsd in (0.0, 0.02, 0.03, 0.035, 0.04, 0.05, 0.06):
        sp = {k: iv.Spreads.honest(f, rsd, args.kind) for k, f in fits_by_topic.items()}
        est = estimates(c, none, zero, c.h, sp, rsd)
        s = {"unseen": scores(c, est, c.H), "strict": scores(c, est, H_strict)}
        for kind in WORLDS:
            s[kind] = mean_scores([scores(c, est, H) for H in resampled[kind]])
        s["held"] = mean_scores(
            [
                scores(
                    c,
                    estimates(c, none, zero, c.h, dict.fromkeys(topics, iv.Spreads.honest(f, rsd, args.kind)), rsd),
                    c.H,
                    o,
                )
                for o, f, _ in halvings
            ]
        )
        if all(s[w]["coverage"] >= 0.90 and s[w]["sure_right"] >= 0.95 for w in SOUND):
            found.append((rsd, s["unseen"]["width"]))
        cells = " | ".join(
            f"{s[w]['coverage']:.1%}, {s[w]['sure_right']:.1%}"
            for w in ("unseen", "held", "strict", "matched", "scaled", "donor", "own")
        )
        print(f"| {rsd} | {s['unseen']['width']:.3f} | {s['unseen']['sure']:.1%}; {s['held']['sure']:.1%} | {cells} |")
    print(
        "\nSmallest regime_sd with >= 90% coverage and pairs >= 95% sure >= 95% right in every sound world "
        "(unseen topics, held-out runs, stricter labels, donor matched): "
        + (f"{found[0][0]}, mean width {found[0][1]:.3f}" if found else "none of these")
    )


def hetero_section(args, c, table, p_any, p_full, nested, nested_scale, halvings, resampled, H_strict, topics):
    """Without labels: a heteroscedastic run term (the run effect's variance a function of the run's
    judged value, fitted by restricted likelihood: judges.scores.intervals.fit_run_scale), nested per
    topic and, for the held-out runs, fitted on the other half, against the constant run term."""
    none, zero = np.zeros(len(c.f), dtype=bool), np.zeros(len(c.f))
    print(
        "\n### Without labels: a heteroscedastic run term (run effect variance `run_sd^2 exp(gamma z)`, `z` the "
        "standardised covariate of the run's judged value `x`; gamma by profile restricted likelihood, "
        "nested per topic; held-out runs: fitted on the other half)\n"
    )
    for cov in iv.RUN_COVARIATES:
        fits = nested_scale[cov].values()
        gam, gain = [f["gamma"] for f in fits], [f["gain"] for f in fits]
        print(
            f"* covariate `{cov}`: gamma {min(gam):+.2f} to {max(gam):+.2f}, log-likelihood gained over a constant "
            f"run term {min(gain):.2f} to {max(gain):.2f} (1.92: evidence at 5%)"
        )
    print(
        "\n| run term | regime_sd | mean width | unseen topics | held-out runs | residuals resampled (the donor's "
        "topics) | the same, the run's own number | stricter labels | pairs >= 95% sure right, worst of the five |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    held_scales = {
        cov: [run_scale_of(table[f].reset_index(drop=True), p_any[f], p_full[f], cov) for _, _, f in halvings]
        for cov in iv.RUN_COVARIATES
    }
    for rsd in (0.04, 0.05):
        for cov in (None, *iv.RUN_COVARIATES):
            spread_fits = nested if cov is None else nested_scale[cov]
            sp = {k: iv.Spreads.honest(f, rsd, args.kind) for k, f in spread_fits.items()}
            scales = None if cov is None else nested_scale[cov]
            est = estimates(c, none, zero, c.h, sp, rsd, scales)
            unseen, strict = scores(c, est, c.H), scores(c, est, H_strict)
            res = mean_scores([scores(c, est, H) for H in resampled["donor"]])
            own = mean_scores([scores(c, est, H) for H in resampled["own"]])
            held_rows = []
            for i, (other, plain, _) in enumerate(halvings):
                f = plain if cov is None else held_scales[cov][i]
                by_topic = dict.fromkeys(topics, iv.Spreads.honest(f, rsd, args.kind))
                held_rows.append(
                    scores(
                        c,
                        estimates(c, none, zero, c.h, by_topic, rsd, None if cov is None else dict.fromkeys(topics, f)),
                        c.H,
                        other,
                    )
                )
            held = mean_scores(held_rows)
            worst = min(x["sure_right"] for x in (unseen, strict, res, own, held))
            print(
                f"| {'constant' if cov is None else cov} | {rsd} | {unseen['width']:.3f} | {unseen['coverage']:.1%} | "
                f"{held['coverage']:.1%} | {res['coverage']:.1%} | {own['coverage']:.1%} | {strict['coverage']:.1%} | "
                f"{worst:.1%} |"
            )


def judge_value(c: Citations, run: str) -> float:
    rows = c.rows[run]
    return float(np.sum(c.lev[rows] * c.f[rows]))


def rep_truth_minus_judge(c: Citations, run: str) -> np.ndarray:
    """The run's per-report residuals, the assessors' value minus the judge's."""
    out = []
    for x in c.runs_topics[run]:
        m = c.rows[run][c.topic[c.rows[run]] == x]
        j = float(c.f[m].mean()) if len(m) else 0.0
        out.append(float(c.truth.loc[(run, x)]) - j)
    return np.array(out)


def resampled_with_labels(
    c: Citations, rng, count: int, citations: bool = True, matched: bool = False
) -> list[tuple[np.ndarray, dict]]:
    """``count`` worlds (labels, truth) in which each run's errors are another's: every report of run
    ``x`` takes a report of a run ``y`` drawn at random (one of ``y``'s, at random), and each of its
    citations the residual (human minus judge) of a citation of that report drawn at random
    (``citations``; else its own residual moved by the two reports' difference in mean residual: the
    report residual replaced, the citations' spread about it kept); its label is the judge's weight
    plus that residual, the truth the run's value over those labels (the residuals resampled with
    the labels, so a label drawn for sure tells of the world it is in). ``matched``: the donor drawn
    among the runs with at least as many reports, its reports taken without replacement (else a
    donor of 2 reports gives a run of 14 the error of a run of 2: a sample size, not a label regime)."""
    residual = c.h - c.f
    by_report = {}
    for i, key in enumerate(zip(c.run, c.topic)):
        by_report.setdefault(key, []).append(i)
    by_report = {k: np.array(v) for k, v in by_report.items()}
    reports_of = {r: [k for k in by_report if k[0] == r] for r in c.runs}
    out = []
    for _ in range(count):
        h = c.h.copy()
        H = {}
        for x in c.runs:
            if matched:
                big = [r for r in c.runs if len(reports_of[r]) >= len(reports_of[x])]
                donor = reports_of[big[rng.integers(len(big))]]
                order = rng.permutation(len(donor))
            else:
                donor = reports_of[c.runs[rng.integers(len(c.runs))]]
            for i, key in enumerate(reports_of[x]):
                there = by_report[donor[order[i] if matched else rng.integers(len(donor))]]
                here = by_report[key]
                if citations:
                    h[here] = c.f[here] + residual[rng.choice(there, len(here))]
                else:
                    h[here] = c.h[here] + residual[there].mean() - residual[here].mean()
            H[x] = float(np.sum(c.lev[c.rows[x]] * h[c.rows[x]]))
        out.append((h, H))
    return out


def stricter(c: Citations, rng) -> tuple[np.ndarray, dict]:
    """Labels flipped toward not supported (partial or full to none, at random) until 30% are none,
    and each run's truth moved by its reports' change in mean label weight."""
    h = c.h.copy()
    want = int(round(0.30 * len(h))) - int(np.sum(h == 0))
    flip = rng.choice(np.flatnonzero(h > 0), max(want, 0), replace=False)
    h[flip] = 0.0
    H = {}
    for run in c.runs:
        rows = c.rows[run]
        H[run] = c.H[run] + float(np.sum(c.lev[rows] * (h[rows] - c.h[rows])))
    return h, H


if __name__ == "__main__":
    main()
