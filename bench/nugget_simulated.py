"""What would an LLM add to the nugget judge? The cascade for nugget pairs against a SIMULATED judge.

No capable LLM runs on these machines, so this bench measures the nugget pairs' cascade with a
stand-in: a loopback OpenAI-compatible server (127.0.0.1, stopped at the end; bench/standin_batch.py's)
that answers the nugget question ("does the response contain the fact?" FULL / PARTIAL / NONE)
from NIST's assignments of ``rag24-nuggets`` (support FULL, partial_support PARTIAL, not_support
NONE) and, for a share ``--error`` of the questions (chosen by a hash of the question, so the
same question always gets the same answer), one of the two other levels. It is a SIMULATION of
an LLM of known accuracy, not a model: its figures say what the cascade does with answers of that
quality, not what any real LLM would reach.

Cross-validated by topic: for each topic, the nugget model is fitted on the other topics' pairs
(``judges.nuggets.model.fit``), written to a file and the real CLI judges that topic alone
(``--judge nugget --nugget-model FILE``), once without the LLM and once with ``--attest
uncertain`` and ``attest.budget`` (the plan over the session's nugget pairs chooses which are
asked). With ``--shift`` also a shift: models fitted without the topic *and* without the half of
the teams scored (teams dealt alternately by name; only that half's runs are scored).

Printed: per setting, the run Kendall tau (tau-b, 45 runs) of NUGGET_ALL, NUGGET_ALL_STRICT,
NUGGET_VITAL, NUGGET_VITAL_STRICT against the assessors' HUMAN_*, and of NUGGET_F1 (per answer
the harmonic mean of the citation judge's WEIGHTED_PRECISION, the real CLI without LLM, and
NUGGET_ALL) against the human F1; assignment exact agreement and kappa; pairs asked.

Usage::

    python bench/nugget_simulated.py [--data /work/shared/data] [--error 0.2] [--budget 0.25] [--answer-error 0.2]
        [--shift]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from judges.meta.agreement import matrix_scores  # noqa: E402
from judges.nuggets import features as F  # noqa: E402
from judges.nuggets.judge import topic_features  # noqa: E402
from judges.nuggets.measures import F1, NUGGET_MEASURES, f1  # noqa: E402
from judges.nuggets.model import fit  # noqa: E402

import standin_batch  # noqa: E402
from nuggets import citation_precision, labelled_answers, load, run_means, tau  # noqa: E402

LEVEL_ANSWER = {2: "FULL", 1: "PARTIAL", 0: "NONE"}
ASSIGNMENT_LEVEL = {"support": 2, "partial_support": 1, "not_support": 0}
FIELDS = re.compile(
    r"\[\[ ## fact ## \]\]\n(.*?)\n\n\[\[ ## response ## \]\]\n(.*?)\n\nRespond with the corresponding output fields",
    re.S,
)


def _uniform(text: str, salt: str) -> float:
    return int.from_bytes(hashlib.sha256((salt + text).encode()).digest()[:8], "big") / 2**64


class NuggetOracle:
    """Answers from NIST's assignments: per (nugget text, answer text as the judge reads it) the level."""

    def __init__(self, bank, labels, answers: dict):
        self.level: dict[tuple[str, str], int] = {}
        for (run, topic), a in labels.items():
            text = answers.get((run, topic))
            if text is None or topic not in bank.banks:
                continue
            for n, level in zip(bank.banks[topic].nuggets, a.levels):
                self.level[(n.text, text)] = int(level)
        self.unknown = 0

    def reply(self, body: dict, error: float) -> str:
        content = body["messages"][-1]["content"]
        m = FIELDS.search(content)
        level = None if m is None else self.level.get((m.group(1), m.group(2)))
        if level is None:  # a question the assessors did not answer: the stand-in cannot know
            self.unknown += 1
            return "NONE"
        if _uniform(content, "error") < error:  # wrong: one of the two other levels
            others = [v for v in (2, 1, 0) if v != level]
            level = others[int(_uniform(content, "which") * 2)]
        return LEVEL_ANSWER[level]


def cli(*args: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, str(ROOT / "run_judge.py"), *args], capture_output=True, text=True, env=env)
    if r.returncode:
        raise SystemExit(f"the CLI failed ({r.returncode}): {r.stderr[-2000:]}")


