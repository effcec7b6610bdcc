"""The nugget stage of a judging session (``--nuggets FILE`` with ``--judge nugget`` or ``argue``).

After the citations are judged, the session hands this stage its first pass (:class:`judges.runscan.Scan`):
the reports are read again (:func:`judges.runscan.reread`, topic by topic), each answer's text
(:func:`judges.nuggets.answers.answer_text`) is judged against every nugget of its topic's bank
(:func:`judges.nuggets.judge.judge_topic`), and the result is

* per (run, topic) the four nugget measures (:mod:`judges.nuggets.measures`) and, beside the
  citations, ``NUGGET_F1``, merged into the session's per-topic measures;
* ``NAME.nuggets.jsonl``: NIST's assignment shape, one record per answer ``{qid, query, run_id,
  answer_text, response_length, nuggets: [{text, importance, assignment}]}``, so that tools
  reading NIST's files read ours; sorted by run and topic;
* ``NAME.nuggets.parquet``: one row per (answer, nugget) with the probabilities, spans,
  explanation and features (``judges.read_nuggets``: :func:`read_nuggets_table`);
* a ``NUGGET_OUTPUT`` debug-log event per judgment.

A topic judged without a bank in the file has no nugget judgments: its nugget measures are 0,
and the summary warns.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import pyarrow as pa

from judges.formats.atomic import atomic_text
from judges.formats.debuglog import DebugLog
from judges.formats.nuggets import Nuggets
from judges.nuggets import features as F
from judges.nuggets.answers import answer_text
from judges.nuggets.judge import NuggetJudgment, judge_topic
from judges.nuggets.measures import F1, NUGGET_MEASURES, answer_measures, f1
from judges.nuggets.model import load_model
from judges.runscan import Scan, reread

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
        *[(f"f_{f}", pa.float64()) for f in F.FEATURES],
    ]
)


def measures_of(judge: str, citation_measures: tuple[str, ...]) -> tuple[str, ...]:
    """The leaderboard's measures for a judge: the citations', the nuggets', or both and F1."""
    if judge == "nugget":
        return NUGGET_MEASURES
    if judge == "argue":
        return (*citation_measures, *NUGGET_MEASURES, F1)
    return citation_measures


def targets(out_dir: Path, name: str) -> dict[str, tuple[Path, str]]:
    return {
        "nuggets_jsonl": (Path(out_dir) / f"{name}.nuggets.jsonl", "--out-dir"),
        "nuggets_parquet": (Path(out_dir) / f"{name}.nuggets.parquet", "--out-dir"),
    }


@dataclass
class NuggetResult:
    judged: dict[tuple[str, str], list[NuggetJudgment]] = field(default_factory=dict)
    answers: dict[tuple[str, str], str] = field(default_factory=dict)
    queries: dict[str, str] = field(default_factory=dict)
    measures: dict[tuple[str, str], dict[str, float]] = field(default_factory=dict)
    without_bank: list[str] = field(default_factory=list)


def judge_nuggets(
    nuggets: Nuggets,
    scan: Scan,
    dataset: str,
    max_citations: Optional[int],
    log: DebugLog,
    warn: Callable,
    model_spec: str = "rag24",
) -> NuggetResult:
    """Judge every answer of the scan against its topic's bank (see the module doc)."""
    model = load_model(model_spec)
    encoder = F.Encoder()
    result = NuggetResult()
    by_topic: dict[str, list[tuple[str, str]]] = {}
    for report in reread(scan, None, dataset, max_citations):
        if report is not None:
            by_topic.setdefault(report.topic_id, []).append((report.run_id, answer_text(report)))
    labels = {k: a.levels for k, a in nuggets.assignments.items()}
    for topic in sorted(by_topic):
        answers = sorted(by_topic[topic])
        bank = nuggets.banks.get(topic)
        if bank is None:
            result.without_bank.append(topic)
            for run, _ in answers:
                result.measures[(run, topic)] = dict.fromkeys(NUGGET_MEASURES, 0.0)
            continue
        result.queries[topic] = bank.query
        for (run, text), judged in zip(answers, judge_topic(encoder, bank, answers, model, labels)):
            result.judged[(run, topic)] = judged
            result.answers[(run, topic)] = text
            result.measures[(run, topic)] = answer_measures(judged)
            for j in judged:
                log.event(
                    "NUGGET_OUTPUT",
                    run_id=run,
                    topic_id=topic,
                    nugget_index=j.nugget_index,
                    nugget=j.nugget,
                    importance=j.importance,
                    assignment=j.assignment,
                    probabilities={"support": j.p_support, "partial_support": j.p_partial, "not_support": j.p_not},
                    spans=[{"char_start": s, "char_end": e} for s, e in j.spans],
                    features=dict(zip(F.FEATURES, j.features)),
                    explanation=j.explanation,
                )
    if result.without_bank:
        warn(
            f"{len(result.without_bank)} topic(s) have no nugget bank in {nuggets.path}, their nugget measures are 0: "
            + ", ".join(result.without_bank[:5])
        )
    return result


def merge_measures(per_topic: dict, result: NuggetResult, judge: str) -> None:
    """The nugget measures (and with ``argue`` NUGGET_F1) into the session's per-topic measures."""
    for key, values in result.measures.items():
        row = per_topic.setdefault(key, {})
        row.update(values)
        if judge == "argue":
            row[F1] = f1(row.get(PRECISION, 0.0), values["NUGGET_ALL"])


def write(result: NuggetResult, out_dir: Path, name: str, place: Callable[[Path], Path]) -> dict[str, str]:
    """``NAME.nuggets.jsonl`` and ``NAME.nuggets.parquet`` (see the module doc); their paths."""
    paths = {kind: path for kind, (path, _) in targets(out_dir, name).items()}
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

    return read_table(output_file(path, name, "nuggets.parquet"), required=["run_id", "topic_id"]).to_pandas()
