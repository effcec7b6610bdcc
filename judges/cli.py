"""The command line: ``python run_judge.py --judge citation ...`` (typer).

The CLI owns what library code must not: console output, progress bars, exit codes and the
Numba thread count. Bad input ends with one line ``error: path:line: field: problem`` and exit
code 2, never a traceback.
"""

from __future__ import annotations

import signal
import time
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from judges.counts import (
    CAPPED,
    HUMAN_LABELLED,
    CITATIONS,
    CITATIONS_BEYOND_LIMIT,
    CORPUS_DOCUMENTS,
    REPORTS,
    REPORTS_UNKNOWN_TOPIC,
    RUNS_NOT_SELECTED,
    SENTENCES,
    SKIPPED,
)
from judges.errors import InputError
from judges.formats.runs import DATASETS
from judges.formats.trec import LEADERBOARD_FORMATS
from judges.vocabulary import BACKENDS, MAIN_STATUSES

out = Console()
err = Console(stderr=True)


def _warn(message: str) -> None:
    err.print(f"warning: {message}", markup=False, highlight=False, soft_wrap=True)


def _fail(message: str) -> typer.Exit:
    """Print ``error: message`` as one line; returns the exit (code 2) for the caller to raise."""
    err.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(2)


MAX_WORKERS = 256  # more are never useful (and are also capped at the number of topics)

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)


class JudgeName(str, Enum):
    citation = "citation"


Dataset = Enum("Dataset", {n: n for n in DATASETS}, type=str)


class OnError(str, Enum):
    fail = "fail"
    skip = "skip"


LeaderboardFormat = Enum("LeaderboardFormat", {n: n for n in LEADERBOARD_FORMATS}, type=str)


class AttestMode(str, Enum):
    none = "none"
    uncertain = "uncertain"
    all = "all"


BackendName = Enum("BackendName", {n: n for n in sorted(BACKENDS)}, type=str)


