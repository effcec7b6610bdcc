"""Fit the support model to human labels, and score it by cross-validation grouped by topic.

The features come from a judging run's assessments table (every run records them, whatever its
support judge), the labels from a file in the ``agreement`` format with ``doc_id`` (one label per
judged citation: ``supported`` / ``partially`` / ``not_supported``).

Scores (:func:`agreement`), computed over the labelled citations:

* ``run_tau``: Kendall tau-b between the runs' judged and human weighted precision (per report
  the mean weight of its labelled citations, full 1, partial 0.5, none 0; per run the mean over
  the topics it has labels for; the TREC 2024 RAG measure);
* ``run_tau_expected`` (with probabilities): the same with each judged citation weighing its
  expected weight (:func:`judges.core.measures.expected_weight`), as the leaderboard weighs a status
  the model decided (``leaderboard.weights: expected``, the default);
* ``topic_tau``: per topic, Kendall tau-b over the runs of that topic's report scores, averaged
  over the topics with at least three runs;
* ``exact`` (three-level agreement), ``kappa`` (Cohen's, three levels), ``auc_full`` (ROC-AUC of
  P(full) for fully supported vs the rest), ``auc_any`` (of P(any) for any support vs none), and
  the share of each status beside the humans'.

The model file also records the spreads of the judge's errors that independence per citation
misses (:func:`spreads`, :func:`judges.scores.intervals.fit_spreads`): one shared by a report's
citations, one by a run's, fitted to the cross-validated residuals; the leaderboard's intervals
use them.

*Fit to the track at hand* (:func:`refit_to_labels`): when a session brings this track's labels
(``--labels``), the support model's two intercepts (its class prior) are re-fitted on the labelled
citations (:func:`judges.support.model.recalibrated`), so that stricter or looser assessors than
rag24-support's move the statuses of the citations not labelled; ``bench/support_calibration.py``
measures it.

Cross-validation (:func:`cross_validate`): topics are split into folds (one topic per fold for
up to 20 topics, else 10 folds dealt round-robin in sorted topic order); each fold is scored by
a model fitted on the other folds only, so no topic is both trained on and scored.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from judges.core.errors import InputError
from judges.meta.agreement import matrix_scores, roc_auc
from judges.meta.correlation import kendall
from judges.formats.labels import Labels
from judges.core.measures import expected_weight
from judges.core.vocabulary import LABEL_LEVEL as LEVEL, STATUS_GRADE
from judges.core.vocabulary import FEATURES
from judges.support.model import SupportModel, fit, levels

STATUS_LEVEL = STATUS_GRADE  # a status's support level (0/1/2) is its qrels grade
FEATURE_COLUMNS = [f"f_{name}" for name in FEATURES]
MAX_SINGLE_TOPIC_FOLDS = 20
FOLDS = 10


def labelled_features(assessments: pd.DataFrame, labels: Labels) -> pd.DataFrame:
    """One row per labelled citation that was judged with a resolvable document: its keys, the
    human level ``y`` (0/1/2) and the feature columns."""
    if labels.level != "citation":
        raise InputError(
            labels.path, None, "doc_id", "calibration needs one label per citation (a doc_id on every line)"
        )
    keys = ["run_id", "topic_id", "sentence_index", "doc_id"]
    extra = [c for c in ("p_any", "p_full", "weight") if c in assessments.columns]
    a = assessments[assessments["f_norm_score"].notna()][keys + ["status", *extra] + FEATURE_COLUMNS].copy()
    a = a.astype({"run_id": str, "topic_id": str, "sentence_index": "int64", "doc_id": str})
    a = a.drop_duplicates(keys)  # a document cited twice by one sentence: its first citation
    t = labels.table[keys + ["label"]].astype(
        {"run_id": str, "topic_id": str, "sentence_index": "int64", "doc_id": str}
    )
    joined = t.merge(a, on=keys, how="inner", validate="one_to_one")
    if joined.empty:
        raise InputError(labels.path, None, None, "no label matches a judged citation with a resolvable document")
    joined["y"] = joined.pop("label").map(LEVEL).astype("int64")
    return joined.sort_values(keys, kind="stable").reset_index(drop=True)


def folds(topics: np.ndarray) -> list[np.ndarray]:
    """Topic groups, each scored by a model trained on the others."""
    unique = sorted(set(topics.tolist()))
    if len(unique) <= MAX_SINGLE_TOPIC_FOLDS:
        return [np.array([t]) for t in unique]
    return [np.array(unique[k::FOLDS]) for k in range(FOLDS)]


def cross_validate(
    table: pd.DataFrame, features: tuple[str, ...] = FEATURES
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Out-of-fold ``(P(any), P(full), level)`` for every row of ``table``, folds grouped by
    topic; the level at each fold model's own thresholds (:func:`judges.support.model.mix_thresholds`)."""
    x = table[[f"f_{f}" for f in features]].to_numpy(dtype=np.float64)
    y = table["y"].to_numpy()
    topics = table["topic_id"].to_numpy()
    p_any = np.zeros(len(table))
    p_full = np.zeros(len(table))
    level = np.zeros(len(table), dtype=np.int64)
    for group in folds(topics):
        test = np.isin(topics, group)
        model = fit(x[~test], y[~test], {}, features=features)
        p_any[test], p_full[test] = model.probabilities(x[test])
        level[test] = levels(p_any[test], p_full[test], model.p_supported, model.p_partial)
    return p_any, p_full, level


