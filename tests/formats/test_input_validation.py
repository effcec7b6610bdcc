"""Fields of a valid JSON shape but of a wrong type or value, refused by the reader that owns the
format with one line ``path:line: field: problem`` (exit code 2) and nothing written; found by the
adversarial harness (``bench/adversarial.py``) as accepted with exit code 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import ROOT, cli_in_process

from judges.core.errors import InputError

TOPICS = ROOT / "datasets" / "dragun" / "topics.jsonl"


def report(responses=None, docs=None, shape="responses", **meta) -> dict:
    responses = [{"text": "A b c.", "citations": ["q"]}] if responses is None else responses
    return {
        "metadata": {"run_id": "x", "topic_id": "dg-1", **meta},
        shape: responses,
        "documents": {"q": {"text": "A b c."}} if docs is None else docs,
    }


def judge(tmp_path: Path, run: dict | None = None, topics: bytes | None = None, *extra: str):
    run_path = tmp_path / "run.jsonl"
    run_path.write_text(json.dumps(report() if run is None else run) + "\n")
    topics_path = TOPICS
    if topics is not None:
        topics_path = tmp_path / ("topics.tsv" if b"\t" in topics else "topics.jsonl")
        topics_path.write_bytes(topics)
    out = tmp_path / "out"
    result = cli_in_process(
        "--judge", "citation", "--rag-topics", topics_path, "--rag-responses", run_path,
        "--backend", "python", "--out-dir", out, "--name", "t", *extra,
    )  # fmt: skip
    return result, run_path, topics_path, out


def refused(result, out: Path, line: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"error: {line}\n"
    assert not out.exists()


# -- topics ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field, value, kind",
    [("narrative", 7, "a number"), ("narrative", {"x": 1}, "an object"), ("title", ["t"], "a list"),
     ("description", 3, "a number")],
)  # fmt: skip
def test_a_topic_text_field_not_a_string_is_refused(tmp_path, field, value, kind):
    topic = json.dumps({"request_id": "dg-1", "title": "t", field: value}).encode() + b"\n"
    result, _, topics, out = judge(tmp_path, None, topic)
    refused(result, out, f"{topics}:1: {field}: must be a string, got {kind}")


def test_a_tsv_topic_of_three_columns_is_refused(tmp_path):
    result, _, topics, out = judge(tmp_path, None, b"dg-1\tx\ty\n")
    refused(result, out, f"{topics}:1: expected topic_id<TAB>query (2 columns), got 3 columns")


# -- runs -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "confidence, problem",
    [
        ("high", "a confidence must be a number, got a string"),
        (float("nan"), "a confidence must be a finite number >= 0, got nan"),
        (-1, "a confidence must be a finite number >= 0, got -1"),
        (True, "a confidence must be a number, got a boolean"),
    ],
)
def test_a_ragtime_confidence_not_a_finite_number_at_least_0_is_refused(tmp_path, confidence, problem):
    run = report([{"text": "A b c.", "citations": {"q": confidence}}])
    result, run_path, _, out = judge(tmp_path, run)
    refused(result, out, f"{run_path}:1: responses[0].citations.q: {problem}")


def test_ragtime_confidences_null_0_and_above_1_are_read(tmp_path):
    run = report([{"text": "A b c.", "citations": {"q": 0.5}}, {"text": "D e.", "citations": {"q": None}}])
    result, *_ = judge(tmp_path, run)
    assert result.returncode == 0, result.stderr


def test_rag_citations_an_object_are_refused(tmp_path):
    run = report([{"text": "A b c.", "citations": {"a": "b"}}], shape="answer")
    result, run_path, _, out = judge(tmp_path, run)
    refused(result, out, f"{run_path}:1: answer[0].citations: must be a list of references or doc ids, got an object")


@pytest.mark.parametrize("text, kind", [(None, "null"), (3, "a number")])
def test_an_embedded_document_text_not_a_string_is_refused(tmp_path, text, kind):
    result, run_path, _, out = judge(tmp_path, report(docs={"q": {"text": text}}))
    refused(result, out, f"{run_path}:1: documents.q.text: must be a string, got {kind}")


# -- corpus ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("content", [b"", b"\n  \n\n"], ids=["empty", "blank lines"])
def test_a_corpus_of_no_documents_is_refused(tmp_path, content):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_bytes(content)
    result, _, _, out = judge(tmp_path, report(docs={}), None, "--corpus", str(corpus))
    refused(result, out, f"{corpus}: --corpus: no documents (the file is empty or holds only blank lines)")


def test_a_corpus_title_not_a_string_is_refused(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"doc_id": "q", "text": "A b c.", "title": ["t"]}) + "\n")
    result, _, _, out = judge(tmp_path, report(docs={}), None, "--corpus", str(corpus))
    refused(result, out, f"{corpus}:1: title: must be a string, got a list")


def test_corpus_index_of_an_empty_file_is_refused_and_writes_no_store(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_bytes(b"\n")
    result = cli_in_process("corpus", "index", corpus)
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"error: {corpus}: no documents (empty, or only blank or skipped lines)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.jsonl"]


# -- labels ---------------------------------------------------------------------------------------


def test_labels_that_apply_to_no_judged_citation_are_a_warning_naming_the_file_and_0_of_n(tmp_path):
    labels = tmp_path / "labels.jsonl"
    other = {"run_id": "other", "topic_id": "dg-1", "sentence_index": 0, "doc_id": "q", "label": "supported"}
    labels.write_text(json.dumps(other) + "\n" + json.dumps({**other, "sentence_index": 1}) + "\n")
    result, *_ = judge(tmp_path, None, None, "--labels", str(labels))
    assert result.returncode == 0, result.stderr
    assert (
        f"0 of the 2 labels in {labels} apply to a judged citation; 2 match none "
        "(run_id, topic_id, sentence_index, doc_id): labels of other runs or topics?"
    ) in result.stdout


def test_labels_of_which_some_apply_say_how_many(tmp_path):
    labels = tmp_path / "labels.jsonl"
    one = {"run_id": "x", "topic_id": "dg-1", "sentence_index": 0, "doc_id": "q", "label": "supported"}
    labels.write_text(json.dumps(one) + "\n" + json.dumps({**one, "run_id": "other"}) + "\n")
    result, *_ = judge(tmp_path, None, None, "--labels", str(labels))
    assert result.returncode == 0, result.stderr
    assert f"1 of the 2 labels in {labels} apply to a judged citation; 1 match none (run_id" in result.stdout
    assert "labels of other runs" not in result.stdout


# -- nuggets --------------------------------------------------------------------------------------

MINI = ROOT / "datasets" / "rag24-nuggets-mini"


def _bank(tmp_path: Path, change) -> tuple[Path, list[dict]]:
    records = [json.loads(raw) for raw in (MINI / "nuggets.jsonl").read_text().splitlines() if raw.strip()]
    change(records[0]["nuggets"])
    path = tmp_path / "nuggets.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path, records


@pytest.mark.parametrize("importance", ["crucial", 2, True])
def test_an_unknown_nugget_importance_is_refused(tmp_path, importance):
    from judges.formats.nuggets import read_nuggets

    path, _ = _bank(tmp_path, lambda ns: ns[1].__setitem__("importance", importance))
    with pytest.raises(InputError) as e:
        read_nuggets(path)
    assert (
        e.value.render()
        == f"{path}:1: nuggets[1].importance: {json.dumps(importance)} is not an importance (vital, okay)"
    )


def test_nugget_importances_as_nist_spells_them_in_any_case_or_none_are_read(tmp_path):
    from judges.formats.nuggets import read_nuggets

    def change(ns):
        ns[0]["importance"], ns[1]["importance"] = " Vital", "OKAY"
        del ns[2]["importance"]

    path, records = _bank(tmp_path, change)
    bank = read_nuggets(path).banks[records[0]["qid"]]
    assert [n.importance for n in bank.nuggets[:3]] == ["vital", "okay", "okay"]


def test_a_duplicate_nugget_text_is_a_warning_naming_the_file_and_line(tmp_path):
    path, records = _bank(tmp_path, lambda ns: ns.append({**ns[0], "text": "  " + ns[0]["text"].upper()}))
    out = tmp_path / "out"
    result = cli_in_process(
        "--judge", "nugget", "--rag-topics", MINI / "topics.jsonl", "--rag-responses", MINI / "runs",
        "--nuggets", path, "--backend", "python", "--out-dir", out, "--no-debug-log",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    last = len(records[0]["nuggets"]) - 1
    assert (
        f"{path}:1: nugget {last}: the same text as nugget 0 of topic {records[0]['qid']!r}'s bank "
        f"({records[0]['nuggets'][0]['text'].upper()[:60]!r}): it counts twice"
    ) in result.stderr


# -- check-answer ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name, text", [("answer.txt", ""), ("answer.txt", " \n\n "), ("answer.json", "[]")])
def test_check_answer_of_an_empty_answer_is_refused(tmp_path, name, text):
    answer, sources = tmp_path / name, tmp_path / "sources.jsonl"
    answer.write_text(text)
    sources.write_text(json.dumps({"id": "d1", "text": "Bees use the sun."}) + "\n")
    result = cli_in_process("check-answer", "--answer", answer, "--sources", sources)
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"error: {answer}: no sentences: the answer is empty\n" and result.stdout == ""


@pytest.mark.parametrize("content", ["", "\n \n"], ids=["empty", "blank lines"])
def test_check_answer_with_an_empty_sources_file_is_refused(tmp_path, content):
    answer, sources = tmp_path / "answer.txt", tmp_path / "sources.jsonl"
    answer.write_text("Bees use the sun.")
    sources.write_text(content)
    result = cli_in_process("check-answer", "--answer", answer, "--sources", sources)
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"error: {sources}: --sources: no sources (the file is empty or holds only blank lines)\n"


def test_check_answer_api_refuses_an_empty_answer_and_no_sources():
    from judges.api.answer import InputProblem, check_answer

    with pytest.raises(InputProblem, match=r"answer\[0\]: no sentences: the answer is empty"):
        check_answer("  ", ["Bees use the sun."])
    with pytest.raises(InputProblem, match=r"sources\[0\]: no sources"):
        check_answer("Bees use the sun.", [])


# -- plan-assessments -----------------------------------------------------------------------------


def test_plan_assessments_refuses_a_run_file_changed_since_judging_as_attest_export_does(tmp_path):
    result, run_path, _, out = judge(tmp_path)
    assert result.returncode == 0, result.stderr
    plan = ["plan-assessments", out, "--name", "t", "--count", "1"]
    run_path.write_text(json.dumps(report([{"text": "Other words.", "citations": ["q"]}])) + "\n")
    result = cli_in_process(*plan)
    assert result.returncode == 2, result.stderr
    config = out / "t.config.yml"
    assert result.stderr == f"error: {run_path}: changed since {config} was written (sha256 differs): judge again\n"
    assert not list(out.glob("t.assess-*"))
    run_path.write_text(json.dumps(report()) + "\n")  # as judged: planned
    result = cli_in_process(*plan)
    assert result.returncode == 0, result.stderr
