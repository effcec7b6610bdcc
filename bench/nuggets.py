"""Nugget judgments against NIST's assessors on rag24-nuggets, cross-validated by topic, no LLM.

Usage::

    python bench/nuggets.py [--data /work/shared/data] [--write-model judges/nuggets/models/rag24.json]

The answers are the run files' (each answer's entries joined by a space, as the judge reads
them); the nuggets ``nuggets.jsonl``; the labels ``nugget_assignment.jsonl``. Printed:

* run Kendall tau (tau-b) of NUGGET_ALL, NUGGET_ALL_STRICT, NUGGET_VITAL, NUGGET_VITAL_STRICT
  (per run, the mean over the topics it answered) against the assessors' HUMAN_* of
  ``truth.eval.txt``, for the nugget model refitted leaving each topic out (scored on the topic
  left out: THE figure for unseen topics), the model as shipped (in-sample), and the plain
  matcher (the largest share of a nugget's content stems in one answer sentence: support at
  >= 0.75, partial at >= 0.5);
* a shift: models fitted leaving the topic out *and* the half of the teams scored (teams dealt
  alternately by name), so neither the topic nor the run's team was seen; and its control, the
  same with runs dealt into halves at random (as much training data, the run's team seen);
* assignment-level exact three-level agreement and Cohen's kappa (cross-validated);
* NUGGET_F1 against the human F1 (per answer the harmonic mean of HUMAN_WEIGHTED_PRECISION and
  HUMAN_NUGGET_ALL, then the mean over the run's topics) with the citation judge's
  WEIGHTED_PRECISION (the real CLI, ``--judge argue`` with the shipped models) and the
  cross-validated NUGGET_ALL.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judges.formats.nuggets import read_nuggets  # noqa: E402
from judges.meta.agreement import matrix_scores  # noqa: E402
from judges.meta.correlation import kendall  # noqa: E402
from judges.nuggets import features as F  # noqa: E402
from judges.nuggets.answers import read_answers  # noqa: E402
from judges.nuggets.judge import topic_features  # noqa: E402
from judges.nuggets.measures import NUGGET_MEASURES, f1  # noqa: E402
from judges.nuggets.model import cross_validate, fit, load_model  # noqa: E402

PLAIN = (0.75, 0.5)


def truth_rows(path: Path) -> dict:
    out: dict = defaultdict(dict)
    for line in path.read_text().splitlines():
        run, topic, measure, value = line.split()
        out[(run, topic)][measure] = float(value)
    return out


def run_means(per_answer: dict, measure: str) -> dict:
    by_run: dict = defaultdict(list)
    for (run, _), m in per_answer.items():
        by_run[run].append(m[measure])
    return {run: float(np.mean(v)) for run, v in by_run.items()}


def tau(truth: dict, judged: dict) -> float:
    runs = sorted(truth)
    return kendall([truth[r] for r in runs], [judged[r] for r in runs])


def measures(p_full, p_any, vital) -> dict:
    graded = p_full + 0.5 * (p_any - p_full)
    v = vital.astype(bool)
    mean = lambda a: float(a.mean()) if len(a) else 0.0  # noqa: E731
    return {
        "NUGGET_ALL": mean(graded),
        "NUGGET_ALL_STRICT": mean(p_full),
        "NUGGET_VITAL": mean(graded[v]),
        "NUGGET_VITAL_STRICT": mean(p_full[v]),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data", type=Path, default=Path(os.environ.get("CITEJUDGE_SHARED", ROOT.parent / "shared")) / "data"
    )
    ap.add_argument("--write-model", type=Path, help="fit on every topic and write the model file here")
    ap.add_argument("--no-cli", action="store_true", help="skip NUGGET_F1 (it runs the CLI)")
    args = ap.parse_args()
    d = args.data / "rag24-nuggets"
    bank = read_nuggets(d / "nuggets.jsonl")
    labels = read_nuggets(d / "nugget_assignment.jsonl").assignments
    answers = read_answers([d / "runs"], set(bank.banks))
    truth = truth_rows(d / "truth.eval.txt")
    started = time.perf_counter()
    encoder = F.Encoder()
    rows, keys = [], []  # keys: (run, topic, nugget index, level, vital)
    for qid, b in sorted(bank.banks.items()):
        judged = sorted(
            (run, text) for (run, topic), text in answers.items() if topic == qid and (run, topic) in labels
        )
        x, _ = topic_features(encoder, b, [t for _, t in judged])
        rows.append(x)
        for run, _ in judged:
            for i, n in enumerate(b.nuggets):
                keys.append((run, qid, i, labels[(run, qid)].levels[i], n.vital))
    x = np.vstack(rows)
    run_ids = np.array([k[0] for k in keys])
    topics = np.array([k[1] for k in keys])
    y = np.array([k[3] for k in keys])
    vital = np.array([k[4] for k in keys])
    print(
        f"pairs {len(y):,} (answers {len(set(zip(run_ids, topics)))}, topics {len(set(topics))}); "
        f"labels: support {np.mean(y == 2):.3f}, partial {np.mean(y == 1):.3f}, not {np.mean(y == 0):.3f}; "
        f"features in {time.perf_counter() - started:.1f} s (machine loaded)"
    )

    teams = sorted({r.split(".")[0] for r in run_ids})
    half = {t: i % 2 for i, t in enumerate(teams)}
    run_half = np.array([half[r.split(".")[0]] for r in run_ids])

    def cross_validated(shift: bool):
        return cross_validate(x, y, topics, run_half if shift else None)

    def per_answer(p_any, p_full):
        out = {}
        for key in sorted(set(zip(run_ids, topics))):
            sel = (run_ids == key[0]) & (topics == key[1])
            out[key] = measures(p_full[sel], p_any[sel], vital[sel])
        return out

    def report(name, per):
        taus = {
            m: tau(run_means({k: {m: truth[k]["HUMAN_" + m]} for k in per}, m), run_means(per, m))
            for m in NUGGET_MEASURES
        }
        print(f"{name:<42}" + "  ".join(f"{m} {taus[m]:.3f}" for m in NUGGET_MEASURES))
        return taus

    if args.write_model:
        cv_info = {"topics": len(set(topics)), "pairs": int(len(y))}
        model = fit(
            x,
            y,
            training={"data": "rag24-nuggets (NIST TREC 2024 RAG nugget assignments)", "pairs": int(len(y))},
            cross_validation=cv_info,
        )
        model.write(args.write_model)
        print(f"wrote {args.write_model}")
    print("run Kendall tau against the assessors (45 runs, 8 topics):")
    cv_any, cv_full, cv_status = cross_validated(False)
    cv = per_answer(cv_any, cv_full)
    report("nugget model, cross-validated by topic", cv)
    shipped = load_model()
    a, f = shipped.probabilities(x)
    report("nugget model as shipped (in-sample)", per_answer(a, f))
    sh_any, sh_full, _ = cross_validated(True)
    report("shift: topic and half the teams unseen", per_answer(sh_any, sh_full))
    rng = np.random.default_rng(0)  # the control: as much training data, runs dealt at random
    dealt = {r: int(rng.integers(2)) for r in sorted(set(run_ids.tolist()))}
    ctl_any, ctl_full, _ = cross_validate(x, y, topics, np.array([dealt[r] for r in run_ids]))
    report("control: topic and a random half of runs", per_answer(ctl_any, ctl_full))
    r = x[:, F.FEATURES.index("sentence_recall")]
    plain = np.where(r >= PLAIN[0], 2, np.where(r >= PLAIN[1], 1, 0))
    report("plain matcher (0.75 / 0.5)", per_answer((plain >= 1).astype(float), (plain == 2).astype(float)))
    human = per_answer((y >= 1).astype(float), (y == 2).astype(float))
    check = all(abs(human[k][m] - truth[k]["HUMAN_" + m]) < 1e-4 for k in human for m in NUGGET_MEASURES)
    print(f"(the assessors' levels give truth.eval.txt's HUMAN_* per answer: {check})")

    conf = np.zeros((3, 3))
    np.add.at(conf, (y, cv_status), 1)
    s = matrix_scores(conf)
    print(
        f"assignments, cross-validated: exact agreement {s['accuracy']:.3f}, kappa {s['kappa']:.3f}, "
        f"judged support {np.mean(cv_status == 2):.3f} / partial {np.mean(cv_status == 1):.3f}"
    )
    conf_p = np.zeros((3, 3))
    np.add.at(conf_p, (y, plain), 1)
    sp = matrix_scores(conf_p)
    print(f"assignments, plain matcher: exact agreement {sp['accuracy']:.3f}, kappa {sp['kappa']:.3f}")

    if not args.no_cli:
        wp = citation_precision(d)
        per_f1 = {k: f1(wp[k], v["NUGGET_ALL"]) for k, v in cv.items() if k in wp}
        human_f1 = {k: f1(truth[k]["HUMAN_WEIGHTED_PRECISION"], truth[k]["HUMAN_NUGGET_ALL"]) for k in per_f1}
        t = tau(
            run_means({k: {"F1": v} for k, v in human_f1.items()}, "F1"),
            run_means({k: {"F1": v} for k, v in per_f1.items()}, "F1"),
        )
        t_wp = tau(
            run_means({k: {"P": truth[k]["HUMAN_WEIGHTED_PRECISION"]} for k in per_f1}, "P"),
            run_means({k: {"P": wp[k]} for k in per_f1}, "P"),
        )
        print(
            f"NUGGET_F1 run tau {t:.3f} against the human F1 (WEIGHTED_PRECISION alone: {t_wp:.3f}; "
            f"{len(per_f1)} answers with both)"
        )


def citation_precision(d: Path) -> dict:
    """Per (run, topic) the citation judge's WEIGHTED_PRECISION (the real CLI, one process)."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [
            sys.executable,
            str(ROOT / "run_judge.py"),
            "--judge",
            "citation",
            "--rag-topics",
            str(d / "topics.jsonl"),
            "--rag-responses",
            str(d / "runs"),
            "--corpus",
            str(d / "segments.jsonl"),
            "--out-dir",
            out,
            "--name",
            "c",
            "--no-debug-log",
        ]
        subprocess.run(cmd, check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        wp = {}
        for line in Path(out, "c.leaderboard.txt").read_text().splitlines():
            run, topic, measure, value = line.split("\t")
            if measure == "WEIGHTED_PRECISION" and topic != "all":
                wp[(run, topic)] = float(value)
    return wp


if __name__ == "__main__":
    main()
