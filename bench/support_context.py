"""Support on unseen topics from what surrounds a citation, other model classes, other weights (issue 39).

Usage::

    python bench/support_context.py [--data $CITEJUDGE_SHARED/data] [--work DIR] [--draws 20] [--boot 300]

``rag24-support`` is judged once by the real CLI (default workflow; ``--work`` keeps the judgment;
the support features are recorded in the assessments). Then, in this process, every figure
cross-validated by topic (leave one topic out) and scored as ``bench/support_features.py`` scores
its candidates (leaderboard run tau from expected weights with the grounding cap, labelled-reports
run tau, exact and kappa of the capped levels; the two stricter regimes of its :func:`stricter`,
30% not supported: *drop* and *relabel*; a topic bootstrap of the leaderboard-tau gain over the
shipped model, :func:`support_agreement.topic_bootstrap`):

1. **Topic- and run-relative features** (no label needed at test time: the features of the other
   citations judged with it): a citation's ``content_recall`` and the shipped model's linear score
   (its ``P(full)`` logit, from the fold's model: no label of the scored topic) as a z-score and
   a percentile within its topic, a z-score within its run (over all the run's topics), the
   mean over the other citations of its answer, and the run's mean.
2. **The citation's context in its answer**: its sentence's relative position, first / last
   sentence, the answer's length (sentences), a summary opener ("In summary", "Overall", ...),
   talk about the context ("According to the provided context", "the passage"), a heading-like
   entry (ends with ``:``), how many other sentences of the answer cite the same segment, the
   share of the answer's sentences that carry a citation. (In rag24-support each sentence has at
   most one citation with a known segment, 2,348 sentences of 5,020, so the sentence's other
   citations, their rank and the best of them cannot be measured here.)
3. **The model class**, on the shipped nine features: the shipped pair of logistic regressions;
   an ordinal (proportional-odds) logistic regression; a multinomial logistic regression
   (sklearn, its ``C`` chosen by inner CV grouped by topic); two monotone gradient-boosted
   classifiers (sklearn ``HistGradientBoostingClassifier``, ``monotonic_cst`` +1 on the recalls
   and coverage, -1 on the missing numbers / entities; depth / iterations chosen by inner grouped
   CV). Each class's levels at the thresholds that judge its training citations in their labelled
   mix (:func:`judges.support.model.mix_thresholds`, as the shipped model). sklearn is no project
   dependency (it is in this environment); the bench says so when it is missing.
4. **How the leaderboard turns probabilities into weights**: the default expected weight
   ``P(full) + 0.5 (P(any) - P(full))``; the partial weight ``a`` in ``P(full) + a (P(any) -
   P(full))`` chosen by inner grouped CV (leaderboard run tau over the training topics' reports);
   the status weights; the expected grade recalibrated (isotonic regression of the judged expected
   weight on the label's weight, fitted on the training topics' out-of-fold values).
5. **The topic offset under shifts**: half of the 23 teams judged (the topic statistics, the CV
   and the truth over their runs only, 6 draws); each citation judged by a model that saw neither
   its topic nor its team (14 topic folds x 4 team folds).
6. **Recall beyond the question's words** (per citation, from the sentence, its segment and the
   topic's question).
7. **How many of a topic's citations the offset needs** (the scored topic's statistics from k of
   its citations, or from its own answer only, as ``check_answer`` would have them); the topic's
   mean recall, the segment's length and segment-relative recall as features instead.
8. The boosted model of section 3 at one setting only (fast).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

os.environ.setdefault("OMP_NUM_THREADS", "1")  # sklearn's boosting on one thread: the machine is shared
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import judges.support.model as model_module  # noqa: E402
from judges.formats.labels import read_labels  # noqa: E402
from judges.formats.tables import read_assessments  # noqa: E402
from judges.meta.calibrate import agreement, folds, labelled_features  # noqa: E402
from judges.support.model import fit, levels, logits, mix_thresholds  # noqa: E402
from judges.core.vocabulary import FEATURES  # noqa: E402
from support_agreement import capped, expected, lacks, leaderboard_tau, read_truth, topic_bootstrap  # noqa: E402
from support_features import judge_set  # noqa: E402

RELATIVE = (
    "recall_z_topic",
    "recall_pct_topic",
    "score_z_topic",
    "score_pct_topic",
    "recall_z_run",
    "score_z_run",
    "recall_answer_mean",
    "recall_run_mean",
)
CONTEXT = (
    "position",
    "is_first",
    "is_last",
    "log_answer_sentences",
    "summary_opener",
    "context_talk",
    "heading",
    "same_doc_elsewhere",
    "cited_share",
)
EXTRA = ("recall_beyond_query", "query_share", "topic_mean_recall", "log_doc_tokens", "recall_z_doc")
model_module.FEATURES = tuple(FEATURES) + RELATIVE + CONTEXT + EXTRA  # let a model file name them (bench only)
SUMMARY = re.compile(r"^\s*(in summary|in conclusion|overall|to summarize|to sum up|in short|ultimately)\b", re.I)
CONTEXT_TALK = re.compile(
    r"\b(provided|given) (context|passages?|documents?|information|sources?)\b|\baccording to the "
    r"(context|passage|document|source|provided)|\bthe (context|passages?) (does not|doesn't|do not)\b",
    re.I,
)
MONOTONE = {  # +1: more of it, more support; -1: less (the shipped nine)
    "norm_score": 0,  # its sign in the shipped model is negative given answer_coverage: left free
    "answer_coverage": 1,
    "content_recall": 1,
    "bigram_recall": 1,
    "clause_min_recall": 1,
    "clause_max_recall": 1,
    "log_answer_tokens": 0,
    "numbers_missing": -1,
    "entities_missing": -1,
}


# -- features -----------------------------------------------------------------------------------
def answers(d: Path) -> dict:
    """(run, topic) -> list of (sentence text, cited segment ids) of the answer."""
    out = {}
    for f in sorted((d / "runs").glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            o = json.loads(line)
            out[(o["run_id"], o["topic_id"])] = [
                (s.get("text") if isinstance(s.get("text"), str) else "", [o["references"][c] for c in s["citations"]])
                for s in o["answer"]
            ]
    return out


def context_features(table: pd.DataFrame, ans: dict) -> pd.DataFrame:
    rows = []
    for r in table.itertuples():
        sents = ans[(r.run_id, r.topic_id)]
        n, i = len(sents), int(r.sentence_index)
        text = sents[i][0]
        rows.append(
            {
                "position": i / (n - 1) if n > 1 else 0.0,
                "is_first": float(i == 0),
                "is_last": float(i == n - 1),
                "log_answer_sentences": float(np.log(n)),
                "summary_opener": float(bool(SUMMARY.search(text))),
                "context_talk": float(bool(CONTEXT_TALK.search(text))),
                "heading": float(text.rstrip().endswith(":")),
                "same_doc_elsewhere": float(np.log1p(sum(r.doc_id in c for k, (_, c) in enumerate(sents) if k != i))),
                "cited_share": float(np.mean([bool(c) for _, c in sents])),
            }
        )
    return pd.DataFrame(rows, index=table.index)


def zscore(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    s = pd.Series(values)
    g = s.groupby(groups)
    sd = g.transform("std").fillna(0.0).to_numpy()
    return np.where(sd > 1e-9, (values - g.transform("mean").to_numpy()) / np.where(sd > 1e-9, sd, 1.0), 0.0)


def percentile(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    return pd.Series(values).groupby(groups).rank(pct=True).to_numpy()


def others_mean(values: np.ndarray, groups) -> np.ndarray:
    """Mean of ``values`` over the other rows of each row's group (the row's own value when alone)."""
    s = pd.Series(values)
    g = s.groupby(groups)
    total, count = g.transform("sum").to_numpy(), g.transform("count").to_numpy()
    return np.where(count > 1, (total - values) / np.maximum(count - 1, 1), values)


def relative_features(table: pd.DataFrame, score: np.ndarray) -> pd.DataFrame:
    """The topic- and run-relative features; ``score``: each citation's linear score from a model
    that never saw its topic's labels."""
    recall = table["f_content_recall"].to_numpy()
    topic, run = table["topic_id"].to_numpy(), table["run_id"].to_numpy()
    answer = [table["run_id"].to_numpy(), topic]
    return pd.DataFrame(
        {
            "recall_z_topic": zscore(recall, topic),
            "recall_pct_topic": percentile(recall, topic),
            "score_z_topic": zscore(score, topic),
            "score_pct_topic": percentile(score, topic),
            "recall_z_run": zscore(recall, run),
            "score_z_run": zscore(score, run),
            "recall_answer_mean": others_mean(recall, answer),
            "recall_run_mean": pd.Series(recall).groupby(run).transform("mean").to_numpy(),
        },
        index=table.index,
    )


