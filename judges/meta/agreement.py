"""Agreement of the judge's decisions with human labels (:mod:`judges.formats.labels`).

The judge's decisions come from the assessments table (``NAME.assessments.parquet``), at the
labels' level:

* per citation: the judgment of ``doc_id`` cited by the sentence (a document cited twice by one
  sentence: its best judgment);
* per sentence: the sentence's citations aggregated as ``SENTENCE_SUPPORT`` does (supported iff
  any citation is supported), extended to three levels as ``WEIGHTED_RECALL`` does (else
  partially iff any citation is partial, else not supported). A sentence of a judged report
  without citations has no assessment rows: it is not supported, score 0.

Judge statuses map to labels: supported -> supported, partial -> partially, unsupported and
missing -> not_supported. The judge's continuous score is ``norm_score`` (a sentence: the best of
its citations'; a missing citation: 0).

Scores, over the labelled items that have a judgment:

* binary (positive = ``supported``; with ``positive="supported+partially"`` partial support counts
  as positive on both sides): accuracy, balanced accuracy (mean of the two recalls), macro-F1
  (mean of the two classes' F1), Cohen's kappa, and ROC-AUC of the score (the Mann-Whitney U of
  positives vs negatives, ties counting one half, from SciPy);
* three levels: accuracy, balanced accuracy (mean recall over the labels people used), macro-F1
  (over the labels either side used), Cohen's kappa (unweighted), and the confusion matrix
  (rows: human label; columns: judge).

A labelled item without a judgment (its report or citation was not judged) follows
``on_missing``: ``error`` (a one-line error naming the first such label), ``warn`` or ``skip``
(left out).
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from judges.core.errors import InputError
from judges.formats.labels import KEY, LINE, Labels
from judges.core.vocabulary import LABEL_LEVEL, LABELS, STATUS_LABEL

JUDGE_LABEL = STATUS_LABEL
_RANK = LABEL_LEVEL
_BY_RANK = {v: k for k, v in _RANK.items()}
POSITIVE = {"supported": ("supported",), "supported+partially": ("supported", "partially")}
MAX_GROUPS = 50  # extra columns with more distinct values are not broken down by default
JUDGED, SCORE = "_judged", "_score"


def decisions(assessments: pd.DataFrame, level: str) -> pd.DataFrame:
    """The judge's label and score per citation (key + doc_id) or per sentence (key)."""
    unknown = set(assessments["status"].unique()) - set(JUDGE_LABEL)
    if unknown:
        raise ValueError(f"unknown statuses in the assessments: {sorted(unknown)}")
    df = assessments.assign(
        _rank=assessments["status"].map(JUDGE_LABEL).map(_RANK),
        _s=assessments["norm_score"].fillna(0.0).astype("float64"),
    )
    key = list(KEY) + (["doc_id"] if level == "citation" else [])
    if level == "citation":
        df = df[df["doc_id"].notna()]
    out = df.groupby(key, sort=True).agg(_rank=("_rank", "max"), _s=("_s", "max")).reset_index()
    out[JUDGED] = out.pop("_rank").map(_BY_RANK)
    out[SCORE] = out.pop("_s")
    return out.astype({"run_id": str, "topic_id": str, "sentence_index": "int64"})


def join(
    labels: Labels, assessments: pd.DataFrame, on_missing: str = "error", warn: Callable[[str], None] = lambda m: None
) -> pd.DataFrame:
    """The labels with the judge's decision (``_judged``) and score (``_score``) beside each."""
    dec = decisions(assessments, labels.level)
    joined = labels.table.merge(dec, on=labels.key, how="left", validate="one_to_one")
    reports = set(map(tuple, assessments[["run_id", "topic_id"]].astype(str).drop_duplicates().itertuples(index=False)))
    in_report = np.array([(r, t) in reports for r, t in zip(joined["run_id"], joined["topic_id"])], dtype=bool)
    unjudged = joined[JUDGED].isna().to_numpy().copy()
    if labels.level == "sentence":  # a judged report's sentence without citations
        uncited = unjudged & in_report
        joined.loc[uncited, JUDGED] = "not_supported"
        joined.loc[uncited, SCORE] = 0.0
        unjudged = unjudged & ~uncited
    if unjudged.any():
        first = joined[unjudged].sort_values(LINE).iloc[0]
        where = f"run {first['run_id']!r}, topic {first['topic_id']!r}"
        if (first["run_id"], first["topic_id"]) in reports:
            fld, problem = (
                "doc_id",
                f"sentence {first['sentence_index']} of {where} has no judged citation of {first['doc_id']!r}",
            )
        else:
            fld, problem = "topic_id", f"no judged report for {where}"
        n = int(unjudged.sum())
        more = f" ({n} labels have no judgment)" if n > 1 else ""
        if on_missing == "error":
            raise InputError(
                labels.path, int(first[LINE]), fld, problem + more + " (--on-missing warn or skip leaves them out)"
            )
        if on_missing == "warn":
            warn(f"{labels.path}:{int(first[LINE])}: {fld}: {problem}{more}; left out")
        joined = joined[~unjudged]
    if joined.empty:
        raise InputError(labels.path, None, None, "no label has a judgment to compare with")
    return joined.reset_index(drop=True)


