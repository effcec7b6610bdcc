"""Fit to the track at hand: does re-fitting the support model's calibration on a few of this
track's labels help on unseen topics (issue 39, item 3)? And a shipped word-frequency table for
rarity (item 1).

Usage::

    python bench/support_calibration.py [--data ../shared/data] [--work DIR] [--draws 10]
        [--wordfreq DIR]

rag24-support is judged once by the real CLI (default workflow; ``--work`` keeps the judgment).
Then, in this process:

1. **Calibration re-fitted on labels** (:func:`judges.support.model.recalibrated`: both
   intercepts shifted by maximum likelihood under a normal prior worth ``prior`` labels, the
   coefficients and thresholds unchanged). Every citation gets its out-of-fold logits (leave one
   topic out: the model never saw its topic); then 5% or 10% of all citations are labelled, drawn
   at random or as ``plan-assessments`` draws them (:func:`judges.attest.plan.make_plan` with its mix:
   half of largest expected gain, half at random; each label weighted by the inverse of the
   probability it was drawn with), the calibration of every fold's model re-fitted on those
   labels (they are the session's: all on topics the models never saw), and every citation judged
   again. In both arms a labelled citation takes its label, as ``--labels`` does; so the
   difference is the re-fit alone. Three label regimes: the labels as they are, and the two
   stricter ones of ``bench/support_features.py`` (30% not supported instead of 22%): *relabel*
   (partial labels turned not supported at random; taus against the relabelled labels) and *drop*
   (supported and partial citations dropped at random; leaderboard tau against the published
   truth). Means over ``--draws`` draws of the labels (and of the regime).
2. With ``--wordfreq DIR`` (a directory where the PyPI package ``wordfreq`` is installed, e.g.
   ``pip install --target DIR wordfreq``; not a dependency): rarity from its English word
   frequencies (Zipf scale, summed per stem), as features added to the shipped set: the rarest
   content stem of the sentence missing from the cited text, and the rarity-weighted recall.
   Scored cross-validated by topic and under the stricter regimes, as
   ``bench/support_features.py`` scores candidates.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from judges.formats.tables import read_assessments  # noqa: E402
from judges.meta.calibrate import agreement, folds, labelled_features  # noqa: E402
from judges.formats.labels import read_labels  # noqa: E402
from judges.attest.plan import PLAN_MIX, Quota, make_plan  # noqa: E402
from judges.support.model import fit, levels, recalibrated  # noqa: E402
from judges.core.vocabulary import FEATURES  # noqa: E402
from support_agreement import capped, expected, leaderboard_tau, read_truth  # noqa: E402
import support_features as sf  # noqa: E402

SHARES = (0.05, 0.10)
PRIORS = (5.0, 20.0, 80.0)


class Folds:
    """Out-of-fold models of rag24-support (leave one topic out) and each citation's logits."""

    def __init__(self, table: pd.DataFrame, feats=FEATURES):
        self.table, self.feats = table, feats
        self.x = sf.xcols(table, feats)
        y, topics = table["y"].to_numpy(), table["topic_id"].to_numpy()
        self.fold = np.zeros(len(y), dtype=np.int64)
        self.models = []
        for k, group in enumerate(folds(topics)):
            test = np.isin(topics, group)
            self.fold[test] = k
            self.models.append(fit(self.x[~test], y[~test], {}, features=feats))

    def judge(self, models=None, rows=None):
        """``(P(any), P(full), level)`` of ``rows`` (default all) by their folds' ``models``."""
        models = models or self.models
        rows = np.arange(len(self.table)) if rows is None else rows
        p_any, p_full, level = np.zeros(len(rows)), np.zeros(len(rows)), np.zeros(len(rows), dtype=np.int64)
        for k, m in enumerate(models):
            here = self.fold[rows] == k
            pa, pf = m.probabilities(self.x[rows[here]])
            p_any[here], p_full[here] = pa, pf
            level[here] = levels(pa, pf, m.p_supported, m.p_partial)
        return p_any, p_full, level


def with_labels(p_any, p_full, level, labelled, y):
    """What ``--labels`` does: a labelled citation takes its label (probabilities 0/1)."""
    p_any, p_full, level = p_any.copy(), p_full.copy(), level.copy()
    level[labelled] = y[labelled]
    p_any[labelled] = (y[labelled] >= 1).astype(float)
    p_full[labelled] = (y[labelled] == 2).astype(float)
    return p_any, p_full, level


