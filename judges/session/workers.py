"""Worker processes for ``--workers N``: topics dealt by their citations, one Numba thread each.

Each worker judges whole topics, so it tokenizes only its own topics' documents, and the
results of different workers never overlap: merging them is a concatenation. Workers are
spawned (fork is unsafe once Numba's threads have started) as early as possible, and load
their kernels in the pool initializer while the main process still runs the first pass.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

from judges.session.deal import deal, topic_work
from judges.formats.debuglog import DebugLog
from judges.engine.judge import Part, warmup
from judges.engine.pairs import CITATION_KIND, judge_pairs
from judges.engine.settings import Settings
from judges.session.scan import Scan, for_topics, reread

_progress_queue = None


def _watch_parent(parent: int) -> None:
    """Exit at once when the main process is gone (kill -9 leaves no one to stop the workers)."""
    import os
    import time

    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(1)


def _init_worker(queue, settings: Settings, parent: int) -> None:
    """Runs once in each worker as it starts: dies with its parent, one Numba thread, kernels
    loaded before work arrives."""
    global _progress_queue
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the main process decides
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # held from the start (Workers), now ignored
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="watch-parent").start()
    _progress_queue = queue
    from judges.core.process import arrow_without_pandas, numba_without_scipy_blas, quiet_collector, settle_collector

    quiet_collector()
    arrow_without_pandas()  # a worker only judges: no pandas in it
    numba_without_scipy_blas()  # the text kernels are Numba's whatever the alignment backend
    import numba

    numba.set_num_threads(1)  # one thread per process: the processes are the parallelism
    if settings.workflow.alignment.backend == "numba":
        warmup(settings)
    settle_collector()


def _started() -> None:
    """An empty task: submitting one per worker makes the pool start them all now."""


def _worker(
    settings: Settings,
    scan: Scan,
    corpus_path: str,
    topics: frozenset,
    log_path: Optional[str],
    table_path: str,
    plan=None,
    labels: Optional[dict] = None,
) -> Part:
    """Judge ``topics`` citing the documents pickled in ``corpus_path``; the assessments go to
    ``table_path`` (an Arrow IPC file), not through the result pipe: pickling them would hold a
    second copy in this process and in the main one."""
    import pickle

    import pyarrow as pa

    with open(corpus_path, "rb") as f:
        corpus = pickle.load(f)

    log = DebugLog(None)
    if log_path:  # written directly (not renamed into place at the end): the main process follows it
        log.start(Path(log_path))
    assert _progress_queue is not None, "the pool's initializer set it (_init_worker)"
    try:
        reports = reread(scan, topics, settings.dataset, settings.workflow.citations.max_per_sentence)
        part = judge_pairs(
            CITATION_KIND, settings, reports, corpus, log, progress=_progress_queue.put, plan=plan, labels=labels
        )
    finally:
        log.close()
    with pa.OSFile(table_path, "wb") as sink, pa.ipc.new_file(sink, part.assessments.schema) as writer:
        writer.write_table(part.assessments)
    return part._replace(assessments=None)


def _assessments(table_path: str):
    """A worker's assessments, memory-mapped from its Arrow IPC file (no copy is read)."""
    import pyarrow as pa

    return pa.ipc.open_file(pa.memory_map(table_path)).read_all()


class _FollowedLogs:
    """The workers' debug logs, appended to the session's log in worker order while they are
    written: a large track logs gigabytes, copied as the workers judge instead of after them."""

    def __init__(self, log: DebugLog, paths: list[str], futures: list):
        self.log, self.paths, self.futures = log, paths, futures
        self.worker, self.offset = 0, 0  # the worker being followed, and how far its log is copied

    def follow(self) -> None:
        import os

        while self.worker < len(self.paths):
            path, finished = self.paths[self.worker], self.futures[self.worker].done()  # done: its log is closed
            if os.path.exists(path):
                self.offset = self.log.append_file(Path(path), self.offset)
            if not finished:
                return
            if os.path.exists(path):
                os.unlink(path)
            self.worker, self.offset = self.worker + 1, 0


