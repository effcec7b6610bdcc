"""The command line: one typer app, ``run_judge.py`` = ``citejudge`` = ``python -m judges``.

Without a command it judges (``run_judge.py --judge citation --rag-responses runs/ ...``); its
commands are ``report``, ``corpus index | lookup | info`` and the meta-evaluation commands of
:mod:`judges.cli.meta` (``meta-evaluate``, ``agreement``, ``convert-labelled``, ``calibrate``,
``plan-assessments``). A first word that is no command is named with the commands.

The CLI owns what library code must not: console output (:mod:`judges.cli.console`), progress bars,
exit codes and the Numba thread count. Bad input ends with one line ``error: path:line: field:
problem`` and exit code 2, never a traceback.
"""

from __future__ import annotations

import dataclasses
import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, List, NamedTuple, Optional

import typer
from rich.progress import MofNCompleteColumn, TextColumn
from rich.table import Table
from typer.core import TyperGroup

from judges.cli.console import advancing, err, error, fail, progress_bar, say, show, warn
from judges.core.counts import CITATIONS
from judges.core.errors import InputError
from judges.cli.options import (
    CacheDir,
    JudgedDir,
    JudgeName,
    JudgeOptions,
    LeaderboardFormat,
    LlmConfig,
    MarkerStyle,
    MovedCorpus,
    MovedResponses,
    OnError,
    OutName,
    SetNameIfSeveral,
    StrictLlm,
    UseDegenerateLlm,
    UseEnvLlm,
    with_options,
    command_group,
)
from judges.core.process import finished, started
from judges.cli.attest import app as attest_app
from judges.cli.meta import app as meta_app
from judges.cli.banks import app as banks_app

if TYPE_CHECKING:
    from judges.attest.endpoint import Endpoint
    from judges.core.config import Workflow
    from judges.session.options import RunOptions
    from judges.session.spec import Inputs, Outputs

MAX_WORKERS = 256  # more are never useful (and are also capped at the number of topics)
COMPILED_S = 5.0  # loading the cached kernels takes under a second; longer means they were compiled
HELP_WIDTH = 104  # --help is as wide as the terminal up to this


