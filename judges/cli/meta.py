"""The meta-evaluation commands of ``run_judge.py``: ``meta-evaluate``, ``agreement``,
``convert-labelled``, ``calibrate``, ``calibrate-nuggets`` (the nugget model,
:mod:`judges.meta.nugget_calibrate`) and ``plan-assessments``.

:data:`app`'s commands are commands of the one command line (:mod:`judges.cli.app` adds them). Bad
input ends with one line ``error: path:line: field: problem`` and exit code 2, as for judging.
Importing this module is cheap (no pandas): ``--help`` and ``--version`` stay fast.
"""

from __future__ import annotations

import math
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from judges.cli.console import fail, say, show, warn
from judges.core.errors import InputError
from judges.formats import outputset
from judges.cli.options import Assessments, JudgedDir, LabelMap, MovedCorpus, MovedResponses, SetName, SetNameIfSeveral
from judges.core.vocabulary import LEADERBOARD_READ_FORMATS

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)


# read_any_leaderboard's; members from the registry, which mypy cannot list
Format = Enum("Format", {n: n for n in ("auto", *LEADERBOARD_READ_FORMATS)}, type=str)  # type: ignore[misc]


class OnMissing(str, Enum):
    error = "error"
    warn = "warn"
    skip = "skip"


class Positive(str, Enum):
    supported = "supported"
    supported_partially = "supported+partially"


class Layout(str, Enum):
    auto = "auto"
    attributionbench = "attributionbench"
    wice = "wice"
    factcheck = "factcheck"


def _num(x, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:.{digits}f}"


def _with_ci(value, low, high) -> str:
    text = _num(value)
    if not (low is None or high is None or math.isnan(low) or math.isnan(high)):
        text += f" [{_num(low)}, {_num(high)}]"
    return text


