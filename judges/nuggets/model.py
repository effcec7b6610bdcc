"""The nugget model: an ordinal logistic regression over the nugget features, fitted like the
support model's (:mod:`judges.support.model`, :func:`~judges.support.model.fit_logistic`) and
written in its file shape (two regressions, ``p_any`` and ``p_full``, here with equal
coefficients).

* ``P(full)`` = P(the answer contains the nugget): a regression fitted to support against the rest;
* ``P(any)`` = P(it at least partially contains it): the same coefficients with an intercept of
  its own, fitted to support or partial against not (an ordinal, proportional-odds model: the
  partial band is the gap between the two intercepts, so ``P(any) >= P(full)`` everywhere).

Two independent regressions (the first version) fitted the rare partial labels (4% of NIST's)
with a second set of coefficients that did not carry over to unseen topics: left out by topic,
``P(any)`` averaged 0.52 against the assessors' 0.45, and ``NUGGET_ALL`` ranked runs worse than
``NUGGET_ALL_STRICT`` (``bench/nuggets.py`` prints both fits).

The status is ``support`` at ``P(full) >= p_supported``, else ``partial_support`` at ``P(any)
>= p_partial``, else ``not_support``; the file's thresholds judge its training pairs in the mix
the assessors labelled them (:func:`judges.support.model.mix_thresholds`). Fitted by
:func:`fit` (deterministic: the same labels and features give the same file); ``calibrate``
(:mod:`judges.meta.nugget_calibrate`) fits one to a NIST/nuggetizer assignment file
(``run_judge.py calibrate-nuggets``, then ``--nugget-model FILE``). Shipped:
``judges/nuggets/models/rag24.json``, fitted to NIST's TREC 2024 RAG assignments of
``rag24-nuggets`` (``bench/nuggets.py --write-model``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from judges.core.errors import InputError
from judges.nuggets.features import FEATURES
from judges.support.model import TwoLogits, fit_logistic, levels, logits_dict, logits_from_dict, mix_thresholds, sigmoid

FORMAT = "citejudge-nugget-model"
FORMAT_VERSION = 1
BUILTIN = "rag24"
L2 = 1.0


def _sig(x: float) -> float:
    return float(f"{x:.8g}")


@dataclass
class NuggetModel(TwoLogits):
    p_supported: float = 0.5
    p_partial: float = 0.5
    training: dict = field(default_factory=dict)
    cross_validation: dict = field(default_factory=dict)
    source: str = ""

    def probabilities(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(P(any), P(full))`` for rows of :data:`~judges.nuggets.features.FEATURES`."""
        cols = [FEATURES.index(f) for f in self.features]
        z = (np.asarray(x, dtype=np.float64)[:, cols] - self.mean) / self.scale
        # row by row (not a matrix product, whose rounding depends on the rows beside): a pair's
        # probabilities do not change with the other pairs judged with it
        p_any = sigmoid(self.any_intercept + (z * self.any_coef).sum(axis=1))
        p_full = np.minimum(sigmoid(self.full_intercept + (z * self.full_coef).sum(axis=1)), p_any)
        return p_any, p_full

    def levels(self, p_any: np.ndarray, p_full: np.ndarray) -> np.ndarray:
        return levels(p_any, p_full, self.p_supported, self.p_partial)

    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "features": list(self.features),
            **logits_dict(self),
            "thresholds": {"p_supported": _sig(self.p_supported), "p_partial": _sig(self.p_partial)},
            "training": self.training,
            "cross_validation": self.cross_validation,
        }

    def write(self, path: Path) -> None:
        from judges.formats.atomic import atomic_text

        with atomic_text(Path(path)) as f:
            f.write(json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def from_dict(cls, data: dict, source: str = "") -> "NuggetModel":
        if data.get("format") != FORMAT or data.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"not a {FORMAT} file of version {FORMAT_VERSION}")
        return cls(
            *logits_from_dict(data, FEATURES),
            float(data["thresholds"]["p_supported"]),
            float(data["thresholds"]["p_partial"]),
            data.get("training", {}),
            data.get("cross_validation", {}),
            source,
        )


