"""``create-nuggets``: a nugget bank made from the runs' answers, no LLM (:mod:`judges.nuggets.made`),
written in NIST's ``nuggets.jsonl`` shape or AutoJudge's ``NuggetBanks`` (:mod:`judges.formats.nuggetbanks`),
for ``--nuggets FILE`` (as made, or after an assessor edited it)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import List, Optional

import typer

from judges.core import counts as keys
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
    made_from: str = typer.Option(
        "answers", "--from", help="answers (no LLM) or llm (nuggetizer's way, over the runs' cited documents)."
    ),
    use_env_llm: bool = typer.Option(False, "--use-env-llm", help="--from llm: the endpoint from OPENAI_* variables."),
    llm_config: Optional[Path] = typer.Option(None, "--llm-config", help="--from llm: the endpoint from a file."),
    cache_dir: Path = typer.Option(Path("."), "--cache-dir", help="--from llm: the answer cache's directory."),
    corpus: Optional[Path] = typer.Option(None, "--corpus", help="--from llm: documents the runs cite by id."),
    replay_only: bool = typer.Option(False, "--replay-only", help="--from llm: answers from the cache alone."),
    workflow: Optional[Path] = typer.Option(
        None, "--workflow", help="--from llm: a workflow whose attest sets prices and max_cost."
    ),
    use_degenerate_llm: bool = typer.Option(
        False, "--use-degenerate-llm", help="--from llm: write the banks even if the LLM looks degenerate."
    ),
    batch_dir: Optional[Path] = typer.Option(
        None, "--batch-dir", help="--from llm: write the questions the cache lacks as Batch API files here."
    ),
    batch_output: Optional[List[Path]] = typer.Option(
        None,
        "--batch-output",
        help="--from llm: Batch API output files to read into the cache first (with --batch-dir).",
    ),
) -> None:
    from judges.formats.nuggetbanks import SHAPES, write_banks
    from judges.formats.topics import read_topics
    from judges.nuggets.made import Params, make_nuggets
    from judges.session.nuggets import answers_of, read_run_reports

    try:
        if shape not in SHAPES:
            raise InputError("--shape", None, None, f"{shape!r} is not one of {', '.join(SHAPES)}")
        if not 0 < group <= 1 or not 0 <= vital_share <= 1 or min_runs < 1:
            raise InputError("--group", None, None, "needs 0 < --group <= 1, 0 <= --vital-share <= 1, --min-runs >= 1")
        answers: dict[str, list[tuple[str, str]]] = {}
        reports = read_run_reports(list(responses))  # each run file parsed once: --from llm reads them too
        for (run, topic), text in sorted(answers_of(reports).items()):
            answers.setdefault(topic, []).append((run, text))
        if not answers:
            raise InputError(", ".join(map(str, responses)), None, "--rag-responses", "no answer to make a bank of")
        queries: dict[str, str] = {}
        for path in topics or []:
            for _, t in read_topics(path):
                if isinstance(t, InputError):
                    raise t
                queries[t.topic_id] = t.title
        if made_from == "answers":
            banks = make_nuggets(answers, queries, Params(group, min_runs, vital_share)).banks
            source = "answers"
        elif made_from == "llm":
            if batch_output and batch_dir is None:
                raise InputError("--batch-output", None, None, "needs --batch-dir (the export the answers are to)")
            batch = (batch_dir, list(batch_output or []))
            from judges.core.config import load_workflow

            attest = load_workflow(workflow).attest
            banks, source, counts = _llm_banks(
                reports, corpus, queries, use_env_llm, llm_config, cache_dir, replay_only, batch, attest
            )
            if banks is not None:
                from judges.attest.nuggetize import degenerate

                why = degenerate(banks, counts)
                if why and not use_degenerate_llm:
                    raise InputError(
                        "--from", None, None, f"the LLM looks degenerate: {why}; no bank written (--use-degenerate-llm)"
                    )
            if banks is None:
                return
        else:
            raise InputError("--from", None, None, f"{made_from!r} is not answers or llm")
    except InputError as e:
        raise fail(e.render())
    write_banks(output, banks.values(), shape)
    import hashlib

    sha = hashlib.sha256(output.read_bytes()).hexdigest()
    count = sum(len(b.nuggets) for b in banks.values())
    say(f"wrote {output}: {count} nuggets for {len(banks)} topics (source {source}, sha256 {sha[:12]})")


def _llm_banks(reports, corpus, queries, use_env_llm, llm_config, cache_dir, replay_only, batch, attest):
    """The banks an LLM makes over each topic's cited documents (judges.attest.nuggetize) of the
    run files' ``reports`` (as read for the answers), most
    cited first, the source (``llm:MODEL``) and the questions' counts; no banks (``None``) while
    questions wait in a batch file."""
    from judges.attest import endpoint as endpoints
    from judges.attest.nuggetize import OverBudget, make_llm_banks
    from judges.attest.replay import Replay
    from judges.formats.corpus import read_corpus

    if use_env_llm == (llm_config is not None):
        raise InputError("--from", None, None, "llm needs one of --use-env-llm or --llm-config")
    endpoint = endpoints.from_env() if use_env_llm else endpoints.from_file(llm_config)
    cited: dict[str, Counter] = {}
    texts: dict[str, str] = {}
    for rep in reports:
        ids = {c.doc_id for s in rep.sentences for c in s.citations if c.doc_id}
        cited.setdefault(rep.topic_id, Counter()).update(ids)  # a run counts once per document
        for doc_id, doc in rep.documents.items():
            if doc is not None and doc_id in ids:
                texts.setdefault(doc_id, doc.text)
    wanted = {d for c in cited.values() for d in c} - set(texts)
    if wanted and corpus is not None:
        for doc_id, doc in read_corpus(corpus, wanted, lambda e: None).items():
            text = getattr(doc, "text", None)
            if text:
                texts[doc_id] = text
    passages = {
        topic: [texts[d] for d, _ in sorted(c.items(), key=lambda x: (-x[1], x[0])) if d in texts]
        for topic, c in cited.items()
    }
    batch_dir, outputs = batch
    if outputs:  # a batch job's answers into the cache, as `attest import` reads them
        from judges.attest.batch import apply, read_manifests, read_outputs

        manifest = read_manifests(batch_dir)
        found = read_outputs(outputs, manifest)
        applied = apply(found, manifest, cache_dir)
        say(f"read {applied.applied} new answers into the cache ({len(found.rejected)} lines not applied)")
    recorder = None
    if batch_dir is not None:
        from judges.attest.batch import Recorder

        recorder = Recorder()
    ask = Replay(cache_dir) if replay_only else recorder
    try:
        banks, counts = make_llm_banks(endpoint, cache_dir, passages, queries, ask, settings=attest)
    except OverBudget as e:
        raise InputError("attest.max_cost", None, None, f"the next question would pass it ({e}): no bank written")
    if recorder is not None and recorder.requests:
        from judges.attest.batch import write_batch
        from judges.core.config import AttestSettings

        write_batch(batch_dir, "nuggets", list(recorder.requests.values()), endpoint.model, AttestSettings())
        say(
            f"{counts[keys.BANK_PENDING_TOPICS]} topic(s) wait for {len(recorder.requests)} question(s), "
            f"written to {batch_dir}: "
            "run them, then again with --batch-output FILE... (no bank written yet)"
        )
        return None, "", counts
    return banks, f"llm:{endpoint.model}", counts
