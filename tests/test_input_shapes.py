"""Input files exactly as the tracks distribute them (issue 13): TREC TSV topics, NeuCLIR and
RAGTIME request files, NeuCLIR report runs (JSONL and JSON array), JSON-array runs of every shape,
run files without or with an upper-case extension."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judges.core.errors import InputError
from judges.formats.jsondoc import iter_array, iter_values
from judges.formats.topics import read_topics

FIXTURES = Path(__file__).parent / "fixtures" / "shapes"


def topics_of(path):
    got = list(read_topics(path))
    errors = [e for _, e in got if isinstance(e, InputError)]
    assert not errors, [e.render() for e in errors]
    return [(t.topic_id, t.title) for _, t in got]


# -- topics ------------------------------------------------------------------------------------


def test_trec_tsv_topics(tmp_path):
    path = tmp_path / "topics.rag24.test.txt"
    path.write_text(
        "2024-153051\twhat target stors's policies for shoplifting\n\n2024-19025\tdid people trust the phone\r\n"
    )
    assert topics_of(path) == [
        ("2024-153051", "what target stors's policies for shoplifting"),
        ("2024-19025", "did people trust the phone"),
    ]


def test_tsv_line_of_three_columns_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "topics.tsv"
    path.write_text("1\tfirst\n2\tx\ty\n")
    got = list(read_topics(path))
    assert got[0][1].topic_id == "1"
    assert got[1][1].render() == f"{path}:2: expected topic_id<TAB>query (2 columns), got 3 columns"


def test_tsv_line_without_tab_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "topics.tsv"
    path.write_text("1\tfirst\nsecond without tab\n\t empty id\n")
    got = list(read_topics(path))
    assert got[0][1].topic_id == "1"
    assert got[1][1].render() == f"{path}:2: expected topic_id<TAB>query (no tab in this line)"
    assert got[2][1].render() == f"{path}:3: topic_id: is empty"


@pytest.mark.parametrize("content", ["just some words\nand more\n", "<top>\n<num> Number: 301\n</top>\n"])
def test_unreadable_topics_file_lists_the_accepted_shapes(tmp_path, content):
    path = tmp_path / "topics.txt"
    path.write_text(content)
    with pytest.raises(InputError) as e:
        list(read_topics(path))
    message = e.value.render()
    assert message.startswith(f"{path}:1: not a topics file")
    assert "JSON Lines" in message and "JSON array" in message and "topic_id<TAB>query" in message


def test_binary_topics_file_lists_the_accepted_shapes(tmp_path):
    path = tmp_path / "topics.jsonl"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(InputError, match="not UTF-8 .*not a topics file; accepted topic files"):
        list(read_topics(path))


def test_neuclir_and_ragtime_requests(tmp_path):
    path = FIXTURES / "neuclir-requests.jsonl"
    got = [t for _, t in read_topics(path)]
    assert [t.topic_id for t in got] == ["300", "301", "2000"]
    assert got[0].title.startswith("Report on") and "background" in got[0].text.lower() or got[0].text
    assert got[2].title == "Anti-vaping Legislation"  # RAGTIME 2026: topic_id and title


def test_json_array_and_glued_and_pretty_printed_topics(tmp_path):
    records = [{"request_id": "a", "title": "A"}, {"topic_id": 7, "title": "B"}]
    array = tmp_path / "topics.json"
    array.write_text(json.dumps(records, indent=2))
    assert topics_of(array) == [("a", "A"), ("7", "B")]
    glued = tmp_path / "glued.jsonl"
    glued.write_text("".join(json.dumps(r) for r in records))  # RAGTIME's topics_small.jsonl: '}{' on one line
    assert topics_of(glued) == [("a", "A"), ("7", "B")]
    pretty = tmp_path / "pretty.jsonl"
    pretty.write_text("\n".join(json.dumps(r, indent=1) for r in records))
    got = list(read_topics(pretty))
    assert [line for line, _ in got] == [1, 5]


def test_bad_element_of_a_topic_array_names_its_index(tmp_path):
    path = tmp_path / "topics.json"
    path.write_text('[\n{"title": "no id"},\n{"id": "ok", "title": "x"}\n]')
    got = list(read_topics(path))
    assert (
        got[0][1].render()
        == f"{path}:2: [0].request_id: missing (also looked for topic_id, id, qid, query_id, narrative_id)"
    )
    assert got[1][1].topic_id == "ok"


def test_a_bad_jsonl_line_is_still_its_own_error(tmp_path):
    path = tmp_path / "topics.jsonl"
    path.write_text('{"id": "1", "title": "x"}\n{not json\n{"id": "2", "title": "y"}\n')
    got = list(read_topics(path))
    assert got[0][1].topic_id == "1" and got[2][1].topic_id == "2"
    assert got[1][1].render().startswith(f"{path}:2: invalid JSON")


# -- the JSON readers, property-tested ------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)
records = st.lists(st.dictionaries(st.text(max_size=4), json_values, max_size=3), max_size=6)


@settings(max_examples=150, deadline=None)
@given(records, st.sampled_from(["", "\n", "\n\n", " ", "\r\n"]), st.integers(0, 2))
def test_iter_values_reads_any_layout(values, sep, indent):
    text = sep.join(json.dumps(v, indent=indent or None, ensure_ascii=False) for v in values)
    got = list(iter_values(text, "x"))
    assert [v for _, v in got] == values
    for line, _ in got:  # each value starts on the line it is reported at
        assert "{" in text.split("\n")[line - 1]


@settings(max_examples=150, deadline=None)
@given(records, st.integers(0, 2))
def test_iter_array_reads_any_array(values, indent):
    text = json.dumps(values, indent=indent or None, ensure_ascii=False)
    got = list(iter_array(text, "x"))
    assert [v for _, _, v in got] == values and [i for _, i, _ in got] == list(range(len(values)))


@pytest.mark.parametrize("text", ["[{}, {}", "[{} {}]", "[{}] x", '[{"a": }]'])
def test_iter_array_errors_are_input_errors(text):
    with pytest.raises(InputError, match="invalid JSON"):
        list(iter_array(text, "x"))


# -- runs ----------------------------------------------------------------------------------------

from conftest import cli_in_process, judge_cli, run_cli  # noqa: E402

import judges  # noqa: E402
from judges.formats.jsonl import discover  # noqa: E402
from judges.formats.runs import parse_report, read_reports  # noqa: E402


def test_neuclir_report_as_filed():
    obj = {
        "request_id": 300,
        "run_id": "r",
        "collection_ids": ["neuclir/1/zho"],
        "sentences": [{"text": "A.", "citations": ["u1", "u2"]}, {"text": "B.", "citations": []}],
    }
    rep = parse_report(obj, "run.json", 1)
    assert (rep.run_id, rep.topic_id, rep.shape) == ("r", "300", "sentences")
    assert [[c.doc_id for c in s.citations] for s in rep.sentences] == [["u1", "u2"], []]
    assert parse_report({**obj, "request_id": "300"}, "run.json", 1).topic_id == "300"
    with pytest.raises(InputError, match="--dataset rag expects 'answer'"):
        parse_report(obj, "run.json", 1, dataset="rag")
    assert parse_report(obj, "run.json", 1, dataset="neuclir").shape == "sentences"
    with pytest.raises(InputError, match="a report has both 'responses' and 'sentences'"):
        parse_report({**obj, "responses": []}, "run.json", 1)


def test_json_array_run_files_name_records_by_line_and_index(tmp_path):
    good = {"request_id": "1", "run_id": "r", "sentences": [{"text": "A.", "citations": ["d"]}]}
    path = tmp_path / "run.json"
    path.write_text(json.dumps([good, {"run_id": "r", "sentences": []}, {**good, "request_id": "2"}]))
    got = list(read_reports(path))
    assert [line for line, _ in got] == [1, 1, 1]
    assert got[0][1].offset == -1 and got[2][1].offset == -3  # re-read by index, not by byte offset
    assert got[1][1].render() == f"{path}:1: [1].topic_id: missing (also looked for narrative_id, request_id)"
    assert [rep.topic_id for _, rep in read_reports(path, items={2})] == ["2"]
    broken = tmp_path / "broken.json"
    broken.write_text("[\n" + json.dumps(good) + ",\n{oops\n]")
    got = list(read_reports(broken))
    assert got[0][1].topic_id == "1" and got[1][1].render().startswith(f"{broken}:3: invalid JSON")


def test_run_directories_read_extension_less_and_upper_case_files_and_list_the_rest(tmp_path):
    skipped = []
    files = discover([FIXTURES / "mixed-runs"], "--rag-responses", skipped)
    assert sorted(p.name for p in files) == ["RUN4.JSONL", "rag-array.json", "ragtime-array.JSON", "run2"]
    assert sorted(p.name for p in skipped) == ["README.md", "notes.txt"]


def test_mixed_run_directory_through_the_cli(tmp_path):
    result = run_cli(
        "--rag-topics",
        FIXTURES / "mixed-topics.tsv",
        "--rag-responses",
        FIXTURES / "mixed-runs",
        "--out-dir",
        tmp_path,
        "--name",
        "m",
        "--backend",
        "python",
    )
    assert result.returncode == 0, result.stderr
    assert "warning: 2 file(s) in the run directories not read" in result.stderr
    assert "mixed-runs/README.md" in result.stderr and "mixed-runs/notes.txt" in result.stderr
    df = judges.read_assessments(tmp_path, "m")
    assert sorted(df.run_id.unique()) == ["noext", "rag-array", "ragtime-array", "upper"]
    assert len(df) == 7
    out_of_range = df[df.status == "missing"]
    assert out_of_range.reason.tolist() == ["index 3 out of range (1 references)"]


def test_neuclir_runs_jsonl_and_json_array_with_a_requests_file(tmp_path):
    result = run_cli(
        "--rag-topics",
        FIXTURES / "neuclir-requests.jsonl",
        "--rag-responses",
        FIXTURES / "neuclir-runs",
        "--corpus",
        FIXTURES / "neuclir-corpus.translated.jsonl",
        "--out-dir",
        tmp_path,
        "--name",
        "n",
        "--backend",
        "python",
    )
    assert result.returncode == 0, result.stderr
    df = judges.read_assessments(tmp_path, "n")
    assert len(df) == 14  # every citation of both runs is counted
    by_run = {run: g.drop(columns=["run_id"]).reset_index(drop=True) for run, g in df.groupby("run_id")}
    assert sorted(by_run) == ["hltcoe-array", "hltcoe-plaid"]
    cols = ["topic_id", "sentence_index", "citation_rank", "doc_id", "status", "reason"]
    assert by_run["hltcoe-array"][cols].equals(by_run["hltcoe-plaid"][cols])  # the array and the JSONL run agree
    assert (df[df.doc_id == "zz-not-in-corpus"].status == "missing").all()


# -- missing text is loud; coverage; cross-language ------------------------------------------------

from types import SimpleNamespace  # noqa: E402

import numpy as np  # noqa: E402

import yaml  # noqa: E402

from judges.attest.cascade import Attester  # noqa: E402
from judges.engine.judge import cross_language  # noqa: E402
from judges.text.script import NAMES, NONE, scripts_of  # noqa: E402

NEUCLIR = ("--rag-topics", FIXTURES / "neuclir-requests.jsonl", "--rag-responses", FIXTURES / "neuclir-runs")


def test_no_document_text_anywhere_stops_and_says_to_pass_corpus(tmp_path):
    result = cli_in_process(*NEUCLIR, "--out-dir", tmp_path, "--name", "n", "--backend", "python")
    assert result.returncode == 2
    assert result.stderr.strip().startswith(
        "error: --corpus: none of the 14 citations can be resolved to a document text"
    )
    assert "pass --corpus" in result.stderr and "--allow-missing-text" in result.stderr
    assert not (tmp_path / "n.leaderboard.txt").exists()


def test_wrong_corpus_stops_too_and_allow_missing_text_judges_anyway(tmp_path):
    wrong = tmp_path / "other.jsonl"
    wrong.write_text('{"id": "x", "text": "Unrelated."}\n')
    result = cli_in_process(*NEUCLIR, "--corpus", wrong, "--out-dir", tmp_path, "--name", "n", "--backend", "python")
    assert (
        result.returncode == 2
        and "none of the 6 cited document ids ('en-0001', 'fa-0001', 'ru-0001', ...)" in result.stderr
    )
    result = run_cli(*NEUCLIR, "--out-dir", tmp_path, "--name", "n", "--backend", "python", "--allow-missing-text")
    assert result.returncode == 0, result.stderr
    assert "warning" in result.stdout and "14 of 14 citations (100.0%) have no document text" in result.stdout
    assert "hltcoe-plaid: 7 not in the run (no --corpus)" in " ".join(result.stdout.split())
    cov = (tmp_path / "n.coverage.tsv").read_text().splitlines()
    assert cov[1].split("\t")[:8] == ["hltcoe-array", "2", "3", "1", "5", "4", "7", "7"]


def test_cross_language_citations_are_recorded_not_aligned_and_counted(tmp_path):
    result = run_cli(
        *NEUCLIR,
        "--corpus",
        FIXTURES / "neuclir-corpus.jsonl",
        "--out-dir",
        tmp_path,
        "--name",
        "n",
        "--backend",
        "python",
    )
    assert result.returncode == 0, result.stderr
    df = judges.read_assessments(tmp_path, "n")
    assert len(df) == 14
    zh = df[df.doc_id == "zh-0001"]
    assert set(zh.status) == {"cross_language"} and (zh.score == 0).all()
    assert zh.reason.str.contains("sentence in Latin script, document 'zh-0001' in CJK: not aligned").all()
    assert df.groupby("status").size().to_dict() == {"cross_language": 10, "missing": 2, "supported": 2}
    summary = " ".join(result.stdout.split())
    assert "cross_language 10 (71.4%)" in summary
    assert (
        "filled (on_missing) 2 (run, topic) pair(s) without a report, scored 0: hltcoe-array/2000, hltcoe-plaid/2000"
        in summary
    )
    config = yaml.safe_load((tmp_path / "n.config.yml").read_text())
    assert config["filled_by_on_missing"] == {
        "policy": "default",
        "pairs": {"hltcoe-array": ["2000"], "hltcoe-plaid": ["2000"]},
    }
    assert config["statuses"]["cross_language"] == 10
    rows = [line.split("\t") for line in (tmp_path / "n.coverage.tsv").read_text().splitlines()]
    assert rows[0][-1] == "cross_language" and [r[-1] for r in rows[1:]] == ["5", "5"]
    lb = judges.read_leaderboard(tmp_path, "n")
    acc = lb[(lb.run_id == "hltcoe-plaid") & (lb.topic_id == "300") & (lb.measure == "CITATION_ACCURACY")]
    assert acc.value.tolist() == [1.0]  # the cited documents exist: only their language differs


def test_a_translated_corpus_is_aligned(tmp_path):
    result = run_cli(
        *NEUCLIR,
        "--corpus",
        FIXTURES / "neuclir-corpus.translated.jsonl",
        "--out-dir",
        tmp_path,
        "--name",
        "n",
        "--backend",
        "python",
    )
    assert result.returncode == 0, result.stderr
    df = judges.read_assessments(tmp_path, "n")
    assert "cross_language" not in set(df.status) and (df[df.doc_id == "zh-0001"].score > 0).all()


def test_cross_language_citations_go_to_the_llm_in_every_attest_mode():
    """With a band and with all, always; with the session's plan, as it chose: an unreadable
    citation's spread is the largest there is, so it is planned first among equals."""
    from judges.attest.selection import Band, Planned
    from judges.attest.plan import Quota, make_plan

    j = cross_language("Latin", "CJK", "d", "corpus", 5)
    assert (j.status, j.grade, j.support_status) == ("cross_language", 0, "cross_language")
    key = ("r", "t", 0, 0)

    def attester(mode, selection=None):
        return SimpleNamespace(s=SimpleNamespace(mode=mode), selection=selection)

    assert Attester.selects(attester("all"), key, j)
    assert Attester.selects(attester("uncertain", Band(0.2, 0.8)), key, j)
    assert not Attester.selects(attester("none"), key, j)
    columns = {
        "run_id": ["r", "r"],
        "topic_id": ["t", "t"],
        "sentence_index": [0, 1],
        "citation_rank": [0, 0],
        "status": ["cross_language", "partial"],
        "p_any": [float("nan"), 0.9],
        "p_full": [float("nan"), 0.5],
        "weight": [0.0, 0.7],
    }
    plan = make_plan({k: np.array(v) for k, v in columns.items()}, {"r": 1}, np.zeros(2, bool), Quota(count=1))
    assert Attester.selects(attester("uncertain", Planned(plan)), key, j)
    assert not Attester.selects(attester("uncertain", Planned(plan)), ("r", "t", 1, 0), j)


