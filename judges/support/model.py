"""The support model: two logistic regressions over the support features.

* ``P(any)`` = P(the document at least partially supports the sentence);
* ``P(full)`` = P(it fully supports it), reported as ``min(P(full), P(any))`` so the two are
  ordered.

The status is ``supported`` at ``P(full) >= p_supported``, else ``partial`` at ``P(any) >=
p_partial``. A model file carries its own default thresholds: those under which its training
citations are judged in the mix people labelled them (:func:`mix_thresholds`); the workflow may
set others.

Each is ``sigmoid(intercept + coef . (x - mean) / scale)`` over :data:`~judges.core.vocabulary.FEATURES`
(``mean``/``scale`` standardise the training features). Fitting (:func:`fit`) is L2-regularised
maximum likelihood by Newton's method in float64 from zero, with a fixed number of steps
checked for convergence: no randomness, so the same labels and features give the same file,
byte for byte (numbers are written rounded to 8 significant digits).

:func:`recalibrated` re-fits only the two intercepts (the class prior) to one track's labels,
under a normal prior on the shift (``--labels --refit-support``;
:func:`judges.support.refit.refit_to_labels`).

A status's *expected error* (:func:`expected_error`) is how far, on average, the weight it gives
a citation on the leaderboard (supported 1, partial 0.5, unsupported 0) lies from the weight of
the level people would give, if the model's probabilities are right: with ``m = (P(any) +
P(full)) / 2`` the expected weight, it is ``m`` for ``unsupported``, ``1 - m`` for ``supported``
and ``(1 - P(any) + P(full)) / 2`` for ``partial``.

A model file (JSON) names the features it expects, its training data, its cross-validated
scores and the distribution of the expected error of its training citations at its default
thresholds, as a model fitted without them would judge them (:func:`error_quantiles`; from the
cross-validation when :func:`judges.meta.calibrate.calibrate` fitted it): with it
:mod:`judges.attest.selection` turns an attestation budget into a cutoff that holds about that
share of the citations of unseen topics. Since the leaderboard's intervals it may also record,
under ``intervals``, the spreads of the judge's errors shared by a report's and a run's
citations (:func:`judges.scores.intervals.fit_spreads`, fitted by ``calibrate``); a file without them
loads as before and borrows the shipped model's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Optional

import numpy as np

from judges.core.errors import InputError
from judges.core.measures import expected_weight
from judges.core.vocabulary import FEATURES

FORMAT = "citejudge-support-model"
FORMAT_VERSION = 2  # 2: expected_error_quantiles replace p_full_quantiles
L2 = 1.0  # penalty on the standardised coefficients (sum of squares / 2), intercept unpenalised
NEWTON_STEPS = 50
BUILTIN = "rag24"  # the shipped model (judges/support/models/rag24.json)


def expected_error(p_any: np.ndarray, p_full: np.ndarray, level: np.ndarray) -> np.ndarray:
    """The expected error of the weight of a status of ``level`` (0/1/2) given the model's
    ``P(any)``, ``P(full)`` (see the module doc); in ``[0, 1]``."""
    p_any, p_full = np.asarray(p_any, dtype=np.float64), np.asarray(p_full, dtype=np.float64)
    mean_weight = expected_weight(p_any, p_full)
    err = np.where(level == 2, 1 - mean_weight, np.where(level == 1, (1 - p_any + p_full) / 2, mean_weight))
    return np.clip(err, 0.0, 1.0)


def _sig(x: float) -> float:
    return float(f"{x:.8g}")


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


@dataclass
class TwoLogits:
    """The two logistic regressions of a model (support's, :class:`SupportModel`, or the nugget model's,
    :class:`judges.nuggets.model.NuggetModel`): over its features standardised, ``P(any)`` and ``P(full)``."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    any_intercept: float
    any_coef: np.ndarray
    full_intercept: float
    full_coef: np.ndarray


def logits_dict(model: TwoLogits) -> dict:
    """The two logistic regressions of a model (support's or the nugget model's) as its file writes
    them: standardisation, ``p_any``, ``p_full``."""
    return {
        "standardise": {"mean": [_sig(v) for v in model.mean], "scale": [_sig(v) for v in model.scale]},
        "p_any": {"intercept": _sig(model.any_intercept), "coef": [_sig(v) for v in model.any_coef]},
        "p_full": {"intercept": _sig(model.full_intercept), "coef": [_sig(v) for v in model.full_coef]},
    }


