"""Topic shards, their merge, and Dask, against worker processes: whole-process times on a workload.

Usage::

    python bench/shards.py [--size large] [--shards 4] [--seed 13] [--no-check] [--merge R [--against DIR] | --pair R]

Generates (or reuses) ``bench/workloads/<size>/`` with :mod:`workload`, then runs, one after the
other, each as whole ``run_judge.py`` processes on the same inputs (default workflow, debug log
on, ``--workers 1`` in each shard):

1. one process (``--workers 1``): the reference for byte identity and for the merge's share;
2. ``--workers 2``;
3. ``--shard K/N`` for K = 1..N, one after the other (their sum is the work; on N machines the
   wall time would be the slowest), then ``merge``: its own wall time and peak RSS;
4. ``--dask local:2`` (a LocalCluster of 2 processes, as many shards; merged in the client).

``--merge R`` runs the shards once, then only the merge, ``R`` times (and one process, for the
byte-identity check, unless ``--no-check``); it prints each merge's wall and CPU time. ``--against
DIR`` (repeatable; e.g. ``git worktree add /tmp/base main``) writes that checkout's shards too and
alternates the versions' merges, one after the other, so that they are compared under the same
load.

``--pair R`` runs only ``--workers 2`` and ``--dask local:2``, alternately, ``R`` times each, and
prints each one's fastest: on a machine shared with other work, the two are then compared under
the same load, not minutes apart.

Each set is written to the same out-dir (then moved aside), so the debug logs' summaries name the
same files, and the merged and Dask sets are compared with the one-process set, byte for byte, the
debug log apart from its timestamps (``--no-check`` skips it). Peak RSS is ``ru_maxrss`` of the
child (the largest single process of its tree; for Dask that is the client or one of its workers).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from run import run_measured  # noqa: E402

TS = re.compile(rb'^\{"ts":"[^"]*",')


def workload(size: str, seed: int) -> Path:
    where = HERE / "workloads" / size
    manifest = where / "manifest.json"
    if manifest.exists() and json.loads(manifest.read_text()).get("seed") == seed:
        return where
    cmd = [sys.executable, str(HERE / "workload.py"), "--size", size, "--seed", str(seed), "--out", str(where)]
    subprocess.run(cmd, check=True)
    return where


def judge_args(work: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        str(ROOT / "run_judge.py"),
        "--rag-topics",
        str(work / "topics.jsonl"),
        "--rag-responses",
        str(work / "runs"),
        "--corpus",
        str(work / "corpus.jsonl.gz"),
        "--out-dir",
        str(out),
        "--name",
        "bench",
    ]


def same_file(a: Path, b: Path) -> bool:
    """Byte for byte; a debug log line by line apart from its timestamp."""
    with open(a, "rb") as x, open(b, "rb") as y:
        if a.suffix != ".jsonl":
            while True:
                p, q = x.read(1 << 24), y.read(1 << 24)
                if p != q:
                    return False
                if not p:
                    return True
        for p, q in zip(x, y, strict=False):
            if TS.sub(b"{", p) != TS.sub(b"{", q):
                return False
        return x.read(1) == y.read(1) == b""


def differing(a: Path, b: Path) -> list[str]:
    names = sorted(p.name for p in a.iterdir() if not p.name.startswith("."))
    if names != sorted(p.name for p in b.iterdir() if not p.name.startswith(".")):
        return ["the file lists"]
    return [n for n in names if not same_file(a / n, b / n)]


def measured(label: str, cmd: list[str], logs: Path, interval: float = 1.0) -> dict:
    """``cmd`` run and measured; its end is seen within ``interval`` seconds (the wall time's resolution)."""
    print(f"  {label} ...", flush=True)
    res = run_measured(cmd, ROOT, logs / label.replace(" ", "_").replace("/", "-"), interval=interval)
    if res["rc"] != 0:
        sys.exit(f"{label} failed (rc {res['rc']}): see {res['stderr']}")
    print(
        f"    {res['wall_s']:.1f} s, CPU {res['cpu_s']:.1f} s, peak RSS {res['peak_rss_mb']:,.0f} MB "
        f"(the host took {res['steal_s']:.1f} CPU s meanwhile)",
        flush=True,
    )
    return res


def pair(work: Path, repeats: int) -> int:
    """``--workers 2`` and ``--dask local:2`` alternately: the fastest of each."""
    tmp = Path(tempfile.mkdtemp(prefix="citejudge-pair-", dir=HERE / "workloads"))
    logs, out = tmp / "logs", tmp / "out"
    logs.mkdir()
    walls: dict[str, list[float]] = {"--workers 2": [], "--dask local:2": []}
    cpus: dict[str, list[float]] = {"--workers 2": [], "--dask local:2": []}
    stolen = 0.0
    try:
        for i in range(repeats):
            for label, extra in (
                ("--workers 2", ["--workers", "2"]),
                ("--dask local:2", ["--workers", "1", "--dask", "local:2"]),
            ):
                res = measured(f"{label} #{i + 1}", judge_args(work, out) + extra, logs)
                walls[label].append(res["wall_s"])
                cpus[label].append(res["cpu_s"])
                stolen += res["steal_s"]
                shutil.rmtree(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    best = {k: min(v) for k, v in walls.items()}
    print(
        f"alternately {repeats} times (busy 2-core machine): "
        + "; ".join(f"{k}: {', '.join(f'{w:.1f}' for w in v)} s (fastest {best[k]:.1f} s)" for k, v in walls.items())
    )
    mean = {k: sum(v) / len(v) for k, v in walls.items()}
    cpu = {k: sum(v) / len(v) for k, v in cpus.items()}
    print(
        f"--dask local:2 / --workers 2 = {best['--dask local:2'] / best['--workers 2']:.2f} (fastest of each), "
        f"{mean['--dask local:2'] / mean['--workers 2']:.2f} (mean of each); CPU seconds (mean): "
        + ", ".join(f"{k} {v:.1f}" for k, v in cpu.items())
        + f"; the host took {stolen:.1f} CPU s in all"
    )
    return 0


def merges(work: Path, n: int, repeats: int, check: bool, against: list[Path]) -> int:
    """The shards once, then their merge ``repeats`` times: each merge's wall and CPU time. With
    ``against`` (checkouts of other versions of citejudge): each version's own shards, then the
    versions' merges alternately, one after the other, under the same load."""
    roots = [ROOT, *against]
    tmp = Path(tempfile.mkdtemp(prefix="citejudge-merges-", dir=HERE / "workloads"))
    logs, out = tmp / "logs", tmp / "out"
    logs.mkdir()
    walls: dict[Path, list[float]] = {r: [] for r in roots}
    cpus: dict[Path, list[float]] = {r: [] for r in roots}
    differs: dict[Path, list[str]] = {r: [] for r in roots}
    try:
        if check:
            measured("one process", judge_args(work, out) + ["--workers", "1"], logs)
            out.rename(tmp / "one")
        parts = {}
        for v, root in enumerate(roots):
            where = tmp / f"parts-{v}"
            for k in range(1, n + 1):
                cmd = judge_args(work, where) + ["--workers", "1", "--shard", f"{k}/{n}"]
                measured(f"{root.name}: --shard {k}/{n}", [cmd[0], str(root / "run_judge.py"), *cmd[2:]], logs)
            parts[root] = sorted(str(p) for p in where.glob("bench.part-*.arrow"))
        for i in range(repeats):
            for root in roots:
                merge = [sys.executable, str(root / "run_judge.py"), "merge", str(out), "--name", "bench", *parts[root]]
                res = measured(f"{root.name}: merge #{i + 1}", merge, logs, interval=0.02)  # a merge takes seconds
                walls[root].append(res["wall_s"])
                cpus[root].append(res["cpu_s"])
                if check and i == repeats - 1:
                    differs[root] = differing(tmp / "one", out)
                shutil.rmtree(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for root in roots:
        w, c = walls[root], cpus[root]
        print(
            f"{root}: merge of {n} parts, {repeats} times (busy 2-core machine): "
            f"wall {', '.join(f'{x:.2f}' for x in w)} s "
            f"(fastest {min(w):.2f}, median {sorted(w)[len(w) // 2]:.2f}); CPU {', '.join(f'{x:.2f}' for x in c)} s "
            f"(mean {sum(c) / len(c):.2f})"
            + (f"; byte-identical to one process: {'yes' if not differs[root] else differs[root]}" if check else "")
        )
    return 1 if any(differs.values()) else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="large")
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--no-check", action="store_true", help="do not compare the outputs")
    ap.add_argument("--pair", type=int, default=0, help="only --workers 2 and --dask local:2, alternately, R times")
    ap.add_argument("--merge", type=int, default=0, help="the shards once, then only their merge, R times")
    ap.add_argument("--against", type=Path, action="append", default=[], help="with --merge: another checkout's too")
    args = ap.parse_args()
    work = workload(args.size, args.seed)
    if args.merge:
        return merges(work, args.shards, args.merge, not args.no_check, args.against)
    if args.pair:
        return pair(work, args.pair)
    citations = json.loads((work / "manifest.json").read_text())["counts"]["citations"]
    tmp = Path(tempfile.mkdtemp(prefix="citejudge-shards-", dir=HERE / "workloads"))
    logs, out, n = tmp / "logs", tmp / "out", args.shards
    logs.mkdir()
    print(f"workload {args.size}: {citations:,} citations ({work}); scratch {tmp}")
    try:
        rows = {"one process (--workers 1)": measured("one process", judge_args(work, out) + ["--workers", "1"], logs)}
        out.rename(tmp / "one")
        rows["--workers 2"] = measured("--workers 2", judge_args(work, out) + ["--workers", "2"], logs)
        shutil.rmtree(out)
        shard_rows = []
        for k in range(1, n + 1):
            cmd = judge_args(work, tmp / "parts") + ["--workers", "1", "--shard", f"{k}/{n}"]
            shard_rows.append(measured(f"--shard {k}/{n}", cmd, logs))
        parts = sorted(str(p) for p in (tmp / "parts").glob("bench.part-*.arrow"))
        merge = [sys.executable, str(ROOT / "run_judge.py"), "merge", str(out), "--name", "bench", *parts]
        rows["merge"] = measured("merge", merge, logs)
        merged_differs = [] if args.no_check else differing(tmp / "one", out)
        shutil.rmtree(out)
        shutil.rmtree(tmp / "parts")
        rows["--dask local:2"] = measured(
            "--dask local:2", judge_args(work, out) + ["--workers", "1", "--dask", "local:2"], logs
        )
        dask_differs = [] if args.no_check else differing(tmp / "one", out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    one = rows["one process (--workers 1)"]["wall_s"]
    shard_sum = sum(r["wall_s"] for r in shard_rows)
    print()
    print(f"{args.size} workload, {citations:,} citations, whole run_judge.py processes (busy 2-core machine):")
    print("| config | wall s | CPU s | peak RSS MB | vs one process |")
    print("|---|---:|---:|---:|---:|")
    for label, r in rows.items():
        if label == "merge":
            continue
        print(f"| {label} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | {r['peak_rss_mb']:,.0f} | {r['wall_s'] / one:.2f} |")
    for k, r in enumerate(shard_rows, start=1):
        wall, cpu, rss = r["wall_s"], r["cpu_s"], r["peak_rss_mb"]
        print(f"| --shard {k}/{n} | {wall:.1f} | {cpu:.1f} | {rss:,.0f} | {wall / one:.2f} |")
    m = rows["merge"]
    print(f"| shards 1..{n}, one after the other (sum) | {shard_sum:.1f} | | | {shard_sum / one:.2f} |")
    print(f"| merge | {m['wall_s']:.1f} | {m['cpu_s']:.1f} | {m['peak_rss_mb']:,.0f} | {m['wall_s'] / one:.2f} |")
    print(
        f"merge: {m['wall_s']:.1f} s = {100 * m['wall_s'] / one:.1f}% of one process ({one:.1f} s), "
        f"peak RSS {m['peak_rss_mb']:,.0f} MB; --dask local:2 / --workers 2 = "
        f"{rows['--dask local:2']['wall_s'] / rows['--workers 2']['wall_s']:.2f}"
    )
    if not args.no_check:
        print(
            f"byte-identical to one process: merge {'yes' if not merged_differs else merged_differs}, "
            f"--dask local:2 {'yes' if not dask_differs else dask_differs}"
        )
    return 0 if not (merged_differs or dask_differs) or args.no_check else 1


if __name__ == "__main__":
    sys.exit(main())
