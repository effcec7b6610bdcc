"""``create-nuggets``: a nugget bank made from the runs' answers, no LLM (:mod:`judges.nuggets.made`),
written in NIST's ``nuggets.jsonl`` shape or AutoJudge's ``NuggetBanks`` (:mod:`judges.formats.nuggetbanks`),
for ``--nuggets FILE`` (as made, or after an assessor edited it)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from judges.cli.console import fail, say
from judges.core.errors import InputError

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)


@app.command(
    "create-nuggets",
    short_help="Make a nugget bank from the runs' answers (no LLM).",
    help=(
        "Make a nugget bank per topic from the runs' answers, no LLM: the claims several runs state, grouped "
        "by Smith-Waterman alignment over stems, one nugget per group stated by at least --min-runs runs "
        "(vital when stated by --vital-share of the widest group's runs), at most 30 a topic. The bank keeps "
        "which runs state each nugget, so that a run is judged only by the nuggets other runs state "
        "(--nuggets FILE); edit it and give it back: the source becomes post-edited."
    ),
)
def create_nuggets(
    responses: List[Path] = typer.Option(..., "--rag-responses", help="Run files or directories; repeatable."),
    output: Path = typer.Option(..., "--output", help="The bank file to write."),
    topics: Optional[List[Path]] = typer.Option(
        None, "--rag-topics", help="Topics file(s): their titles are the banks' queries."
    ),
    shape: str = typer.Option("nist", "--shape", help="nist (nuggets.jsonl) or autojudge (NuggetBanks JSON)."),
    group: float = typer.Option(0.4, "--group", help="Similarity (0-1) at which two claims say the same."),
    min_runs: int = typer.Option(3, "--min-runs", help="Distinct runs a nugget must be stated by."),
    vital_share: float = typer.Option(0.3, "--vital-share", help="Share of the widest group's runs for vital."),
) -> None:
    from judges.formats.nuggetbanks import SHAPES, write_banks
    from judges.formats.topics import read_topics
    from judges.nuggets.made import Params, make_nuggets
    from judges.session.nuggets import read_answers

    try:
        if shape not in SHAPES:
            raise InputError("--shape", None, None, f"{shape!r} is not one of {', '.join(SHAPES)}")
        if not 0 < group <= 1 or not 0 <= vital_share <= 1 or min_runs < 1:
            raise InputError("--group", None, None, "needs 0 < --group <= 1, 0 <= --vital-share <= 1, --min-runs >= 1")
        answers: dict[str, list[tuple[str, str]]] = {}
        for (run, topic), text in sorted(read_answers(list(responses)).items()):
            answers.setdefault(topic, []).append((run, text))
        if not answers:
            raise InputError(", ".join(map(str, responses)), None, "--rag-responses", "no answer to make a bank of")
        queries: dict[str, str] = {}
        for path in topics or []:
            for _, t in read_topics(path):
                if isinstance(t, InputError):
                    raise t
                queries[t.topic_id] = t.title
        made = make_nuggets(answers, queries, Params(group, min_runs, vital_share))
    except InputError as e:
        raise fail(e.render())
    write_banks(output, made.banks.values(), shape)
    count = sum(len(b.nuggets) for b in made.banks.values())
    say(f"wrote {output}: {count} nuggets for {len(made.banks)} topics (source answers, sha256 {made.sha256[:12]})")