def xcols(table: pd.DataFrame, feats) -> np.ndarray:
    return table[[f"f_{f}" for f in feats]].to_numpy(dtype=np.float64)


# -- model classes ----------------------------------------------------------------------------
class Logistic:
    """The shipped pair of L2 logistic regressions (:func:`judges.support.model.fit`)."""

    name = "shipped: two logistic regressions"

    def fit(self, x, y, feats, topics):
        self.m = fit(x, y, {}, features=feats)
        return self

    def predict(self, x):
        return self.m.probabilities(x)

    def thresholds(self):
        return self.m.p_supported, self.m.p_partial


class Ordinal:
    """Proportional odds: ``P(y >= k) = sigmoid(c_k + w . z)``, the same L2 as the shipped model."""

    name = "ordinal logistic (proportional odds)"

    def fit(self, x, y, feats, topics):
        from scipy.optimize import minimize

        self.mean, self.scale = x.mean(axis=0), np.where(x.std(axis=0) > 1e-12, x.std(axis=0), 1.0)
        z = (x - self.mean) / self.scale
        k = z.shape[1]

        def nll(theta):
            c1, d, w = theta[0], theta[1], theta[2:]
            c2 = c1 - np.exp(d)
            eta = z @ w
            p1 = 1 / (1 + np.exp(-(c1 + eta)))  # P(y >= 1)
            p2 = 1 / (1 + np.exp(-(c2 + eta)))  # P(y >= 2)
            probs = np.where(y == 0, 1 - p1, np.where(y == 1, p1 - p2, p2))
            return -np.sum(np.log(np.clip(probs, 1e-12, None))) + 0.5 * model_module.L2 * w @ w

        res = minimize(nll, np.concatenate([[1.0, 0.0], np.zeros(k)]), method="L-BFGS-B")
        self.theta = res.x
        pa, pf = self.predict(x)
        self.t = mix_thresholds(pa, pf, y)
        return self

    def predict(self, x):
        z = (x - self.mean) / self.scale
        c1, d, w = self.theta[0], self.theta[1], self.theta[2:]
        eta = z @ w
        return 1 / (1 + np.exp(-(c1 + eta))), 1 / (1 + np.exp(-(c1 - np.exp(d) + eta)))

    def thresholds(self):
        return self.t


