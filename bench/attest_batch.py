"""The LLM stage through batch files against the online path, with a SIMULATED LLM.

For each workload it runs the real CLI (subprocesses) twice:

* online: ``run_judge.py ... --attest uncertain --llm-config`` against the stand-in on loopback
  (``bench/standin_batch.py serve``);
* batch: judge without the LLM, ``attest export`` (the request files), the stand-in answering
  each request file as ``vllm run_batch -i ... -o ...`` would (``bench/standin_batch.py``),
  ``attest import``, and the same judge command as online (finalise: every answer from the cache;
  the stand-in server must see no request);

and prints the requests before and after de-duplication, the seconds of each step, and whether
qrels, doc qrels, leaderboards, the assessments / intervals / pairs tables, coverage and plan are
byte-identical (and which config.yml and debug-log fields differ: only who answered).

The stand-in is no model: on rag24-support it answers from the NIST labels with ``--error`` wrong
answers (``bench/attest_simulated.py``'s oracle), on synthetic workloads from a hash of the
question. Usage::

    python bench/attest_batch.py [--data ../shared/data] [--size medium] [--error 0.1] [--skip-rag24]

``--size`` is a ``bench/workload.py`` size (medium: 200 topics x 25 runs, about 10^5 citations),
generated into ``bench/workloads/SIZE`` unless there. Timings are wall-clock seconds on whatever
machine runs it (say how busy it was).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import standin_batch  # noqa: E402
import workload as wl  # noqa: E402

OUTPUTS = (
    "qrels",
    "doc.qrels",
    "leaderboard.txt",
    "leaderboard.parquet",
    "assessments.parquet",
    "intervals.parquet",
    "intervals.tsv",
    "pairs.parquet",
    "pairs.tsv",
    "coverage.tsv",
    "plan.tsv",
)


def cli(*args, cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, str(ROOT / "run_judge.py"), *map(str, args)], cwd=cwd, capture_output=True, text=True
    )
    if result.returncode != 0:
        raise SystemExit(f"failed: run_judge.py {' '.join(map(str, args))}\n{result.stderr}")
    return time.perf_counter() - started, result


def flat(value, prefix: str = "") -> dict:
    if isinstance(value, dict):
        return {k: v for key, sub in value.items() for k, v in flat(sub, f"{prefix}{key}.").items()}
    return {prefix[:-1]: value}


def differing(a: dict, b: dict) -> set[str]:
    fa, fb = flat(a), flat(b)
    return {k for k in fa.keys() | fb.keys() if fa.get(k) != fb.get(k)}


def log_differences(a: Path, b: Path) -> set[str]:
    out = set()
    with open(a) as fa, open(b) as fb:
        for x, y in zip(map(json.loads, fa), map(json.loads, fb)):
            out |= {"ts" if k == "ts" else f"{x['event']}.{k}" for k in differing(x, y)}
    return out


def round_trip(label: str, inputs: list, tmp: Path, content_of, answer_args: list[str]) -> None:
    """Online vs batch on one workload; prints its figures."""
    workflow = tmp / "workflow.yml"
    workflow.write_text(yaml.safe_dump({"attest": {"concurrency": 8}}))
    online, batch = tmp / "online", tmp / "batch"
    online.mkdir()
    batch.mkdir()
    judge = [*inputs, "--workflow", workflow, "--out-dir", "out", "--name", "r"]
    server = standin_batch.serve(content_of)
    served = []
    llm = tmp / "llm.yml"
    llm.write_text(
        json.dumps({"OPENAI_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}/v1", "OPENAI_MODEL": "standin"})
    )
    try:
        t_online, _ = cli(*judge, "--attest", "uncertain", "--llm-config", llm, cwd=online)
        served.append(server.requests)
        t_none, _ = cli(*judge, cwd=batch)
        t_export, exported = cli("attest", "export", "out", "--name", "r", "--attest", "uncertain", "--llm-config", llm,
                                 cwd=batch)  # fmt: skip
        batch_dir = batch / "out" / "r.batch"
        started = time.perf_counter()
        answers = []
        for requests in sorted(batch_dir.glob("requests-*.jsonl")):
            target = batch / requests.name.replace("requests", "answers")
            cmd = [sys.executable, str(HERE / "standin_batch.py"), "-i", requests, "-o", target, *answer_args]
            subprocess.run(list(map(str, cmd)), check=True, capture_output=True)
            answers.append(target)
        t_answer = time.perf_counter() - started
        t_import, imported = cli("attest", "import", "out", "--name", "r", *answers, cwd=batch)
        t_final, _ = cli(*judge, "--attest", "uncertain", "--llm-config", llm, cwd=batch)
        served.append(server.requests)
    finally:
        server.shutdown()
    a, b = online / "out", batch / "out"
    same = [s for s in OUTPUTS if (a / f"r.{s}").read_bytes() == (b / f"r.{s}").read_bytes()]
    config_a, config_b = (yaml.safe_load((d / "r.config.yml").read_text()) for d in (a, b))
    manifest = json.loads((batch_dir / "manifest.json").read_text())
    requests = sum(f["requests"] for f in manifest["files"])
    megabytes = sum(f["bytes"] for f in manifest["files"]) / 1e6
    asked = config_a["attest"]["selected"] - config_a["attest"]["guarded"]
    print(f"## {label}")
    print(
        f"citations judgeable {config_a['attest']['plan']['candidates']:,}; questions (citations asked about) {asked:,}"
    )
    print(
        f"requests before de-duplication {asked:,}, after {requests:,} ({len(manifest['files'])} file(s), "
        f"{megabytes:,.1f} MB); online calls {config_a['attest']['calls']:,}, online stand-in requests {served[0]:,}"
    )
    print("| step | seconds |")
    print("|---|---:|")
    for step, seconds in (
        ("online: judge --attest uncertain (asks the stand-in server)", t_online),
        ("batch: judge without the LLM", t_none),
        ("batch: attest export", t_export),
        ("batch: stand-in answers the request files", t_answer),
        ("batch: attest import", t_import),
        ("batch: finalise (judge again, answers from the cache)", t_final),
        ("batch: total", t_none + t_export + t_answer + t_import + t_final),
    ):
        print(f"| {step} | {seconds:.1f} |")
    print(f"stand-in requests during finalise: {served[1] - served[0]} (every answer from the cache)")
    print(f"byte-identical with the online run: {len(same)} of {len(OUTPUTS)} ({', '.join(same)})")
    print(f"config.yml fields that differ: {sorted(differing(config_a, config_b))}")
    print(f"debug-log fields that differ: {sorted(log_differences(a / 'r.jsonl', b / 'r.jsonl'))}")
    print("import: " + " | ".join(imported.stdout.strip().splitlines()))
    print(flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--size", default="medium", help="bench/workload.py size of the synthetic workload")
    ap.add_argument("--error", type=float, default=0.1, help="rag24-support: the stand-in's share of wrong answers")
    ap.add_argument("--skip-rag24", action="store_true")
    ap.add_argument("--skip-synthetic", action="store_true")
    args = ap.parse_args()
    print("SIMULATED LLM (a stand-in answering from labels or a hash; not a real model)\n")
    with tempfile.TemporaryDirectory() as tmp:
        d = args.data / "rag24-support"
        if not args.skip_rag24 and d.exists():
            inputs = [
                "--rag-topics",
                d / "topics.jsonl",
                "--rag-responses",
                d / "runs",
                "--corpus",
                d / "segments.jsonl",
            ]
            content_of = standin_batch.oracle_content(args.data, args.error)
            (Path(tmp) / "rag24").mkdir()
            oracle = ["--oracle", args.data, "--error", args.error]
            round_trip(
                f"rag24-support (oracle answers, error {args.error})", inputs, Path(tmp) / "rag24", content_of, oracle
            )
        if not args.skip_synthetic:
            wdir = HERE / "workloads" / args.size
            m = wl.ensure(wdir, args.size)
            inputs = ["--rag-topics", wdir / "topics.jsonl", "--rag-responses", wdir / "runs", "--corpus"]
            inputs.append(wdir / "corpus.jsonl.gz")
            (Path(tmp) / "synthetic").mkdir()
            c = m["counts"]
            label = (
                f"synthetic {args.size}: {c['topics']} topics x {c['runs']} runs, {c.get('citations', '?'):,} citations"
            )
            round_trip(label, inputs, Path(tmp) / "synthetic", standin_batch.hashed, [])


if __name__ == "__main__":
    main()
