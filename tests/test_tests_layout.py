"""The tests' own layout: ``tests/`` mirrors ``judges/`` (a test file in the folder of the layer it tests;
the house-wide ones at the top), and the helpers come from ``tests/helpers.py``, never from a conftest."""

from __future__ import annotations

import re

from helpers import ROOT

TESTS = ROOT / "tests"
#: the house-wide tests, at the top; tests/test_cli.py stays there while the README quotes its path
HOUSE_WIDE = {
    "test_cli.py",
    "test_docs.py",
    "test_golden.py",
    "test_layers.py",
    "test_readme.py",
    "test_shared_data.py",
    "test_tests_layout.py",
}


def test_every_test_file_is_in_a_layers_folder_or_house_wide():
    layers = {p.name for p in (ROOT / "judges").iterdir() if (p / "__init__.py").is_file()}
    files = sorted(TESTS.rglob("test_*.py"))
    misplaced = [
        str(p.relative_to(TESTS))
        for p in files
        if (p.parent == TESTS and p.name not in HOUSE_WIDE) or (p.parent != TESTS and p.parent.name not in layers)
    ]
    assert len(files) > 80 and misplaced == [], f"move these into tests/<layer>/ (git mv): {misplaced}"
    assert sorted(p.name for p in TESTS.iterdir() if p.is_dir() and p.name in layers) == sorted(layers)


def test_helpers_are_imported_from_helpers_not_from_a_conftest():
    """``from conftest import`` finds whichever conftest.py was imported last once folders have their own."""
    found = [
        f"{p.relative_to(TESTS)}:{n}"
        for p in sorted(TESTS.rglob("*.py"))
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if re.match(r"\s*(from conftest import|import conftest\b)", line)
    ]
    assert found == [], f"import these from helpers (tests/helpers.py): {found}"
