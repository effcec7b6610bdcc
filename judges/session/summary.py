"""What a session's summary is built from, beside the output set it writes
(:func:`judges.session.pipeline.write`, :func:`judges.session.pipeline.questions`): the judged
citations as one table (:func:`assessments`), each report's measures with the other kinds'
(:func:`merged_measures`), the statuses counted (:func:`count_statuses`) and the labels in effect
with the warnings about those unused (:func:`labels_in_effect`)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Optional

import pyarrow as pa
import pyarrow.compute as pc

from judges.core.counts import CAPPED, CITATIONS, HUMAN_LABELLED
from judges.core.measures import MEASURE_NAMES, judge_headline
from judges.core.vocabulary import STATUSES
from judges.session.spec import Inputs, Summary
from judges.session.stages import Judged, Loaded
from judges.session.writer import Written

if TYPE_CHECKING:
    from judges.formats.labels import LabelFiles


def per_topic(judged: Judged) -> dict:
    """Each judged report's measures, ``(run, topic) -> {measure: value}``, over the parts (the
    nugget stage's are merged in by :func:`merged_measures`)."""
    return {k: v for part in judged.parts for k, v in part.per_topic.items()}


def assessments(judged: Judged) -> pa.Table:
    """The judged citations of every part, one table (:data:`judges.formats.tables.ASSESSMENT_SCHEMA`)."""
    return pa.concat_tables([p.assessments for p in judged.parts])


def merged_measures(judged: Judged, judge: str) -> tuple[dict, Optional[tuple[str, ...]]]:
    """Each report's measures with the other kinds' beside the citations', and the measures the
    leaderboard holds (None: the citations' alone)."""
    measures_of_reports = per_topic(judged)
    measures: Optional[tuple[str, ...]] = None
    for kind in judged.pairs.values():  # the other kinds of pair: their measures beside the citations'
        kind.merge_measures(measures_of_reports, judge)
        measures = kind.measures_of(judge, measures or MEASURE_NAMES)
    return measures_of_reports, measures


def count_statuses(table: pa.Table, counts: Counter) -> Counter:
    """The judged citations' statuses, in the vocabulary's order; the citations and those capped
    counted into ``counts``."""
    counted = {item["values"]: item["counts"] for item in pc.value_counts(table.column("status")).to_pylist()}
    statuses: Counter = Counter()
    for status in STATUSES:  # in the vocabulary's order, whatever the rows' order
        if status in counted:
            statuses[status] = counted[status]
    counts[CITATIONS] = table.num_rows
    counts[CAPPED] = int(pc.sum(table.column("capped")).as_py() or 0)
    return statuses


def labels_in_effect(loaded: Loaded, judged: Judged, table: pa.Table, counts: Counter, warnings: list) -> dict:
    """The summary's ``labels``: those in effect (:func:`labels_matched`), the nugget and battle
    labels no pair uses (a warning each: an assessor's work is not dropped without a word) and
    what the support re-fit did (``--refit-support``)."""
    labels = labels_matched(loaded.labels, table, counts, warnings)
    unused = loaded.labels.nuggets if loaded.labels is not None and not judged.pairs else None
    if unused is not None and unused.levels:  # an assessor's work, not dropped without a word
        warnings.append(
            f"the {len(unused.levels)} nugget labels in {', '.join(f['path'] for f in unused.files)} are not used: "
            "no nugget pair is judged (--nuggets with --judge nugget or argue)"
        )
    if loaded.labels is not None and loaded.labels.battles is not None and "battle" not in judged.pairs:
        from judges.session.battles import unused_labels

        warnings.append(unused_labels(loaded.labels.battles))
    if judged.support_refit is not None:  # fit to the track at hand (--refit-support)
        labels["support_refit"] = judged.support_refit
    return labels


def labels_matched(found: Optional["LabelFiles"], table: pa.Table, counts: Counter, warnings: list) -> dict:
    """The summary's ``labels`` (``--labels``: those in effect, and per file), counted over the
    judged citations; a warning for labels that match none."""
    if found is None:
        return {}
    labels: dict[str, Any] = {"in_effect": len(found.statuses), "files": found.counts()}
    if not found.statuses:
        return labels
    labelled = int(pc.sum(pc.is_valid(table.column("human_label"))).as_py() or 0)
    counts[HUMAN_LABELLED] = labelled
    labels["in_effect"] = labelled
    if labelled < len(found.statuses):
        where = ", ".join(str(f["path"]) for f in labels["files"])
        warnings.append(
            f"{labelled} of the {len(found.statuses)} labels in {where} apply to a judged citation; "
            f"{len(found.statuses) - labelled} match none (run_id, topic_id, sentence_index, doc_id)"
            + (": labels of other runs or topics?" if not labelled else "")
        )
    return labels


def questions_summary(loaded: Loaded, judged: Judged, judge: str) -> Summary:
    """The summary of a session that wrote nothing (:func:`judges.session.pipeline.questions`):
    runs, topics, counts, plan and the questions of every kind."""
    counts = loaded.counts
    for part in judged.parts:
        counts.update(part.counts)
    labels = {"in_effect": len(loaded.labels.statuses), "files": loaded.labels.counts()} if loaded.labels else {}
    attest: dict = {}
    measures = per_topic(judged)
    for kind in judged.pairs.values():  # the other kinds' questions too (--nuggets; the battles' side by side)
        kind.merge_measures(measures, judge)
        kind.summarize(attest, {}, counts)
    return Summary(
        counts=counts,
        attest=attest,
        runs=list(loaded.scan.runs),
        topics=len(loaded.topics),
        processes=judged.processes,
        plan=judged.plan,
        labels=labels,
    )


def written_summary(
    inputs: Inputs,
    loaded: Loaded,
    judged: Judged,
    written: Written,
    statuses: Counter,
    files: dict[str, str],
    attest: dict,
    warnings: list,
    labels: dict,
) -> Summary:
    """The summary of a session that wrote its output set (:func:`judges.session.pipeline.write`):
    what :func:`judges.session.writer.write_outputs` wrote and counted, with what was judged."""
    return Summary(
        counts=written.counts,
        statuses=statuses,
        runs=list(loaded.scan.runs),
        topics=len(loaded.topics),
        files=files,
        attest=attest,
        coverage=written.coverage,
        filled=written.filled,
        warnings=warnings + written.warnings,
        processes=judged.processes,
        plan=judged.plan,
        degenerate_not_used=judged.degenerate_not_used,
        labels=labels,
        judge=inputs.judge,
        headline=judge_headline(inputs.judge, inputs.headline),
    )
