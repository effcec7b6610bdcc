"""The README's labelling loop ("Assessors' labels in rounds"), run literally through the CLI on
``rag24-support`` for three rounds, with the assessors' labels taken from its ``labels.jsonl``.

Usage::

    python bench/label_rounds.py [--data ../shared/data] [--rounds 3] [--budget 5%] [--out DIR]

Judge ``x``; then per round: ``plan-assessments OUT --name x --budget 5%`` (the round's new file
``x.assess-N.jsonl``), fill each line's ``label`` from ``labels.jsonl`` where it labels that
citation (the others stay null, as an assessor who skipped them), judge ``x`` again with
``--labels`` for every round's file so far, and score the leaderboard with ``meta-evaluate
--truth-topics`` (run tau, WEIGHTED_PRECISION against ``truth.eval.txt``). Prints per round: the
citations planned, those labelled, the labels in effect (the judge's count, from its
``config.yml``) against the sum of the rounds' labels, and run tau. Every figure comes from the
CLI's own files; nothing is simulated.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def cli(*args: object) -> str:
    done = subprocess.run(
        [sys.executable, "run_judge.py", *map(str, args)], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"run_judge.py {' '.join(map(str, args))}: exit {done.returncode}\n{done.stderr}")
    return done.stdout


def key(obj: dict) -> tuple:
    return (str(obj["run_id"]), str(obj["topic_id"]), int(obj["sentence_index"]), str(obj["doc_id"]))


def run_tau(data: Path, out: Path, name: str) -> float:
    result = out / f"{name}.meta.jsonl"
    result.unlink(missing_ok=True)
    cli(
        "meta-evaluate",
        out / f"{name}.leaderboard.txt",
        "--truth",
        data / "truth.eval.txt",
        "--eval-measure",
        "WEIGHTED_PRECISION",
        "--correlation",
        "kendall",
        "--truth-topics",
        "--bootstrap",
        "0",
        "--output",
        result,
    )
    rows = [json.loads(line) for line in result.read_text().splitlines() if line.strip()]
    return float(rows[0]["value"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--budget", default="5%")
    ap.add_argument("--out", type=Path, default=None, help="Output directory (default: a temporary one).")
    args = ap.parse_args()
    data = args.data.resolve() / "rag24-support"
    truth = {key(json.loads(line)): json.loads(line)["label"] for line in open(data / "labels.jsonl")}
    out = args.out or Path(tempfile.mkdtemp(prefix="label-rounds-"))
    out.mkdir(parents=True, exist_ok=True)
    judge = ("--judge", "citation", "--rag-topics", data / "topics.jsonl", "--rag-responses", data / "runs")
    judge += ("--corpus", data / "segments.jsonl", "--out-dir", out, "--name", "x")
    cli(*judge)
    tau0 = run_tau(data, out, "x")
    print(f"rag24-support ({data}), {args.rounds} rounds of plan-assessments --budget {args.budget}, out {out}")
    print("| round | planned | labelled | labels in effect | sum of the rounds | run tau (WEIGHTED_PRECISION) |")
    print("|---:|---:|---:|---:|---:|---:|")
    print(f"| 0 | 0 | 0 | 0 | 0 | {tau0:.4f} |")
    files: list[Path] = []
    total = 0
    for r in range(1, args.rounds + 1):
        cli("plan-assessments", out, "--name", "x", "--budget", args.budget)
        path = out / f"x.assess-{r}.jsonl"
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        for line in lines:
            line["label"] = truth.get(key(line))
        path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
        labelled = sum(line["label"] is not None for line in lines)
        total += labelled
        files.append(path)
        cli(*judge, *(a for f in files for a in ("--labels", f)))
        config = yaml.safe_load((out / "x.config.yml").read_text())
        in_effect = config["labels"]["in_effect"]
        print(f"| {r} | {len(lines)} | {labelled} | {in_effect} | {total} | {run_tau(data, out, 'x'):.4f} |")


if __name__ == "__main__":
    main()
