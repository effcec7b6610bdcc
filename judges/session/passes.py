"""The passes a session makes over every citation, as records a policy returns
(:func:`plan_passes`) and :func:`run_passes` carries out in order:

- ``refit`` (``--refit-support`` with labels): judged without the LLM, the support model re-fitted
  to the labelled citations (:func:`judges.support.refit.refit_to_labels`);
- ``plan`` (``attest.mode: uncertain`` without a band, or a check sample): judged without the LLM
  (or the pass before, while it holds), the plan and the check sample drawn from it;
- ``estimate`` (``attest.answer_error: estimate``): a pass asking the LLM, its error rate
  estimated from the answers;
- ``main``: the final judgments, asking the LLM by the plan (consumes the corpus);
- ``fallback`` (an attesting session that neither fails nor uses a degenerate LLM): the
  LLM's answers looked degenerate, the citations judged without them
  (:mod:`judges.attest.degenerate`).

Each pass advances the progress bar by the citations it judges (``fallback`` too, when it judges).
"""

from __future__ import annotations

import tempfile
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

import pyarrow as pa

from judges.attest.plan import Plan, attest_plan
from judges.engine.judge import Part
from judges.engine.pairs import CITATION_KIND, judge_pairs
from judges.engine.settings import Settings
from judges.formats.debuglog import DebugLog
from judges.session.attestation import answers_kept, with_attestation_counts
from judges.session.scan import reread
from judges.session.stages import Loaded, Session
from judges.support.judges import is_probabilistic

REFIT, PLAN, ESTIMATE, MAIN, FALLBACK = "refit", "plan", "estimate", "main", "fallback"


@dataclass(frozen=True)
class Pass:
    """One pass over every citation: its step (``REFIT``, ``PLAN``, ``ESTIMATE``, ``MAIN``,
    ``FALLBACK``), what it does in words, and its choices (``PLAN``: draw the plan, draw the check
    sample; ``MAIN``: keep the documents for a ``FALLBACK``)."""

    step: str
    does: str
    planning: bool = False  # PLAN: the plan (attest.mode uncertain without a band)
    checking: bool = False  # PLAN: the check sample (attest.check_size)
    keep_corpus: bool = False  # MAIN: the documents stay for the fallback


@dataclass(frozen=True)
class Passed:
    """What the passes so far left: the settings to judge by, the pass without the LLM while it
    holds, the plan and what the LLM is asked by, the final parts and what the passes found."""

    settings: Settings
    first: Optional[list[Part]] = None  # judged without the LLM, by the settings still in force
    plan: Optional[Plan] = None
    asking: Optional[Plan] = None  # what the pass asking the LLM sends by: the plan, or the check sample alone
    planned: bool = False  # the plan pass drew a plan from ``first`` (the fallback may take it)
    parts: Optional[list[Part]] = None
    asked: Optional[Counter] = None  # ESTIMATE: the questions as its pass asked them
    support_refit: Optional[dict] = None
    estimate: Optional[dict] = None
    degenerate: bool = False


def plan_passes(session: Session, loaded: Loaded) -> tuple[Pass, ...]:
    """The passes ``session`` makes over the citations of ``loaded``, in order."""
    attest = session.settings.workflow.attest
    planning = attest.mode == "uncertain" and attest.band is None
    checking = attest.mode != "none" and attest.check_size > 0  # the check sample, drawn from a first pass
    support = session.settings.workflow.support
    has_labels = loaded.labels is not None and bool(loaded.labels.statuses)
    asks = attest.mode != "none" and session.outset is not None  # questions(): no output, no guard
    guard = asks and not (session.options.strict_llm or session.options.use_degenerate_llm)
    passes = []
    if has_labels and session.inputs.refit_support and is_probabilistic(support.judge):
        passes.append(Pass(REFIT, "without the LLM: the support model re-fitted to the labels"))
    if planning or checking:
        passes.append(Pass(PLAN, "without the LLM: the plan and the check sample", planning, checking))
    if attest.mode != "none" and attest.answer_error == "estimate" and session.outset is not None:
        passes.append(Pass(ESTIMATE, "asking the LLM: its error rate estimated from the answers"))
    asking = "asking the LLM by the plan" if planning else "asking the LLM" if attest.mode != "none" else "no LLM"
    passes.append(Pass(MAIN, f"the final judgments ({asking})", keep_corpus=guard))
    if guard:
        passes.append(Pass(FALLBACK, "without the LLM, if its answers look degenerate"))
    return tuple(passes)


def run_passes(
    session: Session, loaded: Loaded, log: DebugLog, passes: tuple[Pass, ...], first_pass: Optional[list[Part]]
) -> Passed:
    """Carry out ``passes`` in order (``first_pass``: the pass without the LLM, judged already by
    topic shards); the progress bar's total is the citations of every pass but the fallback."""
    judged = sum(p.step != FALLBACK for p in passes)
    session.options.progress(0, total=loaded.scan.citations * judged)
    done = Passed(session.settings, first=first_pass)
    for step in passes:
        done = _STEPS[step.step](session, loaded, log, step, done)
    return done


