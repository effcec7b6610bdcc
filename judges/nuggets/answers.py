"""An answer's text, as the nugget judge reads it: the report's sentences (answer entries) joined
by a space, as NIST's assessors read them (``answer_text`` of the TREC 2024 RAG assignments).
Character offsets of the nugget spans are into this text."""

from __future__ import annotations

from typing import Iterable

from judges.core.records import Report


def answer_text(report: Report) -> str:
    return joined(s.text for s in report.sentences)


def joined(sentences: Iterable[str]) -> str:
    """Sentences as one answer text: each stripped, the empty ones left out, joined by a space."""
    return " ".join(t for t in (s.strip() for s in sentences) if t)
