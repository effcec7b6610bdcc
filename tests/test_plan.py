"""The session's plan (:mod:`judges.attest.plan`): which citations an answer is sought for, and the rule
``attest.mode: uncertain`` sends by (:mod:`judges.attest.selection`)."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judges.attest.selection import Band, Planned
from judges.scores.intervals import Spreads, judge_variance
from judges.attest.plan import (
    KEY,
    inclusion_probabilities,
    leverage,
    Quota,
    make_plan,
    narrowing,
    order_factor,
    parts,
    shipped_spreads,
    plan_session,
    systematic_draw,
    wanted_count,
    weight_spread,
    weight_variance,
)
from judges.support.model import expected_error

LEVEL_WEIGHTS = np.array([0.0, 0.5, 1.0])


@given(p=st.tuples(st.floats(0, 1), st.floats(0, 1)), ruled_out=st.booleans())
def test_spread_and_variance_are_their_definitions_over_the_three_levels(p, ruled_out):
    p_any, p_full = max(p), min(p)
    probs = np.array([1 - p_any, p_any - p_full, p_full])
    weights = np.array([0.0, 0.5, 0.5 if ruled_out else 1.0])
    mean = probs @ weights
    spread = weight_spread(np.array([p_any]), np.array([p_full]), np.array([ruled_out]))[0]
    variance = weight_variance(np.array([p_any]), np.array([p_full]), np.array([ruled_out]))[0]
    assert spread == pytest.approx(probs @ np.abs(weights - mean), abs=1e-12)
    assert variance == pytest.approx(probs @ (weights - mean) ** 2, abs=1e-12)


def test_spread_is_small_where_the_model_is_sure_and_largest_between_none_and_full():
    sure = weight_spread(np.array([0.99, 0.02]), np.array([0.98, 0.01]))
    torn = weight_spread(np.array([0.5]), np.array([0.5]))
    assert sure.max() < 0.03 and torn[0] == pytest.approx(0.5)


@given(p=st.tuples(st.floats(0, 1), st.floats(0, 1)))
def test_expected_error_of_a_status_is_the_mean_distance_of_its_weight(p):
    p_any, p_full = max(p), min(p)
    probs = np.array([1 - p_any, p_any - p_full, p_full])
    for level in range(3):
        by_definition = float(probs @ np.abs(LEVEL_WEIGHTS - LEVEL_WEIGHTS[level]))
        got = expected_error(np.array([p_any]), np.array([p_full]), np.array([level]))[0]
        assert got == pytest.approx(by_definition, abs=1e-12)


def test_leverage_is_a_citations_weight_in_its_runs_all_value():
    runs = np.array(["a"] * 12 + ["b"] * 4)
    topics = np.array(["1"] * 10 + ["2"] * 2 + ["1"] * 4)
    lev = leverage(runs, topics, {"a": 2, "b": 2})  # b answered topic 2 without citations
    assert lev[0] == pytest.approx(1 / (10 * 2)) and lev[10] == pytest.approx(1 / (2 * 2))
    assert lev[12] == pytest.approx(1 / (4 * 2))
    # a run's all value is the mean of its reports' means: its citations' leverages sum to its topics with citations / T
    assert lev[:12].sum() == pytest.approx(2 / 2) and lev[12:].sum() == pytest.approx(1 / 2)


def test_a_run_packed_among_others_weighs_more_than_one_far_ahead():
    runs = np.array(["far", "near1", "near2", "near3"])
    lev = np.ones(4)
    weights = np.array([0.95, 0.40, 0.41, 0.42])
    variance = np.full(4, 0.01)
    factor = order_factor(runs, lev, weights, variance)
    assert factor[0] == pytest.approx(1.0, abs=1e-3)
    assert min(factor[1:]) > 1.8  # two close neighbours each, each pair nearly a coin toss


def columns(n_runs: int, sizes: list[int], seed: int = 0) -> dict:
    """A session of reports of ``sizes`` citations, dealt to ``n_runs`` runs, with random probabilities."""
    rng = np.random.default_rng(seed)
    rows = []
    for i, n in enumerate(sizes):
        for s in range(n):
            rows.append((f"r{i % n_runs}", f"t{i}", s, 0))
    n = len(rows)
    p = np.sort(rng.random((n, 2)), axis=1)
    status = rng.choice(
        ["supported", "partial", "unsupported", "missing", "cross_language"], n, p=[0.4, 0.2, 0.3, 0.05, 0.05]
    )
    p_any = np.where(np.isin(status, ["missing", "cross_language"]), np.nan, p[:, 1])
    p_full = np.where(np.isin(status, ["missing", "cross_language"]), np.nan, p[:, 0])
    cols = {k: np.array([r[j] for r in rows], dtype=object if j < 2 else np.int64) for j, k in enumerate(KEY)}
    weight = np.nan_to_num(p_full + 0.5 * (p_any - p_full))
    return {**cols, "status": status, "p_any": p_any, "p_full": p_full, "weight": weight}


@settings(max_examples=50, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 30), min_size=1, max_size=10),
    n_runs=st.integers(1, 4),
    budget=st.floats(0, 1),
    order=st.booleans(),
)
def test_the_plan_takes_exactly_its_budget_of_the_plannable_citations(sizes, n_runs, budget, order):
    cols = columns(n_runs, sizes)
    n = len(cols["status"])
    labelled = np.zeros(n, dtype=bool)
    labelled[::5] = True
    plan = make_plan(
        cols, {f"r{i}": 3 for i in range(n_runs)}, np.zeros(n, bool), Quota(budget), exclude=labelled, order=order
    )
    plannable = ~np.isin(cols["status"], ["missing"]) & ~labelled
    assert plan.candidates == int(plannable.sum())
    assert len(plan) == wanted_count(plan.candidates, budget)
    assert abs(len(plan) - budget * plan.candidates) <= 0.5 + 1e-9  # within one citation
    keys = list(zip(*(cols[k] for k in KEY)))
    chosen_rows = {keys.index(k) for k in plan.chosen}
    assert not any(labelled[i] or cols["status"][i] == "missing" for i in chosen_rows)
    ranks = sorted(p.rank for p in plan.chosen.values())
    assert ranks == list(range(1, len(plan) + 1))
    gains = [p.gain for p in sorted(plan.chosen.values())]
    assert gains == sorted(gains, reverse=True)  # rank 1 has the largest gain


def test_the_plan_prefers_uncertain_citations_of_short_reports():
    cols = columns(2, [1, 20])
    cols["p_any"][:] = 0.5
    cols["p_full"][:] = 0.5
    cols["status"][:] = "partial"
    plan = make_plan(cols, {"r0": 1, "r1": 1}, np.zeros(21, bool), Quota(count=1), order=False)
    assert list(plan.chosen) == [("r0", "t0", 0, 0)]  # the one citation of its report
    plan = make_plan(cols, {"r0": 1, "r1": 1}, np.zeros(21, bool), Quota(count=3), order=False)
    assert list(plan.chosen)[1:] == [("r1", "t1", 0, 0), ("r1", "t1", 1, 0)]  # equal gains: key order


def test_a_session_plan_is_the_same_whatever_order_the_rows_come_in():
    cols = columns(3, [4, 9, 2, 7, 5, 3])
    n = len(cols["status"])
    fields = {
        **{k: pa.array(list(cols[k])) for k in KEY},
        "status": pa.array(list(cols["status"])),
        "p_any": pa.array([None if np.isnan(v) else v for v in cols["p_any"]], pa.float64()),
        "p_full": pa.array([None if np.isnan(v) else v for v in cols["p_full"]], pa.float64()),
        "weight": pa.array(cols["weight"]),
        "f_numbers_missing": pa.array(np.arange(n) % 7 == 0, pa.float64()),
        "f_entities_missing": pa.array(np.zeros(n)),
        "human_label": pa.array([None] * n, pa.string()),
    }
    table = pa.table(fields)
    answered = {"r0": 2, "r1": 2, "r2": 2}
    first = plan_session(table, answered, ("numbers", "entities"), Quota(budget=0.3))
    for perm in itertools.islice(itertools.permutations(range(3)), 1, 3):
        order = np.concatenate([np.flatnonzero(np.arange(n) % 3 == k) for k in perm])
        again = plan_session(table.take(order), answered, ("numbers", "entities"), Quota(budget=0.3))
        assert again.chosen == first.chosen
    uncapped = plan_session(table, answered, (), Quota(budget=0.3))
    assert uncapped.candidates == first.candidates


def test_the_rules_say_whether_and_why():
    cols = columns(1, [4])
    plan = make_plan(cols, {"r0": 1}, np.zeros(4, bool), Quota(count=1))
    rule = Planned(plan)
    (key,) = plan.chosen
    j = SimpleNamespace(p_any=0.8, p_full=0.5)
    assert rule.sends(key, j) and rule.fields(key, j)["plan_rank"] == 1
    other = ("r0", "t0", 99, 0)
    assert not rule.sends(other, j) and rule.fields(other, j)["planned"] is False
    band = Band(0.2, 0.7)
    assert band.sends(other, j) and not band.sends(other, SimpleNamespace(p_any=1.0, p_full=1.0))
    assert not band.sends(other, SimpleNamespace(p_any=None, p_full=None))


def test_a_cost_cap_stops_the_plan_before_it_is_exceeded():
    cols = columns(2, [6, 9, 4])
    n = len(cols["status"])
    costs = np.linspace(0.5, 1.5, n)
    free = make_plan(cols, {"r0": 2, "r1": 1}, np.zeros(n, bool), Quota(budget=1.0), costs=costs)
    capped = make_plan(cols, {"r0": 2, "r1": 1}, np.zeros(n, bool), Quota(budget=1.0, max_cost=4.0), costs=costs)
    keys = list(zip(*(cols[k] for k in KEY)))
    cost_of = {(str(r), str(t), int(s), int(c)): costs[i] for i, (r, t, s, c) in enumerate(keys)}
    order = sorted(free.chosen, key=lambda k: free.chosen[k].rank)
    spent = np.cumsum([cost_of[k] for k in order])
    expected = int((spent <= 4.0).sum())
    assert len(capped) == expected and 0 < expected < len(free)
    assert list(capped.chosen) == [k for k in order[:expected]]  # the same order, cut short
    assert capped.describe()["estimated_cost"] == pytest.approx(spent[expected - 1])
    assert spent[expected - 1] <= 4.0 < spent[expected]


def test_a_cost_cap_needs_prices():
    from pydantic import ValidationError

    from judges.core.config import AttestSettings

    with pytest.raises(ValidationError, match="max_cost needs price_per_1k_input or price_per_1k_output"):
        AttestSettings(max_cost=1.0)
    assert AttestSettings(max_cost=1.0, price_per_1k_input=0.0025).max_cost == 1.0


# -- labels for the intervals: drawn with known probabilities ----------------------------------------
@given(
    gain=st.lists(st.floats(0, 1), min_size=1, max_size=40),
    share=st.floats(0, 1),
    mix=st.sampled_from([0.0, 0.2, 0.5, 1.0]),
)
def test_inclusion_probabilities_take_the_top_for_sure_and_spread_the_rest(gain, share, mix):
    gain = np.array(gain)
    k = int(round(share * len(gain)))
    pi = inclusion_probabilities(gain, k, mix)
    assert pi.sum() == pytest.approx(k) and (pi <= 1).all()
    assert (pi > 0).sum() == (len(gain) if round(mix * k) else k)  # with draws at random, every one has a chance
    sure = pi == 1.0
    assert sure.sum() == (k - round(mix * k) if k < len(gain) else k)  # all drawn: each for sure
    if sure.any() and (~sure).any():  # the sure ones have the largest gains; the others one probability each
        assert gain[sure].min() >= gain[~sure].max() - 1e-12
        assert len(set(np.round(pi[~sure], 12))) == 1


def test_systematic_draws_take_each_citation_with_its_probability():
    rng = np.random.default_rng(0)
    pi = inclusion_probabilities(rng.exponential(size=200), 30, 0.5)
    seen = np.zeros(200)
    for seed in range(3000):
        drawn = systematic_draw(pi, seed)
        assert len(drawn) == 30 and len(set(drawn.tolist())) == 30
        seen[drawn] += 1
    assert np.abs(seen / 3000 - pi).max() < 0.03  # a binomial's sd at p = 0.1, 3000 draws: 0.0055
    assert (seen[pi == 1.0] == 3000).all()


def test_a_plan_for_labels_draws_a_share_at_random_and_records_the_probabilities():
    cols = columns(6, [5, 3, 8, 2, 6, 4] * 4, seed=3)
    answered = dict.fromkeys(set(cols["run_id"].tolist()), 4)
    ruled = np.zeros(len(cols["run_id"]), dtype=bool)
    plan = make_plan(cols, answered, ruled, Quota(count=12, mix=0.5))
    again = make_plan(cols, answered, ruled, Quota(count=12, mix=0.5))
    other = make_plan(cols, answered, ruled, Quota(count=12, mix=0.5, seed=1))
    top = make_plan(cols, answered, ruled, Quota(count=6))
    assert len(plan) == 12 and plan.chosen == again.chosen and set(plan.chosen) != set(other.chosen)
    probabilities = sorted(p.probability for p in plan.chosen.values())
    assert probabilities[6:] == [1.0] * 6 and probabilities[5] == pytest.approx(6 / (plan.candidates - 6))
    # the sure ones: where, labelled one after another, they narrow their runs' intervals most
    keys = list(zip(*(cols[c].tolist() for c in KEY)))
    spread, variance, lev, plannable = parts(cols, answered, ruled)
    idx = np.flatnonzero(plannable)
    first = narrowing(
        cols["run_id"][idx],
        cols["topic_id"][idx],
        lev[idx],
        variance[idx],
        np.ones(len(idx), bool),
        6,
        *shipped_spreads(),
    )
    assert {k for k, p in plan.chosen.items() if p.probability == 1.0} == {keys[i] for i in idx[first]}
    assert all(p.why.startswith("drawn at random") for p in plan.chosen.values() if p.probability < 1)
    assert all(p.probability == 1.0 for p in top.chosen.values())  # without a mix: the plan as before


def test_each_sure_label_goes_where_it_narrows_its_runs_interval_most():
    # the oracle: the intervals' own variance of a run's value (judges.scores.intervals.judge_variance), each
    # candidate labelled in turn; the label taken lowers it most relative to the run's sd
    cols = columns(3, [1, 4, 2, 6, 3, 1, 5, 2, 8], seed=4)
    answered = {"r0": 3, "r1": 3, "r2": 3}
    _, variance, lev, plannable = parts(cols, answered, np.zeros(len(cols["run_id"]), dtype=bool))
    report_sd, run_sd = 0.15, 0.06
    spreads = Spreads(report_sd, run_sd)
    runs, topics = cols["run_id"], cols["topic_id"]
    open_ = plannable.copy()

    def run_variance(run: str, unlabelled: np.ndarray) -> float:
        report_var, u = [], []
        for t in sorted(set(topics[runs == run])):
            rows = (runs == run) & (topics == t)
            n = rows.sum()
            keep = rows & unlabelled
            report_var.append(float(np.sum(variance[keep])) / n**2)
            u.append(keep.sum() / n)
        return judge_variance(report_var, u, answered[run], spreads)

    taken = narrowing(runs, topics, lev, variance, plannable, 6, report_sd, run_sd)
    assert len(taken) == 6 and len(set(taken.tolist())) == 6 and plannable[taken].all()
    for i in taken:
        score = np.full(len(runs), -np.inf)
        for j in np.flatnonzero(open_):
            before = run_variance(runs[j], open_)
            without = open_.copy()
            without[j] = False
            score[j] = (before - run_variance(runs[j], without)) / np.sqrt(before)
        assert score[i] == pytest.approx(score.max(), rel=1e-9)
        open_[i] = False
