"""The docstore for big corpora (judges.formats.docstore) over a small corpus in the real MS MARCO v2.1
segmented layout (70 gzip shards, ids naming shard and offset), generated in a tmp dir."""

import gzip
import json
import re
import shutil

import pandas as pd
import pytest
from helpers import cli_in_process, judge_cli, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judges.core.errors import InputError
from judges.formats import docstore
from judges.formats.corpus import read_corpus
from judges.formats.synthcorpus import write_corpus

SEGMENTS = 1400
CITATION = ("--judge", "citation", "--backend", "python")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """(shard dir with its store, sampled ids, {id: raw JSON line} for every segment)."""
    root = tmp_path_factory.mktemp("msmarco")
    shards = root / "shards"
    ids = write_corpus(shards, SEGMENTS, shards=70, seed=3, sample=300)
    lines = {}
    for path in sorted(shards.glob("*.json.gz")):
        for line in gzip.decompress(path.read_bytes()).splitlines():
            lines[json.loads(line)["docid"]] = line
    figures = docstore.build(shards)
    assert figures["lines"] == SEGMENTS and figures["files"] == 70 and figures["layout"] == docstore.LAYOUT_MSMARCO
    return shards, ids, lines


def raw_at(shards, doc_id):
    """The line at the offset the id names, read the slow way (whole shard decompressed)."""
    shard, offset = int(doc_id.split("_")[3]), int(doc_id.rsplit("_", 1)[1])
    data = gzip.decompress((shards / f"msmarco_v2.1_doc_segmented_{shard:02d}.json.gz").read_bytes())
    return json.loads(data[offset : data.index(b"\n", offset)])


def test_ids_name_their_shard_and_offset(corpus):
    shards, ids, _ = corpus
    assert len(ids) == 300 and len({i.split("_")[3] for i in ids}) > 50
    for doc_id in ids[:20]:
        assert raw_at(shards, doc_id)["docid"] == doc_id


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(picks=st.lists(st.integers(min_value=0, max_value=10**9), min_size=1, max_size=30))
def test_lookup_returns_exactly_the_segment_text(corpus, picks):
    shards, _, lines = corpus
    all_ids = sorted(lines)
    wanted = [all_ids[p % len(all_ids)] for p in picks]
    with docstore.open_store(shards) as store:
        found, missing = store.get(wanted)
    assert not missing and set(found) == set(wanted)
    for doc_id in wanted:
        obj = json.loads(lines[doc_id])
        assert found[doc_id].text == obj["segment"] and found[doc_id].title == obj["title"]
        assert raw_at(shards, doc_id)["segment"] == found[doc_id].text


def test_missing_ids_and_bad_offsets_have_their_reason(corpus):
    shards, ids, _ = corpus
    shard, offset = ids[0].split("_")[3], int(ids[0].rsplit("_", 1)[1])
    beyond = f"msmarco_v2.1_doc_{shard}_1#0_{10**9}"
    mid_line = f"msmarco_v2.1_doc_{shard}_1#0_{offset + 5}"
    other = ids[0].replace("#", "9#", 1)  # a real line's offset, but not this id
    with docstore.open_store(shards) as store:
        found, missing = store.get([ids[0], "doc-x", "msmarco_v2.1_doc_98_1#0_0", beyond, mid_line, other])
    assert list(found) == [ids[0]]
    assert missing["doc-x"] == "not in corpus"
    assert missing["msmarco_v2.1_doc_98_1#0_0"] == "not in corpus: no shard 98"
    assert missing[beyond].startswith(
        "index out of range: offset 1000000000 is beyond the end of msmarco_v2.1_doc_segmented_"
    )
    assert "is not the start of a line (index out of range)" in missing[mid_line]
    assert f"holds {ids[0]!r} (index out of range)" in missing[other]
    # through --corpus: found documents, and the bad offsets (not the plain misses) with their reason
    got = read_corpus(shards, {ids[0], "doc-x", beyond, mid_line}, pytest.fail)
    assert got[ids[0]].text and "doc-x" not in got
    assert isinstance(got[beyond], docstore.Unresolved) and got[beyond].reason.startswith("index out of range")


def test_directory_without_store_reads_cited_shards_only_up_to_the_last_offset(corpus, tmp_path):
    shards, ids, lines = corpus
    bare = tmp_path / "bare"
    shutil.copytree(shards, bare, ignore=shutil.ignore_patterns("*.sqlite"))
    shard = ids[0].split("_")[3]
    beyond = f"msmarco_v2.1_doc_{shard}_1#0_{10**9}"
    got = read_corpus(bare, set(ids) | {"doc-x", beyond}, pytest.fail)
    assert {k for k, v in got.items() if isinstance(v, docstore.Unresolved)} == {beyond}
    assert all(got[i].text == json.loads(lines[i])["segment"] for i in ids)
    assert "index out of range" in got[beyond].reason


