"""The TREC RAG 2026 submission rules an answer can break, counted (warnings, not errors: a run that
breaks them is still judged).

A RAG 2026 answer is ``{metadata: {team_id, narrative_id, narrative, run_id, run_desc},
references: [doc id], answer: [{text, citations: [index into references]}]}``; the rules:

* at most :data:`MAX_CITATIONS` citations on a sentence;
* every reference cited by some sentence;
* at most :data:`MAX_WORDS` words in the answer (its sentences' texts, split on white space).

Only records of that shape (``references`` and an ``answer`` list) are checked.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Container, Iterable, Optional

from judges.core.counts import (
    RAG26_ANSWERS_BREAKING,
    RAG26_ANSWERS_OVER_WORDS,
    RAG26_REFERENCES_UNCITED,
    RAG26_SENTENCES_OVER_CITATIONS,
)
from judges.formats.jsonl import iter_jsonl

MAX_CITATIONS = 3
MAX_WORDS = 1024
#: The counts, in the order the warning names them.
RULES = (RAG26_SENTENCES_OVER_CITATIONS, RAG26_REFERENCES_UNCITED, RAG26_ANSWERS_OVER_WORDS)


def check_record(record: object) -> Counter:
    """The rules ``record`` breaks (a Counter over :data:`RULES` and ``RAG26_ANSWERS_BREAKING``: the
    session's counts, :mod:`judges.core.counts`), empty
    for a record not of the RAG 2026 shape."""
    found: Counter = Counter()
    if not isinstance(record, dict):
        return found
    references, answer = record.get("references"), record.get("answer")
    if not isinstance(references, list) or not isinstance(answer, list):
        return found
    cited: set[int] = set()
    words = 0
    for sentence in answer:
        if not isinstance(sentence, dict):
            continue
        text = sentence.get("text")
        words += len(text.split()) if isinstance(text, str) else 0
        citations = sentence.get("citations")
        if isinstance(citations, list):
            if len(citations) > MAX_CITATIONS:
                found[RAG26_SENTENCES_OVER_CITATIONS] += 1
            cited.update(c for c in citations if isinstance(c, int) and not isinstance(c, bool))
            cited.update(references.index(c) for c in citations if isinstance(c, str) and c in references)
    found[RAG26_REFERENCES_UNCITED] += sum(1 for i in range(len(references)) if i not in cited)
    if words > MAX_WORDS:
        found[RAG26_ANSWERS_OVER_WORDS] += 1
    if any(found[r] for r in RULES):
        found[RAG26_ANSWERS_BREAKING] += 1
    return +found


def check_files(files: Iterable[tuple[Path, Optional[Container[int]]]]) -> Counter:
    """The rules the records of ``files`` break, summed: (path, the lines to check or ``None``: all)."""
    total: Counter = Counter()
    for path, lines in files:
        for _, record in iter_jsonl(Path(path), lines):
            total.update(check_record(record))
    return total


def warning(counts: Counter) -> Optional[str]:
    """One line for the summary, ``None`` when no rule is broken."""
    if not any(counts[r] for r in RULES):
        return None
    return (
        f"RAG 2026 rules broken by {_n(counts[RAG26_ANSWERS_BREAKING], 'answer')}: "
        f"{_n(counts[RAG26_SENTENCES_OVER_CITATIONS], 'sentence')} with more than {MAX_CITATIONS} citations, "
        f"{_n(counts[RAG26_REFERENCES_UNCITED], 'reference')} never cited, "
        f"{_n(counts[RAG26_ANSWERS_OVER_WORDS], 'answer')} over {MAX_WORDS:,} words"
    )


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
