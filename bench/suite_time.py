"""Where the test suite's time goes: CPU seconds per test file (pytest and all its children).

Usage (from the repository root, with the suite's environment)::

    python bench/suite_time.py [--json OUT.json] [--compare BEFORE.json] [--top 20] [-- PYTEST ARGS]

Runs ``pytest`` in this process (same collection and options as ``python -m pytest``, i.e. the
README's command) with a small plugin that reads ``resource.getrusage`` before and after each
test's setup, call and teardown. A test's CPU seconds are user+sys of this process plus user+sys
of the child processes that ended (and were waited for) meanwhile: the CLI subprocesses, the
browser, the llama.cpp server. With pytest-xdist (``-n``) the workers are children: their CPU is
counted once, in the total, when they end, and the per-test figures come from the workers
themselves (each reports its own rusage with the test's report).

A module- or session-scoped fixture's cost falls on the first test that uses it, so figures are
summed per file. Printed: per file CPU seconds, wall seconds and test count (the ``--top``
biggest by CPU), then the total CPU (user+sys of this process and all children, from the
interpreter's own rusage) and the wall time. Wall time depends on the machine's load; CPU seconds
much less so. The tests run in this process, one at a time (``-n 0`` is added when pytest-xdist
is installed): per-test figures need them here. ``--compare`` adds the figures of an earlier
``--json`` next to each file.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _cpu() -> float:
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


class CpuPerTest:
    """Per test: CPU (self + ended children) and wall over setup, call and teardown."""

    def __init__(self, log: Path | None = None) -> None:
        self.log = log.open("a", encoding="utf-8") if log else None
        self.cpu: dict[str, float] = defaultdict(float)
        self.wall: dict[str, float] = defaultdict(float)
        self.outcome: dict[str, str] = {}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):  # noqa: ARG002 - pytest's signature
        c0, w0 = _cpu(), time.perf_counter()
        yield
        self.cpu[item.nodeid] += _cpu() - c0
        self.wall[item.nodeid] += time.perf_counter() - w0
        if self.log:  # as the tests end: a run cut short still tells where its time went
            record = {"test": item.nodeid, "cpu": self.cpu[item.nodeid], "wall": self.wall[item.nodeid]}
            self.log.write(json.dumps({**record, "outcome": self.outcome.get(item.nodeid)}) + "\n")
            self.log.flush()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):  # noqa: ARG002 - pytest's signature
        outcome = yield
        report = outcome.get_result()
        if report.when == "call" or report.outcome != "passed":
            self.outcome.setdefault(item.nodeid, report.outcome)


def per_file(plugin: CpuPerTest) -> dict[str, dict[str, float]]:
    files: dict[str, dict[str, float]] = defaultdict(lambda: {"cpu": 0.0, "wall": 0.0, "tests": 0})
    for nodeid in set(plugin.cpu) | set(plugin.wall):
        f = files[nodeid.split("::")[0]]
        f["cpu"] += plugin.cpu.get(nodeid, 0.0)
        f["wall"] += plugin.wall.get(nodeid, 0.0)
        f["tests"] += 1
    return dict(files)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, help="write per-file and per-test figures here")
    ap.add_argument("--compare", type=Path, help="an earlier --json to print next to these figures")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--log", type=Path, help="append one JSON line per test here as it ends")
    ap.add_argument("--from-log", type=Path, help="print the table of such a log (of a run cut short) and exit")
    ap.add_argument("pytest_args", nargs="*", help="after --: passed to pytest")
    args = ap.parse_args()

    if args.from_log:
        plugin = CpuPerTest()
        for line in args.from_log.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            plugin.cpu[r["test"]], plugin.wall[r["test"]], plugin.outcome[r["test"]] = r["cpu"], r["wall"], r["outcome"]
        total = sum(plugin.cpu.values()), sum(plugin.wall.values())
        return report(args, plugin, *total, 0)
    plugin = CpuPerTest(args.log)
    c0, w0 = _cpu(), time.perf_counter()
    extra = ["-n", "0"] if importlib.util.find_spec("xdist") else []
    code = pytest.main([*args.pytest_args, *extra], plugins=[plugin])
    total_cpu, total_wall = _cpu() - c0, time.perf_counter() - w0
    return report(args, plugin, total_cpu, total_wall, int(code))


def report(args, plugin: CpuPerTest, total_cpu: float, total_wall: float, code: int) -> int:
    files = per_file(plugin)
    outcomes: dict[str, int] = defaultdict(int)
    for o in plugin.outcome.values():
        outcomes[o] += 1
    before = json.loads(args.compare.read_text()) if args.compare else None
    print()
    head = "| file | tests | CPU s | wall s |"
    rule = "|---|---:|---:|---:|"
    if before:
        head += " CPU s before | wall s before |"
        rule += "---:|---:|"
    print(head)
    print(rule)
    for name, f in sorted(files.items(), key=lambda kv: -kv[1]["cpu"])[: args.top]:
        row = f"| {name} | {f['tests']} | {f['cpu']:.1f} | {f['wall']:.1f} |"
        if before:
            b = before["files"].get(name, {"cpu": 0.0, "wall": 0.0})
            row += f" {b['cpu']:.1f} | {b['wall']:.1f} |"
        print(row)
    print()
    print(f"tests: {len(plugin.outcome)} ({', '.join(f'{k} {v}' for k, v in sorted(outcomes.items()))})")
    print(f"total CPU s (pytest + all children, user+sys): {total_cpu:.1f}")
    print(f"total wall s: {total_wall:.1f} (depends on the machine's load)")
    if before:
        print(f"before: total CPU s {before['total_cpu']:.1f}, wall s {before['total_wall']:.1f}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "total_cpu": total_cpu,
                    "total_wall": total_wall,
                    "files": files,
                    "tests": {
                        k: {"cpu": plugin.cpu.get(k, 0.0), "wall": plugin.wall.get(k, 0.0)} for k in plugin.outcome
                    },
                },
                indent=1,
            )
        )
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
