"""Reading whole-file JSON shapes: a JSON array of records, or JSON values one after another
(JSON Lines, objects pretty-printed over several lines, or objects glued on one line ``}{``).

JSON Lines files are read line by line (:mod:`judges.formats.jsonl`); these readers are for the
files teams file as one ``.json`` array, and for small files (topics) of any JSON layout. Each
value comes with the line where it starts, for ``path:line`` messages.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from pathlib import Path
from typing import Iterator

from judges.core.errors import InputError
from judges.formats.jsonl import read_error, skip_bom, value_problem

_SPACE = re.compile(r"[ \t\n\r]*")


def _skip(text: str, pos: int) -> int:
    """The position of the first character at or after ``pos`` that is not JSON white space."""
    found = _SPACE.match(text, pos)  # [ \t\n\r]* matches everywhere
    return found.end() if found is not None else pos


_DECODER = json.JSONDecoder()


class KeyedObject(dict):
    """A JSON object that remembers the keys given twice in it (``twice``; JSON keeps the last)."""

    def __init__(self, pairs: list[tuple[str, object]]):
        super().__init__(pairs)
        seen: set[str] = set()
        self.twice = tuple(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]


#: A decoder whose objects are :class:`KeyedObject`: for readers to which a key given twice is an error.
KEYED_DECODER = json.JSONDecoder(object_pairs_hook=KeyedObject)


def read_text(path: Path) -> str:
    """The whole file as text (gunzipping ``.gz``; a UTF-8 byte-order mark is dropped)."""
    try:
        data = gzip.open(path, "rb").read() if str(path).endswith(".gz") else Path(path).read_bytes()
    except (OSError, EOFError, zlib.error) as e:
        raise read_error(path, None, e) from None
    data = skip_bom(data)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise InputError(path, line, None, f"not UTF-8 ({e.reason} at byte {e.start})") from None


def first_char(path: Path, size: int = 4096) -> str:
    """The first non-blank character of a file ('' for an empty or unreadable one)."""
    try:
        with gzip.open(path, "rb") if str(path).endswith(".gz") else open(path, "rb") as f:
            block = skip_bom(f.read(size))
            while True:
                if not block:
                    return ""
                text = block.lstrip(b" \t\r\n")
                if text:
                    return chr(text[0]) if text[0] < 128 else ""
                block = f.read(size)
    except (OSError, EOFError, zlib.error):
        return ""  # the reader that follows says what is wrong


def first_record(path: Path, size: int = 1 << 16) -> object:
    """The first JSON value of a file, or of its top-level array, if it is complete within its
    first ``size`` bytes; ``None`` otherwise (or when unreadable: the reader that follows says why)."""
    try:
        with gzip.open(path, "rb") if str(path).endswith(".gz") else open(path, "rb") as f:
            head = f.read(size)
    except (OSError, EOFError, zlib.error):
        return None
    text = skip_bom(head).decode("utf-8", errors="replace")
    pos = _skip(text, 0)
    if text[pos : pos + 1] == "[":
        pos = _skip(text, pos + 1)
    try:
        return _DECODER.raw_decode(text, pos)[0]
    except (ValueError, RecursionError):
        return None


def _invalid(path: object, e: json.JSONDecodeError) -> InputError:
    return InputError(path, e.lineno, None, f"invalid JSON ({e.msg} at column {e.colno})")


def _decode(text: str, pos: int, path: object, decoder: json.JSONDecoder = _DECODER) -> tuple[object, int]:
    """The JSON value starting at ``pos`` and where it ends; anything a judge cannot take (bad
    syntax, nesting too deep, an integer too long, a lone surrogate) raises :class:`InputError`."""
    try:
        value, end = decoder.raw_decode(text, pos)
    except json.JSONDecodeError as e:
        raise _invalid(path, e) from None
    except RecursionError:
        raise InputError(path, text.count("\n", 0, pos) + 1, None, "JSON nested too deeply") from None
    except ValueError as e:  # an integer beyond sys.get_int_max_str_digits()
        raise InputError(
            path, text.count("\n", 0, pos) + 1, None, f"invalid JSON number ({str(e).split(':')[0]})"
        ) from None
    problem = value_problem(value)
    if problem is not None:
        raise InputError(path, text.count("\n", 0, pos) + 1, problem[0] or None, problem[1])
    return value, end


def iter_array(text: str, path: object, decoder: json.JSONDecoder = _DECODER) -> Iterator[tuple[int, int, object]]:
    """``(line, index, value)`` of each element of a JSON array; a syntax error ends it with
    :class:`InputError` (raised where it is met, after the elements before it). ``decoder``: one
    of the reader's own (:class:`KeyedObject`'s, to see a key given twice)."""
    pos = _skip(text, 0)
    if text[pos : pos + 1] != "[":
        raise InputError(path, 1, None, "expected a JSON array")
    pos = _skip(text, pos + 1)
    line, counted, index = 1, 0, 0
    if text[pos : pos + 1] == "]":
        return
    while True:
        value, end = _decode(text, pos, path, decoder)
        line += text.count("\n", counted, pos)
        counted = pos
        yield line, index, value
        index += 1
        pos = _skip(text, end)
        sep = text[pos : pos + 1]
        if sep == ",":
            pos = _skip(text, pos + 1)
        elif sep == "]":
            rest = _skip(text, pos + 1)
            if rest != len(text):
                raise _invalid(path, json.JSONDecodeError("Extra data", text, rest))
            return
        else:
            raise _invalid(path, json.JSONDecodeError("Expecting ',' delimiter", text, pos))


def iter_values(text: str, path: object, decoder: json.JSONDecoder = _DECODER) -> Iterator[tuple[int, object]]:
    """``(line, value)`` of JSON values written one after another, whatever the white space
    between them (none, a newline, several lines); a syntax error raises :class:`InputError`."""
    pos = _skip(text, 0)
    line, counted = 1, 0
    while pos < len(text):
        value, end = _decode(text, pos, path, decoder)
        line += text.count("\n", counted, pos)
        counted = pos
        yield line, value
        pos = _skip(text, end)
