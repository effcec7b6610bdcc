"""One judging session, start to end: check the inputs → first pass over the runs → read the cited
corpus documents → judge (here or in worker processes) → merge → write the outputs as one set.

1. :mod:`judges.runscan` reads topics and makes a first, validating pass over the run files;
   :mod:`judges.formats.corpus` then reads only the corpus documents the runs cite;
2. :mod:`judges.judge` judges the reports in batches, in this process or in worker processes
   (:mod:`judges.workers`), each worker owning whole topics;
3. the parts are merged (with the LLM attestation summary when the workflow attests) and
   :mod:`judges.writer` writes every output, sorted, into a staging directory that
   :mod:`judges.formats.outset` renames into place as one set, the debug log with it.

:func:`questions` runs steps 1 and 2 only, in this process, with the LLM's questions handed to
an asker that records them (``attest export``, :mod:`judges.attest.batch`); it writes no output
(the answer cache is only read, though opening it creates an empty one where there is none).
Topic shards judged apart (``--shard K/N``, ``--dask``) come back through :mod:`judges.shards`,
which writes their merge with this module's last stage (or, with attestation, hands it their
first pass: ``run(..., first_pass=...)``).

Nothing is created before the inputs are validated: the output targets are checked first, the
first pass keeps its debug-log events in memory, and only then is the out-dir created, locked
(one session per out-dir and name) and recovered from a session killed while committing.
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from pathlib import Path
from typing import Callable, Optional

import pyarrow as pa
import pyarrow.compute as pc

from judges import __version__
from judges.attest.endpoint import Endpoint
from judges.config import Workflow
from judges.counts import CAPPED, CITATIONS, CORPUS_DOCUMENTS, HUMAN_LABELLED
from judges.errors import InputError, install_extra
from judges.formats import docstore
from judges.formats.corpus import read_corpus
from judges.formats.debuglog import DebugLog
from judges.formats.outset import Interrupted, OutputSet, check_targets
from judges.judge import Part, judge_part
from judges.plan import Plan, attest_plan
from judges.process import return_freed_memory
from judges.records import Document
from judges.runscan import Problems, Scan, check_missing_topics, check_resolvable, load_topics, scan_runs
from judges.session import Inputs, Outputs, Settings, Summary
from judges.support.judges import is_probabilistic
from judges.vocabulary import STATUSES
from judges.workers import Workers
from judges.writer import describe_inputs, output_targets, write_outputs

# Below this, worker processes cost more than they save on 2 cores: each pays about 1.5 s of
# imports and kernel loading, and the judging is about 0.2 ms per citation whatever the document
# length (bench/run.py: 23,685 citations of short segments take 4.6 s in one process and as long
# with two; 99,866 of long documents 18.3 s and 12.1 s).
AUTO_PARALLEL_CITATIONS = 50_000

__all__ = ["Inputs", "Outputs", "Summary", "prepare", "questions", "run"]


def prepare(workflow: Workflow) -> None:
    """Load (or, on a fresh install, compile) the workflow's Numba kernels now, by judging one tiny
    in-memory report: a caller can say so instead of looking hung."""
    if workflow.alignment.backend == "numba":
        from judges.judge import warmup

        warmup(Settings(workflow))


def run(
    inputs: Inputs,
    outputs: Outputs,
    workflow: Workflow,
    *,
    llm: Optional[Endpoint] = None,
    cache_dir: Optional[Path] = None,
    workers: int = 0,
    strict_llm: bool = False,
    use_degenerate_llm: bool = False,
    warn: Callable[[str], None] = lambda msg: None,
    progress=None,
    first_pass: Optional[list[Part]] = None,
) -> Summary:
    """Judge every report of ``inputs`` by ``workflow`` and write all ``outputs``; returns the
    summary. ``llm``: the endpoint attestation asks; ``cache_dir``: its answer cache (default the
    out-dir); ``workers``: processes (0: automatic); a degenerate LLM's answers
    (:mod:`judges.attest.degenerate`) are not used (the citations keep the support model's
    judgment, a warning says so), are an error with ``strict_llm``, used with ``use_degenerate_llm``;
    ``progress(n)`` advances a bar; ``first_pass``: the first pass before a plan, already judged
    (by topic shards, in one process's order: :func:`judges.shards.merge`)."""
    progress = progress or (lambda n, total=None: None)
    settings = Settings(
        workflow,
        inputs.workflow_path,
        inputs.dataset,
        inputs.corpus is not None,
        llm,
        Path(cache_dir or outputs.out_dir),
    )
    _check_attestation(inputs, settings, strict_llm, warn)
    if inputs.corpus is not None and not docstore.is_store(inputs.corpus):
        docstore.corpus_files(inputs.corpus)  # a file, or a directory of JSONL(.gz) files: else one error line
    described = describe_inputs(inputs)
    input_files = _input_files(inputs, workflow, described)
    targets = output_targets(outputs, workflow)
    if inputs.nuggets is not None:  # the nugget stage's files (judges.nuggets.session)
        from judges.nuggets.session import targets as nugget_targets

        targets.update(nugget_targets(outputs.out_dir, outputs.name))
    check_targets(targets, input_files)
    log_path = outputs.log_path
    stale_log = outputs.default_log if log_path is None else None  # --no-debug-log
    if stale_log is not None and os.path.realpath(stale_log) in {os.path.realpath(p) for p in input_files}:
        stale_log = None
    outset = OutputSet(Path(outputs.out_dir), outputs.name, [log_path.parent] if log_path is not None else [])
    session = _Session(inputs, outputs, settings, workers, strict_llm, Summary(), outset, warn, progress)
    session.first_pass = first_pass
    session.use_degenerate_llm = use_degenerate_llm
    try:
        session.run(stale_log, described)
    except KeyboardInterrupt as e:
        raise Interrupted(outset.committed, getattr(e, "signum", 2)) from None
    if log_path is not None:
        session.summary.files["debug_log"] = str(log_path)
    return session.summary


def questions(
    inputs: Inputs,
    workflow: Workflow,
    ask: Callable,
    *,
    llm: Endpoint,
    cache_dir: Path,
    warn: Callable[[str], None] = lambda msg: None,
    progress=None,
) -> Summary:
    """Judge ``inputs`` as :func:`run` does, in this process, up to the LLM: the questions the
    answer cache in ``cache_dir`` does not answer go to ``ask`` (an asker,
    :data:`judges.attest.client.Asker`), not to ``llm``, whose model names them. Nothing is
    written (``attest export``). Returns the summary: runs, topics, counts and plan."""
    progress = progress or (lambda n, total=None: None)
    settings = Settings(workflow, inputs.workflow_path, inputs.dataset, inputs.corpus is not None, llm, cache_dir, ask)
    _check_attestation(inputs, settings, False, warn)
    session = _Session(inputs, None, settings, 1, False, Summary(), None, warn, progress)
    with contextlib.ExitStack() as stack:
        log = DebugLog(None)
        topics, scan, corpus = session.load(stack, Problems(inputs.on_error, log, session.summary.counts, warn))
        for part in session.judge(scan, corpus, topics, log):
            session.summary.counts.update(part.counts)
        del corpus
        nuggets = session.judge_nuggets(scan, log)  # the nugget pairs' questions too (--nuggets)
        if nuggets is not None and nuggets.attest:
            session.summary.attest = {"nuggets": nuggets.attest}
    return session.summary


def _check_attestation(inputs: Inputs, settings: Settings, strict_llm: bool, warn, asks: bool = True) -> None:
    """Refuse, before anything is read, an attestation the session cannot carry out (``asks``:
    the session asks the LLM; a topic shard only judges the first pass)."""
    attest, where = settings.workflow.attest, inputs.workflow_path or "workflow"
    if attest.mode != "none" and settings.llm is None and asks:
        raise InputError(
            where, None, "attest.mode", f"{attest.mode!r} needs an LLM endpoint: pass --use-env-llm or --llm-config"
        )
    if attest.mode != "none" and asks:
        try:  # the attester's question is a dspy signature: fail before judging, not after
            import dspy  # noqa: F401
        except ImportError:
            why = f"{attest.mode!r} needs dspy, which is not installed: {install_extra('attest')}"
            raise InputError(where, None, "attest.mode", why) from None
    if attest.mode == "uncertain" and not is_probabilistic(settings.workflow.support.judge):
        why = "uncertain needs support.judge: model (its probabilities); or use mode all"
        raise InputError(where, None, "attest.mode", why)
    if attest.mode == "none" and settings.llm is not None:
        warn("an LLM endpoint was given but the workflow's attest.mode is none: no LLM calls are made")
    if attest.mode == "none" and strict_llm:
        warn("--strict-llm: the workflow's attest.mode is none, so there is no LLM to check")


def _plan(parts: list[Part], workflow: Workflow, scan: Scan) -> Plan:
    """The session's plan from the first pass's parts (:func:`judges.plan.attest_plan`)."""
    table = pa.concat_tables([p.assessments for p in parts])
    return attest_plan(table, {run: len(topics) for run, topics in scan.answered.items()}, workflow)


def _input_files(inputs: Inputs, workflow: Workflow, described: dict) -> list[Path]:
    files = [Path(p) for key in ("topics", "responses") for p in described[key]]
    if inputs.corpus is not None:  # a file, a docstore, or a directory of corpus files
        corpus = Path(inputs.corpus)
        files += [corpus] if corpus.is_file() else docstore.corpus_files(corpus)
    if inputs.workflow_path is not None:
        files.append(Path(inputs.workflow_path))
    if inputs.labels:
        from judges.formats.jsonl import discover

        files += discover(list(inputs.labels), "--labels")
    if inputs.nuggets is not None:
        files.append(Path(inputs.nuggets))
        if inputs.nugget_model.endswith(".json") or "/" in inputs.nugget_model:
            files.append(Path(inputs.nugget_model))
    model = Path(workflow.support.model)
    if model.suffix and model.is_file():  # a calibrated model file, not a built-in name
        files.append(model)
    return files


class _Session:
    """One run of :func:`run`, stage by stage: load and validate, judge (with a plan: judge
    without the LLM, plan, judge asking it), merge, write."""

    def __init__(self, inputs, outputs, settings, workers, strict_llm, summary, outset, warn, progress):
        self.inputs, self.outputs, self.settings = inputs, outputs, settings
        self.wanted_workers, self.strict_llm, self.summary = workers, strict_llm, summary
        self.outset, self.warn, self.progress = outset, warn, progress
        self.workers: Optional[Workers] = None
        self.labels: Optional[dict] = None
        self.label_files = None  # the --labels files as read (judges.meta.labels.LabelFiles)
        self.first_pass: Optional[list[Part]] = None  # judged already (by topic shards)
        self.hashed_inputs: Optional[dict] = None  # the inputs with their sha256, when known already
        self.nuggets = None  # the nugget bank file's contents (--nuggets), read with the other inputs
        self.judged_nuggets = None  # the nugget stage's result (judges.nuggets.session.NuggetResult)
        self.use_degenerate_llm = False  # a degenerate LLM's answers are used all the same

    def run(self, stale_log, described: dict) -> None:
        log_path = self.outputs.log_path
        with contextlib.ExitStack() as stack:
            log = DebugLog.deferred() if log_path is not None else DebugLog(None)
            stack.push(log.ended)
            problems = Problems(self.inputs.on_error, log, self.summary.counts, self.warn)
            log.event(
                "session_start",
                version=__version__,
                backend=self.settings.workflow.alignment.backend,
                name=self.outputs.name,
                workers=self.wanted_workers,
                workflow=self.settings.workflow.model_dump(),
                inputs=described,
            )
            topics, scan, corpus = self.load(stack, problems)  # nothing is created before this passes
            stack.enter_context(self.outset)  # creates and locks the out-dir, recovers, makes the staging directory
            if log_path is not None:
                log.start(self.outset.stage(log_path))
            elif stale_log is not None:  # --no-debug-log: the previous set's log goes with it
                self.outset.remove(stale_log)
            parts = self.judge(scan, corpus, topics, log)
            del corpus
            self.judged_nuggets = self.judge_nuggets(scan, log)
            if self.outset.durable:
                log.sync_soon()  # the judged citations' events go to disk while the outputs are written
            return_freed_memory()  # the judged documents' memory, before the outputs are built
            self.write(parts, scan, topics, log)

    # -- 1. load and validate ---------------------------------------------------------------
    def load(self, stack: contextlib.ExitStack, problems: Problems) -> tuple[dict, Scan, dict]:
        inputs, counts = self.inputs, self.summary.counts
        left_out: set[str] = set()  # the topics --max-topics leaves out
        topics = load_topics(inputs.topics, problems, inputs.max_topics, inputs.responses, left_out)
        self.summary.topics = len(topics)
        counted = self.start_workers(stack, len(topics))
        workflow = self.settings.workflow
        limit = workflow.citations.max_per_sentence
        scan = scan_runs(inputs, limit, topics, problems, counts, self.warn, counted, left_out)
        self.summary.runs = list(scan.runs)
        if not scan.runs:
            where = ", ".join(map(str, inputs.responses))
            raise InputError(where, None, "--rag-responses", f"no report to judge in {len(scan.files)} run file(s)")
        check_missing_topics(inputs, workflow, topics, scan)
        corpus: dict[str, Document] = {}
        wanted = set().union(*scan.wanted_docs.values()) if scan.wanted_docs else set()
        if wanted and inputs.corpus is not None:
            corpus = read_corpus(inputs.corpus, wanted, lambda e: problems(e, "corpus line"))
            counts[CORPUS_DOCUMENTS] = sum(isinstance(d, Document) for d in corpus.values())
        check_resolvable(inputs, scan, corpus)
        self.load_labels()
        if inputs.nuggets is not None:  # read (and validated) before anything is written
            from judges.nuggets.model import load_model
            from judges.nuggets.session import load

            self.nuggets = load(inputs.nuggets)
            load_model(inputs.nugget_model)  # a bad model file: one error line now
        return topics, scan, corpus

    def load_labels(self) -> None:
        if self.inputs.labels:  # pandas: only with labels
            from judges.meta.labels import read_label_files

            found = self.label_files = read_label_files(self.inputs.labels)  # sources: each label's file and line
            self.labels = found.statuses
            self.summary.labels = {"in_effect": len(found.statuses), "files": found.counts()}

    def start_workers(self, stack: contextlib.ExitStack, n_topics: int) -> Optional[Callable[[int], None]]:
        """Workers start as early as they are known to be wanted, so that their start-up (imports,
        kernels) overlaps the first pass over the runs and the corpus read: with ``workers > 1``
        now, automatically (``workers == 0``) once the first pass has counted
        :data:`AUTO_PARALLEL_CITATIONS` citations (the callback returned for the first pass)."""
        wanted = self.wanted_workers

        def start(n: int) -> None:
            if self.workers is None and n > 1:
                self.workers = stack.enter_context(Workers(self.settings, n))

        if wanted > 1:
            n = min(wanted, n_topics)
            if n < wanted:
                self.warn(f"--workers {wanted}: {n_topics} topic(s) to share, so {n} worker process(es)")
            start(n)
            return None
        auto = min(os.cpu_count() or 1, n_topics) if wanted == 0 else 1  # processes, when it pays
        if auto <= 1:
            return None
        return lambda citations: start(auto) if citations >= AUTO_PARALLEL_CITATIONS else None

    # -- 2. judge ------------------------------------------------------------------------------
    def judge(self, scan: Scan, corpus: dict, topics: dict, log: DebugLog) -> list[Part]:
        attest = self.settings.workflow.attest
        planning = attest.mode == "uncertain" and attest.band is None
        refit = self.refit_wanted()
        self.progress(0, total=scan.citations * (1 + planning + refit))
        self.summary.processes = self.processes(scan.citations)
        plan = None
        first = self.refit_support(scan, corpus, topics) if refit else self.first_pass
        if planning:
            if first is None:
                first = self.judge_pass(
                    self.settings.without_llm(), scan, corpus, topics, DebugLog(None), keep_corpus=True
                )
            else:
                self.progress(scan.citations)
            plan = self.summary.plan = _plan(first, self.settings.workflow, scan)
            log.event("PLAN", **plan.describe())
        guard = attest.mode != "none" and not (self.strict_llm or self.use_degenerate_llm) and self.outset is not None
        parts = self.judge_pass(self.settings, scan, corpus, topics, log, plan, keep_corpus=guard)  # consumes corpus
        if guard:
            parts = self.unless_degenerate(parts, first if planning else None, scan, corpus, topics)
        return parts

    def refit_wanted(self) -> bool:
        """Whether ``--labels`` re-fit the support model to this track (:meth:`refit_support`)."""
        support = self.settings.workflow.support
        return bool(self.labels) and self.inputs.refit_support and is_probabilistic(support.judge)

    def refit_support(self, scan: Scan, corpus: dict, topics: dict) -> Optional[list[Part]]:
        """Fit to the track at hand (:func:`judges.meta.calibrate.refit_to_labels`): the session
        judged without the LLM (or the first pass given), the support model's intercepts re-fitted
        on its labelled citations, and the session judged from then on with that model. Returns the
        pass without the LLM when it still holds (the model left as it was), else None."""
        from dataclasses import replace

        from judges.meta.calibrate import refit_to_labels
        from judges.meta.labels import citation_probabilities
        from judges.support.model import load_model

        first = self.first_pass  # by topic shards: empty when they left the judging to the merge
        if first is None or not sum(p.assessments.num_rows for p in first):
            first = self.judge_pass(self.settings.without_llm(), scan, corpus, topics, DebugLog(None), keep_corpus=True)
        else:
            self.progress(scan.citations)
        probabilities: dict[tuple, float] = {}
        for labels in self.label_files.files if self.label_files is not None else ():
            for key, p in citation_probabilities(labels).items():  # a citation's label is its first file's
                probabilities.setdefault(key, p)
        model = load_model(self.settings.workflow.support.model, self.settings.workflow_path)
        table = pa.concat_tables([p.assessments for p in first])
        refit, record = refit_to_labels(table, model, probabilities)
        self.summary.labels["support_refit"] = record
        if refit is None:
            return first
        self.settings = replace(self.settings, support_model=refit)
        return None

    def unless_degenerate(self, parts, first, scan, corpus, topics) -> list[Part]:
        """``parts``, or when the LLM's answers look degenerate (:mod:`judges.attest.degenerate`) the
        same judged without them (``first``, the first pass, or judged again): the support model's
        judgment, with the attestation's counts (what was asked, answered and paid) of ``parts``."""
        from judges.attest.cascade import summarize
        from judges.counts import ATTESTATION_PREFIXES

        counts: Counter = Counter()
        for part in parts:
            counts.update(part.counts)
        verdict = summarize(Counter(counts), self.settings.workflow.attest, self.settings.llm)["degenerate"]
        if not verdict:
            return parts
        self.summary.degenerate_not_used = True  # ATTEST_SUMMARY and config.yml say so (used: false)
        model = first
        if model is None:
            model = self.judge_pass(self.settings.without_llm(), scan, corpus, topics, DebugLog(None))
        asked = Counter({k: v for k, v in counts.items() if k.startswith(ATTESTATION_PREFIXES)})
        out = []
        for i, part in enumerate(model):
            kept = Counter({k: v for k, v in part.counts.items() if not k.startswith(ATTESTATION_PREFIXES)})
            out.append(part._replace(counts=kept + asked if i == 0 else kept))
        return out

    def judge_pass(self, settings: Settings, scan, corpus, topics, log, plan=None, keep_corpus=False) -> list[Part]:
        if self.workers is not None:
            stage = self.outset.stage_dir
            return self.workers.judge(
                settings, scan, corpus, topics, log, self.progress, stage, plan, self.labels, keep_corpus
            )
        return [judge_part(settings, scan, corpus, None, log, self.progress, plan, self.labels)]

    def processes(self, citations: int) -> str:
        """How many processes judged, and why (a line of the summary)."""
        workers, wanted = self.workers, self.wanted_workers
        chosen = f"{workers.n} worker processes" if workers is not None else "1 process"
        if wanted:
            return f"{chosen} (--workers {wanted})"
        if workers is not None:
            return f"{chosen} (automatic: {citations:,} citations >= {AUTO_PARALLEL_CITATIONS:,})"
        return f"{chosen} (automatic: {citations:,} citations < {AUTO_PARALLEL_CITATIONS:,})"

    def judge_nuggets(self, scan: Scan, log: DebugLog):
        """The nugget stage (``--nuggets``): every answer against its topic's nuggets."""
        if self.nuggets is None:
            return None
        from judges.nuggets.session import judge_nuggets

        max_citations = self.settings.workflow.citations.max_per_sentence
        inputs = self.inputs
        return judge_nuggets(
            self.nuggets,
            scan,
            inputs.dataset,
            max_citations,
            log,
            self.summary.warnings.append,
            inputs.nugget_model,
            self.settings,  # the nugget pairs' cascade: attest, llm, cache, asker
            self.strict_llm,
            self.use_degenerate_llm,
            None if self.label_files is None else self.label_files.nuggets,  # nugget assignments in effect
        )

    # -- 3. merge (topic groups are disjoint) and write --------------------------------------
    def write(self, parts: list[Part], scan: Scan, topics: dict, log: DebugLog) -> None:
        summary, counts = self.summary, self.summary.counts
        per_topic = {k: v for part in parts for k, v in part.per_topic.items()}
        measures, nuggets = None, self.judged_nuggets
        if nuggets is not None:
            from judges.measures import MEASURE_NAMES
            from judges.nuggets import session as nugget_session

            nugget_session.merge_measures(per_topic, nuggets, self.inputs.judge)
            summary.files.update(
                nugget_session.write(nuggets, self.outputs.out_dir, self.outputs.name, self.outset.stage)
            )
            measures = nugget_session.measures_of(self.inputs.judge, MEASURE_NAMES)
        for part in parts:
            counts.update(part.counts)
        self.summarize_attestation(log)
        if nuggets is not None and nuggets.attest:  # the nugget pairs' questions, beside the citations'
            summary.attest["nuggets"] = nuggets.attest
        if nuggets is not None and nuggets.labelled:  # nugget assignments in effect (--labels)
            summary.labels["nugget_pairs"] = nuggets.labelled
        table = pa.concat_tables([p.assessments for p in parts])
        del parts
        counted = {item["values"]: item["counts"] for item in pc.value_counts(table.column("status")).to_pylist()}
        for status in STATUSES:  # in the vocabulary's order, whatever the rows' order
            if status in counted:
                summary.statuses[status] = counted[status]
        counts[CITATIONS] = table.num_rows
        counts[CAPPED] = int(pc.sum(table.column("capped")).as_py() or 0)
        if self.labels:
            self.count_labels(table)
        write_outputs(
            self.inputs,
            self.outputs,
            self.settings.workflow,
            summary,
            per_topic,
            table,
            scan,
            topics,
            self.outset.stage,
            self.hashed_inputs,
            measures,
            None if nuggets is None else nuggets.judged,
        )
        log.event("summary", counts=dict(counts), statuses=dict(summary.statuses), files=summary.files)
        log.close()
        self.outset.commit()

    def summarize_attestation(self, log: DebugLog) -> None:
        attest = self.settings.workflow.attest
        if attest.mode == "none":
            return
        from judges.attest.cascade import summarize

        figures = self.summary.attest = summarize(self.summary.counts, attest, self.settings.llm)
        if figures["degenerate"]:  # config.yml records whether the citations took the answers
            figures["degenerate"]["used"] = not self.summary.degenerate_not_used
        log.event("ATTEST_SUMMARY", **figures)
        if self.strict_llm and figures["degenerate"]:  # before anything is written or replaced
            raise InputError("--strict-llm", None, None, figures["degenerate"]["message"] + " (no output replaced)")

    def count_labels(self, table: pa.Table) -> None:
        labelled = int(pc.sum(pc.is_valid(table.column("human_label"))).as_py() or 0)
        self.summary.counts[HUMAN_LABELLED] = labelled
        self.summary.labels["in_effect"] = labelled
        if labelled < len(self.labels):
            where = ", ".join(str(f["path"]) for f in self.summary.labels["files"])
            self.summary.warnings.append(
                f"{len(self.labels) - labelled} of the {len(self.labels)} labels in {where} match no "
                "judged citation (run_id, topic_id, sentence_index, doc_id)"
            )
