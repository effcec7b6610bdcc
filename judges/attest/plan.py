"""Where an answer moves the ranking most: one plan over every citation of a session.

The judge first decides every citation without an LLM. The plan then ranks the citations whose
answer (an LLM's, or an assessor's label) could change their run's score, and takes the first
``k``: exactly ``attest.budget`` of the session's judgeable citations (or ``attest.count``), or
the share an organiser gives ``plan-assessments``. Only then are questions asked.

A citation's *expected gain* is

    gain = leverage x spread x order

* ``spread``: how far, on average, the weight people would give the citation (0, 0.5 or 1,
  TREC 2024's none / partial / full support) lies from the weight the leaderboard gives it now,
  its expected weight under the support model's ``P(any)`` and ``P(full)``
  (:func:`weight_spread`); full support weighs 0.5 where the grounding cap rules it out. A
  citation the model is sure of has spread near 0; one torn between none and full, 0.5;
* ``leverage``: the citation's weight in its run's ``all`` value, ``1 / (n x T)`` for a report
  of ``n`` judged citations in a run that answered ``T`` topics (a run's ``all`` is the mean of
  its reports' means): one citation of a short report of a run that answered few topics can move
  the run far;
* ``order`` (``attest.plan_order``, on by default): ``1 +`` the expected number of other runs
  whose order with this run the judge gets wrong, each pair ``Phi(-|gap| / sd)`` with ``gap``
  the runs' present scores and ``sd`` the spread of their difference from the citations' own
  uncertainty: an answer about a run packed among others moves the ranking more than one about a
  run far ahead of the rest.

Labels for the intervals (``plan-assessments``, :func:`make_plan` with ``mix``) are drawn with
known probabilities: a share ``mix`` at random (:func:`inclusion_probabilities`,
:func:`systematic_draw`), the rest for sure where, labelled one after another, they narrow their
runs' intervals most (:func:`narrowing`, the intervals' model with the shipped spreads of
``judges/scores/intervals.json``): on rag24-support's unseen topics that raised run tau and narrowed the
intervals more than the largest gains did (bench/intervals.py).

Citations the judge cannot read (cross-language) have no probabilities: their spread is taken
as the largest possible, 0.5. Missing documents, labelled citations and guarded ones are never
planned. Ties are broken by the citation's key, so the plan depends only on the first pass's
judgments: the same whatever ``--workers``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, NamedTuple, Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from judges.attest.kinds import CITATION, PairKind
from judges.core.vocabulary import WEIGHT

#: The columns naming one citation (the assessments table's sort key).
KEY = ("run_id", "topic_id", "sentence_index", "citation_rank")
PLAN_MIX = 0.35  # plan-assessments: the share of the draws spread evenly over the candidates (the rest for sure)
# the judge's shared errors the intervals assume (beside judges.scores.intervals, which reads them too)
SPREADS = Path(__file__).resolve().parents[1] / "scores" / "intervals.json"
UNREADABLE_SPREAD = 0.5  # a citation without probabilities (cross-language): the most an answer can move it


def weight_spread(p_any, p_full, full_ruled_out=False) -> np.ndarray:
    """``E|w - E[w]|`` of a citation's TREC weight ``w`` under the support model's levels: none
    ``1 - P(any)``, partial ``P(any) - P(full)``, full ``P(full)`` (weighing 0.5 where
    ``full_ruled_out``)."""
    p_any = np.asarray(p_any, dtype=np.float64)
    p_full = np.minimum(np.asarray(p_full, dtype=np.float64), p_any)
    full_w = np.where(full_ruled_out, WEIGHT["partial"], WEIGHT["supported"])
    none, partial = 1.0 - p_any, p_any - p_full
    mean = WEIGHT["partial"] * partial + full_w * p_full
    return none * mean + partial * np.abs(WEIGHT["partial"] - mean) + p_full * np.abs(full_w - mean)


def weight_variance(p_any, p_full, full_ruled_out=False) -> np.ndarray:
    """``Var(w)`` of a citation's TREC weight under the support model's levels (as :func:`weight_spread`)."""
    p_any = np.asarray(p_any, dtype=np.float64)
    p_full = np.minimum(np.asarray(p_full, dtype=np.float64), p_any)
    full_w = np.where(full_ruled_out, WEIGHT["partial"], WEIGHT["supported"])
    partial = p_any - p_full
    mean = WEIGHT["partial"] * partial + full_w * p_full
    return WEIGHT["partial"] ** 2 * partial + full_w**2 * p_full - mean**2


def leverage(run_ids: np.ndarray, topic_ids: np.ndarray, answered: dict[str, int]) -> np.ndarray:
    """Each citation's weight in its run's ``all`` value: ``1 / (n x T)`` (see the module doc);
    ``answered``: the number of topics each run answered."""
    if len(run_ids) == 0:
        return np.zeros(0)
    reports = np.char.add(np.char.add(np.asarray(run_ids, dtype=str), "\x00"), np.asarray(topic_ids, dtype=str))
    _, inverse, sizes = np.unique(reports, return_inverse=True, return_counts=True)
    t = np.array([max(answered.get(r, 1), 1) for r in run_ids], dtype=np.float64)
    return 1.0 / (sizes[inverse].astype(np.float64) * t)


def _phi(x: np.ndarray) -> np.ndarray:
    return 0.5 * np.vectorize(math.erfc)(-x / math.sqrt(2.0))


def order_factor(run_ids: np.ndarray, lev: np.ndarray, weights: np.ndarray, variance: np.ndarray) -> np.ndarray:
    """Per citation: ``1 +`` the expected number of runs its run is misordered with (module doc).

    A run's score is the sum of ``leverage x weight`` over its citations (reports without
    citations add 0); the spread of the error is ``sqrt(sum leverage^2 x variance)``.
    """
    runs, inverse = np.unique(run_ids, return_inverse=True)
    score = np.bincount(inverse, lev * weights, minlength=len(runs))
    var = np.bincount(inverse, lev**2 * variance, minlength=len(runs))
    gap = np.abs(score[:, None] - score[None, :])
    sd = np.sqrt(var[:, None] + var[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        flip = np.where(sd > 0, _phi(-gap / np.where(sd > 0, sd, 1.0)), 0.0)
    np.fill_diagonal(flip, 0.0)
    return (1.0 + flip.sum(axis=1))[inverse]


@dataclass(frozen=True)
class Quota:
    """How many pairs a plan takes (:func:`make_plan`): ``count``, else a ``budget`` share of the
    plannable; at most ``max_cost`` in all at the pairs' estimated question costs; ``mix``: the
    share drawn at random (labels for the intervals, ``plan-assessments``) from ``seed``."""

    budget: Optional[float] = None
    count: Optional[int] = None
    max_cost: Optional[float] = None
    mix: Optional[float] = None
    seed: int = 0


class Planned(NamedTuple):
    """One planned citation: its rank in the plan (1 = first asked), expected gain, and the
    probability it was drawn with (1: chosen for sure)."""

    rank: int
    gain: float
    why: str
    probability: float = 1.0


class Plan:
    """The chosen citations of a session, by key (:data:`KEY`), with their rank and gain."""

    def __init__(
        self,
        chosen: dict[tuple, Planned],
        candidates: int,
        wanted: int,
        cost: Optional[float] = None,
        check: Optional[dict[tuple, str]] = None,
    ):
        self.chosen, self.candidates, self.wanted, self.cost = chosen, candidates, wanted, cost
        self.check: dict[tuple, str] = check or {}  # the check sample asked beside it (judges.attest.check.draw)

    def checking(self, sample: dict[tuple, str]) -> "Plan":
        """The same plan with the check sample ``sample`` asked beside it."""
        return Plan(self.chosen, self.candidates, self.wanted, self.cost, sample)

    def __len__(self) -> int:
        return len(self.chosen)

    def get(self, key: tuple) -> Optional[Planned]:
        return self.chosen.get(key)

    def describe(self) -> dict:
        """The plan's figures, for the summary and ``config.yml``."""
        out: dict[str, float] = {"candidates": self.candidates, "chosen": len(self.chosen)}
        if self.cost is not None:
            out["estimated_cost"] = self.cost
        return out

    def rows(self) -> list[tuple]:
        """One row per chosen citation, in plan order: the key, rank, expected gain and why."""
        return sorted(((*k, p.rank, p.gain, p.why) for k, p in self.chosen.items()), key=lambda r: r[4])


