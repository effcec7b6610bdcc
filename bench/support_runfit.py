"""The support model fitted for what the leaderboard measures, and sentences about the sources (issue 39).

Usage::

    python bench/support_runfit.py [--data $CITEJUDGE_SHARED/data] [--work DIR] [--draws 20] [--boot 300]
                                   [--sections 12345]

``rag24-support`` is judged once by the real CLI (default workflow, as ``bench/support_context.py``
judges it; ``--work`` keeps the judgment). Every row is cross-validated by topic (leave one topic
out) and scored as ``bench/support_context.py`` scores its rows: leaderboard run tau from expected
weights with the grounding cap, labelled-reports run tau, exact and kappa of the capped levels; the
two stricter regimes (30% not supported, 20 draws: *drop*, *relabel*); two topic bootstraps (300) of
the gain over the shipped model's own fitting.

1. **Fit for the leaderboard.** The same nine features and the same model form (two logistic
   regressions: intercepts and coefficients, thresholds by the labels' mix), fitted by the
   per-citation log-likelihood of both regressions (L2 as the shipped fitting) plus ``lambda`` x a
   term over reports or runs of the expected weight ``w = P(any)/2 + (f - 1/2) P(full)`` (``f`` the
   full weight, 1/2 under the grounding cap), each term scaled to the number of citations:

   * ``report-sq``: squared error of each labelled report's mean ``w`` against the assessors' mean
     (label weight 1 / 0.5 / 0, every report alike);
   * ``report-pair``: logistic loss over pairs of reports of the same topic whose assessors' means
     differ, on the difference of their mean ``w`` (x 10);
   * ``run-sq``: squared error of each run's mean over its topics of the report means;
   * ``run-pair``: logistic loss over pairs of runs (as ``report-pair``).

   ``lambda`` chosen inside every outer fold by leave-one-topic-out CV over the 13 training topics
   (the leaderboard run tau of their out-of-fold weights against the published leaderboard of those
   topics), and also shown at fixed values (those rows select nothing, but the best of them is a
   selection: the inner-CV row is the honest one). Under a shift: each citation judged by a model
   that saw neither its topic nor its team (14 topic folds x 4 team folds), and WiCE dev,
   AttributionBench dev and factcheck-gpt balanced accuracy (supported vs the rest) of a model fitted
   on all of rag24-support at each ``lambda``.
2. **Sentences about the sources** (:data:`META_TALK`, one list): how many citations, their label
   mix, the shipped model's cross-validated error on them (judged minus label weight), then as a
   feature; and the count of the sentence's content words that are not the question's (few: a
   restated question), as a feature.
3. **Error analysis** of the fitted-for-the-leaderboard model against the shipped fitting: the runs
   whose rank moved.
4. **The likelihood weighted as the leaderboard weighs citations** (``fit``'s row weights): every
   labelled report alike, ``1 / sqrt`` of its citations, every run alike.
5. **Synonyms and locality**: content recall with WordNet synonyms (Debian's ``wordnet-base`` and
   ``wordnet-sense-index``, read by NLTK; bench only, neither is a dependency: the section says so
   when they are missing), and the content recall against the best two consecutive sentences of
   the segment.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.optimize import minimize

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import judges.support.model as model_module  # noqa: E402
from judges.meta.calibrate import agreement, folds  # noqa: E402
from judges.meta.correlation import kendall  # noqa: E402
from judges.support.model import L2, fit, levels, mix_thresholds, sigmoid  # noqa: E402
from judges.core.vocabulary import FEATURES  # noqa: E402
from support_agreement import capped, lacks, leaderboard_tau, topic_bootstrap  # noqa: E402
from support_calibration import other_sets  # noqa: E402
from support_context import HEADER, answers, rag24_set, line, paired_bootstrap, scores, weights_of, xcols  # noqa: E402
from support_features import binary  # noqa: E402

KINDS = ("report-sq", "report-pair", "run-sq", "run-pair")
GRIDS = {
    "report-sq": (0.0, 1.0, 3.0, 10.0, 30.0),
    "report-pair": (0.0, 0.03, 0.1, 0.3, 1.0),
    "run-sq": (0.0, 1.0, 3.0, 10.0, 30.0),
    "run-pair": (0.0, 0.03, 0.1, 0.3, 1.0),
}
PAIR_SCALE = 10.0
META_TALK = re.compile(  # a sentence that speaks about the sources rather than make a claim
    r"\baccording to the (provided |given |retrieved )?"
    r"(context|passages?|documents?|sources?|information|text|search results?)"
    r"|\b(provided|given|retrieved) (context|passages?|documents?|sources?|information|texts?|search results?)\b"
    r"|\bthe (context|passages?|documents?|sources?|search results?|information provided) (does|do|did) not\b"
    r"|\bbased on the (provided |given |available )?(information|context|passages?|documents?|sources?|search results?)"
    r"|\b(i|we) (could|can|did) ?n[o']t find\b|\bthere is no (specific |direct |explicit )?(information|mention)\b"
    r"|\b(is|are) not (explicitly |directly |specifically )?(mentioned|stated|provided|specified)\b",
    re.I,
)
TEAM_FOLDS = 4


# -- the fitting ---------------------------------------------------------------------------------
class Units:
    """What the leaderboard term sees of a training set: the report and run of every citation."""

    def __init__(self, runs: np.ndarray, topics: np.ndarray, y: np.ndarray, full_w: np.ndarray):
        n = len(y)
        reports = pd.factorize(pd.Series(list(zip(runs, topics))))[0]
        n_rep = reports.max() + 1
        count = np.bincount(reports, minlength=n_rep)
        self.report = sparse.csr_matrix((1.0 / count[reports], (reports, np.arange(n))), shape=(n_rep, n))
        rep_run = pd.factorize(pd.Series(runs))[0]
        run_of_report = np.zeros(n_rep, dtype=np.int64)
        run_of_report[reports] = rep_run
        n_run = run_of_report.max() + 1
        per_run = np.bincount(run_of_report, minlength=n_run)
        to_run = sparse.csr_matrix(
            (1.0 / per_run[run_of_report], (run_of_report, np.arange(n_rep))), shape=(n_run, n_rep)
        )
        self.run = (to_run @ self.report).tocsr()
        self.target_report = self.report @ (y / 2.0)
        self.target_run = self.run @ (y / 2.0)
        topic_of_report = np.empty(n_rep, dtype=object)
        topic_of_report[reports] = topics
        self.report_pairs = pairs(self.target_report, topic_of_report)
        self.run_pairs = pairs(self.target_run, np.zeros(n_run))
        self.full_w, self.n = full_w, n

    def term(self, kind: str, w: np.ndarray) -> tuple[float, np.ndarray]:
        """The term's value and its gradient in the citations' weights ``w``."""
        unit = self.report if kind.startswith("report") else self.run
        m = unit @ w
        if kind.endswith("sq"):
            target = self.target_report if kind.startswith("report") else self.target_run
            scale = self.n / len(m)
            r = m - target
            return scale * float(r @ r), unit.T @ (2 * scale * r)
        p = self.report_pairs if kind.startswith("report") else self.run_pairs
        if p.shape[0] == 0:
            return 0.0, np.zeros(self.n)
        d = PAIR_SCALE * (p @ m)
        scale = self.n / p.shape[0]
        value = scale * float(np.sum(np.logaddexp(0.0, -d)))
        dm = p.T @ (-scale * PAIR_SCALE * sigmoid(-d))
        return value, unit.T @ dm


def pairs(target: np.ndarray, group: np.ndarray) -> sparse.csr_matrix:
    """Rows +1 / -1 over units of the same group whose targets differ: the higher first."""
    rows, cols, vals = [], [], []
    k = 0
    for g in pd.unique(group):
        idx = np.flatnonzero(group == g)
        for a in range(len(idx)):
            for b in range(a + 1, len(idx)):
                i, j = idx[a], idx[b]
                if abs(target[i] - target[j]) < 1e-9:
                    continue
                hi, lo = (i, j) if target[i] > target[j] else (j, i)
                rows += [k, k]
                cols += [hi, lo]
                vals += [1.0, -1.0]
                k += 1
    return sparse.csr_matrix((vals, (rows, cols)), shape=(k, len(target)))


def fit_runfit(x: np.ndarray, y: np.ndarray, units: Units, kind: str, lam: float, feats=FEATURES):
    """The shipped fitting's model (:func:`judges.support.model.fit`) with its intercepts and
    coefficients re-fitted to the log-likelihood plus ``lam`` x the leaderboard term ``kind``."""
    base = fit(x, y, {}, features=feats)
    if lam <= 0:
        return base
    z = (x - base.mean) / base.scale
    n, k = z.shape
    za = np.hstack([np.ones((n, 1)), z])
    ya, yf = (y >= 1).astype(np.float64), (y == 2).astype(np.float64)
    pen = np.full(k + 1, L2)
    pen[0] = 0.0
    half_f = units.full_w - 0.5

    def objective(theta):
        wa, wf = theta[: k + 1], theta[k + 1 :]
        sa, sf = za @ wa, za @ wf
        pa, pf = sigmoid(sa), sigmoid(sf)
        nll = np.sum(np.logaddexp(0, sa) - ya * sa) + np.sum(np.logaddexp(0, sf) - yf * sf)
        nll += 0.5 * (pen @ (wa * wa) + pen @ (wf * wf))
        w = 0.5 * pa + half_f * pf
        t, dw = units.term(kind, w)
        ga = za.T @ (pa - ya + lam * dw * 0.5 * pa * (1 - pa)) + pen * wa
        gf = za.T @ (pf - yf + lam * dw * half_f * pf * (1 - pf)) + pen * wf
        return nll + lam * t, np.concatenate([ga, gf])

    theta0 = np.concatenate([[base.any_intercept], base.any_coef, [base.full_intercept], base.full_coef])
    res = minimize(objective, theta0, jac=True, method="L-BFGS-B", options={"maxiter": 500})
    data = base.to_dict()
    th = res.x
    data["p_any"] = {"intercept": float(th[0]), "coef": [float(v) for v in th[1 : k + 1]]}
    data["p_full"] = {"intercept": float(th[k + 1]), "coef": [float(v) for v in th[k + 2 :]]}
    m = model_module.SupportModel.from_dict(data)
    pa, pf = m.probabilities(x)
    ps, pp = mix_thresholds(pa, pf, y)  # the same rule as fit()
    return replace(m, p_supported=ps, p_partial=pp)


def units_of(t: pd.DataFrame) -> Units:
    return Units(t["run_id"].to_numpy(), t["topic_id"].to_numpy(), t["y"].to_numpy(), np.where(lacks(t), 0.5, 1.0))


def oof(t: pd.DataFrame, feats, kind: str, lam: float, groups=None):
    """Out-of-fold ``(P(any), P(full), level)`` over ``t``'s topics (leave one out) at ``lam``."""
    y, topics = t["y"].to_numpy(), t["topic_id"].to_numpy()
    x = xcols(t, feats)
    pa, pf, lv = np.zeros(len(y)), np.zeros(len(y)), np.zeros(len(y), dtype=np.int64)
    for group in groups if groups is not None else folds(topics):
        test = np.isin(topics, group)
        m = fit_runfit(x[~test], y[~test], units_of(t[~test]), kind, lam, feats)
        pa[test], pf[test] = m.probabilities(x[test])
        lv[test] = levels(pa[test], pf[test], m.p_supported, m.p_partial)
    return pa, pf, lv


