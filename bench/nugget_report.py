"""The nugget judgments a person reads, on all of ../shared/data/rag24-nuggets (issue 41):

* the report of ``--judge argue`` with and without its nuggets (``NAME.nuggets.parquet`` left
  out): files, bytes, the largest file, the median and largest answer data file
  (``data/rI/tJ.js``), and the answer pages whose nugget spans are marked at the parquet's offsets;
* the one-answer call (``judges.check_answer(answer, [], nuggets=bank)``) against the session:
  the answers whose every judgment (status, probabilities, spans, explanation) and nugget
  measures equal the parquet's and the leaderboard's, and its CPU time per answer (warm).

    python bench/nugget_report.py [--data DIR/rag24-nuggets] [--out DIR]   (data: $CITEJUDGE_SHARED/data)

Sizes and counts do not depend on the machine; the CPU time does, a little, and wall times are
not given (the machine is shared).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import judges  # noqa: E402
from judges.formats.nuggets import read_nuggets  # noqa: E402
from judges.formats.tables import read_leaderboard  # noqa: E402

MEASURES = ("NUGGET_ALL", "NUGGET_ALL_STRICT", "NUGGET_VITAL", "NUGGET_VITAL_STRICT")


def cli(*args) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "run_judge.py"), *map(str, args)], capture_output=True, text=True)
    if done.returncode:
        sys.exit(done.stderr)


def sizes(report: Path) -> str:
    files = [p for p in report.rglob("*") if p.is_file()]
    data = [p.stat().st_size for p in report.glob("data/r*/t*.js")]
    total = sum(p.stat().st_size for p in files)
    return (
        f"{len(files)} files, {total / 1e6:.2f} MB, largest {max(p.stat().st_size for p in files) / 1e3:.1f} kB; "
        f"answer data median {statistics.median(data) / 1e3:.1f} kB, largest {max(data) / 1e3:.1f} kB"
    )


def marked(report: Path, texts: dict, table) -> tuple[int, int]:
    """Answer pages whose data marks every nugget at the parquet's spans (UTF-16 offsets of the
    text the session judged), and the answer pages with nuggets."""
    from judges.report.pages import u16

    spans = {}
    for r in table.itertuples():
        spans.setdefault((r.run_id, r.topic_id), []).append([[s["char_start"], s["char_end"]] for s in r.spans])
    good = n = 0
    for path in report.glob("data/r*/t*.js"):
        d = json.loads(path.read_text(encoding="utf-8").split("=", 1)[1].rstrip(";\n").replace("\\/", "/"))
        if "nuggets" not in d:
            continue
        n += 1
        text = texts[(d["run"], d["topic"])]
        want = [[[u16(text, a), u16(text, b)] for a, b in x] for x in spans[(d["run"], d["topic"])]]
        good += d["nugget_text"] == text and [x["spans16"] for x in d["nuggets"]] == want
    return good, n


def main() -> None:
    ap = argparse.ArgumentParser()
    shared = Path(os.environ.get("CITEJUDGE_SHARED", ROOT.parent / "shared"))
    ap.add_argument("--data", type=Path, default=shared / "data" / "rag24-nuggets")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    d = a.data
    root = a.out or Path(tempfile.mkdtemp(prefix="nugget_report_"))
    out, plain = root / "out", root / "plain"
    cli(
        "--judge",
        "argue",
        "--rag-topics",
        d / "topics.jsonl",
        "--rag-responses",
        d / "runs",
        "--nuggets",
        d / "nuggets.jsonl",
        "--corpus",
        d / "segments.jsonl",
        "--out-dir",
        out,
        "--name",
        "N",
    )
    cli("report", out, "--resamples", "0")
    shutil.copytree(out, plain, ignore=shutil.ignore_patterns("N.report", "N.nuggets.*"))
    cli("report", plain, "--resamples", "0")
    texts = {k: x.answer_text for k, x in read_nuggets(out / "N.nuggets.jsonl").assignments.items()}
    print(f"report with nuggets:    {sizes(out / 'N.report')}")
    print(f"report without nuggets: {sizes(plain / 'N.report')}")
    table = judges.read_nuggets(out, "N").sort_values(["run_id", "topic_id", "nugget_index"])
    good, n = marked(out / "N.report", texts, table)
    print(f"answer pages with nuggets whose spans are marked at the parquet's offsets: {good} of {n}")
    lb = read_leaderboard(out, "N")
    values = {(r, t, m): v for r, t, m, v in zip(lb["run_id"], lb["topic_id"], lb["measure"], lb["value"])}
    banks = read_nuggets(d / "nuggets.jsonl").banks
    judges.check_answer("warm up.", [], nuggets=["warm up"])
    same = 0
    cpu = []
    for (run, topic), rows in table.groupby(["run_id", "topic_id"], sort=True):
        started = time.process_time()
        checked = judges.check_answer(texts[(run, topic)], [], nuggets=banks[topic])
        cpu.append(time.process_time() - started)
        got = [
            (j.assignment, j.p_support, j.p_partial, j.p_not, [list(s) for s in j.spans], j.explanation)
            for j in checked.nuggets
        ]
        want = [
            (
                r.assignment,
                r.p_support,
                r.p_partial,
                r.p_not,
                [[s["char_start"], s["char_end"]] for s in r.spans],
                r.explanation,
            )
            for r in rows.itertuples()
        ]
        same += got == want and all(abs(checked.measures[m] - values[(run, topic, m)]) < 1e-12 for m in MEASURES)
    print(
        f"check_answer(nuggets=) equal to the session's judgment: {same} of {len(cpu)} answers "
        f"({len(table)} (answer, nugget) pairs)"
    )
    print(
        f"check_answer(nuggets=) CPU per answer, warm: median {statistics.median(cpu) * 1e3:.1f} ms, "
        f"p90 {sorted(cpu)[int(0.9 * len(cpu))] * 1e3:.1f} ms (citations: none; sources empty)"
    )


if __name__ == "__main__":
    main()
