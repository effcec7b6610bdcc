"""citejudge: a batch citation judge for TREC RAG, RAGTIME, DRAGUN and AutoJudge runs.

Notebook entry points::

    import judges
    lb = judges.read_leaderboard("output/", "sample")     # run_id, topic_id, measure, value
    lb.pivot_table(index="run_id", columns="measure", values="value").loc[:, :]
    df = judges.read_assessments("output/", "sample")     # one row per judged citation
    iv = judges.read_intervals("output/", "sample")       # per run and measure: the assessors' value, 95%
    pairs = judges.read_pairs("output/", "sample")        # per pair of runs: P(the assessors order them so)
    docs = judges.open_documents("output/", "sample")     # the cited documents, read from the inputs
    docs.evidence(df.iloc[0])                             # the document and the evidence in context
    nug = judges.read_nuggets("output/", "sample")        # --judge nugget/argue: one row per (answer, nugget)

One answer, in memory (the same judgment, citation by citation)::

    checked = judges.check_answer("Revenue rose 12%. The CEO resigned.", ["Revenue rose 12% in Q3."])
    [(s.text, s.status) for s in checked.sentences]
    judges.annotate("Revenue rose 12%. The CEO resigned.", checked)  # '...12%.[1] ...resigned.[unsupported]'

A table or config that is damaged, cut short or of another kind raises :class:`UnreadableFile`
(an :class:`InputError`: ``str(e)`` is ``path: problem``); a missing one, ``FileNotFoundError``.
"""

import importlib

from judges.version import __version__

__all__ = [
    "annotate",
    "check_answer",
    "InputError",
    "UnreadableFile",
    "open_documents",
    "read_assessments",
    "read_intervals",
    "read_leaderboard",
    "read_nuggets",
    "read_pairs",
    "__version__",
]


#: Each name below ``__version__``, imported on first use: its module, and its name there.
_LAZY = {
    "read_assessments": ("judges.formats.tables", "read_assessments"),
    "read_leaderboard": ("judges.formats.tables", "read_leaderboard"),
    "read_intervals": ("judges.formats.intervals", "read_intervals"),
    "read_pairs": ("judges.formats.intervals", "read_pairs"),
    "check_answer": ("judges.api.answer", "check_answer"),
    "annotate": ("judges.api.markers", "annotate"),
    "InputError": ("judges.core.errors", "InputError"),
    "UnreadableFile": ("judges.core.errors", "UnreadableFile"),
    "read_nuggets": ("judges.session.nuggets", "read_nuggets_table"),
    "open_documents": ("judges.formats.documents", "open_documents"),
}


def __getattr__(name: str):
    """The table readers, imported on first use: pyarrow is slow to import and most commands
    (``--help``, every ``judges.*`` import) do not need it."""
    if name not in _LAZY:
        raise AttributeError(f"module 'judges' has no attribute {name!r}")
    module, attr = _LAZY[name]
    return getattr(importlib.import_module(module), attr)