# ---------------------------------------------------------------------------------------------
# meta-evaluate
# ---------------------------------------------------------------------------------------------
@app.command(
    "meta-evaluate",
    short_help="Correlation of judge leaderboards with a truth leaderboard, with intervals.",
    help=(
        "Correlate judge leaderboards with a truth leaderboard (Kendall tau-b, Spearman, Pearson, tau_ap, "
        "tau_ap_b, Kendall@k, per-topic Pearson), with BCa bootstrap confidence intervals over topics."
    ),
)
def meta_evaluate(
    leaderboards: List[Path] = typer.Argument(
        ..., help="Judge leaderboard files or directories (trec_eval: one file per run)."
    ),
    truth: Path = typer.Option(
        ..., "--truth", "--truth-leaderboard", help="The truth leaderboard (file or directory)."
    ),
    truth_format: Format = typer.Option(Format("auto"), "--truth-format", help="Format of the truth (auto sniffs)."),
    truth_header: Optional[bool] = typer.Option(
        None, "--truth-header/--no-truth-header", help="First truth line is a header (default: detect)."
    ),
    eval_format: Format = typer.Option(
        Format("auto"), "--eval-format", help="Format of the judge leaderboards (auto sniffs)."
    ),
    eval_header: Optional[bool] = typer.Option(
        None, "--eval-header/--no-eval-header", help="First line is a header (default: detect)."
    ),
    truth_measure: List[str] = typer.Option(
        [], "--truth-measure", help="Truth measure(s) to use; repeatable (default: all)."
    ),
    eval_measure: List[str] = typer.Option(
        [], "--eval-measure", help="Judge measure(s) to use; repeatable (default: all)."
    ),
    correlation: List[str] = typer.Option(
        [],
        "--correlation",
        help=(
            "kendall, spearman, pearson, tau_ap, tau_ap_b, kendall@K, pearson_per_topic, kendall_per_topic or "
            "spearman_per_topic; repeatable (default: kendall, spearman, pearson, tau_ap, tau_ap_b, kendall@10, "
            "pearson_per_topic)."
        ),
    ),
    topic: List[str] = typer.Option(
        [], "--topic", help="Rank by the mean over these topics' rows, not the all rows; repeatable."
    ),
    recompute: bool = typer.Option(
        False, "--recompute", help="Rank by the mean of the per-topic rows (all topics) instead of the all rows."
    ),
    truth_topics: bool = typer.Option(
        False,
        "--truth-topics",
        help=(
            "Rank each run, on both sides, by its mean over the topics the truth has for that run "
            "(runs judged on different topics)."
        ),
    ),
    on_missing: OnMissing = typer.Option(
        OnMissing.error,
        "--on-missing",
        help="Runs or topics on one side only: error, warn (leave out), skip (silently).",
    ),
    resamples: int = typer.Option(
        1000, "--bootstrap", min=0, help="Bootstrap resamples of the topics for confidence intervals (0: none)."
    ),
    seed: int = typer.Option(0, "--seed", help="Bootstrap seed (same seed, same output)."),
    confidence: float = typer.Option(
        0.95, "--confidence", min=0.5, max=0.999, help="Confidence level of the intervals."
    ),
    output: Optional[Path] = typer.Option(None, "--output", help="Write the correlations to this .jsonl or .csv file."),
    output_values: Optional[Path] = typer.Option(
        None, "--output-values", help="Write every run's score with its interval to this .jsonl or .csv file."
    ),
    show_values: bool = typer.Option(False, "--show-values", help="Also print every run's score with its interval."),
) -> None:
    try:
        from judges.meta import correlation as corr
        from judges.meta import metaeval
        from judges.formats.leaderboards import read_any_leaderboard
        from judges.meta.results import table_format, write_table

        methods = tuple(dict.fromkeys(correlation)) or corr.DEFAULT_METHODS
        for m in methods:
            try:
                corr.parse_method(m)
            except ValueError as e:
                raise InputError("--correlation", None, None, str(e)) from None
        for path, option in ((output, "--output"), (output_values, "--output-values")):
            if path is not None:
                table_format(path, option)
        t = metaeval.Leaderboard(str(truth), truth, read_any_leaderboard(truth, truth_format.value, truth_header))
        judged = [
            metaeval.Leaderboard(str(p), p, read_any_leaderboard(p, eval_format.value, eval_header))
            for p in leaderboards
        ]
        opts = metaeval.MetaOptions(
            truth_measures=tuple(truth_measure),
            eval_measures=tuple(eval_measure),
            methods=methods,
            topics=tuple(topic),
            recompute=recompute,
            truth_topics=truth_topics,
            on_missing=on_missing.value,
            resamples=resamples,
            seed=seed,
            confidence=confidence,
        )
        result = metaeval.meta_evaluate(t, judged, opts, warn=warn)
        if output is not None:
            write_table(output, result.correlations, "--output")
        if output_values is not None:
            write_table(output_values, result.values, "--output-values")
    except InputError as e:
        raise fail(e.render())
    _print_correlations(result.correlations, methods, resamples > 0, confidence)
    if resamples > 0:
        say(
            f"intervals: {confidence:.0%} BCa bootstrap (bias-corrected and accelerated) over topics, "
            f"{resamples} resamples, seed {seed}"
        )
    if show_values:
        _print_values(result.values)


def _print_correlations(df, methods, with_ci: bool, confidence: float) -> None:
    """One table per judge leaderboard: a row per (truth measure, judge measure, correlation)."""
    import pandas as pd

    from judges.meta.metaeval import PER_TOPIC_RANKING

    ci = f"{confidence:.0%} BCa CI" if with_ci else None
    for ev, part in df.groupby("eval", sort=False):
        ranked = part[part["ranking"] != PER_TOPIC_RANKING]
        how = "all rows" if (ranked["ranking"] == "all").all() else "mean over the selected topics"
        say(f"meta-evaluation of {ev} (runs ranked by their {how})")  # a line: a path never folds in a title
        table = Table()
        for name in ("truth measure", "judge measure", "correlation", "value", *([ci] if ci else []), "runs", "topics"):
            table.add_column(
                name, justify="left" if name in ("truth measure", "judge measure", "correlation") else "right"
            )
        last = None
        for r in part.itertuples(index=False):
            pair = (r.truth_measure, r.eval_measure)
            shown = pair if pair != last else ("", "")
            last = pair
            topics = "-" if r.topics is pd.NA or r.topics is None else str(r.topics)
            interval = [] if not ci else ["" if _num(r.ci_low) == "n/a" else f"[{_num(r.ci_low)}, {_num(r.ci_high)}]"]
            table.add_row(*shown, r.method, _num(r.value), *interval, str(r.runs), topics)
        show(table)


