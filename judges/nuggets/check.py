"""One answer's nuggets, in memory: what ``judges.check_answer(..., nuggets=[...])`` and
``check-answer --nuggets`` give without an LLM (they judge through the engine's entry point,
:func:`judges.engine.pairs.judge_pairs`, which judges as this does and asks the LLM with ``attest=``).

The answer is judged against the nuggets by the session's own nugget judge
(:func:`judges.nuggets.judge.judge_topic`, the same encoder, kernel, features and model; the
measures of :func:`judges.nuggets.measures.answer_measures`), as one answer of a topic whose bank
is the nuggets given: a judgment depends only on the nugget, its bank (the rarity of its words
among the bank's nuggets and the query) and the answer, so the call equals the session's
judgment of the same answer text against the same bank (a test holds it to
``NAME.nuggets.parquet`` on the bundled sample).

``nuggets``: a list of nuggets (strings, ``{text, importance}`` dicts or
:class:`judges.formats.nuggets.Nugget`), or a topic's whole bank (a
:class:`~judges.formats.nuggets.NuggetBank`, or a ``{qid, query, nuggets}`` dict as a line of
NIST's ``nuggets.jsonl``): the query's words weigh a quarter (every answer repeats them), so a
bank without its query can judge a few nuggets differently from the session. A nugget it cannot
take raises :class:`ValueError` naming it (``nuggets[2]: its text is empty``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional, Sequence, Union

from judges.core.errors import InputError
from judges.formats.nuggets import MAX_NUGGET_CHARS, Nugget, NuggetBank, importance_of, read_nuggets
from judges.nuggets import features as F
from judges.nuggets.judge import NuggetJudgment, judge_topic
from judges.nuggets.measures import F1, answer_measures, f1
from judges.nuggets.model import NuggetModel, load_model

NuggetsLike = Union[NuggetBank, dict, Sequence[Union[str, dict, Nugget]]]


@dataclass(frozen=True)
class NuggetCheck:
    """The nugget judgments of one answer (the bank's order) and its nugget measures."""

    judgments: tuple[NuggetJudgment, ...]
    measures: dict[str, float]  # NUGGET_ALL, NUGGET_ALL_STRICT, NUGGET_VITAL, NUGGET_VITAL_STRICT (and NUGGET_F1)


def bank_of(nuggets: NuggetsLike) -> NuggetBank:
    """The bank of ``nuggets`` (see the module doc); a nugget it cannot take raises ValueError."""
    if isinstance(nuggets, NuggetBank):
        return nuggets
    qid, query, items = "answer", "", nuggets  # type: tuple[str, object, object]
    if isinstance(nuggets, dict):
        qid, query, items = str(nuggets.get("qid", qid)), nuggets.get("query") or "", nuggets.get("nuggets")
    if not isinstance(query, str):
        raise ValueError("nuggets: query must be a string")
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        raise ValueError("nuggets: a list of nuggets (strings or {text, importance}) or a bank {query, nuggets}")
    out = []
    for i, n in enumerate(items):
        text: object = n.text if isinstance(n, Nugget) else n
        importance = n.importance if isinstance(n, Nugget) else None
        if isinstance(n, dict):
            text, importance = n.get("text"), n.get("importance")
        if not isinstance(text, str):
            raise ValueError(f"nuggets[{i}]: a nugget is a string or a dict with text")
        if not text.strip():
            raise ValueError(f"nuggets[{i}]: its text is empty")
        if len(text) > MAX_NUGGET_CHARS:
            raise ValueError(f"nuggets[{i}]: longer than {MAX_NUGGET_CHARS:,} characters: not a nugget")
        out.append(Nugget(text.strip(), importance_of(importance)))
    return NuggetBank(qid, query.strip(), tuple(out))


@lru_cache(maxsize=4)
def _model(spec: str) -> NuggetModel:
    return load_model(spec)


def check_nuggets(
    answer: str, nuggets: NuggetsLike, precision: Optional[float] = None, model: str = "rag24"
) -> NuggetCheck:
    """Judge every nugget of ``nuggets`` in ``answer`` (the text the spans' offsets are into).
    ``precision``: the answer's ``WEIGHTED_PRECISION``, when its citations were judged: the
    measures then carry ``NUGGET_F1`` too, as ``--judge argue``'s. ``model``: the nugget model
    (``rag24``, or a file of ``calibrate-nuggets``)."""
    bank = bank_of(nuggets)
    judged = judge_topic(F.Encoder(), bank, [("answer", answer)], _model(model))[0]
    measures = answer_measures(judged)
    if precision is not None:
        measures[F1] = f1(precision, measures["NUGGET_ALL"])
    return NuggetCheck(tuple(judged), measures)


def bank_in_file(path: Path, topic: Optional[str] = None) -> NuggetBank:
    """``check-answer --nuggets FILE [--topic QID]``: the file's one bank, or ``topic``'s, read as
    the judge's ``--nuggets`` reads it (bad input: :class:`InputError` naming file, line, field)."""
    banks = read_nuggets(path).banks
    if topic is None and len(banks) > 1:
        raise InputError(path, None, "--topic", f"the file holds the banks of {len(banks)} topics: name one")
    if topic is not None and topic not in banks:
        raise InputError(path, None, "--topic", f"no bank of topic {topic!r} in the file")
    return banks[topic] if topic is not None else next(iter(banks.values()))


def table_rows(judgments: Sequence[NuggetJudgment], answer: str) -> list[tuple[str, ...]]:
    """The judgments as ``check-answer``'s table shows them: #, nugget, importance, status,
    probabilities, the spans' offsets and text (a found nugget's), the explanation."""
    rows: list[tuple[str, ...]] = []
    for j in judgments:
        found = j.assignment != "not_support"  # a missing nugget's closest words are no span that carries it
        spans = "; ".join(f"[{a}:{b}] {answer[a:b][:40]!r}" for a, b in j.spans) if found else "-"
        probabilities = f"{j.p_support:.2f} / {j.p_partial:.2f} / {j.p_not:.2f}"
        rows.append((str(j.nugget_index), j.nugget, j.importance, j.assignment, probabilities, spans, j.explanation))
    return rows
