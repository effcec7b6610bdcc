"""Measures on hand-built reports, and the leaderboard's missing-topic policies."""

import pytest

from judges.core.measures import MEASURE_NAMES, MEASURES, SentenceResult, evaluate, markdown_table
from judges.scores.leaderboard import leaderboard_rows

S = SentenceResult


def test_every_measure_on_a_mixed_report():
    report = [
        S(40, ("supported", "missing")),  # 40 chars, one good, one unresolvable citation
        S(20, ("partial",)),
        S(30, ()),  # uncited
        S(0, ()),  # blank sentence: not a statement
        S(10, ("unsupported", "supported", "partial")),
    ]
    m = evaluate(report)
    assert m["CITATION_ACCURACY"] == pytest.approx(5 / 6)
    assert m["CITATION_SUPPORT"] == pytest.approx(2 / 6)
    assert m["AVG_CITATIONS"] == 6
    assert m["PERFECT_CITATIONS"] == 0
    assert m["SENTENCE_SUPPORT"] == pytest.approx(2 / 4)
    assert m["WEIGHTED_PRECISION"] == pytest.approx((1 + 0 + 0.5 + 0 + 1 + 0.5) / 6)
    assert m["WEIGHTED_RECALL"] == pytest.approx((1 + 0.5 + 0 + 1) / 4)
    assert m["CITED_SENTENCES"] == pytest.approx(3 / 4)
    assert m["GROUNDEDNESS"] == pytest.approx((40 + 10) / (40 + 20 + 30 + 10))


def test_perfect_report_and_empty_report():
    assert evaluate([S(5, ("supported",)), S(5, ("supported", "supported"))])["PERFECT_CITATIONS"] == 1
    empty = evaluate([])
    assert set(empty) == set(MEASURE_NAMES)
    grounding = {"NUMERIC_GROUNDED", "ENTITY_GROUNDED", "PLACEHOLDER_FREE"}  # nothing ungrounded: 1
    assert all(v == (1 if name in grounding else 0) for name, v in empty.items())
    assert evaluate([S(5, ())])["PERFECT_CITATIONS"] == 0  # no citations is not perfect


def test_registry_names_are_unique_and_documented():
    assert len(set(MEASURE_NAMES)) == len(MEASURES)
    assert all(m.description.endswith(".") for m in MEASURES)
    table = markdown_table()
    assert all(f"`{name}`" in table for name in MEASURE_NAMES)


def _per_topic():
    one = dict.fromkeys(MEASURE_NAMES, 1.0)
    return {("r1", "t1"): one, ("r1", "t2"): one, ("r2", "t1"): one}


def test_default_policy_adds_zero_rows_for_unanswered_topics():
    rows = leaderboard_rows(_per_topic(), ["r2", "r1"], ["t2", "t1"], "default")
    assert rows[0][:3] == ("r1", "t1", MEASURE_NAMES[0])  # runs and topics sorted
    r2 = [r for r in rows if r[0] == "r2" and r[2] == "CITATION_SUPPORT"]
    assert r2 == [
        ("r2", "t1", "CITATION_SUPPORT", 1.0),
        ("r2", "t2", "CITATION_SUPPORT", 0.0),
        ("r2", "all", "CITATION_SUPPORT", 0.5),
    ]


def test_fix_aggregate_counts_zeros_only_in_the_all_row():
    rows = leaderboard_rows(_per_topic(), ["r1", "r2"], ["t1", "t2"], "fix_aggregate")
    r2 = [r for r in rows if r[0] == "r2" and r[2] == "CITATION_SUPPORT"]
    assert r2 == [("r2", "t1", "CITATION_SUPPORT", 1.0), ("r2", "all", "CITATION_SUPPORT", 0.5)]


def test_error_policy_refuses_gaps():
    with pytest.raises(ValueError, match="r2"):
        leaderboard_rows(_per_topic(), ["r1", "r2"], ["t1", "t2"], "error")


