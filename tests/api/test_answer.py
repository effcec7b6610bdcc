"""One answer at a time (:func:`judges.check_answer`): the batch judge's judgment in memory."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import ROOT, cli_in_process, run_cli

import judges
from judges.formats.corpus import read_corpus
from judges.formats.runs import read_reports

SAMPLES = {
    "rag25": ("datasets/rag25/topics.jsonl", "runs/rag25", "datasets/rag25/corpus.jsonl"),
    "ragtime": ("datasets/ragtime/topics.jsonl", "runs/ragtime", None),
    "dragun": ("datasets/dragun/topics.jsonl", "runs/dragun", None),
}
COMPARED = ("status", "p_full", "p_any", "weight", "char_start", "char_end", "evidence", "explanation")


@pytest.mark.parametrize("track", sorted(SAMPLES))
def test_the_api_and_the_batch_judge_agree_on_every_citation_of_the_samples(track, tmp_path):
    topics, runs, corpus = SAMPLES[track]
    args = ["--rag-topics", ROOT / topics, "--rag-responses", ROOT / runs, "--out-dir", tmp_path, "--name", "b"]
    result = run_cli(*args, *(["--corpus", ROOT / corpus] if corpus else []))
    assert result.returncode == 0, result.stderr
    batch = judges.read_assessments(tmp_path, "b").set_index(["run_id", "topic_id", "sentence_index", "citation_rank"])
    reports = [r for path in sorted((ROOT / runs).glob("*.jsonl")) for _, r in read_reports(path)]
    wanted = {c.doc_id for r in reports for s in r.sentences for c in s.citations if c.doc_id}
    from_corpus = read_corpus(ROOT / corpus, wanted, print) if corpus else {}
    compared = 0
    for rep in reports:
        docs = {d: doc for d, doc in rep.documents.items() if doc is not None}
        for s in rep.sentences:
            for c in s.citations:
                if c.doc_id and c.doc_id not in docs and c.doc_id in from_corpus:
                    docs[c.doc_id] = from_corpus[c.doc_id]
        answer = [{"text": s.text, "citations": [c.doc_id or "?" for c in s.citations]} for s in rep.sentences]
        if not any(a["citations"] for a in answer):
            continue
        checked = judges.check_answer(answer, list(docs.values()))  # Documents: id, text and title
        for s, got in zip(rep.sentences, checked.sentences):
            assert got.text == s.text
            for c, cited in zip(s.citations, got.citations):
                row = batch.loc[(rep.run_id, rep.topic_id, s.index, c.rank)]
                if row.status == "missing":
                    assert cited.status == "missing" and cited.weight == 0
                    continue
                for field in COMPARED:
                    assert getattr(cited, field) == row[field], (rep.run_id, rep.topic_id, s.index, c.rank, field)
                spans = [(x["char_start"], x["char_end"]) for x in row["evidence_spans"]]
                assert [(a, b) for a, b, _ in cited.evidence_spans] == spans
                compared += 1
    assert compared > 10


def test_without_citations_it_finds_the_supporting_sources():
    answer = "Revenue rose 12% to $1.5 million. The CEO resigned in May. Penguins cannot fly."
    sources = [
        {"id": "q3", "text": "Q3 report: revenue rose 12% to $1.5 million, a record for the firm."},
        {"id": "board", "text": "The board met in May. The CEO resigned, effective at once."},
        "A recipe for lemon cake with three eggs.",
    ]
    checked = judges.check_answer(answer, sources)
    first, second, third = checked.sentences
    assert [c.source_id for c in first.citations] == ["q3"] and first.status == "supported"
    assert second.citations[0].source_id == "board" and second.status in ("supported", "partial")
    assert third.status == "uncited" and third in checked.unsupported_sentences
    texts = {"q3": sources[0]["text"], "board": sources[1]["text"], "2": sources[2]}
    for s in checked.sentences:
        assert answer[s.start : s.end] == s.text
        for c in s.citations:
            assert texts[c.source_id][c.char_start : c.char_end] == c.evidence
    assert set(checked.measures) == set(judges.api.answer.SENTENCE_MEASURES)
    assert 0 < checked.groundedness < 1


def test_discovery_points_to_full_support_and_never_to_a_source_lacking_the_number():
    answer = "Revenue rose 12% to $1.5 million in 2023."
    full = "In 2023 revenue rose 12% to $1.5 million, the annual report says."
    touching = "Revenue rose 12% in 2023, the annual report says."  # lacks $1.5 million: at most partial
    other_year = "In 2021 revenue rose 12% to $1.5 million, the annual report says."
    tried = {c.source_id: c for c in judges.check_answer(answer, [full], citations=[[0]]).sentences[0].citations}
    assert tried["0"].status == "supported"
    both = judges.check_answer(answer, [("touching", touching), ("full", full)]).sentences[0]
    assert [c.source_id for c in both.citations] == ["full"]  # the partial source is not shown beside it
    alone = judges.check_answer(answer, [("touching", touching)], citations=[["touching"]]).sentences[0]
    assert alone.citations[0].numbers_missing  # judged with the number missing ...
    assert judges.check_answer(answer, [("touching", touching)]).sentences[0].status == "uncited"  # ... not found
    year = judges.check_answer(answer, [("other", other_year)]).sentences[0]
    assert year.status == "uncited"


def test_discovery_keeps_a_partial_source_only_near_full_support():
    from judges.api.answer import PARTIAL_FLOOR, discovered
    from judges.core.config import Workflow

    answer = (
        "The museum opened in Paris and holds paintings by Monet, Renoir, Degas and Cezanne from the "
        "nineteenth century and sculptures by Rodin."
    )
    touching = ("monet", "The museum holds paintings by Monet.")  # one name of many: partial, far from full
    cited = judges.check_answer([answer], [touching], citations=[["monet"]]).sentences[0].citations
    assert cited[0].status == "partial" and cited[0].p_full < PARTIAL_FLOOR
    assert [c.source_id for c in discovered(cited, 0.0)] == ["monet"]  # the rule before the floor kept it
    alone = judges.check_answer(answer, [touching]).sentences[0]
    assert alone.status == "uncited"
    assert alone.reason.endswith(f"left out: partial with P(full) {cited[0].p_full:.3f} < discovery's floor 0.32")
    resigned = "The CEO resigned in May and the chairman followed in June."
    board = [("board", "The board met in May. The CEO resigned, effective at once.")]
    near = judges.check_answer(resigned, board).sentences[0]  # a partial source near full support: kept
    assert near.status == "partial" and near.citations[0].p_full >= PARTIAL_FLOOR
    by_alignment = Workflow.model_validate({"support": {"judge": "alignment"}})  # no P(full): no floor
    aligned = judges.check_answer(resigned, board, workflow=by_alignment).sentences[0]
    assert aligned.status == "partial" and aligned.citations[0].p_full is None


def test_given_citations_are_judged_as_written_and_bad_calls_say_why():
    checked = judges.check_answer(["The CEO resigned in May."], ["The CEO resigned in May."], citations=[[0]])
    assert [c.status for c in checked.sentences[0].citations] == ["supported"]
    assert checked.measures["WEIGHTED_PRECISION"] > 0.5
    missing = judges.check_answer([{"text": "A claim.", "citations": ["nowhere"]}], ["Some text."])
    assert missing.sentences[0].citations[0].status == "missing"
    with pytest.raises(ValueError, match="2 lists for 1 sentences"):
        judges.check_answer("One sentence.", ["x"], citations=[[0], [0]])
    with pytest.raises(ValueError, match="citation 3 is not an index of the 1 sources"):
        judges.check_answer("One sentence.", ["x"], citations=[[3]])
    with pytest.raises(ValueError, match="sources\\[0\\]"):
        judges.check_answer("One sentence.", [42])
    with pytest.raises(ValueError, match="id 'a' given twice"):
        judges.check_answer("One sentence.", [("a", "x"), ("a", "y")])


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.sampled_from(["Revenue rose 12%.", "It rained.", "Dr. Smith agreed!", "Why?", "  "]), max_size=6
    ).filter(
        lambda parts: any(p.strip() for p in parts)  # an answer without a sentence is refused (test_input_validation)
    )
)
def test_sentence_offsets_are_the_answers_characters(parts):
    answer = " ".join(parts)
    checked = judges.check_answer(answer, ["Revenue rose 12% while it rained."])
    assert [answer[s.start : s.end] for s in checked.sentences] == [s.text for s in checked.sentences]
    assert all(s.start < s.end for s in checked.sentences)
    assert all(a.end <= b.start for a, b in zip(checked.sentences, checked.sentences[1:]))


def test_the_check_answer_command_prints_a_table_or_json(tmp_path):
    import json

    (tmp_path / "q3.txt").write_text("Q3 report: revenue rose 12% to $1.5 million, a record.")
    (tmp_path / "more.jsonl").write_text(json.dumps({"id": "board", "text": "The CEO resigned in May."}) + "\n")
    answer = tmp_path / "answer.txt"
    answer.write_text("Revenue rose 12% to $1.5 million. The CEO resigned in May. Penguins cannot fly.")
    sources = ["--sources", tmp_path / "q3.txt", "--sources", tmp_path / "more.jsonl"]
    result = run_cli("check-answer", "--answer", answer, *sources, "--json")
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout)
    assert [s["citations"][0]["source_id"] if s["citations"] else None for s in got["sentences"]] == [
        "q3.txt",
        "board",
        None,
    ]
    table = run_cli("check-answer", "--answer", answer, *sources)
    assert table.returncode == 0 and "q3.txt supported" in table.stdout and "uncited" in table.stdout
    bad = cli_in_process("check-answer", "--answer", tmp_path / "nowhere.txt", *sources)
    assert bad.returncode == 2 and f"{tmp_path / 'nowhere.txt'}: --answer: no such file" in bad.stderr


# ---------------------------------------------------------------------------------------------
# The check-answer command as an organiser types it (issue 42.7, 43.5, 43.7)
# ---------------------------------------------------------------------------------------------
ANSWER = "Revenue rose 15% to $1.5 million. The CEO resigned in May. Penguins cannot fly."


def _sources(tmp_path):
    """Two source files, as --sources options (one each: these tests hold on the old parser too)."""
    import json

    (tmp_path / "q3.txt").write_text("Q3 report: revenue rose 12% to $1.5 million, a record.")
    (tmp_path / "more.jsonl").write_text(json.dumps({"id": "board", "text": "The CEO resigned in May."}) + "\n")
    return ["--sources", str(tmp_path / "q3.txt"), "--sources", str(tmp_path / "more.jsonl")]


def test_several_source_files_follow_one_sources_option_as_the_readme_writes(tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER)
    q3, more = _sources(tmp_path)[1::2]
    one = cli_in_process("check-answer", "--answer", answer, "--sources", q3, more, "--json")
    assert one.returncode == 0, one.stderr
    repeated = cli_in_process("check-answer", "--answer", answer, "--sources", q3, "--sources", more, "--json")
    assert one.stdout == repeated.stdout
    assert '"source_id": "board"' in one.stdout


def test_a_sentence_discovery_leaves_without_a_source_says_why(tmp_path):
    import json

    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER)
    got = cli_in_process("check-answer", "--answer", answer, *_sources(tmp_path), "--json")
    assert got.returncode == 0, got.stderr
    first, second, third = json.loads(got.stdout)["sentences"]
    assert first["citations"] == []  # q3 states 12%, not 15%: judged, then left out
    assert first["reason"].startswith("closest source 'q3.txt': partial: ")
    assert first["reason"].endswith("left out: it lacks a number the sentence states")
    assert second["citations"] and second["reason"] == ""
    assert third["reason"].startswith("closest source ") and "unsupported: P(full)" in third["reason"]
    table = run_cli("check-answer", "--answer", answer, *_sources(tmp_path), env={"COLUMNS": "400"})
    assert "closest source 'q3.txt': partial" in table.stdout


@pytest.mark.parametrize(
    "name, text, said",
    [
        ("deep.json", "[" * 10_000 + "]" * 10_000, "deep.json:1: JSON nested too deeply"),
        ("deep.txt", "[" * 10_000, "deep.txt:1: JSON nested too deeply"),
        ("object.json", '{"text": "Revenue rose 15%."}', "object.json:1: a JSON answer is a list of sentences"),
        ("object.txt", '{"sentences": ["Revenue rose 15%."]}', "object.txt:1: a JSON answer is a list of sentences"),
        ("cut.json", '["Revenue rose 15%.",\n "The CEO resigned."', "cut.json:2: invalid JSON"),
        ("cut.txt", '[\n"Revenue rose 15%.", "The CEO', "cut.txt:2: invalid JSON"),
        ("prose.json", "Revenue rose 15%.", "prose.json:1: invalid JSON"),
        ("number.json", '["Revenue rose 15%.",\n 5]', "number.json:2: a sentence must be a string or a dict with text"),
        ("index.json", '[\n{"text": "Revenue rose.", "citations": [7]}]', "index.json:2: citation 7 is not an index"),
    ],
    ids=lambda value: value if value.endswith((".json", ".txt")) else "",
)
def test_a_json_answer_it_cannot_read_is_refused_in_one_line(tmp_path, name, text, said):
    answer = tmp_path / name
    answer.write_text(text)
    got = cli_in_process("check-answer", "--answer", answer, *_sources(tmp_path))
    assert got.returncode == 2 and got.stdout == ""
    assert got.stderr.startswith(f"error: {tmp_path}/{said}") and got.stderr.count("\n") == 1


def test_a_json_answer_on_stdin_is_read_with_the_same_guards(tmp_path):
    import subprocess
    import sys

    args = [sys.executable, str(ROOT / "run_judge.py"), "check-answer", "--answer", "-", *_sources(tmp_path)]
    deep = subprocess.run(args, input="[" * 10_000, capture_output=True, text=True, timeout=600)
    assert deep.returncode == 2 and deep.stderr == "error: <stdin>:1: JSON nested too deeply\n"
    good = subprocess.run(args + ["--json"], input='["The CEO resigned in May."]', capture_output=True, text=True)
    assert good.returncode == 0 and '"source_id": "board"' in good.stdout


def test_source_errors_name_the_file_and_line(tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER)
    (tmp_path / "a.jsonl").write_text('{"id": "q3", "text": "x"}\n{"id": "q4", "text": "y"}\n')
    (tmp_path / "b.jsonl").write_text('{"id": "q5", "text": "x"}\n\n{"id": "q3", "text": "y"}\n')
    (tmp_path / "c.jsonl").write_text('{"id": "q6", "text": 5}\n')
    (tmp_path / "d.jsonl").write_text('{"id": "q7", "text": "x"}\n{"id": "q8", "text": "y"\n')
    both = ["--sources", tmp_path / "a.jsonl", "--sources", tmp_path / "b.jsonl"]
    twice = cli_in_process("check-answer", "--answer", answer, *both)
    assert twice.returncode == 2
    assert twice.stderr == f"error: {tmp_path}/b.jsonl:3: id 'q3' given twice (first in {tmp_path}/a.jsonl:1)\n"
    text = cli_in_process(
        "check-answer", "--answer", answer, "--sources", tmp_path / "a.jsonl", "--sources", tmp_path / "c.jsonl"
    )
    assert text.returncode == 2 and text.stderr == f"error: {tmp_path}/c.jsonl:1: its text is not a string\n"
    cut = cli_in_process("check-answer", "--answer", answer, "--sources", tmp_path / "d.jsonl")
    assert cut.returncode == 2 and cut.stderr.startswith(f"error: {tmp_path}/d.jsonl:2: truncated record")


def test_the_command_imports_neither_pandas_nor_scipy_linalg(tmp_path):
    """One call's start-up (issue 42.7: 3 s warm): an answer needs neither (about 1 s of a call)."""
    import subprocess
    import sys

    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER)
    args = ["check-answer", "--answer", str(answer), *_sources(tmp_path)]
    code = (
        "import sys, judges.cli.app\n"
        f"judges.cli.app.app({args!r}, standalone_mode=False)\n"
        "print('imported:', sorted(m for m in ('pandas', 'scipy.linalg') if m in sys.modules))"
    )
    got = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert got.returncode == 0, got.stderr
    assert got.stdout.splitlines()[-1] == "imported: []"
