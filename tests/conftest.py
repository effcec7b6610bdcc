"""Shared fixtures: repository paths and the optional ../shared/data directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("CITEJUDGE_SHARED", ROOT.parent / "shared")) / "data"


def shared(*parts: str) -> Path:
    """A path under ../shared/data, or skip the test when that data is not present."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not present: {path}")
    return path


DSPY_REASON = "dspy is not installed: LLM attestation needs the attest extra (pip install -e '.[attest]')"


def needs_dspy() -> None:
    """Skip the calling test (or module) unless dspy imports: LLM attestation asks through it."""
    pytest.importorskip("dspy", reason=DSPY_REASON)


def run_cli(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``python run_judge.py ARGS`` as a real subprocess."""
    return subprocess.run(
        [sys.executable, str(ROOT / "run_judge.py"), *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=600,
    )