# ---------------------------------------------------------------------------------------------
# Scores from a confusion matrix
# ---------------------------------------------------------------------------------------------
def confusion(human: Iterable[str], judged: Iterable[str], classes: Iterable[str] = LABELS) -> pd.DataFrame:
    """Counts: rows human label, columns judge label, every class shown."""
    h = pd.Categorical(list(human), categories=list(classes))
    j = pd.Categorical(list(judged), categories=list(classes))
    table = pd.crosstab(h, j, dropna=False).reindex(index=list(classes), columns=list(classes), fill_value=0)
    table.index.name, table.columns.name = "human", "judge"
    return table.astype("int64")


def _div(a: float, b: float) -> float:
    return a / b if b else float("nan")


def matrix_scores(c: np.ndarray) -> dict[str, float]:
    """accuracy, balanced accuracy, macro-F1 and Cohen's kappa of a confusion matrix (rows: truth)."""
    c = np.asarray(c, dtype=np.float64)
    n = c.sum()
    rows, cols, diag = c.sum(axis=1), c.sum(axis=0), np.diag(c)
    accuracy = _div(diag.sum(), n)
    used = rows > 0
    balanced = float(np.mean(diag[used] / rows[used])) if used.any() else float("nan")
    seen = (rows + cols) > 0
    macro_f1 = float(np.mean(2 * diag[seen] / (rows[seen] + cols[seen]))) if seen.any() else float("nan")
    expected = _div(float(rows @ cols), n * n)
    kappa = _div(accuracy - expected, 1.0 - expected) if n > 0 and expected < 1.0 else float("nan")
    return {"accuracy": float(accuracy), "balanced_accuracy": balanced, "macro_f1": macro_f1, "kappa": float(kappa)}


def roc_auc(scores: Sequence[float] | np.ndarray, positive: Sequence[bool] | np.ndarray) -> float:
    """P(score of a random positive > that of a random negative), ties one half; NaN without both."""
    s = np.asarray(scores, dtype=np.float64)
    p = np.asarray(positive, dtype=bool)
    pos, neg = s[p], s[~p]
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    u = stats.mannwhitneyu(pos, neg, alternative="two-sided", method="asymptotic").statistic
    return float(u / (len(pos) * len(neg)))


def scores(human: Sequence[str], judged: Sequence[str], score: Sequence[float], positive: str = "supported") -> dict:
    """Every agreement score of one set of labelled items (see the module docstring)."""
    pos_labels = POSITIVE[positive]
    h = np.isin(np.asarray(human, dtype=object), pos_labels)
    j = np.isin(np.asarray(judged, dtype=object), pos_labels)
    binary = confusion(
        np.where(h, "positive", "negative"), np.where(j, "positive", "negative"), ("positive", "negative")
    )
    three = confusion(human, judged)
    out: dict = {"n": int(len(h)), "positives": int(h.sum())}
    out.update(matrix_scores(binary.to_numpy()))
    out["auc"] = roc_auc(score, h)
    out.update({f"{k}_3": v for k, v in matrix_scores(three.to_numpy()).items()})
    for hl in LABELS:
        for jl in LABELS:
            out[f"confusion.{hl}.{jl}"] = int(three.loc[hl, jl])
    return out


def default_breakdown(labels: Labels) -> list[str]:
    """Extra columns with at most :data:`MAX_GROUPS` distinct values."""
    return [c for c in labels.extras if labels.table[c].nunique(dropna=False) <= MAX_GROUPS]


def agreement_table(joined: pd.DataFrame, by: Sequence[str], positive: str = "supported") -> pd.DataFrame:
    """One row for all labels, then one per value of each ``by`` column (sorted; null shown as "null")."""
    rows = [{"by": "", "group": "all", **scores(joined["label"], joined[JUDGED], joined[SCORE], positive)}]
    for col in by:
        values = joined[col].astype(object).where(joined[col].notna(), "null")
        for value in sorted(values.unique(), key=str):
            part = joined[values == value]
            rows.append({"by": col, "group": str(value), **scores(part["label"], part[JUDGED], part[SCORE], positive)})
    return pd.DataFrame(rows)
