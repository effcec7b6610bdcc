"""Whole-process time of judging all of rag24-nuggets: citation, nugget and argue, by the CLI.

    python bench/nuggets_speed.py [--data /work/shared/data] [--repeat 3]

Each judge runs as one process (``python run_judge.py``, one worker), alternating, ``--repeat``
times; printed: the median wall-clock seconds of each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(os.environ.get("CITEJUDGE_SHARED", ROOT.parent / "shared")) / "data"
    ap.add_argument("--data", type=Path, default=default)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    d = args.data / "rag24-nuggets"
    base = ["--rag-topics", d / "topics.jsonl", "--rag-responses", d / "runs", "--corpus", d / "segments.jsonl"]
    judges = {
        "citation": ["--judge", "citation"],
        "nugget": ["--judge", "nugget", "--nuggets", d / "nuggets.jsonl"],
        "argue": ["--judge", "argue", "--nuggets", d / "nuggets.jsonl"],
    }
    times: dict[str, list[float]] = {k: [] for k in judges}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as out:
        for _ in range(args.repeat):
            for name, extra in judges.items():
                cmd = [sys.executable, str(ROOT / "run_judge.py"), *map(str, base + extra)]
                started = time.perf_counter()
                subprocess.run(
                    [*cmd, "--out-dir", out, "--name", name, "--workers", "1"], check=True, capture_output=True, env=env
                )
                times[name].append(time.perf_counter() - started)
    for name, t in times.items():
        print(f"{name:<9} {statistics.median(t):6.2f} s (median of {len(t)}; all: {', '.join(f'{x:.2f}' for x in t)})")


if __name__ == "__main__":
    main()
