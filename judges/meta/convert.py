"""Labelled claim/evidence sets -> a run directory, a topics file and a label file.

Each labelled item becomes one topic (its id) answered by one report of run ``RUN_ID`` (default
``human``) in the DRAGUN/kiddie "responses" shape: one sentence, the claim, citing one document,
the evidence, embedded in the report's ``documents``. The label file (:mod:`judges.formats.labels`)
is per citation, so ``agreement`` compares exactly the judgment of that claim against that
evidence.

Layouts (``layout="auto"`` tells them apart by their fields):

* ``attributionbench`` (``dev_all_subset_balanced.jsonl`` and the other AttributionBench splits):
  ``id``, ``question``, ``claim``, ``references`` (list of evidence strings, joined with a blank
  line into one document), ``attribution_label`` (``attributable`` -> supported,
  ``not attributable`` -> not_supported), ``src_dataset`` (kept as the label file's extra column
  ``src_dataset``);
* ``wice`` (``claim_dev.jsonl`` and the other WiCE claim-level splits): ``claim``, ``evidence``
  (list of the cited page's sentences, joined with ``"\\n"``), ``label`` (``supported``,
  ``partially_supported`` -> partially, ``not_supported``), ``meta.id``;
* ``factcheck`` (Factcheck-GPT's ``subtask3_claim_evidence_stance.jsonl``): ``claim``,
  ``evidence`` (one passage), ``stance`` (``completely-support`` -> supported,
  ``partially-support`` -> partially, ``refute`` and ``irrelevant`` -> not_supported, the stance
  kept as the label file's extra column ``stance``); the rows have no id: an item's id is its
  line number (``line00001``...), and one claim may be paired with several passages.

Outputs: ``OUT/topics.jsonl`` (``{request_id, title}``), ``OUT/runs/RUN_ID.jsonl`` and
``OUT/labels.jsonl``, sorted by topic id and written atomically.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

from judges.core.errors import InputError
from judges.formats.atomic import atomic_text
from judges.formats.jsonl import iter_jsonl
from judges.formats.runs import json_type

LAYOUTS = ("attributionbench", "wice", "factcheck")
AB_LABELS = {"attributable": "supported", "not attributable": "not_supported"}
WICE_LABELS = {"supported": "supported", "partially_supported": "partially", "not_supported": "not_supported"}
FACTCHECK_LABELS = {
    "completely-support": "supported",
    "partially-support": "partially",
    "refute": "not_supported",
    "irrelevant": "not_supported",
}


class Item(NamedTuple):
    id: str
    title: str
    claim: str
    evidence: str
    label: str  # supported | partially | not_supported
    extras: dict[str, str]
    line: int


class Converted(NamedTuple):
    topics: Path
    runs: Path  # directory
    labels: Path
    items: int


def sniff_layout(path: Path, obj: dict, line: int) -> str:
    if "attribution_label" in obj:
        return "attributionbench"
    if "supporting_sentences" in obj or isinstance(obj.get("evidence"), list):
        return "wice"
    if "stance" in obj:
        return "factcheck"
    raise InputError(
        path,
        line,
        None,
        "neither AttributionBench (attribution_label), WiCE (evidence, supporting_sentences) nor Factcheck-GPT "
        "(stance); pass --layout",
    )


def _text(path: Path, line: int, obj: dict, key: str, allow_empty: bool = False) -> str:
    v = obj.get(key)
    if v is None:
        raise InputError(path, line, key, "missing")
    if not isinstance(v, str):
        raise InputError(path, line, key, f"must be a string, got {json_type(v)}")
    if not allow_empty and not v.strip():
        raise InputError(path, line, key, "is empty")
    return v


def _strings(path: Path, line: int, obj: dict, key: str) -> list[str]:
    v = obj.get(key)
    if v is None:
        raise InputError(path, line, key, "missing")
    if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
        raise InputError(path, line, key, "must be a list of strings")
    return v


def _label(path: Path, line: int, obj: dict, key: str, mapping: dict[str, str]) -> str:
    v = obj.get(key)
    if v is None:
        raise InputError(path, line, key, "missing")
    if v not in mapping:
        raise InputError(path, line, key, f"unknown {json.dumps(v)}; expected {', '.join(mapping)}")
    return mapping[v]


def _attributionbench(path: Path, line: int, obj: dict) -> Item:
    item_id = obj.get("id")
    if isinstance(item_id, bool) or not isinstance(item_id, (str, int)) or not str(item_id).strip():
        raise InputError(path, line, "id", "missing" if item_id is None else "must be a non-empty string or an integer")
    return Item(
        id=str(item_id).strip(),
        title=_text(path, line, obj, "question"),
        claim=_text(path, line, obj, "claim"),
        evidence="\n\n".join(_strings(path, line, obj, "references")),
        label=_label(path, line, obj, "attribution_label", AB_LABELS),
        extras={"src_dataset": _text(path, line, obj, "src_dataset")},
        line=line,
    )


def _wice(path: Path, line: int, obj: dict) -> Item:
    meta = obj.get("meta")
    if not isinstance(meta, dict):
        raise InputError(path, line, "meta", "missing" if meta is None else "must be an object")
    item_id = meta.get("id")
    if isinstance(item_id, bool) or not isinstance(item_id, (str, int)) or not str(item_id).strip():
        raise InputError(
            path, line, "meta.id", "missing" if item_id is None else "must be a non-empty string or an integer"
        )
    claim = _text(path, line, obj, "claim")
    return Item(
        id=str(item_id).strip(),
        title=claim,
        claim=claim,
        evidence="\n".join(_strings(path, line, obj, "evidence")),
        label=_label(path, line, obj, "label", WICE_LABELS),
        extras={},
        line=line,
    )


def _factcheck(path: Path, line: int, obj: dict) -> Item:
    claim = _text(path, line, obj, "claim")
    label = _label(path, line, obj, "stance", FACTCHECK_LABELS)
    return Item(
        id=f"line{line:05d}",
        title=claim,
        claim=claim,
        evidence=_text(path, line, obj, "evidence"),
        label=label,
        extras={"stance": obj["stance"]},
        line=line,
    )


READERS = {"attributionbench": _attributionbench, "wice": _wice, "factcheck": _factcheck}


def read_items(path: str | Path, layout: str = "auto") -> list[Item]:
    """Every labelled item of ``path``, validated; ids must be unique."""
    path = Path(path)
    if layout != "auto" and layout not in LAYOUTS:
        raise InputError(path, None, "--layout", f"unknown {layout!r}; known: auto, {', '.join(LAYOUTS)}")
    if not path.is_file():
        raise InputError(path, None, None, "no such file")
    items: list[Item] = []
    first: dict[str, int] = {}
    for line, obj in iter_jsonl(path):
        if isinstance(obj, InputError):
            raise obj
        if not isinstance(obj, dict):
            raise InputError(path, line, None, f"an item must be a JSON object, got {json_type(obj)}")
        if layout == "auto":
            layout = sniff_layout(path, obj, line)
        item = READERS[layout](path, line, obj)
        if item.id in first:
            raise InputError(path, line, "id", f"duplicate id {item.id!r} (first on line {first[item.id]})")
        first[item.id] = line
        items.append(item)
    if not items:
        raise InputError(path, None, None, "no items")
    return items


def doc_id(item: Item) -> str:
    return f"doc-{item.id}"


def write_converted(out_dir: str | Path, items: list[Item], run_id: str = "human") -> Converted:
    """Write ``topics.jsonl``, ``runs/RUN_ID.jsonl`` and ``labels.jsonl`` under ``out_dir``."""
    if not run_id.strip() or "/" in run_id or "\\" in run_id or run_id in (".", ".."):
        raise InputError("--run-id", None, None, f"{run_id!r} must be a plain, non-empty name")
    out = Path(out_dir)
    topics, runs, labels = out / "topics.jsonl", out / "runs", out / "labels.jsonl"
    ordered = sorted(items, key=lambda it: it.id)

    def dump(obj: dict) -> str:
        return json.dumps(obj, ensure_ascii=False) + "\n"

    with atomic_text(topics) as f:
        for it in ordered:
            f.write(dump({"request_id": it.id, "title": it.title}))
    with atomic_text(runs / f"{run_id}.jsonl") as f:
        for it in ordered:
            d = doc_id(it)
            f.write(
                dump(
                    {
                        "metadata": {"run_id": run_id, "topic_id": it.id, "team_id": "labelled"},
                        "responses": [{"text": it.claim, "citations": [d]}],
                        "documents": {d: {"id": d, "text": it.evidence}},
                    }
                )
            )
    with atomic_text(labels) as f:
        for it in ordered:
            f.write(
                dump(
                    {
                        "run_id": run_id,
                        "topic_id": it.id,
                        "sentence_index": 0,
                        "doc_id": doc_id(it),
                        "label": it.label,
                        **it.extras,
                    }
                )
            )
    return Converted(topics, runs, labels, len(items))
