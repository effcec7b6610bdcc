"""Writing a session's output set: qrels, leaderboards, coverage, Parquet tables, the intervals
and run pairs (:mod:`judges.scores.intervals`), config.

The pipeline hands :func:`write_outputs` one record (:class:`WriteSet`): what the judge accumulated
(:mod:`judges.engine.assessments`: the assessments table) and what the score stage scored
(:class:`judges.session.score.Scores`: leaderboard rows, intervals, run pairs); the writer only
writes. Qrels are derived from the assessments table
(one row per judged citation), so there is one source of truth: ``NAME.qrels`` keeps, per (topic,
md5 of sentence + citation id), the best grade; ``NAME.doc.qrels`` per (topic, cited document).
Every file is sorted and written into the session's staging directory;
:mod:`judges.formats.outset` replaces the whole set at once. :func:`output_targets` names every
file a session replaces, and :func:`describe_inputs` the input files (for the config record).
"""

from __future__ import annotations

import hashlib
import os
import platform
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from collections import Counter
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Optional, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import yaml

from judges.version import __version__
from judges.core.counts import DOC_QRELS_ROWS, QRELS_ROWS
from judges.core.measures import MEASURE_NAMES, judge_headline
from judges.session.coverage import coverage_rows, missing_warning, write_coverage
from judges.formats import docstore, outputset, tables, trec
from judges.formats.atomic import atomic_path, atomic_text
from judges.formats.jsonl import JSONL_SUFFIXES, discover
from judges.formats.topics import TOPIC_SUFFIXES
from judges.formats.intervals import write_intervals
from judges.core.config import Workflow
from judges.session.score import Scores, assessment_order
from judges.session.spec import Inputs, Outputs
from judges.session.stages import PairOutputs
from judges.core.vocabulary import STATUSES

if TYPE_CHECKING:
    from judges.attest.plan import Plan

SORTED_ROW_GROUP = 65_536  # rows taken (in sorted order) and written at a time


class Tally(NamedTuple):
    """What the judging counted, for the config record: the session's counts and statuses, the
    plan, the labels in effect and the attestation's figures (as in :class:`judges.session.spec.Summary`)."""

    counts: Counter
    statuses: Counter
    plan: Optional["Plan"] = None
    labels: Optional[dict] = None
    attest: Optional[dict] = None
    bank: Optional[dict] = None  # the nugget bank's provenance (PairOutputs.provenance)


class Written(NamedTuple):
    """What :func:`write_outputs` wrote: the files (kind -> path, in the order written), the counts
    with the qrels' rows, the (run, topic) pairs filled by ``on_missing``, the coverage rows, and
    the lines for the summary."""

    files: dict[str, str]
    counts: Counter
    filled: list
    coverage: list
    warnings: list


def qrels_table(table: pa.Table, key: str) -> pa.Table:
    """Best grade per (topic, ``key`` column), sorted by topic and key, as columns ``topic_id``,
    ``doc_id`` and ``grade``; rows whose key is null are left out. Arrow's sort is by UTF-8 bytes,
    which is Python's order of ``str``."""
    best = (
        table.select(["topic_id", key, "grade"])
        .filter(pc.is_valid(table[key]))
        .group_by(["topic_id", key])
        .aggregate([("grade", "max")])
        .sort_by([("topic_id", "ascending"), (key, "ascending")])
    )
    return best.rename_columns(["topic_id", "doc_id", "grade"])


def write_assessments(path: Path, table: pa.Table, order: Optional[pa.Array] = None) -> None:
    """Write the assessments sorted by run, topic, sentence and citation (``order``: the indices
    that sort them, :func:`assessment_order`), a row group at a time (sorting chunk by chunk
    keeps one extra row group in memory, not a second table). The next row group is gathered in a
    thread while Parquet encodes and compresses the current one."""
    order = assessment_order(table) if order is None else order
    starts = range(0, max(table.num_rows, 1), SORTED_ROW_GROUP)

    def take(start: int) -> pa.Table:
        return table.take(order[start : start + SORTED_ROW_GROUP])

    with atomic_path(path) as tmp, ThreadPoolExecutor(1, thread_name_prefix="take") as pool:
        with pq.ParquetWriter(tmp, tables.ASSESSMENT_SCHEMA, compression="zstd") as writer:
            ahead = pool.submit(take, starts[0])
            for i in range(len(starts)):
                rows = ahead.result()
                if i + 1 < len(starts):
                    ahead = pool.submit(take, starts[i + 1])
                writer.write_table(rows)


