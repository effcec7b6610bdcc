"""What the README's two install commands fetch from a cold cache, and whether pip backtracks.

Usage::

    python bench/cold_install.py

Each ``pip install`` of the README's two commands (the install-and-judge one and the test one) is
resolved with ``pip install --dry-run --ignore-installed --no-cache-dir``: pip fetches every wheel
it considers (so backtracking shows up as extra downloads) but installs nothing and builds nothing
(llama-cpp-python's build, about 4 minutes on 2 cores, comes on top in a real install). Printed per
command: the wheels fetched and their size (remote downloads and local wheel-house files), pip's
"looking at multiple versions" messages (backtracking) and the wall time.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_installs() -> list[list[str]]:
    """The ``pip install`` commands of the README's two bash blocks, in order."""
    blocks = re.findall(r"```bash\n(.*?)\n```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)[:2]
    installs = []
    for block in blocks:
        for part in block.split("&&"):
            words = shlex.split(part.split("(set -e")[0])
            while words and re.match(r"[A-Z_]+=", words[0]):  # CMAKE_ARGS=...: the environment, not pip's
                words = words[1:]
            if len(words) > 2 and words[:2] == ["pip", "install"]:
                installs.append(words[2:])
    return installs


def fetched(log: str) -> tuple[int, float, int]:
    n, mb, backtracks = 0, 0.0, 0
    for line in log.splitlines():
        m = re.search(r"Downloading \S+ \(([\d.]+) (kB|MB|GB)\)", line)
        if m:
            n += 1
            mb += float(m[1]) * {"kB": 1e-3, "MB": 1.0, "GB": 1e3}[m[2]]
        m = re.match(r"Processing (/\S+\.whl)", line)
        if m and os.path.exists(m[1]):
            n += 1
            mb += os.path.getsize(m[1]) / 1e6
        backtracks += "looking at multiple versions" in line
    return n, mb, backtracks


def main() -> None:
    print("| pip install ... | wheels fetched | MB | backtracking messages | wall s |")
    print("|---|---:|---:|---:|---:|")
    for args in readme_installs():
        t = time.perf_counter()
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--dry-run",
                "--ignore-installed",
                "--no-cache-dir",
                *[a for a in args if a != "-e"],
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - t
        if r.returncode != 0:
            print(f"| {' '.join(args)} | failed: {r.stderr.strip().splitlines()[-1]} | | | |")
            continue
        n, mb, backtracks = fetched(r.stdout + r.stderr)
        print(f"| `{' '.join(args)}` | {n} | {mb:,.0f} | {backtracks} | {seconds:.1f} |")


if __name__ == "__main__":
    main()
