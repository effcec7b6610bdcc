"""TREC AutoJudge interoperability: judges.api.autojudge.CitationJudge under autojudge-base, the
``auto-judge run --workflow workflows/autojudge.yml`` CLI, and citejudge's own leaderboards and
qrels passing autojudge-base's verification and TIRA's leaderboard layout.

autojudge-base is an optional extra (``pip install -e '.[autojudge]'``): without it these tests
skip. Importing it loads NLTK's English stopword list and looks for NLTK's ``punkt`` (downloading
it when absent, which must not happen here: CI has no network but package registries). When that
NLTK data is not installed, the fixture below points NLTK at a stand-in holding only what is
missing: an empty stopword list and an empty ``punkt`` directory. autojudge-base uses them only to
normalise text for near-duplicate detection, which citejudge never calls.
"""

import importlib.util
import os
import sys
from pathlib import Path

import pytest
from helpers import kiddie_options, ROOT, judge_cli, run_cli, shared

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("autojudge_base") is None,
    reason="autojudge-base is not installed (optional extra: pip install -e '.[autojudge]')",
)

KIDDIE_TOPICS = ["bee", "cloud", "earthworms", "hibernation", "leaf"]


@pytest.fixture(scope="module")
def nltk_env(tmp_path_factory):
    """Environment variables for subprocesses; also makes this process find the NLTK data."""
    import nltk

    stub = tmp_path_factory.mktemp("nltk_data")
    for resource, make in (
        (
            "corpora/stopwords",
            lambda: (
                (stub / "corpora" / "stopwords").mkdir(parents=True)
                or (stub / "corpora" / "stopwords" / "english").write_text("")
            ),
        ),
        ("tokenizers/punkt", lambda: (stub / "tokenizers" / "punkt").mkdir(parents=True)),
    ):
        try:
            nltk.data.find(resource)
        except LookupError:
            make()
    nltk.data.path.append(str(stub))
    paths = [p for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p] + [str(stub)]
    return {
        "NLTK_DATA": os.pathsep.join(paths),
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }


@pytest.fixture(scope="module")
def ajb(nltk_env):
    import autojudge_base

    return autojudge_base


@pytest.fixture(scope="module")
def kiddie_cli(tmp_path_factory):
    """citejudge's CLI outputs for kiddie, every leaderboard format."""
    out = tmp_path_factory.mktemp("kiddie")
    judge_cli(*kiddie_options(), "--leaderboard-format", "tot", "--leaderboard-format", "jsonl", out=out, name="k")
    return out


def load_kiddie(ajb):
    from autojudge_base.report import load_report
    from autojudge_base.request import load_requests_from_file

    kiddie = shared("kiddie")
    reports = [r for f in sorted((kiddie / "runs" / "repgen").iterdir()) for r in load_report(f)]
    return reports, load_requests_from_file(kiddie / "topics" / "kiddie-topics.jsonl")


@pytest.mark.shared
@pytest.mark.parametrize(
    "fmt, name",
    [("ir_measures", "k.leaderboard.txt"), ("tot", "k.leaderboard.tot.txt"), ("jsonl", "k.leaderboard.jsonl")],
)
def test_cli_leaderboards_pass_autojudge_verification_and_tira_layout(ajb, kiddie_cli, fmt, name):
    from judges.core.measures import MEASURE_NAMES
    from judges.formats.leaderboards import missing_all_rows, read_any_leaderboard

    path = kiddie_cli / name
    lb = ajb.Leaderboard.load(path, fmt)
    ajb.LeaderboardVerification(lb, on_missing="default", expected_topic_ids=KIDDIE_TOPICS).all()
    lb.verify(on_missing="default", expected_topic_ids=KIDDIE_TOPICS)
    # TIRA: one 4-column file, an `all` row for every run x measure
    if fmt != "jsonl":
        assert {len(line.split("\t")) for line in path.read_text().splitlines()} == {4}
    df = read_any_leaderboard(path)
    assert missing_all_rows(df) == [] and df.run_id.nunique() == 4 and set(df.measure) == set(MEASURE_NAMES)
    # autojudge-base's reader and ours see the same rows
    theirs = sorted((e.run_id, e.topic_id, m, float(v)) for e in lb.entries for m, v in e.values.items())
    assert theirs == sorted(df.itertuples(index=False, name=None))


@pytest.mark.shared
@pytest.mark.parametrize("name", ["k.qrels", "k.doc.qrels"])
def test_cli_qrels_pass_autojudge_verification(ajb, kiddie_cli, name):
    from autojudge_base.qrels.qrels import read_qrel_file

    qrels = read_qrel_file(kiddie_cli / name)
    ajb.QrelsVerification(qrels, expected_topic_ids=KIDDIE_TOPICS).all()
    assert {r.grade for r in qrels.rows} <= {0, 1, 2}