def draw_labels(table, p_any, p_full, level, share, how, rng):
    """Rows labelled and their weights: ``random``, or as ``plan-assessments`` draws them."""
    n = len(table)
    k = int(round(share * n))
    if how == "random":
        return np.sort(rng.choice(n, k, replace=False)), np.ones(k)
    lv = capped(table, level)
    answered = table.groupby("run_id")["topic_id"].nunique().to_dict()
    columns = {
        "run_id": table["run_id"].to_numpy(),
        "topic_id": table["topic_id"].to_numpy(),
        "sentence_index": table["sentence_index"].to_numpy(),
        "citation_rank": np.arange(n),  # a row's own number: unique within its sentence
        "status": np.array(["unsupported", "partial", "supported"])[lv],
        "p_any": p_any,
        "p_full": p_full,
        "weight": expected(table, p_any, p_full),
    }
    quota = Quota(count=k, mix=PLAN_MIX, seed=int(rng.integers(1 << 30)))
    plan = make_plan(columns, answered, np.zeros(n, dtype=bool), quota)
    rows = np.array(sorted(key[3] for key in plan.chosen))
    by_row = {key[3]: p.probability for key, p in plan.chosen.items()}
    pi = np.array([by_row[r] for r in rows])
    return rows, 1.0 / pi


def mix_levels(p_any, p_full, y, w):
    """Levels at thresholds under which the session is judged in the mix its labels estimate
    (weighted by ``w``): the rule :func:`judges.support.model.mix_thresholds` applies to a model's
    training data, here to the session's citations and its labels' mix."""
    share_full, share_any = float(np.sum(w * (y == 2)) / w.sum()), float(np.sum(w * (y >= 1)) / w.sum())
    return levels(p_any, p_full, float(np.quantile(p_full, 1 - share_full)), float(np.quantile(p_any, 1 - share_any)))


def scores(table, truth, p_any, p_full, level, labelled, lb=True) -> dict:
    lv = capped(table, level)
    w = expected(table, p_any, p_full)
    a = agreement(table, lv, p_any, p_full, w)
    rest = np.ones(len(table), dtype=bool)
    rest[labelled] = False
    y = table["y"].to_numpy()
    out = {"lb_tau": leaderboard_tau(table, w, truth) if lb else float("nan")}
    out.update(run_tau=a["run_tau"], exact=a["exact"], kappa=a["kappa"])
    out["exact_unlabelled"] = float(np.mean(lv[rest] == y[rest]))
    return out


def regimes(table: pd.DataFrame, draws: int, share=0.30):
    """(name, rows kept, labels) per draw: as labelled; *relabel*; *drop* (see the module doc)."""
    y = table["y"].to_numpy()
    rng = np.random.default_rng(7)
    n0 = np.sum(y == 0)
    keep12 = int(round(n0 * (1 - share) / share))
    flips = int(round(share * len(y) - n0))
    for _ in range(draws):
        yield "labels as they are", np.arange(len(y)), y
        relabelled = y.copy()
        relabelled[rng.choice(np.flatnonzero(y == 1), flips, replace=False)] = 0
        yield "relabel (30% not supported)", np.arange(len(y)), relabelled
        rows = np.sort(
            np.concatenate([np.flatnonzero(y == 0), rng.choice(np.flatnonzero(y > 0), keep12, replace=False)])
        )
        yield "drop (30% not supported)", rows, y[rows]


def calibration(f: Folds, truth, draws: int) -> None:
    print("## 1. Calibration re-fitted on this track's labels (rag24-support, leave one topic out)\n")
    print(f"Means over {draws} draws. Labelled citations take their label in every arm; `exact (unlabelled)` is")
    print("over the citations not labelled. *drop*'s leaderboard tau is against the published truth;")
    print("*relabel* has none (the truth is the original labels').\n")
    print("| regime | labels | drawn | re-fit | lb run tau | run tau | exact | kappa | exact (unlabelled) |")
    print("|---|---:|---|---|---:|---:|---:|---:|---:|")
    base = f.judge()
    results: dict = {}
    rng = np.random.default_rng(11)
    for regime, rows, y in regimes(f.table, draws):
        t = f.table.iloc[rows].reset_index(drop=True)
        t["y"] = y
        pa0, pf0, lv0 = (a[rows] for a in base)
        lb = not regime.startswith("relabel")
        for share in SHARES:
            for how in ("random", "plan"):
                lab, w = draw_labels(t, pa0, pf0, lv0, share, how, rng)
                arms = {"none": (pa0, pf0, lv0)}
                for prior in PRIORS:
                    models = [recalibrated(m, f.x[rows][lab], y[lab], w, prior) for m in f.models]
                    arms[f"intercepts, prior {prior:g}"] = f.judge(models, rows)
                    if prior == 20.0:
                        pa, pf, _ = arms[f"intercepts, prior {prior:g}"]
                        arms["intercepts 20 + mix thresholds"] = (pa, pf, mix_levels(pa, pf, y[lab], w))
                arms["mix thresholds"] = (pa0, pf0, mix_levels(pa0, pf0, y[lab], w))
                for arm, (pa, pf, lv) in arms.items():
                    s = scores(t, truth, *with_labels(pa, pf, lv, lab, y), lab, lb)
                    results.setdefault((regime, share, how, arm), []).append({**s, "n": len(lab)})
    for (regime, share, how, arm), rs in results.items():
        m = {k: float(np.mean([r[k] for r in rs])) for k in rs[0]}
        lb = "" if np.isnan(m["lb_tau"]) else f"{m['lb_tau']:.3f}"
        print(
            f"| {regime} | {share:.0%} ({m['n']:.0f}) | {how} | {arm} | {lb} | {m['run_tau']:.3f} | {m['exact']:.3f} "
            f"| {m['kappa']:.3f} | {m['exact_unlabelled']:.3f} |"
        )


