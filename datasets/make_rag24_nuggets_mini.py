"""Copy datasets/rag24-nuggets-mini/ out of ../shared/data/rag24-nuggets: 2 topics x 3 runs, as they are.

    python datasets/make_rag24_nuggets_mini.py [PATH/TO/rag24-nuggets]

Keeps, for TOPICS and RUNS: the run files' lines, the topics, the nugget banks, NIST's
assignment records and the cited segments. Lines are copied byte for byte, in the source's order.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT.parent / "shared" / "data" / "rag24-nuggets"
TARGET = ROOT / "datasets" / "rag24-nuggets-mini"
TOPICS = ("2024-153051", "2024-214257")
RUNS = ("KML.gpt_mini", "webis.webis-rag-run0-taskrag", "uis-iai.ginger_top_5")


def _keep(path: Path, test) -> list[str]:
    return [
        line
        for line in path.read_text(encoding="utf-8").splitlines(keepends=True)
        if line.strip() and test(json.loads(line))
    ]


def main() -> None:
    src = Path(sys.argv[1]) if len(sys.argv) > 1 else SOURCE
    (TARGET / "runs").mkdir(parents=True, exist_ok=True)
    cited = set()
    for run in RUNS:
        lines = _keep(src / "runs" / f"{run}.jsonl", lambda r: r["topic_id"] in TOPICS)
        for line in lines:
            cited.update(json.loads(line)["references"])
        (TARGET / "runs" / f"{run}.jsonl").write_text("".join(lines), encoding="utf-8")
    for name, test in (
        ("topics.jsonl", lambda r: r["id"] in TOPICS),
        ("nuggets.jsonl", lambda r: r["qid"] in TOPICS),
        ("nugget_assignment.jsonl", lambda r: r["qid"] in TOPICS and r["run_id"] in RUNS),
        ("segments.jsonl", lambda r: r["docid"] in cited),
    ):
        (TARGET / name).write_text("".join(_keep(src / name, test)), encoding="utf-8")


if __name__ == "__main__":
    main()
