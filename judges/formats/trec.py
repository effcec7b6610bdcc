"""TREC text files: qrels and leaderboards (ir_measures, tot and JSONL orders)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from judges.formats.atomic import atomic_text

LEADERBOARD_SUFFIX = {"ir_measures": "leaderboard.txt", "tot": "leaderboard.tot.txt", "jsonl": "leaderboard.jsonl"}
LEADERBOARD_FORMATS = tuple(LEADERBOARD_SUFFIX)  # the --leaderboard-format names


def format_value(value: float) -> str:
    """Leaderboard values in text files: four decimals, as trec_eval prints them."""
    return f"{value:.4f}"


def write_qrels(path: Path, rows: Iterable[tuple[str, str, int]]) -> int:
    """Write ``topic_id 0 doc_id grade`` lines, for ``rows`` already sorted; returns the row count."""
    n = 0
    with atomic_text(path) as f:
        for topic_id, doc_id, grade in rows:
            f.write(f"{topic_id} 0 {doc_id} {grade}\n")
            n += 1
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
