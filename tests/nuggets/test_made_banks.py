"""Nugget banks made from the answers, no LLM (judges.nuggets.made; ``create-nuggets``, ``--nuggets auto``):
the facts several runs state become nuggets, the same answers give the same bytes, no run is judged
by its own words or by a nugget only it (and too few others) states, the bank goes out in NIST's and
AutoJudge's shapes and comes back (edited: ``post-edited``), every nugget score records the bank's
SHA-256 and source, and shards + merge equal one process with a made bank."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from helpers import cli_in_process, run_cli, shared
from hypothesis import given, settings
from hypothesis import strategies as st

from judges.formats.nuggetbanks import bank_text
from judges.formats.nuggets import read_nuggets, source_of
from judges.nuggets import features as F
from judges.nuggets.made import Params, make_bank, view_for

# per topic: facts, each with the runs that state it (in two wordings, alternately)
FACTS = {
    "t1": [
        (
            (
                "The Eiffel Tower was completed in 1889 for the World Fair in Paris.",
                "Built for the 1889 World Fair, the Eiffel Tower was completed that year in Paris.",
            ),
            ["r1", "r2", "r3", "r4", "r5"],
        ),
        (
            (
                "Gustave Eiffel's engineering company designed and built the iron lattice structure.",
                "The iron lattice structure was designed and built by Gustave Eiffel's engineering company.",
            ),
            ["r1", "r2", "r3", "r4"],
        ),
        (
            (
                "Critics and artists protested the tower's construction as an eyesore.",
                "Artists and critics protested its construction, calling the tower an eyesore.",
            ),
            ["r2", "r3"],
        ),
        (("The tower is repainted every seven years with sixty tonnes of paint.",), ["r5"]),
    ],
    "t2": [
        (
            (
                "Honey bees communicate the location of flowers through a waggle dance.",
                "Through a waggle dance, honey bees communicate where flowers are located.",
            ),
            ["r1", "r2", "r3", "r4", "r5"],
        ),
        (
            (
                "Worker bees produce wax from glands on their abdomen to build combs.",
                "Glands on the abdomen of worker bees produce the wax that builds combs.",
            ),
            ["r1", "r3", "r5"],
        ),
    ],
}
QUERIES = {"t1": "tell me about the eiffel tower", "t2": "how do honey bees live"}
RUNS = ["r1", "r2", "r3", "r4", "r5"]


def answers_of(topic: str) -> list[tuple[str, str]]:
    out = []
    for k, run in enumerate(RUNS):
        said = [w[k % len(w)] for w, runs in FACTS[topic] if run in runs]
        out.append((run, " ".join(said) or "I do not know."))
    return out


def write_runs(where: Path) -> tuple[Path, Path]:
    runs, topics = where / "runs", where / "topics.jsonl"
    runs.mkdir(parents=True)
    topics.write_text("".join(json.dumps({"id": t, "title": q}) + "\n" for t, q in QUERIES.items()))
    for run in RUNS:
        lines = []
        for topic in QUERIES:
            text = dict(answers_of(topic))[run]
            sentences = [s.strip() + "." for s in text.split(". ") if s.strip()]
            lines.append(
                {
                    "run_id": run,
                    "topic_id": topic,
                    "topic": QUERIES[topic],
                    "references": ["d1"],
                    "response_length": len(text.split()),
                    "answer": [{"text": s.rstrip(".") + ".", "citations": [0]} for s in sentences],
                }
            )
        (runs / f"{run}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    return runs, topics


def test_the_facts_several_runs_state_become_nuggets_and_the_bank_is_deterministic():
    bank = make_bank(F.Encoder(), "t1", QUERIES["t1"], answers_of("t1"), Params(0.5, 2, 0.5))
    assert len(bank.nuggets) == 3  # the fact only r5 states is no nugget
    assert [len(runs) for runs in bank.made.stated_by] == [5, 4, 2]
    assert [set(runs) for runs in bank.made.stated_by] == [set(r) for _, r in FACTS["t1"][:3]]
    assert "1889" in bank.nuggets[0].text and "Gustave" in bank.nuggets[1].text
    assert [n.importance for n in bank.nuggets] == ["vital", "vital", "okay"]  # >= half the widest group's 5
    again = make_bank(F.Encoder(), "t1", QUERIES["t1"], list(reversed(answers_of("t1"))), Params(0.5, 2, 0.5))
    assert bank_text([again]) == bank_text([bank])  # byte for byte, whatever the order the answers come in
    assert len(make_bank(F.Encoder(), "t1", QUERIES["t1"], answers_of("t1"), Params(0.5, 5)).nuggets) == 1


def test_no_run_is_judged_by_its_own_words_or_a_nugget_too_few_others_state():
    bank = make_bank(F.Encoder(), "t1", QUERIES["t1"], answers_of("t1"), Params(0.5, 2))
    for run in RUNS:
        view, index = view_for(bank, run)
        for n, i in zip(view.nuggets, index):
            assert len(set(bank.made.stated_by[i]) - {run}) >= 2
            # another run's wording: the seed's, or where the seed is the run's own, the alternate
            assert n.text == (bank.nuggets[i].text if bank.made.text_from[i] != run else bank.made.alternates[i])
    assert any(bank.made.text_from[i] == "r1" for i in range(len(bank.nuggets)))  # the case arises
    # the nugget r2 and r3 alone state: each of them is judged without it, the other runs with it
    assert 2 not in view_for(bank, "r2")[1] and 2 in view_for(bank, "r1")[1]


@settings(max_examples=25, deadline=None)
@given(
    stated=st.lists(st.lists(st.sampled_from(RUNS), min_size=1, max_size=5, unique=True), min_size=1, max_size=4),
    min_runs=st.integers(1, 4),
)
def test_a_view_never_credits_a_run_with_its_own_support(stated, min_runs):
    facts = [f"The {w} reactor number {k} produces {k + 7} megawatts of steady power" for k, w in enumerate("abcd")]
    answers = [(run, " ".join(facts[k] + "." for k, s in enumerate(stated) if run in s) or "No.") for run in RUNS]
    bank = make_bank(F.Encoder(), "q", "reactors", answers, Params(0.6, min_runs))
    for run in RUNS:
        view, index = view_for(bank, run)
        assert all(len(set(bank.made.stated_by[i]) - {run}) >= min_runs for i in index)
        for n, i in zip(view.nuggets, index):
            assert n.text == (bank.nuggets[i].text if bank.made.text_from[i] != run else bank.made.alternates[i])
            assert n.text in " ".join(t for r, t in answers if r != run)  # said by another run


@pytest.fixture(scope="module")
def track(tmp_path_factory):
    where = tmp_path_factory.mktemp("made")
    return (where, *write_runs(where))


def test_create_nuggets_writes_both_shapes_byte_identical_and_they_come_back(track):
    where, runs, topics = track
    out = where / "bank.jsonl"
    base = ["create-nuggets", "--rag-responses", runs, "--rag-topics", topics, "--min-runs", "2"]
    done = run_cli(*base, "--output", out)
    assert done.returncode == 0, done.stderr
    first = out.read_bytes()
    assert cli_in_process(*base, "--output", out).returncode == 0 and out.read_bytes() == first
    assert cli_in_process(*base, "--output", where / "bank.json", "--shape", "autojudge").returncode == 0
    nist, autojudge = read_nuggets(out), read_nuggets(where / "bank.json")
    assert nist.banks == autojudge.banks and autojudge.shape == "autojudge"
    assert source_of(nist) == "answers" and sorted(nist.banks) == ["t1", "t2"]
    assert [len(b.nuggets) for _, b in sorted(nist.banks.items())] == [3, 2]
    edited = where / "edited.jsonl"
    edited.write_text(first.decode().replace("Gustave Eiffel", "Gustave Eiffel and his engineers'"))
    assert source_of(read_nuggets(edited)) == "post-edited"
    bad = cli_in_process(*base, "--output", where / "x.json", "--shape", "csv")
    assert bad.returncode == 2 and bad.stderr.strip().count("\n") == 0 and "'csv'" in bad.stderr
    assert not (where / "x.json").exists()


def _judge(runs, topics, out, nuggets, *extra):
    given = ["--judge", "nugget", "--rag-topics", topics, "--rag-responses", runs, "--nuggets", nuggets]
    return cli_in_process(*given, "--backend", "python", "--out-dir", out, "--name", "N", *extra)


def test_every_nugget_score_records_the_banks_sha256_and_source(track):
    where, runs, topics = track
    bank = where / "bank.jsonl"
    assert cli_in_process("create-nuggets", "--rag-responses", runs, "--rag-topics", topics, "--output", bank)
    results = {}
    for name, nuggets in (("auto", "auto"), ("file", bank)):
        out = where / f"judged-{name}"
        done = _judge(runs, topics, out, nuggets)
        assert done.returncode == 0, done.stderr
        config = yaml.safe_load((out / "N.config.yml").read_text())
        table = pd.read_parquet(out / "N.nuggets.parquet")
        results[name] = (config["nugget_bank"], table, (out / "N.nugget-bank.jsonl").read_bytes())
    report = cli_in_process("report", where / "judged-auto", "--resamples", "0")
    assert report.returncode == 0, report.stderr
    index = (where / "judged-auto" / "N.report" / "index.html").read_text()
    assert f"Nugget bank: answers (auto, sha256 {results['auto'][0]['sha256'][:12]})" in index
    auto, file = results["auto"], results["file"]
    assert auto[0]["source"] == file[0]["source"] == "answers"
    assert auto[0]["sha256"] == hashlib.sha256(auto[2]).hexdigest()  # the bank it wrote beside the scores
    assert file[0]["sha256"] == hashlib.sha256(bank.read_bytes()).hexdigest()
    assert auto[2] == bank.read_bytes()  # --nuggets auto judges by the bank create-nuggets makes
    for config, table, _ in results.values():
        assert set(table.bank_sha256) == {config["sha256"]} and set(table.bank_source) == {"answers"}
    # r5 alone states the repainting; r1 is never judged by a wording of its own
    t1 = auto[1][auto[1].topic_id == "t1"]
    assert not t1[t1.run_id == "r2"].nugget.str.contains("protested").any()  # only r2, r3 state it: 1 other
    nist = where / "nist.jsonl"
    nist.write_text(
        json.dumps({"qid": "t1", "query": "q", "nuggets": [{"text": "The tower is in Paris", "importance": "vital"}]})
        + "\n"
    )
    done = _judge(runs, topics, where / "judged-human", nist)
    assert done.returncode == 0, done.stderr
    assert yaml.safe_load((where / "judged-human" / "N.config.yml").read_text())["nugget_bank"]["source"] == "human"


def test_shards_and_merge_with_a_made_bank_equal_one_process(track):
    where, runs, topics = track
    one = where / "one"
    assert _judge(runs, topics, one, "auto", "--no-debug-log").returncode == 0
    parts = where / "parts"
    for k in (1, 2):
        done = _judge(runs, topics, parts, "auto", "--no-debug-log", "--shard", f"{k}/2")
        assert done.returncode == 0, done.stderr
    merged = where / "merged"
    done = run_cli("merge", merged, "--name", "N", *sorted(parts.glob("N.part-*.arrow")))
    assert done.returncode == 0, done.stderr
    for name in ("N.nuggets.jsonl", "N.nugget-bank.jsonl", "N.leaderboard.txt", "N.nuggets.parquet"):
        assert (merged / name).read_bytes() == (one / name).read_bytes(), name


@pytest.mark.shared
def test_rag24_made_bank_is_a_normal_bank():
    """On the real runs a made bank reads back as a bank like NIST's: the nugget judge judges by it."""
    data = shared("rag24-nuggets")
    from judges.session.nuggets import read_answers

    answers = read_answers([data / "runs"], {"2024-153051"})
    bank = make_bank(
        F.Encoder(), "2024-153051", "target shoplifting policies", sorted((r, t) for (r, _), t in answers.items())
    )
    assert 5 <= len(bank.nuggets) <= 30 and any(n.vital for n in bank.nuggets)
    assert all(len(runs) >= 3 for runs in bank.made.stated_by)


