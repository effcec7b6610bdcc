"""The command line: ``python run_judge.py --judge citation ...`` (typer).

The CLI owns what library code must not: console output, progress bars, exit codes and the
Numba thread count. Bad input ends with one line ``error: path:line: field: problem`` and exit
code 2, never a traceback.
"""

from __future__ import annotations

import time
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from judges.align.backends import BackendUnavailable
from judges.config import load_workflow
from judges.errors import InputError

out = Console()
err = Console(stderr=True)

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)


class JudgeName(str, Enum):
    citation = "citation"


class Dataset(str, Enum):
    auto = "auto"
    rag = "rag"
    ragtime = "ragtime"
    dragun = "dragun"


class OnError(str, Enum):
    fail = "fail"
    skip = "skip"


class LeaderboardFormat(str, Enum):
    ir_measures = "ir_measures"
    tot = "tot"
    jsonl = "jsonl"


class AttestMode(str, Enum):
    none = "none"
    uncertain = "uncertain"
    all = "all"


class BackendName(str, Enum):
    numba = "numba"
    python = "python"


@app.command(help="Judge the citations of RAG runs: qrels, leaderboards, debug log and Parquet tables.", epilog="Other commands: run_judge.py report OUT_DIR (a static HTML report of the outputs) | meta-evaluate | agreement | convert-labelled | calibrate --help (meta-evaluation against a truth leaderboard and human labels; fitting the support model to labels).")
def main(
    judge: JudgeName = typer.Option(JudgeName.citation, "--judge", help="Judge to run."),
    rag_topics: List[Path] = typer.Option(..., "--rag-topics", help="Topics JSONL file or directory; repeatable."),
    rag_responses: List[Path] = typer.Option(
        ..., "--rag-responses", help="Run JSONL(.gz) files or directories (recursive); repeatable."
    ),
    workflow: Optional[Path] = typer.Option(None, "--workflow", help="Workflow YAML (thresholds, policies)."),
    corpus: Optional[Path] = typer.Option(None, "--corpus", help="Corpus JSONL(.gz) for documents not embedded in runs."),
    out_dir: Path = typer.Option(Path("output"), "--out-dir", help="Directory for all outputs."),
    name: str = typer.Option("citejudge", "--name", help="Base name of every output file."),
    dataset: Dataset = typer.Option(Dataset.auto, "--dataset", help="Track shape to expect (auto detects per report)."),
    max_topics: Optional[int] = typer.Option(None, "--max-topics", min=1, help="Judge only the first N topics."),
    max_runs: Optional[int] = typer.Option(None, "--max-runs", min=1, help="Judge only the first N runs (file order)."),
    debug_log: Optional[Path] = typer.Option(None, "--debug-log", help="Debug log path (default OUT_DIR/NAME.jsonl)."),
    on_error: OnError = typer.Option(OnError.fail, "--on-error", help="fail on the first bad record, or skip and count it."),
    leaderboard_format: List[LeaderboardFormat] = typer.Option(
        [], "--leaderboard-format", help="Extra leaderboard formats besides ir_measures (tot, jsonl); repeatable."
    ),
    backend: Optional[BackendName] = typer.Option(None, "--backend", help="Alignment engine (default: the workflow's)."),
    workers: Optional[int] = typer.Option(
        None, "--workers", min=1, help="Worker processes, topics split between them (default: all cores for jobs over 20k citations)."
    ),
    attest: Optional[AttestMode] = typer.Option(
        None, "--attest", help="LLM attestation: none, uncertain (only citations alignment cannot decide) or all (default: the workflow's)."
    ),
    use_env_llm: bool = typer.Option(
        False, "--use-env-llm", help="LLM endpoint from OPENAI_BASE_URL, OPENAI_MODEL and OPENAI_API_KEY."
    ),
    llm_config: Optional[Path] = typer.Option(
        None, "--llm-config", help="LLM endpoint from a YAML file with the keys OPENAI_BASE_URL, OPENAI_MODEL, OPENAI_API_KEY."
    ),
    cache_dir: Optional[Path] = typer.Option(
        None, "--cache-dir", help="Directory of the LLM answer cache (default OUT_DIR); share it between runs to never ask twice."
    ),
) -> None:
    started = time.perf_counter()
    try:
        if "/" in name or "\\" in name or name in ("", ".", ".."):
            raise InputError("--name", None, None, f"{name!r} must be a plain file name")
        wf = load_workflow(workflow)
        if attest is not None:
            wf = wf.model_copy(update={"attest": wf.attest.model_copy(update={"mode": attest.value})})
        if use_env_llm and llm_config is not None:
            raise InputError("--llm-config", None, None, "give either --use-env-llm or --llm-config, not both")
        llm = None
        if use_env_llm or llm_config is not None:
            from judges.attest import endpoint

            llm = endpoint.from_env() if use_env_llm else endpoint.from_file(llm_config)
        chosen_backend = (backend.value if backend else None) or wf.alignment.backend
        from judges import pipeline

        formats = ("ir_measures",) + tuple(f.value for f in leaderboard_format if f is not LeaderboardFormat.ir_measures)
        options = pipeline.Options(
            topics=list(rag_topics), responses=list(rag_responses), out_dir=out_dir, name=name, workflow=wf,
            workflow_path=workflow, corpus=corpus, dataset=dataset.value, max_topics=max_topics, max_runs=max_runs,
            debug_log=debug_log, on_error=on_error.value, leaderboard_formats=tuple(dict.fromkeys(formats)),
            backend=chosen_backend, workers=workers or 0, llm=llm, cache_dir=cache_dir,
        )
        if chosen_backend == "numba":
            _prepare_numba(options)
        with Progress(
            TextColumn("judging citations"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TimeRemainingColumn(), console=err, transient=True,
        ) as bar:
            task = bar.add_task("judge", total=None)

            def progress(n: int, total: Optional[int] = None) -> None:
                if total is not None:
                    bar.update(task, total=total)
                bar.advance(task, n)

            summary = pipeline.run(options, warn=lambda msg: err.print(f"warning: {msg}", markup=False, highlight=False, soft_wrap=True), progress=progress)
    except InputError as e:
        err.print(f"error: {e.render()}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2)
    except BackendUnavailable as e:
        err.print(f"error: --backend: {e}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2)
    except OSError as e:  # e.g. an output directory that cannot be written
        err.print(f"error: {e.filename or ''}: {e.strerror or e}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2)
    except KeyboardInterrupt:
        err.print("interrupted: no output was replaced (outputs are written only when complete)", markup=False)
        raise typer.Exit(130)
    _print_summary(summary, time.perf_counter() - started)


def _prepare_numba(options) -> None:
    """Load (or, on a fresh install, compile) every Numba kernel, saying so instead of looking hung."""
    import numba

    from judges.judge import warmup

    # One process: the kernel's prange may use every core. Worker processes use one thread each.
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    with err.status("loading the Numba kernels (the first run after install compiles them, about half a minute)..."):
        t = time.perf_counter()
        warmup(options)
    if time.perf_counter() - t > 5:
        err.print(f"compiled the Numba kernels in {time.perf_counter() - t:.0f} s (cached for later runs)", markup=False)


def _print_summary(summary, seconds: float) -> None:
    c = summary.counts
    st = summary.statuses
    n = c["citations"]
    table = Table(title="citejudge summary", show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    table.add_row("runs", f"{len(summary.runs)}" + (f" ({c['runs_not_selected']} not selected by --max-runs)" if c["runs_not_selected"] else ""))
    table.add_row("topics", str(summary.topics))
    table.add_row("reports judged", str(c["reports"]))
    skipped = {k: v for k, v in c.items() if k.startswith("skipped_") and v} | (
        {"reports_unknown_topic": c["reports_unknown_topic"]} if c["reports_unknown_topic"] else {}
    )
    if skipped:
        table.add_row("skipped", ", ".join(f"{v} {k.replace('skipped_', '').replace('_', ' ')}" for k, v in sorted(skipped.items())))
    table.add_row("sentences", str(c["sentences"]))
    table.add_row("citations judged", str(n) + (f" ({c['citations_beyond_limit']} beyond max_per_sentence, not judged)" if c["citations_beyond_limit"] else ""))
    for status in ("supported", "partial", "unsupported", "missing"):
        share = f" ({100 * st[status] / n:.1f}%)" if n else ""
        table.add_row(f"  {status}", f"{st[status]}{share}")
    if c["capped"]:
        table.add_row("  capped", f"{c['capped']} of the partial: aligned as supported, but the document lacks a number or entity")
    if c["corpus_documents"]:
        table.add_row("corpus documents", str(c["corpus_documents"]))
    if summary.attest:
        a = summary.attest
        table.add_row("LLM attestation", f"{a['mode']}: {a['selected']} selected, {a['guarded']} guarded, "
                      f"{a['calls']} calls, {a['cache_hits']} cache hits, {a['failed']} failed, {a['unparsed']} unparsed, "
                      f"{a['changed']} changed")
        table.add_row("LLM tokens", f"{a['tokens_in']} in, {a['tokens_out']} out (estimated cost {a['estimated_cost']:.4f})")
        if a["failed_requests"]:
            table.add_row("LLM failures", ", ".join(f"{n} x {reason}" for reason, n in a["failed_requests"].items()))
    table.add_row("time", f"{seconds:.1f} s" + (f" ({n / seconds:,.0f} citations/s)" if seconds > 0 and n else ""))
    for kind, path in summary.files.items():
        table.add_row(kind, path)
    out.print(table)
    _print_top(summary.files.get("leaderboard_parquet"))


def _print_top(path: Optional[str], n: int = 5) -> None:
    """The top of the leaderboard by the headline measure (``all`` rows)."""
    if not path:
        return
    import pyarrow.parquet as pq

    from judges.report.leaderboard import headline_of, top_runs

    lb = pq.read_table(path).to_pandas()
    if lb.empty:
        return
    rows = top_runs(lb, n)
    width = max(len(run) for run, _ in rows)
    lines = [f"top runs by {headline_of(sorted(set(lb['measure'])))} (mean over topics):"]
    lines += [f"{k:>3}  {run:<{width}}  {value:.4f}" for k, (run, value) in enumerate(rows, 1)]
    out.print("\n".join(lines), markup=False, highlight=False, soft_wrap=True)


report_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)


@report_app.command(help="Turn a judge's output directory into a static HTML report that opens from the file system: leaderboard with 95% intervals (and the truth), plots, and per run and topic the answer with every citation's document, evidence, scores and explanation.")
def report(
    out_dir: Path = typer.Argument(..., help="The judge's output directory (--out-dir of the judge run)."),
    name: Optional[str] = typer.Option(None, "--name", help="Output name, when the directory holds several judged sets."),
    report_dir: Optional[Path] = typer.Option(None, "--report-dir", help="Where to write the report (default OUT_DIR/NAME.report)."),
    truth: Optional[Path] = typer.Option(None, "--truth", help="Truth leaderboard (any format meta-evaluate reads), shown beside the judge's."),
    truth_measure: Optional[str] = typer.Option(None, "--truth-measure", help="The truth's measure to show (default: its first)."),
    labels: Optional[Path] = typer.Option(None, "--labels", help="Human labels JSONL: disagreements become a filter."),
    responses: List[Path] = typer.Option([], "--rag-responses", help="Run files, when they moved since judging (default: the config's)."),
    corpus: Optional[Path] = typer.Option(None, "--corpus", help="Corpus file, when it moved since judging (default: the config's)."),
    resamples: int = typer.Option(1000, "--resamples", min=0, help="Bootstrap resamples for the intervals."),
) -> None:
    from judges.report import build_report

    try:
        if not out_dir.is_dir():
            raise InputError(out_dir, None, "OUT_DIR", "no such directory")
        done = build_report(out_dir, name, report_dir, truth, truth_measure, labels, list(responses) or None, corpus, resamples,
                            warn=lambda msg: err.print(f"warning: {msg}", markup=False, highlight=False, soft_wrap=True))
    except InputError as e:
        err.print(f"error: {e.render()}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2)
    except FileNotFoundError as e:
        err.print(f"error: {out_dir}: {e}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2)
    out.print(f"wrote {done['path']} ({done['files']} files, {done['bytes'] / 1e6:.1f} MB, largest {done['largest'] / 1e3:.0f} kB) "
              f"in {done['seconds']:.1f} s", markup=False, highlight=False, soft_wrap=True)


def run() -> None:
    import sys

    from judges.meta import COMMANDS

    if len(sys.argv) > 1 and sys.argv[1] == "report":  # the static HTML report of an output directory
        sys.argv.pop(1)
        report_app(prog_name="run_judge.py report")
        return
    if len(sys.argv) > 1 and sys.argv[1] in COMMANDS:  # meta-evaluate, agreement, convert-labelled
        from judges.meta.cli import app as meta_app

        meta_app()
        return
    app()


if __name__ == "__main__":
    run()
