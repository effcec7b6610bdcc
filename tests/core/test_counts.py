"""The vocabulary of a session's counts (judges.core.counts): every key written is declared there."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest
from helpers import ROOT
import yaml
from golden_cases import GOLDEN, TRACKS

from judges.core import counts as keys


def _bare_string_keys(path: Path) -> list[str]:
    """``counts["..."]`` or ``x.counts[f"..."]``: a count keyed by a string literal, not a declared name."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Subscript):
            continue
        target = node.value
        name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else ""
        literal = isinstance(node.slice, ast.JoinedStr) or (
            isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)
        )
        if name == "counts" and literal:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_counts_are_keyed_by_declared_names_only():
    found = [hit for path in sorted((ROOT / "judges").rglob("*.py")) for hit in _bare_string_keys(path)]
    assert found == [], "count keys belong in judges/core/counts.py"


@pytest.mark.parametrize("track", sorted(TRACKS))
def test_every_count_in_a_golden_config_is_declared(track):
    config = yaml.safe_load((GOLDEN / track / "config.yml").read_text(encoding="utf-8"))
    assert config["counts"], track
    assert [k for k in config["counts"] if not keys.declared(k)] == []


def test_summarize_takes_out_exactly_the_attestation_counts():
    from judges.attest.cascade import summarize
    from judges.attest.endpoint import Endpoint
    from judges.core.config import AttestSettings

    for key in keys.KEYS:
        assert key.startswith(keys.ATTESTATION_PREFIXES) == (key in keys.ATTESTATION), key
    session = Counter({key: 1 for key in keys.KEYS} | {keys.attest_failure("http 400"): 2})
    summary = summarize(session, AttestSettings(mode="all"), Endpoint(model="m", base_url="http://localhost:1"))
    assert set(session) == keys.KEYS - set(keys.ATTESTATION)
    assert summary["failed_requests"] == {"http 400": 2}


def test_a_skipped_record_is_counted_under_its_declared_key():
    from judges.core.errors import InputError
    from judges.formats.debuglog import DebugLog
    from judges.session.scan import Problems

    session: Counter = Counter()
    problems = Problems("skip", DebugLog(None), session, lambda msg: None)
    for what in keys.SKIPPED:
        problems(InputError("f", 1, "x", "bad"), what)
    assert session == Counter({key: 1 for key in keys.SKIPPED.values()})
    with pytest.raises(KeyError):
        problems(InputError("f", 1, "x", "bad"), "recrod")