def _report_scores(table: pd.DataFrame, weights: np.ndarray) -> pd.Series:
    """Weighted precision per (run, topic) over the labelled citations, from their ``weights``."""
    return pd.Series(weights, index=table.index).groupby([table["run_id"], table["topic_id"]]).mean()


def agreement(
    table: pd.DataFrame,
    level: np.ndarray,
    p_any: Optional[np.ndarray] = None,
    p_full: Optional[np.ndarray] = None,
    weights: Optional[np.ndarray] = None,
) -> dict:
    """Agreement of judged levels (0/1/2; and probabilities, for the ROC-AUCs) with ``table.y``;
    the taus from the citations' ``weights`` in the judge's weighted precision (default: their
    levels' status weights)."""
    y = table["y"].to_numpy()
    level = np.asarray(level)
    human = _report_scores(table, y / 2.0)
    judged = _report_scores(table, level / 2.0 if weights is None else np.asarray(weights, dtype=np.float64))
    runs_h = human.groupby(level=0).mean()
    runs_j = judged.groupby(level=0).mean().reindex(runs_h.index)
    topic_taus = []
    for _, h in human.groupby(level=1):
        if len(h) >= 3:
            tau = kendall(h.to_numpy(), judged.loc[h.index].to_numpy())
            if tau == tau:
                topic_taus.append(tau)
    confusion = np.zeros((3, 3))
    np.add.at(confusion, (y, level), 1)
    three = matrix_scores(confusion)
    out: dict[str, object] = {
        "citations": int(len(y)),
        "runs": int(len(runs_h)),
        "topics": int(table["topic_id"].nunique()),
        "run_tau": round(float(kendall(runs_h.to_numpy(), runs_j.to_numpy())), 4),
        "topic_tau": round(float(np.mean(topic_taus)), 4) if topic_taus else float("nan"),
        "exact": round(three["accuracy"], 4),
        "kappa": round(three["kappa"], 4),
    }
    if p_any is not None and p_full is not None:
        out["auc_full"] = round(roc_auc(p_full, y == 2), 4)
        out["auc_any"] = round(roc_auc(p_any, y >= 1), 4)
    out["judged_mix"] = {
        k: round(float(np.mean(level == v)), 4) for k, v in (("supported", 2), ("partial", 1), ("unsupported", 0))
    }
    out["human_mix"] = {
        k: round(float(np.mean(y == v)), 4) for k, v in (("supported", 2), ("partial", 1), ("unsupported", 0))
    }
    return out


def calibrate(table: pd.DataFrame, data: str, features: tuple[str, ...] = FEATURES) -> SupportModel:
    """A model fitted on every row of ``table``, recording its training data and its scores by
    topic-grouped cross-validation (each fold at its own model's default thresholds); the
    distribution of expected errors it records is that of the cross-validated probabilities (what
    the model makes of topics it was not fitted on) at its default thresholds."""
    if table["topic_id"].nunique() < 2:
        raise ValueError("calibration needs labels on at least two topics (cross-validation is grouped by topic)")
    p_any, p_full, level = cross_validate(table, features)
    cv = agreement(table, level, p_any, p_full)
    expected = agreement(table, level, weights=expected_weight(p_any, p_full))["run_tau"]
    cv = {"grouping": "topic", "folds": len(folds(table["topic_id"].to_numpy())), **cv, "run_tau_expected": expected}
    y = table["y"].to_numpy()
    training = {
        "data": data,
        "citations": int(len(table)),
        "topics": int(table["topic_id"].nunique()),
        "topic_ids": sorted(str(t) for t in table["topic_id"].unique()),  # to tell the session's topics from them
        "runs": int(table["run_id"].nunique()),
        "labels": {k: int(np.sum(y == v)) for k, v in LEVEL.items()},
    }
    x = table[[f"f_{f}" for f in features]].to_numpy(dtype=np.float64)
    model = fit(x, y, training, cv, features, unseen=(p_any, p_full))
    model.intervals = spreads(table, p_any, p_full)
    return model


def spreads(table: pd.DataFrame, p_any: np.ndarray, p_full: np.ndarray) -> dict:
    """The spreads of the judge's errors shared by a report's and a run's citations
    (:func:`judges.scores.intervals.fit_spreads`), from the residuals of the labelled citations' human
    weights minus their expected weights under cross-validated ``p_any``, ``p_full`` (the
    grounding cap, as by default, ruling full support out where the document lacks a number or
    entity of the sentence)."""
    from judges.scores.intervals import fit_spreads, level_distribution, weight_variances

    ruled = (table["f_numbers_missing"].to_numpy() > 0) | (table["f_entities_missing"].to_numpy() > 0)
    q = level_distribution(p_any, p_full)
    weight = expected_weight(p_any, np.minimum(p_full, p_any), full_weight=np.where(ruled, 0.5, 1.0))
    fitted = fit_spreads(
        table["run_id"].to_numpy(),
        table["topic_id"].to_numpy(),
        table["y"].to_numpy() / 2.0,
        weight,
        weight_variances(q, ruled),
    )
    return {
        **fitted,
        "fitted_on": (
            "residuals human minus judge weighted precision per labelled report, the judge's probabilities "
            "cross-validated by topic, grounding cap on numbers and entities"
        ),
        "method": "restricted maximum likelihood, grid step 0.0025; bias recorded, not applied",
    }