@pytest.mark.parametrize(
    "text, script",
    [
        ("The Three Gorges Dam is large.", "Latin"),
        ("三峡大坝是世界上最大的水电站。", "CJK"),
        ("تهران طرح جدیدی برای کاهش آلودگی", "Arabic"),
        ("Тегеран ввёл ограничения", "Cyrillic"),
        ("ソニーは東京の会社です", "CJK"),
        ("한국어 문장입니다 그렇죠", "Hangul"),
        ("Ελληνικά κείμενα εδώ", "Greek"),
        ("2020: 35% (n=4)", "none"),
        ("", "none"),
        ("Café crème brûlée, naïve façade", "Latin"),
    ],
)
def test_script_of_a_text(text, script):
    assert NAMES[scripts_of([text])[0]] == script


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=6), st.sampled_from(["Latin", "CJK", "Cyrillic", "Arabic"]))
def test_scripts_of_is_per_text_and_a_dominant_script_wins(texts, name):
    sample = {"Latin": "abcdefgh", "CJK": "水电站是世界上最大", "Cyrillic": "абвгдежз", "Arabic": "تهرانطرحجدیدی"}[name]
    got = scripts_of(texts + [sample * 3 + "1234 ,."])
    assert len(got) == len(texts) + 1 and NAMES[got[-1]] == name
    assert (got[:-1] == scripts_of(texts)).all() if texts else True  # a text's script does not depend on its batch
    assert all(0 <= s < len(NAMES) for s in got) and NONE == 0


