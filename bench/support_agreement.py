"""Agreement with a track's assessors: the support judges on rag24-support, AttributionBench and WiCE.

Usage::

    python bench/support_agreement.py [--data ../shared/data] [--skip-labelled]

1. ``rag24-support`` (45 real TREC 2024 RAG runs, NIST's full / partial / no support labels on
   2,348 citations of 14 topics) is judged once by the real CLI (the features are recorded
   whatever the judge), then scored (:func:`judges.meta.calibrate.agreement`: run tau,
   topic-averaged tau, exact three-level agreement, Cohen's kappa, ROC-AUCs, status mix) for
   * ``alignment``: thresholds 0.4 / 0.25 on ``norm_score`` (the judge before the support model);
   * ``model, cross-validated``: the support model refitted with topic-grouped cross-validation
     (leave one topic out; a topic is never both trained on and scored). THIS is the figure to
     quote for unseen topics;
   * ``model as shipped``: the built-in model, fitted on all 14 topics, scored on them
     (in-sample, optimistic; shown to check the shipped file is the one described).
   and a *noise ceiling*: the run tau of a judge whose errors are drawn independently per
   citation from the cross-validated model's confusion matrix (the same exact agreement, no
   error shared by the citations of a run), and of judges mixing that matrix with the truth,
   to show what exact agreement a given run tau needs on these 2,348 citations.
2. AttributionBench dev, WiCE dev and factcheck-gpt (converted by ``convert-labelled``, judged by the CLI with
   each judge): balanced accuracy and kappa of ``supported`` vs the rest, the ROC-AUC of the
   judge's score (``norm_score`` for alignment, ``P(full)`` for the model). The model never saw
   these sets: they are out of domain for it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judges.formats.tables import read_assessments  # noqa: E402
from judges.meta import agreement as ag  # noqa: E402
from judges.meta.correlation import kendall  # noqa: E402
from judges.formats.labels import read_labels  # noqa: E402
from judges.core.measures import expected_weight  # noqa: E402
from judges.meta.calibrate import (  # noqa: E402
    STATUS_LEVEL,
    agreement,
    cross_validate,
    labelled_features,
)

LABELLED = {
    "AttributionBench dev": "attributionbench/dev_all_subset_balanced.jsonl",
    "WiCE dev": "wice/claim_dev.jsonl",
    "factcheck-gpt": "factcheck-gpt/subtask3_claim_evidence_stance.jsonl",
}


def cli(*args: str) -> None:
    subprocess.run([sys.executable, "run_judge.py", *args], cwd=ROOT, check=True, capture_output=True, text=True)


def judge(topics: Path, runs: Path, out: Path, name: str, workflow: dict, *extra: str) -> float:
    wf = out / f"{name}.workflow.yml"
    wf.write_text(json.dumps(workflow))
    t = time.perf_counter()
    cli(
        "--judge",
        "citation",
        "--rag-topics",
        str(topics),
        "--rag-responses",
        str(runs),
        "--out-dir",
        str(out),
        "--name",
        name,
        "--workflow",
        str(wf),
        *extra,
    )
    return time.perf_counter() - t


def read_truth(path: Path) -> pd.Series:
    """The published human leaderboard's per-report values (``run topic measure value``; the
    ``all`` rows left out), indexed by (run, topic)."""
    rows = [line.split() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    values = {(r[0], r[1]): float(r[3]) for r in rows if r[1] != "all"}
    return pd.Series(values).rename_axis(["run_id", "topic_id"])


def leaderboard_tau(table, weights: np.ndarray, truth: pd.Series) -> float:
    """Run tau against the published leaderboard, as ``meta-evaluate --truth-topics`` computes
    it from the judge's leaderboard: per report the mean of its citations' ``weights``, 0 for a report
    with no citation here (as the judge scores it; its cited segments have no text in this set,
    and the leaderboard gives it 0 too), per run the mean over the topics the leaderboard has
    for it."""
    judged = pd.Series(np.asarray(weights, dtype=np.float64)).groupby(
        [table["run_id"].to_numpy(), table["topic_id"].to_numpy()]
    )
    judged = judged.mean().reindex(truth.index).fillna(0.0)
    runs_h = truth.groupby(level=0).mean()
    return round(float(kendall(runs_h.to_numpy(), judged.groupby(level=0).mean().reindex(runs_h.index).to_numpy())), 4)


def score(table, level: np.ndarray, truth: pd.Series, p_any=None, p_full=None, weights=None) -> dict:
    """:func:`agreement` (labelled reports only) plus ``lb_tau`` (:func:`leaderboard_tau`); the
    taus from ``weights`` when given (the leaderboard's expected weights), else the levels' status weights."""
    w = np.asarray(level) / 2.0 if weights is None else weights
    return {**agreement(table, level, p_any, p_full, w), "lb_tau": leaderboard_tau(table, w, truth)}


def expected(table, p_any: np.ndarray, p_full: np.ndarray) -> np.ndarray:
    """The weights the leaderboard gives citations the support model decided (``leaderboard.weights:
    expected``, :mod:`judges.engine.weights`), the grounding cap ruling out full support."""
    return expected_weight(p_any, np.minimum(p_full, p_any), full_weight=np.where(lacks(table), 0.5, 1.0))


def row(name: str, s: dict) -> str:
    mix = lambda m: "/".join(f"{m[k]:.0%}" for k in ("supported", "partial", "unsupported"))  # noqa: E731
    auc = f"{s['auc_full']:.3f} / {s['auc_any']:.3f}" if "auc_full" in s else "n/a"
    return (
        f"| {name} | {s['lb_tau']:.3f} | {s['run_tau']:.3f} | {s['topic_tau']:.3f} | {s['exact']:.3f} "
        f"| {s['kappa']:.3f} | {auc} | {mix(s['judged_mix'])} | {mix(s['human_mix'])} |"
    )


def ceiling(table, level: np.ndarray, truth: pd.Series, draws: int = 200) -> None:
    """Run tau of simulated judges with independent errors (see the module doc)."""
    y = table["y"].to_numpy()
    confusion = np.zeros((3, 3))
    np.add.at(confusion, (y, level), 1)
    rates = confusion / confusion.sum(axis=1, keepdims=True)
    rng = np.random.default_rng(0)
    print("\nNoise ceiling: levels drawn independently per citation, P(judged | human) =")
    print("(1 - a) x the cross-validated confusion + a x identity; 200 draws each\n")
    print("| a | exact | leaderboard run tau (mean ± sd) | labelled-reports run tau (mean ± sd) |")
    print("|---:|---:|---:|---:|")
    for a in (0.0, 0.2, 0.4, 0.6):
        cumulative = ((1 - a) * rates + a * np.eye(3))[y].cumsum(axis=1)
        taus, lb, exact = [], [], []
        for _ in range(draws):
            drawn = (rng.random(len(y))[:, None] > cumulative).sum(axis=1)
            s = score(table, drawn, truth)
            taus.append(s["run_tau"])
            lb.append(s["lb_tau"])
            exact.append(s["exact"])
        print(
            f"| {a} | {np.mean(exact):.3f} | {np.mean(lb):.3f} ± {np.std(lb):.3f} "
            f"| {np.mean(taus):.3f} ± {np.std(taus):.3f} |"
        )


def topic_bootstrap(table, truth: pd.Series, ours: np.ndarray, theirs: np.ndarray, draws: int = 300) -> str:
    """Leaderboard run tau of citation weights ``ours`` minus ``theirs`` over topic resamples
    (topics drawn with replacement, both scored on the same draw): mean, 90% interval, share > 0."""
    keys = [table["run_id"].to_numpy(), table["topic_id"].to_numpy()]
    reports = {
        name: pd.Series(np.asarray(w, dtype=np.float64)).groupby(keys).mean().reindex(truth.index).fillna(0.0)
        for name, w in (("ours", ours), ("theirs", theirs))
    }
    runs, topics = truth.index.get_level_values(0).to_numpy(), truth.index.get_level_values(1).to_numpy()
    unique = np.array(sorted(set(topics)))
    rng = np.random.default_rng(1)
    diffs = []
    for _ in range(draws):
        rows = np.concatenate([np.flatnonzero(topics == t) for t in rng.choice(unique, len(unique))])
        human = pd.Series(truth.to_numpy()[rows]).groupby(runs[rows]).mean()
        tau = {
            name: kendall(human.to_numpy(), pd.Series(r.to_numpy()[rows]).groupby(runs[rows]).mean().to_numpy())
            for name, r in reports.items()
        }
        diffs.append(tau["ours"] - tau["theirs"])
    low, high = np.quantile(diffs, [0.05, 0.95])
    better = np.mean(np.array(diffs) > 0)
    return f"{np.mean(diffs):+.3f} (90% interval {low:+.3f} to {high:+.3f}; better in {better:.0%})"


def lacks(table) -> np.ndarray:
    """Where the document lacks a number or entity of the sentence (the default ``grounding.cap``)."""
    return (table["f_numbers_missing"].to_numpy() > 0) | (table["f_entities_missing"].to_numpy() > 0)


def capped(table, level: np.ndarray) -> np.ndarray:
    """``level`` with the grounding cap the judge applies last: supported becomes partial where
    the document lacks a number or entity of the sentence."""
    return np.where((level == 2) & lacks(table), 1, level)


def rag24(data: Path, out: Path) -> None:
    d = data / "rag24-support"
    labels = read_labels(d / "labels.jsonl")
    extra = ("--corpus", str(d / "segments.jsonl"))
    judge(d / "topics.jsonl", d / "runs", out, "r24-align", {"support": {"judge": "alignment"}}, *extra)
    judge(d / "topics.jsonl", d / "runs", out, "r24-model", {}, *extra)
    truth = read_truth(d / "truth.eval.txt")
    print(f"## rag24-support ({d})\n")
    print("Leaderboard run tau: against the published human leaderboard (truth.eval.txt, 585 reports;")
    print("99 of them have no citation with text here and score 0 on both sides), as meta-evaluate")
    print("--truth-topics computes it. Labelled-reports run tau: over the 486 reports with labels only.\n")
    print(
        "| judge | leaderboard run tau | labelled-reports run tau | topic tau | exact | kappa | AUC full / any "
        "| judged mix (S/P/N) | human mix |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---|---|")
    table = labelled_features(read_assessments(out, "r24-align"), labels)
    level = np.array([STATUS_LEVEL[s] for s in table.status])
    print(row("alignment (norm_score 0.4 / 0.25)", score(table, level, truth, table.f_norm_score, table.f_norm_score)))
    p_any, p_full, level = cross_validate(table)
    print(row("model, cross-validated by topic (14 folds)", score(table, level, truth, p_any, p_full)))
    with_cap = score(table, capped(table, level), truth, p_any, p_full)
    print(row("the same, grounding cap applied; status weights (`leaderboard.weights: status`)", with_cap))
    weights = expected(table, p_any, p_full)
    print(
        row(
            "the same, expected weights (the default leaderboard)",
            score(table, capped(table, level), truth, p_any, p_full, weights),
        )
    )
    gain = topic_bootstrap(table, truth, weights, capped(table, level) / 2.0)
    cv_level = level
    shipped = read_assessments(out, "r24-model")
    t2 = labelled_features(shipped, labels)
    level = np.array([STATUS_LEVEL[s] for s in t2.status])
    print(row("model as shipped, status weights (in-sample, optimistic)", score(t2, level, truth, t2.p_any, t2.p_full)))
    print(
        row(
            "model as shipped, the judge's weights (in-sample, optimistic)",
            score(t2, level, truth, t2.p_any, t2.p_full, t2.weight.to_numpy()),
        )
    )
    print(f"\nCross-validated, expected minus status weights, over 300 topic resamples: {gain}")
    check = out / "meta.jsonl"
    cli(
        "meta-evaluate",
        str(out / "r24-model.leaderboard.txt"),
        "--truth",
        str(d / "truth.eval.txt"),
        "--eval-measure",
        "WEIGHTED_PRECISION",
        "--correlation",
        "kendall",
        "--truth-topics",
        "--bootstrap",
        "0",
        "--output",
        str(check),
    )
    print(f"\n(check: meta-evaluate --truth-topics on the shipped model's leaderboard: {check.read_text().strip()})")
    ceiling(table, cv_level, truth)


def labelled(data: Path, out: Path) -> None:
    print("\n## Out-of-domain labelled sets (binary: supported vs the rest)\n")
    print("| set | judge | n | balanced accuracy | kappa | ROC-AUC of its score |")
    print("|---|---|---:|---:|---:|---:|")
    for title, rel in LABELLED.items():
        conv = out / title.split()[0]
        cli("convert-labelled", str(data / rel), "--out-dir", str(conv))
        labels = read_labels(conv / "labels.jsonl")
        for jname, wf in (("alignment", {"support": {"judge": "alignment"}}), ("model", {})):
            name = f"{conv.name}-{jname}"
            judge(conv / "topics.jsonl", conv / "runs", out, name, wf, "--workers", "2")
            a = read_assessments(out, name)
            if jname == "model":
                a = a.assign(norm_score=a.p_full.fillna(0.0))  # the judge's own score for the ROC-AUC
            joined = ag.join(labels, a, "skip")
            s = ag.scores(joined["label"], joined[ag.JUDGED], joined[ag.SCORE])
            print(
                f"| {title} | {jname} | {s['n']} | {s['balanced_accuracy']:.3f} | {s['kappa']:.3f} | {s['auc']:.3f} |"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--skip-labelled", action="store_true", help="only rag24-support")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rag24(args.data, Path(tmp))
        if not args.skip_labelled:
            labelled(args.data, Path(tmp))


if __name__ == "__main__":
    main()
