"""The intervals' variances are registered per measure and checked against the measure registry
when :mod:`judges.scores` is imported: a measure the judge's errors move, without a variance, fails
at import (not in a session, after judging)."""

import subprocess
import sys

import pytest

from judges.core.measures import REGISTRY
from judges.scores.nugget_intervals import NUGGET_VARIANCE_OF
from judges.scores.variances import MODELLED, NO_JUDGE_ERROR, VARIANCE_OF


def imported_with(patch: str, module: str) -> subprocess.CompletedProcess:
    code = f"import judges.core.measures as m\n{patch}\nimport {module}\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_every_judged_measure_has_a_variance_function():
    for m in REGISTRY.values():
        if m.judge_error:
            assert m.name in NUGGET_VARIANCE_OF or m.variance in VARIANCE_OF or m.variance == "battle_bootstrap", m.name
        else:
            assert m.name in NO_JUDGE_ERROR and m.name not in MODELLED


@pytest.mark.parametrize(
    "patch, module, named",
    [
        (
            "m.REGISTRY['CITATION_SUPPORT'] = m.REGISTRY['CITATION_SUPPORT']._replace(variance='unmodelled')",
            "judges.scores.variances",
            "CITATION_SUPPORT (unmodelled)",
        ),
        (
            "m.REGISTRY['NUGGET_NEW'] = m.REGISTRY['NUGGET_ALL']._replace(name='NUGGET_NEW')",
            "judges.scores.nugget_intervals",
            "NUGGET_NEW",
        ),
    ],
)
def test_a_measure_without_a_variance_fails_at_import(patch, module, named):
    found = imported_with(patch, module)
    assert found.returncode != 0
    last = found.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: no model of the judge's error of ") and named in last


def test_the_registry_as_it_is_imports():
    assert imported_with("", "judges.scores.intervals").returncode == 0
