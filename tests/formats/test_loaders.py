"""Loader quirks of every track shape, fed from strings and small files."""

import gzip
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judges.core.errors import InputError
from judges.formats.corpus import read_corpus
from judges.formats.runs import parse_report, read_reports
from judges.formats.topics import parse_topic, read_topics


def report(obj, **kw):
    return parse_report(obj, "run.jsonl", 7, **kw)


def cites(rep):
    return [[(c.raw, c.doc_id, c.problem) for c in s.citations] for s in rep.sentences]


RAG25 = {
    "metadata": {"team_id": "t", "run_id": "r1", "narrative_id": 2503},
    "references": ["d0", "d1", "d2"],
    "answer": [
        {"text": "First.", "citations": [0, 2]},
        {"text": "Second.", "citations": [7]},
        {"text": "Third.", "citations": ["d9", 1]},
        {"text": "No cite.", "citations": []},
    ],
}


def test_rag25_int_indices_resolve_through_references_and_topic_id_may_be_int():
    rep = report(RAG25)
    assert (rep.run_id, rep.topic_id, rep.team_id, rep.shape) == ("r1", "2503", "t", "rag")
    assert cites(rep) == [
        [("0", "d0", None), ("2", "d2", None)],
        [("7", None, "index 7 out of range (3 references)")],
        [("d9", "d9", None), ("1", "d1", None)],  # "format 2" doc-id strings mix with indices
        [],
    ]


def test_int_citations_are_doc_ids_when_the_report_has_no_references():
    rep = report({"metadata": {"run_id": "r", "topic_id": "t"}, "responses": [{"text": "x", "citations": [5, "a"]}]})
    assert cites(rep) == [[("5", "5", None), ("a", "a", None)]]


def test_empty_references_list_still_means_indices():
    rep = report({"run_id": "r", "topic_id": "t", "references": [], "answer": [{"text": "x", "citations": [0]}]})
    assert cites(rep) == [[("0", None, "index 0 out of range (0 references)")]]


def test_raw_rag24_without_metadata_reads_top_level_ids():
    rep = report(
        {
            "run_id": "raw",
            "topic_id": 12,
            "topic": "q",
            "references": ["a"],
            "answer": [{"text": "s", "citations": [0]}],
        }
    )
    assert (rep.run_id, rep.topic_id) == ("raw", "12")
    assert cites(rep) == [[("0", "a", None)]]


def test_ragtime_dict_citations_keep_order_and_confidence():
    rep = report(
        {"metadata": {"run_id": "r", "topic_id": "t"}, "responses": [{"text": "s", "citations": {"b": 0.9, "a": 0.1}}]}
    )
    assert [(c.rank, c.doc_id, c.confidence) for c in rep.sentences[0].citations] == [(0, "b", 0.9), (1, "a", 0.1)]


def test_request_id_and_empty_answers():
    rep = report({"metadata": {"run_id": "r", "request_id": "q1"}, "responses": []})
    assert rep.topic_id == "q1" and rep.sentences == ()
    assert report({"metadata": {"run_id": "r", "topic_id": "q"}, "answer": None}).sentences == ()
    rep = report({"metadata": {"run_id": "r", "topic_id": "q"}, "responses": [{"text": ""}]})
    assert rep.sentences[0].text == "" and rep.sentences[0].citations == ()


def test_max_citations_per_sentence_keeps_the_first_and_counts_the_rest():
    rep = report(
        {"metadata": {"run_id": "r", "topic_id": "t"}, "responses": [{"text": "s", "citations": ["a", "b", "c", "d"]}]},
        max_citations=3,
    )
    assert [c.doc_id for c in rep.sentences[0].citations] == ["a", "b", "c"]
    assert rep.sentences[0].dropped == 1


def test_embedded_documents_in_every_form():
    base = {"metadata": {"run_id": "r", "topic_id": "t"}, "responses": []}
    rep = report(
        {**base, "documents": {"a": {"id": "a", "text": "A.", "title": "T"}, "b": "B text", "c": {"title": "no text"}}}
    )
    assert rep.documents["a"].text == "A." and rep.documents["a"].title == "T"
    assert rep.documents["b"].text == "B text"
    assert rep.documents["c"] is None  # present without text: judged 'missing'
    rep = report({**base, "documents": [{"docno": "x", "text": "X."}]})
    assert rep.documents["x"].text == "X."