def leaderboard(path: Path) -> dict:
    out: dict = defaultdict(dict)
    for line in path.read_text().splitlines():
        run, topic, measure, value = line.split("\t")
        if topic != "all":
            out[(run, topic)][measure] = float(value)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data", type=Path, default=Path(os.environ.get("CITEJUDGE_SHARED", ROOT.parent / "shared")) / "data"
    )
    ap.add_argument("--error", type=float, default=0.2)
    ap.add_argument("--budget", type=float, default=0.25)
    ap.add_argument(
        "--answer-error",
        type=lambda v: v if v == "estimate" else float(v),
        default=None,
        help="attest.answer_error: the LLM's error rate the Bayes update assumes (default: the workflow's, 0.1), "
        "or estimate (from each session's answers: the estimates are printed beside the stand-in's error)",
    )
    ap.add_argument("--shift", action="store_true", help="also fit without the scored half of the teams")
    args = ap.parse_args()
    d = args.data / "rag24-nuggets"
    bank, labels, answers, truth = load(d)
    topics_lines = {json.loads(line)["id"]: line for line in (d / "topics.jsonl").read_text().splitlines() if line}

    encoder = F.Encoder()
    xs, keys = [], []
    for qid, b in sorted(bank.banks.items()):
        judged = labelled_answers(answers, labels, qid)
        x, _ = topic_features(encoder, b, [t for _, t in judged])
        xs.append(x)
        keys += [(run, qid, labels[(run, qid)].levels[i]) for run, _ in judged for i in range(len(b.nuggets))]
    x = np.vstack(xs)
    run_ids = np.array([k[0] for k in keys])
    topic_of = np.array([k[1] for k in keys])
    y = np.array([k[2] for k in keys])
    teams = sorted({r.split(".")[0] for r in run_ids})
    half_of_team = {t: i % 2 for i, t in enumerate(teams)}
    half = np.array([half_of_team[r.split(".")[0]] for r in run_ids])

    oracle = NuggetOracle(bank, labels, answers)
    server = standin_batch.serve(lambda body: oracle.reply(body, args.error))
    wp = citation_precision(d)
    human_f1 = {k: f1(v["HUMAN_WEIGHTED_PRECISION"], v["HUMAN_NUGGET_ALL"]) for k, v in truth.items() if k[1] != "all"}
    settings = [("plain", None)] + ([("shift", 0), ("shift", 1)] if args.shift else [])
    scored: dict = {}  # (setting, llm) -> {(run, topic): measures}
    assigned: dict = {}  # (setting, llm) -> [(human level, judged level)]
    asked: dict = defaultdict(int)
    pairs: dict = defaultdict(int)
    estimates: dict = defaultdict(list)  # setting -> per session attest.nuggets.answer_error (estimate)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            cfg = out / "llm.json"
            url = f"http://127.0.0.1:{server.server_address[1]}/v1"
            model_name = f"simulated-nugget-error-{args.error}"
            cfg.write_text(json.dumps({"OPENAI_BASE_URL": url, "OPENAI_MODEL": model_name, "OPENAI_API_KEY": "sim"}))
            wf = out / "wf.yml"
            attest = {"mode": "uncertain", "budget": args.budget, "logprobs": False}
            if args.answer_error is not None:
                attest["answer_error"] = args.answer_error
            wf.write_text(json.dumps({"attest": attest}))
            for setting, group in settings:
                name = setting if group is None else f"{setting}-{group}"
                for qid in sorted(bank.banks):
                    train = topic_of != qid if group is None else (topic_of != qid) & (half != group)
                    model_path = out / f"{name}-{qid}.json"
                    fit(x[train], y[train]).write(model_path)
                    (out / f"{qid}.topics.jsonl").write_text(topics_lines[qid] + "\n")
                    for llm in (False, True):
                        run_out = out / f"{name}-{qid}-{llm}"
                        extra = (
                            ["--attest", "uncertain", "--workflow", str(wf), "--llm-config", str(cfg)] if llm else []
                        )
                        extra += ["--cache-dir", str(out / "cache")]
                        cli(
                            "--judge", "nugget", "--rag-topics", str(out / f"{qid}.topics.jsonl"),
                            "--rag-responses", str(d / "runs"), "--nuggets", str(d / "nuggets.jsonl"),
                            "--nugget-model", str(model_path), "--out-dir", str(run_out), "--name", "N",
                            "--no-debug-log", *extra,
                        )  # fmt: skip
                        import pandas as pd

                        table = pd.read_parquet(run_out / "N.nuggets.parquet")
                        if llm and args.answer_error == "estimate":
                            config = yaml.safe_load((run_out / "N.config.yml").read_text())
                            estimates[setting].append(config["attest"]["nuggets"]["answer_error"])
                        for row in table.itertuples():
                            if group is not None and half_of_team[row.run_id.split(".")[0]] != group:
                                continue
                            lab = labels.get((row.run_id, row.topic_id))
                            if lab is None:
                                continue
                            assigned.setdefault((setting, llm), []).append(
                                (int(lab.levels[row.nugget_index]), ASSIGNMENT_LEVEL[row.assignment])
                            )
                            asked[(setting, llm)] += isinstance(row.llm_answer, str)
                            pairs[(setting, llm)] += 1
                        for key, values in leaderboard(run_out / "N.leaderboard.txt").items():
                            if group is not None and half_of_team[key[0].split(".")[0]] != group:
                                continue
                            if key in truth:
                                scored.setdefault((setting, llm), {})[key] = values
    finally:
        server.shutdown()

    print_table(args, oracle.unknown, settings, scored, assigned, asked, pairs, truth, wp, human_f1)
    for setting, found in estimates.items():
        print_estimates(args.error, setting, found)


