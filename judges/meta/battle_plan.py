"""``plan-assessments --battles K``: the battles assessors should judge next, with the probability
each was drawn with, for an annotation tool (the verdicts back through ``--labels``:
:mod:`judges.formats.battle_labels`).

From a set judged with ``--judge battle`` (``NAME.battles.jsonl``), per topic about ``K``
opponents per run are drawn by :func:`judges.engine.battle_design.design`, from the battles the
evidence judged and no earlier round's file holds (labelled or not): where the evidence's outcome is
least certain and the runs are close in its ranking, every battle with a known probability. Each
round is a new file, ``NAME.assess-battles-N.jsonl``, one line a battle: ``topic_id``, ``run_a``,
``run_b``, ``shown`` (the order to show the two answers in), the evidence's ``p_a``, ``p_tie``,
``p_b``, ``inclusion_probability``, and ``verdict: null`` for the assessor to fill in (``A``,
``B`` or ``tie``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

import numpy as np

from judges.core.errors import InputError
from judges.core.vocabulary import INCLUSION_PROBABILITY
from judges.engine import battle_design
from judges.engine.battles import Evidence, model_for
from judges.formats import outputset
from judges.formats.setrecord import check_set
from judges.formats.atomic import atomic_text
from judges.formats.battle_labels import read_battle_labels
from judges.formats.jsonl import iter_jsonl
from judges.meta.assessing import rounds


class BattlePlan(NamedTuple):
    lines: list[dict]
    candidates: int
    earlier: int  # battles of earlier rounds' files, left out


def plan_battles(out_dir: Path, name: str, target: Path, opponents: float) -> BattlePlan:
    """Draw the next round's battles (see the module doc) and write them to ``target`` (a new file)."""
    source = outputset.path(out_dir, name, "battles_jsonl")
    if not source.is_file():
        raise InputError(out_dir, None, "--name", f"no {source.name} here: judge with --judge battle first")
    check_set(out_dir, name)  # a file damaged or gone since the set was written: one line (its record)
    if target.exists():
        raise InputError(target, None, "--output", "exists: a round's file is never overwritten")
    earlier_files = [r.path for r in rounds(out_dir, name, "assess_battle_round")]
    earlier: set = set()
    for path in earlier_files:
        for _, obj in iter_jsonl(path):
            if isinstance(obj, dict) and {"topic_id", "run_a", "run_b"} <= set(obj):
                a, b = sorted((str(obj["run_a"]), str(obj["run_b"])))
                earlier.add((str(obj["topic_id"]), a, b))
    read_battle_labels(earlier_files)  # a bad verdict in an earlier round: its line, now
    by_topic: dict[str, list[dict]] = defaultdict(list)
    has_recall = False
    for line, obj in iter_jsonl(source):
        if isinstance(obj, InputError):
            raise obj
        if not isinstance(obj, dict):
            raise InputError(source, line, None, "not a battle record: judge again")
        if obj["source"] == "human" or (obj["topic_id"], obj["run_a"], obj["run_b"]) in earlier:
            continue
        by_topic[obj["topic_id"]].append(obj)
        has_recall = has_recall or obj["evidence"]["a"]["recall"] > 0 or obj["evidence"]["b"]["recall"] > 0
    model = model_for(has_recall)
    lines: list[dict] = []
    for topic in sorted(by_topic):
        records = by_topic[topic]
        ev = {}
        for r in records:
            for side, run in (("a", r["run_a"]), ("b", r["run_b"])):
                ev[run] = Evidence(**r["evidence"][side])
        strength = {run: float(np.dot(model.weights, e.vector())) for run, e in ev.items()}
        rank = {run: k for k, run in enumerate(sorted(ev, key=lambda run: (-strength[run], run)))}
        drawn = battle_design.design(
            topic,
            [r["p_a"] for r in records],
            [r["p_b"] for r in records],
            [rank[r["run_a"]] for r in records],
            [rank[r["run_b"]] for r in records],
            len(ev),
            opponents,
        )
        for k, p in zip(drawn.chosen, drawn.probability):
            r = records[k]
            lines.append(
                {
                    "topic_id": topic,
                    "run_a": r["run_a"],
                    "run_b": r["run_b"],
                    "shown": r["shown"],
                    "p_a": r["p_a"],
                    "p_tie": r["p_tie"],
                    "p_b": r["p_b"],
                    INCLUSION_PROBABILITY: round(float(p), 6),
                    "verdict": None,
                }
            )
    with atomic_text(target) as f:
        for line_ in lines:
            f.write(json.dumps(line_, ensure_ascii=False) + "\n")
    return BattlePlan(lines, sum(len(v) for v in by_topic.values()), len(earlier))
