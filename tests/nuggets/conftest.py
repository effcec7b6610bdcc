"""The nugget tests' own fixture: the bundled rag24-nuggets-mini judged once with ``--judge argue``."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ROOT, judge_cli, track

NUGGETS_MINI = ROOT / "datasets" / "rag24-nuggets-mini"


@pytest.fixture(scope="session")
def argued_mini(tmp_path_factory) -> Path:
    """datasets/rag24-nuggets-mini judged with ``--judge argue`` (default workflow and backend), its outputs
    named ``N``, once per worker: a real CLI run, the one tests/golden/rag24-nuggets-mini holds. Read it,
    never write into it (:func:`helpers.copy_judged` for a test that writes beside it, a report)."""
    out = tmp_path_factory.mktemp("argued-mini")
    judge_cli("--judge", "argue", *track(NUGGETS_MINI, nuggets="nuggets.jsonl"), out=out, name="N")
    return out