def test_weighted_measures_use_the_citation_weights():
    report = [S(10, ("supported", "partial"), weights=(0.8, 0.3)), S(10, ("unsupported",), weights=(0.2,)), S(10, ())]
    m = evaluate(report)
    assert m["WEIGHTED_PRECISION"] == pytest.approx((0.8 + 0.3 + 0.2) / 3)
    assert m["WEIGHTED_RECALL"] == pytest.approx((0.8 + 0.2 + 0) / 3)
    assert m["CITATION_SUPPORT"] == pytest.approx(1 / 3)  # counts of statuses are unchanged
    assert evaluate([S(10, ("supported", "partial"))])["WEIGHTED_PRECISION"] == 0.75  # no weights: the statuses'


# -- one definition per measure (issue 40 item 4) ------------------------------------------------------
def test_a_measure_leaving_out_a_fact_fails_where_it_is_defined():
    from judges.core.measures import Measure

    with pytest.raises(TypeError, match="compute"):  # no default: the registry's import would fail here
        Measure("NEW_MEASURE", "A new one.", "citation", True, 1.0, "citation_weight", False)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    "facts, problem",
    [
        (dict(variance="none"), "variance: 'none' exactly when"),  # a support measure silently without error
        (dict(variance="per_topic"), "variance: one of"),
        (dict(level="paragraph"), "level: one of"),
        (dict(high=0.0), "high: a number above 0"),
        (dict(description="no full stop"), "description"),
        (dict(judge_error=False), "variance: 'none' exactly when"),
    ],
)
def test_facts_that_contradict_each_other_are_refused(facts, problem):
    from judges.core.measures import REGISTRY, check

    with pytest.raises(ValueError, match="measure 'WEIGHTED_PRECISION': " + problem):
        check(REGISTRY["WEIGHTED_PRECISION"]._replace(**facts))


def test_every_judge_reads_the_one_registry():
    import math

    from judges.api import answer
    from judges.scores import intervals
    from judges.core.measures import REGISTRY
    from judges.nuggets import measures as nugget_measures

    assert MEASURE_NAMES == tuple(REGISTRY)[: len(MEASURES)]  # the citation judge's first, in leaderboard order
    others = set(REGISTRY) - set(MEASURE_NAMES)
    assert set(nugget_measures.NUGGET_MEASURES) | {nugget_measures.F1, "BATTLE_SCORE"} == others
    assert answer.SENTENCE_MEASURES == (
        *("SENTENCE_SUPPORT", "WEIGHTED_RECALL", "GROUNDEDNESS"),
        *("NUMERIC_GROUNDED", "ENTITY_GROUNDED", "PLACEHOLDER_FREE"),
    )
    assert intervals.NO_JUDGE_ERROR & set(MEASURE_NAMES) == {
        *("CITATION_ACCURACY", "AVG_CITATIONS", "CITED_SENTENCES"),
        *("NUMERIC_GROUNDED", "ENTITY_GROUNDED", "PLACEHOLDER_FREE"),
    }
    assert [m.name for m in REGISTRY.values() if math.isinf(m.high)] == ["AVG_CITATIONS"]
    # every measure the judge's error moves has a variance the intervals compute, or says it has none yet
    assert set(MEASURE_NAMES) - intervals.NO_JUDGE_ERROR == set(intervals.MODELLED)


def test_the_intervals_refuse_a_measure_whose_error_they_do_not_model():
    """A measure the judge's error moves but the intervals have no variance for used to get variance 0
    (an interval as narrow as a measure without judge error); now it is an error."""
    from judges.scores import intervals as iv

    per_topic = {("a", "t1"): {"NUGGET_ALL": 0.5, "WEIGHTED_PRECISION": 0.5}}
    reports = {("a", "t1"): (1.0, {"WEIGHTED_PRECISION": 0.01})}
    with pytest.raises(ValueError, match="no model of the judge's error of NUGGET_ALL"):
        iv.trust(per_topic, ["a"], ["t1"], reports, iv.Spreads(0.1, 0.05), ["WEIGHTED_PRECISION", "NUGGET_ALL"])