def output_targets(outputs: Outputs, workflow: Workflow, pair_kinds: Sequence[str] = ()) -> dict[str, tuple[Path, str]]:
    """Every file a session replaces: kind -> (path, the option that chose it); ``pair_kinds``:
    the kinds of pair judged (:func:`judges.engine.pairs.kinds_of`), whose files are written too."""
    kinds = ["qrels", "doc_qrels", *map(outputset.leaderboard, outputs.leaderboard_formats)]
    kinds += ["leaderboard_parquet", "assessments_parquet", "coverage"]
    kinds += ["intervals", "intervals_parquet", "pairs", "pairs_parquet"]  # judges.scores.intervals
    if workflow.attest.mode == "uncertain" and workflow.attest.band is None:
        kinds.append("plan")
    kinds += ["config", "checksums"]  # checksums: the set's record of its files (judges.formats.setrecord)
    targets = {kind: (outputset.path(outputs.out_dir, outputs.name, kind), "--out-dir") for kind in kinds}
    if outputs.log_path is not None:
        targets["debug_log"] = (outputs.log_path, "--out-dir" if outputs.debug_log is None else "--debug-log")
    for pair_kind in pair_kinds:
        for f in outputset.of_pair_kind(pair_kind):
            targets[f.kind] = (outputset.path(outputs.out_dir, outputs.name, f.kind), "--out-dir")
    return targets


class WriteSet(NamedTuple):
    """What :func:`write_outputs` writes: the session's inputs, outputs and workflow, what the
    judging counted (:class:`Tally`), the assessments ``table``, the first pass over the runs
    (``scan``) and the ``topics``, what :func:`judges.session.score.score` scored (``scores``);
    ``place(target)`` is where the file for ``target`` is written (staged); ``hashed_inputs``:
    :func:`describe_inputs` with hashes, when known already (a merge of shards); ``pairs``: the
    judgments of the other kinds of pair, whose files are written first."""

    inputs: Inputs
    outputs: Outputs
    workflow: Workflow
    tally: Tally
    table: pa.Table
    scan: Any
    topics: Any
    scores: Scores
    place: Callable[[Path], Path] = lambda path: path
    hashed_inputs: Optional[dict] = None
    pairs: Sequence[PairOutputs] = ()


def write_outputs(given: WriteSet) -> Written:
    """Write every output of ``given`` (nothing is computed here but the qrels and the coverage,
    which are the assessments seen another way)."""
    inputs, outputs, workflow, tally, table = given.inputs, given.outputs, given.workflow, given.tally, given.table
    scan, topics, scores, place = given.scan, given.topics, given.scores, given.place
    out_dir, name = Path(outputs.out_dir), outputs.name
    files: dict[str, str] = {}
    counts = Counter(tally.counts)
    for judged in given.pairs:
        files.update(judged.write(out_dir, name, place))
    for kind, key, count in (  # first: the group-by's memory is freed before the assessments' gather
        ("qrels", "qrels_doc_id", QRELS_ROWS),
        ("doc_qrels", "doc_id", DOC_QRELS_ROWS),
    ):
        path = outputset.path(out_dir, name, kind)
        counts[count] = trec.write_qrels(place(path), qrels_table(table, key))
        files[kind] = str(path)
    with ThreadPoolExecutor(1, thread_name_prefix="assessments") as pool:  # Arrow sorts and writes without the GIL
        assessments = outputset.path(out_dir, name, "assessments_parquet")
        written = pool.submit(lambda: write_assessments(place(assessments), table, scores.order))
        coverage, warnings = _write_coverage_and_leaderboards(outputs, files, table, scan, topics, place, scores)
        files.update(write_intervals(list(scores.intervals), list(scores.pairs), out_dir, name, place))
        written.result()
    files["assessments_parquet"] = str(assessments)
    plan = tally.plan
    if plan is not None:
        path = outputset.path(out_dir, name, "plan")
        write_plan(place(path), plan)
        files["plan"] = str(path)
    filled = list(scores.filled)
    config = {
        "name": name,
        "judge": inputs.judge,
        "workflow": workflow.model_dump(),
        "backend": workflow.alignment.backend,
        "dataset": inputs.dataset,
        "on_error": inputs.on_error,
        "allow_few_topics": inputs.allow_few_topics,
        "headline": judge_headline(inputs.judge, inputs.headline),
        "versions": {"citejudge": __version__, "python": platform.python_version(), **_versions()},
        "inputs": given.hashed_inputs if given.hashed_inputs is not None else describe_inputs(inputs, with_hashes=True),
        "runs": sorted(scan.runs),
        "topics": len(topics),
        "counts": {k: int(v) for k, v in sorted(counts.items())},
        "statuses": {k: int(tally.statuses[k]) for k in STATUSES},
        "filled_by_on_missing": {
            "policy": workflow.leaderboard.on_missing,
            "pairs": {run: [t for r, t in filled if r == run] for run in dict.fromkeys(r for r, _ in filled)},
        },
    }
    if inputs.judge == "battle":  # the budget the battles were drawn under (None: every pair)
        config["battle_opponents"] = inputs.battle_opponents
    if tally.bank:
        config["nugget_bank"] = tally.bank
    if tally.labels:
        config["labels"] = tally.labels
    if tally.attest:
        config["attest"] = tally.attest
        if plan is not None:
            tally.attest["plan"] = plan.describe()  # config["attest"]
    config_path = outputset.path(out_dir, name, "config")
    with atomic_text(place(config_path)) as f:
        yaml.safe_dump(config, f, sort_keys=False, allow_unicode=True)
    files["config"] = str(config_path)
    return Written(files, counts, filled, coverage, warnings)


