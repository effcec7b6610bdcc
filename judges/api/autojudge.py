"""citejudge as a TREC AutoJudge judge (the ``autojudge-base`` protocol), over the same engine.

::

    pip install -e '.[autojudge]'
    auto-judge run --workflow workflows/autojudge.yml \\
        --rag-responses RUNS_DIR/ --rag-topics TOPICS.jsonl --out-dir OUT/

:class:`CitationJudge` implements ``create_nuggets`` (returns None: this judge needs no nuggets),
``create_qrels`` and ``judge``. Both of the latter judge the reports and topics autojudge-base
loaded by the session's stages (:func:`judges.session.pipeline.check`, then
:func:`~judges.session.pipeline.carry_out`: load, judge and, with ``keep_outputs``, write), handed
over in memory in the shapes :mod:`judges.formats.runs` reads (``Inputs.report_records``; no
file is written for them), once: the second call with the same inputs and settings reuses the
first's result. Qrels are those of ``NAME.qrels`` (topic, md5 of sentence + citation id, best
grade), taken from the judged citations in memory; the leaderboard has every measure of
:mod:`judges.core.measures` per topic, as the session's leaderboard rows, and the ``all`` rows that
``LeaderboardBuilder`` computes from them under the workflow's ``leaderboard.on_missing`` (the
engine's own aggregation, so the values are the CLI's).

Settings (``settings``/``judge_settings``/``qrels_settings`` of the AutoJudge workflow file;
an unknown key is an error naming it):

* ``judge_workflow``: a citejudge workflow YAML (thresholds, policies); default: the defaults;
* ``backend``: ``numba`` or ``python``; default: the citejudge workflow's;
* ``workers``: worker processes (default 1; without ``keep_outputs`` their exchange files go to
  the system's temporary directory);
* ``dataset``: ``auto``, ``rag``, ``ragtime`` or ``dragun`` (default ``auto``);
* ``keep_outputs``: also write citejudge's own output set (assessments Parquet, debug log, ...) as
  ``OUT_DIR/FILEBASE.citejudge.*`` (default true), e.g. for ``run_judge.py agreement``; false:
  nothing is written;
* ``filebase``, ``outdir``, ``description``: set by autojudge-base; used for the names above.

``corpus`` (``--corpus``) must be a JSONL(.gz) corpus file, as for ``run_judge.py --corpus``.
The LLM configuration is not used: this judge aligns (``attest.mode: none``).

Importing autojudge-base (1.0) needs NLTK data: it reads the English list of the ``stopwords``
corpus (``corpora/stopwords/english``; a LookupError without it) and looks for
``tokenizers/punkt``, trying to download it when absent (offline that prints an error and goes on).
Both serve its near-duplicate text normalisation, which this judge never calls. Install them with
``python -m nltk.downloader stopwords punkt`` or point ``NLTK_DATA`` at a copy;
``tests/test_meta_autojudge.py`` makes an offline stand-in (an empty list, an empty directory).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, NamedTuple, Optional

from judges.core.errors import install_extra

try:
    from autojudge_base import (
        Leaderboard,
        LeaderboardBuilder,
        LeaderboardSpec,
        MeasureSpec,
        QrelRow,
        Qrels,
    )
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError(f"judges.api.autojudge needs autojudge-base: {install_extra('autojudge')} ({e})") from e

from judges.core.config import load_workflow
from judges.formats.runs import DATASETS as RUN_DATASETS
from judges.core.measures import MEASURE_NAMES, MEASURES
from judges.core.vocabulary import BACKENDS

SETTINGS = ("judge_workflow", "backend", "workers", "dataset", "keep_outputs")
FRAMEWORK_SETTINGS = ("filebase", "outdir", "description")
DATASETS = tuple(d for d in RUN_DATASETS if d != "neuclir")  # the --dataset names the setting accepts


class EngineResult(NamedTuple):
    qrels: list[tuple[str, str, int]]
    per_topic: list[tuple[str, str, str, float]]  # run, topic, measure, value (no 'all' rows)
    on_missing: str


def _settings(kwargs: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(kwargs) - set(SETTINGS) - set(FRAMEWORK_SETTINGS))
    if unknown:
        raise ValueError(
            f"judges.api.autojudge.CitationJudge: unknown setting(s) {unknown}; known: {', '.join(SETTINGS)}"
        )
    s = {k: kwargs.get(k) for k in SETTINGS}
    if s["backend"] is not None and s["backend"] not in BACKENDS:
        raise ValueError(f"setting backend: {s['backend']!r} is not {' or '.join(sorted(BACKENDS))}")
    if s["workers"] is None:
        s["workers"] = 1
    if isinstance(s["workers"], bool) or not isinstance(s["workers"], int) or s["workers"] < 1:
        raise ValueError(f"setting workers: {s['workers']!r} is not an integer >= 1")
    if s["dataset"] is None:
        s["dataset"] = "auto"
    if s["dataset"] not in DATASETS:
        raise ValueError(f"setting dataset: {s['dataset']!r}; known: {', '.join(DATASETS)}")
    if s["keep_outputs"] is None:
        s["keep_outputs"] = True
    if not isinstance(s["keep_outputs"], bool):
        raise ValueError(f"setting keep_outputs: {s['keep_outputs']!r} is not true or false")
    return s


def report_record(report) -> dict:
    """An autojudge-base ``Report`` in the "responses" shape :mod:`judges.formats.runs` reads."""
    md = report.metadata
    record: dict[str, Any] = {"metadata": {"run_id": md.run_id, "topic_id": md.topic_id, "team_id": md.team_id}}
    record["responses"] = [{"text": s.text, "citations": s.citations} for s in (report.responses or [])]
    if report.references is not None:
        record["references"] = list(report.references)
    if report.documents:
        record["documents"] = {
            doc_id: doc.model_dump(mode="json", exclude_none=True) for doc_id, doc in report.documents.items()
        }
    return record


def topic_record(request) -> dict:
    return request.model_dump(mode="json", exclude_none=True)


def records(rag_responses, rag_topics) -> tuple[tuple[dict, ...], tuple[dict, ...]]:
    """The topics and reports as the records a session reads in memory (``Inputs.topic_records``,
    ``Inputs.report_records``): the reports grouped by run id, in the order of the run ids (as
    one run file per run would be read), each run's in the order given."""
    by_run: dict[str, list[dict]] = {}
    for r in rag_responses:
        by_run.setdefault(r.metadata.run_id, []).append(report_record(r))
    return tuple(topic_record(t) for t in rag_topics), tuple(rec for run in sorted(by_run) for rec in by_run[run])


