"""The public API of judges.checks: source forms, results, the four checks, the suite, the primitive."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from judges.checks import (
    CHECKS,
    CheckResult,
    CheckSuite,
    Claim,
    Source,
    SuiteResult,
    as_sources,
    cites_sources,
    grounded,
    missing,
    no_placeholders,
    numeric_grounded,
    overlap,
)
from judges.core.records import Document

DOC = "Acme Holdings reported revenue of $1.5 million in 2019, up 15 percent, said Maria Lopez in Zürich."
ANSWER_GOOD = "Acme Holdings earned 1,500,000 dollars in 2019 (15%), according to Maria Lopez."
ANSWER_BAD = "Acme Holdings earned $2 million in 2018, according to Peter Grant."


@pytest.mark.parametrize(
    "sources",
    [
        DOC,
        {"text": DOC},
        {"text": DOC, "title": "Annual report"},
        Document("d1", DOC, "Annual report"),
        SimpleNamespace(text=DOC),
        Source(DOC),
        [DOC],
        ("unrelated text", {"text": DOC}),
        ["unrelated text", Document("d1", DOC)],
    ],
)
def test_every_source_form_works(sources):
    assert numeric_grounded(ANSWER_GOOD, sources).passed
    assert grounded(ANSWER_GOOD, sources).passed
    assert not numeric_grounded(ANSWER_BAD, sources).passed


def test_as_sources_shapes_and_titles():
    (one,) = as_sources(Document("d1", "body", "Heading"))  # a NamedTuple is one source, not a list
    assert (one.text, one.title) == ("body", "Heading")
    assert len(as_sources(["a", {"text": "b"}])) == 2
    assert as_sources([]) == []
    # the title is searched too
    assert grounded("It was about Maria Lopez.", {"text": "nothing", "title": "Maria Lopez"}).passed


@pytest.mark.parametrize(
    "bad, error, message",
    [
        ({"body": "x"}, ValueError, "no 'text' key"),
        ([{"text": 3}], TypeError, "source 0: text must be a str"),
        (["ok", 42], TypeError, "source 1"),
        (42, TypeError, "sources"),
    ],
)
def test_bad_sources_are_rejected_with_position(bad, error, message):
    with pytest.raises(error) as err:
        as_sources(bad)
    assert message in str(err.value)


def test_numeric_grounded_reports_matched_and_missing():
    r = numeric_grounded(ANSWER_BAD, [DOC, "other"])
    assert not r.passed and r.exit_code == 1
    assert [m["surface"] for m in r.evidence["missing"]] == ["$2 million", "2018"]
    assert r.score == 0.0
    assert any("'$2 million' (currency $ 2000000)" in reason for reason in r.reasons)
    ok = numeric_grounded(ANSWER_GOOD, ["other", DOC])
    assert ok.passed and ok.exit_code == 0 and ok.score == 1.0
    assert {m["source"] for m in ok.evidence["matched"]} == {1}


def test_numeric_grounded_options():
    assert not numeric_grounded("about 1.52 million", DOC).passed
    assert numeric_grounded("about 1.52 million", DOC, rel_tol=0.02).passed
    assert numeric_grounded("seventeen reasons", DOC).passed  # words are not read from answers...
    assert not numeric_grounded("seventeen reasons", DOC, number_words=True).passed  # ...unless asked
    assert numeric_grounded("fifteen reasons", DOC, number_words=True).passed  # 15 (percent) is there
    with pytest.raises(TypeError, match="rel_tolerance"):
        numeric_grounded("1", DOC, rel_tolerance=0.1)
    with pytest.raises(ValueError, match="rel_tol"):
        numeric_grounded("1", DOC, rel_tol=-1)


def test_numeric_grounded_with_no_numbers_passes_and_says_so():
    r = numeric_grounded("No figures here.", DOC)
    assert r.passed and r.score == 1.0 and r.reasons == ["no numbers to check"]


def test_grounded_options():
    r = grounded(ANSWER_BAD, DOC)
    assert not r.passed and [m["surface"] for m in r.evidence["missing"]] == ["Peter Grant"]
    assert r.score == pytest.approx(0.5)
    assert grounded("It opened in Zürich.", DOC).reasons == ["no entities to check"]  # single words off
    assert grounded("It opened in Zurich.", DOC, single_words=True).passed  # accent-insensitive
    assert not grounded("It opened in Geneva.", DOC, single_words=True).passed
    assert grounded("Said Maria Lupez.", DOC, partial=False, fuzzy=0.8).passed
    assert not grounded("Said Maria Lupez.", DOC, partial=False).passed
    assert grounded("Said Maria Lupez.", DOC).passed  # partial: "Maria" alone is enough
    with pytest.raises(ValueError, match="fuzzy"):
        grounded("x", DOC, fuzzy=1.5)


def test_no_placeholders():
    assert no_placeholders(ANSWER_GOOD).passed is False  # "according to" is fine; Acme is a placeholder
    r = no_placeholders("Contact John Doe at info@example.com.")
    assert not r.passed and r.score == 0.0
    assert [f["name"] for f in r.evidence["found"]] == ["john_doe", "example_domain"]
    clean = no_placeholders("Revenue grew in 2019.")
    assert clean.passed and clean.score == 1.0 and clean.reasons == []
    assert not no_placeholders("Our Widget Works", extra=[("w", r"Widget Works", "custom")]).passed


def test_cites_sources_and_overlap():
    assert cites_sources(DOC, DOC).score == 1.0  # containment of a text in itself
    unrelated = cites_sources("Penguins swim in cold southern seas.", DOC)
    assert not unrelated.passed and unrelated.score == 0.0
    assert "below 0.1" in unrelated.reasons[0]
    j = cites_sources(DOC, DOC + " " + "and then something entirely different happened later on", metric="jaccard")
    assert 0.0 < j.score < 1.0 and j.evidence["metric"] == "jaccard"
    assert cites_sources("revenue of $1.5 million", DOC, n=3).evidence["n"] == 3
    with pytest.raises(ValueError, match="metric"):
        cites_sources("x", DOC, metric="cosine")
    o = overlap("a b c", ["a b x"], n=2)
    assert (o.shared, o.answer_ngrams, o.source_ngrams) == (1, 2, 2)
    assert o.containment == 0.5 and o.jaccard == pytest.approx(1 / 3)


def test_check_result_methods():
    r = CheckResult("demo", False, 0.25, ["first problem", "second problem"], {"k": [1, 2]})
    assert r.exit_code == 1
    assert r.to_dict() == {
        "name": "demo",
        "passed": False,
        "score": 0.25,
        "reasons": ["first problem", "second problem"],
        "evidence": {"k": [1, 2]},
    }
    assert json.loads(r.to_json()) == r.to_dict()
    assert r.explain().splitlines() == ["demo: FAILED (score 0.25)", "  - first problem", "  - second problem"]
    assert CheckResult("ok", True, 1.0).exit_code == 0
    with pytest.raises(ValueError, match="score"):
        CheckResult("bad", True, 1.5)


def test_results_serialise_to_json():
    for r in (
        numeric_grounded(ANSWER_BAD, DOC),
        grounded(ANSWER_BAD, DOC),
        no_placeholders(ANSWER_BAD),
        cites_sources(ANSWER_BAD, DOC),
        CheckSuite().run(ANSWER_BAD, DOC),
    ):
        assert json.loads(r.to_json())["passed"] is False or r.name == "cites_sources"


def test_suite_runs_all_checks_by_default():
    result = CheckSuite().run(ANSWER_BAD, DOC)
    assert isinstance(result, SuiteResult)
    assert [r.name for r in result.results] == ["numeric_grounded", "grounded", "no_placeholders", "cites_sources"]
    assert not result.passed and result.exit_code == 1
    assert result.score == min(r.score for r in result.results)
    assert result["grounded"].evidence["missing"][0]["surface"] == "Peter Grant"
    text = result.explain()
    assert text.startswith("suite: FAILED (1/4 checks passed)")
    assert "  grounded: FAILED" in text and "    - entity 'Peter Grant'" in text
    assert [c["name"] for c in json.loads(result.to_json())["checks"]] == [r.name for r in result.results]
    with pytest.raises(KeyError, match="no check named"):
        result["nope"]


def test_suite_with_chosen_checks_and_options():
    suite = CheckSuite(["numbers", "entities"], options={"numbers": {"rel_tol": 0.5}})
    result = suite(ANSWER_GOOD.replace("1,500,000", "1,600,000"), [Document("d", DOC)])
    assert result.passed and result.exit_code == 0
    assert [r.name for r in result.results] == ["numeric_grounded", "grounded"]
    assert CheckSuite(["placeholders"]).run("Nothing odd.").passed  # no sources needed


@pytest.mark.parametrize(
    "checks, options, message",
    [
        (["numbrs"], None, "unknown check 'numbrs'"),
        (["numbers", "numbers"], None, "listed twice"),
        (["numbers"], {"entities": {}}, "options given for check 'entities'"),
        (None, {"numbres": {}}, "options for unknown check 'numbres'"),
        (None, {"numbers": {"tolerance": 1}}, "numbers: unknown option(s) ['tolerance']"),
    ],
)
def test_suite_rejects_bad_configuration(checks, options, message):
    with pytest.raises(ValueError) as err:
        CheckSuite(checks, options)
    assert message in str(err.value)


def test_checks_registry():
    assert set(CHECKS) == {"numbers", "entities", "placeholders", "overlap"}


def test_per_sentence_primitive():
    doc = Source(DOC)
    claim = Claim("Maria Lopez said Acme Holdings made $2 million, and Peter Grant agreed, in 2019.")
    numbers_missing, entities_missing = missing(claim, doc)
    assert numbers_missing == ["$2 million"]
    assert entities_missing == ["Peter Grant"]
    # plain strings work too, and several sources: missing only when absent from all
    assert missing("Peter Grant paid $2 million.", [DOC, "Peter Grant paid 2,000,000 dollars."]) == ([], [])
    assert missing("Nothing to check here.", DOC) == ([], [])
    assert missing("Peter Grant paid.", Document("d1", "Peter Grant")) == ([], [])  # one Document, not a tuple


def test_prepared_objects_compute_once():
    doc = Source(DOC)
    assert doc.numbers is doc.numbers and doc.entities is doc.entities
    claim = Claim("Acme Holdings earned $2 million.")
    assert claim.numbers is claim.numbers and claim.entities is claim.entities
    missing(claim, doc)
    missing(claim, doc)
    assert claim.numbers is claim.numbers


def test_claim_context_decides_sentence_initial_words():
    doc = Source("Nothing relevant.")
    assert missing(Claim("Milira sings.", single_words=True), doc).entities == []
    with_context = Claim("Milira sings.", context="An album by Milira.", single_words=True)
    assert missing(with_context, doc).entities == ["Milira"]