@pytest.mark.parametrize(
    "obj, message",
    [
        ([], "run.jsonl:7: a report must be a JSON object, got a list"),
        ({"metadata": {"topic_id": "t"}, "answer": []}, "run.jsonl:7: metadata.run_id: missing"),
        (
            {"metadata": {"run_id": "r"}, "answer": []},
            "run.jsonl:7: metadata.topic_id: missing (also looked for narrative_id, request_id)",
        ),
        (
            {"metadata": {"run_id": "r", "topic_id": "t"}},
            "run.jsonl:7: responses: missing (a report needs 'answer', 'responses' or 'sentences')",
        ),
        (
            {"metadata": {"run_id": "r", "topic_id": "t"}, "answer": [{"citations": []}]},
            "run.jsonl:7: answer[0].text: missing",
        ),
        (
            {"metadata": {"run_id": "r", "topic_id": "t"}, "answer": [{"text": "s", "citations": [1.5]}]},
            "run.jsonl:7: answer[0].citations[0]: must be an index or a doc id, got a number",
        ),
        (
            {"metadata": {"run_id": "r", "topic_id": "t"}, "responses": [{"text": "s", "citations": "d1"}]},
            "run.jsonl:7: responses[0].citations: must be a list or an object, got a string",
        ),
        (
            {"metadata": {"run_id": ["x"], "topic_id": "t"}, "answer": []},
            "run.jsonl:7: metadata.run_id: must be a string or an integer, got a list",
        ),
        (
            {"metadata": {"run_id": "r", "topic_id": "t"}, "answer": [], "references": "d1"},
            "run.jsonl:7: references: must be a list of doc ids",
        ),
    ],
)
def test_malformed_reports_name_file_line_and_field(obj, message):
    with pytest.raises(InputError) as e:
        report(obj)
    assert e.value.render() == message


def test_dataset_option_checks_the_shape():
    with pytest.raises(InputError, match="--dataset rag expects 'answer'"):
        report({"metadata": {"run_id": "r", "topic_id": "t"}, "responses": []}, dataset="rag")


def test_read_reports_gz_and_bad_json_lines(tmp_path):
    path = tmp_path / "run.jsonl.gz"
    lines = [json.dumps(RAG25), "{not json", "", json.dumps({**RAG25, "metadata": {"run_id": "r1", "topic_id": "x"}})]
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    got = list(read_reports(path))
    assert [line for line, _ in got] == [1, 2, 4]
    assert isinstance(got[1][1], InputError) and got[1][1].render().startswith(f"{path}:2: invalid JSON")
    assert got[2][1].topic_id == "x"


@pytest.mark.parametrize(
    "obj, expected",
    [
        (
            {"request_id": "r1", "title": "T", "problem_statement": "P", "background": "B", "limit": 3},
            ("r1", "T", "T\nP\nB"),
        ),
        ({"id": "2025-1", "narrative": "N"}, ("2025-1", "N", "N")),
        ({"qid": 28, "query": "Q", "original_query": {"query_id": "28"}}, ("28", "Q", "Q")),
        ({"request_id": "rt", "original_topic": {"title": "T", "problem_statement": "P"}}, ("rt", "T", "T\nP")),
        ({"original_topic": {"topic_id": "n1", "title": "T"}}, ("n1", "T", "T")),
    ],
)
def test_topic_forms(obj, expected):
    t = parse_topic(obj, "topics.jsonl", 1)
    assert (t.topic_id, t.title, t.text) == expected


def test_topic_without_id_is_an_error(tmp_path):
    path = tmp_path / "topics.jsonl"
    path.write_text('{"title": "x"}\n')
    ((_, err),) = read_topics(path)
    assert err.render() == f"{path}:1: request_id: missing (also looked for topic_id, id, qid, query_id, narrative_id)"


