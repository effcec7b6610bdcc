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
import json
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


def cli_measures(d: Path, out: str | None) -> tuple[dict, str]:
    """Per (run, topic) the judge's measures (the real CLI, ``--judge argue``), and its output directory."""
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
    return per, out


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


def shown_answers(out_dir: str) -> dict:
    """Per (run, topic) the answer as the side-by-side question shows it: its cited sentences, each
    citation's status and evidence (the CLI's assessments)."""
    import pyarrow.parquet as pq

    from judges.attest.sidebyside import Shown

    cols = ["run_id", "topic_id", "sentence_index", "citation_rank", "sentence", "status", "evidence"]
    rows = pq.read_table(Path(out_dir, "a.assessments.parquet"), columns=cols).to_pylist()
    by: dict = defaultdict(dict)
    for r in sorted(rows, key=lambda r: (r["run_id"], r["topic_id"], r["sentence_index"], r["citation_rank"])):
        text, cites = by[(r["run_id"], r["topic_id"])].get(r["sentence_index"], (r["sentence"] or "", []))
        cites.append((r["status"], (r["evidence"] or "")[:300]))
        by[(r["run_id"], r["topic_id"])][r["sentence_index"]] = (text, cites)
    return {k: Shown(tuple((t, tuple(c)) for _, (t, c) in sorted(v.items()))) for k, v in by.items()}


def standin(truth_of: dict, outcome: np.ndarray, error: float, first: float):
    """A loopback stand-in for the LLM (SIMULATED): answers the side-by-side question by the proxy
    preference, FIRST regardless with probability ``first``, else wrong with probability ``error``;
    each question's draw seeded by its key (the same answers every run)."""
    from judges.attest.cache import Answer
    from judges.attest.sidebyside import ANSWERS

    def ask(requests, on_result):
        for r in requests:
            battle, a_first = truth_of[r.key]
            rng = np.random.default_rng(int(r.key[:15], 16))
            true = {1: "FIRST" if a_first else "SECOND", -1: "SECOND" if a_first else "FIRST", 0: "TIE"}
            answer = true[int(outcome[battle])]
            if rng.random() < first:
                answer = "FIRST"
            elif rng.random() < error:
                answer = str(rng.choice([x for x in ANSWERS if x != answer]))
            on_result(r, Answer(answer, None, 900, 1))

    return ask


