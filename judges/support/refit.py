"""Fit to the track at hand (``--refit-support``): the support model's class prior (its two
intercepts, :func:`judges.support.model.recalibrated`) re-fitted on a session's labelled citations,
so that a track's stricter or looser assessors move the other citations too."""

from __future__ import annotations

from typing import Optional

import numpy as np

from judges.support.model import RECALIBRATION_PRIOR, SupportModel, recalibrated
from judges.core.vocabulary import STATUS_GRADE as STATUS_LEVEL  # a status's support level (0/1/2) is its grade

MIN_REFIT_LABELS = 10  # fewer labelled citations with support features: the model is left as it is


def refit_to_labels(
    table, model: SupportModel, probabilities: Optional[dict] = None
) -> tuple[Optional[SupportModel], dict]:
    """``model`` re-fitted on the labelled citations of a judged session (``table``: its
    assessments, a pyarrow table, judged with ``--labels``: ``human_label`` set where labelled),
    and what was done (for the summary and ``config.yml``). Only citations with the model's
    features count (a resolved document in the sentence's script); a document cited twice by one
    sentence counts once. ``probabilities``: the probability a plan drew each label with (keys
    run, topic, sentence index, doc id): a label weighs its inverse, so the labels a plan chose
    for their uncertainty stand for the session as drawn at random would. ``(None, record)`` when
    fewer than :data:`MIN_REFIT_LABELS` labels count."""
    keys = ["run_id", "topic_id", "sentence_index", "doc_id"]
    cols = [f"f_{f}" for f in model.features]
    t = table.select(keys + ["human_label"] + cols).to_pandas()
    t = t[t["human_label"].notna() & t[cols].notna().all(axis=1)].drop_duplicates(keys)
    record: dict = {"labels": int(len(t)), "prior_labels": RECALIBRATION_PRIOR}
    if len(t) < MIN_REFIT_LABELS:
        record["done"] = False
        record["why"] = f"fewer than {MIN_REFIT_LABELS} labelled citations with support features"
        return None, record
    probabilities = probabilities or {}
    weights = np.array([1.0 / probabilities.get((r, tp, int(i), d), 1.0) for r, tp, i, d in zip(*(t[k] for k in keys))])
    y = t["human_label"].map(STATUS_LEVEL).to_numpy(dtype=np.int64)
    refit = recalibrated(model, t[cols].to_numpy(dtype=np.float64), y, weights)
    record["done"] = True
    record["p_any_intercept"] = [model.any_intercept, refit.any_intercept]
    record["p_full_intercept"] = [model.full_intercept, refit.full_intercept]
    return refit, record
