"""The files ``check-answer`` reads (:func:`judges.cli.app.check_answer`): the answer, prose or
a JSON list of sentences (:func:`answer_of`), and its sources, one per line of a JSONL file or a
file's whole text (:func:`sources_of`), each read with the batch readers' guards."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from judges.core.errors import InputError


def read_text(path: Path, option: str) -> str:
    """A file's text (``option``: the option that named it); else one error line."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(path, None, option, "no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(path, None, option, f"cannot be read ({e})") from None


def answer_of(text: str, name: str) -> tuple[Any, list[int]]:
    """The answer and the line of each sentence ([] for prose). Prose is taken as it is; what looks
    like JSON (a ``.json`` file, or text starting with ``[`` or ``{``) must be a JSON list of
    sentences, read with the batch readers' guards (bad syntax, a list cut short, nesting too deep,
    a lone surrogate: one line naming the file and line)."""
    from judges.formats.jsondoc import iter_array, iter_values

    start = text.lstrip()[:1]
    if not (name.endswith(".json") or start in ("[", "{")):
        return text, []
    if start != "[":
        found = next(iter_values(text, name), None)  # bad JSON is said as such
        kinds = {dict: "an object", str: "a string", bool: "true or false", type(None): "null"}
        what = "empty" if found is None else f"not {kinds.get(type(found[1]), 'a number')}"
        line = 1 if found is None else found[0]
        shape = "a JSON answer is a list of sentences (strings or {text, citations})"
        raise InputError(name, line, None, f"{shape}: {what}")
    sentences, lines = [], []
    for line, _, value in iter_array(text, name):
        sentences.append(value)
        lines.append(line)
    return sentences, lines


def file_line(path: Path, line: Optional[int]) -> str:
    """``path``, or ``path:line``."""
    return str(path) if line is None else f"{path}:{line}"


def sources_of(path: Path) -> list[tuple[Optional[int], Any]]:
    """Each source of a file and its line: one per line of a JSONL file (read with the batch
    readers' guards), else the file's text as one source named by the file (line None)."""
    from judges.formats.jsonl import iter_jsonl

    if path.suffix != ".jsonl":
        return [(None, (path.name, read_text(path, "--sources")))]
    if not path.is_file():
        read_text(path, "--sources")  # says why: no such file, a directory
    out: list[tuple[Optional[int], Any]] = []
    for line, record in iter_jsonl(path):
        if isinstance(record, InputError):
            raise record
        if not isinstance(record, dict):
            raise InputError(path, line, None, "a source must be a JSON object with text")
        out.append((line, record))
    if not out:
        raise InputError(path, None, "--sources", "no sources (the file is empty or holds only blank lines)")
    return out