def wordfreq_table(path: Path) -> dict[str, float]:
    """Zipf frequency (log10 per billion words) per Snowball stem of wordfreq's English list."""
    sys.path.insert(0, str(path))
    import snowballstemmer
    import wordfreq

    freqs = wordfreq.get_frequency_dict("en", "large")
    stemmer = snowballstemmer.stemmer("english")
    words = [w for w in freqs if w[:1].isalpha()]
    per_stem: dict[str, float] = {}
    for w, s in zip(words, stemmer.stemWords(words)):
        per_stem[s] = per_stem.get(s, 0.0) + freqs[w]
    return {s: float(np.log10(v * 1e9)) for s, v in per_stem.items()}


def rarity_features(table: pd.DataFrame, pairs: dict, zipf: dict[str, float]) -> pd.DataFrame:
    """``wf_rarest_missing``: the largest rarity ``1 - zipf / 8`` (clipped to [0, 1], 1 for a stem
    not in the table) among the sentence's content stems not in the document (0 if none is missing);
    ``wf_idf_recall``: the rarity-weighted share of its content tokens found."""
    stems = sf.Stems()
    keys = list(zip(table.run_id, table.topic_id, table.sentence_index, table.doc_id))
    sents = stems.encode([pairs[k][0] for k in keys])
    docs = stems.encode([pairs[k][1] for k in keys])
    stemmer = __import__("snowballstemmer").stemmer("english")
    rare_missing, recall = [], []
    for (s, c, words, _), (ds, _, _, _) in zip(sents, docs):
        doc = set(ds.tolist())
        cw = [(int(x), w) for x, f, w in zip(s, c, words) if f]
        if not cw:
            rare_missing.append(0.0)
            recall.append(0.0)
            continue
        found = np.array([x in doc for x, _ in cw])
        stem_words = stemmer.stemWords([w if w[:1].isalpha() else "" for _, w in cw])
        r = np.array(
            [
                min(max(1 - zipf.get(st, 0.0) / 8, 0.0), 1.0) if w[:1].isalpha() else 1.0
                for st, (_, w) in zip(stem_words, cw)
            ]
        )
        rare_missing.append(float(r[~found].max()) if (~found).any() else 0.0)
        recall.append(float(r[found].sum() / r.sum()) if r.sum() > 0 else 0.0)
    table = table.copy()
    table["f_wf_rarest_missing"] = rare_missing
    table["f_wf_idf_recall"] = recall
    return table


def rarity(table, truth, pairs, path: Path) -> None:
    zipf = wordfreq_table(path)
    print(f"\n## 2. Rarity from wordfreq's English frequencies ({len(zipf)} stems)\n")
    table = rarity_features(table, pairs, zipf)
    sf.model_module.FEATURES = FEATURES + ("wf_rarest_missing", "wf_idf_recall")
    print(
        "| features | lb run tau | labelled run tau | exact | kappa | drop: lb tau | run tau | exact | kappa "
        "| relabel: run tau | exact | kappa |"
    )
    print("|---|" + "---:|" * 11)
    for extra in ((), ("wf_rarest_missing",), ("wf_idf_recall",), ("wf_rarest_missing", "wf_idf_recall")):
        feats = FEATURES + extra
        pa, pf, lv = sf.cv(table, feats)
        s, st = sf.r24_scores(table, truth, pa, pf, lv), sf.stricter(table, truth, pa, pf, lv)
        print(f"| shipped{' + ' + ' + '.join(extra) if extra else ''} | {sf.fmt(s)} | {sf.fmt(st)} |")
    bad = (table["y"] == 0).to_numpy()
    for name in ("f_wf_rarest_missing", "f_wf_idf_recall"):
        bad_mean, rest_mean = table.loc[bad, name].mean(), table.loc[~bad, name].mean()
        print(f"\n{name}: mean over not supported {bad_mean:.3f}, over the rest {rest_mean:.3f}")


