"""End-to-end benchmark: the judge CLI as a whole process, against the cite-right peer.

Usage (from anywhere; paths are resolved against the repository root)::

    python bench/run.py --size small|medium|large|segments [--skip-python] [--skip-peer] [--seed 13]

Steps:

1. Generate ``bench/workloads/<size>/`` with :mod:`workload` unless a matching one is there.
2. Run ``python run_judge.py --judge citation --rag-topics ... --rag-responses .../runs/
   --corpus .../corpus.jsonl.gz --workflow workflows/citation.yml --out-dir <tmp> --name bench
   --backend B --workers W`` from the repository root, once per configuration:

   * ``python`` backend, 1 worker: on the whole workload for ``small``; for ``medium``/``large`` on
     a prefix subset of the same workload (first topics, all runs; ``--python-citations``
     citations, default 10,000; generated into ``bench/workloads/<size>-python-<k>t/``);
   * ``numba`` backend, 1 worker and 2 workers, on the whole workload.

   Each run is a child process; wall time is measured around it, and memory two ways:
   ``peak RSS`` is ``ru_maxrss`` from ``os.wait4`` on the child (the largest single process:
   Linux reports the max of the child and its reaped descendants), ``tree PSS`` is the peak of
   the sum of ``Pss`` (``/proc/<pid>/smaps_rollup``: shared pages split among the processes
   sharing them, so forked workers are not double-counted) over the child's process tree,
   sampled every 50 ms (what ``--workers 2`` really holds; it can miss a peak shorter than that). \
citations/s = the manifest's citations / wall seconds.
   Start-up is measured apart (``--skip-startup`` to skip): the median wall time of 5 runs of
   ``run_judge.py --version`` (imports only) and of the judge on the bundled DRAGUN sample
   (2 reports; kernels loaded from the warm cache), the fixed cost every run pays.
3. Run ``bench/kernel_gcups.py`` if it exists and include its printed lines.
4. Measure cite-right with :func:`peer_cite_right.measure` on the first ``--peer-n`` cited
   sentences of the same workload, with 1 and 2 processes, in each of ``--peer-modes``.
5. Print one markdown table. "ratio vs cite-right" = config citations/s / the fastest measured
   cite-right mode with the same number of processes as the config has workers. Below it, the
   *start-up bound* per process count: cite-right's time for the workload's citations over the
   tiny input's whole-process time, the most any ratio can reach with this start-up even if
   judging took no time at all.

Until ``run_judge.py`` (and the workflow file) exist, the runner stops at once with a message.
``--judge-script`` / ``--workflow`` point elsewhere (used to test this runner with a fake judge).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import workload as wl  # noqa: E402

PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


# ---------------------------------------------------------------------------------------------
# Measuring a child process
# ---------------------------------------------------------------------------------------------


def _ppid_map() -> dict[int, int]:
    out: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...; comm may contain spaces/parens: split after the last ')'
        rest = stat[stat.rfind(b")") + 2 :].split()
        out[int(name)] = int(rest[1])
    return out


def _tree_rss_kb(root: int) -> int:
    """Sum of proportional set sizes over ``root`` and its descendants (kB)."""
    children: dict[int, list[int]] = {}
    for pid, ppid in _ppid_map().items():
        children.setdefault(ppid, []).append(pid)
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, ()))
        total += _pss_kb(pid)
    return total


def _pss_kb(pid: int) -> int:
    """Proportional set size of ``pid`` (shared pages split among sharers), else its RSS (kB)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1])
    except (OSError, IndexError, ValueError):
        pass
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * PAGE_KB
    except (OSError, IndexError, ValueError):
        return 0


def run_measured(
    cmd: list[str],
    cwd: str | os.PathLike,
    log_prefix: str | os.PathLike,
    timeout: float | None = None,
    interval: float = 0.5,  # sampling /proc costs CPU: keep it rare so it does not slow the judge
) -> dict:
    """Run ``cmd``; return rc, wall seconds, peak RSS (single process), sampled tree RSS, the CPU
    seconds of the child and its reaped descendants, and the seconds the host took from this
    virtual machine meanwhile (``steal_s``: on a shared host, what makes wall times drift)."""
    out_path, err_path = f"{log_prefix}.stdout", f"{log_prefix}.stderr"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        stolen = _steal_s()
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True)
        tree_peak = 0
        timed_out = False
        while True:
            pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid == proc.pid:
                break
            if timeout is not None and time.perf_counter() - t0 > timeout:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)  # our child's own session
                pid, status, ru = os.wait4(proc.pid, 0)
                break
            tree_peak = max(tree_peak, _tree_rss_kb(proc.pid))
            time.sleep(interval)
        wall = time.perf_counter() - t0
        stolen = _steal_s() - stolen
    rc = os.waitstatus_to_exitcode(status)
    proc.returncode = rc  # we reaped it ourselves
    return {
        "cmd": cmd,
        "rc": rc,
        "timed_out": timed_out,
        "wall_s": wall,
        "peak_rss_mb": ru.ru_maxrss / 1024,
        "tree_pss_mb": tree_peak / 1024 if tree_peak else None,
        "cpu_s": ru.ru_utime + ru.ru_stime,
        "steal_s": stolen,
        "stdout": out_path,
        "stderr": err_path,
    }


