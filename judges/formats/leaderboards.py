"""Leaderboards of every TREC format, read into one long table: run_id, topic_id, measure, value.

Formats (columns are split on any whitespace, so tab-separated and space-aligned files both read):

* ``ir_measures``: ``run topic measure value`` (citejudge's ``NAME.leaderboard.txt``);
* ``tot``: ``run measure topic value`` (``NAME.leaderboard.tot.txt``, the AutoJudge truth order);
* ``trec_eval``: ``measure topic value``, one run per file. The run is named by the file's
  ``runid`` row (``trec_eval -q`` writes ``runid  all  NAME``); a file without one is named by its
  file name without the last suffix (``run1.txt`` and ``run1`` are run ``run1``;
  ``bm25.v2.txt`` is ``bm25.v2``). :func:`write_trec_eval` writes both, so they agree;
* ``jsonl``: one ``{"run_id", "topic_id", "measure", "value"}`` object per line.

``fmt="auto"`` sniffs: JSON objects are ``jsonl``; three columns are ``trec_eval``; with four
columns a header line names the order (``measure`` second: ``tot``), else the column holding the
``all`` topic decides; a file where neither tells is an error that asks for the format.

Header lines: ``header=None`` takes the first line as a header when its value column is not a
number (``run_id query_id measure value``), or, for ``jsonl``, when it is not a JSON object;
``True`` always skips the first line, ``False`` never does. Only the first line can be a header.

A directory is read file by file (regular, non-hidden files, sorted by name) in one format and
merged. A (run, topic, measure) given twice is an error naming both places.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Iterable, Optional

import pandas as pd

from judges.core.errors import InputError
from judges.formats import trec
from judges.formats.atomic import atomic_text
from judges.formats.jsonl import skip_bom
from judges.formats.setrecord import check_file
from judges.core.vocabulary import LEADERBOARD_READ_FORMATS

FORMATS = LEADERBOARD_READ_FORMATS
COLUMNS = ["run_id", "topic_id", "measure", "value"]
ALL = "all"
_LAYOUT = {
    "ir_measures": "run topic measure value",
    "tot": "run measure topic value",
    "trec_eval": "measure topic value",
}
_MEASURE_WORDS = {"measure", "metric", "measure_name"}


def read_any_leaderboard(path: str | Path, fmt: str = "auto", header: Optional[bool] = None) -> pd.DataFrame:
    """One leaderboard file or directory as a DataFrame with :data:`COLUMNS`, sorted by run,
    measure and topic (``value`` is float64; ids are strings)."""
    path = Path(path)
    if fmt != "auto" and fmt not in FORMATS:
        raise InputError(path, None, "format", f"unknown {fmt!r}; known: auto, {', '.join(FORMATS)}")
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise InputError(path, None, None, "directory holds no leaderboard files")
    elif path.is_file():
        check_file(path)  # a file of an output set: checked against the set's record (judges.formats.setrecord)
        files = [path]
    else:
        raise InputError(path, None, None, "no such file or directory")

    rows: list[tuple[str, str, str, float]] = []
    first_at: dict[tuple[str, str, str], str] = {}
    for f in files:
        for run, topic, measure, value, line in _read_file(f, fmt, header):
            key = (run, topic, measure)
            where = f"{f}:{line}"
            if key in first_at:
                raise InputError(
                    f,
                    line,
                    "value",
                    f"second value for run {run!r}, topic {topic!r}, measure {measure!r} (first at {first_at[key]})",
                )
            first_at[key] = where
            rows.append((run, topic, measure, value))
    df = pd.DataFrame(rows, columns=COLUMNS).astype(
        {"run_id": str, "topic_id": str, "measure": str, "value": "float64"}
    )
    return df.sort_values(["run_id", "measure", "topic_id"], kind="stable").reset_index(drop=True)


def _lines(path: Path) -> list[tuple[int, str]]:
    try:
        text = skip_bom(path.read_bytes()).decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(path, None, None, f"not UTF-8 ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise InputError(path, None, None, f"cannot read: {e.strerror or e}") from None
    return [(no, line) for no, line in enumerate(text.splitlines(), start=1) if line.strip()]


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def _text_header(fmt: str, line: str) -> bool:
    parts = line.split()
    if fmt == "trec_eval" and parts and parts[0] == "runid":
        return False  # trec_eval's own run-name row is data
    return bool(parts) and not _is_number(parts[-1])


def sniff_format(path: Path, lines: list[tuple[int, str]]) -> str:
    """The format of a file from its first lines (see the module docstring)."""
    if any(line.lstrip().startswith("{") for _, line in lines[:2]):
        return "jsonl"
    first_no, first = lines[0]
    parts = first.split()
    has_header = not _is_number(parts[-1]) and parts[0] != "runid"
    if len(parts) == 3:
        return "trec_eval"
    if len(parts) != 4:
        raise InputError(
            path, first_no, None, f"{len(parts)} columns: not a leaderboard (ir_measures and tot have 4, trec_eval 3)"
        )
    if has_header:
        names = [p.lower() for p in parts]
        if names[1] in _MEASURE_WORDS:
            return "tot"
        if names[2] in _MEASURE_WORDS:
            return "ir_measures"
    data = lines[1:] if has_header else lines
    second = any(len(p) == 4 and p[1] == ALL for p in (line.split() for _, line in data))
    third = any(len(p) == 4 and p[2] == ALL for p in (line.split() for _, line in data))
    if second != third:
        return "ir_measures" if second else "tot"
    raise InputError(
        path,
        None,
        "format",
        "cannot tell ir_measures (run topic measure value) from tot "
        "(run measure topic value): no header names the columns and no 'all' topic; pass the format",
    )


def _read_file(path: Path, fmt: str, header: Optional[bool]) -> Iterable[tuple[str, str, str, float, int]]:
    lines = _lines(path)
    if not lines:
        raise InputError(path, None, None, "empty leaderboard")
    if fmt == "auto":
        fmt = sniff_format(path, lines)
    first = lines[0][1]
    if header is None:
        header = not first.lstrip().startswith("{") if fmt == "jsonl" else _text_header(fmt, first)
    if header:
        lines = lines[1:]
        if not lines:
            raise InputError(path, None, None, "a header line and no rows")
    if fmt == "jsonl":
        yield from _read_jsonl(path, lines)
    elif fmt == "trec_eval":
        yield from _read_trec_eval(path, lines)
    else:
        yield from _read_columns(path, lines, fmt)


def _value(path: Path, no: int, token: str) -> float:
    try:
        value = float(token)
    except ValueError:
        raise InputError(path, no, "value", f"{token!r} is not a number") from None
    if not math.isfinite(value):
        raise InputError(path, no, "value", f"{token!r} is not a finite number")
    return value


def _columns(path: Path, no: int, line: str, fmt: str) -> list[str]:
    parts = line.split()
    want = 3 if fmt == "trec_eval" else 4
    if len(parts) != want:
        raise InputError(path, no, None, f"{len(parts)} columns; {fmt} has {want} ({_LAYOUT[fmt]})")
    return parts


def _read_columns(path: Path, lines, fmt: str):
    for no, line in lines:
        parts = _columns(path, no, line, fmt)
        if fmt == "ir_measures":
            run, topic, measure, value = parts
        else:
            run, measure, topic, value = parts
        yield run, topic, measure, _value(path, no, value), no


def trec_eval_run_name(path: Path) -> str:
    """The run of a trec_eval file without a ``runid`` row: the file name less its last suffix."""
    return Path(path).stem


def _read_trec_eval(path: Path, lines):
    run: Optional[str] = None
    parsed = []
    for no, line in lines:
        measure, topic, value = _columns(path, no, line, "trec_eval")
        if measure == "runid":
            if run is not None and value != run:
                raise InputError(
                    path, no, "runid", f"second run name {value!r} (first {run!r}); trec_eval files hold one run"
                )
            run = value
            continue
        parsed.append((topic, measure, _value(path, no, value), no))
    name = run if run is not None else trec_eval_run_name(path)
    for topic, measure, number, no in parsed:
        yield name, topic, measure, number, no


def _jsonl_id(path: Path, no: int, obj: dict, key: str) -> str:
    v = obj.get(key)
    if v is None:
        raise InputError(path, no, key, "missing")
    if isinstance(v, bool) or not isinstance(v, (str, int)) or not str(v).strip():
        raise InputError(path, no, key, "must be a non-empty string or an integer")
    return str(v).strip()


def _read_jsonl(path: Path, lines):
    for no, line in lines:
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(path, no, None, f"invalid JSON ({e.msg} at column {e.colno})") from None
        if not isinstance(obj, dict):
            raise InputError(path, no, None, "a leaderboard row must be a JSON object")
        run, topic, measure = (_jsonl_id(path, no, obj, k) for k in ("run_id", "topic_id", "measure"))
        value = obj.get("value")
        if value is None:
            raise InputError(path, no, "value", "missing")
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise InputError(path, no, "value", "must be a number")
        yield run, topic, measure, _value(path, no, str(value)), no


# ---------------------------------------------------------------------------------------------
# Views used by the meta-evaluation
# ---------------------------------------------------------------------------------------------
def all_values(df: pd.DataFrame, measure: str) -> pd.Series:
    """Each run's ``all`` value of ``measure`` (index: run_id, sorted)."""
    rows = df[(df["measure"] == measure) & (df["topic_id"] == ALL)]
    return rows.set_index("run_id")["value"].sort_index()