class Parts(NamedTuple):
    """Per citation of a session: what its plan is made of."""

    spread: np.ndarray  # E|w - E[w]| (:func:`weight_spread`)
    variance: np.ndarray  # Var(w) (:func:`weight_variance`)
    leverage: np.ndarray  # its weight in its run's all value (:func:`leverage`)
    plannable: np.ndarray  # it has probabilities, or it is cross-language


def parts(columns: Mapping[str, np.ndarray], answered: dict[str, int], full_ruled_out: np.ndarray) -> Parts:
    """Per citation (``columns``: arrays of :data:`KEY`, ``status``, ``p_any``, ``p_full`` with NaN
    for none): its spread, variance, leverage and whether it can be planned."""
    status = np.asarray(columns["status"])
    p_any = np.asarray(columns["p_any"], dtype=np.float64)
    p_full = np.asarray(columns["p_full"], dtype=np.float64)
    probabilistic = ~np.isnan(p_any) & ~np.isnan(p_full)
    unreadable = status == "cross_language"
    plannable = probabilistic | unreadable
    safe_any, safe_full = np.where(probabilistic, p_any, 0.0), np.where(probabilistic, p_full, 0.0)
    spread = np.where(probabilistic, weight_spread(safe_any, safe_full, full_ruled_out), 0.0)
    spread = np.where(unreadable, UNREADABLE_SPREAD, spread)
    variance = np.where(probabilistic, weight_variance(safe_any, safe_full, full_ruled_out), 0.0)
    variance = np.where(unreadable, UNREADABLE_SPREAD**2, variance)
    lev = leverage(np.asarray(columns["run_id"]), np.asarray(columns["topic_id"]), answered)
    return Parts(spread, variance, lev, plannable)


