"""Topic shards and their merge: a track judged by many processes (a SLURM array, a Dask cluster)
and written as one process would have written it.

``--shard K/N`` judges the ``K``-th of ``N`` groups of topics dealt by their citations
(:func:`judges.session.deal.deal`: every shard about as many; the first pass over the runs counts them,
so every shard deals the same groups). Every shard reads and checks all the inputs as one
process does (topics, every run file, the cited documents: so its counts and input errors are the
session's), judges only its topics, in one process, and writes a **partial set**, atomically
(:mod:`judges.formats.outset`, name ``NAME.part-K-of-N``):

* ``OUT/NAME.part-K-of-N.arrow``: an Arrow IPC file (uncompressed, read memory-mapped) holding
  the shard's assessment rows, in its order, its manifest (shard, rows, and the **fingerprint**:
  citejudge version, workflow, input files with their sha256, options, number of shards, LLM
  model), the state the merge needs as plain data (JSON: the first pass over the runs, topics,
  the session's counts, the shard's counts and each report's measures, where each report's rows
  and events are) and the SHA-256 of its content and of its debug log; the layout, and the checks
  made before a part is read, are :mod:`judges.formats.part`'s;
* ``OUT/NAME.part-K-of-N.jsonl``: the shard's debug log (the session's first events, then its
  citations' events), unless ``--no-debug-log``.

Counts are of two kinds: those of reading the inputs (files not read, reports skipped, corpus
documents...) are the session's and identical in every part, so the merge takes them once; those
of judging (reports, sentences, citations beyond the limit) are the shard's and are summed.

:func:`merge` (``run_judge.py merge OUT --name NAME PART...``) checks that the parts are the
``N`` parts of one session (one error line naming the part and the field that differs, the
part missing or the part given twice; nothing written) after checking each (its checksums, a
log cut short, every value's type and range: :func:`judges.formats.part.read`), then writes
only under its out-dir, to the paths it derives from ``--name`` (a debug log the shards were told
to write elsewhere is the merge's ``OUT/NAME.jsonl``: a part's recorded paths are never written to),
and:

* without LLM attestation (``attest.mode: none``) a part holds final judgments: the rows, the
  measures and the debug-log events are put back in the order one process gives them
  (:func:`judges.session.scan.reading_ranks`: every report's place in that order; a shard's reports
  keep it) and written by :mod:`judges.session.writer`. The merge reads no input again;
* with attestation, the shards judged the first pass only (without the LLM; with ``attest.mode:
  all`` or a band there is no first pass, and a shard only checks the inputs). The merge puts the
  first pass in one process's order, plans over it, and judges the second pass itself in one
  session, asking the LLM (or reading the answer cache): the plan, the questions and the LLM
  events are those of one process. It reads the inputs again from the paths in the
  fingerprint, after checking their sha256.

With ``--nuggets`` the merge judges the nugget pairs (:func:`judges.session.pipeline.judge_other_kinds`)
itself, after the citations' events, over the runs and the nugget bank read again from the
paths in the fingerprint (after checking their sha256); the shards judge citations only.

Either way the output set is byte for byte the one of one process (``--workers 1``) with the
same options over all topics, debug log included apart from its timestamps.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import mmap
import os
import threading
import re
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple, Optional

import numpy as np
import pyarrow as pa

from judges.version import __version__
from judges.core.config import Workflow
from judges.core.errors import InputError
from judges.formats import part as partfile
from judges.formats import tables
from judges.formats.debuglog import DebugLog
from judges.formats.outset import OutputSet
from judges.core.counts import CITATIONS
from judges.session.deal import deal, topic_work
from judges.engine.judge import Part
from judges.session import pipeline
from judges.session.options import RunOptions
from judges.session.pipeline import run
from judges.session.staging import Staged
from judges.core.records import Topic
from judges.session.scan import Scan, reading_ranks
from judges.session.spec import Inputs, Outputs, Summary

PART_SUFFIX, LOG_SUFFIX = partfile.PART_SUFFIX, partfile.LOG_SUFFIX
LET_GO_ABOVE = 3 << 29  # bytes (1.5 GiB) of resident memory above which a merge lets go of the parts' pages
_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` as ``(K, N)``, 1 <= K <= N (an :class:`InputError` otherwise)."""
    m = _SHARD.fullmatch(text or "")
    if m is None or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise InputError("--shard", None, None, f"{text!r} is not K/N with 1 <= K <= N (e.g. 2/8)")
    return int(m.group(1)), int(m.group(2))


