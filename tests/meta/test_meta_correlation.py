"""Correlations against values computed by hand (ties included), and batch == one at a time."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judges.meta.correlation import (
    correlate,
    correlate_rows,
    kendall,
    kendall_at_k,
    parse_method,
    pearson,
    per_topic_values,
    spearman,
    tau_ap,
    tau_ap_b,
    top_k,
)

TRUTH = [4.0, 3.0, 2.0, 1.0]  # runs a > b > c > d


def test_identical_and_reversed_rankings():
    for f in (kendall, spearman, pearson, tau_ap):
        assert f(TRUTH, [40, 30, 20, 10]) == pytest.approx(1.0)
        assert f(TRUTH, [1, 2, 3, 4]) == pytest.approx(-1.0)


def test_swap_at_the_top_costs_tau_ap_more_than_at_the_bottom_but_not_tau_b():
    top = [3.0, 4.0, 2.0, 1.0]  # judge swaps a and b
    bottom = [4.0, 3.0, 1.0, 2.0]  # judge swaps c and d
    # tau-b: one discordant pair of six either way: (5 - 1) / 6
    assert kendall(TRUTH, top) == pytest.approx(2 / 3)
    assert kendall(TRUTH, bottom) == pytest.approx(2 / 3)
    # tau_ap, judge order b, a, c, d: shares a 0/1, c 2/2, d 3/3 -> 2/3 * 2 - 1 = 1/3
    assert tau_ap(TRUTH, top) == pytest.approx(1 / 3)
    # judge order a, b, d, c: shares b 1/1, d 2/2, c 2/3 -> 2/3 * 8/3 - 1 = 7/9
    assert tau_ap(TRUTH, bottom) == pytest.approx(7 / 9)
    # the paper's formula without ties, 1 - 2/(N-1) * 1/k for an adjacent swap below position k
    assert tau_ap(TRUTH, top) == pytest.approx(1 - 2 / 3 * 1 / 1)
    assert tau_ap(TRUTH, bottom) == pytest.approx(1 - 2 / 3 * 1 / 3)


def test_ties_on_both_sides_by_hand():
    truth = [2.0, 2.0, 1.0, 0.0]  # a and b tied in the truth
    judged = [0.0, 3.0, 2.0, 1.0]  # judge order b, c, d, a
    # tau-b: pairs ab tied in truth; ac, ad discordant; bc, bd, cd concordant:
    # (3 - 2) / sqrt((6 - 1) * (6 - 0)) = 1/sqrt(30)
    assert kendall(truth, judged) == pytest.approx(1 / math.sqrt(30))
    # Spearman = Pearson of mid-ranks [3.5, 3.5, 2, 1] and [1, 4, 3, 2]: 0.5 / sqrt(4.5 * 5)
    assert spearman(truth, judged) == pytest.approx(0.5 / math.sqrt(4.5 * 5))
    # Pearson: cov 0.5, sum of squares 2.75 and 5
    assert pearson(truth, judged) == pytest.approx(0.5 / math.sqrt(2.75 * 5))
    # tau_ap: c above-set {b}: 1/1; d {b, c}: 2/2; a {b, c, d}: b tied in truth (left out), c and
    # d wrongly above: 0/2. Mean 2/3 -> 1/3
    assert tau_ap(truth, judged) == pytest.approx(1 / 3)


def test_tau_ap_judge_ties_compare_only_with_runs_strictly_above():
    # judge ties a and b at the top: neither has anything strictly above, c and d are right
    assert tau_ap(TRUTH, [2.0, 2.0, 1.0, 0.0]) == pytest.approx(1.0)
    # judge ties c and d below a and b: c {a, b} 2/2, d {a, b} 2/2, b {a} 1/1
    assert tau_ap(TRUTH, [3.0, 2.0, 1.0, 1.0]) == pytest.approx(1.0)
    # judge ties b and c above a: a has {b, c} above, both wrong: 0/2; d {a, b, c}: 3/3 -> mean 1/2 -> 0
    assert tau_ap(TRUTH, [1.0, 2.0, 2.0, 0.0]) == pytest.approx(0.0)
    # tau-b of the same: concordant ad, bc? no: bc tied in judge; ab, ac discordant; ad, bd, cd concordant
    assert kendall(TRUTH, [1.0, 2.0, 2.0, 0.0]) == pytest.approx((3 - 2) / math.sqrt(6 * 5))


def test_undefined_is_nan_without_warnings():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for f in (kendall, spearman, pearson, tau_ap):
            assert math.isnan(f([1.0, 2.0, 3.0], [5.0, 5.0, 5.0]))
            assert math.isnan(f([1.0], [2.0]))
        assert math.isnan(tau_ap([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]))


def test_kendall_at_k_uses_the_top_k_runs_by_truth():
    truth = [4.0, 3.0, 2.0, 1.0, 0.0]
    judged = [3.0, 4.0, 2.0, 0.0, 1.0]
    assert kendall(truth, judged) == pytest.approx((8 - 2) / 10)
    # top 3 by truth: a, b, c with judged 3, 4, 2: one discordant pair of three
    assert kendall_at_k(truth, judged, 3) == pytest.approx(1 / 3)
    assert correlate(truth, judged, "kendall@3") == pytest.approx(1 / 3)
    assert correlate(truth, judged, "kendall@10") == pytest.approx(kendall(truth, judged))
    # a tie at the cut goes to the earlier position
    assert list(top_k([1.0, 2.0, 2.0, 2.0], 2)) == [1, 2]


def test_method_names():
    assert parse_method("kendall@15") == ("kendall", 15)
    assert parse_method("tau_ap") == ("tau_ap", None)
    for bad in ("kendal", "kendall@1", "kendall@0", "kendall@x", "spearman@5", "tauap_b"):
        with pytest.raises(ValueError, match="unknown correlation"):
            parse_method(bad)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_rows_equal_one_at_a_time(data):
    """The bootstrap's batch form agrees with the readable one, on tiny alphabets full of ties."""
    n = data.draw(st.integers(1, 7))
    rows = data.draw(st.integers(1, 6))
    vec = st.lists(st.integers(0, 3).map(float), min_size=n, max_size=n)
    t = np.array([data.draw(vec) for _ in range(rows)])
    j = np.array([data.draw(vec) for _ in range(rows)])
    for m in ("kendall", "spearman", "pearson", "tau_ap", "tau_ap_b", "kendall@3"):
        batch = correlate_rows(t, j, m)
        single = np.array([correlate(a, b, m) for a, b in zip(t, j)])
        np.testing.assert_allclose(batch, single, rtol=1e-12, atol=1e-12, equal_nan=True)