def logits_from_dict(
    data: dict, known: tuple[str, ...]
) -> tuple[tuple[str, ...], np.ndarray, np.ndarray, float, np.ndarray, float, np.ndarray]:
    """:class:`TwoLogits`' fields, ``(features, mean, scale, any_intercept, any_coef, full_intercept,
    full_coef)``, from a model file: its features (each one of ``known``, the features this version
    computes) and its :func:`logits_dict` part, checked against them (a ``ValueError`` otherwise)."""
    features = tuple(data["features"])
    unknown = [f for f in features if f not in known]
    if unknown:
        raise ValueError(f"unknown features {unknown}; this version computes {list(known)}")
    k = len(features)
    arr = lambda v: np.asarray(v, dtype=np.float64)  # noqa: E731
    mean, scale = arr(data["standardise"]["mean"]), arr(data["standardise"]["scale"])
    any_coef, full_coef = arr(data["p_any"]["coef"]), arr(data["p_full"]["coef"])
    if not (len(mean) == len(scale) == len(any_coef) == len(full_coef) == k):
        raise ValueError("standardise, p_any and p_full must have one value per feature")
    if np.any(scale <= 0):
        raise ValueError("standardise.scale must be positive")
    any_intercept, full_intercept = float(data["p_any"]["intercept"]), float(data["p_full"]["intercept"])
    return features, mean, scale, any_intercept, any_coef, full_intercept, full_coef


def fit_logistic(
    x: np.ndarray, y: np.ndarray, l2: float = L2, weights: Optional[np.ndarray] = None
) -> tuple[float, np.ndarray]:
    """Intercept and coefficients of an L2-penalised logistic regression on standardised ``x``
    (``weights``: each row's weight in the likelihood, default 1)."""
    n, k = x.shape
    sw = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    xa = np.hstack([np.ones((n, 1)), x])
    w = np.zeros(k + 1)
    penalty = np.full(k + 1, l2)
    penalty[0] = 0.0
    for _ in range(NEWTON_STEPS):
        p = sigmoid(xa @ w)
        grad = xa.T @ (sw * (p - y)) + penalty * w
        hess = (xa * (sw * p * (1 - p))[:, None]).T @ xa + np.diag(penalty) + 1e-9 * np.eye(k + 1)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return float(w[0]), w[1:]