def judge_pass(
    session: Session,
    loaded: Loaded,
    settings: Settings,
    log: DebugLog,
    *,
    plan: Optional[Plan] = None,
    keep_corpus: bool = False,
    shard: Optional[frozenset] = None,
) -> list[Part]:
    """One pass over the reports by ``settings``: in the worker processes when started, else in
    this process; ``shard``: the topics of a topic shard, the only ones judged, each report's
    rows and events placed (``placed`` in :func:`judges.engine.judge.judge_part`)."""
    labels = loaded.labels.statuses if loaded.labels is not None else None
    if loaded.workers is not None:  # their files go to the output set's staging directory (none: the temp dir)
        stage = session.outset.stage_dir if session.outset is not None else Path(tempfile.gettempdir())
        return loaded.workers.judge(
            settings, loaded.scan, loaded.corpus, loaded.topics, log, stage, plan, labels, keep_corpus
        )
    reports = reread(loaded.scan, shard, settings.dataset, settings.workflow.citations.max_per_sentence)
    return [
        judge_pairs(
            CITATION_KIND,
            settings,
            reports,
            loaded.corpus,
            log,
            progress=session.options.progress,
            plan=plan,
            labels=labels,
            placed=shard is not None,
        )
    ]


def _without_llm(session: Session, loaded: Loaded, done: Passed) -> list[Part]:
    """The pass without the LLM by the settings in force: the one judged already while it holds
    (topic shards may leave it to the merge: then empty), else judged now, logged nowhere."""
    first = done.first
    if first is None or not sum(p.assessments.num_rows for p in first):
        return judge_pass(session, loaded, done.settings.without_llm(), DebugLog(None), keep_corpus=True)
    session.options.progress(loaded.scan.citations)
    return first


def _refit(session: Session, loaded: Loaded, log: DebugLog, step: Pass, done: Passed) -> Passed:
    """Fit to the track at hand: the support model's intercepts re-fitted on the labelled citations
    of the pass without the LLM; that pass still holds only when the model is left as it was."""
    from judges.formats.labels import citation_probabilities
    from judges.support.refit import refit_to_labels

    settings = done.settings
    first = _without_llm(session, loaded, done)
    probabilities: dict[tuple, float] = {}
    for labels in loaded.labels.files if loaded.labels is not None else ():
        for key, p in citation_probabilities(labels).items():  # a citation's label is its first file's
            probabilities.setdefault(key, p)
    model = CITATION_KIND.model(settings.workflow.support.model, settings.workflow_path)
    table = pa.concat_tables([p.assessments for p in first])
    refit, record = refit_to_labels(table, model, probabilities)
    if refit is None:
        return replace(done, first=first, support_refit=record)
    return replace(done, first=None, settings=replace(settings, support_model=refit), support_refit=record)


def _plan(session: Session, loaded: Loaded, log: DebugLog, step: Pass, done: Passed) -> Passed:
    """The plan (:func:`judges.attest.plan.attest_plan`) and the check sample
    (:func:`judges.attest.check.citation_sample`), drawn from the pass without the LLM."""
    first = _without_llm(session, loaded, done)
    workflow, attest = done.settings.workflow, done.settings.workflow.attest
    plan = None
    if step.planning:
        table = pa.concat_tables([p.assessments for p in first])
        plan = attest_plan(table, {run: len(topics) for run, topics in loaded.scan.answered.items()}, workflow)
        log.event("PLAN", **plan.describe())
    asking = plan
    if step.checking:
        from judges.attest.check import citation_sample

        sample = citation_sample(pa.concat_tables([p.assessments for p in first]), attest, plan)
        asking = (plan or Plan({}, 0, 0)).checking(sample)
    return replace(done, first=first, plan=plan, asking=asking, planned=step.planning)


def _estimate(session: Session, loaded: Loaded, log: DebugLog, step: Pass, done: Passed) -> Passed:
    """``attest.answer_error: estimate``: a pass asking the LLM (at the prior's value, logged
    nowhere), the error rate estimated from its answers (:func:`judges.engine.weights.answered_error`);
    the settings to judge by from then on hold that rate (the next pass reads the answers from the
    cache)."""
    from judges.engine.weights import answered_error

    settings = done.settings
    attest = settings.workflow.attest
    first = judge_pass(session, loaded, settings, DebugLog(None), plan=done.asking, keep_corpus=True)
    found = answered_error(pa.concat_tables([p.assessments for p in first]), attest.assumed_error)
    counts: Counter = Counter()
    for part in first:
        counts.update(part.counts)
    fixed = attest.model_copy(update={"answer_error": found.value})
    settings = replace(settings, workflow=settings.workflow.model_copy(update={"attest": fixed}))
    return replace(done, settings=settings, estimate=found.describe(), asked=counts)


def _main(session: Session, loaded: Loaded, log: DebugLog, step: Pass, done: Passed) -> Passed:
    """The final judgments (consumes the corpus unless the fallback may need it); after an
    estimate, with the questions as the estimate's pass asked them (this one read the cache)."""
    parts = judge_pass(session, loaded, done.settings, log, plan=done.asking, keep_corpus=step.keep_corpus)
    if done.estimate is not None:
        assert done.asked is not None
        parts = with_attestation_counts(parts, done.asked)
    return replace(done, parts=parts)


def _fallback(session: Session, loaded: Loaded, log: DebugLog, step: Pass, done: Passed) -> Passed:
    """The final parts, or when the LLM's answers look degenerate the same judged without them
    (the plan's pass without the LLM, or judged again), with the attestation's counts (what was
    asked, answered and paid) of the final parts."""
    assert done.parts is not None, "the fallback follows the main pass"
    kept, counts = answers_kept(session, done.settings, done.parts)
    if kept:
        return done
    model = done.first if done.planned else None
    if model is None:
        model = judge_pass(session, loaded, done.settings.without_llm(), DebugLog(None))
    return replace(done, parts=with_attestation_counts(model, counts), degenerate=True)


_STEPS = {REFIT: _refit, PLAN: _plan, ESTIMATE: _estimate, MAIN: _main, FALLBACK: _fallback}
