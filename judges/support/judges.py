"""Judges of support: from the support features of a batch of citations to their statuses.

One small interface (:class:`SupportJudge`) and a registry by name, as the alignment backends
have, so a new judge of support (an NLI model, say) plugs in here without touching the engine:

* ``model`` (default) -- the logistic support model (:mod:`judges.support.model`):
  ``supported`` when ``P(full) >= support.p_supported``, else ``partial`` when
  ``P(any) >= support.p_partial``, else ``unsupported`` (thresholds left null: the model
  file's own);
* ``alignment`` -- thresholds on alignment's ``norm_score``: ``supported`` at or above
  ``support.norm_supported``, ``partial`` at or above ``support.norm_partial`` (the judge before
  the support model; no probabilities).

The LLM (:mod:`judges.attest`) is the stage after these: it sees their probabilities and
statuses and may overrule them.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple, Optional

import numpy as np

from judges.core.config import SupportSettings
from judges.core.vocabulary import FEATURES
from judges.support.model import SupportModel, columns, levels, load_model

LEVEL_STATUS = np.array(["unsupported", "partial", "supported"])  # support level 0, 1, 2 -> status
_NORM = FEATURES.index("norm_score")


class Decisions(NamedTuple):
    """Per citation: status (``unsupported``/``partial``/``supported``) and, from a probabilistic
    judge, ``P(any)`` and ``P(full)`` (NaN otherwise)."""

    status: np.ndarray
    p_any: np.ndarray
    p_full: np.ndarray


class SupportJudge:
    """A named way to decide support from the feature matrix (rows of :data:`FEATURES`)."""

    name: str = ""
    install_hint: str = ""
    probabilistic: bool = False  # gives P(any), P(full) and expected errors (attest.mode uncertain needs them)

    def __init__(
        self, settings: SupportSettings, workflow_path: Optional[Path] = None, model: Optional[SupportModel] = None
    ):
        self.s = settings

    def is_available(self) -> bool:
        return True

    def decide(self, x: np.ndarray) -> Decisions:
        raise NotImplementedError

    def thresholds(self) -> dict:
        """The judge's name and the thresholds its statuses follow (for explanations and the report)."""
        return {"judge": self.name}

    def share_at_least(self, min_error: np.ndarray) -> np.ndarray:
        """The share of the judge's reference citations whose status's expected error
        (:func:`judges.support.model.expected_error`) is at least each of ``min_error``
        (probabilistic judges only)."""
        raise NotImplementedError


class AlignmentJudge(SupportJudge):
    name = "alignment"

    def decide(self, x: np.ndarray) -> Decisions:
        norm = x[:, _NORM]
        level = (norm >= self.s.norm_partial).astype(np.int64) + (norm >= self.s.norm_supported)
        nan = np.full(len(x), np.nan)
        return Decisions(LEVEL_STATUS[level], nan, nan)

    def thresholds(self) -> dict:
        return {"judge": self.name, "norm_supported": self.s.norm_supported, "norm_partial": self.s.norm_partial}


class ModelJudge(SupportJudge):
    name = "model"
    probabilistic = True

    def __init__(
        self, settings: SupportSettings, workflow_path: Optional[Path] = None, model: Optional[SupportModel] = None
    ):
        super().__init__(settings, workflow_path)
        self.model: SupportModel = model if model is not None else load_model(settings.model, workflow_path)
        self._cols = columns(self.model.features)
        self.p_supported = settings.p_supported if settings.p_supported is not None else self.model.p_supported
        self.p_partial = settings.p_partial if settings.p_partial is not None else self.model.p_partial

    def decide(self, x: np.ndarray) -> Decisions:
        p_any, p_full = self.model.probabilities(x[:, self._cols])
        p_any, p_full = np.round(p_any, 6), np.round(p_full, 6)  # as written; the status follows from these
        return Decisions(LEVEL_STATUS[levels(p_any, p_full, self.p_supported, self.p_partial)], p_any, p_full)

    def share_at_least(self, min_error: np.ndarray) -> np.ndarray:
        return self.model.share_at_least(min_error)  # at the model's thresholds, whatever the workflow's

    def thresholds(self) -> dict:
        return {"judge": self.name, "p_supported": self.p_supported, "p_partial": self.p_partial}


_REGISTRY: dict[str, type[SupportJudge]] = {"model": ModelJudge, "alignment": AlignmentJudge}
JUDGES = tuple(_REGISTRY)


def is_probabilistic(name: str) -> bool:
    """Whether the judge called ``name`` gives probabilities (so expected errors for attest.mode uncertain)."""
    return _REGISTRY[name].probabilistic


def get_judge(
    settings: SupportSettings, workflow_path: Optional[Path] = None, model: Optional[SupportModel] = None
) -> SupportJudge:
    """The support judge the workflow names (``support.judge``); ``model``: the support model to
    use instead of the workflow's (re-fitted on this track's labels, ``--labels``)."""
    try:
        cls = _REGISTRY[settings.judge]
    except KeyError:
        raise ValueError(f"unknown support judge {settings.judge!r}; known: {', '.join(JUDGES)}") from None
    judge = cls(settings, workflow_path, model)
    if not judge.is_available():
        raise RuntimeError(f"support judge {settings.judge!r} is not available here: {judge.install_hint}")
    return judge
