"""The session's attestation steps beside the passes (:mod:`judges.session.passes`): the check
before anything is read (:func:`check_attestation`), whether the LLM's answers are kept
(:func:`answers_kept`, :mod:`judges.attest.degenerate`), the attestation counts carried over from
another pass (:func:`with_attestation_counts`) and the figures the summary and the debug log get
(:func:`summarize_attestation`)."""

from __future__ import annotations

from collections import Counter
from typing import Callable, Optional

from judges.core.errors import InputError
from judges.engine.judge import Part
from judges.engine.settings import Settings
from judges.formats.debuglog import DebugLog
from judges.session.options import quiet
from judges.session.stages import Session
from judges.support.judges import is_probabilistic


def check_attestation(
    settings: Settings,
    *,
    strict_llm: bool = False,
    warn: Callable[[str], None] = quiet,
    asks: bool = True,
    how: str = "pass --use-env-llm or --llm-config",
) -> None:
    """Refuse, before anything is read, an attestation the session cannot carry out (one
    :class:`InputError`; ``asks``: the session asks the LLM, a topic shard only judges the first
    pass; ``how``: how the caller gives an endpoint). :func:`judges.check_answer` checks by it too."""
    attest, where = settings.workflow.attest, settings.workflow_path or "workflow"
    if attest.mode != "none" and settings.llm is None and asks:
        raise InputError(where, None, "attest.mode", f"{attest.mode!r} needs an LLM endpoint: {how}")
    if attest.mode == "uncertain" and not is_probabilistic(settings.workflow.support.judge):
        why = "uncertain needs support.judge: model (its probabilities); or use mode all"
        raise InputError(where, None, "attest.mode", why)
    if attest.mode == "none" and settings.llm is not None:
        warn("an LLM endpoint was given but the workflow's attest.mode is none: no LLM calls are made")
    if attest.mode == "none" and strict_llm:
        warn("--strict-llm: the workflow's attest.mode is none, so there is no LLM to check")


def answers_kept(session: Session, settings: Settings, parts: list[Part]) -> tuple[bool, Counter]:
    """Whether the LLM's answers in ``parts`` are used (not degenerate, or used all the same:
    :func:`judges.attest.degenerate.answers_used`; an error with ``--strict-llm``), and the
    parts' counts."""
    from judges.attest.cascade import summarize
    from judges.attest.degenerate import answers_used

    assert settings.llm is not None, "check_attestation: an attesting session has an endpoint"
    counts: Counter = Counter()
    for part in parts:
        counts.update(part.counts)
    figures = summarize(Counter(counts), settings.workflow.attest, settings.llm)
    return answers_used(figures, strict=session.options.strict_llm, used=session.options.use_degenerate_llm), counts


def with_attestation_counts(parts: list[Part], counts: Counter) -> list[Part]:
    """``parts`` with the attestation counts (what was asked, answered and paid) of ``counts`` instead of theirs."""
    from judges.core.counts import ATTESTATION_PREFIXES

    asked = Counter({k: v for k, v in counts.items() if k.startswith(ATTESTATION_PREFIXES)})
    out = []
    for i, part in enumerate(parts):
        kept = Counter({k: v for k, v in part.counts.items() if not k.startswith(ATTESTATION_PREFIXES)})
        out.append(part._replace(counts=kept + asked if i == 0 else kept))
    return out


def summarize_attestation(
    session: Session, counts: Counter, not_used: bool, log: DebugLog, answer_error: Optional[dict] = None
) -> dict:
    """The attestation's figures (:func:`judges.attest.cascade.summarize`; none without it), with
    the error rate estimated from the answers (``answer_error``, ``attest.answer_error: estimate``),
    logged; with ``--strict-llm`` a degenerate LLM is an error here, before anything is replaced."""
    settings = session.settings
    attest = settings.workflow.attest
    if attest.mode == "none":
        return {}
    from judges.attest.cascade import summarize
    from judges.attest.degenerate import answers_used

    assert settings.llm is not None, "check_attestation: an attesting session has an endpoint"
    figures = summarize(counts, attest, settings.llm)
    answers_used(figures, strict=session.options.strict_llm, used=not not_used)  # before anything is written
    if answer_error is not None:
        figures["answer_error"] = answer_error
    log.event("ATTEST_SUMMARY", **figures)
    return figures
