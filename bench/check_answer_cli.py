"""One ``check-answer`` call from a shell: where its seconds go.

Usage::

    python bench/check_answer_cli.py [--repeats 5]

Runs ``run_judge.py check-answer`` as a process on the README's worked example (three sentences,
two sources, no citations: every source tried for every sentence), ``--repeats`` times after one
call that warms the Numba cache, and prints the median and fastest wall time of a call and the
median CPU time it used (less sensitive to the machine's load than the wall time). Then, in one
process, the import of the CLI apart from the rest of the command (the judge's modules imported,
the Numba kernels loaded from their cache, the answer judged), and whether pandas was imported
(the answer path never needs it). Timings depend on the machine's load: compare figures taken
under the same load.
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

ROOT = Path(__file__).resolve().parents[1]
ANSWER = (
    "Revenue rose 12% to $1.5 million. The CEO resigned in May and the chairman followed in June. Penguins cannot fly."
)
SOURCES = {
    "q3.txt": "Q3 report: revenue rose 12% to $1.5 million, a record.",
    "board.txt": "The board met in May. The CEO resigned, effective at once.",
}
PHASES = """
import contextlib, io, sys, time
t0 = time.perf_counter()
import judges.cli.app
t1 = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    judges.cli.app.app(sys.argv[1:], standalone_mode=False)
t2 = time.perf_counter()
print(f"in one process: import of the CLI {t1 - t0:.2f} s, the command {t2 - t1:.2f} s; "
      f"pandas imported: {'pandas' in sys.modules}")
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        answer = Path(tmp) / "answer.txt"
        answer.write_text(ANSWER)
        paths = []
        for name, text in SOURCES.items():
            (Path(tmp) / name).write_text(text)
            paths.append(Path(tmp) / name)
        given = ["check-answer", "--answer", str(answer)] + [x for p in paths for x in ("--sources", str(p))]
        command = [sys.executable, str(ROOT / "run_judge.py"), *given]
        subprocess.run(command, env=env, check=True, capture_output=True)  # warms the Numba cache
        walls, cpus = [], []
        for _ in range(args.repeats):
            used = _children_cpu()
            started = time.perf_counter()
            subprocess.run(command, env=env, check=True, capture_output=True)
            walls.append(time.perf_counter() - started)
            cpus.append(_children_cpu() - used)
        print(
            f"check-answer CLI, {args.repeats} calls: wall median {statistics.median(walls):.2f} s, "
            f"fastest {min(walls):.2f} s; CPU (user + system) median {statistics.median(cpus):.2f} s "
            f"(load average {os.getloadavg()[0]:.1f})"
        )
        phases = subprocess.run([sys.executable, "-c", PHASES, *given], env=env, check=True, capture_output=True)
        print(phases.stdout.decode().strip())


if __name__ == "__main__":
    main()
