"""A citation's weight in the support measures: the status's, or the expected weight under the
support model's probabilities, updated by Bayes' rule with the LLM's answer (judges.engine.weights)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judges.attest.answers import likelihood
from judges.core.measures import expected_weight
from judges.core.vocabulary import WEIGHT
from judges.core.records import Judgment
from judges.core.vocabulary import STATUS_GRADE
from judges.engine.weights import citation_weight

LEVEL_WEIGHTS = (WEIGHT["unsupported"], WEIGHT["partial"], WEIGHT["supported"])


def judgment(status, p_any=None, p_full=None, support_status=None, **kw):
    base = Judgment(
        status, STATUS_GRADE[status], 0, 0.0, 0.0, 0.0, 1, 0, 0, "", "embedded", "", support_status or status
    )
    return base._replace(p_any=p_any, p_full=p_full, **kw)


# probabilities kept off 0 and 1 so that every level is possible
probabilities = st.tuples(st.floats(0.001, 0.999), st.floats(0.001, 0.999)).map(lambda p: (max(p), min(p) * 0.999))
errors = st.floats(0.0, 0.5)


def brute_force(p_any, p_full, answer_likelihood, capped=False):
    """Bayes' rule written out: P(level | answer) over the three levels, then the mean weight."""
    prior = (1 - p_any, p_any - p_full, p_full)
    joint = [q * lk for q, lk in zip(prior, answer_likelihood)]
    weights = (0.0, 0.5, 0.5 if capped else 1.0)
    return sum(j * w for j, w in zip(joint, weights)) / sum(joint)


@given(probabilities, st.sampled_from(["supported", "partial", "unsupported"]))
def test_without_an_answer_the_weight_is_the_mean_of_the_three_levels_weights(p, status):
    p_any, p_full = p
    mean = sum(w * q for w, q in zip(LEVEL_WEIGHTS, (1 - p_any, p_any - p_full, p_full)))
    j = judgment(status, p_any, p_full)
    assert citation_weight(j, True, 0.1) == pytest.approx(mean) == pytest.approx(expected_weight(p_any, p_full))
    assert 0.0 <= citation_weight(j, True, 0.1) <= 1.0
    assert citation_weight(j, False, 0.1) == WEIGHT[status]  # leaderboard.weights: status


@given(probabilities, errors, st.sampled_from(["YES", "NO", "FULL", "PARTIAL", "NONE"]), st.booleans())
def test_an_answer_updates_the_weight_by_bayes_rule(p, error, answer, capped):
    p_any, p_full = p
    status = "partial" if capped else "supported"
    j = judgment(status, p_any, p_full, support_status="supported", llm_answer=answer, capped=capped)
    expected = brute_force(p_any, p_full, likelihood(answer, None, error), capped)
    assert citation_weight(j, True, error, full_ruled_out=capped) == pytest.approx(expected)
    assert citation_weight(j, False, error) == WEIGHT[status]


@given(probabilities, errors)
def test_yes_raises_and_no_lowers_the_weight(p, error):
    p_any, p_full = p
    before = citation_weight(judgment("partial", p_any, p_full), True, error)
    yes = citation_weight(judgment("supported", p_any, p_full, "partial", llm_answer="YES"), True, error)
    no = citation_weight(judgment("partial", p_any, p_full, "partial", llm_answer="NO"), True, error)
    assert no - 1e-9 <= before <= yes + 1e-9


@given(probabilities)
def test_an_answer_of_error_zero_decides_the_level_and_a_coin_toss_says_nothing(p):
    p_any, p_full = p
    prior = expected_weight(p_any, p_full)
    for answer, status in (("FULL", "supported"), ("PARTIAL", "partial"), ("NONE", "unsupported")):
        j = judgment(status, p_any, p_full, "partial", llm_answer=answer)
        assert citation_weight(j, True, 0.0) == pytest.approx(WEIGHT[status])
        # one level in three is a coin toss for support_level
        assert expected_weight(p_any, p_full, likelihood(answer, None, 2 / 3)) == pytest.approx(prior)
    j = judgment("supported", p_any, p_full, "partial", llm_answer="YES")
    assert citation_weight(j, True, 0.0) == pytest.approx(1.0)
    assert citation_weight(j, True, 0.5) == pytest.approx(prior)
    # a NO with error 0 leaves partial and none in the proportion the model gave them
    j = judgment("partial", p_any, p_full, "partial", llm_answer="NO")
    assert citation_weight(j, True, 0.0) == pytest.approx(0.5 * (p_any - p_full) / (1 - p_full))


def test_p_yes_from_log_probabilities_reads_the_answer_as_the_status_does():
    j = judgment("partial", 0.8, 0.5, "partial", llm_answer="YES", llm_p_yes=0.3)  # YES, but P(YES) < 0.5
    assert citation_weight(j, True, 0.0) == pytest.approx(0.5 * 0.3 / 0.5)  # read as NO


