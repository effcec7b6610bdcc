"""Whole-process time of judging all of rag24-nuggets: citation, nugget and argue, by the CLI.

    python bench/nuggets_speed.py [--data /work/shared/data] [--repeat 3]

Each judge runs as one process (``python run_judge.py``, one worker), alternating, ``--repeat``
times; printed: the median wall-clock and CPU seconds (user + system, the process and its
children) of each. On a machine shared with other jobs the CPU seconds are the steadier figure.
"""

from __future__ import annotations

import argparse
import os
import resource
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
    cpu: dict[str, list[float]] = {k: [] for k in judges}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as out:
        for _ in range(args.repeat):
            for name, extra in judges.items():
                cmd = [sys.executable, str(ROOT / "run_judge.py"), *map(str, base + extra)]
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                started = time.perf_counter()
                subprocess.run(
                    [*cmd, "--out-dir", out, "--name", name, "--workers", "1"], check=True, capture_output=True, env=env
                )
                times[name].append(time.perf_counter() - started)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[name].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    for name, t in times.items():
        print(
            f"{name:<9} {statistics.median(t):6.2f} s wall, {statistics.median(cpu[name]):6.2f} s CPU "
            f"(medians of {len(t)}; wall: {', '.join(f'{x:.2f}' for x in t)})"
        )


if __name__ == "__main__":
    main()