def inner_lambda(train: pd.DataFrame, truth: pd.Series, feats, kind: str) -> float:
    """The ``lambda`` of :data:`GRIDS` whose leave-one-topic-out weights over the training topics
    rank their runs best against the published leaderboard of those topics (ties: the smaller)."""
    tr_truth = truth[truth.index.get_level_values(1).isin(set(train.topic_id))]
    best, best_tau = 0.0, -np.inf
    for lam in GRIDS[kind]:
        pa, pf, _ = oof(train, feats, kind, lam)
        tau = leaderboard_tau(train, weights_of(train, pa, pf), tr_truth)
        if tau > best_tau + 1e-9:
            best, best_tau = lam, tau
    return best


def cv_inner(r24: pd.DataFrame, truth, feats, kind: str):
    y, topics = r24["y"].to_numpy(), r24["topic_id"].to_numpy()
    x = xcols(r24, feats)
    pa, pf, lv = np.zeros(len(y)), np.zeros(len(y)), np.zeros(len(y), dtype=np.int64)
    picks = []
    for group in folds(topics):
        test = np.isin(topics, group)
        train = r24[~test].reset_index(drop=True)
        lam = inner_lambda(train, truth, feats, kind)
        picks.append(lam)
        m = fit_runfit(x[~test], y[~test], units_of(train), kind, lam, feats)
        pa[test], pf[test] = m.probabilities(x[test])
        lv[test] = levels(pa[test], pf[test], m.p_supported, m.p_partial)
    return (pa, pf, lv), picks