def part_name(name: str, k: int, n: int) -> str:
    return f"{name}.part-{k}-of-{n}"


def part_path(out_dir: Path, name: str, k: int, n: int) -> Path:
    """Where shard ``k`` of ``n`` writes its partial set (the Arrow file; its log is beside it)."""
    return Path(out_dir) / f"{part_name(name, k, n)}{PART_SUFFIX}"


def fingerprint(inputs: Inputs, outputs: Outputs, workflow: Workflow, hashed: dict, n: int, workers, model) -> dict:
    """What the parts of one session share: any difference makes a part another session's."""
    return {
        "citejudge": __version__,
        "name": outputs.name,
        "shards": n,
        "workflow": workflow.model_dump(mode="json"),
        "inputs": hashed,
        "options": {
            "dataset": inputs.dataset,
            "on_error": inputs.on_error,
            "max_topics": inputs.max_topics,
            "max_runs": inputs.max_runs,
            "allow_missing_text": inputs.allow_missing_text,
            "allow_few_topics": inputs.allow_few_topics,
            "workers": workers,
        },
        "outputs": {
            "debug_log": None if outputs.debug_log is None else str(outputs.debug_log),
            "no_debug_log": outputs.no_debug_log,
            "leaderboard_formats": list(outputs.leaderboard_formats),
        },
        "model": model,
    }


# -- a shard -----------------------------------------------------------------------------------
def judge_shard(
    inputs: Inputs,
    outputs: Outputs,
    workflow: Workflow,
    shard: tuple[int, int],
    options: RunOptions = RunOptions(),
    *,
    durable: bool = True,
) -> Summary:
    """Judge shard ``shard = (K, N)`` of the session and write its partial set (module doc).
    Of ``options``, ``workers`` is recorded only (a shard is one process) and so is the ``llm``'s
    model (the LLM the merge will ask; the shard asks none); ``durable=False``: the part is not
    synced to disk (a Dask task's, merged within the session)."""
    k, n = shard
    settings = inputs.settings(workflow)
    logged = outputs.log_path is not None and workflow.attest.mode == "none"
    path = part_path(outputs.out_dir, outputs.name, k, n)
    log_path = path.with_suffix(LOG_SUFFIX)
    own = Outputs(path.parent, outputs.name, log_path, not logged)  # the session's name: logged
    targets = {"part": (path, "--out-dir")}
    if logged:
        targets["debug_log"] = (log_path, "--out-dir")
    outset = OutputSet(path.parent, part_name(outputs.name, k, n), durable=durable)
    one = dataclasses.replace(options, workers=1)  # this process judges the shard
    session = pipeline.check(inputs, own, settings, one, asks=False, targets=targets, outset=outset)
    with Staged(outset, log_path if logged else None) as staged:
        log = staged.log
        pipeline.session_start(session, log, workers=options.workers)
        loaded = pipeline.load(session, staged, log, start_workers=False)  # one process: one process's order
        staged.open_set()
        head = log.tell()
        part, processes = _judge_topics(session, loaded, log, k, n)
        staged.judged()  # the judged citations' events go to disk while the part is written
        summary = _write_part(session, loaded, Judging(part, processes, head, shard, outputs, options), log)
    return summary


def _judge_topics(session: pipeline.Session, loaded: pipeline.Loaded, log: DebugLog, k: int, n: int):
    """Shard ``k`` of ``n``'s topics judged in this process (their final judgments without
    attestation, else the first pass before a plan, or nothing: the merge judges it all); the part
    and the summary's line of processes."""
    topics = loaded.topics
    mine = deal(topics, topic_work(loaded.scan.report_citations), n)[k - 1]
    settings = session.settings
    attest = settings.workflow.attest
    processes = f"1 process (shard {k} of {n}: {len(mine)} of {len(topics)} topics)"
    if attest.mode != "none" and not (attest.mode == "uncertain" and attest.band is None):
        return Part({}, tables.ASSESSMENT_SCHEMA.empty_table(), Counter(), []), processes  # the merge judges it all
    citations = loaded.scan.report_citations
    session.options.progress(0, total=sum(c for (_, t), c in citations.items() if t in mine))
    if attest.mode != "none":  # the first pass, logged nowhere
        settings, log = settings.without_llm(), DebugLog(None)
    (part,) = pipeline.judge_pass(session, loaded, settings, log, shard=mine)
    return part, processes


