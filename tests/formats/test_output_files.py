"""One table of the output set's files (judges.formats.outputset): every module finds a file's name
there. A name spelled anywhere else (``f"{name}.qrels"``, ``output_file(path, name, "config.yml")``)
is a second place for the same fact, and this test names it."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import ROOT

from judges.formats import outputset

PACKAGE = ROOT / "judges"


def test_no_module_but_the_table_spells_an_output_file_name():
    suffixes = sorted({f.suffix.split("{")[0].rstrip("-") for f in outputset.FILES} - {"jsonl"}, key=len, reverse=True)
    alternatives = "|".join(re.escape(s) for s in suffixes)
    spelled = re.compile(
        r"\}\.(?:" + alternatives + r")\b"  # f"{name}.qrels", f"{name}.{kind}.tsv" is caught by its kind's line
        r"|\{[^}]*name\}\.jsonl"  # the debug log, NAME.jsonl
        r"|output_file\([^)]*[\"'](?:" + alternatives + r")[\"']\)"  # a reader handed a suffix
    )
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "outputset.py":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#")[0]
            if spelled.search(code) and '"""' not in code and "``" not in code:
                found.append(f"{path.relative_to(PACKAGE.parent)}:{n}: {line.strip()}")
    assert found == []


def test_every_kind_has_one_file_and_every_leaderboard_format_its_own():
    from judges.formats.trec import LEADERBOARD_FORMATS

    assert len({f.kind for f in outputset.FILES}) == len(outputset.FILES)
    assert len({f.suffix for f in outputset.FILES}) == len(outputset.FILES)
    assert {outputset.suffix(outputset.leaderboard(f)) for f in LEADERBOARD_FORMATS} == {
        *("leaderboard.txt", "leaderboard.tot.txt", "leaderboard.jsonl")
    }
    assert outputset.path("out", "s", "assess_round", round=3) == Path("out/s.assess-3.jsonl")
