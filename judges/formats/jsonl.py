"""Reading JSON Lines files (plain or gzip), one record per line, with line numbers.

This is the one reader of bytes for every input kind (runs, topics, corpus, labels): every way
a file can be broken becomes an :class:`InputError` naming the file and line, never a traceback.
A record-level problem (invalid JSON, not UTF-8, a NUL byte, nesting or integers beyond the
limits, a lone surrogate, a record cut short) is *returned* by :func:`parse_line`, so
``--on-error skip`` can skip it; a stream-level one (a corrupt or cut gzip stream, a read error)
is *raised* by :func:`iter_lines` with the line where reading stopped, since nothing after it
can be read.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from pathlib import Path
from typing import Container, Iterator, Optional

from judges.core.errors import InputError

JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".json.gz", ".ndjson", ".ndjson.gz")
BOM = b"\xef\xbb\xbf"  # the UTF-8 byte order mark Windows tools (Notepad, Excel) put at a file's start


def skip_bom(data: bytes) -> bytes:
    """``data``, a file's first bytes, without a UTF-8 byte order mark: how every reader of input
    files (runs, corpora, topics, labels, workflows' neighbours) reads a file's start."""
    return data[len(BOM) :] if data.startswith(BOM) else data


def seekable(path: Path | str) -> bool:
    """Whether a record can be re-read by byte offset (plain files; not gzip streams)."""
    return not str(path).endswith(".gz")


def iter_lines(path: Path, lines: Optional[Container[int]] = None) -> Iterator[tuple[int, int, bytes]]:
    """Yield ``(line number, byte offset, raw line)`` for non-blank lines (``lines``: only those)."""
    try:
        f = gzip.open(path, "rb") if not seekable(path) else open(path, "rb")
    except OSError as e:
        raise InputError(path, None, None, f"cannot read: {e.strerror or e}") from None
    offset = 0
    line_no = 0
    try:
        for line_no, raw in enumerate(f, start=1):
            if line_no == 1:  # a byte order mark is skipped: the first record starts after it
                offset = len(raw) - len(skip_bom(raw))
                raw = raw[offset:]
            if (lines is None or line_no in lines) and raw.strip():
                yield line_no, offset, raw
            offset += len(raw)
    except (OSError, EOFError, zlib.error) as e:
        raise read_error(path, line_no + 1, e) from None
    finally:
        f.close()


def read_error(path: Path, line: Optional[int], e: BaseException) -> InputError:
    """The one line for a file that fails while being read: a gzip stream cut short (EOFError) or
    corrupt (zlib.error, BadGzipFile), or an OS error."""
    if isinstance(e, EOFError):
        return InputError(path, line, None, "truncated gzip stream (the file was cut short)")
    what = "corrupt gzip data" if isinstance(e, (zlib.error, gzip.BadGzipFile)) else "cannot read"
    return InputError(path, line, None, f"{what}: {getattr(e, 'strerror', None) or e}")


MAX_DEPTH = 200  # JSON nesting walked when looking for lone surrogates (records nest 4 or 5 deep)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def parse_line(path: Path | str, line_no: int, raw: bytes) -> object:
    """The JSON value of one line, or an :class:`InputError` saying what is wrong with it.

    Every string of the value is valid Unicode (no lone surrogate): checked here, once, so that
    no later stage (qrels keys, the debug log, Parquet) can fail on one.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        try:  # a sequence cut by the end of the record, not by a bad byte: the record was cut short
            raw.rstrip(b"\r\n").decode("utf-8")
        except UnicodeDecodeError as cut:
            if cut.reason == "unexpected end of data":
                return InputError(
                    path, line_no, None, f"truncated record (ends inside a UTF-8 character at byte {cut.start + 1})"
                )
        return InputError(path, line_no, None, f"not UTF-8 ({e.reason} at byte {e.start + 1})")
    nul = text.find("\0")
    if nul >= 0:
        return InputError(path, line_no, None, f"NUL byte at column {nul + 1}")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        end = len(text.rstrip())
        if e.pos >= end or e.msg.startswith("Unterminated string"):
            return InputError(
                path, line_no, None, f"truncated record (JSON ends at column {end} before the value is complete)"
            )
        return InputError(path, line_no, None, f"invalid JSON ({e.msg} at column {e.colno})")
    except RecursionError:
        return InputError(path, line_no, None, "JSON nested too deeply")
    except ValueError as e:  # an integer beyond sys.get_int_max_str_digits()
        return InputError(path, line_no, None, f"invalid JSON number ({str(e).split(':')[0]})")
    if _SURROGATE_ESCAPE.search(text) is not None:  # rare (escaped emoji, lone surrogates): only then walk the value
        problem = value_problem(value)
        if problem is not None:
            field, message = problem
            return InputError(path, line_no, field or None, message)
    return value


def value_problem(value: object) -> tuple[str, str] | None:
    """``(field, problem)`` when a parsed JSON value holds a lone surrogate or nests deeper than
    :data:`MAX_DEPTH`; ``None`` when it is fit to judge."""
    if isinstance(value, str):
        return ("", "lone surrogate: not valid Unicode") if _SURROGATE.search(value) else None
    return _check_value(value, MAX_DEPTH, True) if isinstance(value, (dict, list)) else None


def _check_value(value: object, depth: int, surrogates: bool, field: str = "") -> tuple[str, str] | None:
    """``(field, problem)`` for a value nested deeper than ``depth`` or holding a lone surrogate."""
    if depth <= 0:
        return field, f"JSON nested deeper than {MAX_DEPTH} levels"
    if isinstance(value, dict):
        items = ((f"{field}.{k}" if field else str(k), k, v) for k, v in value.items())
    elif isinstance(value, list):
        items = ((f"{field}[{i}]", None, v) for i, v in enumerate(value))
    else:
        return None
    for sub, key, v in items:
        if key is not None and surrogates and (lone := _SURROGATE.search(key)) is not None:
            return field or "(key)", f"lone surrogate (\\u{ord(lone.group()):04x}) in a key: not valid Unicode"
        if isinstance(v, (dict, list)):
            problem = _check_value(v, depth - 1, surrogates, sub)
            if problem is not None:
                return problem
        elif surrogates and isinstance(v, str) and (lone := _SURROGATE.search(v)) is not None:
            return sub, f"lone surrogate (\\u{ord(lone.group()):04x}): not valid Unicode"
    return None


def iter_jsonl(path: Path, lines: Optional[Container[int]] = None) -> Iterator[tuple[int, object]]:
    """Yield ``(line number, parsed value or InputError)``; blank lines are skipped."""
    for line_no, _, raw in iter_lines(path, lines):
        yield line_no, parse_line(path, line_no, raw)


def readable_name(path: Path, suffixes: tuple[str, ...] = JSONL_SUFFIXES) -> bool:
    """Whether a file found in a directory is read: a JSON suffix in any case (``RUN4.JSONL``),
    or no suffix at all (``run2``, as TREC runs are often named); hidden files are not."""
    name = path.name.lower()
    return not name.startswith(".") and (name.endswith(suffixes) or "." not in name)


def discover(
    paths: list[Path], what: str, skipped: Optional[list[Path]] = None, suffixes: tuple[str, ...] = JSONL_SUFFIXES
) -> list[Path]:
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