class Judging(NamedTuple):
    """What a shard judged and what its part records of the session: the part, the summary's line
    of processes, where its events start in its log, ``(K, N)``, the session's outputs and how
    the session runs (its workers and LLM model go into the fingerprint)."""

    part: Part
    processes: str
    head: int
    shard: tuple[int, int]
    recorded: Outputs
    options: RunOptions


def _write_part(session, loaded, judging: Judging, log: DebugLog):
    """The shard's partial set: its rows, manifest and state (:func:`state_data`), and its log."""
    from judges.session.writer import describe_inputs

    part, head, shard, recorded = judging.part, judging.head, judging.shard, judging.recorded
    workers, model = judging.options.workers, judging.options.model
    inputs, counts = session.inputs, loaded.counts
    hashed = describe_inputs(inputs, with_hashes=True)
    k, n = shard
    manifest = {
        "format": partfile.FORMAT,
        "shard": [k, n],
        "rows": part.assessments.num_rows,
        "fingerprint": fingerprint(inputs, recorded, session.settings.workflow, hashed, n, workers, model),
    }
    assert part.placed is not None  # judged as a shard: placed (judge_pass)
    placed = _where(part.placed, reading_ranks(loaded.scan), head)
    state = state_data(inputs, recorded, loaded.scan, loaded.topics, counts, part, placed, head)
    log.close()
    outset = session.outset
    assert outset is not None
    path = part_path(outset.out_dir, recorded.name, k, n)
    partfile.write(outset.stage(path), part.assessments, manifest, state, log.file)
    counts.update(part.counts)
    counts[CITATIONS] = part.assessments.num_rows
    outset.commit()
    labels = loaded.labels
    logged = session.outputs.log_path if session.outputs is not None else None  # the part's log, when kept
    return Summary(
        counts=counts,
        runs=list(loaded.scan.runs),
        topics=len(loaded.topics),
        files={"part": str(path), **({"debug_log": str(logged)} if logged is not None else {})},
        processes=judging.processes,
        labels={"in_effect": len(labels.statuses), "files": labels.counts()} if labels is not None else {},
    )


class Placed(NamedTuple):
    """Where a part's reports are: per report (in the part's order) its rank in one process's
    order, its first row and rows, and the byte range of its events in the part's log."""

    rank: np.ndarray
    row: np.ndarray
    rows: np.ndarray
    log_start: np.ndarray
    log_end: np.ndarray


def _where(placed: list[tuple[str, int, int, int]], ranks: dict, head: int) -> Placed:
    rank = np.array([ranks[path, offset] for path, offset, _, _ in placed], dtype=np.int64)
    rows = np.array([r for _, _, r, _ in placed], dtype=np.int64)
    row = np.concatenate([[0], np.cumsum(rows)[:-1]]).astype(np.int64) if len(rows) else rows
    start, end = np.empty_like(rows), np.empty_like(rows)
    at = head
    for i, (_, _, _, logged_to) in enumerate(placed):
        start[i] = at
        at = end[i] = max(logged_to, at)  # -1: it logged nothing
    return Placed(rank, row, rows, start, end)


