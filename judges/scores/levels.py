"""Per citation, the support levels people would give (none, partial, full) as the judge's support
model and the LLM's answer say, and what is known of them (a label, a missing document): the
distribution every variance and labelled estimate of :mod:`judges.scores` starts from.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from judges.attest.plan import weight_variance
from judges.core.vocabulary import LABEL_LEVEL, STATUS_GRADE

UNKNOWN = (0.5, 0.0, 0.5)  # levels of a citation without probabilities: none or full (weight variance 0.25)
# an assessor's label: a status name (the assessments' human_label) or a label file's word
LEVEL_OF_LABEL = {**LABEL_LEVEL, **STATUS_GRADE}


# -- per citation --------------------------------------------------------------------------------
def level_distribution(
    p_any,
    p_full,
    likelihood=None,
    has_probabilities=None,
    missing=None,
    label_level=None,
) -> np.ndarray:
    """Per citation, the probabilities of none, partial and full support people would give (rows
    of an ``(n, 3)`` array): the support model's (``p_any``, ``p_full``; ``likelihood`` of an
    LLM's answer under each level, rows of 1 where none, applied by Bayes' rule), :data:`UNKNOWN`
    where there are no probabilities (uniform before an answer), none for ``missing``, and the
    label's level where ``label_level >= 0``."""
    p_any = np.asarray(p_any, dtype=np.float64)
    n = len(p_any)
    has = np.ones(n, dtype=bool) if has_probabilities is None else np.asarray(has_probabilities, dtype=bool)
    safe_any = np.where(has, p_any, 0.0)
    safe_full = np.minimum(np.where(has, np.asarray(p_full, dtype=np.float64), 0.0), safe_any)
    q = np.stack([1.0 - safe_any, safe_any - safe_full, safe_full], axis=1)
    lik = np.ones((n, 3)) if likelihood is None else np.asarray(likelihood, dtype=np.float64)
    answered = np.any(lik != 1.0, axis=1)
    q[~has] = np.where(answered[~has, None], 1.0 / 3.0, np.array(UNKNOWN))
    posterior = q * lik
    total = posterior.sum(axis=1)
    q = np.where(total[:, None] > 0.0, posterior / np.where(total > 0.0, total, 1.0)[:, None], q)
    if missing is not None:
        q[np.asarray(missing, dtype=bool)] = (1.0, 0.0, 0.0)
    if label_level is not None:
        lv = np.asarray(label_level)
        known = lv >= 0
        q[known] = np.eye(3)[lv[known]]
    return q


def weight_variances(q: np.ndarray, full_ruled_out) -> np.ndarray:
    """``Var(w)`` of each citation's TREC weight under its levels ``q`` (:func:`level_distribution`),
    full weighing 0.5 where ``full_ruled_out`` (:func:`judges.attest.plan.weight_variance`)."""
    return np.maximum(weight_variance(q[:, 1] + q[:, 2], q[:, 2], np.asarray(full_ruled_out, dtype=bool)), 0.0)


def capped_levels(q: np.ndarray, full_ruled_out) -> np.ndarray:
    """``q`` with full support moved to partial where the grounding cap rules it out."""
    out = q.copy()
    ruled = np.asarray(full_ruled_out, dtype=bool)
    out[ruled, 1] += out[ruled, 2]
    out[ruled, 2] = 0.0
    return out


def likelihoods(answers: list, p_yes: list, error: float) -> np.ndarray:
    """Per citation, the likelihood of the LLM's answer under each level (rows of 1 where none)."""
    from judges.attest.answers import likelihood

    out = np.ones((len(answers), 3))
    for i, (a, p) in enumerate(zip(answers, p_yes)):
        if a is not None:
            lik = likelihood(a, p, error)
            if lik is not None:
                out[i] = lik
    return out


def column(table: pa.Table, name: str, order) -> pa.Array:
    """``table``'s column ``name`` in ``order`` (None: as it is), one chunk."""
    found = table.column(name) if order is None else pc.take(table.column(name), order)
    return found.combine_chunks()


class Levels(NamedTuple):
    """Per citation (rows in order): what :func:`levels` found."""

    run: pa.Array
    topic: pa.Array
    sentence_index: np.ndarray
    status: pa.Array
    weight: np.ndarray
    missing: np.ndarray
    q: np.ndarray  # levels people would give, the label's where it is known
    free: np.ndarray  # levels without any label (the judge's view)
    ruled: np.ndarray  # full ruled out by the grounding cap (where not known)
    uncertain: np.ndarray  # neither missing nor known
    label_level: np.ndarray  # the label's level, -1 where none
    capped: np.ndarray  # full ruled out by the grounding cap (every citation)


def levels(table: pa.Table, order, cap: Sequence[str], answer_error: float, random_labels=None) -> Levels:
    """Per citation of ``table`` in ``order``: the levels people would give, and what is known;
    ``random_labels`` (rows in order) marks labels drawn at random, which the judge's error model
    does not take as known (:func:`judges.scores.labelled.labelled_estimate` uses them)."""
    n = table.num_rows
    run = column(table, "run_id", order)
    topic = column(table, "topic_id", order)
    sentence_index = column(table, "sentence_index", order).to_numpy(zero_copy_only=False)
    status = column(table, "status", order)
    weight = pc.fill_null(column(table, "weight", order), 0.0).to_numpy(zero_copy_only=False)
    missing = pc.equal(status, "missing").to_numpy(zero_copy_only=False)
    p_any_col, p_full_col = column(table, "p_any", order), column(table, "p_full", order)
    has = (pc.is_valid(p_any_col).to_numpy(zero_copy_only=False)) & pc.is_valid(p_full_col).to_numpy(
        zero_copy_only=False
    )
    p_any = pc.fill_null(p_any_col, 0.0).to_numpy(zero_copy_only=False)
    p_full = pc.fill_null(p_full_col, 0.0).to_numpy(zero_copy_only=False)
    ruled = np.zeros(n, dtype=bool)
    for kind in cap:
        lengths = pc.fill_null(pc.list_value_length(column(table, f"{kind}_missing", order)), 0)
        ruled |= lengths.to_numpy(zero_copy_only=False) > 0
    answers = column(table, "llm_answer", order)
    lik = None
    if answers.null_count < n:
        lik = likelihoods(answers.to_pylist(), column(table, "llm_p_yes", order).to_pylist(), answer_error)
    label_level = np.full(n, -1)
    if "human_label" in table.column_names:
        labels = column(table, "human_label", order)
        if labels.null_count < n:
            label_level = np.array([LEVEL_OF_LABEL.get(v, -1) if v is not None else -1 for v in labels.to_pylist()])
    known = label_level.copy()
    if random_labels is not None:
        known[np.asarray(random_labels, dtype=bool)] = -1
    free = level_distribution(p_any, p_full, lik, has, missing)
    q = level_distribution(p_any, p_full, lik, has, missing, known)
    uncertain = ~missing & (known < 0)
    return Levels(
        run, topic, sentence_index, status, weight, missing, q, free, ruled & uncertain, uncertain, label_level, ruled
    )