def team_holdout(r24, truth, feats, kind, lam, seed=2):
    """Each citation judged by a model that saw neither its topic nor its team."""
    y, topics = r24["y"].to_numpy(), r24["topic_id"].to_numpy()
    teams = r24["run_id"].str.split(".").str[0].to_numpy()
    rng = np.random.default_rng(seed)
    fold_of = {tm: k % TEAM_FOLDS for k, tm in enumerate(rng.permutation(np.array(sorted(set(teams)))))}
    tf = np.array([fold_of[tm] for tm in teams])
    x = xcols(r24, feats)
    pa, pf, lv = np.zeros(len(y)), np.zeros(len(y)), np.zeros(len(y), dtype=np.int64)
    for group in folds(topics):
        in_topic = np.isin(topics, group)
        for k in range(TEAM_FOLDS):
            test, train = in_topic & (tf == k), ~in_topic & (tf != k)
            m = fit_runfit(x[train], y[train], units_of(r24[train]), kind, lam, feats)
            pa[test], pf[test] = m.probabilities(x[test])
            lv[test] = levels(pa[test], pf[test], m.p_supported, m.p_partial)
    w = weights_of(r24, pa, pf)
    a = agreement(r24, capped(r24, lv), pa, pf, w)
    return leaderboard_tau(r24, w, truth), a["run_tau"], a["exact"], a["kappa"]