def _steal_s() -> float:
    """Seconds of CPU the host has taken from this virtual machine since boot, all CPUs (the
    ``steal`` column of ``/proc/stat``; 0 where there is none)."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _tail(path: str, n: int = 15) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


# ---------------------------------------------------------------------------------------------
# Runner
# ---------------------------------------------------------------------------------------------


def judge_cmd(judge_script: Path, workflow: Path, wdir: Path, out_dir: Path, backend: str, workers: int) -> list[str]:
    return [
        sys.executable,
        str(judge_script),
        "--judge",
        "citation",
        "--rag-topics",
        str(wdir / "topics.jsonl"),
        "--rag-responses",
        str(wdir / "runs") + "/",
        "--corpus",
        str(wdir / "corpus.jsonl.gz"),
        "--workflow",
        str(workflow),
        "--out-dir",
        str(out_dir),
        "--name",
        "bench",
        "--backend",
        backend,
        "--workers",
        str(workers),
    ]


def python_subset(size: str, seed: int, manifest: dict, target_citations: int) -> tuple[Path, dict]:
    """The python backend's workload: the whole thing for small, else a prefix of its topics."""
    c = manifest["counts"]
    if size in ("tiny", "small") or c["citations"] <= target_citations:
        return HERE / "workloads" / size, manifest
    per_topic = c["citations"] / c["topics"]
    k = max(1, round(target_citations / per_topic))
    sub = HERE / "workloads" / f"{size}-python-{k}t"
    m = wl.ensure(sub, size, seed, topics=k, runs=c["runs"])
    return sub, m


