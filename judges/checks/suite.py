"""Run several checks on one answer with one call; configuration is validated up front.

::

    suite = CheckSuite(["numbers", "placeholders"], options={"numbers": {"rel_tol": 0.01}})
    result = suite.run(answer, sources)
    assert result.passed, result.explain()

Check names are the keys of ``CHECKS``. Unknown check names, options for a check that is not
run, and unknown option names all raise ``ValueError`` when the suite is built, naming the key.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from judges.checks.answer import cites_sources, grounded, no_placeholders, numeric_grounded
from judges.checks.result import SuiteResult
from judges.checks.sources import as_sources


class CheckSpec(NamedTuple):
    function: Callable
    needs_sources: bool


CHECKS: dict[str, CheckSpec] = {
    "numbers": CheckSpec(numeric_grounded, True),
    "entities": CheckSpec(grounded, True),
    "placeholders": CheckSpec(no_placeholders, False),
    "overlap": CheckSpec(cites_sources, True),
}


def _option_names(function: Callable) -> frozenset[str]:
    params = inspect.signature(function).parameters.values()
    return frozenset(p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY)


class CheckSuite:
    """Which checks to run (all by default, in ``CHECKS`` order) and their options."""

    def __init__(self, checks: Iterable[str] | None = None, options: Mapping[str, Mapping[str, Any]] | None = None):
        names = list(CHECKS) if checks is None else list(checks)
        for name in names:
            if name not in CHECKS:
                raise ValueError(f"unknown check {name!r} (known: {', '.join(CHECKS)})")
        if len(set(names)) != len(names):
            raise ValueError(f"check listed twice: {names}")
        options = dict(options or {})
        for name, opts in options.items():
            if name not in CHECKS:
                raise ValueError(f"options for unknown check {name!r} (known: {', '.join(CHECKS)})")
            if name not in names:
                raise ValueError(f"options given for check {name!r}, which this suite does not run")
            unknown = set(opts) - _option_names(CHECKS[name].function)
            if unknown:
                allowed = ", ".join(sorted(_option_names(CHECKS[name].function)))
                raise ValueError(f"{name}: unknown option(s) {sorted(unknown)} (allowed: {allowed})")
        self.checks: tuple[str, ...] = tuple(names)
        self.options: dict[str, dict[str, Any]] = {name: dict(options.get(name, {})) for name in names}

    def run(self, answer: str, sources: Any = ()) -> SuiteResult:
        """Run every configured check; sources are prepared once and shared by the checks."""
        prepared = as_sources(sources)
        results = []
        for name in self.checks:
            spec = CHECKS[name]
            if spec.needs_sources:
                results.append(spec.function(answer, prepared, **self.options[name]))
            else:
                results.append(spec.function(answer, **self.options[name]))
        return SuiteResult(tuple(results))

    __call__ = run

    def __repr__(self) -> str:
        return f"CheckSuite(checks={list(self.checks)!r}, options={self.options!r})"