# -- real data (../shared/data), skipped when absent ------------------------------------------------

from conftest import shared  # noqa: E402


@pytest.mark.shared
def test_nist_tsv_topics_give_the_same_leaderboard_as_the_jsonl_topics(tmp_path):
    rag24 = shared("rag24-support")
    outs = {}
    for topics in ("topics.rag24.test.txt", "topics.jsonl"):
        out = tmp_path / topics
        result = run_cli(
            "--rag-topics",
            rag24 / topics,
            "--rag-responses",
            rag24 / "runs",
            "--corpus",
            rag24 / "segments.jsonl",
            "--out-dir",
            out,
            "--name",
            "r",
        )
        assert result.returncode == 0, result.stderr
        outs[topics] = out
    for name in ("r.leaderboard.txt", "r.qrels", "r.coverage.tsv", "r.assessments.parquet"):
        assert (outs["topics.rag24.test.txt"] / name).read_bytes() == (outs["topics.jsonl"] / name).read_bytes(), name


def _topics_of_runs(paths, out: Path) -> Path:
    ids = sorted({json.loads(line)["metadata"]["topic_id"] for p in paths for line in open(p) if line.strip()})
    out.write_text("".join(f"{t}\ttopic {t}\n" for t in ids))
    return out


@pytest.mark.shared
@pytest.mark.parametrize(
    "track, topics, counts",
    [
        ("dragun25", 30, dict(reports=90, sentences=668, cited=641, citations=1067)),
        ("ragtime26", 103, dict(reports=309, sentences=8082, cited=8078, citations=8136)),
    ],
)
def test_real_runs_are_read_completely_and_without_a_corpus_the_user_is_told(tmp_path, track, topics, counts):
    runs = sorted(p for p in shared("real-runs", track).glob("*.jsonl") if "topics" not in p.name)
    topic_file = _topics_of_runs(runs, tmp_path / "topics.tsv")
    args = [
        "--rag-topics",
        topic_file,
        *[a for p in runs for a in ("--rag-responses", p)],
        "--out-dir",
        tmp_path,
        "--name",
        "x",
    ]
    result = cli_in_process(*args)
    assert (
        result.returncode == 2 and "error: --corpus: none of the" in result.stderr and "pass --corpus" in result.stderr
    )
    result = run_cli(*args, "--allow-missing-text")
    assert result.returncode == 0, result.stderr
    rows = [line.split("\t") for line in (tmp_path / "x.coverage.tsv").read_text().splitlines()]
    rows = [dict(zip(rows[0], r)) for r in rows[1:]]
    assert len(rows) == 3 and all(r["topics_answered"] == str(topics) for r in rows)
    assert sum(int(r["sentences"]) for r in rows) == counts["sentences"]
    assert sum(int(r["cited_sentences"]) for r in rows) == counts["cited"]
    assert sum(int(r["citations"]) for r in rows) == counts["citations"]
    assert sum(int(r["missing_not_in_run"]) for r in rows) == counts["citations"]  # every one counted, each said why
    assert f"reports judged           {counts['reports']}" in result.stdout
    assert "have no document text" in result.stdout


