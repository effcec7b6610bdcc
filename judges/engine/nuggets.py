"""The nugget kind of pair (:func:`judges.engine.pairs.nugget_kind`): every answer of a session's reports
judged against every nugget of its topic's bank, as the engine judges a kind of pair.

The reports are handed topic by topic (a ``None`` ends a topic, as
:func:`judges.session.scan.reread` hands them); each answer's text
(:func:`judges.nuggets.answers.answer_text`) is judged against every nugget of its topic's bank
(:func:`judges.nuggets.judge.judge_topic`: the pairs made, aligned, their features and the nugget
model), assessors' assignments replace the judge's (``--labels``), the cascade asks the LLM about
the pairs the workflow's ``attest`` selects, and each answer gets its four nugget measures
(:mod:`judges.nuggets.measures`), a ``NUGGET_OUTPUT`` debug-log event per judgment. What the session
writes of it is :mod:`judges.session.nuggets`.

With ``attest.mode`` other than ``none`` the nugget pairs go through the citation judge's
cascade (:class:`judges.attest.cascade.Attester` handed :data:`judges.attest.kinds.NUGGET`):
the question is "does this response contain this fact?" (``nugget_level``: FULL / PARTIAL /
NONE, whatever ``attest.question`` says; the whole answer is shown), ``all`` asks about every
pair, ``uncertain`` those whose ``P(support)`` lies in ``attest.band`` or, without a band, the
pairs of a plan over the session's nugget pairs (:func:`judges.attest.plan.make_plan`: ``attest.budget``
of them, or ``attest.count``, largest expected gain first; the gain as a citation's, with the
nugget's share of its run's measure as leverage). The same answer cache (keys differ from the
citations': another prompt), the same guard, the same degenerate check: answers that look
degenerate are not used (the pairs keep the nugget model's judgment) unless
``use_degenerate_llm``, and with ``strict_llm`` they are an error (``degenerate``). The LLM's level is the
assignment; the probabilities become the model's updated by Bayes' rule with the answer, taken
to be wrong with ``attest.answer_error`` (as a citation's expected weight; with ``estimate`` the
rate :func:`judges.attest.answers.estimate_error` finds in the nugget pairs' own answers, reported
as the figures' ``answer_error``), so the expected measures follow. A guarded pair is
``not_support`` for sure; an unparsed or failed one keeps the
model's judgment (``attest.on_unparsed: judge``) or is ``not_support`` for sure. The figures
(:func:`judges.attest.cascade.summarize`) are :attr:`NuggetResult.attest`.

A topic judged without a bank in the file, or with an empty one, has no nugget judgments: its nugget measures are 0,
and a warning says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Optional

from judges.attest.degenerate import DegeneratePolicy
from judges.attest.kinds import NUGGET
from judges.attest.plan import Plan
from judges.formats.debuglog import DebugLog
from judges.formats.nuggets import Nuggets
from judges.nuggets import features as F
from judges.nuggets.answers import answer_text
from judges.nuggets.judge import NuggetJudgment
from judges.nuggets.made import judge_made_topic
from judges.nuggets.measures import NUGGET_MEASURES, answer_measures
from judges.nuggets.model import load_model
from judges.core.records import Report


@dataclass
class NuggetResult:
    judged: dict[tuple[str, str], list[NuggetJudgment]] = field(default_factory=dict)
    answers: dict[tuple[str, str], str] = field(default_factory=dict)
    queries: dict[str, str] = field(default_factory=dict)
    measures: dict[tuple[str, str], dict[str, float]] = field(default_factory=dict)
    without_bank: list[str] = field(default_factory=list)
    empty_bank: list[str] = field(default_factory=list)  # topics whose bank holds no nugget
    attest: dict = field(default_factory=dict)  # the nugget pairs' attestation figures (mode none: empty)
    plan: Optional[Plan] = None  # the plan over the nugget pairs, when one was made
    labelled: int = 0  # pairs whose assignment an assessor's label decided (--labels)
    banks: dict = field(default_factory=dict)  # the banks judged by, by topic (judges.formats.nuggets.NuggetBank)
    bank: dict = field(
        default_factory=dict
    )  # the bank's provenance: path, sha256, source (judges.formats.nuggets.source_of)


def judge_answers(
    settings,
    reports: Iterable[Optional[Report]],
    nuggets: Nuggets,
    log: DebugLog,
    warn: Callable,
    *,
    answered: dict[str, int],
    model_spec: str = "rag24",
    degenerate: DegeneratePolicy = DegeneratePolicy(),
    assigned=None,
) -> NuggetResult:
    """Judge every answer of ``reports`` (``None`` among them ends a topic) against its topic's
    bank (see the module doc); ``settings`` (:class:`judges.engine.settings.Settings`): the
    workflow's ``attest`` and the LLM endpoint, cache and asker the cascade uses (``None``: no
    LLM); ``answered``: topics per run (the plan's leverage); ``degenerate``: what is done with a
    degenerate LLM's answers; ``assigned``: nugget assignments in
    effect (:class:`judges.formats.labels.NuggetLabels`, ``--labels``), which replace the judge's."""
    model = load_model(model_spec)
    encoder = F.Encoder()
    result = NuggetResult(banks=dict(nuggets.banks), bank=provenance(nuggets))
    by_topic: dict[str, list[tuple[str, str]]] = {}
    for report in reports:
        if report is not None:
            by_topic.setdefault(report.topic_id, []).append((report.run_id, answer_text(report)))
    labels = {k: a.levels for k, a in nuggets.assignments.items()}
    unbanked: list[tuple[str, str]] = []  # (run, topic) of the topics without a bank: measures 0
    for topic in sorted(by_topic):
        answers = sorted(by_topic[topic])
        bank = nuggets.banks.get(topic)
        if bank is None or not bank.nuggets:  # no nugget to judge: measures 0, warned alike
            (result.without_bank if bank is None else result.empty_bank).append(topic)
            unbanked += [(run, topic) for run, _ in answers]
            continue
        result.queries[topic] = bank.query
        for (run, text), judged in zip(answers, judge_made_topic(encoder, bank, answers, model, labels)):
            result.judged[(run, topic)] = judged
            result.answers[(run, topic)] = text
    if assigned is not None and assigned.levels:
        apply_labels(result, assigned)
        if result.labelled < len(assigned.levels):  # as the citations' labels that match none
            where = ", ".join(f["path"] for f in assigned.files)
            warn(
                f"{len(assigned.levels) - result.labelled} of the {len(assigned.levels)} nugget labels in {where} "
                "match no judged nugget pair (run_id, topic_id, nugget_index)"
            )
    if settings is not None and settings.workflow.attest.mode != "none":
        attest_nuggets(result, answered, settings, log, degenerate)
    for run, topic in sorted({*unbanked, *result.judged}, key=lambda k: (k[1], k[0])):  # topic by topic
        found = result.judged.get((run, topic))
        if found is None:  # a topic without a bank
            result.measures[(run, topic)] = dict.fromkeys(NUGGET_MEASURES, 0.0)
            continue
        result.measures[(run, topic)] = answer_measures(found)
        if log.enabled:
            for j in found:
                log.event(
                    "NUGGET_OUTPUT",
                    run_id=run,
                    topic_id=topic,
                    nugget_index=j.nugget_index,
                    nugget=j.nugget,
                    importance=j.importance,
                    assignment=j.assignment,
                    probabilities={"support": j.p_support, "partial_support": j.p_partial, "not_support": j.p_not},
                    spans=[{"char_start": s, "char_end": e} for s, e in j.spans],
                    features=dict(zip(F.FEATURES, j.features)),
                    explanation=j.explanation,
                    **({} if j.llm_answer is None else {"llm_answer": j.llm_answer}),
                )
    for topics, what in ((result.without_bank, "no nugget bank"), (result.empty_bank, "an empty nugget bank")):
        if topics:
            warn(
                f"{len(topics)} topic(s) have {what} in {nuggets.path}, their nugget measures are 0: "
                + ", ".join(topics[:5])
            )
    return result


def provenance(nuggets: Nuggets) -> dict:
    """What every nugget score records of its bank: the file (or ``auto``), its SHA-256 and its
    source (``human``, ``post-edited``, ``answers``, ``llm:MODEL``)."""
    from judges.formats.nuggets import source_of

    return {"path": nuggets.path, "sha256": nuggets.sha256, "source": source_of(nuggets)}


def apply_labels(result: NuggetResult, labels) -> None:
    """The assessors' assignments (``labels``: :class:`judges.formats.labels.NuggetLabels`) replace the
    judge's: final (probability 1 of the label's level), never asked of the LLM, no judge error;
    ``result.labelled`` counts the pairs they matched."""
    for key, judged in result.judged.items():
        out = []
        for j in judged:
            word = labels.levels.get((j.run_id, j.topic_id, j.nugget_index))
            if word is None:
                out.append(j)
                continue
            path, line = labels.sources[(j.run_id, j.topic_id, j.nugget_index)]
            probs = {"support": (1.0, 0.0, 0.0), "partial_support": (0.0, 1.0, 0.0), "not_support": (0.0, 0.0, 1.0)}
            why = f"{word}: labelled by an assessor ({path} line {line}); the model said {j.explanation}"
            out.append(
                reassigned(
                    j, word, *probs[word], why, human=word, labelled=True, model=(j.p_support, j.p_partial, j.p_not)
                )
            )
            result.labelled += 1
        result.judged[key] = out


def reassigned(
    j: NuggetJudgment, assignment: str, p_support: float, p_partial: float, p_not: float, explanation: str, **more
) -> NuggetJudgment:
    """``j`` with the assignment and probabilities an assessor or the LLM decided, the expected score
    with them, its explanation and ``more`` fields."""
    return replace(
        j,
        assignment=assignment,
        p_support=p_support,
        p_partial=p_partial,
        p_not=p_not,
        score=p_support + 0.5 * p_partial,
        explanation=explanation,
        **more,
    )


_CITATION_WORDS = NUGGET.decided()  # the cascade's word for each assignment


def plan_columns(rows) -> dict:
    """The columns :func:`judges.attest.plan.make_plan` plans nugget pairs by (``rows``: judgments, or rows
    of ``NAME.nuggets.parquet``, with ``run_id``, ``topic_id``, ``nugget_index``, ``assignment``,
    ``p_support``, ``p_not``, ``score``): each pair's value (0, 0.5, 1) distributed as the judge says."""
    import numpy as np

    return {
        "run_id": np.array([j.run_id for j in rows], dtype=object),
        "topic_id": np.array([j.topic_id for j in rows], dtype=object),
        "nugget_index": np.array([j.nugget_index for j in rows], dtype=np.int64),
        "status": np.array([_CITATION_WORDS[j.assignment] for j in rows], dtype=object),
        "p_any": np.array([1.0 - j.p_not for j in rows]),
        "p_full": np.array([j.p_support for j in rows]),
        "weight": np.array([j.score for j in rows]),
    }


def nugget_plan(judged: dict, answered: dict[str, int], attest):
    """The plan over the nugget pairs (``judged``: :attr:`NuggetResult.judged`) that ``attest.mode:
    uncertain`` without a band asks by: :func:`judges.attest.plan.plan_pairs` over the kind's key
    (:func:`plan_columns`), ``answered``: topics per run; labelled pairs are never chosen."""
    import numpy as np

    from judges.attest.plan import plan_pairs

    rows = [j for key in sorted(judged) for j in judged[key]]
    labelled = np.array([j.labelled for j in rows], dtype=bool)
    ruled_out = np.zeros(len(rows), dtype=bool)

    def nuggets() -> list[str]:  # the pairs' claims, read only with prices
        return [j.nugget for j in rows]

    return plan_pairs(NUGGET, plan_columns(rows), nuggets, answered, ruled_out, labelled, attest)


def nugget_check_sample(result: NuggetResult, attest) -> dict:
    """The check sample over the nugget pairs (:func:`judges.attest.check.draw`): pairs the nugget
    model is sure of, neither labelled nor planned."""
    from judges.attest.check import draw

    rows = [j for key in sorted(result.judged) for j in result.judged[key]]
    keys = [(j.run_id, j.topic_id, j.nugget_index) for j in rows]
    plan = result.plan
    excluded = [j.labelled or (plan is not None and plan.get(k) is not None) for j, k in zip(rows, keys)]
    p_any = [1.0 - j.p_not for j in rows]
    return draw(keys, p_any, [j.p_support for j in rows], excluded, attest.check_size, attest.seed)


def attest_nuggets(
    result: NuggetResult, answered: dict[str, int], settings, log: DebugLog, degenerate: DegeneratePolicy
):
    """The cascade over the nugget pairs of ``result`` (see the module doc): replaces
    ``result.judged`` and sets ``result.attest`` (and ``result.plan``)."""
    from collections import Counter

    from judges.attest.answers import NO_OBSERVATION, estimate_error, observation
    from judges.attest.cascade import Attester, Pair, summarize
    from judges.attest.degenerate import answers_used
    from judges.attest.selection import rule

    attest = settings.workflow.attest
    if attest.mode == "uncertain" and attest.band is None:
        result.plan = nugget_plan(result.judged, answered, attest)
        log.event("PLAN", kind=NUGGET.name, **result.plan.describe())
    counts: Counter = Counter()
    check_sample = nugget_check_sample(result, attest)
    attester = Attester(
        attest, settings.llm, settings.cache_dir, log, counts, rule(attest, result.plan), settings.ask, NUGGET,
        check_sample,
    )  # fmt: skip
    try:
        keys = sorted(result.judged)
        flat = [(key, j) for key in keys for j in result.judged[key]]
        pairs = [
            Pair(
                j.nugget,
                {"run_id": j.run_id, "topic_id": j.topic_id, "nugget_index": j.nugget_index},
                (j.run_id, j.topic_id, j.nugget_index),
                _CITATION_WORDS[j.assignment],
                1.0 - j.p_not,
                j.p_support,
                j.assignment if j.labelled else None,
            )
            for _, j in flat
        ]

        def evidence(i: int) -> tuple[str, int]:
            text = result.answers[flat[i][0]]
            return text, len(text.split())

        decided = attester.decide(pairs, evidence)
    finally:
        attester.close()
    figures = summarize(Counter(counts), attest, settings.llm)
    error = attest.assumed_error
    if attest.answer_error == "estimate":  # from the nugget pairs' own answers against the model's levels
        asked = [(j, d) for (_, j), d in zip(flat, decided) if d is not None]
        found = estimate_error(
            [(j.p_not, j.p_partial, j.p_support) for j, _ in asked], [(d.answer, d.p_yes) for _, d in asked], error
        )
        error, figures["answer_error"] = found.value, found.describe()
    result.attest = figures
    log.event("ATTEST_SUMMARY", kind=NUGGET.name, **figures)
    if not answers_used(figures, strict=degenerate.strict, used=degenerate.used, pairs="nugget pairs; "):
        return  # the nugget model's judgments stand
    out: dict = {key: list(result.judged[key]) for key in keys}
    position = {key: 0 for key in keys}
    for (key, j), d in zip(flat, decided):
        k = position[key]
        position[key] += 1
        if d is None:
            continue
        probs: tuple[float, ...] = (j.p_not, j.p_partial, j.p_support)
        replaced = d.status != _CITATION_WORDS[j.assignment]  # by on_unparsed: unsupported
        observed = observation(d.answer, d.p_yes, error, replaced)
        if observed is None:  # guarded, or replaced: unsupported for sure
            probs = (1.0, 0.0, 0.0)
        elif observed != NO_OBSERVATION:  # (a parsed answer's likelihood never is)
            mass = [p * o for p, o in zip(probs, observed)]
            total = sum(mass)
            if total > 0:
                probs = tuple(m / total for m in mass)
        assignment = NUGGET.status[d.status]
        p_not, p_partial, p_support = probs
        said = d.answer if d.p_yes is None else f"{d.answer} (P(FULL) {d.p_yes:.3f})"
        why = f"{assignment}: the LLM answered {said}, which decides the level; model: {j.explanation}"
        out[key][k] = reassigned(
            j, assignment, p_support, p_partial, p_not, why, llm_answer=d.answer, llm_p_yes=d.p_yes
        )
    result.judged = out