def test_with_cited_documents_only_grounded_claims_count():
    """Given what each run cites, a claim its documents do not hold states nothing."""
    cited = {run: "The Eiffel Tower was completed in 1889 for the World Fair held in Paris." for run in RUNS}
    bank = make_bank(F.Encoder(), "t1", QUERIES["t1"], answers_of("t1"), Params(0.5, 2, 0.5), cited)
    assert len(bank.nuggets) == 1 and "1889" in bank.nuggets[0].text
    assert (
        len(
            make_bank(
                F.Encoder(), "t1", QUERIES["t1"], answers_of("t1"), Params(0.5, 2, 0.5, grounded=0), cited
            ).nuggets
        )
        == 3
    )


def test_a_plan_and_its_labels_work_with_a_made_bank(track):
    """plan-assessments --nuggets over a session judged by a made bank names pairs of it; the labels filled in
    are taken back (labelled pairs in the Parquet, the plan's draws in the intervals)."""
    where, runs, topics = track
    first = where / "planned"
    done = _judge(runs, topics, first, "auto")
    assert done.returncode == 0, done.stderr
    planned = run_cli("plan-assessments", first, "--name", "N", "--nuggets", "--count", "3")
    assert planned.returncode == 0, planned.stderr
    lines = [json.loads(x) for x in (first / "N.assess-nuggets-1.jsonl").read_text().splitlines()]
    table = pd.read_parquet(first / "N.nuggets.parquet").set_index(["run_id", "topic_id", "nugget_index"])
    assert len(lines) == 3 and all((x["run_id"], x["topic_id"], x["nugget_index"]) in table.index for x in lines)
    filled = where / "filled.jsonl"
    filled.write_text("".join(json.dumps({**x, "label": "support"}) + "\n" for x in lines))
    labelled = where / "labelled"
    done = _judge(runs, topics, labelled, "auto", "--labels", filled)
    assert done.returncode == 0, done.stderr
    again = pd.read_parquet(labelled / "N.nuggets.parquet")
    assert int(again.labelled.sum()) == 3 and set(again[again.labelled].assignment) == {"support"}
    assert (labelled / "N.intervals.tsv").exists()