# -- the bench -----------------------------------------------------------------------------------
class Bench:
    def __init__(self, args):
        self.args = args
        self.d, self.r24, self.truth = rag24_set(args)
        self.y = self.r24["y"].to_numpy()
        self.base = self.score_row(*oof(self.r24, FEATURES, "report-sq", 0.0))

    def score_row(self, pa, pf, lv):
        w = weights_of(self.r24, pa, pf)
        return (pa, pf, lv, w), scores(self.r24, self.truth, lv, pa, pf, w, self.args.draws)

    def gains(self, p) -> str:
        r24 = self.r24
        tau = topic_bootstrap(r24, self.truth, p[3], self.base[0][3], self.args.boot)
        lv = paired_bootstrap(r24, self.y, capped(r24, p[2]), capped(r24, self.base[0][2]), self.args.boot)
        return f"{tau}; {lv}"

    def others(self):
        """The converted WiCE dev, AttributionBench dev and factcheck-gpt, judged by the CLI."""
        if not hasattr(self, "_others"):
            self._others = other_sets(self.args.data, self.args.work)
        return self._others


def section_runfit(b: Bench) -> None:
    r24, truth = b.r24, b.truth
    print("## 1. Fitted for the leaderboard (the shipped nine, the same model form; CV by topic)\n")
    print(HEADER.format("objective"))
    print(line("log-likelihood (the shipped fitting)", b.base[1]))
    chosen = {}
    for kind in KINDS:
        (pa, pf, lv), picks = cv_inner(r24, truth, FEATURES, kind)
        p, s = b.score_row(pa, pf, lv)
        chosen[kind] = picks
        print(line(f"+ lambda x {kind}, lambda by inner CV (picks {sorted(picks)})", s, b.gains(p)), flush=True)
        for lam in GRIDS[kind][1:]:
            p, s = b.score_row(*oof(r24, FEATURES, kind, lam))
            print(line(f"+ {lam} x {kind} (fixed)", s, b.gains(p)), flush=True)

    print("\n*Teams held out too* (14 topic folds x 4 team folds; the shipped fitting -> each kind at the")
    print("median of its inner-CV picks): leaderboard run tau, labelled-reports run tau, exact, kappa\n")
    shipped = team_holdout(r24, truth, FEATURES, "report-sq", 0.0)
    print("| objective | leaderboard run tau | labelled-reports run tau | exact | kappa |\n|---|---|---|---|---|")
    for kind in KINDS:
        lam = float(np.median(chosen[kind]))
        if lam <= 0:
            print(f"| {kind} | (median pick 0: the shipped fitting) |")
            continue
        o = team_holdout(r24, truth, FEATURES, kind, lam)
        print(f"| {kind}, lambda {lam:g} | " + " | ".join(f"{u:.3f} -> {v:.3f}" for u, v in zip(shipped, o)) + " |")

    print("\n*Other label regimes* (a model fitted on all of rag24-support; balanced accuracy of supported vs")
    print("the rest; thresholds by rag24-support's mix):\n")
    sets = b.others()
    print("| objective | " + " | ".join(sets) + " |\n|---|" + "---:|" * len(sets))
    x, y = xcols(r24, FEATURES), b.y
    un = units_of(r24)
    rows = [("report-sq", 0.0)] + [(k, lam) for k in KINDS for lam in GRIDS[k][1:]]
    for kind, lam in rows:
        m = fit_runfit(x, y, un, kind, lam)
        out = []
        for t in sets.values():
            pa, pf = m.probabilities(xcols(t, FEATURES))
            out.append(binary(t, pa, pf, levels(pa, pf, m.p_supported, m.p_partial))["bacc"])
        name = "log-likelihood (shipped)" if lam == 0 else f"+ {lam} x {kind}"
        print(f"| {name} | " + " | ".join(f"{v:.3f}" for v in out) + " |", flush=True)


