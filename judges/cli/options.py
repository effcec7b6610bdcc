"""The command line's options, declared once and typed.

An option several commands take is one ``Annotated`` alias here, used by each of them (``--name``,
the LLM endpoint, ``--rag-responses``/``--corpus`` of a judged set, ...). The judge's options (the
app without a command) are the fields of one frozen record, :class:`JudgeOptions`; :class:`Command`
makes a function that takes the record a typer command with one parameter per field, so neither
the command nor what it calls restates them.

Typer reads these at ``--help`` and parsing: nothing here imports more than typer and the
vocabularies (``--help`` stays fast).
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Callable, List, Optional

import typer

from judges.formats.runs import DATASETS
from judges.formats.trec import LEADERBOARD_FORMATS
from judges.core.vocabulary import BACKENDS, MARKER_STYLES


def command_group(help: str) -> typer.Typer:
    """A group of commands under one name (``run_judge.py corpus ...``, ``attest ...``): its
    ``help``, shown also when no command is given."""
    return typer.Typer(
        add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None, no_args_is_help=True, help=help
    )


class JudgeName(str, Enum):
    citation = "citation"
    nugget = "nugget"  # nugget recall only (--nuggets)
    argue = "argue"  # citations and nuggets in one session, and NUGGET_F1 (--nuggets)
    battle = "battle"  # argue's (nuggets with --nuggets) and battles: two answers per topic side by side


Dataset = Enum("Dataset", {n: n for n in DATASETS}, type=str)  # type: ignore[misc]


class OnError(str, Enum):
    fail = "fail"
    skip = "skip"


LeaderboardFormat = Enum("LeaderboardFormat", {n: n for n in LEADERBOARD_FORMATS}, type=str)  # type: ignore[misc]


class AttestMode(str, Enum):
    none = "none"
    uncertain = "uncertain"
    all = "all"


BackendName = Enum("BackendName", {n: n for n in sorted(BACKENDS)}, type=str)  # type: ignore[misc]
MarkerStyle = Enum("MarkerStyle", {n: n for n in MARKER_STYLES}, type=str)  # type: ignore[misc]

# -- the options several commands take ------------------------------------------------------------
#: the name of the set a command writes (the judge, merge)
OutName = Annotated[str, typer.Option("--name", help="Base name of every output file.")]
#: the judged set a command reads, by name
SetName = Annotated[str, typer.Option("--name", help="The judged set's name.")]
#: the judged set a command reads, when its directory holds several
SetNameIfSeveral = Annotated[
    Optional[str], typer.Option("--name", help="Output name, when the directory holds several judged sets.")
]
#: the directory of a judged set
JudgedDir = Annotated[Path, typer.Argument(help="The judge's output directory (--out-dir of the judge run).")]
#: the inputs of a judged set, when they moved since judging
MovedResponses = Annotated[
    List[Path],
    typer.Option("--rag-responses", help="Run files, when they moved since judging (default: the config's)."),
]
MovedCorpus = Annotated[
    Optional[Path], typer.Option("--corpus", help="Corpus file, when it moved since judging (default: the config's).")
]
#: the LLM endpoint and its answers
UseEnvLlm = Annotated[
    bool, typer.Option("--use-env-llm", help="LLM endpoint from OPENAI_BASE_URL, OPENAI_MODEL and OPENAI_API_KEY.")
]
LlmConfig = Annotated[
    Optional[Path],
    typer.Option(
        "--llm-config",
        help="LLM endpoint from a YAML file with the keys OPENAI_BASE_URL, OPENAI_MODEL, OPENAI_API_KEY.",
    ),
]
CacheDir = Annotated[
    Optional[Path],
    typer.Option(
        "--cache-dir",
        help="Directory of the LLM answer cache (default OUT_DIR); share it between runs to never ask twice.",
    ),
]
StrictLlm = Annotated[
    bool,
    typer.Option(
        "--strict-llm",
        help=(
            "A degenerate LLM judge (all answers the same, or agreeing with the support model's confident "
            "decisions no better than chance) is an error (exit 2, no output replaced), not a warning."
        ),
    ),
]
UseDegenerateLlm = Annotated[
    bool,
    typer.Option(
        "--use-degenerate-llm",
        help=(
            "Use a degenerate LLM judge's answers anyway. Without it they are not used: the citations keep the "
            "support model's judgment, with a warning in the summary and config.yml."
        ),
    ),
]
#: the judge's per-citation table and the words of label files (agreement, calibrate)
Assessments = Annotated[
    Path, typer.Option("--assessments", help="NAME.assessments.parquet, or the judge's output directory.")
]
LabelMap = Annotated[
    List[str],
    typer.Option(
        "--label-map",
        help=(
            "FROM=TO: read the label FROM (any case) as TO (supported, partially, not_supported), over the synonyms "
            "(partially_supported, partial, PS, FS, NS, 0/1/2...); repeatable, e.g. --label-map 1=supported for "
            "binary 0/1 labels."
        ),
    ),
]


# -- the judge's -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class JudgeOptions:
    """Every option of judging (the app without a command), in ``--help`` order."""

    judge: Annotated[
        JudgeName,
        typer.Option(
            "--judge",
            help="Judge to run: citation (citation support), nugget (nugget recall, needs --nuggets), argue "
            "(both in one session, and NUGGET_F1) or battle (citations, nuggets with --nuggets, and every "
            "pair of answers to a topic side by side: verdicts, Bradley-Terry ranking, BATTLE_SCORE).",
        ),
    ] = JudgeName.citation
    battle_opponents: Annotated[
        Optional[float],
        typer.Option(
            "--battle-opponents",
            min=1,
            help="--judge battle under a budget: about this many opponents per run and topic, drawn where the "
            "outcome is least certain, each battle with a known probability (default: every pair).",
        ),
    ] = None
    nuggets: Annotated[
        Optional[Path],
        typer.Option(
            "--nuggets",
            help=(
                "Nugget bank file for --judge nugget/argue: NIST's nuggets.jsonl or nugget_assignment.*.jl, "
                "nuggetizer output, or AutoJudge NuggetBanks (JSON Lines or JSON); 'auto': a bank made from the "
                "answers (no LLM; a run judged only by the nuggets other runs state)."
            ),
        ),
    ] = None
    nugget_model: Annotated[
        str,
        typer.Option("--nugget-model", help="Nugget model: rag24 (built in) or a file written by calibrate-nuggets."),
    ] = "rag24"
    rag_topics: Annotated[
        List[Path],
        typer.Option(
            "--rag-topics",
            help="Topics file (JSONL, JSON array or TREC TSV) or directory; repeatable. Without it the topics are "
            "those the runs answer (their titles unknown).",
        ),
    ] = field(default_factory=list)
    rag_responses: Annotated[
        List[Path],
        typer.Option(
            "--rag-responses",
            help="Run files (JSONL or JSON array, .gz) or directories (recursive; a topics file among them is "
            "skipped); repeatable. Required to judge.",
        ),
    ] = field(default_factory=list)
    workflow: Annotated[Optional[Path], typer.Option("--workflow", help="Workflow YAML (thresholds, policies).")] = None
    corpus: Annotated[
        Optional[Path],
        typer.Option(
            "--corpus",
            help="Corpus for documents not embedded in runs: a JSONL(.gz) file (streamed), "
            "or a shard directory or docstore built by `run_judge.py corpus index` (only cited ids read).",
        ),
    ] = None
    out_dir: Annotated[Path, typer.Option("--out-dir", help="Directory for all outputs.")] = Path("output")
    name: OutName = "citejudge"
    dataset: Annotated[Dataset, typer.Option("--dataset", help="Track shape to expect (auto detects per report).")] = (
        Dataset("auto")
    )
    max_topics: Annotated[Optional[int], typer.Option("--max-topics", min=1, help="Judge only the first N topics.")] = (
        None
    )
    max_runs: Annotated[
        Optional[int], typer.Option("--max-runs", min=1, help="Judge only the first N runs (file order).")
    ] = None
    debug_log: Annotated[
        Optional[Path], typer.Option("--debug-log", help="Debug log path (default OUT_DIR/NAME.jsonl).")
    ] = None
    no_debug_log: Annotated[
        bool, typer.Option("--no-debug-log", help="Write no debug log (about 1.2 KB per citation).")
    ] = False
    on_error: Annotated[
        OnError, typer.Option("--on-error", help="fail on the first bad record, or skip and count it.")
    ] = OnError.fail
    leaderboard_format: Annotated[
        List[LeaderboardFormat],
        typer.Option(
            "--leaderboard-format", help="Extra leaderboard formats besides ir_measures (tot, jsonl); repeatable."
        ),
    ] = field(default_factory=list)
    backend: Annotated[
        Optional[BackendName], typer.Option("--backend", help="Alignment engine (default: the workflow's).")
    ] = None
    workers: Annotated[
        Optional[int],
        typer.Option(
            "--workers",
            help="Worker processes, topics split between them (default: all cores from 50k citations; "
            "the summary says which).",
        ),
    ] = None
    attest: Annotated[
        Optional[AttestMode],
        typer.Option(
            "--attest",
            help="LLM attestation: none, uncertain (about attest.budget of the citations, where an answer is "
            "expected to move the leaderboard most) or all (default: the workflow's).",
        ),
    ] = None
    use_env_llm: UseEnvLlm = False
    llm_config: LlmConfig = None
    cache_dir: CacheDir = None
    labels: Annotated[
        List[Path],
        typer.Option(
            "--labels",
            help="Assessors' per-citation labels (JSONL: run_id, topic_id, sentence_index, doc_id, label), final: a "
            "labelled citation weighs its label's level, is never sent to the LLM, and narrows the intervals. "
            "Repeat it (or give a directory) for several rounds: all are in effect; a citation labelled two "
            "ways is an error.",
        ),
    ] = field(default_factory=list)
    refit_support: Annotated[
        bool,
        typer.Option(
            "--refit-support",
            help=(
                "With --labels: re-fit the support model's class prior (its two intercepts) on the labelled "
                "citations, so that this track's stricter or looser assessors move the other citations too "
                "(one more pass without the LLM; the summary and config.yml say on how many labels). Not with "
                "--shard or --dask."
            ),
        ),
    ] = False
    allow_missing_text: Annotated[
        bool,
        typer.Option(
            "--allow-missing-text",
            help=(
                "Judge even when no cited document has text (no --corpus, nothing embedded): every citation 'missing'."
            ),
        ),
    ] = False
    headline: Annotated[
        Optional[str],
        typer.Option(
            "--headline",
            metavar="MEASURE",
            help=(
                "The measure the summary and the report rank runs by (a measure of the leaderboard); default "
                "the judge's: WEIGHTED_PRECISION (citation), NUGGET_ALL (nugget), NUGGET_F1 (argue)."
            ),
        ),
    ] = None
    allow_few_topics: Annotated[
        bool,
        typer.Option(
            "--allow-few-topics",
            help=(
                "Judge though under half of the runs' reports are of a topic of --rag-topics (a subset of the "
                "topics on purpose); without it that is an error. Topics none of the reports answer are always one."
            ),
        ),
    ] = False
    strict_llm: StrictLlm = False
    use_degenerate_llm: UseDegenerateLlm = False
    shard: Annotated[
        Optional[str],
        typer.Option(
            "--shard",
            help="K/N: judge only the topics of shard K of N (topics dealt by their citations), in one process, "
            "and write the partial set OUT_DIR/NAME.part-K-of-N.arrow for `merge`.",
        ),
    ] = None
    dask: Annotated[
        Optional[str],
        typer.Option(
            "--dask",
            help=(
                "Judge topic shards as tasks on the Dask cluster at this scheduler address (or local:N, a "
                "LocalCluster of N processes) and merge them here; inputs and OUT_DIR on paths every worker sees."
            ),
        ),
    ] = None
    dask_shards: Annotated[
        Optional[int],
        typer.Option(
            "--dask-shards", min=1, help="With --dask: how many shards (default: the cluster's worker threads)."
        ),
    ] = None


class Command:
    """A typer command from ``function(..., options: RECORD, ...)``: typer sees one parameter per
    field of the dataclass RECORD (its ``Annotated`` type and default) in place of ``options``, and
    ``function`` is called with the record built from them."""

    def __init__(self, function: Callable[..., Any], record: type) -> None:
        hints = typing.get_type_hints(record, include_extras=True)
        own = inspect.signature(function, eval_str=True)
        keyword = inspect.Parameter.KEYWORD_ONLY
        parameters: list[inspect.Parameter] = []
        for p in own.parameters.values():
            if p.name != "options":
                parameters.append(p.replace(kind=keyword))
                continue
            for f in dataclasses.fields(record):
                default = f.default_factory() if f.default is dataclasses.MISSING else f.default  # type: ignore[misc]
                parameters.append(inspect.Parameter(f.name, keyword, default=default, annotation=hints[f.name]))
        self.function, self.record = function, record
        self.fields = tuple(f.name for f in dataclasses.fields(record))
        self.__name__, self.__doc__, self.__module__ = function.__name__, function.__doc__, function.__module__
        self.__signature__ = own.replace(parameters=parameters)
        self.__annotations__ = {p.name: p.annotation for p in parameters}

    def __call__(self, **given: Any) -> Any:
        options = self.record(**{name: given.pop(name) for name in self.fields})
        return self.function(options=options, **given)


def with_options(record: type) -> Callable[[Callable[..., Any]], Command]:
    """Decorator: :class:`Command` of the function and ``record``."""
    return lambda function: Command(function, record)
