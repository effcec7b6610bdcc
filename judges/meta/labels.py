"""Human support labels: a JSONL file, one label per sentence or per citation.

Each line is an object with

* ``run_id``, ``topic_id`` (string or integer) and ``sentence_index`` (integer >= 0, the index of
  the sentence in the report's ``answer``/``responses`` list, as in the assessments table);
* ``doc_id`` (optional): present on every line, the labels are per citation (the judgment of that
  document cited by that sentence); absent on every line, per sentence. A mix is an error;
* ``label``: ``supported``, ``partially`` or ``not_supported``; ``null``: not labelled yet (the
  line is skipped and counted: ``plan-assessments`` writes its lines so, for an assessor to fill);
* any other keys: extra columns (string, number, boolean or null), e.g. the source data set, by
  which ``agreement`` breaks its scores down; objects and lists (e.g. the document and evidence
  ``plan-assessments`` writes, or WiCE's ``supporting_sentences``) are left out.

A key given twice is an error naming both lines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from judges.errors import InputError
from judges.formats.jsonl import iter_jsonl
from judges.formats.runs import checked_id, json_type
from judges.vocabulary import LABEL_STATUS, LABELS

KEY = ("run_id", "topic_id", "sentence_index")
RESERVED = {"label", *KEY, "doc_id"}
LINE = "_line"  # the label's line number, for messages


class Labels(NamedTuple):
    path: Path
    level: str  # "citation" (with doc_id) or "sentence"
    table: pd.DataFrame  # run_id, topic_id, sentence_index, [doc_id], label, _line, extras...
    extras: tuple[str, ...]  # extra column names, in order of first appearance
    unlabelled: int = 0  # lines whose label is null (not labelled yet), skipped

    @property
    def key(self) -> list[str]:
        return [*KEY, "doc_id"] if self.level == "citation" else list(KEY)


def _describe(key: tuple) -> str:
    run, topic, sentence = key[:3]
    text = f"run {run!r}, topic {topic!r}, sentence {sentence}"
    return text + (f", doc {key[3]!r}" if len(key) > 3 else "")


def read_labels(path: str | Path) -> Labels:  # noqa: C901 (to split: issue 32)
    path = Path(path)
    if not path.is_file():
        raise InputError(path, None, None, "no such file")
    records: list[dict] = []
    extras: dict[str, None] = {}
    level = None
    level_line = 0
    seen: dict[tuple, int] = {}
    unlabelled = 0
    for line, obj in iter_jsonl(path):
        if isinstance(obj, InputError):
            raise obj
        if not isinstance(obj, dict):
            raise InputError(path, line, None, f"a label must be a JSON object, got {json_type(obj)}")
        rec: dict = {}
        for k in ("run_id", "topic_id"):
            if obj.get(k) is None:
                raise InputError(path, line, k, "missing")
            rec[k] = checked_id(obj[k], str(path), line, k)
        idx = obj.get("sentence_index")
        if idx is None:
            raise InputError(path, line, "sentence_index", "missing")
        if isinstance(idx, bool) or not isinstance(idx, int) or idx < 0:
            raise InputError(path, line, "sentence_index", f"must be an integer >= 0, got {json.dumps(idx)}")
        rec["sentence_index"] = idx
        this_level = "sentence" if obj.get("doc_id") is None else "citation"
        if level is None:
            level, level_line = this_level, line
        elif this_level != level:
            where = "present here but not" if this_level == "citation" else "absent here but present"
            raise InputError(
                path,
                line,
                "doc_id",
                f"{where} on line {level_line}: labels are all per citation (with doc_id) or all per sentence",
            )
        if this_level == "citation":
            rec["doc_id"] = checked_id(obj["doc_id"], str(path), line, "doc_id")
        if "label" not in obj:
            raise InputError(path, line, "label", "missing")
        label = obj["label"]
        if label is None:  # not labelled yet
            unlabelled += 1
            continue
        if label not in LABELS:
            raise InputError(path, line, "label", f"unknown {json.dumps(label)}; expected {', '.join(LABELS)}")
        rec["label"] = label
        rec[LINE] = line
        for k, v in obj.items():
            if k in RESERVED:
                continue
            if k.startswith("_"):
                raise InputError(path, line, k, "extra column names must not start with '_'")
            if isinstance(v, (dict, list)):  # not a column: left out
                continue
            extras.setdefault(k, None)
            rec[k] = None if v is None else str(v)
        key = tuple(rec[k] for k in ((*KEY, "doc_id") if level == "citation" else KEY))
        if key in seen:
            raise InputError(path, line, "label", f"second label for {_describe(key)} (first on line {seen[key]})")
        seen[key] = line
        records.append(rec)
    if not records:
        pending = f" ({unlabelled} lines not labelled yet)" if unlabelled else ""
        raise InputError(path, None, None, f"no labels{pending}")
    columns = [*KEY] + (["doc_id"] if level == "citation" else []) + ["label", LINE, *extras]
    table = pd.DataFrame.from_records(records, columns=columns)
    table = table.astype({"run_id": str, "topic_id": str, "sentence_index": "int64", "label": str, LINE: "int64"})
    return Labels(path, level, table, tuple(extras), unlabelled)


def citation_statuses(labels: Labels) -> dict[tuple, str]:
    """Per-citation labels as the judge takes them (``--labels``): (run, topic, sentence index,
    doc id) -> status (:data:`LABEL_STATUS`)."""
    if labels.level != "citation":
        why = "--labels needs one label per citation (doc_id on every line), not per sentence"
        raise InputError(labels.path, None, "doc_id", why)
    t = labels.table
    return {
        (run, topic, int(sentence), doc): LABEL_STATUS[label]
        for run, topic, sentence, doc, label in zip(t.run_id, t.topic_id, t.sentence_index, t.doc_id, t.label)
    }