class Workers:
    """Worker processes, started early so their imports and kernel loading overlap the first pass;
    ``progress(n)`` is told of the citations they judge, as they judge them."""

    def __init__(self, settings: Settings, n: int, progress: Callable = lambda n: None):
        import concurrent.futures
        import multiprocessing
        import os

        import signal

        ctx = multiprocessing.get_context("spawn")  # fork is unsafe once Numba's threads have started
        self.n, self.queue, self.progress = n, ctx.Queue(), progress
        # The workers start with SIGINT held (a mask is inherited): a Ctrl-C to the group while one
        # imports would be its traceback; _init_worker ignores it, then lets it through (dropped).
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self.pool = concurrent.futures.ProcessPoolExecutor(
                n, mp_context=ctx, initializer=_init_worker, initargs=(self.queue, settings, os.getpid())
            )
            for _ in range(n):
                self.pool.submit(_started)  # a spawned pool starts its processes here, in this thread
        finally:
            try:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a Ctrl-C meanwhile reaches this process now
            except BaseException:  # that Ctrl-C: the workers go as on any interrupt
                if hasattr(self, "pool"):
                    self.__exit__(KeyboardInterrupt, None, None)
                raise

    def __enter__(self) -> "Workers":
        return self

    def __exit__(self, exc_type, *exc) -> None:
        if exc_type is not None:  # an error or an interrupt: no waiting for the workers' topics
            for process in list((getattr(self.pool, "_processes", None) or {}).values()):
                process.terminate()
        self.pool.shutdown(wait=True, cancel_futures=True)

    def judge(
        self,
        settings: Settings,
        scan: Scan,
        corpus: dict,
        topics: dict,
        log: DebugLog,
        tmp_dir: Path,
        plan=None,
        labels: Optional[dict] = None,
        keep_corpus: bool = False,
    ) -> list[Part]:
        """Deal the topics to the workers by their citations (:func:`judges.session.deal.deal`); each
        tokenizes only its own documents.

        ``corpus`` is emptied once every worker has its share (the main process keeps no copy),
        unless ``keep_corpus`` (a first pass, followed by a second); ``settings``, ``plan`` and
        ``labels`` as in :func:`judges.engine.judge.judge_part` (a first pass judges without the LLM).
        """
        import pickle
        import queue as queue_module
        import tempfile

        n, progress = self.n, self.progress
        groups = deal(topics, topic_work(scan.report_citations), n)
        with tempfile.TemporaryDirectory(dir=tmp_dir, prefix="workers.") as tmp:
            log_paths = [str(Path(tmp) / f"worker{w}.jsonl") if log.enabled else None for w in range(n)]
            table_paths = [str(Path(tmp) / f"worker{w}.arrow") for w in range(n)]
            futures = []
            for w, g in enumerate(groups):  # documents go through a file: the pool keeps a call's arguments
                docs = {d: corpus[d] for t in g for d in scan.wanted_docs.get(t, ()) if d in corpus}
                corpus_path = str(Path(tmp) / f"worker{w}.corpus.pickle")
                sent = for_topics(scan, g)  # the reports the first pass kept, of its topics only
                with open(corpus_path, "wb") as f:
                    pickle.dump(docs, f, protocol=pickle.HIGHEST_PROTOCOL)
                futures.append(
                    self.pool.submit(
                        _worker, settings, sent, corpus_path, g, log_paths[w], table_paths[w], plan, labels
                    )
                )
            del docs
            if not keep_corpus:
                corpus.clear()
            logs = _FollowedLogs(log, [p for p in log_paths if p is not None], futures) if log.enabled else None
            while not all(f.done() for f in futures):
                try:
                    progress(self.queue.get(timeout=0.2))
                except queue_module.Empty:
                    pass
                if logs is not None:
                    logs.follow()
            if logs is not None:
                logs.follow()
            parts = [f.result()._replace(assessments=_assessments(path)) for f, path in zip(futures, table_paths)]
            while True:
                try:
                    progress(self.queue.get_nowait())
                except queue_module.Empty:
                    break
        return parts
