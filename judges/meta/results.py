"""Result tables (correlations, per-run values, agreement) written as JSONL or CSV.

The format follows the file's suffix (``.jsonl``/``.json`` or ``.csv``). Rows keep the table's
order (callers sort); floats are written in full (``repr``) and NaN as JSON ``null`` / an empty CSV
cell, so a rerun with the same seed gives a byte-identical file. Files are written atomically.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from judges.core.errors import InputError
from judges.formats.atomic import atomic_text

SUFFIXES = {".jsonl": "jsonl", ".json": "jsonl", ".csv": "csv"}


def table_format(path: Path, option: str) -> str:
    fmt = SUFFIXES.get(Path(path).suffix.lower())
    if fmt is None:
        raise InputError(path, None, option, f"unknown output suffix {Path(path).suffix!r}; use .jsonl or .csv")
    return fmt


def _plain(value):
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):  # numpy scalars
        return _plain(value.item())
    return value


def write_table(path: Path, df: pd.DataFrame, option: str = "--output") -> None:
    fmt = table_format(path, option)
    with atomic_text(Path(path)) as f:
        if fmt == "jsonl":
            for record in df.to_dict(orient="records"):
                f.write(json.dumps({k: _plain(v) for k, v in record.items()}, ensure_ascii=False) + "\n")
        else:
            df.to_csv(f, index=False, lineterminator="\n")