@app.command(
    help="Judge the citations of RAG runs: qrels, leaderboards, debug log and Parquet tables.",
    epilog=(
        "Other commands: run_judge.py report OUT_DIR --help (a static HTML report of the outputs); "
        "run_judge.py corpus index | lookup | info --help (a docstore for big corpora); "
        "run_judge.py meta-evaluate | agreement | convert-labelled | calibrate --help "
        "(meta-evaluation against a truth leaderboard and human labels; fitting the support model to labels)."
    ),
)
def main(
    judge: JudgeName = typer.Option(JudgeName.citation, "--judge", help="Judge to run."),
    rag_topics: List[Path] = typer.Option(
        ..., "--rag-topics", help="Topics file (JSONL, JSON array or TREC TSV) or directory; repeatable."
    ),
    rag_responses: List[Path] = typer.Option(
        ..., "--rag-responses", help="Run files (JSONL or JSON array, .gz) or directories (recursive); repeatable."
    ),
    workflow: Optional[Path] = typer.Option(None, "--workflow", help="Workflow YAML (thresholds, policies)."),
    corpus: Optional[Path] = typer.Option(
        None,
        "--corpus",
        help=(
            "Corpus for documents not embedded in runs: a JSONL(.gz) file (streamed), "
            "or a shard directory or docstore built by `run_judge.py corpus index` (only cited ids read)."
        ),
    ),
    out_dir: Path = typer.Option(Path("output"), "--out-dir", help="Directory for all outputs."),
    name: str = typer.Option("citejudge", "--name", help="Base name of every output file."),
    dataset: Dataset = typer.Option(Dataset.auto, "--dataset", help="Track shape to expect (auto detects per report)."),
    max_topics: Optional[int] = typer.Option(None, "--max-topics", min=1, help="Judge only the first N topics."),
    max_runs: Optional[int] = typer.Option(None, "--max-runs", min=1, help="Judge only the first N runs (file order)."),
    debug_log: Optional[Path] = typer.Option(None, "--debug-log", help="Debug log path (default OUT_DIR/NAME.jsonl)."),
    no_debug_log: bool = typer.Option(False, "--no-debug-log", help="Write no debug log (about 1.2 KB per citation)."),
    on_error: OnError = typer.Option(
        OnError.fail, "--on-error", help="fail on the first bad record, or skip and count it."
    ),
    leaderboard_format: List[LeaderboardFormat] = typer.Option(
        [], "--leaderboard-format", help="Extra leaderboard formats besides ir_measures (tot, jsonl); repeatable."
    ),
    backend: Optional[BackendName] = typer.Option(
        None, "--backend", help="Alignment engine (default: the workflow's)."
    ),
    workers: Optional[int] = typer.Option(
        None,
        "--workers",
        help=(
            "Worker processes, topics split between them (default: all cores from 50k citations; "
            "the summary says which)."
        ),
    ),
    attest: Optional[AttestMode] = typer.Option(
        None,
        "--attest",
        help=(
            "LLM attestation: none, uncertain (about attest.budget of the citations, where an answer is "
            "expected to move the leaderboard most) or all (default: the workflow's)."
        ),
    ),
    use_env_llm: bool = typer.Option(
        False, "--use-env-llm", help="LLM endpoint from OPENAI_BASE_URL, OPENAI_MODEL and OPENAI_API_KEY."
    ),
    llm_config: Optional[Path] = typer.Option(
        None,
        "--llm-config",
        help="LLM endpoint from a YAML file with the keys OPENAI_BASE_URL, OPENAI_MODEL, OPENAI_API_KEY.",
    ),
    cache_dir: Optional[Path] = typer.Option(
        None,
        "--cache-dir",
        help="Directory of the LLM answer cache (default OUT_DIR); share it between runs to never ask twice.",
    ),
    labels: Optional[Path] = typer.Option(
        None,
        "--labels",
        help=(
            "Assessors' per-citation labels (JSONL: run_id, topic_id, sentence_index, doc_id, label), final: a "
            "labelled citation weighs its label's level, is never sent to the LLM, and narrows the intervals."
        ),
    ),
    allow_missing_text: bool = typer.Option(
        False,
        "--allow-missing-text",
        help="Judge even when no cited document has text (no --corpus, nothing embedded): every citation 'missing'.",
    ),
    strict_llm: bool = typer.Option(
        False,
        "--strict-llm",
        help=(
            "A degenerate LLM judge (all answers the same, or agreeing with the support model's confident "
            "decisions no better than chance) is an error (exit 2, no output replaced), not a warning."
        ),
    ),
) -> None:
    started = time.perf_counter()
    from judges.process import arrow_without_pandas, quiet_collector, settle_collector

    quiet_collector()  # until the kernels are loaded (settle_collector)
    from judges.align.backends import BackendUnavailable  # here, not at import: --help stays fast
    from judges.config import load_workflow

    previous_sigterm = signal.signal(signal.SIGTERM, _terminate)
    try:
        if workers is not None and not 1 <= workers <= MAX_WORKERS:
            raise InputError(
                "--workers",
                None,
                None,
                f"{workers} is not between 1 and {MAX_WORKERS} (and never more than the topics are used)",
            )
        if no_debug_log and debug_log is not None:
            raise InputError("--debug-log", None, None, "give either --debug-log or --no-debug-log, not both")
        if "/" in name or "\\" in name or name in ("", ".", ".."):
            raise InputError("--name", None, None, f"{name!r} must be a plain file name")
        wf = load_workflow(workflow)
        if attest is not None:  # the command line's choices are the workflow's (config.yml records them)
            wf = wf.model_copy(update={"attest": wf.attest.model_copy(update={"mode": attest.value})})
        if backend is not None:
            wf = wf.model_copy(update={"alignment": wf.alignment.model_copy(update={"backend": backend.value})})
        if use_env_llm and llm_config is not None:
            raise InputError("--llm-config", None, None, "give either --use-env-llm or --llm-config, not both")
        llm = None
        if use_env_llm or llm_config is not None:
            from judges.attest import endpoint

            llm = endpoint.from_env() if use_env_llm else endpoint.from_file(llm_config)
        from judges import pipeline

        formats = ("ir_measures",) + tuple(
            f.value for f in leaderboard_format if f is not LeaderboardFormat.ir_measures
        )
        inputs = pipeline.Inputs(
            topics=list(rag_topics),
            responses=list(rag_responses),
            corpus=corpus,
            workflow_path=workflow,
            labels=labels,
            dataset=dataset.value,
            max_topics=max_topics,
            max_runs=max_runs,
            on_error=on_error.value,
            allow_missing_text=allow_missing_text,
        )
        outputs = pipeline.Outputs(
            out_dir=out_dir,
            name=name,
            debug_log=debug_log,
            no_debug_log=no_debug_log,
            leaderboard_formats=tuple(dict.fromkeys(formats)),
        )
        arrow_without_pandas()  # this process ends with the summary: no pandas in it
        compiling = _prepare_numba(wf) if wf.alignment.backend == "numba" else 0.0
        settle_collector()
        with Progress(
            TextColumn("judging citations"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=err,
            transient=True,
            disable=not err.is_terminal,
        ) as bar:
            task = bar.add_task("judge", total=None)

            def progress(n: int, total: Optional[int] = None) -> None:
                if total is not None:
                    bar.update(task, total=total)
                bar.advance(task, n)

            summary = pipeline.run(
                inputs,
                outputs,
                wf,
                llm=llm,
                cache_dir=cache_dir,
                workers=workers or 0,
                strict_llm=strict_llm,
                warn=_warn,
                progress=progress,
            )
    except InputError as e:
        raise _fail(e.render())
    except BackendUnavailable as e:
        raise _fail(f"--backend: {e}")
    except OSError as e:  # e.g. an output directory that cannot be written
        raise _fail(f"{e.filename or ''}: {e.strerror or e}")
    except KeyboardInterrupt as e:
        signum = getattr(e, "signum", signal.SIGINT)
        if getattr(e, "replaced", False):
            err.print(
                "interrupted: the outputs had just been replaced, all of them, by this run's",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )
        else:
            err.print(
                "interrupted: no output was replaced (outputs are replaced only when all are complete)",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )
        raise typer.Exit(128 + int(signum))
    finally:
        signal.signal(signal.SIGTERM, previous_sigterm)
    _print_summary(summary, time.perf_counter() - started, compiling)


COMPILED_S = 5.0  # loading the cached kernels takes under a second; longer means they were compiled


def _terminate(signum, frame) -> None:
    """SIGTERM ends the run as Ctrl-C does: staged files removed, an honest message, exit 143."""
    from judges.formats.outset import Interrupted

    raise Interrupted(False, signum)


def _prepare_numba(workflow) -> float:
    """Load (or, on a fresh install, compile) every Numba kernel, saying so instead of looking hung.
    Returns the seconds spent compiling (0 when the kernels came from the cache)."""
    import numba

    from judges.pipeline import prepare

    # One process: the kernel's prange may use every core. Worker processes use one thread each.
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    with err.status("loading the Numba kernels (the first run after install compiles them, about half a minute)..."):
        t = time.perf_counter()
        prepare(workflow)
    seconds = time.perf_counter() - t
    if seconds <= COMPILED_S:
        return 0.0
    err.print(f"compiled the Numba kernels in {seconds:.0f} s (cached for later runs)", markup=False)
    return seconds


def _print_summary(summary, seconds: float, compiling: float = 0.0) -> None:  # noqa: C901 (to split: issue 32)
    """``compiling``: seconds of a first run's kernel compilation, left out of the rate."""
    counts = summary.counts
    st = summary.statuses
    n = counts[CITATIONS]
    table = Table(title="citejudge summary", show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    table.add_row(
        "runs",
        f"{len(summary.runs)}"
        + (f" ({counts[RUNS_NOT_SELECTED]} not selected by --max-runs)" if counts[RUNS_NOT_SELECTED] else ""),
    )
    table.add_row("topics", str(summary.topics))
    table.add_row("reports judged", str(counts[REPORTS]))
    skipped = {k: v for k, v in counts.items() if k in SKIPPED.values() and v} | (
        {REPORTS_UNKNOWN_TOPIC: counts[REPORTS_UNKNOWN_TOPIC]} if counts[REPORTS_UNKNOWN_TOPIC] else {}
    )
    if skipped:
        table.add_row(
            "skipped",
            ", ".join(f"{v} {k.replace('skipped_', '').replace('_', ' ')}" for k, v in sorted(skipped.items())),
        )
    table.add_row("sentences", str(counts[SENTENCES]))
    table.add_row(
        "citations judged",
        str(n)
        + (
            f" ({counts[CITATIONS_BEYOND_LIMIT]} beyond max_per_sentence, not judged)"
            if counts[CITATIONS_BEYOND_LIMIT]
            else ""
        ),
    )
    for status in MAIN_STATUSES:
        share = f" ({100 * st[status] / n:.1f}%)" if n else ""
        table.add_row(f"  {status}", f"{st[status]}{share}")
    if st["cross_language"]:
        table.add_row(
            "  cross_language",
            f"{st['cross_language']} ({100 * st['cross_language'] / n:.1f}%): sentence and cited "
            "text in different scripts, not aligned (give a translated --corpus, or --attest)",
        )
    if counts[CAPPED]:
        table.add_row(
            "  capped",
            f"{counts[CAPPED]} of the partial: aligned as supported, but the document lacks a number or entity",
        )
    if counts[HUMAN_LABELLED]:
        table.add_row("  human labels", f"{counts[HUMAN_LABELLED]}: their level is final (--labels)")
    if counts[CORPUS_DOCUMENTS]:
        table.add_row("corpus documents", str(counts[CORPUS_DOCUMENTS]))
    if summary.attest:
        a = summary.attest
        share = f" ({a['selected'] / n:.1%})" if n else ""
        table.add_row(
            "LLM attestation",
            f"{a['mode']}: {a['selected']} selected{share}, {a['guarded']} guarded, {a['changed']} changed",
        )
        table.add_row(
            "LLM questions",
            f"{a['calls']} calls, {a['cache_hits']} cache hits, {a['failed']} failed, {a['unparsed']} unparsed"
            + ("; answers " + ", ".join(f"{k} {ans}" for ans, k in a["answers"].items()) if a.get("answers") else ""),
        )
        table.add_row(
            "LLM tokens", f"{a['tokens_in']} in, {a['tokens_out']} out (estimated cost {a['estimated_cost']:.4f})"
        )
        if a["failed_requests"]:
            table.add_row("LLM failures", ", ".join(f"{n} x {reason}" for reason, n in a["failed_requests"].items()))
        if a.get("degenerate"):  # one line, not wrapped in the table
            _warn(a["degenerate"]["message"] + " (--strict-llm makes this an error)")
    if summary.filled:
        shown = ", ".join(f"{r}/{t}" for r, t in summary.filled[:10]) + (
            f" and {len(summary.filled) - 10} more" if len(summary.filled) > 10 else ""
        )
        table.add_row(
            "filled (on_missing)", f"{len(summary.filled)} (run, topic) pair(s) without a report, scored 0: {shown}"
        )
    for line in summary.warnings:
        table.add_row("warning", line)
    judging = seconds - compiling
    rate = f"{n / judging:,.0f} citations/s" if judging > 0 and n else ""
    if compiling:
        rate = f"{compiling:.1f} s of it compiling the kernels once" + (f"; {rate} after" if rate else "")
    table.add_row("time", f"{seconds:.1f} s" + (f" ({rate})" if rate else ""))
    if summary.processes:
        table.add_row("processes", summary.processes)
    for kind, path in summary.files.items():
        table.add_row(kind, path)
    out.print(table)
    if summary.coverage:
        _print_coverage(summary.coverage)
    _print_top(summary.files.get("leaderboard_parquet"))
    _print_trust(summary.files.get("leaderboard_parquet"), summary.files.get("pairs_parquet"))


def _print_coverage(rows: list[dict]) -> None:
    """The per-run coverage table (NAME.coverage.tsv has the missing citations by reason)."""
    table = Table(title="coverage per run", box=None, pad_edge=False)
    for i, head in enumerate(("run", "topics", "sentences", "cited", "citations", "missing", "cross-lang")):
        table.add_column(head, justify="left" if i == 0 else "right", overflow="fold")
    for r in rows:
        missing = sum(v for k, v in r.items() if k.startswith("missing_"))
        table.add_row(
            r["run_id"],
            f"{r['topics_answered']}/{r['topics']}",
            str(r["sentences"]),
            str(r["cited_sentences"]),
            str(r["citations"]),
            str(missing),
            str(r["cross_language"]),
        )
    out.print(table)


corpus_app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    no_args_is_help=True,
    help=(
        "A docstore for big corpora (MS MARCO v2.1 segmented shards or any JSONL(.gz)): "
        "build once, then --corpus reads only cited ids."
    ),
)


@corpus_app.command(
    "index", help="Build the docstore of a corpus (a shard directory or one JSONL(.gz) file), beside it."
)
def corpus_index(
    source: Path = typer.Argument(
        ..., help="Shard directory (e.g. msmarco_v2.1_doc_segmented_NN.json.gz) or one JSONL(.gz) file."
    ),
    output: Optional[Path] = typer.Option(
        None,
        "--output",
        help="Store path (default: SOURCE/citejudge-docstore.sqlite, or FILE.citejudge-docstore.sqlite).",
    ),
    on_error: OnError = typer.Option(
        OnError.fail, "--on-error", help="A line without a document id: fail, or skip and count it."
    ),
) -> None:
    import sqlite3

    from judges.formats import docstore

    started = time.perf_counter()
    skipped = []

    def problem(e: InputError) -> None:
        if on_error is OnError.fail:
            raise e
        skipped.append(e)
        _warn(f"skipped corpus line: {e.render()}")

    try:
        with Progress(
            TextColumn("indexing corpus"),
            BarColumn(),
            TextColumn("{task.percentage:>3.0f}%"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=err,
            transient=True,
            disable=not err.is_terminal,
        ) as bar:
            task = bar.add_task("index", total=None)
            figures = docstore.build(
                source, output, problem, lambda done, total: bar.update(task, completed=done, total=total)
            )
    except InputError as e:
        raise _fail(e.render())
    except OSError as e:
        raise _fail(f"{e.filename or source}: {e.strerror or e}")
    except sqlite3.Error as e:  # e.g. the store's directory cannot be written
        raise _fail(f"{output or docstore.store_path_for(source)}: {e}")
    seconds = time.perf_counter() - started
    table = Table(title="citejudge corpus index", show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    for key in ("store", "layout", "files", "lines", "ids"):
        if key != "ids" or figures["layout"] != docstore.LAYOUT_MSMARCO:
            table.add_row(key, str(figures[key]))
    table.add_row("size", f"{figures['store_bytes'] / 1e6:,.1f} MB ({figures['bytes_in'] / 1e6:,.1f} MB uncompressed)")
    if skipped:
        table.add_row("skipped lines", str(len(skipped)))
    table.add_row("time", f"{seconds:.1f} s")
    out.print(table)


def _open_store(corpus: Path):
    """The docstore at ``corpus`` (an :class:`InputError` when there is none)."""
    from judges.formats import docstore

    store = docstore.open_store(corpus)
    if store is None:
        raise InputError(corpus, None, None, "no docstore here: run `run_judge.py corpus index` first")
    return store


@corpus_app.command(
    "lookup", help="Print the documents of ids (JSON Lines); ids not found go to stderr with the reason."
)
def corpus_lookup(
    corpus: Path = typer.Argument(..., help="Shard directory with a docstore, or the docstore file."),
    ids: List[str] = typer.Argument(..., help="Document ids."),
) -> None:
    import orjson

    try:
        with _open_store(corpus) as store:
            found, missing = store.get(ids)
    except InputError as e:
        raise _fail(e.render())
    for doc_id in ids:
        if doc_id in found:
            print(orjson.dumps(found[doc_id]._asdict()).decode())
        elif doc_id in missing:
            err.print(f"missing: {doc_id}: {missing.pop(doc_id)}", markup=False, highlight=False, soft_wrap=True)
    if missing or len(found) < len(set(ids)):
        raise typer.Exit(1)


@corpus_app.command("info", help="What a docstore holds: layout, files, lines, sizes.")
def corpus_info(
    corpus: Path = typer.Argument(..., help="Shard directory with a docstore, or the docstore file."),
) -> None:
    try:
        with _open_store(corpus) as store:
            stats = store.stats()
    except InputError as e:
        raise _fail(e.render())
    for key, value in stats.items():
        out.print(f"{key}: {value}", markup=False, highlight=False)


def _print_top(path: Optional[str], n: int = 5) -> None:
    """The top of the leaderboard by the headline measure (``all`` rows)."""
    if not path:
        return
    import pyarrow.parquet as pq

    from judges.leaderboard import top_runs

    table = pq.read_table(path, columns=["run_id", "topic_id", "measure", "value"])
    if table.num_rows == 0:
        return
    head, rows = top_runs(list(zip(*(table.column(c).to_pylist() for c in table.column_names))), n)
    width = max(len(run) for run, _ in rows)
    lines = [f"top runs by {head} (mean over topics):"]
    lines += [f"{k:>3}  {run:<{width}}  {value:.4f}" for k, (run, value) in enumerate(rows, 1)]
    out.print("\n".join(lines), markup=False, highlight=False, soft_wrap=True)


def _print_trust(leaderboard: Optional[str], pairs: Optional[str], shown: int = 3) -> None:
    """Adjacent runs of the headline ranking the assessors may well order the other way (judges.intervals)."""
    if not leaderboard or not pairs:
        return
    import pyarrow.parquet as pq

    from judges.intervals import inseparable
    from judges.leaderboard import top_runs

    lb = pq.read_table(leaderboard, columns=["run_id", "topic_id", "measure", "value"])
    rows = list(zip(*(lb.column(c).to_pylist() for c in lb.column_names)))
    head, ranking = top_runs(rows, len(rows))
    found = inseparable(
        list(zip(*(pq.read_table(pairs).column(c).to_pylist() for c in range(6)))), [r for r, _ in ranking]
    )
    if not found:
        return
    named = ", ".join(f"{a} and {b} (P {p:.2f})" for a, b, p in found[:shown])
    more = f" and {len(found) - shown} more" if len(found) > shown else ""
    tsv = pairs[: -len(".parquet")] + ".tsv"
    out.print(
        f"cannot be told apart: {len(found)} of {len(ranking) - 1} adjacent runs by {head} (P < 0.95 that the "
        f"assessors order them as the judge does): {named}{more}; every pair in {tsv}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


report_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)


@report_app.command(
    help=(
        "Turn a judge's output directory into a static HTML report that opens from the file system: "
        "leaderboard with 95% intervals (and the truth), plots, "
        "and per run and topic the answer with every citation's document, evidence, scores and explanation."
    )
)
def report(
    out_dir: Path = typer.Argument(..., help="The judge's output directory (--out-dir of the judge run)."),
    name: Optional[str] = typer.Option(
        None, "--name", help="Output name, when the directory holds several judged sets."
    ),
    report_dir: Optional[Path] = typer.Option(
        None, "--report-dir", help="Where to write the report (default OUT_DIR/NAME.report)."
    ),
    truth: Optional[Path] = typer.Option(
        None, "--truth", help="Truth leaderboard (any format meta-evaluate reads), shown beside the judge's."
    ),
    truth_measure: Optional[str] = typer.Option(
        None, "--truth-measure", help="The truth's measure to show (default: its first)."
    ),
    labels: Optional[Path] = typer.Option(None, "--labels", help="Human labels JSONL: disagreements become a filter."),
    responses: List[Path] = typer.Option(
        [], "--rag-responses", help="Run files, when they moved since judging (default: the config's)."
    ),
    corpus: Optional[Path] = typer.Option(
        None, "--corpus", help="Corpus file, when it moved since judging (default: the config's)."
    ),
    resamples: int = typer.Option(1000, "--resamples", min=0, help="Bootstrap resamples for the intervals."),
) -> None:
    from judges.report import build_report

    try:
        if not out_dir.is_dir():
            raise InputError(out_dir, None, "OUT_DIR", "no such directory")
        done = build_report(
            out_dir,
            name,
            report_dir,
            truth,
            truth_measure,
            labels,
            list(responses) or None,
            corpus,
            resamples,
            warn=_warn,
        )
    except InputError as e:
        raise _fail(e.render())
    except FileNotFoundError as e:
        raise _fail(f"{out_dir}: {e}")
    out.print(
        f"wrote {done['path']} ({done['files']} files, {done['bytes'] / 1e6:.1f} MB, "
        f"largest {done['largest'] / 1e3:.0f} kB) "
        f"in {done['seconds']:.1f} s",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


# Commands beside the judge, by their first word (the meta commands are judges.meta.COMMANDS).
APPS = {"report": report_app, "corpus": corpus_app}


def run() -> None:
    """``run_judge.py`` / ``citejudge`` / ``python -m judges``: the judge, one of :data:`APPS` or of
    :data:`judges.meta.COMMANDS`; ``--version``; a first word that is none of them is named."""
    import sys

    from judges import __version__
    from judges.meta import COMMANDS

    first = sys.argv[1] if len(sys.argv) > 1 else ""
    if first in ("--version", "-V"):
        print(f"citejudge {__version__}")
        return
    if first in APPS:
        del sys.argv[1]
        APPS[first](prog_name=f"run_judge.py {first}")
        return
    if first in COMMANDS:
        from judges.meta.cli import app as meta_app

        meta_app()
        return
    if first and not first.startswith("-"):
        import difflib

        commands = (*APPS, *COMMANDS)
        close = difflib.get_close_matches(first, commands, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        err.print(
            f"error: unknown command {first!r}: {hint}commands: {', '.join(commands)}; "
            "without a command, run_judge.py judges (see --help)",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        raise SystemExit(2)
    app()


if __name__ == "__main__":
    run()