# -- team folders as filed (issue 32): a topics file beside the runs, runs without topics ------------

TEAM_FOLDERS = Path(__file__).parent / "fixtures" / "team-folders"
PYTHON = ("--backend", "python")


def test_a_topics_file_among_the_runs_is_skipped_with_a_warning(tmp_path):
    folder = TEAM_FOLDERS / "ragtime-team"
    topics = folder / "topics_small.jsonl"
    with_topics = judge_cli(
        *PYTHON, "--rag-responses", folder, "--rag-topics", topics, out=tmp_path / "out", name="t", ok=False
    )
    assert with_topics.returncode == 0, with_topics.stderr
    skipped = (
        f"warning: {topics}: not read as a run file: its records are topics, not reports (give it as --rag-topics)"
    )
    assert skipped in with_topics.stderr.splitlines()
    assert "topics                   2\n" in with_topics.stdout and "reports judged           4\n" in with_topics.stdout
    assert "no --rag-topics" not in with_topics.stderr
    assert "files_not_read: 1" in (tmp_path / "out" / "t.config.yml").read_text()


def test_without_rag_topics_the_topics_are_those_the_runs_answer(tmp_path):
    result = judge_cli(
        *PYTHON, "--rag-responses", TEAM_FOLDERS / "dragun-team", out=tmp_path / "out", name="t", ok=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        "warning: no --rag-topics: judging the 2 topic(s) the run files answer; their titles are unknown "
        "(give --rag-topics to have them)"
    ]
    assert "topics                   2\n" in result.stdout and "reports judged           3\n" in result.stdout
    lb = judges.read_leaderboard(tmp_path / "out", "t")
    assert sorted(lb.topic_id.unique()) == ["all", "msmarco_v2.1_doc_04_420132660", "msmarco_v2.1_doc_13_1"]
    # the RAGTIME folder alone: its topics file skipped, the topics taken from the runs
    alone = judge_cli(
        *PYTHON,
        "--rag-responses",
        TEAM_FOLDERS / "ragtime-team",
        "--max-topics",
        "1",
        out=tmp_path / "ragtime" / "out",
        name="t",
        ok=False,
    )
    assert alone.returncode == 0, alone.stderr
    assert "topics_small.jsonl: not read as a run file" in alone.stderr
    assert "topics                   1\n" in alone.stdout