@dataclass
class SupportModel(TwoLogits):
    error_quantiles: np.ndarray  # expected error on the training data at 0%, 1%, ..., 100%
    p_supported: float = 0.5  # default thresholds: on the training data they give the labels' mix
    p_partial: float = 0.5
    training: dict = field(default_factory=dict)
    cross_validation: dict = field(default_factory=dict)
    source: str = ""  # where it was read from
    intervals: dict = field(default_factory=dict)  # the judge's correlated error (judges.scores.intervals.fit_spreads)

    def probabilities(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(P(any), P(full))`` for the rows of ``x`` (columns in :attr:`features` order)."""
        z = (np.asarray(x, dtype=np.float64) - self.mean) / self.scale
        p_any = sigmoid(self.any_intercept + z @ self.any_coef)
        p_full = np.minimum(sigmoid(self.full_intercept + z @ self.full_coef), p_any)
        return p_any, p_full

    def share_at_least(self, min_error: np.ndarray) -> np.ndarray:
        """The share of the training citations whose expected error (at the model's default
        thresholds) is at least each of ``min_error``."""
        qs, m = self.error_quantiles, np.asarray(min_error, dtype=np.float64)
        if qs[-1] <= qs[0]:
            return (m <= qs[0]).astype(np.float64)
        return 1.0 - np.interp(m, qs, np.linspace(0.0, 1.0, len(qs)), left=0.0)

    # -- file ------------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "features": list(self.features),
            **logits_dict(self),
            "expected_error_quantiles": [_sig(v) for v in self.error_quantiles],
            "thresholds": {"p_supported": _sig(self.p_supported), "p_partial": _sig(self.p_partial)},
            "training": self.training,
            "cross_validation": self.cross_validation,
            **({"intervals": self.intervals} if self.intervals else {}),
        }

    def write(self, path: Path) -> None:
        from judges.formats.atomic import atomic_text

        with atomic_text(Path(path)) as f:
            f.write(json.dumps(self.to_dict(), indent=1, sort_keys=False) + "\n")

    @classmethod
    def from_dict(cls, data: dict, source: str = "") -> "SupportModel":
        if data.get("format") != FORMAT or data.get("format_version") != FORMAT_VERSION:
            raise ValueError(
                f"not a {FORMAT} file of version {FORMAT_VERSION} (a file of an older version: run calibrate again)"
            )
        return cls(
            *logits_from_dict(data, FEATURES),
            np.asarray(data["expected_error_quantiles"], dtype=np.float64),
            float(data["thresholds"]["p_supported"]),
            float(data["thresholds"]["p_partial"]),
            data.get("training", {}),
            data.get("cross_validation", {}),
            source,
            data.get("intervals", {}),
        )


def levels(p_any: np.ndarray, p_full: np.ndarray, p_supported: float, p_partial: float) -> np.ndarray:
    """0 (unsupported), 1 (partial), 2 (supported): supported at ``P(full) >= p_supported``, else
    partial at ``P(any) >= p_partial``."""
    return np.where(p_full >= p_supported, 2, np.where(p_any >= p_partial, 1, 0))


def columns(model_features: tuple[str, ...]) -> list[int]:
    """Indices into :data:`FEATURES` of a model's features."""
    return [FEATURES.index(f) for f in model_features]


_LOADED: dict[tuple[str, str], SupportModel] = {}


def load_model(spec: str, workflow_path: Optional[Path] = None) -> SupportModel:
    """The model named ``spec``: a built-in name (``rag24``) or a path to a model file
    (relative paths are taken from the workflow file's folder, else the working directory)."""
    key = (spec, str(workflow_path))
    if key in _LOADED:
        return _LOADED[key]
    if "/" not in spec and not spec.endswith(".json"):
        try:
            text = resources.files("judges.support.models").joinpath(f"{spec}.json").read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InputError(
                workflow_path or "workflow",
                None,
                "support.model",
                f"no built-in support model {spec!r} (built in: {BUILTIN}); or give a path to a model file",
            ) from None
        source = f"builtin:{spec}"
    else:
        path = Path(spec)
        if not path.is_absolute() and workflow_path is not None and not path.exists():
            path = Path(workflow_path).parent / path
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise InputError(path, None, None, f"cannot read support model: {e.strerror}") from None
        source = str(path)
    try:
        model = SupportModel.from_dict(json.loads(text), source)
    except (ValueError, KeyError, TypeError) as e:
        raise InputError(source, None, "support.model", f"invalid support model: {e}") from None
    _LOADED[key] = model
    return model


def fit(
    x: np.ndarray,
    labels: np.ndarray,
    training: dict,
    cross_validation: Optional[dict] = None,
    features: tuple[str, ...] = FEATURES,
    unseen: Optional[tuple[np.ndarray, np.ndarray]] = None,
    weights: Optional[np.ndarray] = None,
) -> SupportModel:
    """Fit both regressions to ``x`` (rows of :data:`FEATURES`, columns ``features``) and labels
    0 (not supported), 1 (partially), 2 (fully). ``unseen``: the ``(P(any), P(full))`` of the
    same citations as models fitted without them gave (cross-validation), for the distribution
    of expected errors; by default the fitted model's own. ``weights``: each row's weight in the
    two likelihoods (a row of weight k counts as k copies; the standardisation and the default
    thresholds take every row alike)."""
    x = np.asarray(x, dtype=np.float64)
    labels = np.asarray(labels)
    if len(labels) < 2 or len(set(labels.tolist()) & {0, 1, 2}) < 2:
        raise ValueError("need labels of at least two kinds to fit a support model")
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale <= 1e-12] = 1.0
    z = (x - mean) / scale
    ai, ac = fit_logistic(z, (labels >= 1).astype(np.float64), weights=weights)
    fi, fc = fit_logistic(z, (labels == 2).astype(np.float64), weights=weights)
    model = SupportModel(
        features, mean, scale, ai, ac, fi, fc, np.zeros(101), 0.5, 0.5, training, cross_validation or {}
    )
    # round-trip through the file's precision, so the written model is the one scored
    model = SupportModel.from_dict(model.to_dict())
    p_any, p_full = model.probabilities(x)
    p_supported, p_partial = mix_thresholds(p_any, p_full, labels)
    quantiles = error_quantiles(*(unseen or (p_any, p_full)), p_supported, p_partial)
    model = replace(model, p_supported=p_supported, p_partial=p_partial, error_quantiles=quantiles)
    return SupportModel.from_dict(model.to_dict())


