"""What a check returns: pass/fail, a score, reasons a person can read, and the evidence.

``CheckResult`` is what one check returns; ``SuiteResult`` combines several (it passes when all
of them pass). Both print themselves with ``explain()``, serialise with ``to_dict()`` /
``to_json()`` and give a process exit code (0 passed, 1 failed), so a test can say::

    result = numeric_grounded(answer, docs)
    assert result.passed, result.explain()
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class CheckResult:
    name: str
    passed: bool
    score: float  # in [0, 1]; 1 is best
    reasons: list[str] = field(default_factory=list)  # why it failed (or notes), one line each
    evidence: dict[str, Any] = field(default_factory=dict)  # JSON-ready details

    def __post_init__(self) -> None:
        if not 0.0 <= self.score <= 1.0:
            raise ValueError(f"{self.name}: score must be in [0, 1], got {self.score}")

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "passed": self.passed,
            "score": self.score,
            "reasons": list(self.reasons),
            "evidence": self.evidence,
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def explain(self) -> str:
        """``name: PASSED|FAILED (score 0.50)`` then one indented line per reason."""
        head = f"{self.name}: {'PASSED' if self.passed else 'FAILED'} (score {self.score:.2f})"
        return "\n".join([head] + [f"  - {r}" for r in self.reasons])


@dataclass(frozen=True)
class SuiteResult:
    """Several checks on one answer: passes when every check passes; score is their minimum."""

    results: tuple[CheckResult, ...]
    name: str = "suite"

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    @property
    def score(self) -> float:
        return min((r.score for r in self.results), default=1.0)

    @property
    def reasons(self) -> list[str]:
        return [f"{r.name}: {reason}" for r in self.results for reason in r.reasons]

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1

    def __getitem__(self, name: str) -> CheckResult:
        for r in self.results:
            if r.name == name:
                return r
        raise KeyError(f"no check named {name!r} in this result (have: {[r.name for r in self.results]})")

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "passed": self.passed,
            "score": self.score,
            "checks": [r.to_dict() for r in self.results],
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def explain(self) -> str:
        failed = sum(not r.passed for r in self.results)
        head = (
            f"{self.name}: {'PASSED' if self.passed else 'FAILED'} "
            f"({len(self.results) - failed}/{len(self.results)} checks passed)"
        )
        body = ["  " + line for r in self.results for line in r.explain().splitlines()]
        return "\n".join([head] + body)
