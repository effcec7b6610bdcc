"""Which support features hold on unseen topics, and what other label regimes add (issue 39).

Usage::

    python bench/support_features.py [--data ../shared/data] [--work DIR]

Every set is judged once by the real CLI (default workflow; the support features are recorded
in the assessments whatever the judge): ``rag24-support`` (with its corpus), and the converted
WiCE dev, AttributionBench dev and factcheck-gpt sets (``convert-labelled``; factcheck-gpt's
completely-support -> supported, partially-support -> partially, refute and irrelevant ->
not_supported; one topic per row, grouped by claim for cross-validation). ``--work`` keeps those
judgments between runs (they do not depend on the model).

Then, in this process, with the support model's own fitting (:func:`judges.support.model.fit`):

1. **Error analysis** (the shipped feature set, cross-validated by topic): the runs whose judged
   leaderboard rank lies farthest from the human one, and what their wrongly generous citations
   have in common.
2. **Candidate features**, each added alone to the shipped set, scored cross-validated by topic on
   rag24-support (leaderboard run tau with expected weights and the grounding cap, as the
   default leaderboard; exact and kappa of the capped levels: the figures ``support_agreement.py``
   prints), and under a *stricter label regime*: supported and partial citations dropped at
   random (20 draws) until 30% of the rest are not supported, the model and its thresholds left
   as fitted on the 22% mix.
3. **Other label regimes** as extra training rows, each weighted so that its rows together weigh
   ``--extra-weight`` times rag24-support's (the thresholds still from rag24-support's mix):
   rag24-support CV by topic, and balanced accuracy (supported vs the rest) on each other set,
   CV grouped by its own topics (claims).

The IDF of a stem is ``ln((N + 1) / (df + 1))`` over the documents of WiCE, AttributionBench and
factcheck-gpt (N of them; never rag24-support's segments, so no rag24 topic informs it); a stem
in none of them has the largest IDF.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from judges.formats.tables import read_assessments  # noqa: E402
from judges.meta.agreement import matrix_scores  # noqa: E402
from judges.meta.correlation import kendall  # noqa: E402
from judges.meta.calibrate import agreement, folds, labelled_features  # noqa: E402
from judges.formats.labels import read_labels  # noqa: E402
from judges.support.features import clause_ids  # noqa: E402
from judges.support.lexicon import Lexicon  # noqa: E402
import judges.support.model as model_module  # noqa: E402
from judges.support.model import fit, levels, mix_thresholds  # noqa: E402
from judges.text.tokenize import Vocabulary  # noqa: E402
from judges.core.vocabulary import FEATURES  # noqa: E402
from support_agreement import capped, expected, leaderboard_tau, read_truth, topic_bootstrap  # noqa: E402

NEGATION = frozenset("not no never n't nor neither none nobody nothing cannot without".split())
HEDGES = frozenset("may might could possibly perhaps likely unlikely probably suggest suggests suggested".split())


def cli(*args) -> None:
    r = subprocess.run([sys.executable, "run_judge.py", *map(str, args)], cwd=ROOT, capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(r.stderr)


def judge_set(topics: Path, runs: Path, out: Path, name: str, *extra) -> None:
    if not (out / f"{name}.assessments.parquet").exists():
        cli("--rag-topics", topics, "--rag-responses", runs, "--out-dir", out, "--name", name, *extra)


def pairs_rag24(d: Path) -> dict:
    """(run, topic, sentence index, doc id) -> (sentence, document text)."""
    seg = {}
    for line in (d / "segments.jsonl").read_text(encoding="utf-8").splitlines():
        o = json.loads(line)
        seg[o["docid"]] = o["segment"]
    out = {}
    for f in sorted((d / "runs").glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            o = json.loads(line)
            for i, s in enumerate(o["answer"]):
                for c in s.get("citations", []):
                    doc = o["references"][c]
                    if doc in seg and isinstance(s.get("text"), str):
                        out[(o["run_id"], o["topic_id"], i, doc)] = (s["text"], seg[doc])
    return out


def pairs_converted(conv: Path) -> dict:
    out = {}
    for f in sorted((conv / "runs").glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            o = json.loads(line)
            m = o["metadata"]
            for i, s in enumerate(o["responses"]):
                for doc in s["citations"]:
                    out[(m["run_id"], m["topic_id"], i, doc)] = (s["text"], o["documents"][doc]["text"])
    return out


class Stems:
    """Stem ids and content flags of texts, as the judge's lexicon makes them."""

    def __init__(self):
        self.vocab, self.lexicon = Vocabulary(), Lexicon()

    def encode(self, texts: list[str]) -> list[tuple[np.ndarray, np.ndarray, list[str], np.ndarray]]:
        """Per text: stems, content flags, tokens and clause ids (:func:`clause_ids`)."""
        toks = self.vocab.encode_many(texts)
        stem, content = self.lexicon.update(self.vocab)
        words = self.vocab.tokens_from(0)
        clauses = clause_ids(texts, [t.starts for t in toks])
        bounds = np.cumsum([0] + [len(t.ids) for t in toks])
        return [
            (stem[t.ids], content[t.ids], [words[i] for i in t.ids], clauses[bounds[k] : bounds[k + 1]])
            for k, t in enumerate(toks)
        ]


