"""TREC text files: qrels and leaderboards (ir_measures, tot and JSONL orders)."""

from __future__ import annotations

import json
from pathlib import Path

from judges.formats.atomic import atomic_path, atomic_text

LEADERBOARD_FORMATS = ("ir_measures", "tot", "jsonl")  # the --leaderboard-format names (files: formats.outputset)
QRELS_BATCH = 65_536  # qrels rows formatted and written at a time


def format_value(value: float) -> str:
    """Leaderboard values in text files: four decimals, as trec_eval prints them."""
    return f"{value:.4f}"


def write_qrels(path: Path, table) -> int:
    """Write a ``topic_id 0 doc_id grade`` line per row of ``table`` (an Arrow table with columns
    ``topic_id``, ``doc_id`` and ``grade``, already sorted); returns the row count.

    Arrow formats the lines, a batch of :data:`QRELS_BATCH` rows at a time, and their bytes are
    written as they lie in its buffer: a million qrels never become Python strings.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    n = 0
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        for batch in table.select(["topic_id", "doc_id", "grade"]).to_batches(max_chunksize=QRELS_BATCH):
            if batch.num_rows == 0:
                continue
            topic, doc, grade = (pc.cast(column, pa.string()) for column in batch.columns)  # int32 offsets
            grade = pc.binary_join_element_wise(grade, "\n", "")  # "2\n"
            lines = pc.binary_join_element_wise(topic, "0", doc, grade, " ")
            offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32)[lines.offset :][: len(lines) + 1]
            f.write(memoryview(lines.buffers()[2])[offsets[0] : offsets[-1]])
            n += len(lines)
    return n


def write_leaderboard(path: Path, rows: list[tuple[str, str, str, float]], fmt: str) -> None:
    """Write ``(run_id, topic_id, measure, value)`` rows, already in leaderboard order.

    ``ir_measures``: ``run_id<TAB>topic_id<TAB>measure<TAB>value``;
    ``tot``: ``run_id<TAB>measure<TAB>topic_id<TAB>value`` (the AutoJudge truth order);
    ``jsonl``: one ``{"run_id", "topic_id", "measure", "value"}`` object per line.
    """
    with atomic_text(path) as f:
        for run_id, topic_id, measure, value in rows:
            if fmt == "ir_measures":
                f.write(f"{run_id}\t{topic_id}\t{measure}\t{format_value(value)}\n")
            elif fmt == "tot":
                f.write(f"{run_id}\t{measure}\t{topic_id}\t{format_value(value)}\n")
            elif fmt == "jsonl":
                record = {"run_id": run_id, "topic_id": topic_id, "measure": measure, "value": value}
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
            else:
                raise ValueError(f"unknown leaderboard format {fmt!r}; known: {', '.join(LEADERBOARD_FORMATS)}")