def test_an_error_in_a_file_read_as_a_run_file_says_so(tmp_path):
    glued = tmp_path / "runs.jsonl"  # two reports glued on one line: not JSON Lines, and no topics either
    report = (TEAM_FOLDERS / "dragun-team" / "starter.jsonl").read_text().strip()
    glued.write_text(report + report + "\n")
    result = cli_in_process(
        *PYTHON,
        "--rag-responses",
        glued,
        "--rag-topics",
        TEAM_FOLDERS / "ragtime-team" / "topics_small.jsonl",
        *("--out-dir", tmp_path / "out", "--name", "t"),
    )
    assert result.returncode == 2
    column = len(report) + 1
    assert result.stderr == f"error: {glued}:1: invalid JSON (Extra data at column {column}); read as a run file\n"


@pytest.mark.shared
@pytest.mark.parametrize(
    "track, topics, reports, topics_file",
    [("dragun25", 30, 90, None), ("ragtime26", 103, 309, "topics_small.jsonl")],
)
def test_real_team_folders_drop_straight_in(tmp_path, track, topics, reports, topics_file):
    """The real folders as filed: RAGTIME's with its topics file beside the runs, DRAGUN's without
    one; no --rag-topics (and no corpus: the text is not shipped)."""
    folder = shared("real-runs", track)
    result = run_cli("--rag-responses", folder, "--out-dir", tmp_path, "--name", "x", "--allow-missing-text")
    assert result.returncode == 0, result.stderr
    warnings = result.stderr.splitlines()
    assert warnings[0] == (
        f"warning: no --rag-topics: judging the {topics} topic(s) the run files answer; their titles are unknown "
        "(give --rag-topics to have them)"
    )
    if topics_file:
        assert f"warning: {folder / topics_file}: not read as a run file: its records are topics" in result.stderr
    assert f"topics                   {topics}\n" in result.stdout
    assert f"reports judged           {reports}\n" in result.stdout
