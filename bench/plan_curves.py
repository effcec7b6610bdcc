"""Where answers move the ranking: the session's plan (judges/attest/plan.py) against the rule it replaced,
on rag24-support's unseen topics, with a SIMULATED LLM and with assessors' labels.

Usage::

    python bench/plan_curves.py [--data ../shared/data] [--draws 10]

rag24-support (45 real TREC 2024 RAG runs, NIST's full / partial / no support labels on 2,348
citations of 14 topics) is judged once by the real CLI; the support model is refitted with
leave-one-topic-out cross-validation, so every citation's ``P(any)`` / ``P(full)`` come from a
model that never saw its topic (``bench/support_agreement.py``). Then, for a share of the
citations:

* **LLM** (a SIMULATION of an LLM of known accuracy, not a model): the chosen citations get the
  assessors' answer, wrong for a share ``error`` of them (drawn at random, ``--draws`` draws), and
  weigh what the judge gives them after that answer (Bayes' rule, ``attest.answer_error`` 0.1,
  :func:`judges.engine.weights.citation_weight`); both questions (``yes_no``, ``support_level``). The
  share is chosen by
  - ``previous``: the rule before the plan, one cutoff on (expected error of the status x the
    report's leverage) set on the model's training citations (kept here only to compare);
  - ``plan, no order``: :func:`judges.attest.plan.make_plan` with ``order=False`` (leverage x spread);
  - ``plan``: the default, with the order factor.
* **Human labels**: the chosen citations weigh their assessors' level exactly (``--labels``),
  chosen by the plan or at random (mean over ``--draws`` draws).

The figure is the leaderboard run tau against the published human leaderboard (as
``meta-evaluate --truth-topics`` computes it), the mean over draws; ``sent`` is the share of the
judgeable citations actually chosen.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import support_agreement as sa  # noqa: E402

from judges.attest.cascade import combine  # noqa: E402
from judges.core.config import AttestSettings  # noqa: E402
from judges.formats.tables import read_assessments  # noqa: E402
from judges.formats.labels import read_labels  # noqa: E402
from judges.attest.plan import KEY, Quota, make_plan  # noqa: E402
from judges.core.records import Judgment  # noqa: E402
from judges.meta.calibrate import FEATURE_COLUMNS, STATUS_LEVEL, calibrate, folds, labelled_features  # noqa: E402
from judges.support.model import expected_error, levels  # noqa: E402
from judges.engine.weights import citation_weight  # noqa: E402

STATUSES = np.array(["unsupported", "partial", "supported"])
ANSWER_ERROR = AttestSettings().answer_error


def previous_rule(ctx, budget: float) -> np.ndarray:
    """The rule the plan replaced: per fold, one cutoff on leverage x expected error, found so that
    the share of the model's training citations above it (weighted by report sizes) is ``budget``."""
    table, models, answered = ctx.table, ctx.models, ctx.answered
    p_any, p_full, level = ctx.p_any, ctx.p_full, ctx.level
    counts = table.groupby(["run_id", "topic_id"]).size().to_dict()
    total, runs = sum(counts.values()), len({r for r, _ in counts})
    lev = {(r, t): total / (runs * n * max(answered.get(r, 1), 1)) for (r, t), n in counts.items()}
    keys = sorted(lev)
    levs = np.array([lev[k] for k in keys])
    weights = np.array([counts[k] for k in keys], dtype=np.float64)
    weights /= weights.sum()
    errors = expected_error(p_any, p_full, level)
    citation_lev = np.array([lev[k] for k in zip(table.run_id, table.topic_id)])
    sent = np.zeros(len(table), dtype=bool)
    for test, m in models:
        lo, hi = -80.0, 80.0
        for _ in range(100):
            mid = (lo + hi) / 2
            if float(weights @ m.share_at_least(math.exp(-mid) / levs)) < budget:
                lo = mid
            else:
                hi = mid
        cutoff = float(f"{math.exp(-hi):.8g}")
        sent[test] = citation_lev[test] * errors[test] >= cutoff
    return sent


def plan_mask(ctx, share: float, order: bool = True) -> np.ndarray:
    plan = make_plan(ctx.columns, ctx.answered, ctx.lacking, Quota(budget=share), order=order)
    keys = zip(*(ctx.columns[k] for k in KEY))
    return np.array([(r, t, int(s), int(c)) in plan.chosen for r, t, s, c in keys], dtype=bool)


def setup(data: Path) -> SimpleNamespace:
    """rag24-support judged by the CLI, with cross-validated probabilities (see the module doc)."""
    d = data / "rag24-support"
    with tempfile.TemporaryDirectory() as tmp:
        sa.judge(d / "topics.jsonl", d / "runs", Path(tmp), "r24", {}, "--corpus", str(d / "segments.jsonl"))
        a = read_assessments(tmp, "r24")
        table = labelled_features(a, read_labels(d / "labels.jsonl"))
    keys = ["run_id", "topic_id", "sentence_index", "doc_id"]
    ranks = a.drop_duplicates(keys)[[*keys, "citation_rank"]]
    table = table.merge(ranks, on=keys, how="left", validate="one_to_one")
    truth = sa.read_truth(d / "truth.eval.txt")
    table = table.sort_values(list(KEY)).reset_index(drop=True)
    x = table[FEATURE_COLUMNS].to_numpy(dtype=np.float64)
    y, topics = table["y"].to_numpy(), table["topic_id"].to_numpy()
    p_any, p_full, level = np.zeros(len(y)), np.zeros(len(y)), np.zeros(len(y), dtype=np.int64)
    models = []
    for group in folds(topics):
        test = np.isin(topics, group)
        m = calibrate(table[~test], "the other topics")
        pa_, pf_ = m.probabilities(x[test])
        p_any[test], p_full[test], level[test] = pa_, pf_, levels(pa_, pf_, m.p_supported, m.p_partial)
        models.append((test, m))
    lacking = sa.lacks(table)
    weights = sa.expected(table, p_any, p_full)
    answered = truth.reset_index().groupby("run_id").topic_id.nunique().to_dict()
    columns = {k: table[k].to_numpy() for k in KEY}
    columns.update(status=STATUSES[sa.capped(table, level)], p_any=p_any, p_full=p_full, weight=weights)
    return SimpleNamespace(
        table=table,
        truth=truth,
        y=y,
        p_any=p_any,
        p_full=p_full,
        level=level,
        models=models,
        lacking=lacking,
        weights=weights,
        answered=answered,
        columns=columns,
    )