# -- the state as plain data (judges.formats.part.STATE_SHAPE) ------------------------------------
def state_data(
    inputs: Inputs, outputs: Outputs, scan: Scan, topics: dict, counts: Counter, part: Part, placed: Placed, head: int
) -> dict:
    """What the merge needs of a shard's session, as plain data (the workflow and the hashed
    inputs are the fingerprint's)."""
    return {
        "inputs": {
            "topics": [str(p) for p in inputs.topics],
            "responses": [str(p) for p in inputs.responses],
            **{k: _text(getattr(inputs, k)) for k in ("corpus", "workflow_path")},
            "labels": [str(p) for p in inputs.labels],
            "dataset": inputs.dataset,
            "max_topics": inputs.max_topics,
            "max_runs": inputs.max_runs,
            "on_error": inputs.on_error,
            "allow_missing_text": inputs.allow_missing_text,
            "allow_few_topics": inputs.allow_few_topics,
            "headline": inputs.headline,
            **(
                {"nuggets": str(inputs.nuggets), "judge": inputs.judge, "nugget_model": inputs.nugget_model}
                if inputs.nuggets is not None
                else {}
            ),
            # the battles are the merge's, as the nuggets (judges.session.battles)
            **(
                {"judge": inputs.judge, "battle_opponents": inputs.battle_opponents} if inputs.judge == "battle" else {}
            ),
        },
        "outputs": {
            "out_dir": str(outputs.out_dir),
            "name": outputs.name,
            "debug_log": _text(outputs.debug_log),
            "no_debug_log": outputs.no_debug_log,
            "leaderboard_formats": list(outputs.leaderboard_formats),
        },
        "scan": {
            "files": [str(p) for p in scan.files],
            "runs": list(scan.runs),
            "answered": [[run, sorted(ts)] for run, ts in scan.answered.items()],
            "citations": scan.citations,
            "report_citations": [[run, topic, n] for (run, topic), n in scan.report_citations.items()],
            "coverage": [[run, [[k, v] for k, v in c.items()]] for run, c in scan.coverage.items()],
            "without_text": [[doc_id, n] for doc_id, n in scan.without_text.items()],
        },
        "topics": [list(t) for t in topics.values()],
        "counts": [[k, v] for k, v in counts.items()],  # of reading the inputs: the session's
        "judged": [[k, v] for k, v in part.counts.items()],  # of judging: the shard's
        "head": head,
        "per_topic": [[run, topic, values] for (run, topic), values in part.per_topic.items()],
        "placed": {k: v.tolist() for k, v in placed._asdict().items()},
    }


def _text(path: Optional[Path]) -> Optional[str]:
    return None if path is None else str(path)


def _path(text: Optional[str]) -> Optional[Path]:
    return None if text is None else Path(text)


def state_objects(part: partfile.Part) -> dict:
    """A part's state (checked plain data) as the objects the merge works with."""
    data, fp = part.state, part.manifest["fingerprint"]
    i, o, sc = data["inputs"], data["outputs"], data["scan"]
    try:
        workflow = Workflow.model_validate(fp["workflow"])
    except ValueError as e:  # pydantic's ValidationError
        raise InputError(part.path, None, "fingerprint.workflow", str(e).splitlines()[0]) from None
    inputs = Inputs(
        topics=[Path(p) for p in i["topics"]],
        responses=[Path(p) for p in i["responses"]],
        corpus=_path(i["corpus"]),
        workflow_path=_path(i["workflow_path"]),
        labels=tuple(Path(p) for p in i["labels"]),
        dataset=i["dataset"],
        max_topics=i["max_topics"],
        max_runs=i["max_runs"],
        on_error=i["on_error"],
        allow_missing_text=i["allow_missing_text"],
        allow_few_topics=i.get("allow_few_topics", False),
        headline=i.get("headline"),
        nuggets=_path(i.get("nuggets")),
        judge=i.get("judge", "citation"),
        battle_opponents=i.get("battle_opponents"),
        nugget_model=i.get("nugget_model", "rag24"),
    )
    outputs = Outputs(
        Path(o["out_dir"]),
        o["name"],
        _path(o["debug_log"]),
        o["no_debug_log"],
        tuple(o["leaderboard_formats"]),
    )
    scan = Scan(
        files=[Path(p) for p in sc["files"]],
        reports={},
        runs=list(sc["runs"]),
        answered={run: set(ts) for run, ts in sc["answered"]},
        wanted_docs={},
        citations=sc["citations"],
        report_citations={(run, topic): n for run, topic, n in sc["report_citations"]},
        coverage={run: Counter(dict(c)) for run, c in sc["coverage"]},
        without_text=Counter(dict(sc["without_text"])),
    )
    placed = Placed(*(np.array(data["placed"][k], dtype=np.int64) for k in Placed._fields))
    return {
        "inputs": inputs,
        "outputs": outputs,
        "workflow": workflow,
        "hashed": fp["inputs"],
        "scan": scan,
        "topics": {t[0]: Topic(*t) for t in data["topics"]},
        "counts": dict(data["counts"]),
        "judged": dict(data["judged"]),
        "per_topic": [((run, topic), values) for run, topic, values in data["per_topic"]],
        "placed": placed,
        "head": data["head"],
    }