def simulated_llm(out_dir, pairs, outcome, probs, topics_text, index, n, truth_vec, by_topic_outcomes) -> None:
    """The LLM stage on the battles the evidence cannot decide, with the loopback stand-in (SIMULATED)."""
    from judges.attest import sidebyside as sbs
    from judges.session.battles import shown_order

    shown = shown_answers(out_dir)
    empty = sbs.Shown(())
    undecided = [k for k in range(len(pairs)) if sbs.undecided(*probs[k])]
    battles = []
    for k in undecided:
        t, a, b = pairs[k]
        battles.append(sbs.Battle(k, topics_text.get(t, ""), shown.get((a, t), empty), shown.get((b, t), empty)))
    truth_of: dict = {}
    pick = np.array([1, 0, -1])[np.argmax(probs, axis=1)]
    code = {"A": 1, "tie": 0, "B": -1}
    print(
        f"SIMULATED LLM side-by-side (loopback stand-in: FIRST regardless 30% of the time, else wrong 20%), "
        f"on the {len(undecided):,} of {len(pairs):,} battles the evidence cannot decide "
        f"(its most probable verdict < {sbs.UNDECIDED}):"
    )
    with tempfile.TemporaryDirectory() as cache:
        judge = sbs.SideBySide("standin", Path(cache), standin(truth_of, outcome, 0.2, 0.3))
        asked = judge.decide(battles, on_key=lambda key, battle, a_first: truth_of.__setitem__(key, (battle, a_first)))
        calls = judge.counts["calls"]
        again = judge.decide(battles)
        print(
            f"  questions {calls:,} (both orders); asked again: {sum(a.cached for a in again):,} cache hits, "
            f"{judge.counts['calls'] - calls} new calls; guard {sbs.position_bias(asked)}"
        )
        judge.close()
    u = np.array(undecided)
    ev_agree = np.mean(pick[u] == outcome[u])
    one, both, first_one, first_both, first_truth = [], [], [], [], []
    for k, a in zip(undecided, asked):
        t, ra, rb = pairs[k]
        a_shown_first = shown_order(t, ra, rb)[0] == ra  # the order one question shows them in
        single = a.a_first if a_shown_first else a.b_first
        v1 = None
        if single is not None:
            v1 = {"FIRST": "A" if a_shown_first else "B", "SECOND": "B" if a_shown_first else "A", "TIE": "tie"}[single]
        one.append(code[v1] if v1 else pick[k])
        both.append(code[a.verdict] if a.verdict else pick[k])
        first = 1 if a_shown_first else -1
        if one[-1] != 0:
            first_one.append(one[-1] == first)
        if both[-1] != 0:
            first_both.append(both[-1] == first)
        if outcome[k] != 0:
            first_truth.append(outcome[k] == first)
    one, both = np.array(one), np.array(both)
    print(
        f"  3-way agreement with the proxy on these battles: evidence alone {ev_agree:.3f}; "
        f"+ LLM one order {np.mean(one == outcome[u]):.3f}; + LLM both orders {np.mean(both == outcome[u]):.3f}"
    )
    print(
        f"  the answer shown first wins: proxy {np.mean(first_truth):.3f}; LLM one order {np.mean(first_one):.3f}; "
        f"both orders {np.mean(first_both):.3f} (of the decisive verdicts)"
    )
    whole_one, whole_both = pick.copy(), pick.copy()
    whole_one[u], whole_both[u] = one, both
    print(
        f"  3-way agreement on all {len(pairs):,} battles: evidence alone {np.mean(pick == outcome):.3f}; "
        f"+ LLM one order {np.mean(whole_one == outcome):.3f}; + LLM both orders {np.mean(whole_both == outcome):.3f}"
    )
    for label, verdicts in (("evidence alone", None), ("+ LLM both orders", whole_both)):
        p = probs.copy()
        if verdicts is not None:
            for k in undecided:  # the LLM's verdict, wrong with the stand-in's rate
                p[k] = 0.1
                p[k, {1: 0, 0: 1, -1: 2}[int(verdicts[k])]] = 0.8
        f = bt.fit(n, bt.concat(list(by_topic_outcomes(p).values())))
        print(f"  Bradley-Terry ranking, {label:<18} tau {kendall(truth_vec, list(f.scores())):.3f}")
    with tempfile.TemporaryDirectory() as cache:
        truth_of.clear()
        always = sbs.SideBySide("always-first", Path(cache), standin(truth_of, outcome, 0.0, 1.0))
        asked = always.decide(
            battles[:40], on_key=lambda key, battle, a_first: truth_of.__setitem__(key, (battle, a_first))
        )
        print(f"  a stand-in that always answers FIRST: guard {sbs.position_bias(asked)}: not used")
        always.close()


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
    judged, out_dir = cli_measures(d, args.out)
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
    topics_text = {
        str(json.loads(line)["id"]): json.loads(line)["title"] for line in open(d / "topics.jsonl") if line.strip()
    }
    simulated_llm(
        out_dir, pairs, outcome, cv_probs[SHIPPED], topics_text, index, len(all_runs), truth_vec, by_topic_outcomes
    )
    time_battles(judged, recall, keys, ev, topics, all_runs, truth_vec)
    for name_, mask in (("with a bank", variants[SHIPPED]), ("without", variants[WITHOUT])):
        m = fit_model(diffs, outcome, mask)
        shown = ", ".join(f"{f_} {w:.3f}" for f_, w in zip(FEATURES, m.weights) if w)
        print(f"verdict model fitted on all topics, {name_}: {shown}; theta {m.theta:.3f}")


if __name__ == "__main__":
    main()