def idf_table(stems: Stems, docs: list[str]) -> tuple[dict, float]:
    df: dict[int, int] = {}
    for s, _, _, _ in stems.encode(docs):
        for k in set(s.tolist()):
            df[k] = df.get(k, 0) + 1
    n = len(docs)
    return {k: float(np.log((n + 1) / (v + 1))) for k, v in df.items()}, float(np.log(n + 1))


def candidates(stems: Stems, idf: dict, idf_max: float, pairs: list[tuple[str, str]]) -> pd.DataFrame:
    """The candidate features of (sentence, document) pairs."""
    sents = stems.encode([p[0] for p in pairs])
    docs = stems.encode([p[1] for p in pairs])
    rows = []
    for (s, c, words, clauses), (ds, _, dwords, _) in zip(sents, docs):
        doc = set(ds.tolist())
        cs = [int(x) for x, f in zip(s, c) if f]
        cl = np.array([k for k, f in zip(clauses, c) if f])
        w = np.array([idf.get(x, idf_max) for x in cs]) / idf_max
        found = np.array([x in doc for x in cs], dtype=bool)
        uniq = sorted(set(cs), key=lambda x: -idf.get(x, idf_max))
        top = uniq[:3]
        neg_s = any(t in NEGATION or t.endswith("n't") for t in words)
        neg_d = any(t in NEGATION or t.endswith("n't") for t in dwords)
        rows.append(
            {
                "idf_recall": float(w[found].sum() / w.sum()) if len(w) and w.sum() > 0 else 0.0,
                "rarest_missing": float(w[~found].max()) if (~found).any() else 0.0,
                "idf_missing": float(np.log1p(w[~found].sum())) if len(w) else 0.0,
                "rare3_recall": float(np.mean([x in doc for x in top])) if top else 0.0,
                "negation_mismatch": float(neg_s and not neg_d),
                "prefix5_recall": prefix_recall(words, c, dwords),
                "modality_mismatch": float(any(t in HEDGES for t in words) != any(t in HEDGES for t in dwords)),
                "missing_count": float(np.log1p((~found).sum())),
                "all_found": float(len(cs) > 0 and bool(found.all())),
                "idf_clause_min": min(
                    (
                        float(w[(cl == k) & found].sum() / w[cl == k].sum())
                        for k in set(cl.tolist())
                        if w[cl == k].sum() > 0
                    ),
                    default=0.0,
                ),
            }
        )
    return pd.DataFrame(rows)


def prefix_recall(words: list[str], content: np.ndarray, doc_words: list[str], k: int = 5) -> float:
    """Share of the sentence's content tokens whose first ``k`` characters begin a document token
    (derivations Snowball keeps apart: adoption / adopted)."""
    prefixes = {w[:k] for w in doc_words}
    cw = [w for w, f in zip(words, content) if f]
    return float(np.mean([w[:k] in prefixes for w in cw])) if cw else 0.0


CANDIDATES = (
    "idf_recall",
    "idf_recall_session",
    "rarest_missing",
    "idf_missing",
    "rare3_recall",
    "idf_clause_min",
    "missing_count",
    "all_found",
    "negation_mismatch",
    "prefix5_recall",
    "modality_mismatch",
)
model_module.FEATURES = FEATURES + CANDIDATES  # let the model file name the candidates (this bench only)


