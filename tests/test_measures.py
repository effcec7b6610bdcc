"""Measures on hand-built reports, and the leaderboard's missing-topic policies."""

import pytest

from judges.measures import MEASURE_NAMES, MEASURES, SentenceResult, evaluate, markdown_table
from judges.leaderboard import leaderboard_rows

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


# Citation weights: the expected TREC weight where the support model decided the status.

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from judges.measures import WEIGHT, citation_weight, expected_weight  # noqa: E402
from judges.records import STATUS_GRADE, Judgment  # noqa: E402


def judgment(status, p_any=None, p_full=None, support_status=None, **kw):
    base = Judgment(status, STATUS_GRADE[status], 0, 0.0, 0.0, 0.0, 1, 0, 0, "", "embedded", "", support_status or status)
    return base._replace(p_any=p_any, p_full=p_full, **kw)


probabilities = st.tuples(st.floats(0, 1), st.floats(0, 1)).map(lambda p: (max(p), min(p)))


@given(probabilities, st.sampled_from(["supported", "partial", "unsupported"]))
def test_expected_weight_is_the_mean_of_the_three_levels_weights(p, status):
    p_any, p_full = p
    distribution = {"unsupported": 1 - p_any, "partial": p_any - p_full, "supported": p_full}
    mean = sum(WEIGHT[s] * q for s, q in distribution.items())
    j = judgment(status, p_any, p_full)
    assert citation_weight(j, expected=True) == pytest.approx(mean) == pytest.approx(expected_weight(p_any, p_full))
    assert 0.0 <= citation_weight(j, expected=True) <= 1.0
    assert citation_weight(j, expected=False) == WEIGHT[status]  # leaderboard.weights: status


@given(probabilities)
def test_a_status_the_model_did_not_decide_weighs_its_status_weight(p):
    p_any, p_full = p
    assert citation_weight(judgment("supported"), True) == 1.0  # no probabilities (the alignment judge)
    for status in ("missing", "cross_language"):
        assert citation_weight(judgment(status), True) == 0.0
    for answer in ("YES", "NO", "FULL", "PARTIAL", "NONE", "guarded"):  # the LLM's answer decided it
        j = judgment("partial", p_any, p_full, support_status="supported", llm_answer=answer)
        assert citation_weight(j, True) == 0.5
    # an unparsed reply with on_unparsed: unsupported replaced the model's status
    j = judgment("unsupported", p_any, p_full, support_status="partial", llm_answer="unparsed")
    assert citation_weight(j, True) == 0.0
    # ... with on_unparsed: judge the model's status stands, and so does its expected weight
    j = judgment("partial", p_any, p_full, support_status="partial", llm_answer="unparsed")
    assert citation_weight(j, True) == pytest.approx(expected_weight(p_any, p_full))


@given(probabilities)
def test_a_capped_citation_weighs_half_its_chance_of_any_support(p):
    p_any, p_full = p
    j = judgment("partial", p_any, p_full, support_status="supported", capped=True)
    assert citation_weight(j, True) == pytest.approx(0.5 * p_any)
    assert citation_weight(j, True) <= expected_weight(p_any, p_full) + 1e-12


def test_weighted_measures_use_the_citation_weights():
    report = [S(10, ("supported", "partial"), weights=(0.8, 0.3)), S(10, ("unsupported",), weights=(0.2,)), S(10, ())]
    m = evaluate(report)
    assert m["WEIGHTED_PRECISION"] == pytest.approx((0.8 + 0.3 + 0.2) / 3)
    assert m["WEIGHTED_RECALL"] == pytest.approx((0.8 + 0.2 + 0) / 3)
    assert m["CITATION_SUPPORT"] == pytest.approx(1 / 3)  # counts of statuses are unchanged
    assert evaluate([S(10, ("supported", "partial"))])["WEIGHTED_PRECISION"] == 0.75  # no weights: the statuses'