def other_sets(data: Path, work: Path) -> dict:
    """WiCE dev, AttributionBench dev and factcheck-gpt, converted and judged as
    ``bench/support_features.py`` judges them (their dev splits only: the test splits are the
    acceptance check's), labelled features per set; factcheck-gpt grouped by claim."""
    sets = {}
    for title, src in (
        ("WiCE dev", data / "wice" / "claim_dev.jsonl"),
        ("AttributionBench dev", data / "attributionbench" / "dev_all_subset_balanced.jsonl"),
        ("factcheck-gpt", data / "factcheck-gpt" / "subtask3_claim_evidence_stance.jsonl"),
    ):
        conv = work / title.split()[0]
        if not (conv / "labels.jsonl").exists():
            sf.cli("convert-labelled", src, "--out-dir", conv)
        sf.judge_set(conv / "topics.jsonl", conv / "runs", work, conv.name, "--workers", "1")
        t = labelled_features(read_assessments(work, conv.name), read_labels(conv / "labels.jsonl"))
        if title == "factcheck-gpt":
            claims = {o["request_id"]: o["title"] for o in map(json.loads, (conv / "topics.jsonl").open())}
            ids = {c: f"claim{k:05d}" for k, c in enumerate(dict.fromkeys(claims.values()))}
            t["topic_id"] = [ids[claims[tid]] for tid in t["topic_id"]]
        sets[title] = t
    return sets


def regimes_as_prior(table, truth, sets: dict, weights: tuple[float, ...]) -> None:
    """Other label regimes as a light prior: their rows added to every training fold, together
    weighing ``w`` x the fold's rows (the thresholds at the track's own mix)."""
    print("\n## 3. Other label regimes as extra training rows, lightly weighted\n")
    print("Rows of the other sets together weigh w x rag24-support's training rows; each other set's")
    print("balanced accuracy (supported vs the rest) by grouped 5-fold CV on itself when it is added.\n")
    others = list(sets)
    print(
        "| w | extra data | lb run tau | labelled run tau | exact | kappa | drop: lb tau | run tau | exact | kappa "
        "| relabel: run tau | exact | kappa | " + " | ".join(f"{k} bacc" for k in others) + " |"
    )
    print("|---:|---|" + "---:|" * (11 + len(others)))
    y = table["y"].to_numpy()
    for w in weights:
        for add in ([], *[[k] for k in others], others):
            if w > weights[0] and not add:
                continue
            ex = [sets[k] for k in add]
            pa, pf, lv = sf.cv(table, FEATURES, ex, w)
            s, st = sf.r24_scores(table, truth, pa, pf, lv), sf.stricter(table, truth, pa, pf, lv)
            baccs = []
            for k in others:
                t = sets[k]
                if k in add:
                    pa2, pf2, lv2 = sf.cv_other(t, table, FEATURES, [sets[o] for o in add if o != k], w)
                else:
                    m = sf.fitted(sf.xcols(table, FEATURES), y, FEATURES, ex, w)
                    pa2, pf2 = m.probabilities(sf.xcols(t, FEATURES))
                    lv2 = levels(pa2, pf2, m.p_supported, m.p_partial)
                baccs.append(sf.binary(t, pa2, pf2, lv2)["bacc"])
            name = " + ".join(add) or "none (shipped)"
            print(f"| {w:g} | {name} | {sf.fmt(s)} | {sf.fmt(st)} | " + " | ".join(f"{b:.3f}" for b in baccs) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--data", type=Path, default=Path(os.environ.get("CITEJUDGE_SHARED", ROOT.parent / "shared")) / "data"
    )
    ap.add_argument("--work", type=Path, default=Path("/tmp/support_features"))
    ap.add_argument("--draws", type=int, default=10)
    ap.add_argument("--wordfreq", type=Path, default=None)
    ap.add_argument("--skip-calibration", action="store_true")
    ap.add_argument("--extra-weights", default="", help="e.g. 0.05,0.15: section 3 at these weights")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    d = args.data / "rag24-support"
    sf.judge_set(d / "topics.jsonl", d / "runs", args.work, "r24", "--corpus", d / "segments.jsonl")
    table = labelled_features(read_assessments(args.work, "r24"), read_labels(d / "labels.jsonl"))
    truth = read_truth(d / "truth.eval.txt")
    if not args.skip_calibration:
        calibration(Folds(table), truth, args.draws)
    if args.wordfreq is not None:
        rarity(table, truth, sf.pairs_rag24(d), args.wordfreq)
    if args.extra_weights:
        weights = tuple(float(w) for w in args.extra_weights.split(","))
        regimes_as_prior(table, truth, other_sets(args.data, args.work), weights)


if __name__ == "__main__":
    main()