def answer_draws(ctx, question: str, error: float, draws: int, rng) -> list[np.ndarray]:
    """The SIMULATED LLM's answers to every citation, ``draws`` times."""
    y, out = ctx.y, []
    for _ in range(draws):
        wrong = rng.random(len(y)) < error
        if question == "yes_no":
            out.append(np.where((y == 2) ^ wrong, "YES", "NO"))
        else:
            other = (y + rng.integers(1, 3, len(y))) % 3
            out.append(np.array(["NONE", "PARTIAL", "FULL"])[np.where(wrong, other, y)])
    return out


def weight_after(ctx, i: int, answer: str, question: str, answer_error: float = ANSWER_ERROR) -> float:
    """The weight the judge gives citation ``i`` after the LLM's ``answer`` (judges.engine.weights),
    the update assuming the LLM errs at ``answer_error`` (``attest.answer_error``)."""
    s = combine(STATUSES[ctx.level[i]], answer, None, question)
    lacking = bool(ctx.lacking[i])
    cap = lacking and s == "supported"
    final = "partial" if cap else s
    j = Judgment(final, STATUS_LEVEL[final], 0, 0.0, 0.0, 0.0, 1, 0, 0, "", "corpus", "", STATUSES[ctx.level[i]])
    j = j._replace(p_any=ctx.p_any[i], p_full=ctx.p_full[i], llm_answer=answer, capped=cap)
    return citation_weight(j, True, answer_error, full_ruled_out=lacking)


def llm_tau(ctx, sent: np.ndarray, draws: list[np.ndarray], question: str, answer_error: float = ANSWER_ERROR) -> float:
    """Leaderboard run tau with the SIMULATED answers to the ``sent`` citations, mean over draws."""
    taus = []
    for answers in draws:
        w = ctx.weights.copy()
        for i in np.flatnonzero(sent):
            w[i] = weight_after(ctx, i, answers[i], question, answer_error)
        taus.append(sa.leaderboard_tau(ctx.table, w, ctx.truth))
    return float(np.mean(taus))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--draws", type=int, default=10)
    args = ap.parse_args()
    ctx = setup(args.data)
    base = sa.leaderboard_tau(ctx.table, ctx.weights, ctx.truth)
    print(f"rag24-support, {len(ctx.y)} citations, 45 runs, 14 topics; support model cross-validated by topic.")
    print(f"No LLM, no labels: leaderboard run tau {base:.3f}\n")
    rng = np.random.default_rng(0)
    shares = (0.05, 0.1, 0.25, 0.5)
    print("## A SIMULATED LLM (answers from the NIST labels, wrong at the given rate)\n")
    print("leaderboard run tau, mean of the draws (share of the citations sent in brackets)\n")
    print("| question | error | rule | " + " | ".join(f"{s:.0%}" for s in shares) + " |")
    print("|---|---:|---|" + "---:|" * len(shares))
    masks = {("previous", s): previous_rule(ctx, s) for s in shares}
    masks.update({("plan", s): plan_mask(ctx, s) for s in shares})
    masks.update({("plan, no order", s): plan_mask(ctx, s, False) for s in shares})
    # the plan sending as many as the previous rule did (it overshoots its budget)
    masks.update({("plan, previous's count", s): plan_mask(ctx, masks[("previous", s)].mean()) for s in shares})
    rules = ("previous", "plan, previous's count", "plan", "plan, no order")
    for question in ("yes_no", "support_level"):
        for error in (0.0, 0.1, 0.2):
            draws = answer_draws(ctx, question, error, args.draws, rng)
            for name in rules:
                cells = [
                    f"{llm_tau(ctx, masks[(name, s)], draws, question):.3f} ({masks[(name, s)].mean():.1%})"
                    for s in shares
                ]
                print(f"| {question} | {error} | {name} | " + " | ".join(cells) + " |", flush=True)
    print("\n## Assessors' labels (exact levels), chosen by the plan or at random\n")
    label_shares = (0.02, 0.05, 0.1, 0.25)
    print("| chosen by | " + " | ".join(f"{s:.0%}" for s in label_shares) + " |")
    print("|---|" + "---:|" * len(label_shares))
    human = ctx.y / 2.0
    for name in ("plan", "plan, no order", "random"):
        cells = []
        for s in label_shares:
            if name == "random":
                k = int(round(s * len(ctx.y)))
                taus = []
                for _ in range(max(args.draws, 20)):
                    chosen = rng.choice(len(ctx.y), k, replace=False)
                    w = ctx.weights.copy()
                    w[chosen] = human[chosen]
                    taus.append(sa.leaderboard_tau(ctx.table, w, ctx.truth))
                cells.append(f"{np.mean(taus):.3f}")
            else:
                sent = plan_mask(ctx, s, name == "plan")
                cells.append(f"{sa.leaderboard_tau(ctx.table, np.where(sent, human, ctx.weights), ctx.truth):.3f}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
