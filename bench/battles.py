"""Battles from the evidence against proxy human preferences on rag24-nuggets, cross-validated by topic.

Usage::

    python bench/battles.py [--data /work/shared/data] [--margin 0.1] [--from OUT_DIR]

There are no human battles of TREC RAG 2024: the preferences are a PROXY derived from NIST's
per-answer labels. Per topic, answer A beats B when its human NUGGET_F1 (the harmonic mean of
HUMAN_WEIGHTED_PRECISION and HUMAN_NUGGET_ALL) exceeds B's by more than ``--margin``; a tie
otherwise. The judge's evidence per answer: WEIGHTED_PRECISION and the other citation measures
from the real CLI (``--judge argue``, shipped support model), NUGGET_ALL *cross-validated by
topic* (the nugget model refitted leaving the topic out, as bench/nuggets.py does: the shipped
nugget model was fitted on these very topics), and the answer's words.

Printed, every figure leave-one-topic-out (the verdict model fitted on 7 topics, scored on the 8th):

* 3-way agreement of the verdict (A / tie / B, the most probable) with the proxy, and the log loss,
  for verdict models reading more or fewer features, with and without a nugget bank;
* the Bradley-Terry (Davidson) ranking of the 45 runs from the verdicts against the human
  leaderboard (run means of human NUGGET_F1): Kendall tau-b, beside the pointwise leaderboard's
  (run means of the judge's NUGGET_F1);
* the same from a 20% budget (each run meets 9 of its 44 opponents per topic, drawn by
  :mod:`judges.engine.battle_design`, weighted by 1/pi), over several seeds;
* the seconds to judge all battles of rag24-nuggets (8 topics x 990 pairs) from the evidence and
  fit the ranking with its bootstrap intervals (no LLM);
* the verdict model fitted on all topics (the parameters shipped in judges/engine/battles.py).
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from judges.engine import battle_design  # noqa: E402
from judges.engine.battles import FEATURES, Evidence, evidence, fit_model  # noqa: E402
from judges.core.measures import BATTLE_SCORE  # noqa: E402
from judges.engine.battles import Answers  # noqa: E402
from judges.meta.correlation import kendall  # noqa: E402
from judges.nuggets.measures import f1  # noqa: E402
from judges.scores import battles as bt  # noqa: E402
from judges.session.battles import judge_battles  # noqa: E402


def cli_measures(d: Path, out: str | None) -> dict:
    """Per (run, topic) the judge's measures (the real CLI, ``--judge argue``)."""
    if out is None:
        tmp = tempfile.mkdtemp()
        cmd = [sys.executable, str(ROOT / "run_judge.py"), "--judge", "argue", "--nuggets", str(d / "nuggets.jsonl")]
        cmd += ["--rag-topics", str(d / "topics.jsonl"), "--rag-responses", str(d / "runs")]
        cmd += ["--corpus", str(d / "segments.jsonl"), "--out-dir", tmp, "--name", "a", "--no-debug-log"]
        subprocess.run(cmd, check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        out = tmp
    per: dict = defaultdict(dict)
    for line in Path(out, "a.leaderboard.txt").read_text().splitlines():
        run, topic, measure, value = line.split("\t")
        if topic != "all":
            per[(run, topic)][measure] = float(value)
    return per


def cv_recall(d: Path) -> dict:
    """Per (run, topic) NUGGET_ALL from nugget models fitted leaving the topic out (bench/nuggets.py's way)."""
    import nuggets as nb  # bench/nuggets.py

    from judges.nuggets import features as F
    from judges.nuggets.judge import topic_features
    from judges.nuggets.model import cross_validate

    bank, labels, answers, _ = nb.load(d)
    encoder = F.Encoder()
    rows, keys = [], []
    for qid, b in sorted(bank.banks.items()):
        judged = nb.labelled_answers(answers, labels, qid)
        x, _ = topic_features(encoder, b, [t for _, t in judged])
        rows.append(x)
        for run, _text in judged:
            for i, n in enumerate(b.nuggets):
                keys.append((run, qid, labels[(run, qid)].levels[i], n.vital))
    x = np.vstack(rows)
    topics = np.array([k[1] for k in keys])
    p_any, p_full, _ = cross_validate(x, np.array([k[2] for k in keys]), topics)
    where = defaultdict(list)
    for k, key in enumerate(keys):
        where[(key[0], key[1])].append(k)
    vital = np.array([k[3] for k in keys])
    return {
        key: nb.measures(p_full[idx], p_any[idx], vital[idx])["NUGGET_ALL"]
        for key, idx in ((key, np.array(v)) for key, v in where.items())
    }


SHIPPED = "all six features"  # with a bank
WITHOUT = "no bank: precision, unsupported, textless, length"


DESIGNS = (  # (label, floor, weighted by 1/pi)
    ("design (worth + floor 0.05, 1/pi)", 0.05, True),
    ("design, unweighted", 0.05, False),
    ("design (worth + floor 1, 1/pi): shipped", 1.0, True),
    ("uniform (every pair pi = budget)", 1e9, True),
)


def budget_draw(pairs, ptopic, topics, runs_by_topic, ev, probs, opponents, seed, floor, weighted):
    """The battles drawn under the budget (and their weights) by :func:`judges.engine.battle_design.design`."""
    chosen = np.zeros(len(pairs), bool)
    weights = np.zeros(len(pairs))
    keep, battle_design.FLOOR = battle_design.FLOOR, floor
    try:
        for t in topics:
            idx = np.flatnonzero(ptopic == t)
            point = {r: f1(ev[(r, t)].precision, ev[(r, t)].recall) for r in runs_by_topic[t]}
            rank = {r: i for i, r in enumerate(sorted(point, key=lambda r: (-point[r], r)))}
            ra = [rank[pairs[k][1]] for k in idx]
            rb = [rank[pairs[k][2]] for k in idx]
            drawn = battle_design.design(
                t, probs[idx, 0], probs[idx, 2], ra, rb, len(runs_by_topic[t]), opponents, seed=seed
            )
            chosen[idx[drawn.chosen]] = True
            weights[idx[drawn.chosen]] = 1.0 / drawn.probability if weighted else 1.0
    finally:
        battle_design.FLOOR = keep
    return chosen, weights


def synthetic_answers(runs: int, topics: int, seed: int = 7) -> tuple[dict, dict]:
    """Per-topic measures and words of ``runs`` x ``topics`` answers drawn at random (timing only)."""
    rng = np.random.default_rng(seed)
    per_topic, words = {}, {}
    for r in range(runs):
        for t in range(topics):
            key = (f"run{r:02d}", f"t{t:02d}")
            per_topic[key] = {
                "WEIGHTED_PRECISION": rng.random(),
                "NUGGET_ALL": rng.random(),
                "WEIGHTED_RECALL": rng.random(),
                "CITATION_ACCURACY": 1.0,
            }
            words[key] = int(rng.integers(50, 1000))
    return per_topic, words


def pairs_of(runs_by_topic: dict) -> list[tuple[str, str, str]]:
    return [(t, a, b) for t in sorted(runs_by_topic) for a, b in itertools.combinations(runs_by_topic[t], 2)]


def budget(args, pairs, ptopic, topics, runs_by_topic, ev, probs, all_runs, truth_vec, by_topic_outcomes, all_tau):
    """The ranking from a budget of battles against all battles', by design (:data:`DESIGNS`) and seed."""
    n = len(all_runs)
    opponents = args.budget * (n - 1)
    whole = bt.fit(n, bt.concat(list(by_topic_outcomes(probs).values()))).scores()
    for label, floor, weighted in DESIGNS:
        taus, to_whole, shares = [], [], []
        for seed in range(args.seeds):
            chosen, weights = budget_draw(
                pairs, ptopic, topics, runs_by_topic, ev, probs, opponents, seed, floor, weighted
            )
            f = bt.fit(n, bt.concat(list(by_topic_outcomes(probs, chosen, weights).values())))
            taus.append(kendall(truth_vec, list(f.scores())))
            to_whole.append(kendall(list(whole), list(f.scores())))
            shares.append(chosen.mean())
        print(
            f"  {args.budget:.0%} budget, {label:<34} ({np.mean(shares):.3f} of the pairs), {args.seeds} seeds: "
            f"tau {np.mean(taus):.3f} [{min(taus):.3f}, {max(taus):.3f}], minus all battles' "
            f"{np.mean(taus) - all_tau:+.3f}; tau to the all-battles ranking {np.mean(to_whole):.3f}"
        )


def time_battles(judged, recall, keys, ev, topics, all_runs, truth_vec) -> None:
    """All battles of rag24-nuggets from the evidence, timed: the session's own stage
    (:func:`judges.session.battles.judge_battles`); then synthetic evidence of larger tracks."""
    per_topic = {k: dict(judged[k], NUGGET_ALL=recall[k]) for k in keys}
    words = {k: ev[k].words for k in keys}
    started = time.perf_counter()
    made = judge_battles(Answers(words, Counter(), True, None, Counter()), per_topic)
    seconds = time.perf_counter() - started
    r = made.ranking
    print(
        f"all {len(made.records):,} battles of rag24-nuggets from the evidence (judges.session.battles.judge_battles: "
        f"verdicts, {len(topics)} per-topic fits, the ranking with {bt.BOOTSTRAP} topic resamples): "
        f"{seconds:.1f} s, no LLM"
    )
    shipped = [r.score[r.runs.index(run)] for run in all_runs]
    board = [np.mean([per_topic[(run, t)][BATTLE_SCORE] for t in topics if (run, t) in per_topic]) for run in all_runs]
    print(
        f"  the shipped verdict model (fitted on all 8 topics: in-sample): "
        f"ranking tau {kendall(truth_vec, shipped):.3f}, "
        f"BATTLE_SCORE leaderboard (mean of per-topic fits) tau {kendall(truth_vec, board):.3f}; "
        f"median rank interval width {np.median(r.rank_high - r.rank_low):.0f}"
    )
    full = synthetic_answers(45, 8)
    started = time.perf_counter()
    made = judge_battles(Answers(full[1], Counter(), True, None, Counter()), full[0])
    print(
        f"  45 runs x 8 topics, every run on every topic (synthetic evidence, {len(made.records):,} battles): "
        f"{time.perf_counter() - started:.1f} s"
    )
    full = synthetic_answers(50, 50)
    started = time.perf_counter()
    made = judge_battles(Answers(full[1], Counter(), True, None, Counter()), full[0])
    print(
        f"  50 runs x 50 topics (synthetic evidence, {len(made.records):,} battles): "
        f"{time.perf_counter() - started:.1f} s"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data", type=Path, default=Path(os.environ.get("CITEJUDGE_SHARED", ROOT.parent / "shared")) / "data"
    )
    ap.add_argument("--margin", type=float, default=0.1, help="proxy: A beats B when its human F1 is higher by more")
    ap.add_argument("--from", dest="out", help="an argue output directory (name a) instead of running the CLI")
    ap.add_argument("--budget", type=float, default=0.2, help="share of the pairs drawn under the budget")
    ap.add_argument("--seeds", type=int, default=5, help="draws of the budget design")
    args = ap.parse_args()
    d = args.data / "rag24-nuggets"
    import nuggets as nb

    truth = nb.truth_rows(d / "truth.eval.txt")
    answers = nb.read_answers([d / "runs"], None)
    judged = cli_measures(d, args.out)
    recall = cv_recall(d)
    keys = sorted(k for k in recall if k in judged and k in truth)
    human = {k: f1(truth[k]["HUMAN_WEIGHTED_PRECISION"], truth[k]["HUMAN_NUGGET_ALL"]) for k in keys}
    ev: dict[tuple[str, str], Evidence] = {}
    for k in keys:
        m = dict(judged[k], NUGGET_ALL=recall[k])
        ev[k] = evidence(m, len(answers[k].split()))
    runs_by_topic: dict = defaultdict(list)
    for run, topic in keys:
        runs_by_topic[topic].append(run)
    topics = sorted(runs_by_topic)
    pairs = pairs_of(runs_by_topic)
    diffs = np.array([ev[(a, t)].vector() - ev[(b, t)].vector() for t, a, b in pairs])
    gap = np.array([human[(a, t)] - human[(b, t)] for t, a, b in pairs])
    outcome = np.where(gap > args.margin, 1, np.where(gap < -args.margin, -1, 0))
    ptopic = np.array([t for t, _, _ in pairs])
    print(
        f"rag24-nuggets: {len(keys)} answers, {len(topics)} topics, {len(pairs):,} battles; PROXY preferences "
        f"(human NUGGET_F1 margin {args.margin}): A {np.mean(outcome > 0):.3f}, tie {np.mean(outcome == 0):.3f}, "
        f"B {np.mean(outcome < 0):.3f}"
    )
    variants = {
        "precision only (no bank)": [True, False, False, False, False, False],
        "no bank: precision, unsupported, textless, length": [True, False, False, True, True, True],
        "precision + recall": [True, True, False, False, False, False],
        "precision + recall + F1": [True, True, True, False, False, False],
        "all six features": [True, True, True, True, True, True],
    }
    cv_probs = {}
    print("verdicts, leave one topic out (fit on 7 topics, scored on the 8th):")
    for name, mask in variants.items():
        probs = np.zeros((len(pairs), 3))
        for t in topics:
            test = ptopic == t
            model = fit_model(diffs[~test], outcome[~test], mask)
            for k in np.flatnonzero(test):
                s = float(np.dot(model.weights, diffs[k]))
                from judges.engine.battles import probabilities

                probs[k] = probabilities(s, model.theta)
        cv_probs[name] = probs
        pick = np.array([1, 0, -1])[np.argmax(probs[:, [0, 1, 2]], axis=1)]
        agree = np.mean(pick == outcome)
        truth_col = np.where(outcome > 0, 0, np.where(outcome == 0, 1, 2))
        loss = -np.mean(np.log(np.clip(probs[np.arange(len(pairs)), truth_col], 1e-12, 1)))
        decided = outcome != 0
        order = np.mean(np.sign(probs[decided, 0] - probs[decided, 2]) == outcome[decided])
        print(f"  {name:<52} 3-way agreement {agree:.3f}  log loss {loss:.3f}  A/B order (decided pairs) {order:.3f}")
    majority = max(np.mean(outcome > 0), np.mean(outcome == 0), np.mean(outcome < 0))
    print(f"  {'(majority class)':<52} 3-way agreement {majority:.3f}")

    all_runs = sorted({r for r, _ in keys})
    index = {r: i for i, r in enumerate(all_runs)}
    human_runs = {r: np.mean([human[(r, t)] for t in topics if (r, t) in human]) for r in all_runs}
    truth_vec = [human_runs[r] for r in all_runs]
    pointwise = {
        r: np.mean([f1(ev[(r, t)].precision, ev[(r, t)].recall) for t in topics if (r, t) in ev]) for r in all_runs
    }
    print(f"run Kendall tau-b against the human leaderboard (run means of human NUGGET_F1, {len(all_runs)} runs):")
    print(
        f"  pointwise leaderboard (judge NUGGET_F1, CV recall)             "
        f"{kendall(truth_vec, [pointwise[r] for r in all_runs]):.3f}"
    )

    def by_topic_outcomes(probs, chosen=None, weights=None):
        rows = defaultdict(list)
        for k, (t, a, b) in enumerate(pairs):
            if chosen is not None and not chosen[k]:
                continue
            w = 1.0 if weights is None else weights[k]
            rows[t].append((index[a], index[b], probs[k, 0], probs[k, 1], probs[k, 2], w))
        return {t: bt.outcomes(r) for t, r in rows.items()}

    results = {}
    for name in ("precision + recall", "precision + recall + F1", SHIPPED, WITHOUT):
        f = bt.fit(len(all_runs), bt.concat(list(by_topic_outcomes(cv_probs[name]).values())))
        results[name] = kendall(truth_vec, list(f.scores()))
        print(f"  Bradley-Terry (Davidson), all battles, {name:<24} {results[name]:.3f}")
    for name in (SHIPPED, WITHOUT):  # the leaderboard's BATTLE_SCORE: per topic its own fit, then the mean
        per_run = defaultdict(list)
        for o in by_topic_outcomes(cv_probs[name]).values():
            local = sorted(set(o.i.tolist()) | set(o.j.tolist()))
            where = {g: k for k, g in enumerate(local)}
            f = bt.fit(len(local), o._replace(i=np.array([where[g] for g in o.i]), j=np.array([where[g] for g in o.j])))
            for g, score in zip(local, f.scores()):
                per_run[all_runs[g]].append(score)
        board = [np.mean(per_run[r]) for r in all_runs]
        print(f"  BATTLE_SCORE leaderboard (mean of per-topic fits), {name:<24} {kendall(truth_vec, board):.3f}")
    ptruth = np.stack([(outcome > 0), (outcome == 0), (outcome < 0)], axis=1).astype(float)
    f = bt.fit(len(all_runs), bt.concat(list(by_topic_outcomes(ptruth).values())))
    print(
        f"  Bradley-Terry of the proxy preferences themselves (ceiling)    {kendall(truth_vec, list(f.scores())):.3f}"
    )

    budget(
        args,
        pairs,
        ptopic,
        topics,
        runs_by_topic,
        ev,
        cv_probs[SHIPPED],
        all_runs,
        truth_vec,
        by_topic_outcomes,
        results[SHIPPED],
    )
    time_battles(judged, recall, keys, ev, topics, all_runs, truth_vec)
    for name_, mask in (("with a bank", variants[SHIPPED]), ("without", variants[WITHOUT])):
        m = fit_model(diffs, outcome, mask)
        shown = ", ".join(f"{f_} {w:.3f}" for f_, w in zip(FEATURES, m.weights) if w)
        print(f"verdict model fitted on all topics, {name_}: {shown}; theta {m.theta:.3f}")


if __name__ == "__main__":
    main()
