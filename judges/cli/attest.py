"""``run_judge.py attest export | import``: the LLM stage through batch files (:mod:`judges.attest.batch`).

``export OUT --name N`` judges the set ``OUT/N.config.yml`` records again, in memory, up to the
LLM's questions, and writes those the answer cache does not hold as Batch API request files into
``OUT/N.batch/`` (or ``--batch-dir``). ``import OUT --name N FILE...`` reads the answers back
into the cache: an answer to a question of this export or of any earlier export into the same
directory (whose manifests are kept as ``manifest-K.json``); one the cache holds already is
counted, not stored again. The next judge run of the set, with the workflow the export used and
an endpoint of the same model, finds every answer in the cache and makes no call. Bad input is one line
``error: ...`` and exit code 2; ``import`` reports each line it did not apply and then exits 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, List, Optional

import typer
from rich.progress import MofNCompleteColumn

from judges.cli.console import advancing, err, fail, progress_bar, say, warn
from judges.core.errors import InputError
from judges.formats import outputset
from judges.cli.options import CacheDir, JudgedDir, SetName, command_group

app = command_group(
    "The LLM stage through batch files: export the questions as OpenAI Batch API requests (for the Batch API "
    "or `vllm run_batch`), import the answers into the cache; the next judge run asks nothing."
)

BatchDir = Annotated[
    Optional[Path],
    typer.Option("--batch-dir", help="Directory of the request files and manifest (default OUT_DIR/NAME.batch)."),
]


@app.command(
    "export",
    help=(
        "Judge the set NAME.config.yml records again, in memory, up to the LLM, and write the questions the answer "
        "cache does not hold as Batch API request files (custom_id: the cache key; at most 50,000 requests and "
        "200 MB a file; a question asked several times is one request) and a manifest. Writes nothing else."
    ),
)
def export(
    out_dir: JudgedDir,
    name: SetName,
    attest: Optional[str] = typer.Option(
        None, "--attest", help="uncertain or all (default: the recorded workflow's attest.mode)."
    ),
    workflow: Optional[Path] = typer.Option(
        None, "--workflow", help="Workflow YAML of the judge run that will read the answers (default: the recorded)."
    ),
    model: Optional[str] = typer.Option(
        None, "--model", help="The model the requests name (default: from --llm-config, --use-env-llm or the record)."
    ),
    llm_config: Optional[Path] = typer.Option(None, "--llm-config", help="Take the model from this LLM config YAML."),
    use_env_llm: bool = typer.Option(False, "--use-env-llm", help="Take the model from OPENAI_MODEL."),
    cache_dir: CacheDir = None,
    batch_dir: BatchDir = None,
    max_requests: int = typer.Option(50_000, "--max-requests", min=1, max=50_000, help="Requests per file."),
    max_mb: float = typer.Option(200.0, "--max-mb", min=0.01, max=200.0, help="Megabytes (10^6 bytes) per file."),
) -> None:
    import time

    from judges.session import pipeline
    from judges.attest.batch import Recorder, write_batch
    from judges.attest.endpoint import Endpoint
    from judges.core.config import load_workflow
    from judges.core.counts import ATTEST_CACHE_HITS, ATTEST_FAILED, ATTEST_GUARDED, ATTEST_SELECTED
    from judges.session.options import RunOptions
    from judges.session.recorded import check_same_session, recorded_session

    started = time.perf_counter()
    try:
        recorded = recorded_session(out_dir, name)
        wf = load_workflow(workflow) if workflow is not None else recorded.workflow
        mode = attest or wf.attest.mode
        if mode not in ("uncertain", "all"):
            raise InputError(
                "--attest",
                None,
                None,
                f"{mode!r}: give uncertain or all, the mode of the judge run that reads the answers",
            )
        wf = wf.model_copy(update={"attest": wf.attest.model_copy(update={"mode": mode})})
        chosen = _model(model, llm_config, use_env_llm, recorded.config)
        recorder = Recorder()
        with progress_bar("judging citations", MofNCompleteColumn()) as bar:
            task = bar.add_task("judge", total=None)
            told = advancing(bar, task)
            how = RunOptions(Endpoint("", chosen), Path(cache_dir or out_dir), 1, warn=warn, progress=told)
            summary = pipeline.questions(recorded.inputs, wf, recorder, how)
        check_same_session(recorded, summary.runs, summary.topics)
        target = batch_dir or outputset.path(out_dir, name, "batch_dir")
        requests = list(recorder.requests.values())
        files = write_batch(target, name, requests, chosen, wf.attest, max_requests, int(max_mb * 1e6))
    except InputError as e:
        raise fail(e.render())
    except ValueError as e:  # one request longer than --max-mb
        raise fail(f"--max-mb: {e}")
    except OSError as e:
        raise fail(f"{e.filename or ''}: {e.strerror or e}")
    counts = summary.counts
    of = f" of {summary.plan.candidates:,} judgeable" if summary.plan is not None else ""
    say(
        f"citations selected ({mode}): {counts[ATTEST_SELECTED]:,}{of}; {counts[ATTEST_GUARDED]:,} guarded, "
        f"{counts[ATTEST_CACHE_HITS]:,} answered from the cache"
    )
    nuggets = (summary.attest or {}).get("nuggets")
    if nuggets:  # a set judged with --nuggets: its nugget pairs' questions are in the files too
        say(
            f"nugget pairs selected ({mode}): {nuggets['selected']:,}; {nuggets['guarded']:,} guarded, "
            f"{nuggets['cache_hits']:,} answered from the cache, {nuggets['failed']:,} to ask"
        )
    to_ask = counts[ATTEST_FAILED] + (nuggets["failed"] if nuggets else 0)
    say(f"questions: {to_ask:,} to ask, {len(requests):,} distinct: {len(requests):,} requests")
    say(f"check questions (pairs the judge is sure of, to measure the LLM): {sum(r.check for r in requests):,}")
    for f in files:
        say(f"wrote {target / f['file']} ({f['requests']:,} requests, {f['bytes'] / 1e6:,.1f} MB)")
    say(f"wrote {target / 'manifest.json'} (model {chosen}) in {time.perf_counter() - started:.1f} s")
    if requests:
        say(
            "next: answer the files (the Batch API, or vllm run_batch), then "
            f"run_judge.py attest import {out_dir} --name {name} ANSWERS..., then judge again (no call is made)"
        )
    else:
        say("nothing to ask: the cache answers every question; judge again to use them")


def _model(model: Optional[str], llm_config: Optional[Path], use_env_llm: bool, config: dict) -> str:
    """The model the requests name: ``--model``, an LLM config's or the environment's, or the recorded one."""
    given = [o for o, v in (("--model", model), ("--llm-config", llm_config), ("--use-env-llm", use_env_llm)) if v]
    if len(given) > 1:
        raise InputError(given[1], None, None, f"give one of --model, --llm-config, --use-env-llm, not {given[0]} too")
    if model:
        return model
    if llm_config is not None or use_env_llm:
        from judges.attest import endpoint

        return (endpoint.from_file(llm_config) if llm_config is not None else endpoint.from_env()).model
    recorded = (config.get("attest") or {}).get("model")
    if not recorded:
        raise InputError("--model", None, None, "the set records no model: give --model, --llm-config or --use-env-llm")
    return str(recorded)


@app.command(
    "import",
    help=(
        "Read OpenAI Batch API or `vllm run_batch` output files into the answer cache, as the online client reads "
        "replies. A line with an unknown or repeated custom_id, malformed JSON, an error, a status other than 200 or "
        "a body that is no chat completion is reported (file:line: reason) and never applied; then the exit code is 1."
    ),
)
def import_answers(
    out_dir: JudgedDir,
    files: Annotated[List[Path], typer.Argument(help="Output files of the Batch API or vllm run_batch (JSONL).")],
    name: SetName,
    batch_dir: BatchDir = None,
    cache_dir: CacheDir = None,
) -> None:
    import sqlite3

    from judges.attest.batch import apply, read_manifests, read_outputs

    try:
        manifest = read_manifests(batch_dir or outputset.path(out_dir, name, "batch_dir"))
        found = read_outputs(list(files), manifest)
        done = apply(found, manifest, Path(cache_dir or out_dir))
    except InputError as e:
        raise fail(e.render())
    except (OSError, sqlite3.Error) as e:  # a full disk: the cache as it was (apply: all or nothing)
        filename = getattr(e, "filename", None)  # an OSError's; sqlite3's errors name no file
        where = f"{filename}: " if filename else ""
        raise fail(f"{where}{getattr(e, 'strerror', None) or e}; no answer stored (the cache is as it was)")
    for where, reason, detail in found.rejected:
        say(f"{where}: {reason}: {detail}", err)
    say(f"requests (answer lines): {found.lines:,} in {len(files)} file(s); distinct questions: {len(found.ids):,}")
    say(f"applied: {done.applied:,} new answers to the cache; {done.cached:,} already in the cache (not stored again)")
    rejected = ", ".join(f"{n:,} {reason}" for reason, n in sorted(found.reasons.items())) or "none"
    say(f"rejected: {len(found.rejected):,} ({rejected})")
    discount = manifest.prices["batch_discount"]
    say(
        f"tokens: {done.tokens_in:,} in, {done.tokens_out:,} out; estimated cost {done.cost:.4f} "
        f"(workflow prices less the batch discount of {discount:.0%})"
    )
    if done.missing:
        exports = f"{manifest.earlier + 1} exports'" if manifest.earlier else "export's"
        warn(
            f"{done.missing:,} of the {exports} {len(manifest.questions):,} questions have no answer in the cache: "
            "the next judge run asks them online (or export again)"
        )
    if done.missing_check:
        warn(
            f"{done.missing_check:,} of the {len(manifest.check):,} check questions (pairs the judge is sure of, "
            "asked to measure the LLM) have no answer: until they do, the LLM is unchecked and the judge does "
            "not use its answers (attest.check_use: always uses them all the same)"
        )
    if found.rejected:
        raise typer.Exit(1)