def assert_same_rows(got: dict, cli: dict) -> None:
    """The adapter's leaderboard is the CLI's: its per-topic rows exactly (the reports keep their
    citations' order: a temporary run file once sorted a ``{doc_id: confidence}`` mapping's keys,
    and RAGTIME's WEIGHTED_PRECISION of rt-101 moved by one ulp); the ``all`` rows, which
    autojudge-base's ``LeaderboardBuilder`` averages in its own order, to 1e-12."""
    assert set(got) == set(cli)
    assert {k: v for k, v in got.items() if k[1] != "all"} == {k: v for k, v in cli.items() if k[1] != "all"}
    assert max(abs(got[k] - cli[k]) for k in got if k[1] == "all") < 1e-12


@pytest.fixture
def temp_dirs_made(tmp_path, monkeypatch):
    """Every temporary directory made (``tempfile.mkdtemp``, which ``TemporaryDirectory`` calls), in
    a ``TMPDIR`` of its own that must stay empty."""
    import tempfile

    made, real = [], tempfile.mkdtemp
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "mkdtemp", lambda *a, **k: made.append(a or k) or real(*a, **k))
    return made, tmp_path / "tmp"


@pytest.mark.shared
def test_citation_judge_protocol_matches_the_cli(ajb, kiddie_cli, tmp_path, monkeypatch, temp_dirs_made):
    import judges
    from judges.api.autojudge import CitationJudge
    from judges.core.config import Workflow
    from judges.session import pipeline
    from judges.session.writer import output_targets

    reports, topics = load_kiddie(ajb)
    calls = []
    real_run = pipeline.carry_out
    monkeypatch.setattr(pipeline, "carry_out", lambda *args, **kw: calls.append(args) or real_run(*args, **kw))
    j = CitationJudge()
    settings = {"outdir": tmp_path / "kept", "filebase": "default", "backend": "python"}
    assert j.create_nuggets(reports, topics, None, **settings) is None
    qrels = j.create_qrels(reports, topics, None, **settings)
    qrels.verify(expected_topic_ids=KIDDIE_TOPICS)
    lb = j.judge(reports, topics, None, **{**settings, "filebase": str(tmp_path / "default")})
    ajb.LeaderboardVerification(lb, on_missing="default", expected_topic_ids=KIDDIE_TOPICS).all()
    ajb.QrelsVerification(qrels, expected_topic_ids=KIDDIE_TOPICS).all()
    assert len(calls) == 1  # the second phase reused the first's engine run
    kept = {p.name for p in (tmp_path / "kept").iterdir()}  # keep_outputs (default): the whole set
    whole = output_targets(pipeline.Outputs(tmp_path / "kept", "default.citejudge"), Workflow())
    assert kept == {path.name for path, _ in whole.values()} and "default.citejudge.jsonl" in kept

    # the same result without keeping the outputs: nothing written, in the out-dir or anywhere
    unkept = CitationJudge()
    settings = {**settings, "outdir": tmp_path / "unkept", "keep_outputs": False}
    assert unkept.create_qrels(reports, topics, None, **settings).rows == qrels.rows
    assert unkept.judge(reports, topics, None, **settings).entries == lb.entries
    assert not (tmp_path / "unkept").exists()
    made, tmp = temp_dirs_made
    assert made == [] and list(tmp.iterdir()) == []  # the inputs are handed over in memory

    # same numbers as the CLI (its Parquet leaderboard keeps full precision)
    cli = judges.read_leaderboard(kiddie_cli, "k").set_index(["run_id", "topic_id", "measure"]).value
    got = {(e.run_id, e.topic_id, m): v for e in lb.entries for m, v in e.values.items()}
    assert_same_rows(got, cli.to_dict())
    cli_qrels = sorted(line.split() for line in (kiddie_cli / "k.qrels").read_text().splitlines())
    assert sorted([r.topic_id, "0", r.doc_id, str(r.grade)] for r in qrels.rows) == cli_qrels


# The bundled samples, one run per track shape that autojudge-base's Report model loads (the
# other sample runs mix int and string citations or lack fields, on purpose, and it rejects them).
TRACKS = [
    ("rag25", "teamR-run-a.jsonl"),  # answer + references, int citations, text from --corpus
    ("ragtime", "teamT-run1.jsonl"),  # responses with {doc_id: confidence}
    ("dragun", "teamD-base.jsonl"),  # responses with doc-id lists, embedded documents
]


