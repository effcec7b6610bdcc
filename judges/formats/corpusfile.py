"""One JSONL(.gz) corpus file, streamed once, keeping only the cited ids.

Lines are JSON objects with an id (``doc_id``, ``docid``, ``docno``, ``id`` or ``_id``), a
``text`` (or ``contents``/``segment``) and an optional ``title``. Ids are read as run files read
them (a non-empty string or integer, stripped); a cited id found twice is an error, not the
first copy silently.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

from judges.core.errors import InputError
from judges.formats.jsonl import iter_jsonl
from judges.formats.runs import DOC_ID_KEYS, checked_id, json_type
from judges.core.records import Document


def read_corpus_file(path: Path, wanted: set[str], on_error: Callable[[InputError], None]) -> dict[str, Document]:
    """The documents of the file ``path`` whose id is in ``wanted``; bad lines go to ``on_error``."""
    found: dict[str, Document] = {}
    first: dict[str, int] = {}
    records = 0
    for line, value in iter_jsonl(path):
        records += 1
        try:
            if isinstance(value, InputError):
                raise value
            doc = parse_document(value, str(path), line)
            if doc.doc_id in wanted:
                if doc.doc_id in first:
                    raise InputError(
                        path,
                        line,
                        "doc_id",
                        f"duplicate document id {doc.doc_id!r} (first at line {first[doc.doc_id]})",
                    )
                first[doc.doc_id] = line
                found[doc.doc_id] = doc
        except InputError as e:
            on_error(e)
    if not records:
        raise InputError(path, None, "--corpus", "no documents (the file is empty or holds only blank lines)")
    return found


def parse_document(obj: object, path: str, line: Optional[int]) -> Document:
    """One corpus line as a :class:`Document` (or an :class:`InputError` naming the field)."""
    if not isinstance(obj, dict):
        raise InputError(path, line, None, f"a document must be a JSON object, got {json_type(obj)}")
    key = next((k for k in DOC_ID_KEYS if obj.get(k) is not None), None)
    if key is None:
        raise InputError(path, line, "doc_id", "missing (also looked for docid, docno, id, _id)")
    text = obj.get("text", obj.get("contents", obj.get("segment")))
    if not isinstance(text, str):
        raise InputError(path, line, "text", "missing" if text is None else "must be a string")
    doc_id = checked_id(obj[key], path, line, key)
    title = obj.get("title")
    if title is not None and not isinstance(title, str):
        raise InputError(path, line, "title", f"must be a string, got {json_type(title)}")
    return Document(doc_id, text, title or "")