def load_model(spec: str = BUILTIN) -> NuggetModel:
    """The built-in model (``rag24``) or a model file written by ``calibrate-nuggets`` (a path)."""
    if "/" not in spec and not spec.endswith(".json"):
        try:
            text = resources.files("judges.nuggets.models").joinpath(f"{spec}.json").read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InputError("nugget model", None, None, f"no built-in nugget model {spec!r} ({BUILTIN})") from None
        source = f"builtin:{spec}"
    else:
        try:
            text = Path(spec).read_text(encoding="utf-8")
        except OSError as e:
            raise InputError(spec, None, None, f"cannot read nugget model: {e.strerror}") from None
        source = spec
    try:
        return NuggetModel.from_dict(json.loads(text), source)
    except (ValueError, KeyError, TypeError) as e:
        raise InputError(source, None, None, f"invalid nugget model: {e}") from None


def fit(
    x: np.ndarray,
    labels: np.ndarray,
    features: tuple[str, ...] = FEATURES,
    training: Optional[dict] = None,
    cross_validation: Optional[dict] = None,
    l2: float = L2,
) -> NuggetModel:
    """Fit both regressions to rows of :data:`FEATURES` and levels 0 (not), 1 (partial), 2
    (support); the thresholds give the training pairs the labels' mix."""
    x = np.asarray(x, dtype=np.float64)
    labels = np.asarray(labels)
    if len(labels) < 2 or len(set(labels.tolist()) & {0, 1, 2}) < 2:
        raise ValueError("need labels of at least two kinds to fit a nugget model")
    cols = [FEATURES.index(f) for f in features]
    xs = x[:, cols]
    mean = xs.mean(axis=0)
    scale = xs.std(axis=0)
    scale[scale <= 1e-12] = 1.0
    z = (xs - mean) / scale
    fi, fc = fit_logistic(z, (labels == 2).astype(np.float64), l2)
    ai = intercept(z @ fc, (labels >= 1).astype(np.float64), fi)
    model = NuggetModel(features, mean, scale, ai, fc, fi, fc, 0.5, 0.5, training or {}, cross_validation or {})
    model = NuggetModel.from_dict(model.to_dict())  # the file's precision
    p_any, p_full = model.probabilities(x)
    p_supported, p_partial = mix_thresholds(p_any, p_full, labels)
    return NuggetModel.from_dict(replace(model, p_supported=p_supported, p_partial=p_partial).to_dict())


def intercept(offset: np.ndarray, y: np.ndarray, start: float = 0.0) -> float:
    """The maximum-likelihood intercept of a logistic regression whose other terms are fixed
    (``offset`` per row; Newton's method on one unknown)."""
    a = start
    for _ in range(100):
        p = sigmoid(a + offset)
        step = float((p - y).sum()) / max(float((p * (1 - p)).sum()), 1e-12)
        a -= step
        if abs(step) < 1e-12:
            break
    return float(min(max(a, -50.0), 50.0))  # labels all of one kind: a finite intercept


def cross_validate(
    x: np.ndarray,
    labels: np.ndarray,
    topics: np.ndarray,
    test_groups: Optional[np.ndarray] = None,
    features: tuple[str, ...] = FEATURES,
    fitter: Callable[..., NuggetModel] = fit,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(P(any), P(full), level)`` of every pair from models fitted without its topic (leave one
    topic out); with ``test_groups`` (0/1 per pair) also without the pairs of its group (a shift:
    e.g. half of the teams never seen). ``features``: the model's (an ablation); ``fitter``: a
    function of ``(x, labels, features)`` in place of :func:`fit` (the bench's comparisons)."""
    labels = np.asarray(labels)
    p_any, p_full = np.zeros(len(labels)), np.zeros(len(labels))
    level = np.zeros(len(labels), dtype=np.int64)
    for t in sorted(set(topics.tolist())):
        for g in (None,) if test_groups is None else (0, 1):
            test = topics == t if g is None else (topics == t) & (test_groups == g)
            train = topics != t if g is None else (topics != t) & (test_groups != g)
            if not test.any():
                continue
            m = fitter(x[train], labels[train], features)
            a, f = m.probabilities(x[test])
            p_any[test], p_full[test], level[test] = a, f, m.levels(a, f)
    return p_any, p_full, level
