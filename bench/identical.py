"""Byte-identical outputs before and after a change: two checkouts, the same commands, every file diffed.

Usage::

    CITEJUDGE_SHARED=/work/shared python bench/identical.py --before 543cc47 [--after .] [--only NAME ...]
        [--new GLOB ...]

``--before``/``--after``: a commit (exported with ``git archive`` into a temporary directory) or a
checkout's directory (``.``: this one). Each case runs ``python run_judge.py ...`` (CLI commands
as a process, ``PYTHONPATH`` set to the checkout) or a short library call, into an out-dir of its
own, from each checkout; then every output file of the two is compared byte for byte, a debug
log (``*.jsonl`` with ``"ts"`` fields) after removing its timestamps. A shard's partial set
(``*.part-K-of-N.*``) is left out: it records its log's SHA-256, timestamps included; the merged
set made from the parts is compared. Prints one line per case
(files compared, files that differ, and the first difference) and a total line; exits 1 when any
file differs or a command failed differently.

The cases: the three bundled samples (the README's first command), ``rag24-support``, ``kiddie``
(``/work/shared/data``), ``rag24-nuggets`` judged with ``--judge argue``, ``rag24-support`` in 3
topic shards merged, a run with 2 worker processes, ``check_answer`` on two answers
(its result printed as JSON), and ``medium``: the synthetic workload of ``bench/run.py --size
medium`` (99,866 citations; generated into ``bench/workloads/medium`` by :mod:`workload` unless
it is there, 8 CPU s once; the judge's automatic choice of worker processes). ``medium`` is the
costliest case: 64 CPU s for both sides together (2026-11-27; 3 min wall on this 2-core machine
while other jobs ran, load average about 9). ``--only`` names the cases to run.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("CITEJUDGE_SHARED", "/work/shared")) / "data"
MEDIUM = ROOT / "bench" / "workloads" / "medium"  # bench/run.py --size medium's workload (git-ignored)
TS = re.compile(rb'"ts": ?"[^"]*"')

ANSWER = r"""
import json, sys, dataclasses
import judges
from judges.core.config import Workflow, AlignmentSettings
wf = Workflow(alignment=AlignmentSettings(backend="python"))
a = judges.check_answer("Revenue rose 12% to $1.5 million. The CEO resigned in May.",
    ["Q3 report: revenue rose 12% to $1.5 million, a record.", "The board met in May; the CEO resigned."], workflow=wf)
b = judges.check_answer([{"text": "Revenue rose 12%.", "citations": [0]}, {"text": "It rained.", "citations": ["x"]}],
    [("a", "Revenue rose 12% this year."), ("b", "Sunny.")], workflow=wf)
with open(sys.argv[1] + "/answer.json", "w") as f:
    json.dump([dataclasses.asdict(a), dataclasses.asdict(b)], f, sort_keys=True, default=str)
"""


def cases() -> dict[str, list[list[str]]]:
    """Name -> commands (each a list of arguments to run_judge.py; ``OUT`` is the case's out-dir)."""
    sup, kid, nug = SHARED / "rag24-support", SHARED / "kiddie", SHARED / "rag24-nuggets"
    out: dict[str, list[list[str]]] = {}
    for t in ("rag25", "ragtime", "dragun"):
        out[f"bundled-{t}"] = [
            ["--judge", "citation", "--rag-topics", f"datasets/{t}/topics.jsonl", "--rag-responses", f"runs/{t}/"]
            + ["--corpus", "datasets/rag25/corpus.jsonl", "--workflow", "workflows/citation.yml"]
            + ["--out-dir", "OUT", "--name", t]
        ]
    support = ["--rag-topics", str(sup / "topics.jsonl"), "--rag-responses", str(sup / "runs")]
    support += ["--corpus", str(sup / "segments.jsonl")]
    out["rag24-support"] = [["--judge", "citation", *support, "--labels", str(sup / "labels.jsonl")]]
    out["rag24-support"][0] += ["--out-dir", "OUT", "--name", "s"]
    out["kiddie"] = [
        ["--judge", "citation", "--rag-topics", str(kid / "topics"), "--rag-responses", str(kid / "runs")]
        + ["--out-dir", "OUT", "--name", "k", "--leaderboard-format", "tot", "--leaderboard-format", "jsonl"]
    ]
    out["rag24-nuggets-argue"] = [
        ["--judge", "argue", "--rag-topics", str(nug / "topics.jsonl"), "--rag-responses", str(nug / "runs")]
        + ["--nuggets", str(nug / "nuggets.jsonl"), "--corpus", str(nug / "segments.jsonl")]
        + ["--out-dir", "OUT", "--name", "n"]
    ]
    shard = ["--judge", "citation", *support, "--out-dir", "OUT", "--name", "m", "--shard"]
    shards = [[*shard, f"{k}/3"] for k in (1, 2, 3)]
    parts = [f"OUT/m.part-{k}-of-3.arrow" for k in (1, 2, 3)]
    out["rag24-support-shards"] = [*shards, ["merge", "OUT", "--name", "m", *parts]]
    workers = ["--judge", "citation", *support, "--out-dir", "OUT", "--name", "w", "--workers", "2"]
    out["rag24-support-workers"] = [workers]
    out["check-answer"] = [["PY", ANSWER]]
    out["medium"] = [
        ["--judge", "citation", "--rag-topics", str(MEDIUM / "topics.jsonl"), "--rag-responses", f"{MEDIUM}/runs/"]
        + ["--corpus", str(MEDIUM / "corpus.jsonl.gz"), "--workflow", "workflows/citation.yml"]
        + ["--out-dir", "OUT", "--name", "med"]
    ]
    return out


def checkout(spec: str, tmp: Path, side: str) -> Path:
    if Path(spec).is_dir():
        return Path(spec).resolve()
    where = tmp / f"src-{side}"
    where.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", spec], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    return where


def run_case(root: Path, commands: list[list[str]], work: Path, out: Path) -> list[tuple[int, str]]:
    """Run ``commands`` with ``root``'s code from ``work`` (the same directory, data and out-dir
    path for both sides: the outputs record paths), then move the out-dir to ``out``."""
    where = work / "out"
    where.mkdir()
    env = dict(os.environ, PYTHONPATH=str(root))
    results = []
    for cmd in commands:
        if cmd[0] == "PY":
            argv = [sys.executable, "-c", cmd[1], str(where)]
        else:
            argv = [sys.executable, str(root / "run_judge.py")]
            argv += [str(where) + a[3:] if a.startswith("OUT") else a for a in cmd]
        r = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True)
        results.append((r.returncode, r.stderr.strip().splitlines()[-1] if r.returncode and r.stderr.strip() else ""))
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(where), str(out))
    return results