def _print_values(df) -> None:
    table = Table(title="run scores (value [interval])")
    for name in ("leaderboard", "measure", "run", "value"):
        table.add_column(name, justify="right" if name == "value" else "left")
    for r in df.itertuples(index=False):
        table.add_row(r.leaderboard, r.measure, r.run_id, _with_ci(r.value, r.ci_low, r.ci_high))
    show(table)


# ---------------------------------------------------------------------------------------------
# agreement
# ---------------------------------------------------------------------------------------------
@app.command(
    "agreement",
    short_help="Agreement of the judge's decisions with human labels.",
    help=(
        "Compare the judge's per-citation or per-sentence decisions (NAME.assessments.parquet) with human "
        "labels: accuracy, balanced accuracy, macro-F1, Cohen's kappa, ROC-AUC, confusion matrix."
    ),
)
def agreement(
    assessments: Assessments,
    labels: Path = typer.Option(
        ...,
        "--labels",
        help=(
            "Human labels JSONL (run_id, topic_id, sentence_index[, doc_id], label: supported, partially, "
            "not_supported or a synonym)."
        ),
    ),
    name: SetNameIfSeveral = None,
    by: List[str] = typer.Option(
        [],
        "--by",
        help=(
            "Break the scores down by this label-file column; repeatable "
            "(default: every extra column with at most 50 values)."
        ),
    ),
    no_breakdown: bool = typer.Option(False, "--no-breakdown", help="Only the scores over all labels."),
    positive: Positive = typer.Option(
        Positive.supported, "--positive", help="Binary scores: what counts as positive on both sides."
    ),
    on_missing: OnMissing = typer.Option(
        OnMissing.error, "--on-missing", help="Labels without a judgment: error, warn (leave out), skip (silently)."
    ),
    output: Optional[Path] = typer.Option(None, "--output", help="Write the score table to this .jsonl or .csv file."),
    label_map: LabelMap = [],  # noqa: B006 (typer reads it; never mutated)
) -> None:
    try:
        from judges.meta import agreement as ag
        from judges.formats.labels import parse_label_map, read_labels
        from judges.meta.results import table_format, write_table

        if output is not None:
            table_format(output, "--output")
        lab = read_labels(labels, parse_label_map(label_map))
        columns = [c for c in lab.table.columns if c not in ("label", "_line")]
        for col in by:
            if col not in columns:
                raise InputError(
                    labels, None, "--by", f"no column {col!r} in the label file (columns: {', '.join(columns)})"
                )
        table = _read_assessments(assessments, name)
        joined = ag.join(lab, table, on_missing.value, warn=warn)
        groups = [] if no_breakdown else (list(dict.fromkeys(by)) or ag.default_breakdown(lab))
        result = ag.agreement_table(joined, groups, positive.value)
        if output is not None:
            write_table(output, result, "--output")
    except InputError as e:
        raise fail(e.render())
    _print_agreement(result, lab.level, positive.value)


def _read_assessments(assessments: Path, name: Optional[str]):
    """The judge's assessments table for ``--assessments`` (a file or an output directory)."""
    from judges.formats.tables import read_assessments

    if not assessments.exists():
        raise InputError(assessments, None, "--assessments", "no such file or directory")
    try:
        return read_assessments(assessments, name)
    except FileNotFoundError as e:
        raise InputError(assessments, None, "--assessments", str(e).split(": ", 1)[-1]) from None