def query_words(b: Bench) -> tuple[np.ndarray, list[str]]:
    """Per citation: ln(1 + the sentence's content tokens whose stem is not in the question), the sentence."""
    from support_features import Stems, pairs_rag24

    pr = pairs_rag24(b.d)
    topics = {o["id"]: o["title"] for o in map(json.loads, (b.d / "topics.jsonl").open(encoding="utf-8"))}
    t = b.r24
    keys = list(zip(t.run_id, t.topic_id, t.sentence_index, t.doc_id))
    stems = Stems()
    sents = stems.encode([pr[k][0] for k in keys])
    qs = dict(zip(topics, stems.encode(list(topics.values()))))
    out = []
    for k, (s, c, _, _) in zip(keys, sents):
        q = set(qs[k[1]][0].tolist())
        out.append(np.log1p(sum(1 for x, f in zip(s, c) if f and int(x) not in q)))
    return np.array(out), [pr[k][0] for k in keys]


def section_meta(b: Bench) -> None:
    r24, y = b.r24, b.y
    beyond, texts = query_words(b)
    meta = np.array([bool(META_TALK.search(s)) for s in texts])
    ans = answers(b.d)
    in_answers = sum(bool(META_TALK.search(s)) for sents in ans.values() for s, _ in sents)
    n_sent = sum(len(sents) for sents in ans.values())
    pa, pf, lv, w = b.base[0]
    err = w - y / 2.0
    lvc = capped(r24, lv)
    print("\n## 2. Sentences about the sources, restated questions (rag24-support; the shipped fitting, CV)\n")
    print(f"META_TALK matches {in_answers} of the {n_sent} answer sentences of the 45 runs, {int(meta.sum())} of")
    print("the 2,348 labelled citations.\n")
    print("| citations | n | labels S/P/N | judged S/P/N | mean judged - label weight | judged above label | exact |")
    print("|---|---:|---|---|---:|---:|---:|")
    few = beyond <= np.log1p(2)
    for name, on in (("meta-talk", meta), ("the rest", ~meta), ("<= 2 content words beyond the question", few),
                     ("all", np.ones(len(y), dtype=bool))):  # fmt: skip
        if not on.any():
            continue
        mix = "/".join(f"{np.mean(y[on] == k):.0%}" for k in (2, 1, 0))
        jm = "/".join(f"{np.mean(lvc[on] == k):.0%}" for k in (2, 1, 0))
        print(
            f"| {name} | {int(on.sum())} | {mix} | {jm} | {np.mean(err[on]):+.3f} | {np.mean(lvc[on] > y[on]):.0%} "
            f"| {np.mean(lvc[on] == y[on]):.3f} |"
        )
    print("\nThe matches, with label and judged level:\n")
    for i in np.flatnonzero(meta):
        print(f"- [{y[i]} / {lvc[i]}] {r24.run_id.iat[i]}: {texts[i][:150]!r}")
    model_module.FEATURES = tuple(FEATURES) + ("meta_talk", "log_beyond_query")
    r24["f_meta_talk"] = meta.astype(np.float64)
    r24["f_log_beyond_query"] = beyond
    print()
    print(HEADER.format("features"))
    print(line("shipped nine", b.base[1]))
    for extra in (("meta_talk",), ("log_beyond_query",), ("meta_talk", "log_beyond_query")):
        p, s = b.score_row(*oof(r24, FEATURES + extra, "report-sq", 0.0))
        print(line(f"+ {' + '.join(extra)}", s, b.gains(p)), flush=True)