def _write_coverage_and_leaderboards(
    outputs: Outputs, files: dict[str, str], table: pa.Table, scan, topics, place, scores: Scores
) -> tuple[list, list]:
    """The coverage table and the leaderboards (text files and Parquet), named in ``files``; the
    coverage rows and the summary's warning."""
    out_dir, name = Path(outputs.out_dir), outputs.name
    rows = list(scores.leaderboard)
    covered = coverage_rows(scan, len(topics), table, list(scores.filled))
    coverage = outputset.path(out_dir, name, "coverage")
    write_coverage(place(coverage), covered)
    files["coverage"] = str(coverage)
    judges_citations = not rows or any(m in MEASURE_NAMES for _, _, m, _ in rows)  # not --judge nugget alone
    warning = missing_warning(covered) if judges_citations else None
    for fmt in outputs.leaderboard_formats:
        path = outputset.path(out_dir, name, outputset.leaderboard(fmt))
        trec.write_leaderboard(place(path), rows, fmt)
        files[outputset.leaderboard(fmt)] = str(path)
    run_ids, topic_ids, measures, values = zip(*rows) if rows else ((), (), (), ())
    lb_table = pa.table(
        [list(run_ids), list(topic_ids), list(measures), [float(v) for v in values]], schema=tables.LEADERBOARD_SCHEMA
    )
    path = outputset.path(out_dir, name, "leaderboard_parquet")
    tables.write_table(place(path), lb_table)
    files["leaderboard_parquet"] = str(path)
    return covered, [warning] if warning else []


PLAN_COLUMNS = ("rank", "run_id", "topic_id", "sentence_index", "citation_rank", "expected_gain", "why")


def write_plan(path: Path, plan) -> None:
    """``NAME.plan.tsv``: the citations the session's plan chose, in plan order (a header line,
    then one tab-separated line each)."""
    with atomic_text(path) as f:
        f.write("\t".join(PLAN_COLUMNS) + "\n")
        for run, topic, sentence, rank_in_sentence, rank, gain, why in plan.rows():
            f.write(f"{rank}\t{run}\t{topic}\t{sentence}\t{rank_in_sentence}\t{gain!r}\t{why}\n")


def _versions() -> dict[str, str]:
    import numba

    return {"numpy": np.__version__, "numba": numba.__version__, "pyarrow": pa.__version__}


def describe_inputs(given: Inputs, with_hashes: bool = False) -> dict:
    """The input files (as found). ``with_hashes``, for the config record: each with its sha256 and
    as an absolute path, so that ``report`` and ``open_documents`` find them from any directory."""

    def describe(paths: list[Path], option: str) -> list:
        found = discover(paths, option, suffixes=TOPIC_SUFFIXES if option == "--rag-topics" else JSONL_SUFFIXES)
        if not with_hashes:
            return [p.as_posix() for p in found]
        return [{"path": Path(os.path.abspath(p)).as_posix(), "sha256": file_sha256(p)} for p in found]

    inputs: dict[str, Any] = {
        "topics": describe(given.topics, "--rag-topics"),
        "responses": describe(given.responses, "--rag-responses"),
    }
    if given.corpus is not None:
        if Path(given.corpus).is_dir() or docstore.is_store(given.corpus):  # never hash gigabytes
            corpus = Path(os.path.abspath(given.corpus)) if with_hashes else given.corpus
            inputs["corpus"] = docstore.describe(corpus, with_hashes)
        else:
            inputs["corpus"] = describe([given.corpus], "--corpus")[0]
    if given.workflow_path is not None:
        inputs["workflow"] = describe([given.workflow_path], "--workflow")[0]
    if given.labels:
        from judges.formats.labels import label_paths  # a directory's label files only

        inputs["labels"] = describe(label_paths(given.labels), "--labels")
    if given.nuggets is not None:
        auto = str(given.nuggets) == "auto"  # made from the answers (judges.nuggets.made.is_auto)
        if auto:  # no file: the bank's own SHA-256 is the config's nugget_bank
            inputs["nuggets"] = {"path": "auto", "sha256": ""} if with_hashes else "auto"
        else:
            from judges.formats.nuggets import check_nugget_path

            check_nugget_path(given.nuggets)  # one file: a directory is one error line
            inputs["nuggets"] = describe([given.nuggets], "--nuggets")[0]
        inputs["nugget_model"] = given.nugget_model
    if given.topic_records or given.report_records:  # handed over in memory (the AutoJudge adapter)
        inputs["in_memory"] = {"topics": len(given.topic_records), "reports": len(given.report_records)}
        if with_hashes:
            inputs["in_memory"]["sha256"] = given.records_sha256()
    return inputs


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