def test_generic_jsonl_corpus_indexes_by_id_first_occurrence_wins(tmp_path):
    path = tmp_path / "corpus.jsonl.gz"
    rows = [{"doc_id": f"d{i}", "text": f"text {i} " * (i % 7 + 1), "title": f"T{i}"} for i in range(3000)]
    rows.append({"doc_id": "d5", "text": "a later duplicate"})
    path.write_bytes(gzip.compress(("\n".join(json.dumps(r) for r in rows) + "\n{broken\n").encode()))
    with pytest.raises(InputError, match=r"corpus\.jsonl\.gz:3002: invalid JSON"):
        docstore.build(path, block_bytes=4096)
    skipped = []
    figures = docstore.build(path, on_error=skipped.append, block_bytes=4096)
    assert figures["ids"] == 3001 and figures["layout"] == docstore.LAYOUT_GENERIC and len(skipped) == 1
    store = docstore.store_path_for(path)
    assert store.name == "corpus.jsonl.gz.citejudge-docstore.sqlite"
    streamed = read_corpus(path, {"d5", "d2999", "d0", "nope"}, lambda e: None)
    from_store = read_corpus(store, {"d5", "d2999", "d0", "nope"}, pytest.fail)
    assert from_store == streamed and from_store["d5"].text.startswith("text 5")


def test_stale_store_is_refused(corpus, tmp_path):
    shards, ids, _ = corpus
    copy = tmp_path / "copy"
    shutil.copytree(shards, copy)
    with open(copy / "msmarco_v2.1_doc_segmented_07.json.gz", "ab") as f:
        f.write(b"\0")
    with pytest.raises(InputError, match="changed since it was indexed"):
        read_corpus(copy, set(ids), pytest.fail)


# -- the CLI, as a subprocess ---------------------------------------------------------------------


def _run_files(tmp_path, ids, lines):
    """Two rag-shaped runs citing corpus ids: copied sentences (supported), wrong ids, a missing id and bad offsets."""
    topics = tmp_path / "topics.jsonl"
    topics.write_text("\n".join(json.dumps({"id": f"t{k}", "narrative": f"topic {k}"}) for k in range(3)) + "\n")
    shard = ids[0].split("_")[3]
    bad = [f"msmarco_v2.1_doc_{shard}_1#0_{10**9}", "msmarco_v2.1_doc_00_1#0_3", "not-a-segment"]
    reports = []
    for r, run in enumerate(["runA", "runB"]):
        for k in range(3):
            refs = ids[10 * k + r : 10 * k + r + 6] + bad
            answer = []
            for j, doc_id in enumerate(refs[:6]):
                seg = json.loads(lines[doc_id])["segment"]
                text = " ".join(seg.split()[5:25]) + "." if j % 2 == 0 else "Nothing here matches a thing at all."
                answer.append({"text": text, "citations": [j, (j + 1) % 6]})
            answer.append({"text": "Cited from nowhere.", "citations": [6, 7, 8]})
            reports.append(
                {
                    "metadata": {
                        "team_id": "tm",
                        "run_id": run,
                        "narrative_id": f"t{k}",
                        "type": "automatic",
                        "narrative": f"topic {k}",
                    },
                    "references": refs,
                    "answer": answer,
                }
            )
    runs = tmp_path / "runs.jsonl"
    runs.write_text("\n".join(json.dumps(r) for r in reports) + "\n")
    return topics, runs, bad