def _print_agreement(df, level: str, positive: str) -> None:
    table = Table(title=f"agreement with human labels (per {level}; binary positive: {positive})")
    heads = [
        "group",
        "n",
        "pos",
        "acc",
        "bal acc",
        "macro-F1",
        "kappa",
        "AUC",
        "acc 3",
        "bal acc 3",
        "macro-F1 3",
        "kappa 3",
    ]
    for h in heads:
        table.add_column(h, justify="left" if h == "group" else "right")
    for r in df.to_dict(orient="records"):
        group = "all" if not r["by"] else f"{r['by']}={r['group']}"
        table.add_row(
            group,
            str(r["n"]),
            str(r["positives"]),
            *(
                _num(r[k])
                for k in (
                    "accuracy",
                    "balanced_accuracy",
                    "macro_f1",
                    "kappa",
                    "auc",
                    "accuracy_3",
                    "balanced_accuracy_3",
                    "macro_f1_3",
                    "kappa_3",
                )
            ),
        )
    show(table)
    from judges.core.vocabulary import LABELS

    first = df.iloc[0]
    cm = Table(title="confusion, all labels (rows: human; columns: judge)")
    cm.add_column("human \\ judge")
    for j in LABELS:
        cm.add_column(j, justify="right")
    for h in LABELS:
        cm.add_row(h, *(str(first[f"confusion.{h}.{j}"]) for j in LABELS))
    show(cm)


@app.command(
    "calibrate",
    short_help="Fit the support model to human labels.",
    help=(
        "Fit the support model to human labels (a track's first judged topics): reads a judging run's "
        "assessments (their support features) and a label file, prints the scores of topic-grouped "
        "cross-validation, and writes the model file a workflow's support.model points at."
    ),
)
def calibrate(
    assessments: Assessments,
    labels: Path = typer.Option(
        ..., "--labels", help="Human labels JSONL with doc_id (run_id, topic_id, sentence_index, doc_id, label)."
    ),
    output: Path = typer.Option(..., "--output", help="The model file to write (JSON)."),
    name: SetNameIfSeveral = None,
    data: Optional[str] = typer.Option(
        None, "--data", help="How the model file names its training data (default: the label file's name)."
    ),
    label_map: LabelMap = [],  # noqa: B006 (typer reads it; never mutated)
) -> None:
    try:
        from judges.formats.labels import parse_label_map, read_labels
        from judges.meta.calibrate import calibrate as fit_model, labelled_features

        lab = read_labels(labels, parse_label_map(label_map))
        table = _read_assessments(assessments, name)
        if "f_norm_score" not in table.columns:
            raise InputError(
                assessments, None, "--assessments", "no support features (judged by an older citejudge): judge again"
            )
        rows = labelled_features(table, lab)
        try:
            model = fit_model(rows, data or labels.name)
        except ValueError as e:
            raise InputError(labels, None, None, str(e)) from None
        model.write(output)
    except InputError as e:
        raise fail(e.render())
    cv = model.cross_validation
    t = Table(
        title=f"support model fitted on {len(rows)} labelled citations; cross-validated by topic ({cv['folds']} folds)"
    )
    for h in (
        "run tau (expected weights)",
        "run tau (status weights)",
        "topic tau",
        "exact",
        "kappa",
        "AUC full",
        "AUC any",
    ):
        t.add_column(h, justify="right")
    keys = ("run_tau_expected", "run_tau", "topic_tau", "exact", "kappa", "auc_full", "auc_any")
    t.add_row(*(_num(cv[k]) for k in keys))
    show(t)
    say(f"judged mix {cv['judged_mix']}; human mix {cv['human_mix']}")
    say(
        "default thresholds (the labels' mix on the training data): "
        f"p_supported {model.p_supported}, p_partial {model.p_partial}"
    )
    iv = model.intervals
    say(
        f"leaderboard intervals (judges.scores.intervals): errors shared by a report's citations sd {iv['report_sd']}, "
        f"by a run's sd {iv['run_sd']}; mean bias {iv['bias']:+.4f} (not applied)"
    )
    say(f"wrote {output} (support.model: {output})")


