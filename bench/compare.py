"""Before/after timing of the judge CLI as a whole process: two checkouts, interleaved runs.

Usage::

    python bench/compare.py --before /tmp/base --after . --repeats 3 -- --judge citation --rag-topics ... --name x

Each repeat runs ``python run_judge.py ARGS --out-dir <tmp>`` once from each checkout (with
``PYTHONPATH`` set to it), alternating, so both see the same machine load; prints per checkout
the median (and all) wall seconds and CPU seconds (user + sys of the process tree).
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


def run_once(root: str, args: list[str]) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, PYTHONPATH=root)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "run_judge.py", *args, "--out-dir", out],
            cwd=root,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    roots = {"before": os.path.abspath(a.before), "after": os.path.abspath(a.after)}
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in roots}
    for _ in range(a.repeats):
        for k, root in roots.items():
            times[k].append(run_once(root, args))
    for k, runs in times.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(
            f"{k:7s} wall median {statistics.median(walls):7.2f} s  cpu median {statistics.median(cpus):7.2f} s  "
            f"(wall {' '.join(f'{w:.2f}' for w in walls)}; cpu {' '.join(f'{c:.2f}' for c in cpus)})"
        )


if __name__ == "__main__":
    main()