@pytest.mark.slow
def test_cli_shard_dir_gives_the_same_outputs_as_one_plain_jsonl(corpus, tmp_path):
    shards, ids, lines = corpus
    topics, runs, bad = _run_files(tmp_path, ids, lines)
    plain = tmp_path / "corpus.jsonl"
    with open(plain, "wb") as f:
        for path in sorted(shards.glob("*.json.gz")):
            f.write(gzip.decompress(path.read_bytes()))
    bare = tmp_path / "bare"
    shutil.copytree(shards, bare, ignore=shutil.ignore_patterns("*.sqlite"))
    results = {
        name: judge_cli(
            *CITATION,
            "--rag-topics",
            topics,
            "--rag-responses",
            runs,
            "--corpus",
            arg,
            out=tmp_path / name,
            name="t",
            ok=False,
        )
        for name, arg in [("plain", plain), ("dir", shards), ("store", shards / docstore.STORE_NAME), ("bare", bare)]
    }
    for name, r in results.items():
        assert r.returncode == 0, (name, r.stderr)
    frames = {}
    for name in results:
        out = tmp_path / name
        for file in ("t.qrels", "t.doc.qrels", "t.leaderboard.txt"):
            assert (out / file).read_text() == (tmp_path / "plain" / file).read_text(), (name, file)
        assert pd.read_parquet(out / "t.leaderboard.parquet").equals(
            pd.read_parquet(tmp_path / "plain" / "t.leaderboard.parquet")
        )
        frames[name] = pd.read_parquet(out / "t.assessments.parquet")
    plain_df = frames["plain"]
    assert (plain_df.doc_source == "corpus").sum() > 20 and set(plain_df.status) >= {"supported", "missing"}
    for name in ("dir", "store", "bare"):
        df = frames[name]
        same = df.drop(columns=["reason", "explanation"]).equals(plain_df.drop(columns=["reason", "explanation"]))
        assert same, name
        ok = ~df.doc_id.isin(bad[:2])
        assert df[ok].reason.equals(plain_df[ok].reason)  # the same documents and the same plain misses
        assert df[ok].explanation.equals(plain_df[ok].explanation)
        for doc_id in bad[:2]:  # bad offsets: reported as such (the plain file can only say "not in the corpus")
            reasons = set(df[df.doc_id == doc_id].reason)
            assert len(reasons) == 1 and "index out of range" in reasons.pop()
        assert set(df[df.doc_id == "not-a-segment"].reason) == {
            "document 'not-a-segment' in neither the report's documents nor the corpus"
        }


@pytest.mark.slow
def test_cli_corrupt_shard_is_one_clean_error(corpus, tmp_path):
    shards, ids, lines = corpus
    bare = tmp_path / "bare"
    shutil.copytree(shards, bare, ignore=shutil.ignore_patterns("*.sqlite"))
    victim = bare / f"msmarco_v2.1_doc_segmented_{ids[0].split('_')[3]}.json.gz"
    data = bytearray(victim.read_bytes())
    data[40:240] = b"U" * 200
    victim.write_bytes(bytes(data))
    r = cli_in_process("corpus", "index", bare)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert (
        re.match(rf"error: {re.escape(str(victim))}:\d+: corrupt gzip data: ", r.stderr)
        and len(r.stderr.strip().splitlines()) == 1
    )
    assert not (bare / docstore.STORE_NAME).exists() and not list(bare.glob("*.tmp"))
    topics, runs, _ = _run_files(tmp_path, [i for i in ids if victim.name[-10:-8] == i.split("_")[3]] * 40, lines)
    r = judge_cli(
        *CITATION,
        "--rag-topics",
        topics,
        "--rag-responses",
        runs,
        "--corpus",
        bare,
        out=tmp_path / "out",
        name="t",
        ok=False,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert (
        re.match(rf"error: {re.escape(str(victim))}:\d+: corrupt gzip data: ", r.stderr)
        and len(r.stderr.strip().splitlines()) == 1
    )


@pytest.mark.slow
def test_cli_corpus_index_lookup_and_info(corpus, tmp_path):
    shards, ids, lines = corpus
    bare = tmp_path / "bare"
    shutil.copytree(shards, bare, ignore=shutil.ignore_patterns("*.sqlite"))
    r = run_cli("corpus", "index", bare)
    assert r.returncode == 0, r.stderr
    assert "msmarco-v2.1-segmented" in r.stdout and str(SEGMENTS) in r.stdout
    assert (bare / docstore.STORE_NAME).read_bytes() == (shards / docstore.STORE_NAME).read_bytes()  # deterministic
    r = cli_in_process("corpus", "lookup", bare, ids[4], "nope")
    assert r.returncode == 1
    assert json.loads(r.stdout)["text"] == json.loads(lines[ids[4]])["segment"]
    assert r.stderr.strip() == "missing: nope: not in corpus"
    r = run_cli("corpus", "info", bare / docstore.STORE_NAME)
    assert r.returncode == 0 and f"lines: {SEGMENTS}" in r.stdout
    r = cli_in_process("corpus", "info", tmp_path)
    assert (
        r.returncode == 2
        and r.stderr.strip() == f"error: {tmp_path}: no docstore here: run `run_judge.py corpus index` first"
    )
