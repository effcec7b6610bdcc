"""The session's score stage: from what was judged to the numbers the output set holds, before
anything is written. :func:`score` takes the merged per-report measures and the assessments
table, with the labels the session read once (:class:`judges.formats.labels.LabelFiles`, as
:func:`judges.session.pipeline.load` read them) and their inclusion probabilities, and the
support model loaded once; it returns a :class:`Scores` record: the leaderboard's rows (per topic
and ``all``), the (run, topic) pairs ``on_missing`` filled, and every interval and run pair
(:mod:`judges.scores.intervals`). :mod:`judges.session.writer` only writes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, Optional, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from judges.core.config import Workflow
from judges.core.measures import MEASURE_NAMES
from judges.formats import tables
from judges.scores.leaderboard import leaderboard_rows

if TYPE_CHECKING:
    from judges.formats.labels import LabelFiles
    from judges.session.stages import Loaded
    from judges.session.spec import Inputs


class Scores(NamedTuple):
    """What a session scored, for the writer: the leaderboard's rows ``(run, topic, measure,
    value)`` (per topic, then ``all``), the (run, topic) pairs without a report that ``on_missing``
    filled, the intervals (rows of :data:`judges.formats.intervals.INTERVAL_COLUMNS`) and run pairs
    (:data:`judges.formats.intervals.PAIR_COLUMNS`), and the order that sorts the assessments by
    run, topic, sentence and citation (the intervals read them in it; the writer writes them in it)."""

    leaderboard: tuple[tuple, ...]
    filled: tuple[tuple[str, str], ...]
    intervals: tuple[tuple, ...]
    pairs: tuple[tuple, ...]
    order: Any  # pa.Array of row indices


def assessment_order(table: pa.Table) -> pa.Array:
    """The indices that sort the assessments by run, topic, sentence and citation."""
    return pc.sort_indices(table, sort_keys=tables.ASSESSMENT_SORT)


def answer_error_used(workflow: Workflow, attest: Optional[dict]) -> float:
    """The LLM's error rate the citations' answers were weighed with: the one estimated from them
    (``attest.answer_error: estimate``, as the attestation figures report it) or the workflow's."""
    found = (attest or {}).get("answer_error")
    return found["estimate"] if found is not None else workflow.attest.assumed_error


def label_probabilities(labels: Optional["LabelFiles"]) -> dict[tuple, float]:
    """Per labelled citation (run, topic, sentence index, doc id), the probability the plan drew
    it with (a citation's label is its first file's); empty without labels."""
    from judges.formats.labels import citation_probabilities

    probabilities: dict[tuple, float] = {}
    for found in labels.files if labels is not None else ():
        for key, p in citation_probabilities(found).items():
            probabilities.setdefault(key, p)
    return probabilities


def score(
    inputs: "Inputs",
    workflow: Workflow,
    loaded: "Loaded",
    per_topic: dict,
    table: pa.Table,
    measures: Optional[tuple[str, ...]] = None,
    pairs: Sequence = (),
    attest: Optional[dict] = None,
) -> Scores:
    """Score a judged session: ``loaded`` what the session read (the first pass over the runs, the
    topics, the ``--labels`` files as read once: None without), ``per_topic`` each report's
    measures (the other kinds' merged in), ``table`` the assessments, ``measures`` the
    leaderboard's (default the registry's), ``pairs`` the other kinds of pair judged
    (:class:`judges.session.stages.PairOutputs`: their measures' intervals too), ``attest`` the
    attestation's figures (the LLM's error rate the weights were updated with)."""
    from judges.scores import intervals
    from judges.support.judges import is_probabilistic
    from judges.support.model import load_model

    labels, scan, topics = loaded.labels, loaded.scan, loaded.topics
    on_missing = workflow.leaderboard.on_missing
    rows = leaderboard_rows(per_topic, scan.runs, list(topics), on_missing, *([measures] if measures else []))
    filled = [(r, t) for r in sorted(scan.runs) for t in sorted(topics) if t not in scan.answered[r]]
    order = assessment_order(table)
    wf = workflow
    model = load_model(wf.support.model, inputs.workflow_path) if is_probabilistic(wf.support.judge) else None
    cap, error = wf.grounding.cap, answer_error_used(workflow, attest)
    reports = intervals.report_variances(table, order, per_topic, cap, error)
    draws, rest = None, None
    if labels is not None:  # with the probabilities the plan drew them with
        draws = intervals.label_draws(table, order, label_probabilities(labels), cap, error, len(topics))
        if draws is not None:
            rest = intervals.report_variances(table, order, per_topic, cap, error, draws.random_labels)
    spreads = intervals.session_spreads(model)
    # the citation measures the leaderboard holds (none with --judge nugget: no rows, no pairs of them)
    citation = [m for m in measures or MEASURE_NAMES if m in MEASURE_NAMES]
    found = intervals.Trust([], [])
    if citation:
        found = intervals.trust(
            per_topic, scan.runs, list(topics), reports, spreads, citation, draws=draws, rest_reports=rest
        )
    for kind in pairs:
        more = kind.trust(per_topic, scan.runs, list(topics), reports, measures or (), labels, spreads)
        found = intervals.Trust(found.intervals + more.intervals, found.pairs + more.pairs)
    return Scores(tuple(rows), tuple(filled), tuple(found.intervals), tuple(found.pairs), order)