def inner_choice(x, y, topics, grid, make, n_inner=5):
    """The grid value whose models, fitted on the other inner topic groups, give the best summed
    log-likelihood of ``P(any)`` and ``P(full)`` on each held-out group."""
    unique = np.array(sorted(set(topics.tolist())))
    best, best_ll = grid[0], -np.inf
    for g in grid:
        ll = 0.0
        for k in range(n_inner):
            test = np.isin(topics, unique[k::n_inner])
            m = make(g).fit(x[~test], y[~test], None, topics[~test])
            pa, pf = (np.clip(p, 1e-6, 1 - 1e-6) for p in m.predict(x[test]))
            ya, yf = y[test] >= 1, y[test] == 2
            ll += np.sum(np.where(ya, np.log(pa), np.log(1 - pa))) + np.sum(np.where(yf, np.log(pf), np.log(1 - pf)))
        if ll > best_ll:
            best, best_ll = g, ll
    return best


class Multinomial:
    name = "multinomial logistic (C by inner grouped CV)"

    def __init__(self, c=None):
        self.c = c

    def fit(self, x, y, feats, topics):
        from sklearn.linear_model import LogisticRegression

        if self.c is None:
            self.c = inner_choice(x, y, topics, [0.01, 0.1, 1.0, 10.0], Multinomial)
        self.mean, self.scale = x.mean(axis=0), np.where(x.std(axis=0) > 1e-12, x.std(axis=0), 1.0)
        self.m = LogisticRegression(C=self.c, max_iter=2000).fit((x - self.mean) / self.scale, y)
        self.t = mix_thresholds(*self.predict(x), y)
        return self

    def predict(self, x):
        p = self.m.predict_proba((x - self.mean) / self.scale)
        return p[:, 1] + p[:, 2], p[:, 2]

    def thresholds(self):
        return self.t


class Boosted:
    name = "monotone gradient boosting, two binary (depth / iterations by inner grouped CV)"

    def __init__(self, params=None, feats=FEATURES):
        self.params, self.feats = params, feats

    def fit(self, x, y, feats, topics):
        from sklearn.ensemble import HistGradientBoostingClassifier

        feats = feats or self.feats
        self.feats = feats
        if self.params is None:
            grid = [(2, 50), (2, 150), (3, 100), (4, 60)]
            self.params = inner_choice(x, y, topics, grid, lambda g: Boosted(g, feats))
        depth, iters = self.params
        cst = [MONOTONE.get(f, 0) for f in feats]

        def one(target):
            return HistGradientBoostingClassifier(
                max_depth=depth, max_iter=iters, learning_rate=0.05, l2_regularization=1.0,
                min_samples_leaf=40, monotonic_cst=cst, random_state=0,
            ).fit(x, target)  # fmt: skip

        self.any, self.full = one((y >= 1).astype(int)), one((y == 2).astype(int))
        self.t = mix_thresholds(*self.predict(x), y)
        return self

    def predict(self, x):
        pa = self.any.predict_proba(x)[:, 1]
        return pa, np.minimum(self.full.predict_proba(x)[:, 1], pa)

    def thresholds(self):
        return self.t


