"""What a judging session writes of its nugget pairs (``--nuggets FILE`` with ``--judge nugget`` or
``argue``; the pairs are judged by the engine, :func:`judges.engine.pairs.nugget_kind`,
:mod:`judges.engine.nuggets`):

* per (run, topic) the four nugget measures (:mod:`judges.nuggets.measures`) and, beside the
  citations, ``NUGGET_F1``, merged into the session's per-topic measures;
* ``NAME.nuggets.jsonl``: NIST's assignment shape, one record per answer ``{qid, query, run_id,
  answer_text, response_length, nuggets: [{text, importance, assignment}]}``, so that tools
  reading NIST's files read ours; sorted by run and topic;
* ``NAME.nuggets.parquet``: one row per (answer, nugget) with the probabilities, spans,
  explanation, features and the bank's SHA-256 and source (``human``, ``post-edited``, ``answers``,
  ``llm:MODEL``: :func:`judges.formats.nuggets.source_of`), also in ``NAME.config.yml``'s ``nugget_bank``;
* ``NAME.nugget-bank.jsonl``: the bank judged by, in NIST's ``nuggets.jsonl`` shape (a made bank
  with its runs: edit it and give it back with ``--nuggets``) (``judges.read_nuggets``: :func:`read_nuggets_table`).
"""

from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache, partial
from pathlib import Path
from typing import Callable, Iterable, Optional

import pyarrow as pa

from judges.attest.kinds import NUGGET
from judges.core.counts import NUGGET_ASSIGNED, NUGGET_PAIRS
from judges.core.errors import InputError
from judges.core.measures import MEASURE_NAMES, judge_headline
from judges.core.records import Report
from judges.formats import outputset
from judges.formats.atomic import atomic_text
from judges.formats.runs import read_reports
from judges.nuggets import features as F
from judges.nuggets.answers import answer_text
from judges.nuggets.measures import F1, NUGGET_MEASURES, f1
from judges.engine.nuggets import NuggetResult
from judges.engine.pairs import Kind, nugget_kind
from judges.session.scan import run_files
from judges.session.stages import PairOutputs

JUDGES = ("citation", "nugget", "argue")
PRECISION = "WEIGHTED_PRECISION"

SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("topic_id", pa.string()),
        ("nugget_index", pa.int32()),
        ("nugget", pa.string()),
        ("importance", pa.string()),
        ("assignment", pa.string()),
        ("p_support", pa.float64()),
        ("p_partial", pa.float64()),
        ("p_not", pa.float64()),
        ("score", pa.float64()),
        ("spans", pa.list_(pa.struct([("char_start", pa.int32()), ("char_end", pa.int32())]))),
        ("span_text", pa.list_(pa.string())),
        ("explanation", pa.string()),
        ("human_assignment", pa.string()),
        ("llm_answer", pa.string()),
        ("llm_p_yes", pa.float64()),
        ("labelled", pa.bool_()),
        ("bank_sha256", pa.string()),
        ("bank_source", pa.string()),
        *[(f"f_{f}", pa.float64()) for f in F.FEATURES],
    ]
)


def measures_of(judge: str, citation_measures: tuple[str, ...]) -> tuple[str, ...]:
    """The leaderboard's measures for a judge: the citations', the nuggets', or both and F1."""
    if judge == "nugget":
        return NUGGET_MEASURES
    if judge in ("argue", "battle"):  # battle: argue's, and the battles' (judges.session.battles)
        return (*citation_measures, *NUGGET_MEASURES, F1)
    return citation_measures


def session_headline(judge: str, chosen: Optional[str] = None) -> str:
    """The measure a session ranks runs by (``--headline``, else the judge's,
    :func:`judges.core.measures.judge_headline`), checked: one of this judge's leaderboard."""
    headline = judge_headline(judge, chosen)
    held = measures_of(judge, MEASURE_NAMES)
    if headline not in held:
        raise InputError(
            "--headline", None, None, f"{headline} is not on --judge {judge}'s leaderboard ({', '.join(held)})"
        )
    return headline


@lru_cache(maxsize=1)
def kind() -> Kind:
    """The nugget kind as a session judges it: the engine's (:func:`judges.engine.pairs.nugget_kind`)
    carrying what the session writes of its judgments (:func:`outputs`)."""
    return nugget_kind()._replace(outputs=outputs)


def outputs(result: NuggetResult) -> PairOutputs:
    """What the session writes of the nugget pairs (:class:`judges.session.stages.PairOutputs`)."""
    return PairOutputs(
        NUGGET,
        partial(merge_measures, result=result),
        measures_of,
        partial(summarize, result),
        partial(write, result),
        partial(trust, result),
        dict(result.bank),
    )


def trust(
    result: NuggetResult,
    per_topic: dict,
    runs,
    topics: list,
    reports: dict,
    measures: tuple[str, ...],
    label_files=None,
    citation_spreads=None,
):
    """The intervals and run pairs of the nugget measures among ``measures``
    (:func:`judges.scores.intervals.nugget_trust`; an assessor's assignment in effect: error 0).
    ``label_files``: the session's labels (:class:`judges.formats.labels.LabelFiles`), whose nugget
    assignments drawn by a plan enter each measure's estimate by PPI (:func:`judges.scores.intervals.nugget_draws`);
    ``citation_spreads``: weighted precision's, for ``NUGGET_F1``."""
    from judges.scores import intervals

    wanted = [m for m in measures if m in NUGGET.measures]  # the measures nugget pairs feed
    judged = intervals.nugget_report_variances(result.judged, reports, per_topic, known=lambda j: j.labelled)
    nugget_labels = label_files.nuggets if label_files is not None else None
    draws = (
        None
        if nugget_labels is None
        else intervals.nugget_draws(result.judged, nugget_labels.probabilities, len(topics))
    )
    unknown = None
    if draws is not None:  # the labels drawn at random are the PPI's, not the error model's
        random = draws.random
        unknown = intervals.nugget_report_variances(
            result.judged,
            reports,
            per_topic,
            known=lambda j: j.labelled,
            drawn=lambda j: (j.run_id, j.topic_id, j.nugget_index) in random,
        )
    return intervals.nugget_trust(per_topic, runs, topics, judged, wanted, None, draws, unknown, citation_spreads)