class CitationJudge:
    """The citejudge citation judge behind autojudge-base's three protocols."""

    nugget_banks_type = None  # creates no nuggets

    def __init__(self) -> None:
        self._last: Optional[tuple[str, EngineResult]] = None

    # -- protocol ---------------------------------------------------------------------------------
    def create_nuggets(self, rag_responses, rag_topics, llm_config, nugget_banks=None, corpus=None, **kwargs):
        return None

    def create_qrels(self, rag_responses, rag_topics, llm_config, nugget_banks=None, corpus=None, **kwargs) -> Qrels:
        result = self._run(rag_responses, rag_topics, corpus, kwargs)
        return Qrels(rows=[QrelRow(topic_id=t, doc_id=d, grade=int(g)) for t, d, g in result.qrels])

    def judge(
        self, rag_responses, rag_topics, llm_config, nugget_banks=None, qrels=None, corpus=None, **kwargs
    ) -> Leaderboard:
        result = self._run(rag_responses, rag_topics, corpus, kwargs)
        spec = LeaderboardSpec(measures=tuple(MeasureSpec(m.name, float, m.description) for m in MEASURES))
        builder = LeaderboardBuilder(spec)
        values: dict[tuple[str, str], dict[str, float]] = {}
        for run, topic, measure, value in result.per_topic:
            values.setdefault((run, topic), {})[measure] = value
        for (run, topic), v in sorted(values.items()):
            builder.add(run_id=run, topic_id=topic, values=v)
        on_missing = "fix_aggregate" if result.on_missing == "fix_aggregate" else "default"
        return builder.build(expected_topic_ids=[t.request_id for t in rag_topics], on_missing=on_missing)

    # -- engine -----------------------------------------------------------------------------------
    def _run(
        self,
        rag_responses,
        rag_topics,
        corpus: Optional[str],
        kwargs: dict,
        nuggets=None,
        judge: str = "citation",
        llm: Any = None,
    ) -> EngineResult:
        """The engine over the reports and topics; ``nuggets``: a bank file (or ``auto``) judged with
        ``judge``; ``llm``: ``(endpoint, cache_dir, ask)`` for the workflow's LLM questions."""
        from judges.scores.leaderboard import leaderboard_rows
        from judges.session import pipeline
        from judges.session.writer import qrels_table

        s = _settings(kwargs)
        wf_path = Path(s["judge_workflow"]) if s["judge_workflow"] else None
        wf = load_workflow(wf_path)
        corpus_path = None
        if corpus:
            corpus_path = Path(corpus)
            if not corpus_path.is_file():
                raise ValueError(
                    f"corpus {corpus!r}: citejudge reads a JSONL(.gz) corpus file, not an ir_datasets id or a directory"
                )
        outdir = Path(kwargs.get("outdir") or ".")
        base = Path(str(kwargs.get("filebase") or "citejudge")).name
        topic_records, report_records = records(rag_responses, rag_topics)
        inputs = pipeline.Inputs(
            topics=[],
            responses=[],
            corpus=corpus_path,
            workflow_path=wf_path,
            dataset=s["dataset"],
            topic_records=topic_records,
            report_records=report_records,
            nuggets=nuggets,  # a bank file (judges.api.autojudge_nuggets), judged with --judge nugget/argue
            judge=judge,
        )
        bank = (
            "" if nuggets is None or str(nuggets) == "auto" else hashlib.sha256(Path(nuggets).read_bytes()).hexdigest()
        )
        key = hashlib.sha256(
            json.dumps(
                [
                    inputs.records_sha256(),
                    {k: str(v) for k, v in s.items()},
                    str(corpus_path),
                    str(nuggets),
                    bank,
                    judge,
                    None if llm is None else [str(llm[0].describe()), str(llm[1]), llm[2] is not None],
                ]
            ).encode()
        ).hexdigest()
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        if s["backend"]:
            wf = wf.model_copy(update={"alignment": wf.alignment.model_copy(update={"backend": s["backend"]})})
        if llm is None:
            settings = inputs.settings(wf, cache_dir=outdir)
        else:
            endpoint, cache_dir, ask = llm
            settings = inputs.settings(wf, cache_dir=cache_dir or outdir, llm=endpoint, ask=ask)
        outputs = pipeline.Outputs(out_dir=outdir, name=f"{base}.citejudge") if s["keep_outputs"] else None
        done = pipeline.carry_out(pipeline.check(inputs, outputs, settings, pipeline.RunOptions(workers=s["workers"])))
        best = qrels_table(pipeline.assessments(done.judged), "qrels_doc_id").to_pydict()  # NAME.qrels' rows
        qrels = [(t, d, int(g)) for t, d, g in zip(best["topic_id"], best["doc_id"], best["grade"])]
        scan, topics = done.loaded.scan, list(done.loaded.topics)
        measured = pipeline.per_topic(done.judged)
        for (
            kind
        ) in done.judged.pairs.values():  # the nugget measures (judge nugget/argue), as pipeline.write merges them
            kind.merge_measures(measured, judge)
        names = MEASURE_NAMES
        for kind in done.judged.pairs.values():
            names = kind.measures_of(judge, MEASURE_NAMES)
        rows = leaderboard_rows(measured, scan.runs, topics, wf.leaderboard.on_missing, names)
        per_topic = [(r, t, m, float(v)) for r, t, m, v in rows if t != "all"]  # the leaderboard's, without 'all'
        result = EngineResult(qrels, per_topic, wf.leaderboard.on_missing)
        self._last = (key, result)
        return result