def cv(table, feats, make=Logistic, relative=False):
    """Out-of-fold ``(P(any), P(full), level)``; ``relative``: the relative features recomputed in
    every fold from that fold's shipped-feature model's linear score (no label of the test topic)."""
    y, topics = table["y"].to_numpy(), table["topic_id"].to_numpy()
    p_any, p_full, level = np.zeros(len(y)), np.zeros(len(y)), np.zeros(len(y), dtype=np.int64)
    for group in folds(topics):
        test = np.isin(topics, group)
        t = table
        if relative:
            base = fit(xcols(table[~test], FEATURES), y[~test], {})
            t = table.copy()
            rel = relative_features(table, logits(base, xcols(table, FEATURES))[1])
            for c in rel:
                t[f"f_{c}"] = rel[c].to_numpy()
        x = xcols(t, feats)
        m = make().fit(x[~test], y[~test], feats, topics[~test])
        p_any[test], p_full[test] = m.predict(x[test])
        level[test] = levels(p_any[test], p_full[test], *m.thresholds())
    return p_any, p_full, level


# -- scoring -----------------------------------------------------------------------------------
def weights_of(table, p_any, p_full, partial=0.5):
    """The leaderboard's expected weight with partial weight ``partial``, the grounding cap."""
    p_full = np.minimum(p_full, p_any)
    full_w = np.where(lacks(table), partial, 1.0)
    return partial * (p_any - p_full) + full_w * p_full


def scores(table, truth, level, p_any, p_full, w, draws, rng_seed=0) -> dict:
    """The figures of a row: leaderboard / labelled-reports run tau, exact, kappa; drop and relabel."""
    lv = capped(table, level)
    a = agreement(table, lv, p_any, p_full, w)
    out = {
        "lb_tau": leaderboard_tau(table, w, truth),
        "run_tau": a["run_tau"],
        "exact": a["exact"],
        "kappa": a["kappa"],
    }
    y = table["y"].to_numpy()
    n0, n12 = np.sum(y == 0), np.sum(y > 0)
    keep12, flips = int(round(n0 * 0.7 / 0.3)), int(round(0.3 * len(y) - n0))
    rng = np.random.default_rng(rng_seed)
    drop, relabel = [], []
    for _ in range(draws):
        rows = np.sort(
            np.concatenate([np.flatnonzero(y == 0), rng.choice(np.flatnonzero(y > 0), min(keep12, n12), replace=False)])
        )
        t = table.iloc[rows].reset_index(drop=True)
        a = agreement(t, lv[rows], p_any[rows], p_full[rows], w[rows])
        drop.append((leaderboard_tau(t, w[rows], truth), a["exact"], a["kappa"]))
        t = table.copy()
        t.loc[rng.choice(np.flatnonzero(y == 1), flips, replace=False), "y"] = 0
        a = agreement(t, lv, p_any, p_full, w)
        relabel.append((a["run_tau"], a["exact"], a["kappa"]))
    d, r = np.mean(drop, axis=0), np.mean(relabel, axis=0)
    return {**out, "drop": d, "relabel": r}


def line(name: str, s: dict, gain: str = "") -> str:
    d, r = s["drop"], s["relabel"]
    return (
        f"| {name} | {s['lb_tau']:.3f} | {s['run_tau']:.3f} | {s['exact']:.3f} | {s['kappa']:.3f} "
        f"| {d[0]:.3f} / {d[1]:.3f} / {d[2]:.3f} | {r[0]:.3f} / {r[1]:.3f} / {r[2]:.3f} | {gain} |"
    )


HEADER = (
    "| {} | leaderboard run tau | labelled-reports run tau | exact | kappa | drop: lb tau / exact / kappa "
    "| relabel: run tau / exact / kappa | topic bootstraps: lb tau gain; exact, kappa gain (90% intervals) |"
    "\n|---|---:|---:|---:|---:|---|---|---|"
)


def rag24_set(args):
    """rag24-support judged by the CLI into ``args.work``: (its folder, the labelled citations with
    their features, the human leaderboard)."""
    d = args.data / "rag24-support"
    args.work.mkdir(parents=True, exist_ok=True)
    judge_set(d / "topics.jsonl", d / "runs", args.work, "r24", "--corpus", d / "segments.jsonl")
    labelled = labelled_features(read_assessments(args.work, "r24"), read_labels(d / "labels.jsonl"))
    return d, labelled, read_truth(d / "truth.eval.txt")


