"""Meta-evaluation: rankings from all rows or recomputed over topics, missing-data policies, the
topic bootstrap (deterministic, intervals that make sense)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from judges.core.errors import InputError
from judges.meta import bootstrap, metaeval
from judges.meta.correlation import kendall


def board(
    values: dict[str, list[float]], measure: str = "M", topics=("t1", "t2", "t3"), all_rows=None, label="lb"
) -> metaeval.Leaderboard:
    rows = []
    for run, vals in values.items():
        rows += [(run, t, measure, v) for t, v in zip(topics, vals) if v is not None]
        present = [v for v in vals if v is not None]
        rows.append((run, "all", measure, (all_rows or {}).get(run, sum(present) / len(present))))
    df = pd.DataFrame(rows, columns=["run_id", "topic_id", "measure", "value"])
    return metaeval.Leaderboard(label, Path(label), df)


TRUTH = board({"a": [4, 4, 4], "b": [3, 3, 3], "c": [2, 2, 2], "d": [1, 1, 1]}, "REL", label="truth")
JUDGE = board({"a": [3, 3, 3], "b": [4, 4, 4], "c": [2, 2, 2], "d": [1, 1, 1]}, label="judge")  # top pair swapped


def run(judge=JUDGE, truth=TRUTH, warn=None, **kw):
    kw.setdefault("resamples", 0)
    messages = []
    res = metaeval.meta_evaluate(
        truth, [judge], metaeval.MetaOptions(**kw), warn=messages.append if warn is None else warn
    )
    return res, messages


def value(res, method):
    return res.correlations.set_index("method").loc[method, "value"]


def test_all_rows_give_the_ranking():
    res, _ = run()
    assert value(res, "kendall") == pytest.approx(2 / 3)
    assert value(res, "tau_ap") == pytest.approx(1 / 3)
    ranked = res.correlations[res.correlations.method != "pearson_per_topic"]
    assert set(ranked.ranking) == {"all"}
    assert res.correlations.runs.tolist() == [4] * len(res.correlations)
    assert value(res, "tau_ap_b") == pytest.approx((1 / 3 + 1 / 3) / 2)  # one swap at the top, either list weighted


def test_recompute_over_a_topic_subset():
    # on t1 only, the judge gets the truth's order; its all rows still swap a and b
    judge = board(
        {"a": [5, 3, 3], "b": [4, 4, 4], "c": [2, 2, 2], "d": [1, 1, 1]}, all_rows={"a": 3.0, "b": 4.0}, label="judge"
    )
    assert value(run(judge)[0], "kendall") == pytest.approx(2 / 3)
    res, _ = run(judge, topics=("t1",))
    assert value(res, "kendall") == pytest.approx(1.0)
    assert res.correlations.ranking.iloc[0] == "mean over 1 topics"
    # --recompute: mean over all three topics: a 11/3 < b 4
    assert value(run(judge, recompute=True)[0], "kendall") == pytest.approx(2 / 3)


def test_runs_missing_on_one_side_follow_the_policy():
    judge = board({"a": [3, 3, 3], "b": [4, 4, 4], "c": [2, 2, 2], "d": [1, 1, 1], "x": [0, 0, 0]}, label="judge")
    with pytest.raises(InputError) as e:
        run(judge)
    assert e.value.render() == (
        "judge: run_id: REL vs M: 1 run(s) not in the truth: 'x' (--on-missing warn or skip leaves them out)"
    )
    res, messages = run(judge, on_missing="warn")
    assert value(res, "kendall") == pytest.approx(2 / 3) and res.correlations.runs.iloc[0] == 4
    assert messages == ["judge: run_id: REL vs M: 1 run(s) not in the truth: 'x'; left out"]
    res, messages = run(judge, on_missing="skip")
    assert value(res, "kendall") == pytest.approx(2 / 3) and messages == []


def test_topics_missing_on_one_side_are_left_out_for_every_run():
    judge = board({"a": [3, 3, None], "b": [4, 4, 4], "c": [2, 2, 2], "d": [1, 1, 1]}, label="judge")
    with pytest.raises(InputError, match=r"judge: topic_id: REL vs M: 1 topic\(s\) without a row for some run: 't3'"):
        run(judge, recompute=True)
    res, messages = run(judge, recompute=True, on_missing="warn")
    assert res.correlations.topics.iloc[0] == 2
    assert any("'t3'" in m for m in messages)
    # a topic asked for that neither side has
    with pytest.raises(InputError, match="'t9'"):
        run(topics=("t1", "t9"))


def test_too_few_shared_runs_is_an_error():
    judge = board({"a": [3, 3, 3], "b": [4, 4, 4]}, label="judge")
    with pytest.raises(InputError, match="2 run\\(s\\) shared with the truth; correlations need at least 3"):
        run(judge, on_missing="skip")


def test_unknown_measure_is_named():
    with pytest.raises(InputError) as e:
        run(eval_measures=("NOPE",))
    assert e.value.render() == "judge: --eval-measure: 'NOPE' not in this leaderboard (it has 'M')"


def test_bootstrap_is_deterministic_and_brackets_the_estimate():
    rng = np.random.default_rng(7)
    topics = [f"t{i}" for i in range(12)]
    base = {"a": 0.9, "b": 0.7, "c": 0.5, "d": 0.3, "e": 0.1}
    truth = board({r: list(v + rng.normal(0, 0.1, 12)) for r, v in base.items()}, "REL", topics, label="truth")
    judge = board({r: list(v + rng.normal(0, 0.2, 12)) for r, v in base.items()}, "M", topics, label="judge")
    one, _ = run(judge, truth, resamples=300, seed=3)
    two, _ = run(judge, truth, resamples=300, seed=3)
    other, _ = run(judge, truth, resamples=300, seed=4)
    pd.testing.assert_frame_equal(one.correlations, two.correlations)
    pd.testing.assert_frame_equal(one.values, two.values)
    assert not one.correlations.ci_low.equals(other.correlations.ci_low)
    c = one.correlations
    assert (c.ci_low <= c.value + 1e-12).all() and (c.value <= c.ci_high + 1e-12).all()
    assert (c.ci_low >= -1).all() and (c.ci_high <= 1).all()
    v = one.values
    assert (v.ci_low <= v.value).all() and (v.value <= v.ci_high).all()
    assert set(v.role) == {"truth", "eval"} and len(v) == 10


def test_bootstrap_of_a_constant_statistic_and_of_too_few_topics():
    iv = bootstrap.topic_intervals(5, lambda idx: np.ones((1, idx.shape[0])), 1, resamples=50, seed=0)
    assert iv.low.tolist() == [1.0] and iv.high.tolist() == [1.0]
    iv = bootstrap.topic_intervals(1, lambda idx: np.ones((1, idx.shape[0])), 1, resamples=50, seed=0)
    assert np.isnan(iv.low).all()
    # undefined resamples are left out of the interval, and counted
    m = np.array([[1.0, 1.0, 1.0, 2.0]])
    iv = bootstrap.topic_intervals(
        4, lambda idx: np.where(m[:, idx].std(axis=2) > 0, m[:, idx].mean(axis=2), np.nan), 1, resamples=200, seed=1
    )
    assert 0 < iv.undefined[0] < 200 and 1.0 < iv.low[0] <= iv.high[0] < 2.0


def test_point_estimate_matches_a_direct_computation():
    res, _ = run(resamples=0, methods=("kendall",))
    assert value(res, "kendall") == pytest.approx(kendall([4, 3, 2, 1], [3, 4, 2, 1]))


@pytest.mark.parametrize("seed", [0, 3])
def test_bca_equals_scipys_bootstrap_bca(seed):
    """topic_intervals' BCa bounds equal SciPy's ``bootstrap(method="BCa")`` on the same resamples,
    for a skewed sample and three statistics at once (mean, median, standard deviation)."""
    from scipy import stats

    x = np.random.default_rng(5).lognormal(size=15)
    fns = (np.mean, np.median, np.std)
    iv = bootstrap.topic_intervals(
        len(x), lambda idx: np.stack([f(x[idx], axis=-1) for f in fns]), 3, resamples=999, seed=seed
    )
    for i, f in enumerate(fns):
        ref = stats.bootstrap(
            (x,),
            lambda s, axis=-1, f=f: f(s, axis=axis),
            vectorized=True,
            batch=bootstrap.BATCH,
            n_resamples=999,
            method="BCa",
            rng=np.random.default_rng(seed),
        ).confidence_interval
        assert (iv.low[i], iv.high[i]) == pytest.approx((ref.low, ref.high), rel=1e-12)


def test_per_topic_pearson_in_the_correlations_table():
    """Per topic over the runs, then the mean over topics (RAG4Reports' agreement), with a BCa
    interval over topics; t3's judge values are constant, so it is left out."""
    truth = board({"a": [1, 1, 1], "b": [2, 2, 2], "c": [3, 3, 3]}, "REL", label="truth")
    judge = board({"a": [10, 1, 5], "b": [20, 3, 5], "c": [30, 2, 5]}, label="judge")
    res, _ = run(judge, truth, methods=("pearson_per_topic", "tau_ap_b"), resamples=200)
    row = res.correlations.set_index("method").loc["pearson_per_topic"]
    assert row.value == pytest.approx(0.75) and row.topics == 2 and row.runs == 3
    assert row.ranking == metaeval.PER_TOPIC_RANKING and row.interval == "BCa"
    assert row.ci_low <= row.value <= row.ci_high
    assert value(res, "tau_ap_b") == pytest.approx(1.0)  # all rows: a 16/3 < b 28/3 < c 37/3, as the truth


def test_bca_without_a_finite_bias_correction_gives_no_interval():
    """An estimate above every resample (the share below it is 1) has no BCa interval: NaN, not
    the extreme resample on both sides, which would not contain it."""
    low, high = bootstrap.bca(
        np.array([1.0, 0.5]), np.array([[0.2, 0.4, 0.6], [0.2, 0.5, 0.9]]), np.zeros((2, 3)), 0.95
    )
    assert np.isnan(low[0]) and np.isnan(high[0])
    assert low[1] <= 0.5 <= high[1]
