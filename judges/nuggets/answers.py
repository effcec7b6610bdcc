"""An answer's text, as the nugget judge reads it: the report's sentences (answer entries) joined
by a space, as NIST's assessors read them (``answer_text`` of the TREC 2024 RAG assignments).
Character offsets of the nugget spans are into this text."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Optional

from judges.errors import InputError
from judges.formats.runs import read_reports
from judges.records import Report
from judges.runscan import run_files


def answer_text(report: Report) -> str:
    return joined(s.text for s in report.sentences)


def joined(sentences: Iterable[str]) -> str:
    """Sentences as one answer text: each stripped, the empty ones left out, joined by a space."""
    return " ".join(t for t in (s.strip() for s in sentences) if t)


def read_answers(responses: list[Path], topics: Optional[Iterable[str]] = None) -> dict[tuple[str, str], str]:
    """``{(run_id, topic_id): answer text}`` of the run files (or directories) ``responses``, for
    ``topics`` (``None``: all); a bad record raises its :class:`InputError`."""
    wanted = None if topics is None else set(topics)
    out: dict[tuple[str, str], str] = {}
    for path in run_files(responses)[0]:
        for _, rep in read_reports(path):
            if isinstance(rep, InputError):
                raise rep
            if wanted is None or rep.topic_id in wanted:
                out[(rep.run_id, rep.topic_id)] = answer_text(rep)
    return out
