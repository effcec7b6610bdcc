"""What a judging session prints when it ends: the summary table, coverage per run, the top runs
and the adjacent runs the assessors may well order the other way (``judges.cli.app``'s judge command).

Every table goes through :mod:`judges.cli.console`: on a terminal as wide as it is, elsewhere as wide
as its content, so a run id or a path stays on one line in a log.
"""

from __future__ import annotations

from typing import Optional

from rich.table import Table

from judges.cli.console import say, show, warn
from judges.core.counts import (
    CAPPED,
    CITATIONS,
    CITATIONS_BEYOND_LIMIT,
    CORPUS_DOCUMENTS,
    HUMAN_LABELLED,
    NUGGET_ASSIGNED,
    NUGGET_PAIRS,
    REPORTS,
    REPORTS_BEYOND_MAX_TOPICS,
    REPORTS_UNKNOWN_TOPIC,
    RUNS_NOT_SELECTED,
    SENTENCES,
    SKIPPED,
)
from judges.core.vocabulary import MAIN_STATUSES, NUGGET_ASSIGNMENTS

SHOWN = 10  # (run, topic) pairs named before "and N more"


def print_summary(summary, seconds: float, compiling: float = 0.0) -> None:
    """The session's summary, then coverage, top runs and the runs that cannot be told apart.
    ``compiling``: seconds of a first run's kernel compilation, left out of the rate."""
    table = Table(title="citejudge summary", show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    rows = [
        *_input_rows(summary),
        *_status_rows(summary),
        *_attest_rows(summary),
        *_tail_rows(summary, seconds, compiling),
    ]
    for row in rows:
        table.add_row(*row)
    show(table)
    if summary.coverage:
        print_coverage(summary.coverage)
    n, leaderboard = summary.counts[CITATIONS], summary.files.get("leaderboard_parquet")
    headline = summary.headline or None
    if n and summary.statuses["missing"] == n and _ranks_citations(leaderboard, headline):  # all 0 for want of text
        say(
            f"no ranking: no document text (all {n} citations are 'missing'; give --corpus, or run files that "
            "carry their documents' text)"
        )
        return
    print_top(leaderboard, headline=headline)
    print_basis(summary.files.get("intervals_parquet"), headline)
    print_trust(leaderboard, summary.files.get("pairs_parquet"), headline=headline)


def _ranks_citations(leaderboard: Optional[str], headline: Optional[str] = None) -> bool:
    """Whether the leaderboard's headline is a citation measure (not the nugget judge's alone)."""
    if not leaderboard:
        return True
    from judges.scores.leaderboard import top_runs
    from judges.nuggets.measures import NUGGET_MEASURES

    return top_runs(_leaderboard_rows(leaderboard), 0, headline)[0] not in NUGGET_MEASURES


def _input_rows(summary) -> list[tuple[str, str]]:
    """Runs, topics, reports, what was skipped, sentences and citations."""
    counts = summary.counts
    not_selected = counts[RUNS_NOT_SELECTED]
    rows = [
        ("runs", f"{len(summary.runs)}" + (f" ({not_selected} not selected by --max-runs)" if not_selected else "")),
        ("topics", str(summary.topics)),
        ("reports judged", str(counts[REPORTS])),
    ]
    skipped = {k: v for k, v in counts.items() if k in SKIPPED.values() and v}
    if counts[REPORTS_UNKNOWN_TOPIC]:
        skipped[REPORTS_UNKNOWN_TOPIC] = counts[REPORTS_UNKNOWN_TOPIC]
    if skipped:
        shown = (f"{v} {k.replace('skipped_', '').replace('_', ' ')}" for k, v in sorted(skipped.items()))
        rows.append(("skipped", ", ".join(shown)))
    if counts[REPORTS_BEYOND_MAX_TOPICS]:
        rows.append(("not judged", f"{counts[REPORTS_BEYOND_MAX_TOPICS]} reports of topics beyond --max-topics"))
    beyond = counts[CITATIONS_BEYOND_LIMIT]
    rows.append(("sentences", str(counts[SENTENCES])))
    if summary.judge == "nugget":  # no citation is judged: the nugget pairs are (_nugget_rows)
        return rows
    rows.append(
        (
            "citations judged",
            f"{counts[CITATIONS]}" + (f" ({beyond} beyond max_per_sentence, not judged)" if beyond else ""),
        )
    )
    return rows


def _status_rows(summary) -> list[tuple[str, str]]:
    """The citations by status (a share of all judged), capped ones, the nugget pairs by assignment,
    the labels and the corpus."""
    counts, st = summary.counts, summary.statuses
    n = counts[CITATIONS]
    if summary.judge == "nugget":  # no citation judged
        return _nugget_rows(summary) + _label_rows(summary)
    rows = [(f"  {s}", f"{st[s]}" + (f" ({100 * st[s] / n:.1f}%)" if n else "")) for s in MAIN_STATUSES]
    if st["cross_language"]:
        rows.append(
            (
                "  cross_language",
                f"{st['cross_language']} ({100 * st['cross_language'] / n:.1f}%): sentence and cited "
                "text in different scripts, not aligned (give a translated --corpus, or --attest)",
            )
        )
    if counts[CAPPED]:
        why = "of the partial: aligned as supported, but the document lacks a number or entity"
        rows.append(("  capped", f"{counts[CAPPED]} {why}"))
    return rows + _nugget_rows(summary) + _label_rows(summary)


def _nugget_rows(summary) -> list[tuple[str, str]]:
    """The nugget pairs judged (``--judge nugget`` / ``argue``), by assignment."""
    counts = summary.counts
    n = counts[NUGGET_PAIRS]
    if summary.judge not in ("nugget", "argue"):
        return []
    rows = [("nugget pairs judged", str(n))]
    for a in NUGGET_ASSIGNMENTS:
        k = counts[NUGGET_ASSIGNED[a]]
        rows.append((f"  {a}", f"{k}" + (f" ({100 * k / n:.1f}%)" if n else "")))
    return rows


def _label_rows(summary) -> list[tuple[str, str]]:
    """The assessors' labels in effect, by file; rounds not labelled yet; the corpus read."""
    counts = summary.counts
    rows: list[tuple[str, str]] = []
    if counts[HUMAN_LABELLED]:
        rows.append(("  human labels", f"{counts[HUMAN_LABELLED]}: their level is final (--labels)"))
        for f in summary.labels.get("files", ()):  # where they came from (a citation in two files counts once)
            pending = f", {f['not_labelled']} lines not labelled yet" if f["not_labelled"] else ""
            rows.append(("    from", f"{f['path']}: {f['labels']} labels{pending}"))
        refit = summary.labels.get("support_refit")
        if refit:  # fit to the track at hand (judges.support.refit.refit_to_labels)
            if refit["done"]:
                shifts = (
                    refit["p_full_intercept"][1] - refit["p_full_intercept"][0],
                    refit["p_any_intercept"][1] - refit["p_any_intercept"][0],
                )
                what = (
                    f"re-fitted on {refit['labels']} labels: intercepts of P(full) {shifts[0]:+.3f}, "
                    f"P(any) {shifts[1]:+.3f} (--refit-support)"
                )
            else:
                what = f"not re-fitted: {refit['why']} ({refit['labels']})"
            rows.append(("    support model", what))
    if summary.labels.get("nugget_pairs"):  # nugget assignments in effect (judges.engine.nuggets.apply_labels)
        rows.append(("nugget labels", f"{summary.labels['nugget_pairs']} nugget pairs: their assignment is final"))
    if not counts[HUMAN_LABELLED]:  # else named under "human labels"; a round not labelled yet is skipped
        for f in summary.labels.get("files", ()):
            if not f["labels"] and f["not_labelled"]:
                rows.append(("  not labelled yet", f"{f['path']}: {f['not_labelled']} lines, skipped (fill them in)"))
    if counts[CORPUS_DOCUMENTS]:
        rows.append(("corpus documents", str(counts[CORPUS_DOCUMENTS])))
    return rows


def _estimated_error(e: dict) -> str:
    """``attest.answer_error: estimate``'s line (:meth:`judges.attest.answers.ErrorEstimate.describe`)."""
    return f"estimated {e['estimate']:.3f} (90% interval {e['low']:.3f}-{e['high']:.3f}) from {e['answers']} answers"


def _check_line(c: dict) -> str:
    """The check sample's line (:func:`judges.attest.check.figures`)."""
    drawn = c["drawn"]
    asked = f"{drawn['supported']} sure supported + {drawn['not_supported']} sure not asked"
    if "kappa" not in c:
        return f"{c['verdict']}: {asked}; {c['message']}"
    return (
        f"{c['verdict']}: {asked}; sensitivity {c['sensitivity']:.2f}, specificity {c['specificity']:.2f}, "
        f"kappa {c['kappa']:.3f} (95% interval {c['kappa_low']:.3f} to {c['kappa_high']:.3f})"
    )


def _attest_rows(summary) -> list[tuple[str, str]]:
    """LLM attestation: what was asked, the answers, tokens and failures (a degenerate LLM warned)."""
    a = summary.attest
    if not a:
        return []
    n = summary.counts[CITATIONS]
    share = f" ({a['selected'] / n:.1%})" if n else ""
    answers = a.get("answers")
    rows = [
        (
            "LLM attestation",
            f"{a['mode']}: {a['selected']} selected{share}, {a['guarded']} guarded, {a['changed']} changed",
        ),
        (
            "LLM questions",
            f"{a['calls']} calls, {a['cache_hits']} cache hits, {a['failed']} failed, {a['unparsed']} unparsed"
            + ("; answers " + ", ".join(f"{k} {ans}" for ans, k in answers.items()) if answers else ""),
        ),
        ("LLM tokens", f"{a['tokens_in']} in, {a['tokens_out']} out (estimated cost {a['estimated_cost']:.4f})"),
    ]
    if a.get("check"):  # the LLM's agreement on the check sample (judges.attest.check)
        rows.append(("LLM check", _check_line(a["check"])))
    if (a.get("answer_error") or {}).get("answers"):  # estimated from this kind's answers (none: the prior)
        rows.append(("LLM answer error", _estimated_error(a["answer_error"])))
    nuggets = a.get("nuggets")
    if nuggets:  # the nugget pairs' questions (judges.engine.nuggets.attest_nuggets)
        said = ", ".join(f"{k} {ans}" for ans, k in nuggets["answers"].items())
        rows.append(
            (
                "LLM nugget questions",
                f"{nuggets['selected']} selected, {nuggets['calls']} calls, {nuggets['cache_hits']} cache hits, "
                f"{nuggets['changed']} changed" + (f"; answers {said}" if said else ""),
            )
        )
        if nuggets.get("check"):
            rows.append(("LLM nugget check", _check_line(nuggets["check"])))
        if (nuggets.get("answer_error") or {}).get("answers"):
            rows.append(("LLM nugget answer error", _estimated_error(nuggets["answer_error"])))
        if nuggets.get("degenerate"):
            used = "used all the same" if nuggets["degenerate"]["used"] else "not used: the nugget model's stand"
            warn(f"{nuggets['degenerate']['message']} (nugget pairs); {used}")
    battles = a.get("battles")
    if battles:  # the battles' side-by-side questions (judges.session.battles.ask_llm)
        position = battles["position"]
        rows.append(
            (
                "LLM battle questions",
                f"{battles['undecided']} battles the evidence cannot decide, asked in both orders: "
                f"{battles.get('calls', 0)} calls, {battles.get('cache_hits', 0)} cache hits, "
                f"{battles.get('over_cost', 0)} over max_cost, {battles.get('used', 0)} verdicts used; "
                f"the first answer shown picked in {position['first']:.0%} of {position['answers']}",
            )
        )
        if battles.get("degenerate"):
            warn(f"{battles['degenerate']['message']}; not used: the battles keep the evidence's verdicts")
    if a["failed_requests"]:
        rows.append(("LLM failures", ", ".join(f"{k} x {reason}" for reason, k in a["failed_requests"].items())))
    if a.get("degenerate"):  # a warning line above, and a row of the table
        forced = a["degenerate"].get("forced")
        if summary.degenerate_not_used:
            what = "not used: the citations keep the support model's judgment (--use-degenerate-llm uses them"
            what += ", or attest.check_use: always)" if a["degenerate"]["reason"] in ("chance", "unchecked") else ")"
            if a["degenerate"].get("changed_unused"):
                what += f"; they would have changed {a['degenerate']['changed_unused']} statuses"
        else:
            what = f"used all the same ({forced or '--use-degenerate-llm'})"
        warn(f"{a['degenerate']['message']}; {what}")
        rows.append(("warning", f"{a['degenerate']['message']}; {what}"))
    return rows


def _tail_rows(summary, seconds: float, compiling: float) -> list[tuple[str, str]]:
    """Filled (run, topic) pairs, warnings, time and rate, processes, and the files written."""
    rows = []
    if summary.filled:
        more = len(summary.filled) - SHOWN
        shown = ", ".join(f"{r}/{t}" for r, t in summary.filled[:SHOWN]) + (f" and {more} more" if more > 0 else "")
        rows.append(
            ("filled (on_missing)", f"{len(summary.filled)} (run, topic) pair(s) without a report, scored 0: {shown}")
        )
    rows += [("warning", line) for line in summary.warnings]
    n, what = summary.counts[CITATIONS], "citations"
    if summary.judge == "nugget":
        n, what = summary.counts[NUGGET_PAIRS], "nugget pairs"
    judging = seconds - compiling
    rate = f"{n / judging:,.0f} {what}/s" if judging > 0 and n else ""
    if compiling:
        rate = f"{compiling:.1f} s of it compiling the kernels once" + (f"; {rate} after" if rate else "")
    rows.append(("time", f"{seconds:.1f} s" + (f" ({rate})" if rate else "")))
    if summary.processes:
        rows.append(("processes", summary.processes))
    rows += list(summary.files.items())
    return rows


def print_coverage(rows: list[dict]) -> None:
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
    show(table)


def _leaderboard_rows(path: str) -> list[tuple]:
    from judges.formats.tables import read_table

    table = read_table(path, columns=["run_id", "topic_id", "measure", "value"])
    return list(zip(*(table.column(c).to_pylist() for c in table.column_names)))


def print_top(path: Optional[str], n: int = 5, headline: Optional[str] = None) -> None:
    """The top of the leaderboard by the headline measure (``all`` rows)."""
    if not path:
        return
    from judges.scores.leaderboard import top_runs

    rows = _leaderboard_rows(path)
    if not rows:
        return
    head, top = top_runs(rows, n, headline)
    width = max(len(run) for run, _ in top)
    lines = [f"top runs by {head} (mean over topics):"]
    lines += [f"{k:>3}  {run:<{width}}  {value:.4f}" for k, (run, value) in enumerate(top, 1)]
    say("\n".join(lines))


def print_basis(intervals: Optional[str], headline: Optional[str] = None) -> None:
    """What the headline's intervals rest on (judges.scores.intervals): the judge's errors learned on
    labelled data, whether that data holds the session's topics (judges.scores.basis), and the
    session's labels where there are some."""
    if not intervals:
        return
    from judges.core.measures import HEADLINE
    from judges.formats.tables import read_table
    from judges.scores.basis import basis

    table = read_table(intervals)
    if "made" not in table.column_names:
        return
    head = headline if headline is not None and headline in table["measure"].to_pylist() else HEADLINE
    made = [m for m, k in zip(table["made"].to_pylist(), table["measure"].to_pylist()) if k == head]
    if not made:
        return
    labelled = sum(1 for m in made if " labels, " in m)
    topics = [t for t, k in zip(table["topics"].to_pylist(), table["measure"].to_pylist()) if k == HEADLINE]
    where, these = basis(made[0], int(max(topics)) if topics else 0)
    line = f"intervals ({intervals[: -len('.parquet')]}.tsv): they rest on the judge's {where}, {these}"
    if labelled:
        line += f"; {labelled} of {len(made)} runs' also on their own labels (the column made says how)"
    say(line)


def print_trust(
    leaderboard: Optional[str],
    pairs: Optional[str],
    shown: int = 3,
    level: float = 0.95,
    headline: Optional[str] = None,
) -> None:
    """Adjacent runs of the headline ranking the assessors would order as the judge does (P >= ``level``)
    and those they may well order the other way (judges.scores.intervals), the first ``shown`` of each named."""
    if not leaderboard or not pairs:
        return
    from judges.formats.tables import read_table
    from judges.scores.intervals import inseparable
    from judges.scores.leaderboard import top_runs

    rows = _leaderboard_rows(leaderboard)
    head, ranking = top_runs(rows, len(rows), headline)
    pair_table = read_table(pairs)
    columns = list(zip(*(pair_table.column(c).to_pylist() for c in range(6))))
    columns = [c for c in columns if c[2] == head]  # the headline's pairs (the nugget measures have theirs too)
    adjacent = inseparable(columns, [r for r, _ in ranking], level=float("inf"))  # every adjacent pair, with its P
    if not adjacent:
        return
    apart = [(a, b, p) for a, b, p in adjacent if p >= level]
    found = [(a, b, p) for a, b, p in adjacent if p < level]

    def named(some: list, sep: str) -> str:
        more = f" and {len(some) - shown} more" if len(some) > shown else ""
        return ", ".join(f"{a} {sep} {b} (P {p:.2f})" for a, b, p in some[:shown]) + more

    n, tsv = len(ranking) - 1, pairs[: -len(".parquet")] + ".tsv"
    same = "that the assessors order them as the judge does"
    lines = [f"told apart: {len(apart)} of {n} adjacent runs by {head} (P >= {level} {same})"]
    lines[0] += f": {named(apart, 'above')}" if apart else ""
    if found:
        lines.append(f"cannot be told apart: {len(found)} of {n} adjacent runs by {head} (P < {level} {same}): ")
        lines[1] += named(found, "and")
    lines[-1] += f"; every pair in {tsv}"
    say("\n".join(lines))
