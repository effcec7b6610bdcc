"""Nugget bank readers (judges.formats.nuggets): every distributed shape read to the same banks,
property tests over generated banks, and bad input as one error naming file, line and field."""

from __future__ import annotations

import gzip
import importlib.util
import json

import pytest
from helpers import shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judges.core.errors import InputError
from judges.formats.nuggets import ASSIGNMENTS, OKAY, VITAL, read_nuggets

word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
nugget_text = st.lists(word, min_size=1, max_size=6).map(" ".join)
qid = st.text(alphabet="abcdefghij0123456789-", min_size=1, max_size=10).filter(lambda s: s != "all")
nuggets_st = st.lists(st.tuples(nugget_text, st.sampled_from([VITAL, OKAY])), min_size=1, max_size=8)
banks_st = st.dictionaries(qid, st.tuples(nugget_text, nuggets_st), min_size=1, max_size=4)


def _write(path, records, how):
    if how == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    elif how == "array":
        path.write_text(json.dumps(records, indent=2))
    elif how == "pretty":
        path.write_text("\n".join(json.dumps(r, indent=2) for r in records))
    else:
        with gzip.open(path, "wt") as f:
            f.write("".join(json.dumps(r) + "\n" for r in records))


def _expected(banks):
    return {q: (query, [(t, imp) for t, imp in ns]) for q, (query, ns) in banks.items()}


def _got(found):
    return {q: (b.query, [(n.text, n.importance) for n in b.nuggets]) for q, b in found.banks.items()}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(banks=banks_st, how=st.sampled_from(["jsonl", "array", "pretty", "gz"]))
def test_nist_bank_round_trip(tmp_path, banks, how):
    path = tmp_path / ("b.jsonl.gz" if how == "gz" else "b.jsonl")
    records = [
        {"qid": q, "query": query, "nuggets": [{"text": t, "importance": i} for t, i in ns]}
        for q, (query, ns) in banks.items()
    ]
    _write(path, records, how)
    found = read_nuggets(path)
    assert found.shape == "nist" and not found.assignments
    assert _got(found) == _expected(banks)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(banks=banks_st, runs=st.lists(word, min_size=1, max_size=3, unique=True), data=st.data())
def test_assignments_give_the_same_banks_and_their_levels(tmp_path, banks, runs, data):
    records, levels = [], {}
    for run in runs:
        for q, (query, ns) in banks.items():
            lv = data.draw(st.lists(st.sampled_from([0, 1, 2]), min_size=len(ns), max_size=len(ns)))
            levels[(run, q)] = tuple(lv)
            nuggets = [{"text": t, "importance": i, "assignment": ASSIGNMENTS[v]} for (t, i), v in zip(ns, lv)]
            records.append({"qid": q, "query": query, "run_id": run, "answer_text": "x", "nuggets": nuggets})
    path = tmp_path / "a.jl"
    _write(path, records, "jsonl")
    found = read_nuggets(path)
    assert found.shape == "nist_assignment"
    assert _got(found) == _expected(banks)
    assert {k: a.levels for k, a in found.assignments.items()} == levels


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(banks=banks_st, as_dict=st.booleans(), container=st.booleans())
def test_autojudge_banks_read_as_the_same_nuggets(tmp_path, banks, as_dict, container):
    """AutoJudge NuggetBank JSON (questions and claims; dict or list; one per line or a container)."""
    records = []
    for q, (query, ns) in banks.items():
        entries = [{"question": t, "importance": i, "query_id": q} for t, i in ns]
        bank = {"query_id": q, "title_query": query, "format_version": "v3"}
        bank["nugget_bank"] = {e["question"] + str(k): e for k, e in enumerate(entries)} if as_dict else entries
        records.append(bank)
    path = tmp_path / "aj.jsonl"
    if container:
        path.write_text(json.dumps({"format_version": "v3", "banks": {r["query_id"]: r for r in records}}))
    else:
        _write(path, records, "jsonl")
    found = read_nuggets(path)
    assert found.shape == "autojudge"
    assert _got(found) == _expected(banks)


def test_nuggetizer_extras_and_plain_strings(tmp_path):
    """nuggetizer's output with traces and reasoning, nuggets as plain strings, importance 'failed'."""
    path = tmp_path / "n.jsonl"
    record = {
        "query": {"qid": "q1", "text": "What is Python?"},
        "qid": "q1",
        "nuggets": [
            {"text": "Python is a language", "importance": "Vital", "reasoning": "r", "trace": {"prompt": "p"}},
            {"text": "Python is slow", "importance": "failed"},
            "Python was created by Guido",
        ],
        "trace": {"prompt": "..."},
    }
    path.write_text(json.dumps(record) + "\n")
    bank = read_nuggets(path).banks["q1"]
    assert bank.query == "What is Python?"
    assert [(n.text, n.importance) for n in bank.nuggets] == [
        ("Python is a language", VITAL),
        ("Python is slow", OKAY),
        ("Python was created by Guido", OKAY),
    ]


