"""Which citations ``attest.mode: uncertain`` sends: the rule of each report
(:mod:`judges.attest.selection`) and the expected error it ranks by
(:func:`judges.support.model.expected_error`)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judges.attest.selection import Band, Cutoff, Selection, error_of, leverage
from judges.config import AttestSettings
from judges.support.model import expected_error, fit, levels

STATUS = np.array(["unsupported", "partial", "supported"])


@pytest.fixture(scope="module")
def model_and_errors():
    """A model fitted to synthetic labels, and the expected errors of its training citations."""
    rng = np.random.default_rng(0)
    x = rng.random((400, 9))
    y = np.clip((x[:, 2] * 3 + rng.normal(0, 0.5, 400)).astype(int), 0, 2)
    model = fit(x, y, {"data": "synthetic"})
    p_any, p_full = model.probabilities(x)
    return model, expected_error(p_any, p_full, levels(p_any, p_full, model.p_supported, model.p_partial))


def held(selection: Selection, counts: dict, model) -> float:
    """The share of the citations of reports of ``counts`` citations that the rules send, with
    expected errors distributed as on the model's training citations."""
    total = 0.0
    for k, n in counts.items():
        rule = selection.of(*k)
        total += n * float(model.share_at_least(np.array([rule.cutoff / rule.leverage]))[0])
    return total / sum(counts.values())


@given(p=st.tuples(st.floats(0, 1), st.floats(0, 1)))
def test_expected_error_is_the_mean_distance_of_the_statuss_weight_from_the_levels_weights(p):
    p_any, p_full = max(p), min(p)
    probs = np.array([1 - p_any, p_any - p_full, p_full])  # P(none), P(partial), P(full)
    weights = np.array([0.0, 0.5, 1.0])
    for level in range(3):
        by_definition = float(probs @ np.abs(weights - weights[level]))
        assert expected_error(np.array([p_any]), np.array([p_full]), np.array([level]))[0] == pytest.approx(
            by_definition, abs=1e-12
        )


def test_expected_error_is_small_where_the_model_is_sure():
    sure = expected_error(np.array([0.99, 0.02]), np.array([0.98, 0.01]), np.array([2, 0]))
    torn = expected_error(np.array([0.9]), np.array([0.45]), np.array([2]))
    assert sure.max() < 0.03 and torn[0] > 0.3


def test_one_cutoff_holds_the_budget_of_the_training_citations(model_and_errors):
    model, errors = model_and_errors
    for budget in (0.1, 0.3, 0.6):
        sel = Selection.for_session(AttestSettings(budget=budget, leverage=False), model, {("r", "t"): 5}, {})
        assert sel.per_report is None
        rule = sel.of("any run", "any topic")
        assert rule.leverage == 1.0
        assert abs(np.mean(errors >= rule.cutoff) - budget) < 0.02


def test_leverage_is_a_citations_weight_in_its_runs_score_relative_to_the_mean():
    counts = {("a", "1"): 10, ("a", "2"): 2, ("b", "1"): 4, ("c", "1"): 0}
    answered = {"a": {"1", "2"}, "b": {"1", "3"}, "c": {"1"}}
    lev = leverage(counts, answered)
    assert ("c", "1") not in lev  # no citation, nothing to weigh
    n, runs = 16, 2  # runs with citations: a, b
    # a citation of a report of n citations in a run of T topics counts 1 / (n T) of the run's score
    assert lev[("a", "1")] == pytest.approx(n / (runs * 10 * 2))
    assert lev[("a", "2")] == pytest.approx(n / (runs * 2 * 2))
    assert lev[("b", "1")] == pytest.approx(n / (runs * 4 * 2))  # b answered topic 3 without citations
    assert lev[("a", "2")] > lev[("b", "1")] > lev[("a", "1")]