RECALIBRATION_PRIOR = 20.0  # the prior's weight on each intercept's shift, in labels (bench/support_calibration.py)


def logits(model: SupportModel, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two regressions' logits (before ``P(full)`` is capped by ``P(any)``) for the rows of ``x``."""
    z = (np.asarray(x, dtype=np.float64) - model.mean) / model.scale
    return model.any_intercept + z @ model.any_coef, model.full_intercept + z @ model.full_coef


def intercept_shift(logit: np.ndarray, y: np.ndarray, weights: np.ndarray, prior: float) -> float:
    """The shift ``d`` of a logistic regression's intercept that maximises the weighted
    log-likelihood of the 0/1 labels ``y`` at logits ``logit + d`` minus ``prior x d^2 / 2``
    (a normal prior on the shift, worth about ``prior`` labels), the coefficients unchanged."""
    d = 0.0
    for _ in range(NEWTON_STEPS):
        p = sigmoid(logit + d)
        grad = float(np.sum(weights * (p - y))) + prior * d
        hess = float(np.sum(weights * p * (1 - p))) + prior + 1e-9
        step = grad / hess
        d -= step
        if abs(step) < 1e-10:
            break
    return d


def recalibrated(
    model: SupportModel,
    x: np.ndarray,
    labels: np.ndarray,
    weights: Optional[np.ndarray] = None,
    prior: float = RECALIBRATION_PRIOR,
) -> SupportModel:
    """``model`` fitted to one track's labels (``labels`` 0/1/2 of the citations whose features
    are the rows of ``x``, columns ``model.features``): each regression's intercept shifted by
    :func:`intercept_shift` (the class prior of the track at hand: stricter or looser assessors),
    the coefficients, thresholds and everything else as they were. ``weights``: each label's
    weight (the inverse of the probability it was drawn with, when drawn by a plan), rescaled to
    sum to the number of labels; ``prior``: how many labels the model's own intercepts are worth."""
    labels = np.asarray(labels)
    w = np.ones(len(labels)) if weights is None else np.asarray(weights, dtype=np.float64)
    w = w * (len(labels) / w.sum()) if len(labels) and w.sum() > 0 else w
    any_logit, full_logit = logits(model, x)
    d_any = intercept_shift(any_logit, (labels >= 1).astype(np.float64), w, prior)
    d_full = intercept_shift(full_logit, (labels == 2).astype(np.float64), w, prior)
    data = model.to_dict()
    data["p_any"]["intercept"] = _sig(model.any_intercept + d_any)
    data["p_full"]["intercept"] = _sig(model.full_intercept + d_full)
    return SupportModel.from_dict(data, model.source)


def error_quantiles(p_any: np.ndarray, p_full: np.ndarray, p_supported: float, p_partial: float) -> np.ndarray:
    """The expected errors of statuses at these thresholds at the quantiles 0%, 1%, ..., 100%."""
    errors = expected_error(p_any, p_full, levels(p_any, p_full, p_supported, p_partial))
    return np.quantile(errors, np.linspace(0, 1, 101))


def mix_thresholds(p_any: np.ndarray, p_full: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """Thresholds on ``P(full)`` and ``P(any)`` under which the fitted data is judged in the same
    mix as it was labelled (share fully supported, share at least partially supported): the
    quantiles of the probabilities at one minus those shares, kept inside (0, 1)."""

    def at(p: np.ndarray, share: float) -> float:
        return float(min(max(np.quantile(p, 1.0 - share), 1e-6), 1 - 1e-6))

    return at(p_full, float(np.mean(labels == 2))), at(p_any, float(np.mean(labels >= 1)))