class Bench:
    """The judged set, its truth, the shipped model's cross-validated figures, and how to score a row."""

    def __init__(self, args):
        self.args = args
        self.d, self.r24, self.truth = rag24_set(args)
        d = self.d
        self.y = self.r24["y"].to_numpy()
        ctx = context_features(self.r24, answers(d))
        for c in CONTEXT:
            self.r24[f"f_{c}"] = ctx[c].to_numpy()
        for c in RELATIVE:
            self.r24[f"f_{c}"] = 0.0  # recomputed inside every fold by cv(relative=True)
        self.base_name, self.base, self.base_s = self.run("shipped nine, two logistic regressions", FEATURES)
        pa, pf, _, w = self.base
        if not np.allclose(w, expected(self.r24, pa, pf)):  # this bench's weights are the leaderboard's
            raise SystemExit("weights_of differs from the leaderboard's expected weights (support_agreement.expected)")

    def run(self, name, feats, make=Logistic, relative=False, partial=0.5):
        pa, pf, lv = cv(self.r24, feats, make, relative)
        w = weights_of(self.r24, pa, pf, partial)
        return name, (pa, pf, lv, w), scores(self.r24, self.truth, lv, pa, pf, w, self.args.draws)

    def boot(self, w) -> str:
        return topic_bootstrap(self.r24, self.truth, w, self.base[3], self.args.boot)

    def levels_boot(self, level) -> str:
        return paired_bootstrap(
            self.r24, self.y, capped(self.r24, level), capped(self.r24, self.base[2]), self.args.boot
        )

    def table(self, title: str, rows) -> None:
        """A table of rows ``(name, features, make, relative)``, each with the two bootstraps."""
        print(HEADER.format(title))
        print(line(self.base_name, self.base_s))
        for name, feats, make, relative in rows:
            try:
                name, p, s = self.run(name, feats, make, relative)
            except ImportError as e:
                print(f"| {name} | (not measured: {e}) |")
                continue
            print(line(name, s, f"{self.boot(p[3])}; {self.levels_boot(p[2])}"), flush=True)


def section_relative(b: Bench) -> None:
    print("## 1. Topic- and run-relative features (each added to the shipped nine; CV by topic)\n")
    extras = (*((c,) for c in RELATIVE), ("recall_z_topic", "score_z_topic"), RELATIVE)
    b.table("features", [(f"+ {' + '.join(e)}", FEATURES + e, Logistic, True) for e in extras])


def section_context(b: Bench) -> None:
    r24, y = b.r24, b.y
    print("\n## 2. The citation's context in its answer (each added to the shipped nine; CV by topic)\n")
    print("How often: " + ", ".join(f"{c} {r24[f'f_{c}'].mean():.3f}" for c in CONTEXT) + " (means)\n")
    for c in ("summary_opener", "context_talk", "heading", "is_first", "is_last"):
        on = r24[f"f_{c}"].to_numpy() > 0
        if on.any():
            mix = "/".join(f"{np.mean(y[on] == k):.0%}" for k in (2, 1, 0))
            rest = "/".join(f"{np.mean(y[~on] == k):.0%}" for k in (2, 1, 0))
            print(f"- {c}: {int(on.sum())} citations, labels S/P/N {mix} (the rest {rest})")
    print()
    extras = (*((c,) for c in CONTEXT), CONTEXT)
    b.table("features", [(f"+ {' + '.join(e)}", FEATURES + e, Logistic, False) for e in extras])


def section_models(b: Bench) -> None:
    print("\n## 3. The model class (the shipped nine features; CV by topic, inner CV inside each fold)\n")
    rows = [(m.name, FEATURES, m, False) for m in (Ordinal, Multinomial, Boosted)]
    b.table("model", rows + [(FIXED_BOOST, FEATURES, fixed_boosted, False)])


FIXED_BOOST = "monotone gradient boosting, depth 3, 100 iterations (no inner choice)"


def fixed_boosted() -> "Boosted":
    return Boosted((3, 100))


def section_fixed_boost(b: Bench) -> None:
    """Section 8: the boosted model at one setting only (section 3's inner choice is slow)."""
    print("\n## 8. Monotone gradient boosting at one setting (the shipped nine features; CV by topic)\n")
    b.table("model", [(FIXED_BOOST, FEATURES, fixed_boosted, False)])