def with_candidates(table: pd.DataFrame, pairs: dict, stems: Stems, idf, idf_max) -> pd.DataFrame:
    """``table`` with the candidate features; ``idf_recall_session``: ``idf_recall`` with the IDF
    over the set's own documents (what the session's corpus would give)."""
    item = table["item_id"] if "item_id" in table else table["topic_id"]
    keys = list(zip(table.run_id, item, table.sentence_index, table.doc_id))
    cand = candidates(stems, idf, idf_max, [pairs[k] for k in keys])
    for col in CANDIDATES:
        if col in cand:
            table[f"f_{col}"] = cand[col].to_numpy()
    session = idf_table(stems, sorted({doc for _, doc in pairs.values()}))
    table["f_idf_recall_session"] = candidates(stems, *session, [pairs[k] for k in keys])["idf_recall"].to_numpy()
    return table


def xcols(table: pd.DataFrame, feats) -> np.ndarray:
    return table[[f"f_{f}" for f in feats]].to_numpy(dtype=np.float64)


def cv(table: pd.DataFrame, feats, extra=(), extra_weight=0.0):
    """Out-of-fold P(any), P(full), level over ``table``'s topic folds; ``extra``: tables of other
    sets added to every training fold, together weighing ``extra_weight`` x the fold's rows."""
    x, y, topics = xcols(table, feats), table["y"].to_numpy(), table["topic_id"].to_numpy()
    p_any, p_full, level = np.zeros(len(y)), np.zeros(len(y)), np.zeros(len(y), dtype=np.int64)
    for group in folds(topics):
        test = np.isin(topics, group)
        model = fitted(x[~test], y[~test], feats, extra, extra_weight)
        p_any[test], p_full[test] = model.probabilities(x[test])
        level[test] = levels(p_any[test], p_full[test], model.p_supported, model.p_partial)
    return p_any, p_full, level


def fitted(x, y, feats, extra=(), extra_weight=0.0):
    """A model on (x, y), plus ``extra`` tables weighted to ``extra_weight`` x len(y) in all; the
    thresholds at (x, y)'s own mix."""
    if not extra or extra_weight <= 0:
        return fit(x, y, {}, features=feats)
    xs, ys, ws = [x], [y], [np.ones(len(y))]
    for t in extra:
        xs.append(xcols(t, feats))
        ys.append(t["y"].to_numpy())
        ws.append(np.full(len(t), extra_weight * len(y) / len(extra) / len(t)))
    model = fit(np.vstack(xs), np.concatenate(ys), {}, features=feats, weights=np.concatenate(ws))
    model.p_supported, model.p_partial = mix_thresholds(*model.probabilities(x), y)
    return model


def r24_scores(table, truth, p_any, p_full, level) -> dict:
    lv = capped(table, level)
    w = expected(table, p_any, p_full)
    a = agreement(table, lv, p_any, p_full, w)
    return {
        "lb_tau": leaderboard_tau(table, w, truth),
        "run_tau": a["run_tau"],
        "exact": a["exact"],
        "kappa": a["kappa"],
    }


def stricter(table, truth, p_any, p_full, level, share=0.30, draws=20) -> dict:
    """Mean scores over draws of a stricter label regime, ``share`` of the citations not supported:
    ``drop``: supported/partial rows dropped at random (leaderboard tau against the published
    truth); ``relabel``: partial labels turned into not supported at random (the same citations,
    harsher assessors; taus against the relabelled labels only, so no leaderboard tau). The model
    and its thresholds stay as fitted on the 22% mix."""
    y = table["y"].to_numpy()
    n0, n12 = np.sum(y == 0), np.sum(y > 0)
    keep12 = int(round(n0 * (1 - share) / share))
    flips = int(round(share * len(y) - n0))
    rng = np.random.default_rng(0)
    drop, relabel = [], []
    for _ in range(draws):
        pos = np.flatnonzero(y > 0)
        rows = np.sort(np.concatenate([np.flatnonzero(y == 0), rng.choice(pos, min(keep12, n12), replace=False)]))
        t = table.iloc[rows].reset_index(drop=True)
        drop.append(r24_scores(t, truth, p_any[rows], p_full[rows], level[rows]))
        t = table.copy()
        t.loc[rng.choice(np.flatnonzero(y == 1), flips, replace=False), "y"] = 0
        a = agreement(t, capped(t, level), p_any, p_full, expected(t, p_any, p_full))
        relabel.append({"run_tau": a["run_tau"], "exact": a["exact"], "kappa": a["kappa"]})
    mean = lambda rows: {k: float(np.mean([o[k] for o in rows])) for k in rows[0]}  # noqa: E731
    return {**mean(drop), **{f"relabel_{k}": v for k, v in mean(relabel).items()}}