# -- reading parts ------------------------------------------------------------------------------
def _differs(a, b, field: str) -> Optional[str]:
    """The first field (dotted) where ``a`` and ``b`` differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            found = _differs(a.get(key), b.get(key), f"{field}.{key}")
            if found:
                return found
        return None
    return None if a == b else field


def read_parts(paths: list[Path], name: str) -> list[partfile.Part]:
    """The parts of one session, ordered by shard, each checked (:func:`judges.formats.part.read`),
    then: one error for a part of another session (the field that differs), a part given twice or
    a part missing."""
    with ThreadPoolExecutor(max(1, min(len(paths), os.cpu_count() or 1)), thread_name_prefix="part") as pool:
        parts = list(pool.map(partfile.read, paths))  # hashed side by side (hashlib lets go of the GIL)
    if not parts:
        raise InputError("merge", None, "PART", "no part given")
    first = parts[0]
    for part in parts:
        field = _differs(part.manifest["fingerprint"], first.manifest["fingerprint"], "fingerprint")
        if field:
            value = _at(part.manifest, field)
            expected = _at(first.manifest, field)
            raise InputError(
                part.path,
                None,
                field,
                f"{_short(value)} differs from {_short(expected)} in {first.path}: a part of another session",
            )
    for part in parts[1:]:  # what every shard read alike: the session's runs and topics
        for field in ("topics", "scan.runs"):  # (their outputs: the fingerprint's, compared above)
            if _at(part.state, field) != _at(first.state, field):
                raise InputError(
                    part.path, None, f"state.{field}", f"differs from {first.path}'s: parts of one session share it"
                )
    n = first.manifest["fingerprint"]["shards"]
    if first.manifest["fingerprint"]["name"] != name:
        raise InputError(
            "--name", None, None, f"{name!r}, but the parts were judged as {first.manifest['fingerprint']['name']!r}"
        )
    by_k: dict[int, partfile.Part] = {}
    for part in parts:
        k, of = part.manifest["shard"]
        if of != n or not 1 <= k <= n:
            raise InputError(part.path, None, "shard", f"{k} of {of}, in a session of {n} shards")
        if k in by_k:
            same = os.path.realpath(by_k[k].path) == os.path.realpath(part.path)
            twice = "the same file given twice" if same else f"also {by_k[k].path}"
            raise InputError(part.path, None, "shard", f"part {k} of {n} given twice ({twice})")
        by_k[k] = part
    missing = [k for k in range(1, n + 1) if k not in by_k]
    if missing:
        where = part_path(first.path.parent, name, missing[0], n)
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise InputError(where, None, "PART", f"part {missing[0]} of {n} missing{more}: nothing written")
    return [by_k[k] for k in range(1, n + 1)]


def _at(manifest: dict, dotted: str):
    value: object = manifest
    for key in dotted.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _short(value, limit: int = 80) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- the merge ------------------------------------------------------------------------------------
class _Merged(NamedTuple):
    part: Part  # rows, measures and counts in one process's order
    log_ranges: list[tuple[Path, int, int]]  # the parts' events to copy, in order


def _in_order(parts: list[partfile.Part], states: list[dict], rows_in_order: bool) -> _Merged:
    """The parts' measures and log events in the order one process gives them, and their rows:
    in that order too if ``rows_in_order`` (a plan is made over them), else part after part (what
    the writer makes of the rows does not depend on their order: it sorts them, counts them and
    groups them; and a table of a few whole parts is gathered much faster than one of a slice per
    report)."""
    placed = [s["placed"] for s in states]
    which = np.concatenate([np.full(len(p.rank), i, dtype=np.int64) for i, p in enumerate(placed)])
    index = np.concatenate([np.arange(len(p.rank), dtype=np.int64) for p in placed])
    order = np.argsort(np.concatenate([p.rank for p in placed]), kind="stable")
    if len(set(np.concatenate([p.rank for p in placed]).tolist())) != len(order):
        raise InputError(parts[0].path, None, "state.placed.rank", "a report placed twice among the parts")
    tables_ = [p.table for p in parts]
    slices: list[list[int]] = []  # [part, first row, rows]
    logs: list[list] = []  # [part, start, end]
    per_topic: dict = {}
    measures = [s["per_topic"] for s in states]
    for i, j in zip(which[order].tolist(), index[order].tolist()):
        p = placed[i]
        row, rows, start, end = int(p.row[j]), int(p.rows[j]), int(p.log_start[j]), int(p.log_end[j])
        key, values = measures[i][j]
        per_topic[key] = values
        if rows and rows_in_order:
            if slices and slices[-1][0] == i and slices[-1][1] + slices[-1][2] == row:
                slices[-1][2] += rows
            else:
                slices.append([i, row, rows])
        if end > start:
            if logs and logs[-1][0] == i and logs[-1][2] == start:
                logs[-1][2] = end
            else:
                logs.append([i, start, end])
    if rows_in_order:
        table = pa.concat_tables([tables_[i].slice(row, rows) for i, row, rows in slices] or [tables_[0].slice(0, 0)])
    else:
        table = pa.concat_tables(tables_)
    judged: Counter = Counter()
    for s in states:
        judged.update(s["judged"])
    return _Merged(Part(per_topic, table, judged), [(parts[i].log, a, b) for i, a, b in logs])


def merge(
    paths: list[Path],
    out_dir: Path,
    name: str,
    options: RunOptions = RunOptions(),
    *,
    debug_log: Optional[Path] = None,
) -> Summary:
    """Merge the partial sets at ``paths`` into the output set ``out_dir``/``name`` (module doc).
    ``options``: how the merge runs (its ``workers`` are the shards' recorded ones);
    ``debug_log``: where the caller wants the debug log (None: ``OUT/NAME.jsonl``); the path a part
    recorded is never used."""
    parts = read_parts(paths, name)
    states = [state_objects(p) for p in parts]
    first = states[0]
    inputs, workflow = first["inputs"], first["workflow"]
    recorded = first["outputs"]  # the shards' paths are never written to: the merge's own, under its out-dir
    outputs = Outputs(Path(out_dir), name, debug_log, recorded.no_debug_log, recorded.leaderboard_formats)
    recorded_workers = parts[0].manifest["fingerprint"]["options"]["workers"]
    options = dataclasses.replace(options, workers=recorded_workers)
    merged = _in_order(parts, states, rows_in_order=workflow.attest.mode != "none")
    if workflow.attest.mode == "none":
        return _write_merged(parts, first, merged, Merging(inputs, outputs, workflow, options))
    model, llm = parts[0].manifest["fingerprint"]["model"], options.llm
    if llm is not None and model is not None and llm.model != model:
        raise InputError("--llm-config/--use-env-llm", None, None, f"model {llm.model!r}, the parts {model!r}")
    _check_unchanged(inputs, first["hashed"])
    return run(inputs, outputs, workflow, options, first_pass=[merged.part])


def _check_unchanged(inputs: Inputs, hashed: dict) -> None:
    """The merge judges again from the inputs: they must be the files the shards read."""
    from judges.session.writer import describe_inputs

    now = describe_inputs(inputs, with_hashes=True)
    field = _differs(now, hashed, "inputs")
    if field:
        files = _changed_files(_at({"inputs": now}, field), _at({"inputs": hashed}, field))
        what = "; ".join(files) if files else _short(_at({"inputs": now}, field))
        raise InputError(field, None, None, f"the input files changed since the shards read them: {what}")


def _changed_files(now, then) -> list[str]:
    """The files (``{path, sha256}`` entries of :func:`describe_inputs`, alone or in a list) whose
    hash differs from the shards', or that the shards did not read, each with what changed."""
    now = now if isinstance(now, list) else [now]
    then = {e.get("path"): e.get("sha256") for e in (then if isinstance(then, list) else [then]) if isinstance(e, dict)}
    changed = []
    for entry in now:
        if not isinstance(entry, dict) or "path" not in entry or "sha256" not in entry:
            return []  # not a file entry (a directory store, records in memory): the field says it
        if entry["path"] not in then:
            changed.append(f"{entry['path']} (not read by the shards)")
        elif then[entry["path"]] != entry["sha256"]:
            changed.append(f"{entry['path']} (sha256 differs)")
    seen = {e["path"] for e in now}
    return changed + [f"{path} (gone)" for path in then if path not in seen]


class _LetGo:
    """While the merged set is written, the parts' pages are let go of (``MADV_DONTNEED``)
    whenever the process's resident memory goes above ``budget`` bytes (looked at every ``every``
    seconds): they stay in the page cache and come back when read again, so the merge holds in
    memory what the writer is reading, not the whole of every part (a large track's parts are
    0.7 GB), and reads them again only when memory is short (letting go every quarter second,
    whatever the memory, cost a tenth of the merge's time)."""

    def __init__(self, parts: list[partfile.Part], budget: int = LET_GO_ABOVE, every: float = 0.1):
        self.maps, self.budget, self.every = [p.mapped for p in parts], budget, every
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, name="let-go", daemon=True)

    def _run(self) -> None:
        while not self.done.wait(self.every):
            if _resident() > self.budget:
                for m in self.maps:
                    m.madvise(mmap.MADV_DONTNEED)

    def __enter__(self) -> "_LetGo":
        if hasattr(mmap, "MADV_DONTNEED"):
            self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        if self.thread.is_alive():
            self.thread.join()