@app.command(
    "calibrate-nuggets",
    short_help="Fit the nugget model to assessors' nugget assignments.",
    help=(
        "Fit the nugget model (--judge nugget/argue) to a NIST/nuggetizer assignment file (one record per answer "
        "with run_id, answer_text and an assignment per nugget): prints the scores of topic-grouped "
        "cross-validation and writes the model file --nugget-model points at."
    ),
)
def calibrate_nuggets(
    assignments: Path = typer.Option(..., "--assignments", help="nugget_assignment.*.jl (JSON Lines)."),
    output: Path = typer.Option(..., "--output", help="The model file to write (JSON)."),
) -> None:
    from judges.meta.nugget_calibrate import calibrate

    try:
        model = calibrate(assignments)
    except InputError as e:
        raise fail(e.render())
    except ValueError as e:
        raise fail(f"{assignments}: {e}")
    model.write(output)
    cv = model.cross_validation
    say(
        f"nugget model fitted on {model.training['pairs']:,} assignments of {cv['folds']} topics; "
        f"cross-validated by topic: exact agreement {cv['exact']:.3f}, kappa {cv['kappa']:.3f}; "
        f"judged mix (support, partial, not) {cv['judged_mix']}, human {cv['human_mix']}"
    )
    say(f"wrote {output} (--nugget-model {output})")


# ---------------------------------------------------------------------------------------------
# plan-assessments
# ---------------------------------------------------------------------------------------------
@app.command(
    "plan-assessments",
    short_help="The citations assessors should label next, for an annotation tool.",
    help=(
        "Choose the citations assessors should label next, where a label moves the ranking most (the plan "
        "judges.attest.plan makes for the LLM), and write them for an annotation tool: ids, sentence, evidence "
        "with offsets, the document, and an empty label. Labelled back, the file is --labels of a judge run. "
        "Each round is a new file, OUT_DIR/NAME.assess-N.jsonl, never overwritten; a plan leaves out every "
        "citation of an earlier round's file, labelled or not."
    ),
)
def plan_assessments(
    out_dir: JudgedDir,
    name: SetName,
    budget: Optional[str] = typer.Option(None, "--budget", help="Share of the unlabelled citations: 5% or 0.05."),
    count: Optional[int] = typer.Option(None, "--count", min=0, help="Exactly this many citations instead."),
    output: Optional[Path] = typer.Option(
        None,
        "--output",
        help="Where to write the JSONL, a new file (default OUT_DIR/NAME.assess-N.jsonl, the next round).",
    ),
    responses: MovedResponses = [],  # noqa: B006 (typer reads it; never mutated)
    corpus: MovedCorpus = None,
    nuggets: bool = typer.Option(
        False,
        "--nuggets",
        help="Plan the nugget pairs (answer, nugget) of a set judged with --nuggets instead of the citations: "
        "OUT_DIR/NAME.assess-nuggets-N.jsonl, labels support, partial_support, not_support.",
    ),
    battles: Optional[float] = typer.Option(
        None,
        "--battles",
        min=1,
        help="Plan battles of a set judged with --judge battle instead: about this many opponents per run and "
        "topic, each with its inclusion probability; OUT_DIR/NAME.assess-battles-N.jsonl, verdicts A, B or tie.",
    ),
) -> None:
    if battles is not None:
        _plan_battle_assessments(out_dir, name, battles, output)
        return
    if nuggets:
        _plan_nugget_assessments(out_dir, name, budget, count, output)
        return
    try:
        from judges.meta.assessing import earlier_rounds, next_round, one_plan, plan_assessments as plan_for_assessors

        if (budget is None) == (count is None):
            raise InputError("--budget", None, None, "give either --budget or --count")
        assessments = outputset.path(out_dir, name, "assessments_parquet")
        if not assessments.is_file():
            raise InputError(out_dir, None, "--name", f"no {assessments.name} here: judge first")
        with one_plan(out_dir, name):
            earlier = earlier_rounds(out_dir, name)
            number, target = next_round(out_dir, name)
            target = output or target
            plan = plan_for_assessors(out_dir, name, target, budget, count, list(responses), corpus, earlier)
    except InputError as e:
        raise fail(e.render())
    except OSError as e:  # a full disk: the round's file is not there, the earlier rounds as they were
        raise fail(f"{e.filename or ''}: {e.strerror or e}; no round written")
    if earlier.files:
        say(
            f"left out the {len(earlier.labelled) + len(earlier.pending)} citations of {earlier.files} earlier "
            f"round file(s) ({len(earlier.labelled)} labelled, {len(earlier.pending)} not labelled yet)"
        )
    say(
        ("" if output else f"round {number}: ")
        + f"chose {len(plan)} of {plan.candidates} unlabelled judgeable citations by expected gain; "
        f"wrote {target}"
    )
    say(
        "fill in each line's label (supported, partially, not_supported), then judge again with --labels for "
        "every round's file (or the directory of them)"
    )


