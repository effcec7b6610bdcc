"""Assessors' battle verdicts: a JSONL file, one battle a line, as ``plan-assessments --battles``
writes them for an assessor to fill in (or as a track's assessors deliver them).

Each line is an object with ``topic_id``, ``run_a``, ``run_b`` (the two runs, in either order;
strings or integers) and ``verdict``: ``A`` (``run_a``'s answer is better), ``B``, ``tie``, or
``null`` (not judged yet: skipped and counted). Optional: ``inclusion_probability`` (the
probability the plan drew the battle with, in (0, 1]; default 1), and any other fields (the order
shown, the answers) which are left alone. A battle given twice with different verdicts is an error
naming both lines. Verdicts are kept with ``run_a`` the run that sorts first (a line with the runs
the other way has its verdict turned round), as ``NAME.battles.jsonl`` keys them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, NamedTuple

from judges.core.errors import InputError
from judges.core.vocabulary import INCLUSION_PROBABILITY
from judges.formats.jsonl import iter_jsonl

VERDICTS = {"a": "A", "b": "B", "tie": "tie"}
FLIP = {"A": "B", "B": "A", "tie": "tie"}


class BattleLabel(NamedTuple):
    verdict: str  # A, tie or B, with run_a the run that sorts first
    probability: float  # the plan's inclusion probability (1: every battle labelled)
    path: str
    line: int


class BattleLabels(NamedTuple):
    labels: dict[tuple[str, str, str], BattleLabel]  # (topic, run_a, run_b), run_a < run_b
    files: list[dict]  # per file: path, labels, not_labelled


def is_battle_file(path: Path) -> bool:
    """Whether the label file's first record is a battle's (``run_a`` and ``run_b``)."""
    try:
        for _, obj in iter_jsonl(path):
            return isinstance(obj, dict) and "run_a" in obj and "run_b" in obj
    except (OSError, InputError):
        return False
    return False


def _id(obj: dict, field: str, path: Path, line: int) -> str:
    value = obj.get(field)
    if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value).strip() == "":
        raise InputError(path, line, field, "missing or not a string or integer")
    return str(value).strip()


def read_battle_labels(paths: Iterable[Path]) -> BattleLabels:
    """Every battle verdict of ``paths`` (see the module doc); bad lines raise their :class:`InputError`."""
    labels: dict[tuple[str, str, str], BattleLabel] = {}
    files = []
    for path in paths:
        path = Path(path)
        found = pending = 0
        for line, obj in iter_jsonl(path):
            if isinstance(obj, InputError):
                raise obj
            if not isinstance(obj, dict):
                raise InputError(path, line, None, "a battle label must be a JSON object")
            topic, a, b = (_id(obj, f, path, line) for f in ("topic_id", "run_a", "run_b"))
            if a == b:
                raise InputError(path, line, "run_b", f"the same run as run_a ({a!r})")
            raw = obj.get("verdict")
            if raw is None:
                pending += 1
                continue
            verdict = VERDICTS.get(str(raw).strip().lower()) if isinstance(raw, str) else None
            if verdict is None:
                raise InputError(path, line, "verdict", f"{raw!r}: give A, B or tie (null: not judged yet)")
            p = obj.get(INCLUSION_PROBABILITY, 1.0)
            if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 < p <= 1:
                raise InputError(path, line, INCLUSION_PROBABILITY, f"{p!r}: a number in (0, 1]")
            if a > b:
                a, b, verdict = b, a, FLIP[verdict]
            key = (topic, a, b)
            if key in labels and labels[key].verdict != verdict:
                first = labels[key]
                raise InputError(
                    path,
                    line,
                    "verdict",
                    f"{verdict} for {topic} {a} vs {b}, {first.verdict} in {first.path} line {first.line}: "
                    "one battle judged two ways; correct one of the files",
                )
            labels.setdefault(key, BattleLabel(verdict, float(p), str(path), line))
            found += 1
        files.append({"path": str(path), "labels": found, "not_labelled": pending})
    return BattleLabels(labels, files)