def test_corpus_keeps_only_wanted_ids_and_reports_bad_lines(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text(
        '{"doc_id": "a", "text": "A", "title": "TA"}\n{"docno": "b", "text": "B"}\n{"id": "c", "text": "C"}\n'
        '{"docno": "d"}\n[1]\n'
    )
    errors = []
    docs = read_corpus(path, {"a", "b", "zz"}, errors.append)
    assert sorted(docs) == ["a", "b"] and docs["a"].title == "TA"
    assert [e.render() for e in errors] == [
        f"{path}:4: text: missing",
        f"{path}:5: a document must be a JSON object, got a list",
    ]


# --- parse_report against its plain form -------------------------------------------------------
# The parser names an error's field only when it raises; the plain form below builds every field
# name up front, as the parser did before. They must agree on every report, good or bad.


def _plain_sentence(item, index, references, path, line, field, max_citations):
    from judges.formats.runs import checked_id, json_type
    from judges.core.records import Citation, Sentence

    if not isinstance(item, dict):
        raise InputError(path, line, field, "must be an object with 'text' and 'citations'")
    text = item.get("text")
    if not isinstance(text, str):
        raise InputError(path, line, f"{field}.text", "missing" if text is None else "must be a string")
    raw = item.get("citations")
    cites = []
    if raw is None:
        pass
    elif isinstance(raw, dict):  # the RAG shape: only RAGTIME's responses map doc ids to confidences
        raise InputError(path, line, f"{field}.citations", "must be a list of references or doc ids, got an object")
    elif isinstance(raw, list):
        for rank, c in enumerate(raw):
            cfield = f"{field}.citations[{rank}]"
            if isinstance(c, bool) or not isinstance(c, (int, str)):
                raise InputError(path, line, cfield, f"must be an index or a doc id, got {json_type(c)}")
            if isinstance(c, int) and references is not None:
                if 0 <= c < len(references):
                    cites.append(Citation(rank, str(c), references[c]))
                else:
                    problem = f"index {c} out of range ({len(references)} references)"
                    cites.append(Citation(rank, str(c), None, None, problem))
            else:
                cites.append(Citation(rank, checked_id(c, path, line, cfield), str(c).strip()))
    else:
        raise InputError(path, line, f"{field}.citations", f"must be a list or an object, got {json_type(raw)}")
    dropped = 0
    if max_citations is not None and len(cites) > max_citations:
        dropped = len(cites) - max_citations
        cites = cites[:max_citations]
    return Sentence(index, text, tuple(cites), dropped)


def _plain_report(obj, max_citations):
    """The sentences and references as the plain form reads them (or its error)."""
    from judges.formats.runs import checked_id

    references = obj.get("references")
    if references is not None:
        if not isinstance(references, list):
            raise InputError("run.jsonl", 7, "references", "must be a list of doc ids")
        references = [checked_id(r, "run.jsonl", 7, f"references[{i}]") for i, r in enumerate(references)]
    return tuple(
        _plain_sentence(item, i, references, "run.jsonl", 7, f"answer[{i}]", max_citations)
        for i, item in enumerate(obj["answer"])
    )


def _outcome(f):
    try:
        return f()
    except InputError as e:
        return ("error", e.path, e.line, e.field, e.problem)


_good_ids = st.sampled_from(["d0", " d1 ", "d2", "msmarco_v2.1_doc_00_1#2_3"])
_bad_ids = st.one_of(st.sampled_from(["", " ", "d 2", "d\t3", "d\x004", "\u2028"]), st.text(max_size=4))


def _mostly(good, bad, one_in: int = 8):
    """``good``, and ``bad`` once in ``one_in`` draws (a bad value ends the report early)."""
    return st.integers(1, one_in).flatmap(lambda k: bad if k == 1 else good)


_ids = _mostly(_good_ids, _bad_ids)
_cited = _mostly(
    st.one_of(_good_ids, st.integers(0, 4)),
    st.one_of(
        _bad_ids,
        st.integers(-3, 9),
        st.booleans(),
        st.none(),
        st.floats(allow_nan=False),
        st.lists(_ids, max_size=2),
    ),
)
_good_item = st.fixed_dictionaries(
    {"text": st.text(max_size=5)},
    optional={
        "citations": _mostly(
            st.lists(_cited, max_size=5),
            st.one_of(
                st.dictionaries(_ids, st.one_of(st.floats(), st.integers(), st.booleans(), st.none()), max_size=3),
                st.none(),
            ),
            one_in=3,
        )
    },
)
_bad_item = st.one_of(
    st.fixed_dictionaries({"text": st.one_of(st.none(), st.integers())}),
    st.fixed_dictionaries({"text": st.just("t"), "citations": st.one_of(_ids, st.integers())}),
    st.text(max_size=3),
    st.none(),
)
_items = _mostly(_good_item, _bad_item)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_items, max_size=5),
    _mostly(
        st.one_of(st.none(), st.lists(st.one_of(_good_ids, st.integers(0, 3)), max_size=5)),
        st.one_of(st.lists(st.one_of(_ids, st.none(), st.booleans()), max_size=5), _ids),
        one_in=4,
    ),
    st.one_of(st.none(), st.integers(0, 3)),
)
def test_reports_read_as_the_plain_form_reads_them(items, references, max_citations):
    obj = {"metadata": {"run_id": "r", "topic_id": "t"}, "answer": items}
    if references is not None:
        obj["references"] = references
    got = _outcome(lambda: report(obj, max_citations=max_citations).sentences)
    assert got == _outcome(lambda: _plain_report(obj, max_citations))