def requests(ajb, path):
    """autojudge-base Requests for a bundled topics file (any of the shapes citejudge reads)."""
    from judges.formats.topics import read_topics

    out = []
    for _, t in read_topics(path):
        out.append(ajb.Request.model_validate({"request_id": t.topic_id, "title": t.title or t.topic_id}))
    return out


@pytest.mark.parametrize("track, run", TRACKS)
def test_citation_judge_matches_the_cli_on_every_track_shape(ajb, tmp_path, track, run):
    import shutil

    import judges
    from autojudge_base.report import load_report
    from judges.api.autojudge import CitationJudge

    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(ROOT / "runs" / track / run, runs)
    corpus = ROOT / "datasets" / "rag25" / "corpus.jsonl"
    topics_file = ROOT / "datasets" / track / "topics.jsonl"
    r = run_cli(
        "--judge",
        "citation",
        "--rag-topics",
        topics_file,
        "--rag-responses",
        runs,
        "--corpus",
        corpus,
        "--out-dir",
        tmp_path / "cli",
        "--name",
        "c",
        "--backend",
        "python",
    )
    assert r.returncode == 0, r.stderr

    reports = load_report(runs / run)
    topics = requests(ajb, topics_file)
    settings = {"outdir": tmp_path / "aj", "filebase": "x", "backend": "python", "corpus": str(corpus)}
    j = CitationJudge()
    qrels = j.create_qrels(reports, topics, None, **settings)
    lb = j.judge(reports, topics, None, **settings)
    ids = [t.request_id for t in topics]
    ajb.QrelsVerification(qrels, expected_topic_ids=ids).all()
    ajb.LeaderboardVerification(lb, on_missing="default", expected_topic_ids=ids).all()

    cli_qrels = sorted(line.split() for line in (tmp_path / "cli" / "c.qrels").read_text().splitlines())
    assert cli_qrels and sorted([q.topic_id, "0", q.doc_id, str(q.grade)] for q in qrels.rows) == cli_qrels
    cli = judges.read_leaderboard(tmp_path / "cli", "c").set_index(["run_id", "topic_id", "measure"]).value
    got = {(e.run_id, e.topic_id, m): v for e in lb.entries for m, v in e.values.items()}
    assert_same_rows(got, cli.to_dict())


def test_unknown_setting_is_named(ajb):
    from judges.api.autojudge import CitationJudge

    with pytest.raises(ValueError, match=r"unknown setting\(s\) \['treshold'\]"):
        CitationJudge().judge([], [], None, treshold=0.3)
    with pytest.raises(ValueError, match="setting backend: 'gpu' is not numba or python"):
        CitationJudge().judge([], [], None, backend="gpu")


@pytest.mark.shared
@pytest.mark.slow
def test_auto_judge_run_with_the_workflow(ajb, nltk_env, tmp_path):
    import subprocess

    kiddie = shared("kiddie")
    cmd = [
        sys.executable,
        "-c",
        "from autojudge_base.cli import main; main()",
        "run",
        "--workflow",
        str(ROOT / "workflows" / "autojudge.yml"),
        "--rag-responses",
        str(kiddie / "runs" / "repgen"),
        "--rag-topics",
        str(kiddie / "topics" / "kiddie-topics.jsonl"),
        "--out-dir",
        str(tmp_path),
        "--set",
        "backend=python",
    ]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env={**os.environ, **nltk_env}, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    for name in (
        "default.eval.txt",
        "default.qrels.txt",
        "default.eval.measures.yml",
        "default.citejudge.assessments.parquet",
    ):
        assert (tmp_path / name).exists(), name
    lb = ajb.Leaderboard.load(tmp_path / "default.eval.txt", "ir_measures")
    ajb.LeaderboardVerification(lb, on_missing="default", expected_topic_ids=KIDDIE_TOPICS).all()
    # and it meta-evaluates against the kiddie truth
    truth = kiddie / "eval" / "kiddie_fake.eval.ir_measures.txt"
    out = tmp_path / "meta.jsonl"
    r = run_cli(
        "meta-evaluate",
        "--truth",
        truth,
        tmp_path / "default.eval.txt",
        "--eval-measure",
        "SENTENCE_SUPPORT",
        "--bootstrap",
        "0",
        "--output",
        out,
    )
    assert r.returncode == 0, r.stderr
    assert len(out.read_text().splitlines()) == 7  # the default correlations of one measure pair
    # the agreement command reads the judge's own assessments kept beside the AutoJudge outputs
    assert Path(tmp_path / "default.citejudge.leaderboard.txt").exists()