def refit_thresholds(table, p_any, p_full, level, n_topics, share=0.30, draws=20) -> dict:
    """Item 3 of the issue: labels of this track re-fit the thresholds. Under the *relabel*
    regime of :func:`stricter`, each topic is judged at thresholds re-fitted
    (:func:`judges.support.model.mix_thresholds`) to the relabelled labels of ``n_topics`` other
    topics (drawn at random; 0: the model's own thresholds), from those citations' cross-validated
    probabilities. Mean scores over draws, and the mean number of labels used."""
    y = table["y"].to_numpy()
    topics = table["topic_id"].to_numpy()
    unique = np.array(sorted(set(topics)))
    flips = int(round(share * len(y) - np.sum(y == 0)))
    rng = np.random.default_rng(0)
    out, used = [], []
    for _ in range(draws):
        t = table.copy()
        t.loc[rng.choice(np.flatnonzero(y == 1), flips, replace=False), "y"] = 0
        ys, lv = t["y"].to_numpy(), level.copy()
        for g in unique:
            test = topics == g
            if n_topics:
                others = rng.choice(unique[unique != g], n_topics, replace=False)
                lab = np.isin(topics, others)
                used.append(int(lab.sum()))
                ps, pp = mix_thresholds(p_any[lab], p_full[lab], ys[lab])
                lv[test] = levels(p_any[test], p_full[test], ps, pp)
        a = agreement(t, capped(t, lv), p_any, p_full, expected(t, p_any, p_full))
        out.append({"run_tau": a["run_tau"], "exact": a["exact"], "kappa": a["kappa"]})
    mean = {k: float(np.mean([o[k] for o in out])) for k in out[0]}
    return {**mean, "labels": float(np.mean(used)) if used else 0.0}


def binary(table, p_any, p_full, level) -> dict:
    y = table["y"].to_numpy() == 2
    j = capped(table, level) == 2
    confusion = np.zeros((2, 2))
    np.add.at(confusion, (y.astype(int), j.astype(int)), 1)
    tpr = confusion[1, 1] / max(confusion[1].sum(), 1)
    tnr = confusion[0, 0] / max(confusion[0].sum(), 1)
    return {"bacc": (tpr + tnr) / 2, "kappa": matrix_scores(confusion)["kappa"]}


def fmt(d: dict) -> str:
    return " | ".join(f"{v:.3f}" for v in d.values())