def test_tau_ap_b_by_hand_with_ties():
    """truth a > b > c > d; judge b > a > c = d.
    Judge's list weighted (truth's verdicts): a has b above, which the truth puts below (0 of 1);
    c and d have b, a strictly above their tie group, both above them in the truth (2 of 2 each):
    mean 2/3, tau 1/3. Truth's list weighted (judge's verdicts): b has a above, the judge disagrees
    (0 of 1); c has a, b above, the judge agrees (2 of 2); d has a, b, c above, the judge agrees on
    a and b and ties c with d, which counts as not right (2 of 3): mean 5/9, tau 1/9.
    tau_ap_b = (1/3 + 1/9) / 2 = 2/9."""
    judged = [3.0, 4.0, 1.0, 1.0]
    assert tau_ap_b(TRUTH, judged) == pytest.approx(2 / 9)
    assert tau_ap_b(judged, TRUTH) == pytest.approx(2 / 9)


def test_tau_ap_b_without_ties_is_the_mean_of_tau_ap_both_ways():
    """The AutoJudge evaluation code's own test values (a swap at the top of ten, at the bottom)."""
    a = list(range(1, 11))
    assert tau_ap_b(a, [10, 20, 30, 40, 50, 60, 70, 80, 100, 90]) == pytest.approx(0.7777777777)
    assert tau_ap_b(a, [20, 10, 30, 40, 50, 60, 70, 80, 90, 100]) == pytest.approx(0.9753086)
    b = [10, 20, 30, 40, 50, 60, 70, 80, 100, 90]
    assert tau_ap_b(a, b) == pytest.approx((tau_ap(a, b) + tau_ap(b, a)) / 2)
    assert tau_ap_b(a, [-x for x in a]) == pytest.approx(-1.0)
    assert math.isnan(tau_ap_b([1, 2, 3], [5, 5, 5]))  # a constant side: undefined


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_tau_ap_b_properties(data):
    """With itself 1, symmetric in its arguments, in [-1, 1], unchanged by a monotone rescaling."""
    n = data.draw(st.integers(2, 9))
    vec = st.lists(st.integers(0, 4).map(float), min_size=n, max_size=n)
    x, y = np.array(data.draw(vec)), np.array(data.draw(vec))
    if np.ptp(x) > 0:
        assert tau_ap_b(x, x) == pytest.approx(1.0)
        assert tau_ap_b(x, 3 * x + 7) == pytest.approx(1.0)
    if np.ptp(x) > 0 and np.ptp(y) > 0:
        v = tau_ap_b(x, y)
        assert v == pytest.approx(tau_ap_b(y, x)) and -1 - 1e-12 <= v <= 1 + 1e-12
        assert tau_ap_b(x, np.exp(y)) == pytest.approx(v)
    else:
        assert math.isnan(tau_ap_b(x, y))


def test_per_topic_pearson_by_hand():
    """Topic 1: the judge orders runs as the truth, Pearson 1. Topic 2: truth (1, 2, 3), judge
    (1, 3, 2): deviations (-1, 0, 1) and (-1, 1, 0), Pearson 1 / 2. Topic 3: two runs only, left
    out. Topic 4: the judge gives every run one value, left out. Mean (1 + 0.5) / 2 = 0.75."""
    nan = float("nan")
    truth = np.array([[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, nan, 3]], dtype=float)  # runs x topics
    judged = np.array([[10, 1, 5, 2], [20, 3, 6, 2], [30, 2, 7, 2]], dtype=float)
    per = per_topic_values(truth, judged, "pearson_per_topic")
    np.testing.assert_allclose(per, [1.0, 0.5, nan, nan], equal_nan=True)
    assert np.nanmean(per) == pytest.approx(0.75)
    assert parse_method("pearson_per_topic") == ("pearson_per_topic", None)
    with pytest.raises(ValueError, match="per-topic values"):
        correlate([1, 2, 3], [1, 2, 3], "pearson_per_topic")
