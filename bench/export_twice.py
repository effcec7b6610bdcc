"""Two exports of one set, and the first export's whole answer file imported after the second
(issue 42 item 3), through the real CLI on ``rag24-support`` with a SIMULATED LLM.

Usage::

    python bench/export_twice.py [--data ../shared/data] [--share 0.5] [--root REPO]

Judge without the LLM; ``attest export --attest all --model standin`` (every judgeable
citation's question); the stand-in (``bench/standin_batch.py``, no model: answers from a hash)
answers the request files as ``vllm run_batch`` would: that is the first export's Batch job.
Import the first ``--share`` of its answer lines only, export again (the README's way to get the
rest), then import the first job's whole answer file, as an organiser does when the Batch API
returns it. Prints the answer lines, the answers applied, those already in the cache, the lines
rejected and the exit code of that last import. ``--root`` runs another checkout's CLI (e.g. an
older commit, for the figure before).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def cli(root: Path, *args: object, ok: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, str(root / "run_judge.py"), *map(str, args)], cwd=root, capture_output=True, text=True
    )
    if ok and done.returncode != 0:
        raise SystemExit(f"run_judge.py {' '.join(map(str, args))}: exit {done.returncode}\n{done.stderr}")
    return done


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=HERE.parent.parent / "shared" / "data")
    ap.add_argument("--share", type=float, default=0.5, help="share of the first job's answers imported at first")
    ap.add_argument("--root", type=Path, default=HERE.parent, help="the checkout whose CLI runs")
    args = ap.parse_args()
    root, data = args.root.resolve(), args.data.resolve() / "rag24-support"
    out = Path(tempfile.mkdtemp(prefix="export-twice-"))
    inputs = ("--rag-topics", data / "topics.jsonl", "--rag-responses", data / "runs")
    inputs += ("--corpus", data / "segments.jsonl")
    cli(root, *inputs, "--out-dir", out, "--name", "r")
    export = ("attest", "export", out, "--name", "r", "--attest", "all", "--model", "standin")
    cli(root, *export)
    batch_dir = out / "r.batch"
    answers = []
    for requests in sorted(batch_dir.glob("requests-*.jsonl")):
        target = out / requests.name.replace("requests", "answers")
        cmd = [sys.executable, str(HERE / "standin_batch.py"), "-i", requests, "-o", target]
        subprocess.run(list(map(str, cmd)), check=True, capture_output=True)
        answers.append(target)
    lines = [line for f in answers for line in f.read_text().splitlines() if line.strip()]
    part = out / "part.jsonl"
    part.write_text("".join(line + "\n" for line in lines[: int(len(lines) * args.share)]))
    cli(root, "attest", "import", out, "--name", "r", part)
    again = cli(root, *export)
    rest = re.search(r"questions: [\d,]+ to ask, ([\d,]+) distinct", again.stdout)
    last = cli(root, "attest", "import", out, "--name", "r", *answers, ok=False)
    found = {
        key: re.search(pattern, last.stdout)
        for key, pattern in (
            ("applied", r"applied: ([\d,]+) new answers"),
            ("already", r"; ([\d,]+) (?:already in the cache|were there already)"),
            ("rejected", r"rejected: ([\d,]+) \(([^)]*)\)"),
        )
    }
    print(f"rag24-support ({data}), CLI of {root}, out {out}")
    first = int(len(lines) * args.share)
    print(f"first export: {len(lines):,} questions answered by its Batch job; {first:,} of them imported")
    print(f"second export: {rest.group(1) if rest else '?'} questions still to ask")
    print(
        f"the first job's whole answer file imported after the second export: {len(lines):,} lines, "
        f"applied {found['applied'].group(1)}, already in the cache {found['already'].group(1)}, "
        f"rejected {found['rejected'].group(1)} ({found['rejected'].group(2)}), exit code {last.returncode}"
    )


if __name__ == "__main__":
    main()
