"""Topic shards as Dask tasks (``--dask ADDRESS`` or ``--dask local:N``), merged in this process.

The client (the ``run_judge.py`` process) submits one task per shard (:func:`judges.session.shards.judge_shard`;
as many shards as the cluster has worker threads when the run starts, unless ``--dask-shards``
says otherwise) and merges
the partial sets as ``run_judge.py merge`` does (:func:`judges.session.shards.merge`), into the output set
of one process.

* **Shared paths.** Nothing big goes through Dask: a task receives the session's options (paths,
  workflow), reads the inputs itself and writes its partial set under the out-dir, in
  ``OUT_DIR/.NAME.dask-TOKEN/`` (removed once merged; scratch, so not synced to disk: a crash
  loses the session, whose output set stays the previous one). So the inputs and the out-dir must be on a
  file system every worker and the client see under the same paths (give absolute paths, or
  start the workers in the client's directory); ``local:N`` starts a ``distributed.LocalCluster``
  of ``N`` worker processes, one thread each, on this machine.
* **Lost workers.** The scheduler runs a lost worker's task again on another worker (and a task
  that raised is retried, ``RETRIES`` times). Each attempt writes into a directory of its own and
  returns its part's path; the client merges exactly one part per shard, the one its future
  returned, so a shard is never dropped nor counted twice. Bad input is no reason to retry: a
  task returns its error line, which the client prints (nothing is written).
* **Progress.** Tasks report (shard, attempt, citations judged, citations of the shard), and
  their warnings, on the ``citejudge-progress`` event topic; the client counts the latest attempt
  of each shard (a retried shard's count goes back), shows shards done, and says each warning once
  (every shard reads the same inputs).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import uuid
from pathlib import Path
from typing import Callable, NamedTuple, Optional

from judges.core.config import Workflow
from judges.core.errors import InputError, install_extra
from judges.attest.endpoint import Endpoint
from judges.session.options import RunOptions, no_progress
from judges.session.spec import Inputs, Outputs, Summary

RETRIES = 2  # a task that raised (not a bad input) is tried this many times more
TOPIC = "citejudge-progress"
REPORT_EVERY = 4096  # citations between two progress events of a task
PROFILING = "distributed.worker.profile.enabled"  # a worker samples its tasks' stacks every 10 ms
# How the workers of ``local:N`` are started: without the stack sampler, whose 10 ms samples take
# the GIL from the judging thread (judging took a fifth longer), and with the event loops' watch
# (20 ms) and memory checks (100 ms) made rarer: idle, a LocalCluster of 2 used 8.7% of a core on
# them (tasks' memory grows slowly: a check a second is soon enough). bench/shards.py.
LOCAL_WORKERS = {
    PROFILING: False,
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.memory.monitor-interval": "1s",
}


class TaskOptions(NamedTuple):
    """What every task of a session gets: its options (paths, not data) and where its part goes."""

    inputs: Inputs
    outputs: Outputs
    workflow: Workflow
    workers: int  # recorded in the fingerprint (each task is one process)
    model: Optional[str]  # the LLM the merge will ask
    where: str  # the session's scratch directory for parts


def _shard_task(options: TaskOptions, shard: tuple[int, int]):
    """One shard, on a worker: ``("part", path)`` or ``("error", line)``."""
    import numba
    from distributed import get_worker

    from judges.session.shards import judge_shard

    from judges.core.process import settle_collector

    numba.set_num_threads(1)  # the worker processes are the parallelism
    settle_collector()  # as in a judge process: the worker's own objects frozen out of the collector's walks
    attempt = uuid.uuid4().hex[:12]
    k = shard[0]
    worker = get_worker()
    done = [0, 0, 0]  # judged, the shard's citations, judged at the last report

    def progress(n: int, total: Optional[int] = None) -> None:
        if total is not None:
            done[1] = total
        done[0] += n
        if total is not None or done[0] - done[2] >= REPORT_EVERY or done[0] == done[1]:
            done[2] = done[0]
            worker.log_event(TOPIC, {"shard": k, "attempt": attempt, "done": done[0], "total": done[1]})

    own = dataclasses.replace(options.outputs, out_dir=Path(options.where) / f"{k}-{attempt}")
    try:
        told = RunOptions(
            llm=None if options.model is None else Endpoint("", options.model),  # its model only: recorded
            workers=options.workers,
            warn=lambda line: worker.log_event(TOPIC, {"warning": line}),
            progress=progress,
        )
        # durable=False: scratch, merged by the client in this session, judged again if lost
        summary = judge_shard(options.inputs, own, options.workflow, shard, told, durable=False)
    except InputError as e:
        return "error", (e.path, e.line, e.field, e.problem)
    return "part", summary.files["part"]


def _client(address: str):
    """A client of the cluster at ``address``, or of a new ``LocalCluster`` for ``local:N``."""
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise InputError("--dask", None, None, f"needs dask.distributed: {install_extra('dask')}") from None
    if address.startswith("local:"):
        n = address.split(":", 1)[1]
        if not n.isdigit() or int(n) < 1:
            raise InputError("--dask", None, None, f"{address!r}: local:N needs N >= 1 worker processes")
        # silence_logs=CRITICAL: a task's error reaches the session through its future and is
        # reported there in one line; what the workers log as ERROR is noise about their own
        # shutdown (a worker on a busy machine logs "Failed to communicate with scheduler during
        # heartbeat" when the session stops the cluster after a bad input).
        with dask.config.set(LOCAL_WORKERS):  # the cluster's own settings: read as it starts
            cluster = LocalCluster(
                n_workers=int(n), threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
            )
        return Client(cluster), cluster
    try:
        return Client(address, timeout="30s"), None
    except (OSError, TimeoutError) as e:
        raise InputError("--dask", None, None, f"cannot reach the scheduler at {address!r}: {e}") from None


def run(
    address: str,
    inputs: Inputs,
    outputs: Outputs,
    workflow: Workflow,
    options: RunOptions = RunOptions(),
    *,
    shards: Optional[int] = None,
    on_shards: Callable[[int, int], None] = lambda done, n: None,
) -> Summary:
    """Judge on the Dask cluster at ``address`` (module doc) and write the merged output set.
    ``on_shards(done, n)`` is told as shards finish; ``options.progress(n, total)`` as citations
    are judged (not as the merge writes)."""
    from judges.session.shards import merge

    client, cluster = _client(address)
    where = Path(outputs.out_dir) / f".{outputs.name}.dask-{uuid.uuid4().hex[:12]}"
    try:
        try:
            task = TaskOptions(inputs, outputs, workflow, options.workers, options.model, str(where))
            parts = _judged_shards(client, cluster is None, task, shards, options, on_shards)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()  # its workers' memory back before the merge
        merging = dataclasses.replace(options, progress=no_progress)  # the bar counted the shards' citations
        return merge(parts, outputs.out_dir, outputs.name, merging, debug_log=outputs.debug_log)  # the session's log
    finally:
        shutil.rmtree(where, ignore_errors=True)


def _judged_shards(client, remote: bool, options: TaskOptions, shards, told: RunOptions, on_shards) -> list[Path]:
    """Submit one task per shard, follow their progress and warnings (``told``'s); each shard's part."""
    warn, progress = told.warn, told.progress
    n = shards or max(1, sum(client.nthreads().values()))
    seen: dict[int, tuple[str, int, int]] = {}  # shard -> (attempt, done, total) of its latest attempt
    shown = [0, 0]  # judged, total as last shown
    warned: set[str] = set()

    def on_event(event) -> None:
        msg = event[1] if isinstance(event, tuple) else event
        if "warning" in msg:  # every shard reads the inputs: the same warnings, said once
            if msg["warning"] not in warned:
                warned.add(msg["warning"])
                warn(msg["warning"])
            return
        seen[msg["shard"]] = (msg["attempt"], msg["done"], msg["total"])
        done, total = sum(v[1] for v in seen.values()), sum(v[2] for v in seen.values())
        progress(done - shown[0], total=total if total != shown[1] else None)
        shown[:] = [done, total]

    if remote:
        _warn_profiling(client, warn)
    client.subscribe_topic(TOPIC, on_event)
    os.makedirs(options.where, exist_ok=True)
    futures = [
        client.submit(
            _shard_task,
            options,
            (k, n),
            key=f"citejudge-shard-{k}-of-{n}-{Path(options.where).name}",
            retries=RETRIES,
            pure=False,
        )
        for k in range(1, n + 1)
    ]
    parts = _gather(futures, n, on_shards)
    client.unsubscribe_topic(TOPIC)
    return parts


def _profiles(dask_worker) -> bool:
    return "profile" in dask_worker.periodic_callbacks


def _warn_profiling(client, warn: Callable[[str], None]) -> None:
    """Say so when the cluster's workers profile their tasks: judging then takes about a fifth
    longer (the sampler takes the GIL from the judging thread every 10 ms; bench/shards.py)."""
    profiling = sum(client.run(_profiles).values())
    if profiling:
        warn(
            f"{profiling} Dask worker(s) sample their tasks' stacks every 10 ms ({PROFILING}), which makes "
            "judging about 20% slower: start the workers with DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False"
        )


def _gather(futures: list, n: int, on_shards) -> list[Path]:
    """Each shard's part, as its future returns it; the first bad input stops them all."""
    from distributed import as_completed

    parts: dict[int, Path] = {}
    on_shards(0, n)
    for future in as_completed(futures):
        kind, value = future.result()
        if kind == "error":
            for other in futures:
                other.cancel()
            raise InputError(*value)
        k = futures.index(future) + 1
        parts[k] = Path(value)
        on_shards(len(parts), n)
    return [parts[k] for k in range(1, n + 1)]