def startup_rows(judge_script: Path, repeats: int = 5) -> list[dict]:
    """Median wall seconds of the fixed cost: imports (``--version``) and a tiny input."""
    tiny = [
        "--judge",
        "citation",
        "--rag-topics",
        "datasets/dragun/topics.jsonl",
        "--rag-responses",
        "runs/dragun/",
        "--corpus",
        "datasets/rag25/corpus.jsonl",
        "--workflow",
        "workflows/citation.yml",
        "--name",
        "tiny",
    ]
    rows = []
    for label, args in (("start-up: --version", ["--version"]), ("start-up: tiny input (DRAGUN sample)", tiny)):
        walls = []
        with tempfile.TemporaryDirectory() as out:
            extra = ["--out-dir", out] if args is tiny else []
            for _ in range(repeats):
                t0 = time.perf_counter()
                p = subprocess.run([sys.executable, str(judge_script), *args, *extra], cwd=ROOT, capture_output=True)
                walls.append(time.perf_counter() - t0)
                if p.returncode != 0:
                    rows.append({"config": label, "workload": "-", "error": f"FAILED rc={p.returncode}"})
                    break
            else:
                walls.sort()
                rows.append({"config": label, "workload": "-", "wall_s": walls[len(walls) // 2]})
    return rows


def run_kernel_gcups(script: Path, timeout: float | None) -> dict | None:
    if not script.exists():
        return None
    t0 = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        rc, err = "timeout", ""
    return {"rc": rc, "seconds": time.perf_counter() - t0, "lines": out.splitlines(), "stderr_tail": err[-2000:]}


def _fmt(x, spec: str, dash: str = "-") -> str:
    return dash if x is None else format(x, spec)


def format_table(rows: list[dict]) -> str:
    lines = [
        "| config | workload | citations | wall s | citations/s | peak RSS MB | tree PSS MB | ratio vs cite-right |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        cps = r.get("citations_per_s")
        lines.append(
            "| {config} | {workload} | {cit} | {wall} | {cps} | {rss} | {tree} | {ratio} |".format(
                config=r["config"],
                workload=r["workload"],
                cit=_fmt(r.get("citations"), ","),
                wall=_fmt(r.get("wall_s"), ".2f"),
                cps=r["error"] if r.get("error") else _fmt(cps, ",.0f"),
                rss=_fmt(r.get("peak_rss_mb"), ",.0f"),
                tree=_fmt(r.get("tree_pss_mb"), ",.0f"),
                ratio=_fmt(r.get("ratio"), ".2f") + ("x" if r.get("ratio") is not None else ""),
            )
        )
    return "\n".join(lines)


def startup_bound_lines(rows: list[dict], best: dict[int, float], citations: int) -> list[str]:
    """The most any judge paying this start-up could reach here: cite-right's time for the
    workload's citations over the tiny input's whole-process time (judging taken as free)."""
    tiny = next((r["wall_s"] for r in rows if r["config"].startswith("start-up: tiny") and r.get("wall_s")), None)
    if tiny is None:
        return []
    return [
        f"start-up bound, {p} process(es): cite-right takes {citations / rate:.2f} s for the {citations:,} "
        f"citations at {rate:,.0f}/s; a whole run takes at least the tiny input's {tiny:.2f} s, so at most "
        f"{citations / rate / tiny:.1f}x however fast the judging"
        for p, rate in sorted(best.items())
    ]


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description="end-to-end judge benchmark vs cite-right")
    ap.add_argument("--size", choices=sorted(wl.SIZES), required=True)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--skip-python", action="store_true", help="skip the python-backend run")
    ap.add_argument("--skip-peer", action="store_true", help="skip cite-right")
    ap.add_argument("--skip-kernel", action="store_true", help="skip bench/kernel_gcups.py")
    ap.add_argument("--skip-startup", action="store_true", help="skip the start-up timings")
    ap.add_argument(
        "--python-citations",
        type=int,
        default=10_000,
        help="citations in the python backend's subset for medium/large (default 10000)",
    )
    ap.add_argument("--peer-n", type=int, default=2000, help="cited sentences cite-right judges (default 2000)")
    ap.add_argument(
        "--peer-modes",
        nargs="+",
        default=["sentence", "prepared"],
        help="cite-right modes (sentence, prepared, report); see peer_cite_right.py",
    )
    ap.add_argument("--peer-repeats", type=int, default=3)
    ap.add_argument("--kernel-script", default=str(HERE / "kernel_gcups.py"), help="run if present")
    ap.add_argument("--judge-script", default=str(ROOT / "run_judge.py"))
    ap.add_argument("--workflow", default="workflows/citation.yml", help="relative to the repo root")
    ap.add_argument("--timeout", type=float, default=3 * 3600, help="per judge run, seconds")
    ap.add_argument("--keep-out", action="store_true", help="keep the judge output directories")
    ap.add_argument("--json", help="also write all results to this JSON file")
    return ap


def _judge_script_and_workflow(args) -> tuple[Path, Path] | None:
    """The judge script and workflow, or None (said on stderr) when either is missing."""
    judge_script = Path(args.judge_script)
    if not judge_script.is_absolute():
        judge_script = ROOT / judge_script
    workflow = Path(args.workflow)
    workflow_abs = workflow if workflow.is_absolute() else ROOT / workflow
    missing = [str(p) for p in (judge_script, workflow_abs) if not p.exists()]
    if missing:
        print(
            "bench/run.py: cannot run the end-to-end benchmark: missing "
            + ", ".join(missing)
            + ".\nThe judge CLI (run_judge.py --judge citation ... --backend {numba,python} --workers N) and its "
            "workflow file must exist first. The workload generator (bench/workload.py) and the peer "
            "benchmark (bench/peer_cite_right.py) work on their own.",
            file=sys.stderr,
        )
        return None

    return judge_script, workflow


def _judge_rows(args, judge_script: Path, workflow: Path, wdir: Path, manifest: dict, log_dir: Path) -> list[dict]:
    """One row per judge configuration (python x1 on a subset, numba x1 and x2)."""
    configs: list[tuple[str, str, int, Path, dict]] = []
    if not args.skip_python:
        pdir, pman = python_subset(args.size, args.seed, manifest, args.python_citations)
        configs.append(("python x1", "python", 1, pdir, pman))
    configs.append(("numba x1", "numba", 1, wdir, manifest))
    configs.append(("numba x2", "numba", 2, wdir, manifest))

    rows: list[dict] = []
    for label, backend, workers, cdir, cman in configs:
        out_dir = log_dir / f"out-{backend}-{workers}"
        out_dir.mkdir()
        cmd = judge_cmd(judge_script, workflow, cdir, out_dir, backend, workers)
        print(f"running {label} on {cdir.relative_to(ROOT)} ...", file=sys.stderr)
        res = run_measured(cmd, ROOT, log_dir / f"{backend}-{workers}", timeout=args.timeout)
        cit = cman["counts"]["citations"]
        row = {
            "config": f"{label} (citejudge)",
            "workload": cdir.name,
            "workers": workers,
            "citations": cit,
            **res,
            "citations_per_s": cit / res["wall_s"] if res["rc"] == 0 else None,
        }
        if res["rc"] != 0:
            row["error"] = "TIMEOUT" if res["timed_out"] else f"FAILED rc={res['rc']}"
            print(f"  {label} {row['error']}; stderr tail:\n{_tail(res['stderr'])}", file=sys.stderr)
        else:
            print(
                f"  {res['wall_s']:.1f}s, {row['citations_per_s']:,.0f} citations/s, "
                f"peak RSS {res['peak_rss_mb']:.0f} MB",
                file=sys.stderr,
            )
        if not args.keep_out:
            shutil.rmtree(out_dir, ignore_errors=True)
        rows.append(row)

    return rows


def _peer(args, wdir: Path, rows: list[dict]) -> tuple[list[dict], dict[int, float]]:
    """cite-right's rows, and per process count its fastest mode's citations/s (``rows`` gain their ratio)."""
    peer_rows: list[dict] = []
    best: dict[int, float] = {}  # per process count: the fastest cite-right mode's citations/s
    if not args.skip_peer:
        import peer_cite_right as peer

        ok, why = peer._available()
        if not ok:
            print(f"cite-right not importable ({why}): peer skipped (pip install cite-right==0.4.0)", file=sys.stderr)
            peer_rows.append({"config": "cite-right", "workload": wdir.name, "error": "skipped"})
        else:
            sel = peer.load_selection(wdir, args.peer_n)
            for mode in args.peer_modes:
                for procs in (1, 2):
                    print(f"cite-right {mode} x{procs} ...", file=sys.stderr)
                    m = peer.measure(wdir, args.peer_n, procs, mode=mode, selection=sel, repeats=args.peer_repeats)
                    peer_rows.append(
                        {
                            "config": f"cite-right {m['version']} {mode} x{procs} ({m['sentences']} sentences)",
                            "workload": wdir.name,
                            "workers": procs,
                            "citations": m["citations"],
                            "wall_s": m["seconds"],
                            "citations_per_s": m["citations_per_s"],
                            "peer": m,
                        }
                    )
        for pr in peer_rows:
            if pr.get("citations_per_s"):
                best[pr["workers"]] = max(best.get(pr["workers"], 0.0), pr["citations_per_s"])
        for r in rows + peer_rows:
            if r.get("citations_per_s") and best.get(r.get("workers")):
                r["ratio"] = r["citations_per_s"] / best[r["workers"]]

    return peer_rows, best


def _print_results(args, counts: dict, manifest: dict, rows, peer_rows, best, kernel, log_dir: Path) -> None:
    print()
    print(f"## citejudge bench: {args.size} (seed {args.seed}, {counts['citations']:,} citations)")
    print()
    print(format_table(rows + peer_rows))
    print()
    print(
        "peak RSS = ru_maxrss of the child (largest single process); tree PSS = sampled peak of the "
        "summed PSS of the child's process tree. ratio = citations/s over the fastest cite-right mode "
        "with as many processes as the config has workers (cite-right rows: over the fastest of theirs)."
    )
    bound = startup_bound_lines(rows, best, counts["citations"])
    if bound:
        print()
        print("\n".join(bound))
    if kernel is not None:
        print()
        print(f"### {Path(args.kernel_script).name} (rc={kernel['rc']}, {kernel['seconds']:.1f}s)")
        print()
        print("```")
        print("\n".join(kernel["lines"]) if kernel["lines"] else "(no output)")
        print("```")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "size": args.size,
                    "seed": args.seed,
                    "manifest": manifest,
                    "judge": rows,
                    "peer": peer_rows,
                    "kernel_gcups": kernel,
                    "startup_bound": bound,
                    "logs": str(log_dir),
                },
                f,
                indent=2,
                default=str,
            )


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    found = _judge_script_and_workflow(args)
    if found is None:
        return 2
    judge_script, workflow = found
    wdir = HERE / "workloads" / args.size
    t0 = time.perf_counter()
    manifest = wl.ensure(wdir, args.size, args.seed)
    gen_s = time.perf_counter() - t0
    counts = manifest["counts"]
    print(
        f"workload {wdir.relative_to(ROOT)}: {counts['citations']:,} citations, {counts['reports']:,} reports, "
        f"{counts['documents']:,} documents (ready in {gen_s:.1f}s)",
        file=sys.stderr,
    )

    log_dir = Path(tempfile.mkdtemp(prefix=f"bench-{args.size}-"))
    rows = _judge_rows(args, judge_script, workflow, wdir, manifest, log_dir)
    if not args.skip_startup:
        print("timing start-up ...", file=sys.stderr)
        rows += startup_rows(judge_script)

    kernel = None
    if not args.skip_kernel:
        print(f"running {args.kernel_script} ...", file=sys.stderr)
        kernel = run_kernel_gcups(Path(args.kernel_script), timeout=1800)

    peer_rows, best = _peer(args, wdir, rows)
    _print_results(args, counts, manifest, rows, peer_rows, best, kernel, log_dir)
    failed = [r for r in rows if r.get("error")]
    print(f"\nlogs: {log_dir}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
