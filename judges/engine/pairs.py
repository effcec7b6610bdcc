"""One engine for pairs of (claim, evidence text): a cited sentence and its document, a nugget and
an answer. What differs per kind is a small record, :class:`Kind`, that the engine is handed
(:func:`judge_pairs`); the alignment kernel, the cascade (:class:`judges.attest.cascade.Attester`),
the plan, the labels and the intervals are handed the kind's :class:`judges.attest.kinds.PairKind`
(its key, prompt, statuses and measures) and do not otherwise know which kind they serve.

A kind says

* ``pair``: its :class:`~judges.attest.kinds.PairKind` (name, key, prompt, status words, measures);
* ``features``: the feature columns its fitted model reads, in order;
* ``model``: how its fitted model is loaded from a spec (a built-in name or a calibrated file);
* ``judge``: how its pairs are made from a session's reports and the evidence (the corpus for
  citations, the nugget banks for nuggets) and judged: ``judge(settings, reports, evidence, log,
  **options)``, the reports topic by topic (a ``None`` ends a topic);
* ``outputs``: what a session writes of its judgments, ``outputs(result)`` (a
  :class:`judges.session.stages.PairOutputs`); the session fills it in
  (:func:`judges.session.nuggets.kind`: the engine never imports the session), ``None`` for the
  citations, which the writer writes itself.

:func:`battle_kind`'s pairs are two answers to one topic (:mod:`judges.engine.battles`).

:data:`CITATION_KIND` judges a batch of cited sentences against their documents
(:func:`judges.engine.judge.judge_part`: a :class:`~judges.engine.judge.Part`), :func:`nugget_kind`'s
every answer against its topic's nuggets (:func:`judges.engine.nuggets.judge_answers`: a
:class:`~judges.engine.nuggets.NuggetResult`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Iterable, NamedTuple, Optional

from judges.attest.kinds import CITATION, NUGGET, PairKind
from judges.engine.judge import judge_part
from judges.engine.settings import Settings
from judges.formats.debuglog import DebugLog
from judges.core.records import Report
from judges.support import model as support_model
from judges.core.vocabulary import FEATURES


class Kind(NamedTuple):
    """What differs between two kinds of pair (see the module doc)."""

    pair: PairKind
    features: tuple[str, ...]
    model: Callable[..., Any]
    judge: Callable[..., Any]
    outputs: Optional[Callable[[Any], Any]] = None

    @property
    def name(self) -> str:
        return self.pair.name


CITATION_KIND = Kind(CITATION, FEATURES, support_model.load_model, judge_part)


@lru_cache(maxsize=1)
def nugget_kind() -> Kind:
    """The nugget kind (its modules imported only by a session given ``--nuggets``)."""
    from judges.nuggets import features, model
    from judges.engine.nuggets import judge_answers

    return Kind(NUGGET, features.FEATURES, model.load_model, judge_answers)


@lru_cache(maxsize=1)
def battle_kind() -> Kind:
    """The battle kind (``--judge battle``): two answers to one topic side by side, the verdict
    from what the other kinds judged of each (:mod:`judges.engine.battles`)."""
    from judges.attest.kinds import BATTLE
    from judges.engine.battles import FEATURES, collect

    return Kind(BATTLE, FEATURES, lambda spec=None: None, collect)


def kinds_of(has_nuggets: bool, battles: bool = False) -> tuple[Kind, ...]:
    """The kinds a session judges: the citations always (``--judge nugget`` too: its citations
    are judged, ``missing`` without documents), the nuggets with a bank (``--nuggets``), the
    battles with ``--judge battle`` (last: they read the others' judgments)."""
    kinds = (CITATION_KIND, nugget_kind()) if has_nuggets else (CITATION_KIND,)
    return (*kinds, battle_kind()) if battles else kinds


def judge_pairs(
    kind: Kind, settings: Settings, reports: Iterable[Optional[Report]], evidence: Any, log: DebugLog, **options
) -> Any:
    """Judge the pairs of ``kind`` made from ``reports`` (topic by topic, a ``None`` ends one) and
    ``evidence`` (the cited documents by id, or the nugget banks); ``options``: the kind's own
    (see :data:`CITATION_KIND`'s and :func:`nugget_kind`'s ``judge``)."""
    return kind.judge(settings, reports, evidence, log, **options)
