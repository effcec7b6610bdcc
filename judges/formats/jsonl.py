"""Reading JSON Lines files (plain or gzip), one record per line, with line numbers."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import IO, Container, Iterator, Optional

from judges.errors import InputError

JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".json.gz", ".ndjson", ".ndjson.gz")


def open_text(path: Path) -> IO[str]:
    """Open a text file for reading, gunzipping ``.gz`` files."""
    if str(path).endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")


def iter_jsonl(path: Path, lines: Optional[Container[int]] = None) -> Iterator[tuple[int, object]]:
    """Yield ``(line number, parsed value or InputError)``; blank lines are skipped.

    ``lines``: parse only these line numbers (the others are read but not parsed).
    """
    f = open_text(path)
    try:
        for line_no, line in enumerate(f, start=1):
            if (lines is not None and line_no not in lines) or not line.strip():
                continue
            try:
                yield line_no, json.loads(line)
            except json.JSONDecodeError as e:
                yield line_no, InputError(path, line_no, None, f"invalid JSON ({e.msg} at column {e.colno})")
    except (OSError, EOFError, UnicodeDecodeError) as e:
        raise InputError(path, None, None, f"cannot read: {e}") from None
    finally:
        f.close()


def discover(paths: list[Path], what: str) -> list[Path]:
    """Expand files and directories (recursively) into a sorted list of JSONL files."""
    found: set[Path] = set()
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found.update(q for q in p.rglob("*") if q.is_file() and q.name.endswith(JSONL_SUFFIXES))
        elif p.is_file():
            found.add(p)
        else:
            raise InputError(p, None, what, "no such file or directory")
    return sorted(found, key=lambda q: q.as_posix())