def normalized(path: Path) -> bytes:
    data = path.read_bytes()
    return TS.sub(b'"ts":""', data) if path.suffix == ".jsonl" else data


def compare(a: Path, b: Path, new: tuple = ()) -> tuple[int, list[str]]:
    """Files compared and what differs; a file only after whose name matches a pattern of ``new``
    (``--new``: an output the change adds on purpose) is not a difference."""
    import fnmatch

    files_a = {p.relative_to(a) for p in a.rglob("*") if p.is_file() and ".part-" not in p.name}
    files_b = {p.relative_to(b) for p in b.rglob("*") if p.is_file() and ".part-" not in p.name}
    files_b -= {p for p in files_b - files_a if any(fnmatch.fnmatch(p.name, pattern) for pattern in new)}
    differ = [f"only before: {p}" for p in sorted(files_a - files_b)]
    differ += [f"only after: {p}" for p in sorted(files_b - files_a)]
    for p in sorted(files_a & files_b):
        if normalized(a / p) != normalized(b / p):
            differ.append(f"differs: {p}")
    return len(files_a | files_b), differ


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", default=".")
    ap.add_argument("--only", nargs="*", help="run only these cases")
    ap.add_argument("--keep", type=Path, help="copy both sides' outputs here, to look at a difference")
    ap.add_argument(
        "--new", nargs="*", default=[], help="name patterns of outputs the change adds on purpose ('*.sha256')"
    )
    args = ap.parse_args()
    bad = 0
    total_files = 0
    if not args.only or "medium" in args.only:
        import workload  # bench/workload.py, beside this script

        workload.ensure(MEDIUM, "medium")  # the same seed as bench/run.py's (13)
    with tempfile.TemporaryDirectory(prefix="identical-") as t:
        tmp = Path(t)
        before, after = checkout(args.before, tmp, "before"), checkout(args.after, tmp, "after")
        work = tmp / "work"  # the bundled samples, copied once: both sides read the same paths
        for sample in ("datasets", "runs", "workflows"):
            shutil.copytree(before / sample, work / sample)
        for name, commands in cases().items():
            if args.only and name not in args.only:
                continue
            ra = run_case(before, commands, work, tmp / "before" / name)
            rb = run_case(after, commands, work, tmp / "after" / name)
            n, differ = compare(tmp / "before" / name, tmp / "after" / name, tuple(args.new))
            total_files += n
            failed = ra != rb or any(code for code, _ in ra)
            bad += bool(differ) or failed
            state = "identical" if not differ and not failed else "DIFFERENT"
            extra = f"; exit codes before {ra}, after {rb}" if failed else ""
            first = f"; {differ[0]}" + (f" (+{len(differ) - 1} more)" if len(differ) > 1 else "") if differ else ""
            print(f"{name}: {n} files, {len(differ)} differ: {state}{first}{extra}", flush=True)
        if args.keep is not None:
            shutil.copytree(tmp / "before", args.keep / "before", dirs_exist_ok=True)
            shutil.copytree(tmp / "after", args.keep / "after", dirs_exist_ok=True)
    print(f"total: {total_files} files, {bad} case(s) not identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
