"""What the intervals of :mod:`judges.scores.intervals` rest on, in words: the labelled data the
judge's errors were learned on, and how that data stands to the session's topics. The intervals'
``made`` column carries it (:func:`learned_on`); the summary and the report read it back
(:func:`basis`) to say "not on these topics" only when it is true: when the model was fitted on
some of the session's topics, it has seen them, and its intervals are narrower than they would be
on new topics."""

from __future__ import annotations

from typing import Sequence

SEEN = " of these topics among them"  # made's words when the errors were learned in part on the session's topics


def learned_on(source: str, learned_topics: Sequence[str], topics: Sequence[str]) -> str:
    """``made``'s words for the model's part: where its errors were learned (``source``, on
    ``learned_topics`` when recorded) and, when some of the session's ``topics`` are among those,
    how many: ``model (errors learned on rag24-support; 14 of these topics among them)``."""
    if not source:
        return "model"
    seen = len(set(learned_topics) & {str(t) for t in topics})
    return f"model (errors learned on {source}" + (f"; {seen}{SEEN}" if seen else "") + ")"


def basis(made: str, n_topics: int) -> tuple[str, str]:
    """From a ``made`` value: where the errors were learned (``errors learned on rag24-support``,
    or ``the model's own figures``) and how that stands to the session's ``n_topics`` topics:
    ``not on these topics``, or, when the errors were learned in part on them, how many, and that
    the intervals are then narrower than they would be on new topics (the model has seen them)."""
    first = made.split(" and ")[0].split(", with")[0]
    if not first.startswith("model ("):
        return "the model's own figures", "not on these topics"
    inner = first[len("model (") : -1]
    where, _, seen = inner.partition("; ")
    if not seen:
        return where, "not on these topics"
    k = seen[: -len(SEEN)] if seen.endswith(SEEN) else seen
    return where, (
        f"{k} of these {n_topics} topics among them (the model was fitted on them: narrower than on new topics)"
    )
