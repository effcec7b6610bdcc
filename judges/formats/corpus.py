"""Reading the cited documents' texts from ``--corpus``: a JSONL(.gz) file, a directory of
them, or a docstore.

A plain file is streamed once (:mod:`judges.formats.corpusfile`); a directory (e.g. the MS MARCO
v2.1 segmented shards) or a docstore built by ``run_judge.py corpus index`` is read by
:mod:`judges.formats.docstore`, which reads only the cited ids.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from judges.core.errors import InputError
from judges.formats.corpusfile import read_corpus_file
from judges.core.records import Document

if TYPE_CHECKING:
    from judges.formats.docstore import Unresolved


def read_corpus(
    path: Path, wanted: set[str], on_error: Callable[[InputError], None]
) -> dict[str, Document | Unresolved]:
    """Return the documents of ``path`` whose id is in ``wanted``; bad lines go to ``on_error``.

    For a directory or a docstore, ids whose offset is bad map to a
    :class:`judges.formats.docstore.Unresolved` (the reason) instead of a document."""
    from judges.formats.docstore import read_store_or_dir

    from_store = read_store_or_dir(path, wanted, on_error)
    if from_store is not None:
        return from_store
    return dict(read_corpus_file(path, wanted, on_error))  # a plain file resolves every id it holds