def print_estimates(error: float, setting: str, found: list[dict]) -> None:
    """attest.answer_error estimate: per session (one topic each) the estimate and its 90% interval."""
    values = [e["estimate"] for e in found]
    covered = sum(e["low"] <= error <= e["high"] for e in found)
    print(
        f"answer_error estimate ({setting}, SIMULATED LLM, stand-in error {error}): "
        f"mean {np.mean(values):.3f}, median {np.median(values):.3f}, range {min(values):.3f}-{max(values):.3f} "
        f"over {len(found)} sessions of {int(np.mean([e['answers'] for e in found]))} answers on average; "
        f"mean 90% interval {np.mean([e['low'] for e in found]):.3f}-{np.mean([e['high'] for e in found]):.3f}, "
        f"covering the stand-in's error in {covered} of {len(found)}"
    )
    for e in found:
        print(f"  {e['estimate']:.3f} ({e['low']:.3f}-{e['high']:.3f}, {e['answers']} answers)")


def print_table(args, unknown, settings, scored, assigned, asked, pairs, truth, wp, human_f1) -> None:
    print("SIMULATED LLM (answers from NIST's nugget assignments with a chosen error rate; not a real model)")
    print(
        f"error {args.error}, attest.budget {args.budget}, attest.answer_error "
        f"{'the default' if args.answer_error is None else args.answer_error} "
        "(attest.mode uncertain: the plan over each session's nugget "
        "pairs), nugget model cross-validated by topic (each topic judged by a model fitted on the others)"
    )
    print(f"questions the stand-in could not answer from the assignments: {unknown}")
    head = " | ".join(NUGGET_MEASURES + (F1,))
    print(f"| setting | LLM | asked / pairs | {head} | exact | kappa |")
    print("|---|---|---:|" + "---:|" * (len(NUGGET_MEASURES) + 1) + "---:|---:|")
    for setting, group in settings:
        if group == 1:
            continue
        for llm in (False, True):
            per = scored[(setting, llm)]
            taus = []
            for m in NUGGET_MEASURES:
                taus.append(tau(run_means({k: {m: truth[k]["HUMAN_" + m]} for k in per}, m), run_means(per, m)))
            ours = {k: f1(wp[k], v["NUGGET_ALL"]) for k, v in per.items() if k in wp}
            taus.append(
                tau(
                    run_means({k: {"F": human_f1[k]} for k in ours}, "F"),
                    run_means({k: {"F": v} for k, v in ours.items()}, "F"),
                )
            )
            conf = np.zeros((3, 3))
            for h, j in assigned[(setting, llm)]:
                conf[h, j] += 1
            s = matrix_scores(conf)
            label = "topic unseen" if setting == "plain" else "topic and half the teams unseen"
            print(
                f"| {label} | {'simulated' if llm else 'none'} | {asked[(setting, llm)]} / {pairs[(setting, llm)]} | "
                + " | ".join(f"{t:.3f}" for t in taus)
                + f" | {s['accuracy']:.3f} | {s['kappa']:.3f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
