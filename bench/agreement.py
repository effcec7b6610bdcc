"""How well does the citation judge agree with people? Two human-labelled sets, the real CLI.

Usage (from anywhere; paths are resolved against the repository root)::

    python bench/agreement.py [--data /work/shared/data] [--workflow workflows/citation.yml]
                              [--workers 2] [--keep DIR]

Sets (see each folder's README.md):

* ``attributionbench/dev_all_subset_balanced.jsonl``: 1198 (claim, cited evidence) pairs labelled
  attributable / not attributable (partial support counts as not attributable). The evidence is
  the ``references`` strings joined with a blank line.
* ``wice/claim_dev.jsonl``: 349 Wikipedia claims against the sentences of the cited web page,
  labelled supported / partially_supported / not_supported, with the gold supporting sentences.
  The evidence is the sentences joined with ``"\\n"``; each sentence's character span is kept.

Each set becomes one DRAGUN-shaped run (run ``human``, one report per claim, one sentence citing
one embedded document) and a topics file, both in a temporary directory, and is judged by
``python run_judge.py --judge citation ... --workers 2`` as a child process from the repository
root. The per-citation assessments (:func:`judges.read_assessments`) are joined to the human
labels on ``topic_id``.

Printed (Markdown tables):

* ROC-AUC of ``norm_score`` for the positive class (the Mann-Whitney rank formula with mid-ranks
  for ties; pure numpy);
* balanced accuracy and macro-F1 (mean of the positive- and negative-class F1) of the judge's
  status at the workflow's alignment thresholds (run it with a workflow whose ``support.judge`` is
  ``alignment``): positive = ``supported`` (norm_score >= support.norm_supported),
  except for WiCE "supported+partial vs not_supported", where positive = supported or partial
  (norm_score >= support.norm_partial);
* the threshold t that maximises balanced accuracy of ``norm_score >= t`` (t ranges over the
  observed scores; the lowest such t on ties) and that balanced accuracy. It is chosen on the same
  data it is measured on, so it is an optimistic ceiling, not a tuned result;
* WiCE: the 3x3 table human label x judge status, and evidence localisation: the share of human
  supported / partially_supported claims whose judged evidence span ``[char_start, char_end)``
  overlaps at least one gold supporting sentence (any sentence of any gold set). A claim without an
  alignment (empty span) counts as a miss. "chance" is the exact expected rate of a span of the
  same length placed uniformly at random in the same document (no random numbers are drawn).

Nothing is random; the run takes a minute or two (most of it the judge's start-up and WiCE's long
pages).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = Path("/work/shared/data")
AB_FILE = Path("attributionbench/dev_all_subset_balanced.jsonl")
WICE_FILE = Path("wice/claim_dev.jsonl")
STATUSES = ("supported", "partial", "unsupported", "missing")
WICE_LABELS = ("supported", "partially_supported", "not_supported")


# ---------------------------------------------------------------------------------------------
# Measures (pure numpy)
# ---------------------------------------------------------------------------------------------
def midranks(x: np.ndarray) -> np.ndarray:
    """1-based ranks of ``x``, tied values sharing the mean of their ranks."""
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    last = np.cumsum(counts)  # rank of the last member of each tie group
    return (last - (counts - 1) / 2.0)[inverse]


def roc_auc(scores: np.ndarray, positive: np.ndarray) -> float:
    """P(score of a random positive > score of a random negative), ties counting one half."""
    positive = positive.astype(bool)
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    r = midranks(np.asarray(scores, dtype=np.float64))
    return float((r[positive].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


def _f1(tp: int, fp: int, fn: int) -> float:
    return 0.0 if tp == 0 else 2.0 * tp / (2.0 * tp + fp + fn)


def binary_scores(predicted: np.ndarray, positive: np.ndarray) -> tuple[float, float]:
    """(balanced accuracy, macro-F1 over the two classes)."""
    p, y = predicted.astype(bool), positive.astype(bool)
    tp, fp = int((p & y).sum()), int((p & ~y).sum())
    fn, tn = int((~p & y).sum()), int((~p & ~y).sum())
    tpr = tp / (tp + fn) if tp + fn else float("nan")
    tnr = tn / (tn + fp) if tn + fp else float("nan")
    return (tpr + tnr) / 2.0, (_f1(tp, fp, fn) + _f1(tn, fn, fp)) / 2.0


def best_threshold(scores: np.ndarray, positive: np.ndarray) -> tuple[float, float]:
    """(t, balanced accuracy) maximising balanced accuracy of ``scores >= t`` over observed t."""
    s = np.asarray(scores, dtype=np.float64)
    y = positive.astype(bool)
    pos, neg = np.sort(s[y]), np.sort(s[~y])
    if len(pos) == 0 or len(neg) == 0:
        return float("nan"), float("nan")
    t = np.unique(s)
    tpr = (len(pos) - np.searchsorted(pos, t, side="left")) / len(pos)
    tnr = np.searchsorted(neg, t, side="left") / len(neg)
    ba = (tpr + tnr) / 2.0
    i = int(np.argmax(ba))  # first maximum: the lowest threshold
    return float(t[i]), float(ba[i])


def chance_overlap(doc_len: int, span_len: int, gold: list[tuple[int, int]]) -> float:
    """Share of start positions at which a span of ``span_len`` characters overlaps a gold range."""
    if span_len <= 0 or span_len > doc_len:
        return 0.0
    n_pos = doc_len - span_len + 1
    diff = np.zeros(n_pos + 1, dtype=np.int64)
    for a, b in gold:
        if b <= a:
            continue
        lo, hi = max(0, a - span_len + 1), min(n_pos - 1, b - 1)  # s < b and s + L > a
        if lo <= hi:
            diff[lo] += 1
            diff[hi + 1] -= 1
    return float((np.cumsum(diff[:-1]) > 0).mean())


# ---------------------------------------------------------------------------------------------
# Conversion and the judge run
# ---------------------------------------------------------------------------------------------
def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write_inputs(work: Path, items: list[dict]) -> tuple[Path, Path]:
    """Topics file and one run file (run ``human``) from ``{id, title, claim, evidence}`` items."""
    work.mkdir(parents=True, exist_ok=True)
    runs = work / "runs"
    runs.mkdir(exist_ok=True)
    topics, run = work / "topics.jsonl", runs / "human.jsonl"
    with open(topics, "w", encoding="utf-8") as ft, open(run, "w", encoding="utf-8") as fr:
        for it in items:
            doc = f"doc-{it['id']}"
            ft.write(json.dumps({"request_id": it["id"], "title": it["title"]}, ensure_ascii=False) + "\n")
            report = {
                "metadata": {"run_id": "human", "topic_id": it["id"]},
                "responses": [{"text": it["claim"], "citations": [doc]}],
                "documents": {doc: {"text": it["evidence"]}},
            }
            fr.write(json.dumps(report, ensure_ascii=False) + "\n")
    return topics, runs


def judge(work: Path, items: list[dict], workflow: Path, workers: int):
    """Run the CLI on ``items``; return (assessments indexed by topic_id, wall seconds)."""
    import judges

    topics, runs = write_inputs(work, items)
    out = work / "out"
    cmd = [
        sys.executable,
        "run_judge.py",
        "--judge",
        "citation",
        "--rag-topics",
        str(topics),
        "--rag-responses",
        str(runs),
        "--workflow",
        str(workflow),
        "--out-dir",
        str(out),
        "--name",
        "agree",
        "--workers",
        str(workers),
    ]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"judge failed (exit {proc.returncode}): {' '.join(cmd)}")
    df = judges.read_assessments(out, "agree")
    if df["topic_id"].duplicated().any():
        raise SystemExit(f"{work.name}: more than one assessment for some topic")
    missing = {it["id"] for it in items} - set(df["topic_id"])
    if missing:
        raise SystemExit(f"{work.name}: {len(missing)} claims without an assessment, e.g. {sorted(missing)[:3]}")
    return df.set_index("topic_id"), seconds


def load_attributionbench(path: Path) -> list[dict]:
    items = []
    for r in read_jsonl(path):
        items.append(
            {
                "id": str(r["id"]),
                "title": r["question"],
                "claim": r["claim"],
                "evidence": "\n\n".join(r["references"]),
                "positive": r["attribution_label"] == "attributable",
                "src": r["src_dataset"],
            }
        )
    return items


def load_wice(path: Path) -> list[dict]:
    items = []
    for r in read_jsonl(path):
        spans, pos = [], 0
        for sent in r["evidence"]:
            spans.append((pos, pos + len(sent)))
            pos += len(sent) + 1  # the "\n" joiner
        gold = sorted({i for group in r["supporting_sentences"] for i in group})
        items.append(
            {
                "id": str(r["meta"]["id"]),
                "title": r["claim"],
                "claim": r["claim"],
                "evidence": "\n".join(r["evidence"]),
                "label": r["label"],
                "gold_spans": [spans[i] for i in gold],
            }
        )
    return items


# ---------------------------------------------------------------------------------------------
# Printing
# ---------------------------------------------------------------------------------------------
def fmt(x: float, digits: int = 3) -> str:
    return "n/a" if x != x else f"{x:.{digits}f}"


def table(header: list[str], rows: list[list[str]], right_from: int = 1) -> str:
    align = ["---"] * right_from + ["---:"] * (len(header) - right_from)
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def binary_row(name: str, scores: np.ndarray, positive: np.ndarray, predicted: np.ndarray) -> list[str]:
    ba, f1 = binary_scores(predicted, positive)
    t, best = best_threshold(scores, positive)
    return [
        name,
        str(len(scores)),
        str(int(positive.sum())),
        fmt(roc_auc(scores, positive)),
        fmt(ba),
        fmt(f1),
        fmt(t),
        fmt(best),
    ]


BINARY_HEADER = ["n", "positives", "ROC-AUC", "bal. acc", "macro-F1", "best t", "bal. acc @ best t"]


def report_attributionbench(items: list[dict], df, seconds: float, sup: float) -> None:
    df = df.loc[[it["id"] for it in items]]
    scores = df["norm_score"].to_numpy(np.float64)
    predicted = (df["status"] == "supported").to_numpy()
    positive = np.array([it["positive"] for it in items])
    src = np.array([it["src"] for it in items])
    print(f"## AttributionBench dev (attributable = positive; judge positive = supported, norm_score >= {sup})\n")
    print(f"{len(items)} claims judged in {seconds:.1f} s (CLI wall time).\n")
    rows = [binary_row("all", scores, positive, predicted)]
    for name in sorted(set(src)):
        m = src == name
        rows.append(binary_row(name, scores[m], positive[m], predicted[m]))
    print(table(["subset"] + BINARY_HEADER, rows) + "\n")
    status = df["status"].to_numpy()
    shown = [s for s in STATUSES if s != "missing" or (status == "missing").any()]
    rows = []
    for label, m in (("attributable", positive), ("not attributable", ~positive)):
        c = Counter(status[m])
        rows.append([label] + [str(c[s]) for s in shown] + [str(int(m.sum()))])
    print(table(["human \\ judge"] + shown + ["total"], rows) + "\n")


def report_wice(items: list[dict], df, seconds: float, sup: float, part: float) -> None:
    df = df.loc[[it["id"] for it in items]]
    scores = df["norm_score"].to_numpy(np.float64)
    status = df["status"].to_numpy()
    label = np.array([it["label"] for it in items])
    print("## WiCE dev (claim level)\n")
    print(f"{len(items)} claims judged in {seconds:.1f} s (CLI wall time).\n")
    rows = [
        binary_row(
            f"supported vs rest (judge: supported, >= {sup})", scores, label == "supported", status == "supported"
        ),
        binary_row(
            f"supported+partial vs not_supported (judge: supported or partial, >= {part})",
            scores,
            label != "not_supported",
            np.isin(status, ("supported", "partial")),
        ),
    ]
    print(table(["task"] + BINARY_HEADER, rows) + "\n")

    shown = [s for s in STATUSES if s != "missing" or (status == "missing").any()]
    rows = []
    for lab in WICE_LABELS:
        c = Counter(status[label == lab])
        rows.append([lab] + [str(c[s]) for s in shown] + [str(int((label == lab).sum()))])
    c = Counter(status)
    rows.append(["total"] + [str(c[s]) for s in shown] + [str(len(items))])
    print(table(["human \\ judge"] + shown + ["total"], rows) + "\n")
    same = {"supported": "supported", "partially_supported": "partial", "not_supported": "unsupported"}
    f1s = []
    for lab, st in same.items():
        tp = int(((label == lab) & (status == st)).sum())
        fp = int(((label != lab) & (status == st)).sum())
        fn = int(((label == lab) & (status != st)).sum())
        f1s.append(_f1(tp, fp, fn))
    agree = np.mean([same[lab] == st for lab, st in zip(label, status)])
    print(f"3-way: accuracy {fmt(float(agree))}, macro-F1 {fmt(float(np.mean(f1s)))}.\n")

    rows = []
    groups = (
        ("supported", ("supported",)),
        ("partially_supported", ("partially_supported",)),
        ("supported + partially_supported", ("supported", "partially_supported")),
    )
    for name, labels in groups:
        n = found = hit = 0
        chance = []
        for it, (cs, ce) in zip(items, zip(df["char_start"].to_numpy(), df["char_end"].to_numpy())):
            if it["label"] not in labels:
                continue
            n += 1
            cs, ce = int(cs), int(ce)
            found += ce > cs
            hit += ce > cs and any(cs < b and a < ce for a, b in it["gold_spans"])
            chance.append(chance_overlap(len(it["evidence"]), ce - cs, it["gold_spans"]))
        rows.append(
            [
                name,
                str(n),
                str(found),
                str(hit),
                fmt(hit / n if n else float("nan")),
                fmt(float(np.mean(chance)) if chance else float("nan")),
            ]
        )
    print("Evidence localisation: judged span overlaps a gold supporting sentence.\n")
    print(table(["human label", "n", "with a span", "overlaps gold", "rate", "chance (same-length span)"], rows) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="folder with attributionbench/ and wice/")
    ap.add_argument("--workflow", type=Path, default=ROOT / "workflows" / "citation.yml")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--keep", type=Path, default=None, help="write inputs and outputs here instead of a temp dir")
    args = ap.parse_args()

    sys.path.insert(0, str(ROOT))
    from judges.core.config import load_workflow

    workflow = args.workflow.resolve()
    wf = load_workflow(workflow)
    sup, part = wf.support.norm_supported, wf.support.norm_partial
    print("# Judge vs human labels\n")
    print(
        f"Workflow `{workflow}`: supported >= {sup}, partial >= {part}; "
        f"'best t' = threshold on norm_score maximising balanced accuracy on the same data (optimistic).\n"
    )

    ab = load_attributionbench(args.data / AB_FILE)
    wice = load_wice(args.data / WICE_FILE)
    with tempfile.TemporaryDirectory(prefix="citejudge-agree-") as tmp:
        base = args.keep.resolve() if args.keep else Path(tmp)
        ab_df, ab_s = judge(base / "attributionbench", ab, workflow, args.workers)
        wice_df, wice_s = judge(base / "wice", wice, workflow, args.workers)
    report_attributionbench(ab, ab_df, ab_s, sup)
    report_wice(wice, wice_df, wice_s, sup, part)


if __name__ == "__main__":
    main()
