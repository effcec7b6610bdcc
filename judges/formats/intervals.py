"""The intervals' files: the output tables ``NAME.intervals`` and ``NAME.pairs`` (TSV and
Parquet) and the shipped spreads the intervals assume (``judges/scores/intervals.json`` and
``judges/scores/nugget_intervals.json``).

The file shapes live here; :mod:`judges.scores` computes the rows (tuples in the column order
below) and the spreads (plain dicts), and hands them over.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np
import pyarrow as pa

#: the spreads the intervals assume without labels of the session's track (judges.scores.spreads.session_spreads)
SHIPPED_SPREADS = Path(__file__).resolve().parents[1] / "scores" / "intervals.json"
#: the nugget judge's correlated errors per measure, learned on rag24-nuggets (bench/nugget_intervals.py --write)
NUGGET_SPREADS = Path(__file__).resolve().parents[1] / "scores" / "nugget_intervals.json"

INTERVAL_COLUMNS = (
    *("run_id", "measure", "value", "low", "high", "low_topics", "high_topics", "topics"),
    *("estimate", "made", "labels", "effective_labels", "low_labels", "high_labels"),
)
INTERVAL_SCHEMA = pa.schema(
    [("run_id", pa.string()), ("measure", pa.string())]
    + [(c, pa.float64()) for c in ("value", "low", "high", "low_topics", "high_topics")]
    + [("topics", pa.int32()), ("estimate", pa.float64()), ("made", pa.string()), ("labels", pa.int32())]
    + [(c, pa.float64()) for c in ("effective_labels", "low_labels", "high_labels")]
)
PAIR_COLUMNS = ("run_a", "run_b", "measure", "gap", "p_same_order", "p_same_order_topics")
PAIR_SCHEMA = pa.schema(
    [("run_a", pa.string()), ("run_b", pa.string()), ("measure", pa.string())]
    + [(c, pa.float64()) for c in ("gap", "p_same_order", "p_same_order_topics")]
)


def read_spreads(path: Path = SHIPPED_SPREADS) -> dict:
    """A spreads file (:data:`SHIPPED_SPREADS` or :data:`NUGGET_SPREADS`) as the dict it holds."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def write_spreads(path: Path, doc: dict) -> None:
    """Write a spreads file: ``doc`` as indented JSON, one trailing newline."""
    Path(path).write_text(json.dumps(doc, indent=2) + "\n")


def _fmt(v) -> str:
    if isinstance(v, (int, np.integer)):
        return str(v)
    from judges.formats.trec import format_value

    return format_value(v)


def write_tsv(path: Path, columns: Sequence[str], rows: list[tuple]) -> None:
    from judges.formats.atomic import atomic_text

    with atomic_text(path) as f:
        f.write("\t".join(columns) + "\n")
        for row in rows:
            f.write("\t".join(v if isinstance(v, str) else _fmt(v) for v in row) + "\n")


def write_parquet(path: Path, schema: pa.Schema, rows: list[tuple]) -> None:
    from judges.formats.tables import write_table

    columns: list[list] = [list(c) for c in zip(*rows)] if rows else [[] for _ in schema]
    write_table(path, pa.table(columns, schema=schema))


def write_intervals(
    intervals: list[tuple],
    pairs: list[tuple],
    out_dir: Path,
    name: str,
    place: Callable[[Path], Path] = lambda p: p,
) -> dict:
    """Write ``NAME.intervals.tsv``/``.parquet`` (rows of :data:`INTERVAL_COLUMNS`) and
    ``NAME.pairs.tsv``/``.parquet`` (:data:`PAIR_COLUMNS`); returns kind -> path."""
    from judges.formats import outputset

    files = {}
    for kind, columns, schema, rows in (
        ("intervals", INTERVAL_COLUMNS, INTERVAL_SCHEMA, intervals),
        ("pairs", PAIR_COLUMNS, PAIR_SCHEMA, pairs),
    ):
        tsv, parquet = outputset.path(out_dir, name, kind), outputset.path(out_dir, name, f"{kind}_parquet")
        write_tsv(place(tsv), columns, rows)
        write_parquet(place(parquet), schema, rows)
        files[kind], files[f"{kind}_parquet"] = str(tsv), str(parquet)
    return files


def read_intervals(path: str | Path, name: Optional[str] = None):
    """The intervals (:data:`INTERVAL_COLUMNS`) as a pandas DataFrame (``path``: file or output dir)."""
    from judges.formats.tables import output_file, read_table

    return read_table(output_file(path, name, "intervals_parquet"), required=INTERVAL_COLUMNS).to_pandas()


def read_pairs(path: str | Path, name: Optional[str] = None):
    """The run pairs (:data:`PAIR_COLUMNS`) as a pandas DataFrame (``path``: file or output dir)."""
    from judges.formats.tables import output_file, read_table

    return read_table(output_file(path, name, "pairs_parquet"), required=PAIR_COLUMNS).to_pandas()
