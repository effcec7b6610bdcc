"""Agreement with a track's assessors: the support judges on rag24-support, AttributionBench and WiCE.

Usage::

    python bench/support_agreement.py [--data ../shared/data] [--skip-labelled]

1. ``rag24-support`` (45 real TREC 2024 RAG runs, NIST's full / partial / no support labels on
   2,348 citations of 14 topics) is judged once by the real CLI (the features are recorded
   whatever the judge), then scored (:func:`judges.support.calibrate.agreement`: run tau,
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
2. AttributionBench dev and WiCE dev (converted by ``convert-labelled``, judged by the CLI with
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judges.formats.tables import read_assessments  # noqa: E402
from judges.meta import agreement as ag  # noqa: E402
from judges.meta.labels import read_labels  # noqa: E402
from judges.support.calibrate import STATUS_LEVEL, agreement, cross_validate, labelled_features  # noqa: E402

LABELLED = {
    "AttributionBench dev": "attributionbench/dev_all_subset_balanced.jsonl",
    "WiCE dev": "wice/claim_dev.jsonl",
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


def row(name: str, s: dict) -> str:
    mix = lambda m: "/".join(f"{m[k]:.0%}" for k in ("supported", "partial", "unsupported"))  # noqa: E731
    auc = f"{s['auc_full']:.3f} / {s['auc_any']:.3f}" if "auc_full" in s else "n/a"
    return (
        f"| {name} | {s['run_tau']:.3f} | {s['topic_tau']:.3f} | {s['exact']:.3f} | {s['kappa']:.3f} | {auc} "
        f"| {mix(s['judged_mix'])} | {mix(s['human_mix'])} |"
    )


def ceiling(table, level: np.ndarray, draws: int = 200) -> None:
    """Run tau of simulated judges with independent errors (see the module doc)."""
    y = table["y"].to_numpy()
    confusion = np.zeros((3, 3))
    np.add.at(confusion, (y, level), 1)
    rates = confusion / confusion.sum(axis=1, keepdims=True)
    rng = np.random.default_rng(0)
    print("\nNoise ceiling: levels drawn independently per citation, P(judged | human) =")
    print("(1 - a) x the cross-validated confusion + a x identity; 200 draws each\n")
    print("| a | exact | run tau mean | run tau sd |")
    print("|---:|---:|---:|---:|")
    for a in (0.0, 0.2, 0.4, 0.6):
        cumulative = ((1 - a) * rates + a * np.eye(3))[y].cumsum(axis=1)
        taus, exact = [], []
        for _ in range(draws):
            drawn = (rng.random(len(y))[:, None] > cumulative).sum(axis=1)
            s = agreement(table, drawn)
            taus.append(s["run_tau"])
            exact.append(s["exact"])
        print(f"| {a} | {np.mean(exact):.3f} | {np.mean(taus):.3f} | {np.std(taus):.3f} |")


def rag24(data: Path, out: Path) -> None:
    d = data / "rag24-support"
    labels = read_labels(d / "labels.jsonl")
    extra = ("--corpus", str(d / "segments.jsonl"))
    judge(d / "topics.jsonl", d / "runs", out, "r24-align", {"support": {"judge": "alignment"}}, *extra)
    judge(d / "topics.jsonl", d / "runs", out, "r24-model", {}, *extra)
    print(f"## rag24-support ({d})\n")
    print("| judge | run tau | topic tau | exact | kappa | AUC full / any | judged mix (S/P/N) | human mix |")
    print("|---|---:|---:|---:|---:|---:|---|---|")
    table = labelled_features(read_assessments(out, "r24-align"), labels)
    level = np.array([STATUS_LEVEL[s] for s in table.status])
    print(row("alignment (norm_score 0.4 / 0.25)", agreement(table, level, table.f_norm_score, table.f_norm_score)))
    p_any, p_full, level = cross_validate(table)
    print(row("model, cross-validated by topic (14 folds)", agreement(table, level, p_any, p_full)))
    cv_level = level
    shipped = read_assessments(out, "r24-model")
    t2 = labelled_features(shipped, labels)
    level = np.array([STATUS_LEVEL[s] for s in t2.status])
    print(row("model as shipped (in-sample, optimistic)", agreement(t2, level, t2.p_any, t2.p_full)))
    ceiling(table, cv_level)


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
