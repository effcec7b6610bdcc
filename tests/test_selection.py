"""Which citations ``attest.mode: uncertain`` sends: the bands of P(full) per report
(:mod:`judges.attest.selection`)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judges.attest.selection import Bands, leverage
from judges.config import AttestSettings
from judges.support.model import fit


@pytest.fixture(scope="module")
def model_and_p_full():
    rng = np.random.default_rng(0)
    x = rng.random((400, 9))
    y = np.clip((x[:, 2] * 3 + rng.normal(0, 0.5, 400)).astype(int), 0, 2)
    model = fit(x, y, {"data": "synthetic"})
    return model, model.probabilities(x)[1]


def judge_of(model):
    """The two methods of a probabilistic support judge the selection uses."""
    return SimpleNamespace(
        share_within=lambda h: model.share_within(h, model.p_supported),
        band_at=lambda h: model.band_at(h, model.p_supported),
    )


def held(bands: Bands, counts: dict, model) -> float:
    """The share of the citations of reports of ``counts`` citations that the bands hold, with
    P(full) distributed as on the model's training citations."""
    t = np.log(model.p_supported / (1 - model.p_supported))
    total = 0.0
    for k, n in counts.items():
        lo, hi = bands.of(*k)
        width = 40.0 if hi > 1 else np.log(hi / (1 - hi)) - t
        total += n * float(model.share_within(np.array([width]), model.p_supported)[0])
    return total / sum(counts.values())


def test_one_band_holds_the_budget_of_the_training_citations(model_and_p_full):
    model, p_full = model_and_p_full
    for budget in (0.1, 0.3, 0.6):
        bands = Bands.for_session(AttestSettings(budget=budget, leverage=False), judge_of(model), {("r", "t"): 5}, {})
        assert bands.per_report is None
        lo, hi = bands.of("any run", "any topic")
        assert lo < model.p_supported < hi
        assert abs(np.mean((p_full >= lo) & (p_full < hi)) - budget) < 0.02


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


def test_leveraged_bands_hold_the_budget_and_widen_with_leverage(model_and_p_full):
    model, p_full = model_and_p_full
    counts = {("a", "1"): 40, ("a", "2"): 3, ("b", "1"): 12, ("b", "2"): 1, ("c", "1"): 25}
    answered = {"a": {"1", "2"}, "b": {"1", "2"}, "c": {"1"}}
    lev = leverage(counts, answered)
    bands = Bands.for_session(AttestSettings(budget=0.3), judge_of(model), counts, answered)
    assert held(bands, counts, model) == pytest.approx(0.3, abs=1e-3)
    by_leverage = sorted(lev, key=lev.get)
    widths = [bands.of(*k)[1] - bands.of(*k)[0] for k in by_leverage]
    assert widths == sorted(widths) and widths[0] < widths[-1]
    for lower, higher in zip(by_leverage, by_leverage[1:]):  # nested: a weightier report's band holds the other's
        (lo1, hi1), (lo2, hi2) = bands.of(*lower), bands.of(*higher)
        assert lo2 <= lo1 and hi1 <= hi2


def test_equal_leverage_gives_the_one_band(model_and_p_full):
    model, _ = model_and_p_full
    counts = {(r, t): 7 for r in "abc" for t in "12"}
    answered = {r: {"1", "2"} for r in "abc"}
    one = Bands.for_session(AttestSettings(budget=0.25, leverage=False), judge_of(model), counts, answered)
    each = Bands.for_session(AttestSettings(budget=0.25), judge_of(model), counts, answered)
    for k in counts:
        assert each.of(*k) == pytest.approx(one.of(*k), abs=1e-7)


def test_budget_zero_sends_nothing_budget_one_everything_and_a_given_band_is_kept(model_and_p_full):
    model, _ = model_and_p_full
    counts, answered = {("a", "1"): 3, ("b", "1"): 9}, {"a": {"1"}, "b": {"1"}}
    lo, hi = Bands.for_session(AttestSettings(budget=0), judge_of(model), counts, answered).of("a", "1")
    assert lo == hi  # [t, t) holds nothing
    lo, hi = Bands.for_session(AttestSettings(budget=1), judge_of(model), counts, answered).of("a", "1")
    assert lo == 0 and hi > 1
    given_band = Bands.for_session(AttestSettings(band=(0.2, 0.7)), judge_of(model), counts, answered)
    assert given_band.of("a", "1") == given_band.of("b", "1") == (0.2, 0.7)


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 60), min_size=1, max_size=12),
    topics=st.integers(1, 4),
    budget=st.floats(0.01, 0.99),
)
def test_bands_hold_the_budget_whatever_the_reports(model_and_p_full, sizes, topics, budget):
    model, _ = model_and_p_full
    counts = {(f"r{i % 3}", str(i)): n for i, n in enumerate(sizes)}
    answered = {}
    for run, topic in counts:
        answered.setdefault(run, set()).add(topic)
    for run in answered:
        answered[run] |= {f"x{k}" for k in range(topics - 1)}  # topics answered without citations
    bands = Bands.for_session(AttestSettings(budget=budget), judge_of(model), counts, answered)
    assert held(bands, counts, model) == pytest.approx(budget, abs=2e-3)