@pytest.mark.shared
@pytest.mark.slow
def test_auto_judge_run_makes_a_bank_from_the_answers_and_judges_with_it(ajb, nltk_env, tmp_path):
    """The nugget judge's workflow: autojudge-base calls create_nuggets (a bank made from the answers,
    no LLM), saves it, hands it to judge, which judges every answer by the nuggets other runs state;
    the leaderboard passes autojudge-base's verification and the scores name the bank (SHA-256, source)."""
    import subprocess

    import yaml

    from judges.formats.nuggets import read_nuggets, source_of

    kiddie = shared("kiddie")
    cmd = [sys.executable, "-c", "from autojudge_base.cli import main; main()", "run"]
    cmd += ["--workflow", str(ROOT / "workflows" / "autojudge-nuggets.yml")]
    cmd += [
        "--rag-responses",
        str(kiddie / "runs" / "repgen"),
        "--rag-topics",
        str(kiddie / "topics" / "kiddie-topics.jsonl"),
    ]
    cmd += ["--out-dir", str(tmp_path), "--set", "backend=python", "--set", "min_runs=1", "--set", "group=0.3"]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env={**os.environ, **nltk_env}, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    banks = ajb.NuggetBanks.model_validate_json  # the saved bank is autojudge-base's own container
    saved = tmp_path / "default.nuggets.jsonl"
    assert saved.exists() and sorted(read_nuggets(saved).banks) == KIDDIE_TOPICS
    judged_by = tmp_path / "default.citejudge.nugget-bank.json"
    assert banks(judged_by.read_text()).banks.keys() == set(KIDDIE_TOPICS)
    assert source_of(read_nuggets(judged_by)) == "answers"
    config = yaml.safe_load((tmp_path / "default.citejudge.config.yml").read_text())
    assert config["nugget_bank"]["source"] == "answers" and config["judge"] == "nugget"
    lb = ajb.Leaderboard.load(tmp_path / "default.eval.txt", "ir_measures")
    ajb.LeaderboardVerification(lb, on_missing="default", expected_topic_ids=KIDDIE_TOPICS).all()
    means = {}
    for line in (tmp_path / "default.eval.txt").read_text().splitlines():
        run, topic, measure, value = line.split()
        if topic == "all" and measure == "NUGGET_ALL":
            means[run] = float(value)
    assert sorted(means) == ["run1", "run2", "run3", "run4"]
    assert means["run1"] > means["run3"] and means["run2"] > means["run3"]  # the fake truth's order, roughly


@pytest.mark.shared
def test_nugget_judge_asks_into_autojudges_cache_and_replays_from_it_alone(ajb, tmp_path):
    """The nugget judge's LLM questions (its judge workflow's attest) go to autojudge-base's LLM
    configuration and into its cache_dir; replay_only answers from that cache alone, the same
    leaderboard with no server, and a question the cache lacks stops it in one line naming it."""
    from helpers import needs_dspy
    from llm_servers import ScriptedServer, by_hash

    from judges.api.autojudge_nuggets import NuggetJudge

    needs_dspy()
    from autojudge_base.llm_config import LlmConfigBase

    reports, topics = load_kiddie(ajb)
    workflow = tmp_path / "wf.yml"
    workflow.write_text("attest:\n  mode: all\n")
    settings = {"backend": "python", "min_runs": 1, "group": 0.3, "judge_workflow": str(workflow)}
    banks = NuggetJudge().create_nuggets(reports, topics, None, **settings, outdir=tmp_path / "made")
    cache = tmp_path / "autojudge-cache"
    with ScriptedServer(by_hash) as server:
        config = LlmConfigBase(model="scripted", base_url=server.base_url, cache_dir=cache)
        first = NuggetJudge().judge(reports, topics, config, banks, **settings, outdir=tmp_path / "one", filebase="d")
        asked = len(server.seen)
    assert asked > 0 and cache.is_dir() and any(cache.iterdir())  # answers kept where AutoJudge said
    offline = LlmConfigBase(model="scripted", base_url="http://127.0.0.1:9/v1", cache_dir=cache)
    again = NuggetJudge().judge(
        reports, topics, offline, banks, **settings, replay_only=True, outdir=tmp_path / "two", filebase="d"
    )
    assert again.entries == first.entries
    first_claim = next(iter(banks.banks["bee"].claim_bank.values()))
    first_claim.claim = "Bees dance to tell each other where the flowers are."  # a question never asked
    with pytest.raises(ValueError) as e:
        NuggetJudge().judge(
            reports, topics, offline, banks, **settings, replay_only=True, outdir=tmp_path / "three", filebase="d"
        )
    line = str(e.value)
    assert "\n" not in line and line.startswith(f"{cache}: replay_only: no cached answer to the question ")
    assert "Bees dance to tell each other where the flowers are." in line