def gains(
    columns: Mapping[str, np.ndarray],
    answered: dict[str, int],
    full_ruled_out: np.ndarray,
    order: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Per citation (``columns``: arrays of :data:`KEY`, ``status``, ``p_any``, ``p_full`` with NaN
    for none, and ``weight``): its expected gain (0 where it cannot be planned) and whether it can
    be planned."""
    spread, variance, lev, plannable = parts(columns, answered, full_ruled_out)
    gain = lev * spread
    if order:
        run_ids = np.asarray(columns["run_id"])
        gain = gain * order_factor(run_ids, lev, np.asarray(columns["weight"], dtype=np.float64), variance)
    return np.where(plannable, gain, 0.0), plannable


def shipped_spreads() -> tuple[float, float]:
    """The judge's shared errors the intervals assume without a calibrated model
    (``judges/scores/intervals.json``, :func:`judges.scores.intervals.session_spreads`): ``(report_sd, the sd
    shared by a run's citations: run_sd and regime_sd together)``."""
    shipped = json.loads(SPREADS.read_text(encoding="utf-8"))
    return float(shipped["report_sd"]), math.hypot(float(shipped["run_sd"]), float(shipped["regime_sd"]))


def narrowing(run_ids, topic_ids, lev, variance, candidate, k: int, report_sd: float, run_sd: float) -> np.ndarray:
    """The ``k`` rows of ``candidate`` that, labelled one after another, narrow their runs'
    intervals the most: each time the citation whose label lowers the sd of its run's judge error
    most (the intervals' model, :func:`judges.scores.intervals.judge_variance`, with ``u_t / T`` the
    leverage of a report's unlabelled candidates: ``V = sum lev^2 Var(w) + report_sd^2 sum_t
    a_t^2 + run_sd^2 A^2``, ``a_t`` a report's and ``A`` the run's unlabelled leverage), by
    ``dV / sqrt(V)``. A label where the run is uncertain, its report short and the run's topics
    few narrows most; once a run has some, the next goes where it narrows more. Ties: the first
    row. Returns the rows in the order taken."""
    run_ids, topic_ids = np.asarray(run_ids).astype(str), np.asarray(topic_ids).astype(str)
    lev, variance = np.asarray(lev, dtype=np.float64), np.asarray(variance, dtype=np.float64)
    candidate = np.asarray(candidate, dtype=bool)
    reports = np.char.add(np.char.add(run_ids, "\x00"), topic_ids)
    _, report = np.unique(reports, return_inverse=True)
    a = np.bincount(report, np.where(candidate, lev, 0.0))  # per report: the leverage of unlabelled candidates
    runs, run = np.unique(run_ids, return_inverse=True)
    big_a = np.bincount(run, np.where(candidate, lev, 0.0), minlength=len(runs))
    rows_of = [np.flatnonzero((run == r) & candidate) for r in range(len(runs))]
    rep_sum = np.zeros(len(runs))
    np.add.at(rep_sum, run[np.unique(report, return_index=True)[1]], a**2)
    total = np.bincount(run, np.where(candidate, lev**2 * variance, 0.0), minlength=len(runs))
    total += report_sd**2 * rep_sum + run_sd**2 * big_a**2
    open_ = candidate.copy()

    def gain(r: int) -> tuple[np.ndarray, np.ndarray]:
        i = rows_of[r][open_[rows_of[r]]]
        d = lev[i] ** 2 * variance[i]
        d = d + report_sd**2 * (a[report[i]] ** 2 - (a[report[i]] - lev[i]) ** 2)
        d = d + run_sd**2 * (big_a[r] ** 2 - (big_a[r] - lev[i]) ** 2)
        return i, d

    best = np.full(len(runs), -np.inf)
    best_row = np.zeros(len(runs), dtype=np.int64)
    best_d = np.zeros(len(runs))

    def refresh(r: int) -> None:
        i, d = gain(r)
        if len(i) == 0:
            best[r] = -np.inf
            return
        score = d / math.sqrt(total[r]) if total[r] > 0 else d
        j = int(np.argmax(np.round(score, 15)))
        best[r], best_row[r], best_d[r] = float(score[j]), int(i[j]), float(d[j])

    for r in range(len(runs)):
        refresh(r)
    taken = []
    for _ in range(min(int(k), int(candidate.sum()))):
        r = int(np.argmax(best))
        i = int(best_row[r])
        taken.append(i)
        open_[i] = False
        total[r] = max(total[r] - best_d[r], 0.0)
        a[report[i]] -= lev[i]
        big_a[r] -= lev[i]
        refresh(r)
    return np.array(taken, dtype=np.int64)


def inclusion_probabilities(gain: np.ndarray, k: int, mix: float = PLAN_MIX, first=None) -> np.ndarray:
    """Each candidate's probability of being drawn when ``k`` are drawn: the ``k - round(mix x k)``
    of largest ``gain`` for sure (probability 1: what moves the ranking most; ties in row order;
    ``first``: the rows in the order to take them instead, e.g. :func:`narrowing`'s),
    the other ``round(mix x k)`` at random among the rest, each with the same probability (drawn by
    :func:`systematic_draw` in key order, so spread over runs and topics as strata would be): every
    citation, and every run, keeps a chance of being checked."""
    gain = np.asarray(gain, dtype=np.float64)
    n = len(gain)
    k = max(0, min(int(k), n))
    pi = np.zeros(n)
    at_random = int(round(mix * k))
    order = np.argsort(-np.round(gain, 12), kind="stable") if first is None else np.asarray(first, dtype=np.int64)
    top = order[: k - at_random]
    pi[top] = 1.0
    if at_random:
        pi[pi < 1.0] = at_random / (n - len(top))
    return pi


def systematic_draw(pi: np.ndarray, seed: int = 0) -> np.ndarray:
    """The rows drawn by systematic sampling with inclusion probabilities ``pi`` in the rows' order
    (each row is drawn with probability exactly its ``pi``; the order, by run and topic, spreads the
    draws over runs and topics like strata): one random start in [0, 1), then every unit step."""
    cum = np.concatenate([[0.0], np.cumsum(pi)])
    start = float(np.random.default_rng(seed).random())
    points = start + np.arange(int(math.ceil(cum[-1] - start - 1e-12)))
    rows = np.searchsorted(cum, points, side="right") - 1
    return np.unique(np.concatenate([rows[(rows >= 0) & (rows < len(pi))], np.flatnonzero(pi >= 1.0)]))


def wanted_count(candidates: int, budget: Optional[float] = None, count: Optional[int] = None) -> int:
    """How many citations a plan takes: ``count``, else ``budget`` of ``candidates`` (rounded)."""
    if count is not None:
        return max(0, min(int(count), candidates))
    return max(0, min(int(math.floor((budget or 0.0) * candidates + 0.5)), candidates))


def make_plan(
    columns: Mapping[str, np.ndarray],
    answered: dict[str, int],
    full_ruled_out: np.ndarray,
    quota: Quota = Quota(),
    *,
    exclude: Optional[np.ndarray] = None,
    order: bool = True,
    costs: Optional[np.ndarray] = None,
    key: tuple[str, ...] = KEY,
) -> Plan:
    """The plan over the citations of ``columns`` (one row per judged citation; see :func:`gains`):
    the ``quota.count`` (else ``quota.budget`` share of the plannable) citations of largest gain;
    ``exclude`` marks rows never chosen (already labelled). Ties go to the smaller key. With
    ``quota.max_cost``, it stops before the summed ``costs`` (each citation's estimated question
    cost) would exceed it. With ``quota.mix`` (labels for the intervals, ``plan-assessments``), a
    share ``mix`` of them is drawn at random instead (:func:`inclusion_probabilities`,
    :func:`systematic_draw` from ``quota.seed``), the rest taken for sure where they narrow the
    intervals most (:func:`narrowing`), and every chosen citation carries the probability it was
    drawn with. ``key``: the columns naming one pair (:data:`KEY` for citations; a
    :class:`judges.attest.kinds.PairKind`'s ``key``)."""
    budget, count, max_cost, mix, seed = quota.budget, quota.count, quota.max_cost, quota.mix, quota.seed
    gain, plannable = gains(columns, answered, full_ruled_out, order)
    spread, variance, lev, _ = parts(columns, answered, full_ruled_out)
    if exclude is not None:
        plannable = plannable & ~exclude
    candidates = int(plannable.sum())
    k = wanted_count(candidates, budget, count)
    idx = np.flatnonzero(plannable)
    key_cols = [np.asarray(columns[c]) for c in key]
    as_python = [int if np.issubdtype(col.dtype, np.integer) else str for col in key_cols]
    # largest gain first; equal gains in key order (a stable sort of the key-sorted rows)
    idx = idx[np.lexsort(tuple(col[idx] for col in reversed(key_cols)))]
    probability = np.ones(len(gain))
    if mix is not None:  # idx in key order: the draws spread over runs and topics
        sure = k - int(round(mix * k))  # chosen for sure where they narrow the intervals most
        run_ids, topic_ids = np.asarray(columns["run_id"])[idx], np.asarray(columns["topic_id"])[idx]
        first = narrowing(
            run_ids, topic_ids, lev[idx], variance[idx], np.ones(len(idx), bool), sure, *shipped_spreads()
        )
        pi = inclusion_probabilities(gain[idx], k, mix, first)
        probability[idx] = pi
        idx = idx[systematic_draw(pi, seed)]
    idx = idx[np.argsort(-np.round(gain[idx], 12), kind="stable")][:k]
    cost = 0.0
    if max_cost is not None and costs is not None:
        spent = np.cumsum(np.asarray(costs, dtype=np.float64)[idx])
        idx = idx[: int(np.searchsorted(spent, max_cost * (1 + 1e-12), side="right"))]
        cost = float(spent[len(idx) - 1]) if len(idx) else 0.0
    elif costs is not None:
        cost = float(np.asarray(costs, dtype=np.float64)[idx].sum())
    status = np.asarray(columns["status"])
    chosen: dict[tuple, Planned] = {}
    for rank, i in enumerate(idx.tolist(), start=1):
        named = tuple(cast(col[i]) for cast, col in zip(as_python, key_cols))
        why = (
            "cross-language: the judge cannot read it"
            if status[i] == "cross_language"
            else f"expected gain {gain[i]:.4g}: rank {rank} of {candidates}"
        )
        if probability[i] < 1.0:
            why = f"drawn at random (probability {probability[i]:.4g}): expected gain {gain[i]:.4g}"
        chosen[named] = Planned(rank, float(f"{gain[i]:.8g}"), why, float(probability[i]))
    return Plan(chosen, candidates, k, round(cost, 6) if costs is not None else None)


def plan_session(
    table: pa.Table,
    answered: dict[str, int],
    cap: tuple[str, ...],
    quota: Quota = Quota(),
    *,
    order: bool = True,
    question_cost=None,
    exclude: Optional[np.ndarray] = None,
) -> Plan:
    """The plan over a session's first-pass assessments (:data:`judges.formats.tables.ASSESSMENT_SCHEMA`):
    ``cap`` is ``grounding.cap`` (the kinds whose absence rules full support out); citations with a
    human label, or marked in ``exclude`` (booleans in the table's rows' order), are never chosen;
    ``question_cost(sentence)`` estimates a question's cost, and ``quota.max_cost`` caps their sum.
    The table is put in key order first, so the plan is the same whatever order worker processes
    returned their parts in. ``quota``: see :func:`make_plan`."""
    columns, ruled_out, labelled, sentences = citation_columns(table, cap, exclude)
    costs = None
    if question_cost is not None:  # the estimated cost of asking about each citation (its sentence)
        costs = np.array([question_cost(text) for text in sentences()], dtype=np.float64)
    return make_plan(columns, answered, ruled_out, quota, exclude=labelled, order=order, costs=costs)


def citation_columns(
    table: pa.Table, cap: tuple[str, ...], exclude: Optional[np.ndarray] = None
) -> tuple[dict, np.ndarray, np.ndarray, Callable[[], list[str]]]:
    """What :func:`make_plan` plans citations by (``table``: first-pass assessments, put in key
    order first): the columns, whether ``cap`` rules full support out, whether a citation is never
    chosen (a human label, or marked in ``exclude``, in the table's rows' order) and each one's
    claim, its sentence, read when asked for (the nugget's: :func:`judges.engine.nuggets.plan_columns`)."""
    in_order = pc.sort_indices(table, [(c, "ascending") for c in KEY])
    table = table.take(in_order)
    columns = {c: table[c].to_numpy(zero_copy_only=False) for c in (*KEY, "status", "p_any", "p_full", "weight")}
    ruled_out = np.zeros(table.num_rows, dtype=bool)
    for kind in cap:
        ruled_out |= np.nan_to_num(table[f"f_{kind}_missing"].to_numpy(zero_copy_only=False).astype(np.float64)) > 0
    labelled = table["human_label"].is_valid().to_numpy(zero_copy_only=False)
    if exclude is not None:
        labelled = labelled | np.asarray(exclude, dtype=bool)[in_order.to_numpy()]
    return columns, ruled_out, labelled, lambda: table["sentence"].to_pylist()


def plan_pairs(
    kind: PairKind,
    columns: Mapping[str, np.ndarray],
    claims: Callable[[], list[str]],
    answered: dict[str, int],
    ruled_out: np.ndarray,
    labelled: np.ndarray,
    attest,
) -> Plan:
    """The plan ``attest.mode: uncertain`` without a band asks by, over the pairs of any kind (the
    kind supplies only its ``columns``, ``claims``, each pair's, read only with prices, the pairs
    whose full support is ``ruled_out`` and the ``labelled`` ones, never chosen; see
    :func:`make_plan`): the workflow's ``attest.count``
    (else ``attest.budget``), ``plan_order`` and ``max_cost``, each question's cost estimated at
    ``attest``'s prices for the kind's question about its claim."""
    budget = None if attest.count is not None else attest.budget
    ask = question_costs(attest, kind.question(attest.question))
    costs = np.array([ask(c) for c in claims()], dtype=np.float64) if ask is not None else None
    quota = Quota(budget, attest.count, attest.max_cost)
    return make_plan(
        columns, answered, ruled_out, quota, exclude=labelled, order=attest.plan_order, costs=costs, key=kind.key
    )


def attest_plan(table: pa.Table, answered: dict[str, int], workflow) -> Plan:
    """The plan ``attest.mode: uncertain`` without a band asks by, over first-pass assessments:
    the workflow's ``attest.count`` (else ``attest.budget``), ``plan_order`` and ``max_cost`` (at
    its prices) and ``grounding.cap`` (:func:`plan_session`). The batch judge plans a session with
    it, :func:`judges.check_answer` one answer."""
    columns, ruled_out, labelled, sentences = citation_columns(table, workflow.grounding.cap)
    return plan_pairs(CITATION, columns, sentences, answered, ruled_out, labelled, workflow.attest)


def question_costs(attest, question: Optional[str] = None):
    """What asking one question is estimated to cost, as a function of its claim (a citation's
    sentence, a nugget), at ``attest``'s prices (:func:`judges.attest.prompt.question_cost`);
    ``question``: the prompt asked (a :class:`judges.attest.kinds.PairKind`'s; default
    ``attest.question``). None without prices."""
    if not (attest.price_per_1k_input or attest.price_per_1k_output):
        return None
    from judges.attest.prompt import question_cost

    return question_cost(attest if question is None else attest.model_copy(update={"question": question}))


def parse_share(text: str, option: str = "--budget") -> float:
    """``"5%"`` or ``"0.05"`` as a share in [0, 1]; else ``ValueError`` naming ``option``."""
    raw = text.strip()
    try:
        value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise ValueError(f"{option}: {text!r} is not a share (e.g. 5% or 0.05)") from None
    if not 0 <= value <= 1 or value != value:
        raise ValueError(f"{option}: {text!r} is not between 0 and 100%")
    return value