def _plan_battle_assessments(out_dir: Path, name: str, opponents: float, output) -> None:
    try:
        from judges.meta.assessing import next_round
        from judges.meta.battle_plan import plan_battles

        number, target = next_round(out_dir, name, "assess_battle_round")
        target = output or target
        plan = plan_battles(out_dir, name, target, opponents)
    except InputError as e:
        raise fail(e.render())
    if plan.earlier:
        say(f"left out the {plan.earlier} battles of earlier round file(s)")
    say(
        ("" if output else f"round {number}: ")
        + f"drew {len(plan.lines)} of {plan.candidates} battles not judged by an assessor; wrote {target}"
    )
    say("fill in each line's verdict (A, B or tie), then judge again with --labels for every round's file")


def _plan_nugget_assessments(out_dir: Path, name: str, budget, count, output) -> None:
    try:
        from judges.meta.assessing import next_nugget_round, one_plan, plan_nugget_assessments

        if (budget is None) == (count is None):
            raise InputError("--budget", None, None, "give either --budget or --count")
        with one_plan(out_dir, name):
            number, target = next_nugget_round(out_dir, name)
            target = output or target
            plan, earlier = plan_nugget_assessments(out_dir, name, target, budget, count)
    except InputError as e:
        raise fail(e.render())
    except OSError as e:
        raise fail(f"{e.filename or ''}: {e.strerror or e}; no round written")
    if earlier:
        say(f"left out the {earlier} nugget pairs of earlier round file(s)")
    say(
        ("" if output else f"round {number}: ")
        + f"chose {len(plan)} of {plan.candidates} unlabelled nugget pairs by expected gain; wrote {target}"
    )
    say(
        "fill in each line's label (support, partial_support, not_support), then judge again with --labels for "
        "every round's file"
    )


# ---------------------------------------------------------------------------------------------
# convert-labelled
# ---------------------------------------------------------------------------------------------
@app.command(
    "convert-labelled",
    short_help="AttributionBench, WiCE or Factcheck-GPT files as runs, topics and labels.",
    help=(
        "Turn a labelled claim/evidence file (AttributionBench, WiCE or Factcheck-GPT layout) into runs, topics "
        "and a label file for the judge and for agreement."
    ),
)
def convert_labelled(
    source: Path = typer.Argument(..., help="The labelled JSONL file."),
    out_dir: Path = typer.Option(..., "--out-dir", help="Directory for topics.jsonl, runs/RUN.jsonl and labels.jsonl."),
    layout: Layout = typer.Option(
        Layout.auto, "--layout", help="Input layout (auto tells them apart by their fields)."
    ),
    run_id: str = typer.Option("human", "--run-id", help="Run id of the converted run."),
) -> None:
    try:
        from judges.meta.convert import read_items, write_converted

        items = read_items(source, layout.value)
        done = write_converted(out_dir, items, run_id)
    except InputError as e:
        raise fail(e.render())
    except OSError as e:
        raise fail(f"{e.filename or ''}: {e.strerror or e}")
    counts: dict[str, int] = {}
    for it in items:
        counts[it.label] = counts.get(it.label, 0) + 1
    say(f"{done.items} items: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    for kind, path in (("topics", done.topics), ("runs", done.runs), ("labels", done.labels)):
        say(f"{kind}: {path}")
    say(
        f"next: python run_judge.py --judge citation --rag-topics {done.topics} --rag-responses {done.runs} "
        "--out-dir OUT --name NAME; "
        f"python run_judge.py agreement --assessments OUT --name NAME --labels {done.labels}"
    )
