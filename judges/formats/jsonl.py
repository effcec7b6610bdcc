"""Reading JSON Lines files (plain or gzip), one record per line, with line numbers."""

from __future__ import annotations

import gzip
import io
import json
import zlib
from pathlib import Path
from typing import IO, Container, Iterator, Optional

from judges.errors import InputError

JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".json.gz", ".ndjson", ".ndjson.gz")


def open_text(path: Path) -> IO[str]:
    """Open a text file for reading, gunzipping ``.gz`` files."""
    if str(path).endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")


def seekable(path: Path | str) -> bool:
    """Whether a record can be re-read by byte offset (plain files; not gzip streams)."""
    return not str(path).endswith(".gz")


def iter_lines(path: Path, lines: Optional[Container[int]] = None) -> Iterator[tuple[int, int, bytes]]:
    """Yield ``(line number, byte offset, raw line)`` for non-blank lines (``lines``: only those)."""
    f = gzip.open(path, "rb") if not seekable(path) else open(path, "rb")
    offset = 0
    try:
        for line_no, raw in enumerate(f, start=1):
            if (lines is None or line_no in lines) and raw.strip():
                yield line_no, offset, raw
            offset += len(raw)
    except (OSError, EOFError, zlib.error) as e:  # zlib.error: a corrupt gzip stream
        raise InputError(path, None, None, f"cannot read: {e}") from None
    finally:
        f.close()


def parse_line(path: Path | str, line_no: int, raw: bytes) -> object:
    """The JSON value of one line, or an :class:`InputError` saying what is wrong with it."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError as e:
        return InputError(path, line_no, None, f"invalid JSON ({e.msg} at column {e.colno})")
    except UnicodeDecodeError as e:
        return InputError(path, line_no, None, f"not UTF-8 ({e.reason} at byte {e.start})")


def iter_jsonl(path: Path, lines: Optional[Container[int]] = None) -> Iterator[tuple[int, object]]:
    """Yield ``(line number, parsed value or InputError)``; blank lines are skipped."""
    for line_no, _, raw in iter_lines(path, lines):
        yield line_no, parse_line(path, line_no, raw)


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