def section_moved(b: Bench) -> None:
    """Section 3: which runs the leaderboard term moves (report-sq at lambda 10, CV by topic)."""
    r24, truth = b.r24, b.truth
    pa, pf, _ = oof(r24, FEATURES, "report-sq", 10.0)
    w1, w0 = weights_of(r24, pa, pf), b.base[0][3]
    keys = [r24.run_id.to_numpy(), r24.topic_id.to_numpy()]
    runs_h = truth.groupby(level=0).mean()

    def ranks(w):
        rep = pd.Series(w).groupby(keys).mean().reindex(truth.index).fillna(0.0)
        return rep.groupby(level=0).mean().reindex(runs_h.index).rank(ascending=False)

    h = runs_h.rank(ascending=False)
    r0, r1 = ranks(w0), ranks(w1)
    print("\n## 3. Runs the leaderboard term moves (report-sq, lambda 10; rank 1 = best)\n")
    tau0, tau1 = (kendall(runs_h.to_numpy(), -r.to_numpy()) for r in (r0, r1))
    print(f"run tau {tau0:.3f} -> {tau1:.3f}\n")
    print("| run | human rank | shipped fitting | fitted for the leaderboard |\n|---|---:|---:|---:|")
    moved = (r1 - r0).abs().sort_values(ascending=False)
    for run in moved.index[:12]:
        print(f"| {run} | {h[run]:.0f} | {r0[run]:.0f} | {r1[run]:.0f} |")


def row_weights(t: pd.DataFrame, how: str) -> np.ndarray:
    """Each citation's weight in the likelihood (mean 1): ``report``, every labelled report alike;
    ``sqrt``, ``1 / sqrt(citations of the report)``; ``run``, every run alike, its reports alike."""
    rep = t.groupby(["run_id", "topic_id"])["y"].transform("size").to_numpy(dtype=np.float64)
    if how == "report":
        w = 1.0 / rep
    elif how == "sqrt":
        w = 1.0 / np.sqrt(rep)
    else:
        per_run = t.groupby("run_id")["topic_id"].transform("nunique").to_numpy(dtype=np.float64)
        w = 1.0 / (rep * per_run)
    return w / w.mean()