def test_autojudge_types_write_what_we_read(tmp_path, monkeypatch):
    """A bank written by autojudge-base itself (the ``autojudge`` extra) reads to its nuggets."""
    if importlib.util.find_spec("autojudge_base") is None:
        pytest.skip("autojudge-base is not installed (the autojudge extra)")
    import nltk

    stub = tmp_path / "nltk"
    (stub / "corpora" / "stopwords").mkdir(parents=True)
    (stub / "corpora" / "stopwords" / "english").write_text("")
    (stub / "tokenizers" / "punkt").mkdir(parents=True)
    monkeypatch.setattr(nltk.data, "path", [*nltk.data.path, str(stub)])
    try:
        from autojudge_base.nugget_data import NuggetBank, NuggetBanks, NuggetQuestion, write_nugget_banks
    except Exception as e:  # noqa: BLE001 (its import needs NLTK data and may fail in other ways)
        pytest.skip(f"autojudge_base does not import here: {e}")
    bank = NuggetBank(query_id="t1", title_query="bees")
    bank.add_nuggets(
        [NuggetQuestion.from_lazy("t1", "Do bees sleep?", importance="vital"), NuggetQuestion.from_lazy("t1", "Why?")]
    )
    path = tmp_path / "banks.jsonl"
    write_nugget_banks(NuggetBanks.from_banks_list([bank]), path, format="jsonl")
    found = read_nuggets(path).banks["t1"]
    assert [(n.text, n.importance) for n in found.nuggets] == [("Do bees sleep?", VITAL), ("Why?", OKAY)]


def test_rag24_files_read():
    d = shared("rag24-nuggets")
    bank = read_nuggets(d / "nuggets.jsonl")
    assigned = read_nuggets(d / "nugget_assignment.jsonl")
    assert len(bank.banks) == 8 and sum(len(b.nuggets) for b in bank.banks.values()) == 105
    assert assigned.banks == bank.banks
    assert len(assigned.assignments) == 337
    assert sum(len(a.levels) for a in assigned.assignments.values()) == 4408


BAD = [
    ('{"qid": "q", "nuggets": [{"text": ""}]}', 1, "nuggets[0].text", "is empty"),
    ('{"qid": "q", "nuggets": "x"}', 1, "nuggets", "must be a list"),
    ('{"query": "q"}\n', 1, "qid", "missing"),
    ('{"qid": "all", "nuggets": []}', 1, "qid", "reserved"),
    ('{"qid": "q", "nuggets": [3]}', 1, "nuggets[0]", "must be an object or a string"),
    ('{"qid": "q", "nuggets": []}\n{"qid": "q", "nuggets": []}', 2, "qid", "a second bank"),
    (
        '{"qid": "q", "run_id": "r", "nuggets": [{"text": "a", "assignment": "maybe"}]}',
        1,
        "nuggets[0].assignment",
        "not an assignment",
    ),
    (
        '{"qid": "q", "run_id": "r", "nuggets": [{"text": "a", "assignment": "support"}]}\n'
        '{"qid": "q", "run_id": "r", "nuggets": [{"text": "a", "assignment": "support"}]}',
        2,
        "run_id",
        "already at line 1",
    ),
    (
        '{"qid": "q", "run_id": "r", "nuggets": [{"text": "a", "assignment": "support"}]}\n'
        '{"qid": "q", "run_id": "s", "nuggets": [{"text": "b", "assignment": "support"}]}',
        2,
        "qid",
        "differ",
    ),
    ('{"query_id": "q", "nugget_bank": {"k": {"question": 5}}}', 1, "nugget_bank.k.question", "must be a string"),
    ('{"qid": "q", "nuggets": []}\n{"qid": ', 2, None, ""),
]


@pytest.mark.parametrize("text,line,field,problem", BAD)
def test_bad_input_names_file_line_field(tmp_path, text, line, field, problem):
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    with pytest.raises(InputError) as e:
        read_nuggets(path)
    assert e.value.path == str(path) and e.value.line == line
    assert e.value.field == field and problem in e.value.problem
    assert "\n" not in e.value.render()


def test_empty_and_not_json(tmp_path):
    for text in ("", "hello\n"):
        path = tmp_path / "x.jsonl"
        path.write_text(text)
        with pytest.raises(InputError, match="nugget"):
            read_nuggets(path)
