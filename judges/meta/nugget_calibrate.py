"""``calibrate-nuggets``: the nugget model (:mod:`judges.nuggets.model`) fitted to a NIST/nuggetizer
assignment file, with its leave-one-topic-out agreement (as ``calibrate`` fits the support model)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from judges.core.errors import InputError
from judges.formats.nuggets import read_nuggets
from judges.meta.agreement import matrix_scores
from judges.nuggets.features import Encoder
from judges.nuggets.judge import topic_features
from judges.nuggets.model import NuggetModel, cross_validate, fit


def _sig(x: float) -> float:
    return float(f"{x:.8g}")


def assignment_features(path: Path | str) -> tuple[np.ndarray, np.ndarray, list[tuple[str, str, int, bool]]]:
    """Features, levels and ``(run_id, topic_id, nugget index, vital)`` of every assignment of a
    NIST/nuggetizer assignment file (its ``answer_text`` is the answer judged)."""
    found = read_nuggets(path)
    if not found.assignments:
        raise InputError(path, None, None, "no assignments (run_id and an assignment per nugget) to fit to")
    encoder = Encoder()
    rows: list[np.ndarray] = []
    levels: list[int] = []
    keys: list[tuple] = []
    for qid, bank in sorted(found.banks.items()):
        answers = sorted((run, a) for (run, topic), a in found.assignments.items() if topic == qid)
        if not answers or not bank.nuggets:
            continue
        x, _ = topic_features(encoder, bank, [a.answer_text for _, a in answers])
        rows.append(x)
        for run, a in answers:
            levels.extend(a.levels)
            keys.extend((run, qid, i, n.vital) for i, n in enumerate(bank.nuggets))
    return np.vstack(rows), np.asarray(levels), keys


def calibrate(path: Path | str, data: str = "") -> NuggetModel:
    """A nugget model fitted to the assignments of a NIST/nuggetizer file, with its leave-one-
    topic-out scores (exact agreement, kappa) in ``cross_validation``."""
    x, y, keys = assignment_features(path)
    topics = np.array([k[1] for k in keys])
    if len(set(topics.tolist())) < 2:
        raise InputError(path, None, None, "need the assignments of at least two topics (cross-validated by topic)")
    _, _, level = cross_validate(x, y, topics)
    conf = np.zeros((3, 3))
    np.add.at(conf, (y, level), 1)
    scores = matrix_scores(conf)
    cv = {
        "folds": len(set(topics.tolist())),
        "exact": _sig(scores["accuracy"]),
        "kappa": _sig(scores["kappa"]),
        "judged_mix": [_sig(float(np.mean(level == v))) for v in (2, 1, 0)],
        "human_mix": [_sig(float(np.mean(y == v))) for v in (2, 1, 0)],
    }
    training = {"data": data or Path(path).name, "pairs": int(len(y)), "topics": cv["folds"]}
    return fit(x, y, training=training, cross_validation=cv)