@given(probabilities)
def test_a_status_the_model_did_not_decide_weighs_its_status_weight(p):
    p_any, p_full = p
    assert citation_weight(judgment("supported"), True, 0.1) == 1.0  # no probabilities: the alignment judge
    for status in ("missing", "cross_language"):
        assert citation_weight(judgment(status), True, 0.1) == 0.0
    # guarded: unsupported whatever the model said (instructing the judge never pays)
    for support_status in ("supported", "unsupported"):
        j = judgment("unsupported", p_any, p_full, support_status, llm_answer="guarded")
        assert citation_weight(j, True, 0.1) == 0.0
    # an unparsed or failed answer replaced by on_unparsed: unsupported
    for answer in ("unparsed", "failed"):
        j = judgment("unsupported", p_any, p_full, "partial", llm_answer=answer)
        assert citation_weight(j, True, 0.1) == 0.0
        # ... with on_unparsed: judge the model's status stands, and so does its expected weight
        j = judgment("partial", p_any, p_full, "partial", llm_answer=answer)
        assert citation_weight(j, True, 0.1) == pytest.approx(expected_weight(p_any, p_full))


@given(probabilities, st.sampled_from(["supported", "partial", "unsupported"]))
def test_where_the_cap_rules_full_support_out_a_citation_weighs_half_its_chance_of_any_support(p, status):
    p_any, p_full = p
    capped = judgment("partial", p_any, p_full, support_status="supported", capped=True)
    assert citation_weight(capped, True, 0.1, full_ruled_out=True) == pytest.approx(0.5 * p_any)
    # below supported the cap changes no status, but full support is ruled out all the same
    j = judgment(status, p_any, p_full)
    assert citation_weight(j, True, 0.1, full_ruled_out=True) == pytest.approx(0.5 * p_any)
    assert citation_weight(j, True, 0.1, full_ruled_out=True) <= expected_weight(p_any, p_full) + 1e-12
    assert citation_weight(j, False, 0.1, full_ruled_out=True) == WEIGHT[status]


def test_an_answer_naming_a_level_the_model_ruled_out_with_error_zero_weighs_the_status():
    j = judgment("supported", 0.4, 0.0, "partial", llm_answer="FULL")  # P(full) = 0, the LLM says FULL
    assert citation_weight(j, True, 0.0) == 1.0


def test_the_explanation_says_when_the_weight_is_not_the_statuss():
    from judges.engine.explain import explain

    thresholds = {"judge": "model", "p_supported": 0.45, "p_partial": 0.65}
    j = judgment("partial", 0.8, 0.3)
    expected = j._replace(weight=citation_weight(j, True, 0.1))
    assert explain(expected, thresholds).endswith("; weighs 0.55 in WEIGHTED_PRECISION, its expected weight")
    answered = j._replace(llm_answer="NO")
    assert "its expected weight given the LLM's answer" in explain(
        answered._replace(weight=citation_weight(answered, True, 0.1)), thresholds
    )
    assert "WEIGHTED_PRECISION" not in explain(j._replace(weight=citation_weight(j, False, 0.1)), thresholds)


def test_a_cited_sentence_without_words_weighs_nothing(tmp_path):
    """``"."``, ``"["`` or an empty sentence cannot be read: unsupported with certainty, weight 0,
    whatever the model would say about an all-zero feature vector (it said 0.204)."""
    import json

    from helpers import ROOT, run_cli

    import judges

    doc = {"rt-doc-1": "Glaciers in the Alps lost a tenth of their volume in two years."}
    sentences = [".", "[", "", "Glaciers in the Alps lost a tenth of their volume in two years."]
    report = {
        "metadata": {"team_id": "t", "run_id": "t-empty", "topic_id": "rt-101"},
        "responses": [{"text": s, "citations": {"rt-doc-1": 0.9}} for s in sentences],
        "references": list(doc),
        "documents": doc,
    }
    run = tmp_path / "runs" / "t-empty.jsonl"
    run.parent.mkdir()
    run.write_text(json.dumps(report) + "\n")
    topics = ROOT / "datasets" / "ragtime" / "topics.jsonl"
    result = run_cli("--rag-topics", topics, "--rag-responses", run.parent, "--out-dir", tmp_path, "--name", "e")
    assert result.returncode == 0, result.stderr
    a = judges.read_assessments(tmp_path, "e").set_index("sentence_index")
    unreadable = a.loc[[0, 1, 2]]
    assert (unreadable.status == "unsupported").all() and (unreadable.weight == 0).all()
    assert (unreadable.p_any == 0).all() and (unreadable.p_full == 0).all()
    assert a.loc[3, "status"] == "supported" and a.loc[3, "weight"] > 0.5


def test_one_rule_reads_an_answer_for_both_kinds_of_pair():
    """judges.attest.answers.observation: what the citation's weight and the nugget's probabilities
    learn from an answer: a parsed one its likelihood, an unparsed one kept nothing, a guarded or
    replaced one a final status."""
    from judges.attest.answers import NO_OBSERVATION, observation
    from judges.attest.kinds import CITATION, NUGGET

    assert observation("YES", None, 0.2, replaced=True) == likelihood("YES", None, 0.2) == (0.2, 0.2, 0.8)
    assert observation("FULL", None, 0.2, replaced=False) == likelihood("FULL", None, 0.2)
    assert observation("unparsed", None, 0.2, replaced=False) == NO_OBSERVATION
    assert observation("unparsed", None, 0.2, replaced=True) is None
    assert observation("guarded", None, 0.2, replaced=False) is None
    # the status words: the nugget's own inverted give the cascade's (the citation's identity)
    assert NUGGET.decided() == {"support": "supported", "partial_support": "partial", "not_support": "unsupported"}
    assert CITATION.decided() == {w: w for w in CITATION.status}
