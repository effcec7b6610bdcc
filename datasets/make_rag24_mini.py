"""Copy datasets/rag24-mini/ out of ../shared/data/rag24-support: three of its topics, as they are.

    python datasets/make_rag24_mini.py [PATH/TO/rag24-support]

Keeps, for the topics in TOPICS: each run's lines (runs without one are left out), the cited
segments, the topics (JSONL and NIST TSV), the labels, and the truth's per-topic rows; the truth's
``all`` rows are recomputed as the mean over the kept topics each run answered (as the source
computes them over its 14). Lines are copied byte for byte, in the source's order; the same source
gives the same files.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT.parent / "shared" / "data" / "rag24-support"
TARGET = ROOT / "datasets" / "rag24-mini"
# Three topics with all three labels well represented (full / partial / no support: 89/53/67,
# 76/50/61, 52/60/53 of their labelled citations) and most runs (39 to 42 of 45) answering them.
TOPICS = ("2024-215044", "2024-38986", "2024-43037")
MAX_BYTES = 1_000_000


def _write(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(lines), encoding="utf-8")


def main(source: Path = SOURCE) -> None:
    cited: set[str] = set()
    for run in sorted((source / "runs").glob("*.jsonl")):
        kept = [line for line in run.open(encoding="utf-8") if json.loads(line)["topic_id"] in TOPICS]
        target = TARGET / "runs" / run.name
        if kept:
            _write(target, kept)
            cited.update(ref for line in kept for ref in json.loads(line)["references"])
        elif target.exists():
            target.unlink()
    _write(
        TARGET / "segments.jsonl",
        [line for line in (source / "segments.jsonl").open(encoding="utf-8") if json.loads(line)["docid"] in cited],
    )
    _write(
        TARGET / "topics.jsonl",
        [line for line in (source / "topics.jsonl").open(encoding="utf-8") if json.loads(line)["id"] in TOPICS],
    )
    _write(
        TARGET / "topics.rag24.test.txt",
        [line for line in (source / "topics.rag24.test.txt").open(encoding="utf-8") if line.split("\t")[0] in TOPICS],
    )
    _write(
        TARGET / "labels.jsonl",
        [line for line in (source / "labels.jsonl").open(encoding="utf-8") if json.loads(line)["topic_id"] in TOPICS],
    )
    by_run: dict[str, list[list[str]]] = defaultdict(list)  # the source's order: runs, then their topics
    for row in (line.split() for line in (source / "truth.eval.txt").open(encoding="utf-8")):
        if row[1] in TOPICS:
            by_run[row[0]].append(row)
    lines = []
    for run, rows in by_run.items():
        lines += [f"{run}\t{topic}\t{measure}\t{value}\n" for _, topic, measure, value in rows]
        mean = sum(float(value) for *_, value in rows) / len(rows)
        lines.append(f"{run}\tall\t{rows[0][2]}\t{mean:.6f}\n")
    _write(TARGET / "truth.eval.txt", lines)
    size = sum(p.stat().st_size for p in TARGET.rglob("*") if p.is_file())
    assert size < MAX_BYTES, f"{TARGET}: {size} bytes, more than {MAX_BYTES}"
    print(f"wrote {TARGET}: {len(by_run)} runs, {len(TOPICS)} topics, {len(cited)} segments, {size:,} bytes")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else SOURCE)
