"""Multi-span evidence on a real track: how many citations get two or more spans, and proof that the
spans change nothing else.

Usage::

    python bench/evidence_spans.py [--data ../shared/data/rag24-support] [--before /path/to/old/checkout]

Runs ``run_judge.py`` (this checkout) on the track (``topics.jsonl``, ``runs/``, ``segments.jsonl``)
into a temporary directory and prints the citations by number of evidence spans, overall and by
status. With ``--before`` (a checkout without multi-span evidence, e.g. ``git archive`` of an older
commit) it runs that checkout's judge too and prints, per output, whether the two are
byte-identical (qrels, leaderboards, intervals, pairs, coverage), and whether the assessments are
equal but for the ``evidence_spans`` column.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
COMPARED = (
    "qrels",
    "doc.qrels",
    "leaderboard.txt",
    "leaderboard.parquet",
    "intervals.tsv",
    "pairs.tsv",
    "coverage.tsv",
)


def judge(checkout: Path, data: Path, out: Path) -> None:
    cmd = [sys.executable, "run_judge.py", "--judge", "citation", "--rag-topics", data / "topics.jsonl"]
    cmd += ["--rag-responses", data / "runs", "--corpus", data / "segments.jsonl", "--out-dir", out, "--name", "b"]
    env = dict(os.environ, PYTHONPATH=str(checkout))
    subprocess.run(list(map(str, cmd)), cwd=checkout, env=env, check=True, stdout=subprocess.DEVNULL)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "rag24-support")
    ap.add_argument("--before", type=Path, default=None)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        after = Path(tmp) / "after"
        judge(ROOT, a.data, after)
        table = pq.read_table(after / "b.assessments.parquet")
        n_spans = [len(s) for s in table.column("evidence_spans").to_pylist()]
        statuses = table.column("status").to_pylist()
        multi = sum(n >= 2 for n in n_spans)
        print(f"{a.data.name}: {len(n_spans)} citations, {multi} with two or more evidence spans")
        print("  by number of spans:", dict(sorted(Counter(n_spans).items())))
        by_status = Counter(s for s, n in zip(statuses, n_spans) if n >= 2)
        print("  two or more, by status:", dict(sorted(by_status.items())))
        if a.before is None:
            return
        before = Path(tmp) / "before"
        judge(a.before.resolve(), a.data, before)
        for kind in COMPARED:
            same = (before / f"b.{kind}").read_bytes() == (after / f"b.{kind}").read_bytes()
            print(f"  b.{kind}: {'byte-identical' if same else 'DIFFERS'}")
        old = pq.read_table(before / "b.assessments.parquet")
        same = old.equals(table.drop_columns(["evidence_spans"]).select(old.column_names))
        print(f"  assessments but evidence_spans: {'equal' if same else 'DIFFER'}")


if __name__ == "__main__":
    main()