def per_topic(df: pd.DataFrame, measure: str) -> pd.DataFrame:
    """The per-topic values of ``measure``: runs x topics (sorted), NaN where a run has no row."""
    rows = df[(df["measure"] == measure) & (df["topic_id"] != ALL)]
    return rows.pivot(index="run_id", columns="topic_id", values="value").sort_index().sort_index(axis=1)


def missing_all_rows(df: pd.DataFrame) -> list[tuple[str, str]]:
    """(run, measure) pairs with no ``all`` row: TIRA's layout wants one for every pair."""
    have = set(map(tuple, df.loc[df["topic_id"] == ALL, ["run_id", "measure"]].itertuples(index=False)))
    return sorted((r, m) for r in df["run_id"].unique() for m in df["measure"].unique() if (r, m) not in have)


# ---------------------------------------------------------------------------------------------
# Writing (the formats :mod:`judges.formats.trec` does not write)
# ---------------------------------------------------------------------------------------------
def _ordered_rows(df: pd.DataFrame) -> list[tuple[str, str, str, float]]:
    order = df.assign(_all=df["topic_id"] == ALL).sort_values(["run_id", "_all", "topic_id", "measure"], kind="stable")
    return list(order[COLUMNS].itertuples(index=False, name=None))


def write_trec_eval(directory: Path, df: pd.DataFrame) -> list[Path]:
    """One trec_eval file per run, ``DIRECTORY/RUN.txt``, starting with its ``runid`` row."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for run, rows in df.groupby("run_id", sort=True):
        path = directory / f"{run}.txt"
        with atomic_text(path) as f:
            f.write(f"runid\t{ALL}\t{run}\n")
            for _, topic, measure, value in _ordered_rows(rows):
                f.write(f"{measure}\t{topic}\t{trec.format_value(value)}\n")
        paths.append(path)
    return paths


def write_any_leaderboard(path: Path, df: pd.DataFrame, fmt: str) -> None:
    """Write ``df`` in ``fmt``; for ``trec_eval`` ``path`` is a directory (one file per run)."""
    if fmt == "trec_eval":
        write_trec_eval(path, df)
    else:
        trec.write_leaderboard(Path(path), _ordered_rows(df), fmt)
