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
    except (OSError, EOFError) as e:
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


def readable_name(path: Path, suffixes: tuple[str, ...] = JSONL_SUFFIXES) -> bool:
    """Whether a file found in a directory is read: a JSON suffix in any case (``RUN4.JSONL``),
    or no suffix at all (``run2``, as TREC runs are often named); hidden files are not."""
    name = path.name.lower()
    return not name.startswith(".") and (name.endswith(suffixes) or "." not in name)


def discover(paths: list[Path], what: str, skipped: Optional[list[Path]] = None, suffixes: tuple[str, ...] = JSONL_SUFFIXES) -> list[Path]:
    """Expand files and directories (recursively) into a sorted list of JSONL files; files of a
    directory that are not read go to ``skipped`` (to be named in a warning)."""
    found: set[Path] = set()
    for p in paths:
        p = Path(p)
        if p.is_dir():
            for q in p.rglob("*"):
                if q.is_file():
                    if readable_name(q, suffixes):
                        found.add(q)
                    elif skipped is not None:
                        skipped.append(q)
        elif p.is_file():
            found.add(p)
        else:
            raise InputError(p, None, what, "no such file or directory")
    return sorted(found, key=lambda q: q.as_posix())