def _resident() -> int:
    """This process's resident memory in bytes (Linux); where unknown, more than any budget."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * mmap.PAGESIZE
    except (OSError, ValueError, IndexError):
        return 1 << 62


class Merging(NamedTuple):
    """What a merge writes: the shards' inputs and workflow, its own outputs, and how it runs."""

    inputs: Inputs
    outputs: Outputs
    workflow: Workflow
    options: RunOptions


def _write_merged(parts, first: dict, merged: _Merged, given: Merging) -> Summary:
    """Write the output set of final judgments, as one process's :func:`judges.session.pipeline.write` does."""
    inputs, outputs = given.inputs, given.outputs
    settings = inputs.settings(given.workflow, cache_dir=outputs.out_dir)
    hashed = first["hashed"]
    log_path = outputs.log_path
    session = pipeline.check(inputs, outputs, settings, given.options, hashed=hashed)
    scan, topics = first["scan"], first["topics"]
    loaded = pipeline.Loaded(topics, scan, {}, Counter(first["counts"]), pipeline.read_labels(inputs))
    again = None
    if inputs.nuggets is not None or inputs.judge == "battle":  # the nugget stage and the battles are the merge's
        _check_unchanged(inputs, hashed)
        with contextlib.ExitStack() as reading:  # what the shards warned of is said once
            quiet = dataclasses.replace(session, options=dataclasses.replace(session.options, warn=lambda msg: None))
            again = pipeline.load(quiet, reading, DebugLog(None), start_workers=False)._replace(corpus={})
    rows = merged.part.assessments.num_rows
    session.options.progress(rows, total=rows)
    outset = session.outset
    assert outset is not None  # check: a session with outputs has its set
    with Staged(outset, log_path, stale_log=outputs.default_log, set_first=True) as staged:
        log = staged.log
        if log_path is not None:  # the events in one process's order, copied and synced while the outputs are written
            log.append_ranges([(parts[0].log, 0, first["head"]), *merged.log_ranges], soon=True)
        pairs, warnings = pipeline.judge_other_kinds(session, again, log) if again is not None else ({}, ())
        judged = pipeline.Judged([merged.part], f"{len(parts)} topic shards, merged", pairs=pairs, warnings=warnings)
        with _LetGo(parts):
            summary = pipeline.write(session, loaded, judged, log, hashed_inputs=hashed)
    return summary  # its files name the debug log (pipeline.write)