def section_weighted(b: Bench) -> None:
    """Section 4: the likelihood with each citation weighted as the leaderboard weighs it."""
    r24, y = b.r24, b.y
    topics, x = r24["topic_id"].to_numpy(), xcols(r24, FEATURES)
    print("\n## 4. The likelihood weighted as the leaderboard weighs citations (the shipped nine; CV by topic)\n")
    print(HEADER.format("row weights"))
    print(line("none (the shipped fitting)", b.base[1]))
    for how, name in (
        ("report", "1 / citations of its report (every report alike)"),
        ("sqrt", "1 / sqrt(citations of its report)"),
        ("run", "every run alike, its reports alike"),
    ):
        pa, pf, lv = np.zeros(len(y)), np.zeros(len(y)), np.zeros(len(y), dtype=np.int64)
        for group in folds(topics):
            test = np.isin(topics, group)
            m = fit(x[~test], y[~test], {}, weights=row_weights(r24[~test], how))
            pa[test], pf[test] = m.probabilities(x[test])
            lv[test] = levels(pa[test], pf[test], m.p_supported, m.p_partial)
        p, s = b.score_row(pa, pf, lv)
        print(line(name, s, b.gains(p)), flush=True)


WORDNET = Path("/usr/share/wordnet")  # Debian's wordnet-base and wordnet-sense-index (bench only)
LEXNAMES = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body noun.cognition "
    "noun.communication noun.event noun.feeling noun.food noun.group noun.location noun.motive noun.object "
    "noun.person noun.phenomenon noun.plant noun.possession noun.process noun.quantity noun.relation noun.shape "
    "noun.state noun.substance noun.time verb.body verb.change verb.cognition verb.communication verb.competition "
    "verb.consumption verb.contact verb.creation verb.emotion verb.motion verb.perception verb.possession "
    "verb.social verb.stative verb.weather adj.ppl"
).split()


def wordnet(work: Path):
    """NLTK's WordNet reader over Debian's WordNet 3.0 files (copied with the ``lexnames`` file NLTK
    wants, the 45 lexicographer files, which Debian does not ship); ``None`` when they are missing."""
    if not (WORDNET / "data.noun").exists() or not (WORDNET / "index.sense").exists():
        return None
    import shutil

    root = work / "nltk_data" / "corpora" / "wordnet"
    root.mkdir(parents=True, exist_ok=True)
    for f in WORDNET.iterdir():
        if f.is_file():
            shutil.copy(f, root / f.name)
    kinds = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}
    (root / "lexnames").write_text("".join(f"{i:02d}\t{n}\t{kinds[n.split('.')[0]]}\n" for i, n in enumerate(LEXNAMES)))
    from nltk.corpus.reader.wordnet import WordNetCorpusReader
    import nltk.data

    nltk.data.path.insert(0, str(work / "nltk_data"))
    return WordNetCorpusReader(nltk.data.find("corpora/wordnet"), None)


SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def lexical_extra(b: Bench, wn) -> pd.DataFrame:
    """Per citation: ``synonym_recall`` (a content token counts as found when its stem, or the stem of
    a one-word WordNet synonym of it, any sense, is in the segment), ``synonym_recall_first`` (the
    same, the word's first two senses only), and ``window_recall`` (the content recall against the
    best two consecutive sentences of the segment: are the words found together, or scattered)."""
    from support_features import Stems, pairs_rag24

    pr = pairs_rag24(b.d)
    t = b.r24
    keys = list(zip(t.run_id, t.topic_id, t.sentence_index, t.doc_id))
    stems = Stems()
    sents = stems.encode([pr[k][0] for k in keys])
    docs = stems.encode([pr[k][1] for k in keys])
    words = sorted({w.lower() for s, c, toks, _ in sents for w, f in zip(toks, c) if f})
    syn_all, syn_first = {}, {}
    for w in words:
        senses = wn.synsets(w)
        for out, use in ((syn_all, senses), (syn_first, senses[:2])):
            out[w] = sorted({lem.name().lower() for sy in use for lem in sy.lemmas() if "_" not in lem.name()} - {w})
    vocab = sorted({v for d in (syn_all, syn_first) for vs in d.values() for v in vs})
    stem_of = dict(zip(vocab, (int(e[0][0]) if len(e[0]) else -1 for e in stems.encode(vocab))))
    rows = []
    for (s, c, toks, _), (ds, _, _, _), k in zip(sents, docs, keys):
        doc = set(ds.tolist())
        content = [(int(x), w.lower()) for x, f, w in zip(s, c, toks) if f]
        out = {}
        for name, syn in (("synonym_recall", syn_all), ("synonym_recall_first", syn_first)):
            found = [x in doc or any(stem_of[v] in doc for v in syn.get(w, ())) for x, w in content]
            out[name] = float(np.mean(found)) if found else 0.0
        parts = [p for p in SENTENCE_END.split(pr[k][1]) if p.strip()]
        enc = stems.encode(parts) if parts else []
        best = 0.0
        for i in range(len(enc)):
            window = set(enc[i][0].tolist()) | (set(enc[i + 1][0].tolist()) if i + 1 < len(enc) else set())
            best = max(best, float(np.mean([x in window for x, _ in content])) if content else 0.0)
        out["window_recall"] = best
        rows.append(out)
    return pd.DataFrame(rows, index=t.index)


def section_lexical(b: Bench) -> None:
    """Section 5: synonyms (WordNet) and where in the segment the words are found."""
    wn = wordnet(b.args.work)
    print("\n## 5. Synonyms and locality (each added to the shipped nine; CV by topic)\n")
    if wn is None:
        print("(not measured: Debian's wordnet-base and wordnet-sense-index are not installed)")
        return
    r24, y = b.r24, b.y
    extra = lexical_extra(b, wn)
    names = ("synonym_recall", "synonym_recall_first", "window_recall")
    model_module.FEATURES = tuple(model_module.FEATURES) + tuple(n for n in names if n not in model_module.FEATURES)
    for c in names:
        r24[f"f_{c}"] = extra[c].to_numpy()
    gain = extra["synonym_recall"].to_numpy() - r24["f_content_recall"].to_numpy()
    print("Mean by label S/P/N: " + "; ".join(
        f"{c} " + " / ".join(f"{r24[f'f_{c}'][y == k].mean():.3f}" for k in (2, 1, 0))
        for c in ("content_recall", *names)
    ) + f"; citations whose recall synonyms raise: {np.mean(gain > 0):.0%}\n")  # fmt: skip
    print(HEADER.format("features"))
    print(line("shipped nine", b.base[1]))
    for ex in (("synonym_recall",), ("synonym_recall_first",), ("window_recall",), ("synonym_recall", "window_recall")):
        p, s = b.score_row(*oof(r24, FEATURES + ex, "report-sq", 0.0))
        print(line(f"+ {' + '.join(ex)}", s, b.gains(p)), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    shared = Path(os.environ.get("CITEJUDGE_SHARED", ROOT.parent / "shared"))
    ap.add_argument("--data", type=Path, default=shared / "data")
    ap.add_argument("--work", type=Path, default=Path("/tmp/support_runfit"))
    ap.add_argument("--draws", type=int, default=20)
    ap.add_argument("--boot", type=int, default=300)
    ap.add_argument("--sections", default="12345", help="which sections to print (digits)")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    b = Bench(args)
    for k in args.sections:
        {"1": section_runfit, "2": section_meta, "3": section_moved, "4": section_weighted, "5": section_lexical}[k](b)


if __name__ == "__main__":
    main()