def section_weights(b: Bench) -> None:
    from sklearn.isotonic import IsotonicRegression

    r24, truth, y = b.r24, b.truth, b.y
    print("\n## 4. How probabilities become the leaderboard's weights (the shipped model, CV by topic)\n")
    pa, pf, lv, w0 = b.base
    topics = r24["topic_id"].to_numpy()
    grid = np.round(np.arange(0.0, 1.01, 0.1), 2)
    w_fit, w_iso = np.zeros(len(y)), np.zeros(len(y))
    picks = []
    for group in folds(topics):
        test = np.isin(topics, group)
        tr = r24[~test]
        tr_truth = truth[~truth.index.get_level_values(1).isin(group)]
        taus = [leaderboard_tau(tr, weights_of(tr, pa[~test], pf[~test], a), tr_truth) for a in grid]
        a = float(grid[int(np.argmax(taus))])
        picks.append(a)
        w_fit[test] = weights_of(r24[test], pa[test], pf[test], a)
        iso = IsotonicRegression(out_of_bounds="clip").fit(w0[~test], y[~test] / 2.0)
        w_iso[test] = iso.predict(w0[test])
    print(f"Partial weight chosen in the 14 folds: {sorted(picks)}\n")
    print(HEADER.format("weights"))
    print(line("expected weights, partial 0.5 (the default)", b.base_s))
    for name, w in (
        ("partial weight chosen by inner grouped CV", w_fit),
        ("expected grade recalibrated (isotonic, training topics)", w_iso),
        ("status weights", capped(r24, lv) / 2.0),
        ("P(full) alone (partial weight 0)", weights_of(r24, pa, pf, 0.0)),
        ("P(any) alone (partial weight 1)", weights_of(r24, pa, pf, 1.0)),
    ):
        s = scores(r24, truth, lv, pa, pf, w, b.args.draws)
        print(line(name, s, b.boot(w)), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    shared = Path(os.environ.get("CITEJUDGE_SHARED", ROOT.parent / "shared"))
    ap.add_argument("--data", type=Path, default=shared / "data")
    ap.add_argument("--work", type=Path, default=Path("/tmp/support_context"))
    ap.add_argument("--draws", type=int, default=20)
    ap.add_argument("--boot", type=int, default=300)
    ap.add_argument("--sections", default="1234567", help="which sections to print (digits)")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    b = Bench(args)
    sections = {
        "1": section_relative,
        "2": section_context,
        "3": section_models,
        "4": section_weights,
        "5": shifts,
        "6": query_section,
        "7": section_sensitivity,
        "8": section_fixed_boost,
    }
    for k in args.sections:
        sections[k](b)


QUERY = ("recall_beyond_query", "query_share")


def query_features(table: pd.DataFrame, d: Path) -> pd.DataFrame:
    """Per citation, from the sentence, its segment and the topic's question only:
    ``recall_beyond_query``, the content recall over the sentence's content tokens whose stem is not
    in the question (the content recall when every one is); ``query_share``, the share of the
    sentence's content tokens whose stem is in the question."""
    from support_features import Stems, pairs_rag24

    pairs = pairs_rag24(d)
    topics = {o["id"]: o["title"] for o in map(json.loads, (d / "topics.jsonl").open(encoding="utf-8"))}
    keys = list(zip(table.run_id, table.topic_id, table.sentence_index, table.doc_id))
    stems = Stems()
    sents = stems.encode([pairs[k][0] for k in keys])
    docs = stems.encode([pairs[k][1] for k in keys])
    qs = dict(zip(topics, stems.encode(list(topics.values()))))
    rows = []
    for k, (s, c, _, _), (ds, _, _, _) in zip(keys, sents, docs):
        q, doc = set(qs[k[1]][0].tolist()), set(ds.tolist())
        cs = [int(x) for x, f in zip(s, c) if f]
        beyond = [x for x in cs if x not in q]
        found = [x in doc for x in (beyond or cs)]
        rows.append(
            {
                "recall_beyond_query": float(np.mean(found)) if found else 0.0,
                "query_share": float(np.mean([x in q for x in cs])) if cs else 0.0,
            }
        )
    return pd.DataFrame(rows, index=table.index)


def query_section(b: Bench) -> None:
    q = query_features(b.r24, b.d)
    for c in QUERY:
        b.r24[f"f_{c}"] = q[c].to_numpy()
    print("\n## 6. Recall beyond the question's words (per citation: the sentence, its segment, the question)\n")
    extras = (("recall_beyond_query",), ("query_share",), QUERY)
    b.table("features", [(f"+ {' + '.join(e)}", FEATURES + e, Logistic, False) for e in extras])


SHRINK = 20.0  # the training citations' statistics count as this many citations of the scored topic


def shrunk_z(values: np.ndarray, sample: np.ndarray, prior_mean: float, prior_var: float, shrink: float):
    """``values`` z-scored by the mean and variance of ``sample`` pooled with a prior worth ``shrink``
    citations (0: the sample's own; a sample of one or none with no prior: 0)."""
    n = len(sample)
    if shrink <= 0 and n < 2:
        return np.zeros(len(values))
    mean = (n * (sample.mean() if n else 0.0) + shrink * prior_mean) / (n + shrink)
    var = (n * (sample.var(ddof=1) if n > 1 else 0.0) + shrink * prior_var) / (n + shrink)
    return (values - mean) / np.sqrt(var) if var > 1e-12 else np.zeros(len(values))


def offset_cv(b: "Bench", k, shrink: float, seed: int) -> tuple:
    """Figures of the shipped nine + ``recall_z_topic`` (CV by topic), the scored topic's statistics
    from ``k`` of its citations at random (``None``: all; ``"answer"``: each answer's own)."""
    r24, truth, y = b.r24, b.truth, b.y
    recall, topics, runs = r24["f_content_recall"].to_numpy(), r24["topic_id"].to_numpy(), r24["run_id"].to_numpy()
    rng = np.random.default_rng(3 + seed)
    feats = FEATURES + ("recall_z_topic",)
    pa, pf, lv = np.zeros(len(y)), np.zeros(len(y)), np.zeros(len(y), dtype=np.int64)
    x, z = xcols(r24, FEATURES), zscore(recall, topics)
    for group in folds(topics):
        test = np.isin(topics, group)
        idx = np.flatnonzero(test)
        prior = (recall[~test].mean(), recall[~test].var(ddof=1))
        zt = z.copy()
        if k == "answer":
            for run in set(runs[idx]):
                rows = idx[runs[idx] == run]
                zt[rows] = shrunk_z(recall[rows], recall[rows], *prior, shrink)
        else:
            sample = recall[idx] if k is None else recall[rng.choice(idx, min(k, len(idx)), replace=False)]
            zt[idx] = shrunk_z(recall[idx], sample, *prior, shrink)
        xf = np.column_stack([x, zt])
        m = fit(xf[~test], y[~test], {}, features=feats)
        pa[test], pf[test] = m.probabilities(xf[test])
        lv[test] = levels(pa[test], pf[test], m.p_supported, m.p_partial)
    w = weights_of(r24, pa, pf)
    a = agreement(r24, capped(r24, lv), pa, pf, w)
    return leaderboard_tau(r24, w, truth), a["run_tau"], a["exact"], a["kappa"]


def section_sensitivity(b: Bench) -> None:
    """Section 7: does the topic offset need a whole topic's citations?"""
    r24 = b.r24
    recall, topics = r24["f_content_recall"].to_numpy(), r24["topic_id"].to_numpy()
    r24["f_topic_mean_recall"] = pd.Series(recall).groupby(topics).transform("mean").to_numpy()
    print("\n## 7. How many of the topic's citations the offset needs (recall_z_topic; CV by topic)\n")
    print("The training topics' z-scores over all their citations; the scored topic's from the mean and")
    print("spread of k of its citations drawn at random (10 draws), or of the scored citation's own answer")
    print("only (what `check_answer` would have); *shrunk*: that mean and variance pooled with the training")
    print(f"citations' as if these were {SHRINK:.0f} citations (a fallback for small topics); mean figures:\n")
    print("| topic statistics of the scored topic | leaderboard run tau | labelled-reports run tau | exact | kappa |")
    print("|---|---:|---:|---:|---:|")
    for k in (None, 5, 10, 30, 60, "answer"):
        for shrink in (0.0, SHRINK):
            figures = [offset_cv(b, k, shrink, seed) for seed in range(1 if k is None or k == "answer" else 10)]
            label = {None: "all of its citations", "answer": "the citation's own answer only"}.get(k, f"{k} citations")
            label += ", shrunk" if shrink else ""
            print(f"| {label} | " + " | ".join(f"{v:.3f}" for v in np.mean(figures, axis=0)) + " |", flush=True)
    print("\nThe topic's mean content recall as a feature instead (the model weighs it freely); the")
    print("segment's length in tokens (ln, a property of the citation alone); the z-score of content recall")
    print("among the citations of the same segment (which segment, rather than which topic):\n")
    from support_features import Stems

    seg = {o["docid"]: o["segment"] for o in map(json.loads, (b.d / "segments.jsonl").open(encoding="utf-8"))}
    docs = sorted(set(r24["doc_id"]))
    length = dict(zip(docs, (len(e[0]) for e in Stems().encode([seg[k] for k in docs]))))
    r24["f_log_doc_tokens"] = np.log1p(r24["doc_id"].map(length).to_numpy(dtype=np.float64))
    r24["f_recall_z_doc"] = zscore(recall, r24["doc_id"].to_numpy())
    rows = [
        (f"+ {f}", FEATURES + (f,), Logistic, False) for f in ("topic_mean_recall", "log_doc_tokens", "recall_z_doc")
    ]
    b.table("features", rows)


def paired_bootstrap(table, y, ours: np.ndarray, theirs: np.ndarray, draws: int) -> str:
    """Exact agreement and kappa of levels ``ours`` minus ``theirs`` over topic resamples: mean
    gain and 90% interval of each."""
    from judges.meta.agreement import matrix_scores

    topics = table["topic_id"].to_numpy()
    unique = np.array(sorted(set(topics)))
    rng = np.random.default_rng(1)
    gains = []
    for _ in range(draws):
        rows = np.concatenate([np.flatnonzero(topics == t) for t in rng.choice(unique, len(unique))])
        out = []
        for lv in (ours, theirs):
            c = np.zeros((3, 3))
            np.add.at(c, (y[rows], lv[rows]), 1)
            out.append((np.mean(y[rows] == lv[rows]), matrix_scores(c)["kappa"]))
        gains.append(np.subtract(*out))
    g = np.array(gains)
    lo, hi = np.quantile(g, [0.05, 0.95], axis=0)
    m = g.mean(axis=0)
    return f"exact {m[0]:+.3f} ({lo[0]:+.3f} to {hi[0]:+.3f}), kappa {m[1]:+.3f} ({lo[1]:+.3f} to {hi[1]:+.3f})"


def shifts(b: Bench) -> None:
    """Section 5: the topic-relative features under shifts of who is judged and who trained."""
    r24, truth, y = b.r24, b.truth, b.y
    teams = r24["run_id"].str.split(".").str[0].to_numpy()
    unique_teams = np.array(sorted(set(teams)))
    cands = (("recall_z_topic",), ("recall_z_topic", "score_z_topic"), RELATIVE)
    print("\n## 5. Topic-relative features under shifts of runs and teams")
    print("\n*Half the teams judged* (the topic statistics over the citations of a random half of the 23")
    print("teams; the table, the truth and the CV restricted to them; 6 draws; mean of shipped -> with):\n")
    print("| features | leaderboard run tau | labelled-reports run tau | exact | kappa |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(2)
    rows_by = {extra: [] for extra in cands}
    for _ in range(6):
        keep = np.isin(teams, rng.choice(unique_teams, len(unique_teams) // 2, replace=False))
        t = r24[keep].reset_index(drop=True)
        tr = truth[truth.index.get_level_values(0).isin(set(t.run_id))]
        figures = {}
        for extra in ((), *cands):
            pa, pf, lv = cv(t, FEATURES + extra, relative=bool(extra))
            w = weights_of(t, pa, pf)
            a = agreement(t, capped(t, lv), pa, pf, w)
            figures[extra] = (leaderboard_tau(t, w, tr), a["run_tau"], a["exact"], a["kappa"])
        for extra in cands:
            rows_by[extra].append((figures[()], figures[extra]))
    for extra, rows in rows_by.items():
        b, o = np.mean([r[0] for r in rows], axis=0), np.mean([r[1] for r in rows], axis=0)
        print(f"| + {' + '.join(extra)} | " + " | ".join(f"{u:.3f} -> {v:.3f}" for u, v in zip(b, o)) + " |")
    print("\n*Teams held out of training* (each citation judged by a model that saw neither its topic nor")
    print("its team: 14 topic folds x 4 team folds; the topic statistics over all citations of the topic):\n")
    print("| features | leaderboard run tau | labelled-reports run tau | exact | kappa |")
    print("|---|---|---|---|---|")
    team_fold = {tm: k % 4 for k, tm in enumerate(rng.permutation(unique_teams))}
    tf = np.array([team_fold[tm] for tm in teams])
    topics = r24["topic_id"].to_numpy()
    out = {}
    for extra in ((), *cands):
        t = r24.copy()
        pa, pf, lv = np.zeros(len(y)), np.zeros(len(y)), np.zeros(len(y), dtype=np.int64)
        for group in folds(topics):
            in_topic = np.isin(topics, group)
            if extra:
                b = fit(xcols(r24[~in_topic], FEATURES), y[~in_topic], {})
                rel = relative_features(r24, logits(b, xcols(r24, FEATURES))[1])
                for c in rel:
                    t[f"f_{c}"] = rel[c].to_numpy()
            x = xcols(t, FEATURES + extra)
            for k in range(4):
                test, train = in_topic & (tf == k), ~in_topic & (tf != k)
                m = fit(x[train], y[train], {}, features=FEATURES + extra)
                pa[test], pf[test] = m.probabilities(x[test])
                lv[test] = levels(pa[test], pf[test], m.p_supported, m.p_partial)
        w = weights_of(r24, pa, pf)
        a = agreement(r24, capped(r24, lv), pa, pf, w)
        out[extra] = (leaderboard_tau(r24, w, truth), a["run_tau"], a["exact"], a["kappa"])
    for extra in cands:
        print(
            f"| + {' + '.join(extra)} | "
            + " | ".join(f"{u:.3f} -> {v:.3f}" for u, v in zip(out[()], out[extra]))
            + " |"
        )


if __name__ == "__main__":
    main()
