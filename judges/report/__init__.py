"""The static HTML report of a judge's output directory (``run_judge.py report``) and the
notebook helper that returns a citation's document and evidence in context.

* :func:`build_report` (:mod:`judges.report.build`): leaderboard, plots, run and topic pages;
* :func:`open_documents` (:mod:`judges.formats.documents`): the cited documents, for notebooks.
"""

from judges.formats.documents import DocumentStore, Evidence, open_documents


def build_report(*args, **kwargs):
    from judges.report.build import build_report as build

    return build(*args, **kwargs)


__all__ = ["DocumentStore", "Evidence", "build_report", "open_documents"]