def test_leveraged_rules_hold_the_budget_and_send_more_where_a_citation_weighs_more(model_and_errors):
    model, errors = model_and_errors
    counts = {("a", "1"): 40, ("a", "2"): 3, ("b", "1"): 12, ("b", "2"): 1, ("c", "1"): 25}
    answered = {"a": {"1", "2"}, "b": {"1", "2"}, "c": {"1"}}
    lev = leverage(counts, answered)
    sel = Selection.for_session(AttestSettings(budget=0.3), model, counts, answered)
    assert held(sel, counts, model) == pytest.approx(0.3, abs=1e-3)
    assert len({sel.of(*k).cutoff for k in counts}) == 1  # one cutoff for the session
    by_leverage = sorted(lev, key=lev.get)
    shares = [np.mean(lev[k] * errors >= sel.of(*k).cutoff) for k in by_leverage]
    assert shares == sorted(shares) and shares[0] < shares[-1]


def test_equal_leverage_gives_the_one_cutoff(model_and_errors):
    model, _ = model_and_errors
    counts = {(r, t): 7 for r in "abc" for t in "12"}
    answered = {r: {"1", "2"} for r in "abc"}
    one = Selection.for_session(AttestSettings(budget=0.25, leverage=False), model, counts, answered)
    each = Selection.for_session(AttestSettings(budget=0.25), model, counts, answered)
    for k in counts:
        assert each.of(*k).leverage == pytest.approx(1.0)
        assert each.of(*k).cutoff == pytest.approx(one.of(*k).cutoff, rel=1e-6)


def test_budget_zero_sends_nothing_budget_one_everything_and_a_given_band_is_kept(model_and_errors):
    model, _ = model_and_errors
    counts, answered = {("a", "1"): 3, ("b", "1"): 9}, {"a": {"1"}, "b": {"1"}}
    torn = SimpleNamespace(p_any=0.9, p_full=0.45, support_status="supported")
    sure = SimpleNamespace(p_any=1.0, p_full=1.0, support_status="supported")
    nothing = Selection.for_session(AttestSettings(budget=0), model, counts, answered).of("a", "1")
    assert nothing.cutoff == math.inf and not nothing.sends(torn)
    everything = Selection.for_session(AttestSettings(budget=1), model, counts, answered).of("a", "1")
    assert everything.sends(torn) and everything.sends(sure) and error_of(sure) == 0.0
    given_band = Selection.for_session(AttestSettings(band=(0.2, 0.7)), model, counts, answered)
    assert given_band.of("a", "1") == given_band.of("b", "1") == Band(0.2, 0.7)
    assert given_band.of("a", "1").sends(torn) and not given_band.of("a", "1").sends(sure)
    alignment_judged = SimpleNamespace(p_any=None, p_full=None, support_status="supported")
    assert not Cutoff(0.0).sends(alignment_judged) and not Band(0.0, 1.1).sends(alignment_judged)


def test_a_rule_sends_by_leverage_times_expected_error():
    j = SimpleNamespace(p_any=0.8, p_full=0.5, support_status="supported")  # expected error 0.35
    assert error_of(j) == pytest.approx(0.35)
    assert Cutoff(0.5, leverage=2.0).sends(j) and not Cutoff(0.5, leverage=1.0).sends(j)
    assert Cutoff(0.5, leverage=2.0).fields(j) == {"expected_error": 0.35, "leverage": 2.0, "cutoff": 0.5}


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 60), min_size=1, max_size=12),
    topics=st.integers(1, 4),
    budget=st.floats(0.01, 0.99),
)
def test_rules_hold_the_budget_whatever_the_reports(model_and_errors, sizes, topics, budget):
    model, _ = model_and_errors
    counts = {(f"r{i % 3}", str(i)): n for i, n in enumerate(sizes)}
    answered = {}
    for run, topic in counts:
        answered.setdefault(run, set()).add(topic)
    for run in answered:
        answered[run] |= {f"x{k}" for k in range(topics - 1)}  # topics answered without citations
    sel = Selection.for_session(AttestSettings(budget=budget), model, counts, answered)
    assert held(sel, counts, model) == pytest.approx(budget, abs=2e-3)