class Commands(TyperGroup):
    """The judge (no command) and its commands; a first word that is none of them is named, with
    the closest command, in one line (exit code 2)."""

    def resolve_command(self, ctx: typer.Context, args: list[str]):
        word = args[0]
        if self.get_command(ctx, word) is None and not word.startswith("-"):
            import difflib

            commands = list(self.list_commands(ctx))
            close = difflib.get_close_matches(word, commands, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            error(
                f"unknown command {word!r}: {hint}commands: {', '.join(commands)}; "
                f"without a command, {ctx.command_path} judges (see --help)"
            )
            ctx.exit(2)
        return super().resolve_command(ctx, args)

    def invoke(self, ctx):  # a typer.Context
        """Run the command; Ctrl-C that no command turned into its own line is one line, exit 130
        (click's would be an empty line, 'Aborted!' and exit 1)."""
        program = False
        try:
            program = started()  # until now (imports, parsing) Ctrl-C ended the process at once (judges.core.process)
            return super().invoke(ctx)
        except KeyboardInterrupt as e:
            say("interrupted", err)
            raise typer.Exit(128 + int(getattr(e, "signum", signal.SIGINT))) from None
        finally:
            if program:
                finished()


app = typer.Typer(
    cls=Commands,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    subcommand_metavar="[COMMAND [ARGS]...]",
    context_settings={"max_content_width": HELP_WIDTH},
)


def _version(shown: bool) -> None:
    if shown:
        from judges.version import __version__

        print(f"citejudge {__version__}")
        raise typer.Exit()


@app.callback(
    invoke_without_command=True,
    help=(
        "Judge the citations of RAG runs: qrels, leaderboards, debug log and Parquet tables. "
        "Without a command it judges; a command does something else with its own options (COMMAND --help)."
    ),
)
@with_options(JudgeOptions)
def main(
    ctx: typer.Context,
    options: JudgeOptions,
    version: Annotated[
        bool, typer.Option("--version", "-V", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    if ctx.invoked_subcommand is not None:
        _judge_options_unused(ctx)
        return
    if not options.rag_responses:
        ctx.fail("Missing option '--rag-responses'.")  # required to judge, not with a command
    _judge(options)


def _judge_options_unused(ctx: typer.Context) -> None:
    """A command was given: the judge's options (before it) would be ignored, so they are refused."""
    given = [p for p in ctx.command.params if getattr(ctx.get_parameter_source(p.name), "name", "") == "COMMANDLINE"]
    if given:
        ctx.fail(
            f"{given[0].opts[0]} is an option of judging (without a command), not of {ctx.invoked_subcommand!r}: "
            f"see {ctx.command_path} {ctx.invoked_subcommand} --help"
        )


def _judge(options: JudgeOptions) -> None:
    """Judge (the app without a command): validate the options, run the session, print the summary."""
    started = time.perf_counter()
    from judges.core.process import quiet_collector

    quiet_collector()  # until the kernels are loaded (settle_collector)
    from judges.align.backends import BackendUnavailable  # here, not at import: --help stays fast

    previous_sigterm = signal.signal(signal.SIGTERM, _terminate)
    try:
        request = _request(options)
        summary, compiling = _run_session(request)
    except InputError as e:
        raise fail(e.render())
    except BackendUnavailable as e:
        raise fail(f"--backend: {e}")
    except OSError as e:  # e.g. an output directory that cannot be written
        raise fail(f"{e.filename or ''}: {e.strerror or e}")
    except KeyboardInterrupt as e:
        signum = getattr(e, "signum", signal.SIGINT)
        if getattr(e, "replaced", False):
            say("interrupted: the outputs had just been replaced, all of them, by this run's", err)
        else:
            say("interrupted: no output was replaced (outputs are replaced only when all are complete)", err)
        raise typer.Exit(128 + int(signum))
    finally:
        signal.signal(signal.SIGTERM, previous_sigterm)
    if request.shard is not None:
        k, n = request.shard
        say(
            f"wrote part {k} of {n}: {summary.files['part']} ({summary.counts[CITATIONS]:,} citations judged) "
            f"in {time.perf_counter() - started:.1f} s; then: run_judge.py merge OUT --name NAME PART..."
        )
        return
    from judges.cli.summary import print_summary

    print_summary(summary, time.perf_counter() - started, compiling)


class _Request(NamedTuple):
    """What the command line asks of one judging session (:func:`judges.session.pipeline.run`'s
    arguments; ``options``' progress is the bar's, bound once the bar is shown)."""

    inputs: Inputs
    outputs: Outputs
    workflow: Workflow
    options: RunOptions
    shard: Optional[tuple[int, int]] = None
    dask: Optional[str] = None
    dask_shards: Optional[int] = None


def _request(o: JudgeOptions) -> _Request:
    """The session the command line asks for, checked: its inputs and outputs, and the workflow
    with the command line's ``--attest`` and ``--backend`` folded in (config.yml records them)."""
    from judges.core.config import load_workflow
    from judges.session.nuggets import session_headline
    from judges.session.options import RunOptions
    from judges.session.spec import Inputs, Outputs

    if o.workers is not None and not 1 <= o.workers <= MAX_WORKERS:
        raise InputError(
            "--workers",
            None,
            None,
            f"{o.workers} is not between 1 and {MAX_WORKERS} (and never more than the topics are used)",
        )
    shard = None
    if o.shard is not None:
        from judges.session.shards import parse_shard

        shard = parse_shard(o.shard)
        if o.workers is not None and o.workers > 1:
            raise InputError("--workers", None, None, f"{o.workers}: a shard is one process (use more shards)")
    if o.dask is not None and shard is not None:
        raise InputError("--dask", None, None, "give either --dask or --shard, not both (--dask runs every shard)")
    if o.refit_support and (shard is not None or o.dask is not None):
        why = "not with --shard or --dask: a shard sees only its own topics' labels"
        raise InputError("--refit-support", None, None, why)
    if o.dask_shards is not None and o.dask is None:
        raise InputError("--dask-shards", None, None, "only with --dask")
    if o.strict_llm and o.use_degenerate_llm:
        raise InputError("--use-degenerate-llm", None, None, "give either --strict-llm or --use-degenerate-llm")
    if o.no_debug_log and o.debug_log is not None:
        raise InputError("--debug-log", None, None, "give either --debug-log or --no-debug-log, not both")
    _check_nugget_options(o)
    if "/" in o.name or "\\" in o.name or o.name in ("", ".", ".."):
        raise InputError("--name", None, None, f"{o.name!r} must be a plain file name")
    wf = load_workflow(o.workflow)
    if o.attest is not None:
        wf = wf.model_copy(update={"attest": wf.attest.model_copy(update={"mode": o.attest.value})})
    if o.backend is not None:
        wf = wf.model_copy(update={"alignment": wf.alignment.model_copy(update={"backend": o.backend.value})})
    asked = wf.attest.mode != "none"
    llm = _endpoint(o.use_env_llm, o.llm_config, read=asked)
    if (o.use_env_llm or o.llm_config is not None) and not asked:
        given_by = "--use-env-llm" if o.use_env_llm else "--llm-config"
        warn(f"{given_by}: the workflow's attest.mode is none: no LLM is asked, and the endpoint is not read")
    extra = tuple(f.value for f in o.leaderboard_format if f is not LeaderboardFormat("ir_measures"))
    given = Inputs(
        topics=list(o.rag_topics),
        responses=list(o.rag_responses),
        corpus=o.corpus,
        workflow_path=o.workflow,
        labels=tuple(o.labels),
        refit_support=o.refit_support,
        dataset=o.dataset.value,
        max_topics=o.max_topics,
        max_runs=o.max_runs,
        on_error=o.on_error.value,
        # nuggets only: the citations' documents are not needed
        allow_missing_text=o.allow_missing_text or (o.judge is JudgeName.nugget and o.corpus is None),
        allow_few_topics=o.allow_few_topics,
        headline=session_headline(o.judge.value, o.headline),
        nuggets=o.nuggets,
        judge=o.judge.value,
        battle_opponents=o.battle_opponents,
        nugget_model=o.nugget_model,
    )
    outputs = Outputs(
        out_dir=o.out_dir,
        name=o.name,
        debug_log=o.debug_log,
        no_debug_log=o.no_debug_log,
        leaderboard_formats=tuple(dict.fromkeys(("ir_measures", *extra))),
    )
    options = RunOptions(llm, o.cache_dir, o.workers or 0, o.strict_llm, o.use_degenerate_llm, warn=warn)
    return _Request(given, outputs, wf, options, shard, o.dask, o.dask_shards)


def _endpoint(use_env_llm: bool, llm_config: Optional[Path], read: bool = True) -> Optional[Endpoint]:
    """The LLM endpoint ``--use-env-llm`` or ``--llm-config`` names (None: neither, or not ``read``:
    nothing will be asked); both given is an error."""
    if use_env_llm and llm_config is not None:
        raise InputError("--llm-config", None, None, "give either --use-env-llm or --llm-config, not both")
    if not read or not (use_env_llm or llm_config is not None):
        return None
    from judges.attest import endpoint

    return endpoint.from_file(llm_config) if llm_config is not None else endpoint.from_env()  # not both (above)


def _check_nugget_options(o: JudgeOptions) -> None:
    """``--judge nugget``/``argue`` need ``--nuggets`` (and only they take it); nuggets only need no
    corpus (the citations are judged ``missing``)."""
    if o.judge in (JudgeName.nugget, JudgeName.argue) and o.nuggets is None:
        raise InputError("--judge", None, None, f"{o.judge.value} needs --nuggets FILE (a nugget bank)")
    if o.judge is JudgeName.citation and o.nuggets is not None:
        raise InputError("--nuggets", None, None, "only with --judge nugget, argue or battle")
    if o.judge is not JudgeName.battle and o.battle_opponents is not None:
        raise InputError("--battle-opponents", None, None, "only with --judge battle")


def _run_session(request: _Request):
    """Judge with a progress bar on a terminal; returns the summary and the seconds spent compiling."""
    from judges.session import pipeline
    from judges.core.process import arrow_without_pandas, numba_without_scipy_blas, settle_collector

    arrow_without_pandas()  # this process ends with the summary: no pandas in it
    numba_without_scipy_blas()  # the text kernels are Numba's whatever the alignment backend
    compiling = _prepare_numba(request.workflow) if request.workflow.alignment.backend == "numba" else 0.0
    settle_collector()
    title = "judging citations" if request.dask is None else "{task.description}"
    with progress_bar(title, MofNCompleteColumn()) as bar:
        task = bar.add_task("judging citations on Dask", total=None)
        options = dataclasses.replace(request.options, progress=advancing(bar, task))
        given = (request.inputs, request.outputs, request.workflow)
        if request.dask is not None:
            from judges.session import cluster

            def on_shards(done: int, n: int) -> None:
                bar.update(task, description=f"judging citations on Dask ({done}/{n} shards done)")
                if not err.is_terminal and done:  # no bar: a line per shard, for a batch job's log
                    judged = bar.tasks[0].completed
                    say(f"{done}/{n} shards done, {judged:,.0f} citations judged", err)

            summary = cluster.run(request.dask, *given, options, shards=request.dask_shards, on_shards=on_shards)
            return summary, compiling
        if request.shard is not None:
            from judges.session.shards import judge_shard

            return judge_shard(*given, request.shard, options), compiling  # the LLM's model recorded only
        return pipeline.run(*given, options), compiling


def _terminate(signum, frame) -> None:
    """SIGTERM ends the run as Ctrl-C does: staged files removed, an honest message, exit 143."""
    from judges.formats.outset import Interrupted

    raise Interrupted(False, signum)


def _prepare_numba(workflow) -> float:
    """Load (or, on a fresh install, compile) every Numba kernel, saying so instead of looking hung.
    Returns the seconds spent compiling (0 when the kernels came from the cache)."""
    import numba

    from judges.session.pipeline import prepare

    # One process: the kernel's prange may use every core. Worker processes use one thread each.
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # set from the environment at import
    with err.status("loading the Numba kernels (the first run after install compiles them, about half a minute)..."):
        t = time.perf_counter()
        prepare(workflow)
    seconds = time.perf_counter() - t
    if seconds <= COMPILED_S:
        return 0.0
    say(f"compiled the Numba kernels in {seconds:.0f} s (cached for later runs)", err)
    return seconds


# ---------------------------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------------------------
@app.command(
    "report",
    short_help="A static HTML report of a judged set: leaderboard, plots, every citation's evidence.",
    help=(
        "Turn a judge's output directory into a static HTML report that opens from the file system: "
        "leaderboard with 95% intervals (and the truth), plots, "
        "and per run and topic the answer with every citation's document, evidence, scores and explanation."
    ),
)
def report(
    out_dir: JudgedDir,
    name: SetNameIfSeveral = None,
    report_dir: Optional[Path] = typer.Option(
        None, "--report-dir", help="Where to write the report (default OUT_DIR/NAME.report)."
    ),
    truth: Optional[Path] = typer.Option(
        None, "--truth", help="Truth leaderboard (any format meta-evaluate reads), shown beside the judge's."
    ),
    truth_measure: Optional[str] = typer.Option(
        None,
        "--truth-measure",
        help="The truth's measure, HUMAN_X set against X (default: HUMAN_ and the headline measure).",
    ),
    labels: Optional[Path] = typer.Option(None, "--labels", help="Human labels JSONL: disagreements become a filter."),
    responses: MovedResponses = [],  # noqa: B006 (typer reads it; never mutated)
    corpus: MovedCorpus = None,
    resamples: int = typer.Option(1000, "--resamples", min=0, help="Bootstrap resamples for the intervals."),
) -> None:
    from judges.report import DocumentStore, build_report

    try:
        if not out_dir.is_dir():
            raise InputError(out_dir, None, "OUT_DIR", "no such directory")
        _given_inputs_exist(responses, corpus)
        store = DocumentStore(out_dir, name, responses=list(responses) or None, corpus=corpus)
        done = build_report(store, report_dir, truth, truth_measure, labels, resamples, warn=warn)
    except InputError as e:
        raise fail(e.render())
    except FileNotFoundError as e:
        raise fail(f"{out_dir}: {e}")
    except OSError as e:  # a full disk: the previous report stays (judges.formats.swapdir)
        raise fail(f"{e.filename or ''}: {e.strerror or e}; the previous report is as it was")
    say(
        f"wrote {done['path']} ({done['files']} files, {done['bytes'] / 1e6:.1f} MB, "
        f"largest {done['largest'] / 1e3:.0f} kB) in {done['seconds']:.1f} s"
    )


# ---------------------------------------------------------------------------------------------
# merge
# ---------------------------------------------------------------------------------------------
@app.command(
    "merge",
    short_help="Merge the partial sets of --shard K/N into the output set one process writes.",
    help=(
        "Merge the N partial sets written by --shard K/N (OUT_DIR/NAME.part-K-of-N.arrow) into the output set of "
        "one process over all topics, byte for byte (the debug log apart from its timestamps). With LLM "
        "attestation the shards judged the first pass: the merge plans and asks (or reads the answer cache). "
        "A part missing, given twice or of another session is one error line, and nothing is written."
    ),
)
def merge(
    out_dir: Path = typer.Argument(..., help="Directory for the merged outputs."),
    parts: List[Path] = typer.Argument(..., help="The partial sets, NAME.part-K-of-N.arrow, all N of them."),
    name: OutName = "citejudge",
    use_env_llm: UseEnvLlm = False,
    llm_config: LlmConfig = None,
    cache_dir: CacheDir = None,
    strict_llm: StrictLlm = False,
    use_degenerate_llm: UseDegenerateLlm = False,
) -> None:
    started = time.perf_counter()
    from judges.core.process import arrow_without_pandas

    arrow_without_pandas()
    previous_sigterm = signal.signal(signal.SIGTERM, _terminate)
    try:
        from judges.session.options import RunOptions

        llm = _endpoint(use_env_llm, llm_config)
        summary = _merge(out_dir, parts, name, RunOptions(llm, cache_dir, 0, strict_llm, use_degenerate_llm, warn))
    except InputError as e:
        raise fail(e.render())
    except OSError as e:
        raise fail(f"{e.filename or ''}: {e.strerror or e}")
    except KeyboardInterrupt as e:
        say("interrupted: no output was replaced" if not getattr(e, "replaced", False) else "interrupted", err)
        raise typer.Exit(128 + int(getattr(e, "signum", signal.SIGINT)))
    finally:
        signal.signal(signal.SIGTERM, previous_sigterm)
    from judges.cli.summary import print_summary

    print_summary(summary, time.perf_counter() - started)


def _merge(out_dir, parts, name, options: RunOptions):
    """The merge of ``parts``, with a progress bar (``options``' progress; workers: the shards')."""
    from judges.session.shards import merge as merge_parts

    with progress_bar("merging", MofNCompleteColumn()) as bar:
        task = bar.add_task("merge", total=None)
        return merge_parts(list(parts), out_dir, name, dataclasses.replace(options, progress=advancing(bar, task)))


# ---------------------------------------------------------------------------------------------
# check-answer
# ---------------------------------------------------------------------------------------------
@app.command(
    "check-answer",
    short_help="Judge one answer against its sources (judges.check_answer): a table, or JSON for scripts.",
    help=(
        "Judge one answer against its sources with the batch judge's own code: per sentence its span, "
        "status and sources (evidence offsets, probabilities, explanation). Without citations in the "
        "answer every source is tried for every sentence."
    ),
    context_settings={"allow_extra_args": True},  # --sources A B: click gives an option one value, B comes here
)
def check_answer(
    ctx: typer.Context,
    answer: Path = typer.Option(
        ...,
        "--answer",
        help="The answer: a text file, or JSON (a list of sentences: strings or {text, citations}); - for stdin.",
    ),
    sources: List[Path] = typer.Option(
        ...,
        "--sources",
        metavar="FILE...",
        help="Source files (several after one --sources, or --sources repeated): a JSONL file is one source "
        "per line ({id, text, title}), any other file one source named by its file name.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    markers: Optional[MarkerStyle] = typer.Option(
        None,
        "--markers",
        help="Print the answer with markers naming each sentence's sources (judges.annotate) instead of the "
        "table; with --json, as its 'annotated' field.",
    ),
    nuggets: Optional[Path] = typer.Option(
        None, "--nuggets", help="A nugget file as the judge's --nuggets reads it: its nuggets judged in the answer."
    ),
    topic: Optional[str] = typer.Option(None, "--topic", help="The topic of --nuggets, when it holds several banks."),
) -> None:
    import dataclasses
    import json
    import sys

    from judges.api.answer import InputProblem, check_answer
    from judges.api.markers import annotate
    from judges.cli.answer_files import answer_of, file_line, read_text, sources_of
    from judges.core.process import arrow_without_pandas, numba_without_scipy_blas

    arrow_without_pandas()  # one answer needs neither pandas nor scipy.linalg (bench/check_answer_cli.py)
    numba_without_scipy_blas()
    from judges.nuggets.check import bank_in_file

    name = "<stdin>" if str(answer) == "-" else str(answer)
    try:
        text = sys.stdin.read() if str(answer) == "-" else read_text(answer, "--answer")
        given, lines = answer_of(text, name)
        docs, origins = [], []  # each source, and the file and line it came from
        for path in [*sources, *map(Path, ctx.args)]:
            for line, doc in sources_of(path):
                docs.append(doc)
                origins.append((path, line))
        bank = None if nuggets is None else bank_in_file(nuggets, topic)
        checked = check_answer(given, docs, nuggets=bank)
    except InputError as e:
        raise fail(e.render())
    except InputProblem as e:  # where it is: the answer's line, or the source's file and line
        where: tuple[Any, Optional[int]] = (name, lines[e.index] if lines else None)
        path, line = where if e.where == "answer" else origins[e.index]
        first = "" if e.first is None else f" (first in {file_line(*origins[e.first])})"
        raise fail(InputError(path, line, None, e.problem + first).render())
    except ValueError as e:
        raise fail(f"check-answer: {e}")
    annotated = {} if markers is None else {"annotated": annotate(given, checked, markers.value)}
    if as_json:
        print(json.dumps(dataclasses.asdict(checked) | annotated, ensure_ascii=False, indent=1))
        return
    if annotated:
        print(annotated["annotated"])
        return
    from rich.table import Table

    table = Table(title=f"{len(checked.sentences)} sentences; groundedness {checked.measures['GROUNDEDNESS']:.3f}")
    for head in ("#", "span", "status", "sources (status, evidence)"):
        table.add_column(head)
    for s in checked.sentences:
        cited = "; ".join(
            f"{c.source_id} {c.status} [{c.char_start}:{c.char_end}] {c.evidence[:60]!r}" for c in s.citations
        )
        span = f"{s.start}:{s.end}" if s.start >= 0 else "-"
        table.add_row(str(s.index), span, s.status, cited or s.reason or "-")
    show(table)
    if checked.nuggets is not None:
        _show_nuggets(checked, given)


def _show_nuggets(checked, given) -> None:
    from rich.table import Table

    from judges.nuggets.answers import joined
    from judges.nuggets.check import table_rows

    text = given if isinstance(given, str) else joined(s.text for s in checked.sentences)
    values = " ".join(f"{m} {v:.3f}" for m, v in checked.measures.items() if m.startswith("NUGGET_"))
    table = Table(title=f"{len(checked.nuggets)} nuggets; {values}")
    for head in ("#", "nugget", "importance", "status", "P(support / partial / not)", "spans", "explanation"):
        table.add_column(head)
    for row in table_rows(checked.nuggets, text):
        table.add_row(*row)
    show(table)


def _given_inputs_exist(responses: List[Path], corpus: Optional[Path]) -> None:
    given = [("--rag-responses", p) for p in responses] + ([("--corpus", corpus)] if corpus is not None else [])
    for option, path in given:
        if not path.exists():
            raise InputError(path, None, option, "no such file or directory")


# ---------------------------------------------------------------------------------------------
# corpus index | lookup | info
# ---------------------------------------------------------------------------------------------
corpus_app = command_group(
    "A docstore for big corpora (MS MARCO v2.1 segmented shards or any JSONL(.gz)): "
    "build once, then --corpus reads only cited ids."
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
        warn(f"skipped corpus line: {e.render()}")

    try:
        with progress_bar("indexing corpus", TextColumn("{task.percentage:>3.0f}%")) as bar:
            task = bar.add_task("index", total=None)
            figures = docstore.build(
                source, output, problem, lambda done, total: bar.update(task, completed=done, total=total)
            )
    except InputError as e:
        raise fail(e.render())
    except OSError as e:
        raise fail(f"{e.filename or source}: {e.strerror or e}")
    except sqlite3.Error as e:  # e.g. the store's directory cannot be written
        raise fail(f"{output or docstore.store_path_for(source)}: {e}")
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
    show(table)


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
        raise fail(e.render())
    for doc_id in ids:
        if doc_id in found:
            print(orjson.dumps(found[doc_id]._asdict()).decode())
        elif doc_id in missing:
            say(f"missing: {doc_id}: {missing.pop(doc_id)}", err)
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
        raise fail(e.render())
    for key, value in stats.items():
        say(f"{key}: {value}")


app.add_typer(corpus_app, name="corpus", short_help="A docstore for big corpora: index, lookup, info.")
app.add_typer(attest_app, name="attest", short_help="The LLM stage through batch files: export, import.")
app.add_typer(banks_app)  # create-nuggets
app.add_typer(meta_app)  # meta-evaluate, agreement, convert-labelled, calibrate(-nuggets), plan-assessments


def run() -> None:
    """``run_judge.py`` / ``citejudge`` / ``python -m judges``."""
    app()


if __name__ == "__main__":
    run()