def summarize(result: NuggetResult, attest: dict, labels: dict, counts: Optional[Counter] = None) -> None:
    """The nugget pairs' questions (``attest``), assessors' assignments in effect (``labels``,
    ``--labels``) and the pairs judged by assignment (``counts``), beside the citations' in the
    summary and ``NAME.config.yml``."""
    if counts is not None:
        judged = [j for pairs in result.judged.values() for j in pairs]
        counts[NUGGET_PAIRS] = len(judged)
        for assignment, n in Counter(j.assignment for j in judged).items():
            counts[NUGGET_ASSIGNED[assignment]] = n
    if result.attest:
        attest["nuggets"] = result.attest
    if result.labelled:
        labels["nugget_pairs"] = result.labelled


def merge_measures(per_topic: dict, judge: str, result: NuggetResult) -> None:
    """The nugget measures (and with ``argue`` NUGGET_F1) into the session's per-topic measures."""
    for key, values in result.measures.items():
        row = per_topic.setdefault(key, {})
        row.update(values)
        if judge in ("argue", "battle"):
            row[F1] = f1(row.get(PRECISION, 0.0), values["NUGGET_ALL"])


def write(result: NuggetResult, out_dir: Path, name: str, place: Callable[[Path], Path]) -> dict[str, str]:
    """``NAME.nuggets.jsonl`` and ``NAME.nuggets.parquet`` (see the module doc); their paths."""
    paths = {f.kind: outputset.path(out_dir, name, f.kind) for f in outputset.of_pair_kind(NUGGET.name)}
    keys = sorted(result.judged)
    with atomic_text(place(paths["nuggets_jsonl"])) as f:
        for run, topic in keys:
            text = result.answers[(run, topic)]
            record = {
                "qid": topic,
                "query": result.queries.get(topic, ""),
                "run_id": run,
                "answer_text": text,
                "response_length": len(text.split()),
                "nuggets": [
                    {"text": j.nugget, "importance": j.importance, "assignment": j.assignment}
                    for j in result.judged[(run, topic)]
                ],
            }
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    from judges.formats.nuggetbanks import bank_text

    with atomic_text(place(paths["nugget_bank"])) as f:
        f.write(bank_text(result.banks.values(), "nist"))
    rows: dict[str, list] = {n: [] for n in SCHEMA.names}
    for key in keys:
        text = result.answers[key]
        for j in result.judged[key]:
            for col, value in (
                ("run_id", j.run_id),
                ("topic_id", j.topic_id),
                ("nugget_index", j.nugget_index),
                ("nugget", j.nugget),
                ("importance", j.importance),
                ("assignment", j.assignment),
                ("p_support", j.p_support),
                ("p_partial", j.p_partial),
                ("p_not", j.p_not),
                ("score", j.score),
                ("spans", [{"char_start": s, "char_end": e} for s, e in j.spans]),
                ("span_text", [text[s:e] for s, e in j.spans]),
                ("explanation", j.explanation),
                ("human_assignment", j.human),
                ("llm_answer", j.llm_answer),
                ("llm_p_yes", j.llm_p_yes),
                ("labelled", j.labelled),
                ("bank_sha256", result.bank.get("sha256", "")),
                ("bank_source", result.bank.get("source", "")),
            ):
                rows[col].append(value)
            for name_, value in zip(F.FEATURES, j.features):
                rows[f"f_{name_}"].append(value)
    table = pa.table(rows, schema=SCHEMA)
    from judges.formats import tables

    tables.write_table(place(paths["nuggets_parquet"]), table)
    return {kind: str(path) for kind, path in paths.items()}


def read_nuggets_table(path: str | Path, name: str | None = None):
    """The nugget judgments (one row per answer and nugget) as a pandas DataFrame; ``path``: the
    Parquet file or an output directory (with ``name``)."""
    from judges.formats.tables import output_file, read_table

    return read_table(output_file(path, name, "nuggets_parquet"), required=["run_id", "topic_id"]).to_pandas()


def read_answers(responses: list[Path], topics: Optional[Iterable[str]] = None) -> dict[tuple[str, str], str]:
    """``{(run_id, topic_id): answer text}`` of the run files (or directories) ``responses``, for
    ``topics`` (``None``: all); a bad record raises its :class:`InputError`."""
    return answers_of(read_run_reports(responses), topics)


def read_run_reports(responses: list[Path]) -> list[Report]:
    """Every report of the run files (or directories) ``responses``, each file parsed once, in
    file order; a bad record raises its :class:`InputError`."""
    out: list[Report] = []
    for path in run_files(responses)[0]:
        for _, rep in read_reports(path):
            if isinstance(rep, InputError):
                raise rep
            out.append(rep)
    return out


def answers_of(reports: Iterable[Report], topics: Optional[Iterable[str]] = None) -> dict[tuple[str, str], str]:
    """``{(run_id, topic_id): answer text}`` of ``reports`` for ``topics`` (``None``: all)."""
    wanted = None if topics is None else set(topics)
    return {(r.run_id, r.topic_id): answer_text(r) for r in reports if wanted is None or r.topic_id in wanted}
