"""Topic shards as Dask tasks (judges.session.cluster): ``--dask local:2`` writes one process's output set
byte for byte, and a worker killed while it judges a shard loses nothing: the shard runs again."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
from conftest import DASK_REASON, ROOT, run_cli
from test_shards import BUNDLED, same_outputs, shared_inputs

from judges.session import cluster
from judges.session import pipeline
from judges.core.config import Workflow
from judges.session.options import RunOptions
from judges.session.spec import Inputs, Outputs

pytest.importorskip("distributed", reason=DASK_REASON)

ARGS = ["--rag-topics", ROOT / "datasets/rag25/topics.jsonl", "--rag-responses", ROOT / "runs/rag25"]
ARGS += ["--corpus", ROOT / "datasets/rag25/corpus.jsonl", "--name", "x", "--workers", "1"]


def test_dask_local_2_writes_one_processs_outputs(tmp_path):
    out = tmp_path / "out"
    one = run_cli(*ARGS, "--out-dir", out)
    assert one.returncode == 0, one.stderr
    out.rename(tmp_path / "one")
    on_dask = run_cli(*ARGS, "--out-dir", out, "--dask", "local:2")
    assert on_dask.returncode == 0, on_dask.stderr
    assert "2/2 shards done" in on_dask.stderr  # no terminal: a line per shard instead of the bar
    same_outputs(tmp_path / "one", out)
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == []  # the parts are gone


def test_bad_input_on_a_worker_is_one_error_line(tmp_path):
    bad = tmp_path / "runs"
    bad.mkdir()
    (bad / "run.jsonl").write_text("{not json\n")
    given = [
        "--rag-topics",
        ROOT / "datasets/ragtime/topics.jsonl",
        "--rag-responses",
        bad,
        "--out-dir",
        tmp_path / "out",
    ]
    here = run_cli(*given)
    result = run_cli(*given, "--dask", "local:1")
    assert result.returncode == here.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert lines == here.stderr.strip().splitlines() and len(lines) == 1 and "run.jsonl:1: invalid JSON" in lines[0]
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


@pytest.mark.shared
@pytest.mark.parametrize("dataset", ["rag24-support", "kiddie"])
def test_shared_datasets_on_dask(tmp_path, dataset):
    inputs = shared_inputs(dataset)
    out = tmp_path / "out"
    pipeline.run(inputs, Outputs(out, "x"), Workflow(), RunOptions(workers=1))
    out.rename(tmp_path / "one")
    cluster.run("local:2", inputs, Outputs(out, "x"), Workflow(), RunOptions(workers=1))
    same_outputs(tmp_path / "one", out)


def test_a_killed_workers_shard_is_judged_again_and_counted_once(tmp_path, monkeypatch):
    """SIGKILL to the worker process while it holds a shard (paused in its staging step): the
    scheduler gives the shard to a worker again; the output set is still one process's."""
    from distributed import Client, LocalCluster

    inputs = Inputs(**BUNDLED["rag25"])
    out = tmp_path / "out"
    pipeline.run(inputs, Outputs(out, "x"), Workflow(), RunOptions(workers=1))
    out.rename(tmp_path / "one")
    monkeypatch.setenv("CITEJUDGE_TEST_PAUSE", "staging")  # inherited by the worker processes
    monkeypatch.setenv("CITEJUDGE_TEST_PAUSE_S", "4")
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None, silence_logs=40) as local:
        with Client(local) as client:
            pids = client.run(os.getpid)
            failed: list = []
            said: list[str] = []

            def judge() -> None:
                try:
                    address = local.scheduler_address
                    told = RunOptions(workers=1, warn=said.append)
                    cluster.run(address, inputs, Outputs(out, "x"), Workflow(), told, shards=3)
                except BaseException as e:  # noqa: BLE001 - reported by the test
                    failed.append(e)

            thread = threading.Thread(target=judge)
            thread.start()
            killed = None
            deadline = time.monotonic() + 900  # a bound on the event, not its expected time
            while killed is None and time.monotonic() < deadline:
                for address, keys in client.processing().items():
                    if any(str(k).startswith("citejudge-shard-") for k in keys) and address in pids:
                        staged = list(out.glob(".x.dask-*/*/.x.part-*.stage-*"))
                        if staged:  # a shard is judged and pausing before it is written
                            os.kill(pids[address], signal.SIGKILL)
                            killed = address
                            break
                time.sleep(0.05)
            thread.join(1800)
    assert killed is not None and not failed, failed
    same_outputs(tmp_path / "one", out)
    # this cluster's workers were started with Dask's defaults: they profile their tasks, said once
    assert [line for line in said if cluster.PROFILING in line] == [
        f"2 Dask worker(s) sample their tasks' stacks every 10 ms ({cluster.PROFILING}), which makes judging "
        "about 20% slower: start the workers with DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False"
    ]


def _periodic_ms(dask_worker) -> dict:
    return {name: callback.callback_time for name, callback in dask_worker.periodic_callbacks.items()}


def test_local_workers_are_quiet():
    """``local:N`` starts its workers without Dask's stack sampler, which took the GIL from the
    judging thread every 10 ms (about a fifth of the judging time at --size large), and with the
    event loop's watch and the memory checks once a second instead of every 20 and 100 ms."""
    client, local = cluster._client("local:1")
    try:
        assert list(client.run(cluster._profiles).values()) == [False]
        (periodic,) = client.run(_periodic_ms).values()
        assert periodic["tick"] == periodic["memory_monitor"] == 1000
    finally:
        client.close()
        local.close()
    import dask

    assert dask.config.get(cluster.PROFILING) is True  # this process's own settings are left as they were
    assert dask.config.get("distributed.admin.tick.interval") == "20ms"


def test_dask_with_attestation_asks_as_one_process_does(tmp_path):
    """With ``--attest uncertain`` the tasks judge the first pass only; the client plans over all
    shards and asks (here a scripted loopback server), each question once, as one process does."""
    from conftest import needs_dspy

    needs_dspy()
    from llm_servers import Reply, ScriptedServer, messages_key

    def by_hash(n: int, body: dict) -> Reply:
        return Reply(content="YES" if int(messages_key(body), 16) % 2 else "NO")

    out = tmp_path / "out"
    with ScriptedServer(by_hash) as server:
        asks = [*ARGS, "--out-dir", out, "--attest", "uncertain", "--use-env-llm"]
        one = run_cli(*asks, "--cache-dir", tmp_path / "c1", env=server.env())
        assert one.returncode == 0, one.stderr
        asked = len(server.keys())
        out.rename(tmp_path / "one")
        on_dask = run_cli(*asks, "--cache-dir", tmp_path / "c2", "--dask", "local:2", env=server.env())
        assert on_dask.returncode == 0, on_dask.stderr
        assert len(server.keys()) == 2 * asked > 0  # the same questions, asked once more (a fresh cache)
    same_outputs(tmp_path / "one", out)
    assert (out / "x.plan.tsv").exists()
