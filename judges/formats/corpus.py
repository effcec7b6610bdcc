"""Reading document texts from a corpus file in one streaming pass, keeping only cited ids.

Lines are JSON objects with an id (``doc_id``, ``docid``, ``docno``, ``id`` or ``_id``), a
``text`` (or ``contents``/``segment``) and an optional ``title``. Ids are read as run files read
them (a non-empty string or integer, stripped); a cited id found twice is an error, not the
first copy silently.

A directory (e.g. the MS MARCO v2.1 segmented shards) or a docstore built by ``run_judge.py corpus
index`` is read by :mod:`judges.formats.docstore`, which reads only the cited ids.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from judges.errors import InputError
from judges.formats.jsonl import iter_jsonl
from judges.formats.runs import DOC_ID_KEYS, _id, json_type
from judges.records import Document


def read_corpus(path: Path, wanted: set[str], on_error: Callable[[InputError], None]) -> dict[str, Document]:
    """Return the documents of ``path`` whose id is in ``wanted``; bad lines go to ``on_error``.

    For a directory or a docstore, ids whose offset is bad map to a
    :class:`judges.formats.docstore.Unresolved` (the reason) instead of a document."""
    from judges.formats.docstore import read_store_or_dir

    from_store = read_store_or_dir(path, wanted, on_error)
    if from_store is not None:
        return from_store
    found: dict[str, Document] = {}
    first: dict[str, int] = {}
    for line, value in iter_jsonl(path):
        try:
            if isinstance(value, InputError):
                raise value
            doc = _parse(value, str(path), line)
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
    return found


def _parse(obj: object, path: str, line: int) -> Document:
    if not isinstance(obj, dict):
        raise InputError(path, line, None, f"a document must be a JSON object, got {json_type(obj)}")
    key = next((k for k in DOC_ID_KEYS if obj.get(k) is not None), None)
    if key is None:
        raise InputError(path, line, "doc_id", "missing (also looked for docid, docno, id, _id)")
    text = obj.get("text", obj.get("contents", obj.get("segment")))
    if not isinstance(text, str):
        raise InputError(path, line, "text", "missing" if text is None else "must be a string")
    doc_id = _id(obj[key], path, line, key)
    title = obj.get("title")
    return Document(doc_id, text, title if isinstance(title, str) else "")