def error_analysis(r24, truth, base, pairs: dict):
    """Section 1 (``pairs``: the sentence and document of each citation key); the shipped
    features' cross-validated ``(P(any), P(full), level)``."""
    # 1. error analysis
    p_any, p_full, level = cv(r24, base)
    w = expected(r24, p_any, p_full)
    keys = [r24["run_id"].to_numpy(), r24["topic_id"].to_numpy()]
    judged = pd.Series(w).groupby(keys).mean().reindex(truth.index).fillna(0.0).groupby(level=0).mean()
    human = truth.groupby(level=0).mean()
    err = pd.DataFrame({"human": human, "judged": judged.reindex(human.index)})
    err["rank_h"], err["rank_j"] = err.human.rank(ascending=False), err.judged.rank(ascending=False)
    err["over"] = err.judged - err.human
    err["rank_diff"] = err.rank_h - err.rank_j
    print("## 1. Largest run-level errors (shipped features, CV by topic; judged = expected weights)\n")
    n_cited = r24.groupby("run_id").size()
    print("| run | labelled citations | human WP | judged WP | judged - human | human rank | judged rank |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    worst = err.reindex(err.rank_diff.abs().sort_values(ascending=False).index).head(8)
    for run, r in worst.iterrows():
        print(
            f"| {run} | {n_cited.get(run, 0)} | {r.human:.3f} | {r.judged:.3f} | {r.over:+.3f} "
            f"| {r.rank_h:.0f} | {r.rank_j:.0f} |"
        )
    print(
        f"\nLabelled citations per run: median {n_cited.median():.0f}; the 8 runs above: median "
        f"{n_cited.reindex(worst.index).median():.0f}. Kendall tau between a run's labelled citations and "
        f"its absolute rank error: {kendall(n_cited.reindex(err.index).to_numpy(), err.rank_diff.abs().to_numpy()):.3f}."  # noqa: E501
    )
    y = r24["y"].to_numpy()
    generous = (y == 0) & (capped(r24, level) == 2)
    right = (y == 0) & (capped(r24, level) == 0)
    supported = (y == 2) & (capped(r24, level) == 2)
    print("\nCitations labelled not supported: judged supported (too generous) vs judged unsupported, and")
    print("citations rightly judged supported, mean of each feature:\n")
    print("| feature | NS judged S | NS judged N | S judged S |")
    print("|---|---:|---:|---:|")
    for f in (*base, *CANDIDATES):
        col = r24[f"f_{f}"].to_numpy()
        print(f"| {f} | {col[generous].mean():.3f} | {col[right].mean():.3f} | {col[supported].mean():.3f} |")
    lv_c = capped(r24, level)
    y_all = r24["y"].to_numpy()
    for title, runs, sign in (
        ("judged >= 10 places better than the humans rank them", err[err.rank_diff >= 10].index, 1),
        ("judged >= 10 places worse than the humans rank them", err[err.rank_diff <= -10].index, -1),
    ):
        inr = np.isin(r24.run_id.to_numpy(), runs)
        full = y_all == 2
        print(
            f"\nRuns {title}: {', '.join(runs)}; of their {int(inr.sum())} labelled citations "
            f"{np.mean(lv_c[inr] < y_all[inr]):.0%} judged below the label and {np.mean(lv_c[inr] > y_all[inr]):.0%} "
            f"above (all runs: {np.mean(lv_c < y_all):.0%} / {np.mean(lv_c > y_all):.0%}); content recall of "
            f"their fully supported citations {r24.f_content_recall[inr & full].mean():.2f} "
            f"(all runs: {r24.f_content_recall[full].mean():.2f})."
        )
        wrong = r24[inr & (np.sign(lv_c - y_all) == sign)].head(4)
        for k, r in zip(wrong.index, wrong.itertuples()):
            text = pairs[(r.run_id, r.topic_id, r.sentence_index, r.doc_id)][0]
            print(f"  - label {r.y}, judged {lv_c[k]}, content recall {r.f_content_recall:.2f}: {text[:150]!r}")
    over_runs = err[err.rank_diff > 0].index  # judged better than humans rank them
    in_over = np.isin(r24.run_id.to_numpy(), over_runs)
    recall = r24["f_content_recall"].to_numpy()
    print(
        f"\n{int(generous.sum())} citations labelled not supported are judged supported "
        f"({int((generous & in_over).sum())} in the {len(over_runs)} runs judged better than the humans rank them); "
        f"{np.mean(recall[generous] >= 0.8):.0%} of them have content recall >= 0.8 "
        f"(of the rightly supported: {np.mean(recall[supported] >= 0.8):.0%}), and their rarest missing word "
        f"is no rarer than the rightly supported citations' (table above)."
    )

    return p_any, p_full, level


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--work", type=Path, default=Path("/tmp/support_features"))
    ap.add_argument("--extra-weight", type=float, default=0.5)
    args = ap.parse_args()
    data, work = args.data, args.work
    work.mkdir(parents=True, exist_ok=True)

    d = data / "rag24-support"
    judge_set(d / "topics.jsonl", d / "runs", work, "r24", "--corpus", d / "segments.jsonl")
    r24 = labelled_features(read_assessments(work, "r24"), read_labels(d / "labels.jsonl"))
    truth = read_truth(d / "truth.eval.txt")
    sets = {}
    for title, src in (
        ("WiCE dev", data / "wice" / "claim_dev.jsonl"),
        ("AttributionBench dev", data / "attributionbench" / "dev_all_subset_balanced.jsonl"),
        ("factcheck-gpt", data / "factcheck-gpt" / "subtask3_claim_evidence_stance.jsonl"),
    ):
        conv = work / title.split()[0]
        if not (conv / "labels.jsonl").exists():
            cli("convert-labelled", src, "--out-dir", conv)
        judge_set(conv / "topics.jsonl", conv / "runs", work, conv.name, "--workers", "2")
        t = labelled_features(read_assessments(work, conv.name), read_labels(conv / "labels.jsonl"))
        if title == "factcheck-gpt":  # group by claim (the topic's title): a claim's passages share a fold
            claims = {o["request_id"]: o["title"] for o in map(json.loads, (conv / "topics.jsonl").open())}
            ids = {c: f"claim{k:05d}" for k, c in enumerate(dict.fromkeys(claims.values()))}
            t["item_id"] = t["topic_id"]
            t["topic_id"] = [ids[claims[tid]] for tid in t["topic_id"]]
        sets[title] = (t, pairs_converted(conv))

    stems = Stems()
    docs = sorted({doc for _, p in sets.values() for _, doc in p.values()})
    idf, idf_max = idf_table(stems, docs)
    print(f"IDF table: {len(docs)} documents of WiCE, AttributionBench, factcheck-gpt; {len(idf)} stems\n")
    r24_pairs = pairs_rag24(d)
    r24 = with_candidates(r24, r24_pairs, stems, idf, idf_max)
    sets = {k: with_candidates(t, p, stems, idf, idf_max) for k, (t, p) in sets.items()}

    base = FEATURES
    p_any, p_full, level = error_analysis(r24, truth, base, r24_pairs)

    # 2. candidates alone
    print("\n## 2. Candidate features, each added to the shipped set (rag24-support, CV by topic)\n")
    print("Stricter regime, 30% not supported, model as fitted (20 draws): *drop*: S/P rows dropped at random;")
    print("*relabel*: partial labels turned not supported at random (taus against the relabelled labels).\n")
    print(
        "| features | lb run tau | labelled run tau | exact | kappa | drop: lb tau | run tau | exact | kappa "
        "| relabel: run tau | exact | kappa |"
    )
    print("|---|" + "---:|" * 11)
    results = {}
    weights = {}
    for extra_f in ((), *((c,) for c in CANDIDATES), ("idf_recall", "rarest_missing")):
        feats = base + extra_f
        pa, pf, lv = cv(r24, feats)
        s, st = r24_scores(r24, truth, pa, pf, lv), stricter(r24, truth, pa, pf, lv)
        results[extra_f] = s
        weights[extra_f] = expected(r24, pa, pf)
        print(f"| shipped{' + ' + ' + '.join(extra_f) if extra_f else ''} | {fmt(s)} | {fmt(st)} |")

    print("\nEach shipped feature left out (prefer deleting): lb run tau | labelled run tau | exact | kappa\n")
    for drop in base:
        pa, pf, lv = cv(r24, tuple(f for f in base if f != drop))
        print(f"- without {drop}: {fmt(r24_scores(r24, truth, pa, pf, lv))}")

    for extra_f in (("idf_recall_session",), ("idf_recall", "rarest_missing")):
        gain = topic_bootstrap(r24, truth, weights[extra_f], weights[()])
        print(f"\nLeaderboard run tau, shipped + {' + '.join(extra_f)} minus shipped, 300 topic resamples: {gain}")

    # nested: forward selection by inner CV log-likelihood inside each outer topic fold
    print("\nNested (selection inside each outer fold by inner-CV log-likelihood):")
    nested(r24, truth, base)

    print("\n## 2b. Thresholds re-fitted to a stricter track's own labels (shipped features, relabel regime)\n")
    print("| labelled topics re-fitting the thresholds | labels (mean) | run tau | exact | kappa |")
    print("|---:|---:|---:|---:|---:|")
    for n_topics in (0, 1, 3, 13):
        r = refit_thresholds(r24, p_any, p_full, level, n_topics)
        print(f"| {n_topics} | {r['labels']:.0f} | {r['run_tau']:.3f} | {r['exact']:.3f} | {r['kappa']:.3f} |")
    a = agreement(r24, capped(r24, level), p_any, p_full, expected(r24, p_any, p_full))
    print(f"| (no shift: rag24-support's own labels) | | {a['run_tau']:.3f} | {a['exact']:.3f} | {a['kappa']:.3f} |")

    # 3. other regimes
    print(
        "\n## 3. Other label regimes as extra training rows (weight: extra rows together = "
        f"{args.extra_weight} x the track's)\n"
    )
    feats_list = {"shipped": base, "shipped + idf_recall + rarest_missing": base + ("idf_recall", "rarest_missing")}
    others = list(sets)
    header = " | ".join(f"{k} bacc" for k in others)
    print(f"| features | extra data | lb run tau | labelled run tau | exact | kappa | {header} |")
    print("|---|---|---:|---:|---:|---:|" + "---:|" * len(others))
    for fname, feats in feats_list.items():
        for add in ([], *[[k] for k in others], others):
            ex = [sets[k] for k in add]
            pa, pf, lv = cv(r24, feats, ex, args.extra_weight)
            s = r24_scores(r24, truth, pa, pf, lv)
            baccs = []
            for k in others:
                t = sets[k]
                if k in add:  # grouped CV on the set itself: its test fold never trained on
                    rest = [sets[o] for o in add if o != k]
                    pa2, pf2, lv2 = cv_other(t, r24, feats, rest, args.extra_weight)
                else:
                    m = fitted(xcols(r24, feats), r24["y"].to_numpy(), feats, ex, args.extra_weight)
                    pa2, pf2 = m.probabilities(xcols(t, feats))
                    lv2 = levels(pa2, pf2, m.p_supported, m.p_partial)
                baccs.append(binary(t, pa2, pf2, lv2)["bacc"])
            print(
                f"| {fname} | {' + '.join(add) or 'none'} | {fmt(s)} | " + " | ".join(f"{b:.3f}" for b in baccs) + " |"
            )


def cv_other(t, r24, feats, rest, weight, n_folds=5):
    """Out-of-fold predictions on set ``t`` (grouped by its topics into ``n_folds``), each from a
    model on all of rag24-support plus ``t``'s other folds and ``rest``."""
    topics = t["topic_id"].to_numpy()
    unique = np.array(sorted(set(topics)))
    x = xcols(t, feats)
    p_any, p_full, level = np.zeros(len(t)), np.zeros(len(t)), np.zeros(len(t), dtype=np.int64)
    for k in range(n_folds):
        test = np.isin(topics, unique[k::n_folds])
        m = fitted(xcols(r24, feats), r24["y"].to_numpy(), feats, [t[~test], *rest], weight)
        p_any[test], p_full[test] = m.probabilities(x[test])
        level[test] = levels(p_any[test], p_full[test], m.p_supported, m.p_partial)
    return p_any, p_full, level


def loglik(table, feats, inner_topics) -> float:
    x, y, topics = xcols(table, feats), table["y"].to_numpy(), table["topic_id"].to_numpy()
    ll = 0.0
    for g in inner_topics:
        test = topics == g
        m = fit(x[~test], y[~test], {}, features=feats)
        pa, pf = m.probabilities(x[test])
        pa, pf = np.clip(pa, 1e-6, 1 - 1e-6), np.clip(pf, 1e-6, 1 - 1e-6)
        ya, yf = y[test] >= 1, y[test] == 2
        ll += np.sum(np.where(ya, np.log(pa), np.log(1 - pa))) + np.sum(np.where(yf, np.log(pf), np.log(1 - pf)))
    return ll


def nested(r24, truth, base) -> None:
    topics = r24["topic_id"].to_numpy()
    p_any, p_full, level = np.zeros(len(r24)), np.zeros(len(r24)), np.zeros(len(r24), dtype=np.int64)
    chosen_all = []
    for group in folds(topics):
        test = np.isin(topics, group)
        train = r24[~test].reset_index(drop=True)
        inner = sorted(set(train.topic_id))
        feats, best = base, loglik(train, base, inner)
        while True:
            trial = [(loglik(train, feats + (c,), inner), c) for c in CANDIDATES if c not in feats]
            if not trial:
                break
            ll, c = max(trial)
            if ll <= best + 1.0:  # a feature must improve the inner log-likelihood by more than 1
                break
            feats, best = feats + (c,), ll
        chosen_all.append(feats[len(base) :])
        m = fit(xcols(train, feats), train["y"].to_numpy(), {}, features=feats)
        xt = xcols(r24[test], feats)
        p_any[test], p_full[test] = m.probabilities(xt)
        level[test] = levels(p_any[test], p_full[test], m.p_supported, m.p_partial)
    s = r24_scores(r24, truth, p_any, p_full, level)
    print(f"  scores {s}")
    counts = pd.Series([c for ch in chosen_all for c in ch]).value_counts().to_dict()
    print(f"  chosen in the 14 outer folds: {counts}")


if __name__ == "__main__":
    main()
