"""Seeded synthetic workload for benchmarking the citation judge.

Usage::

    python bench/workload.py --size small --out bench/workloads/small/ [--seed 13]

writes, into ``--out``:

``topics.jsonl``
    ``{"request_id": "t0001", "title": "..."}`` per topic.
``corpus.jsonl.gz``
    ``{"doc_id", "title", "text"}`` per document. Text is 300-3000 pseudo-words drawn from a
    Zipfian vocabulary (30,000 words, exponent 1.1, words built from syllables), written as
    sentences of 8-35 words with a capitalised first word and a period, some commas and now and
    then a number such as ``3.5``, ``1,200``, ``1998`` or ``12%``.
``runs/run-XXX.jsonl``
    TREC RAG 2025 shaped reports, one line per topic::

        {"metadata": {"team_id": "bench", "run_id": "run-007", "narrative_id": "t0001"},
         "references": [doc ids], "answer": [{"text": "...", "citations": [ints]}]}

    Every answer sentence (15-40 tokens) cites 1-3 indices into ``references`` and is
    a verbatim copy of a span of one cited document (40 %), a paraphrase of such a span with
    30-50 % token edits (40 %), or unrelated random text (20 %). About 5 % of all sentences
    (drawn among the copies and paraphrases) fuse the end of one document sentence with the
    start of the next.
``manifest.json``
    Size, seed, parameters and counts computed while writing.
``truth.jsonl.gz`` (only with ``--truth``)
    What each answer sentence was made from, for checking a judge's verdicts.

Determinism: only ``numpy.random.Generator(PCG64(...))`` is used. The vocabulary comes from
``PCG64(seed)``, topic ``t``'s documents from ``PCG64([seed, 1, t])`` and run ``r``'s report for
topic ``t`` from ``PCG64([seed, 2, t, r])``. Output is byte-identical for the same seed (gzip
header has mtime 0 and no file name), and workloads nest: for one seed, a workload with fewer
topics/runs is exactly the first topics/runs of a bigger one (``small`` is the first 50 topics x
10 runs of ``medium``), so a prefix can stand in as a subset.

Generation streams: one topic's documents are held at a time and each report is written as soon
as it is made.

A "verbatim" copy keeps the document's word tokens exactly; only the sentence frame changes
(first letter capitalised, trailing comma/period replaced by a final period; in a fused
sentence the inner period is dropped and the next sentence's first word lower-cased).
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.random import PCG64, Generator

GENERATOR_VERSION = 1

# ---------------------------------------------------------------------------------------------
# Sizes and parameters
# ---------------------------------------------------------------------------------------------

#: topics x runs. Expected citations = topics * runs * 10 sentences * 2 citations.
SIZES: dict[str, tuple[int, int]] = {
    "tiny": (5, 4),  # ~400 citations, for tests
    "small": (50, 10),  # ~1e4 citations
    "medium": (200, 25),  # ~1e5 citations
    "large": (1000, 50),  # ~1e6 citations, corpus ~230 MB uncompressed
    "segments": (60, 20),  # ~2.4e4 citations of short segments: a judged track of MS MARCO v2.1 segments
}

VOCAB_SIZE = 30_000
ZIPF_EXPONENT = 1.1
POOL_MIN, POOL_MAX = 20, 40  # documents per topic
DOC_WORDS_MIN, DOC_WORDS_MAX = 300, 3000  # log-uniform target; last sentence is kept whole
DOC_SENT_MIN, DOC_SENT_MAX = 8, 35


@dataclass(frozen=True)
class Shape:
    """The documents of a workload: how many per topic, and how long."""

    pool: tuple[int, int]  # documents per topic
    doc_words: tuple[int, int]  # log-uniform target length in words (last sentence kept whole)
    doc_sentence_words: tuple[int, int]


#: ``documents``: long synthetic documents (the sizes tiny ... large); ``segments``: short
#: passages of 100-300 words, more per topic, so each is cited several times (the shape of the
#: MS MARCO v2.1 segments real TREC RAG runs cite).
SHAPES = {
    "documents": Shape((POOL_MIN, POOL_MAX), (DOC_WORDS_MIN, DOC_WORDS_MAX), (DOC_SENT_MIN, DOC_SENT_MAX)),
    "segments": Shape((40, 80), (100, 300), (DOC_SENT_MIN, DOC_SENT_MAX)),
}


def shape_of(size: str) -> Shape:
    return SHAPES["segments" if size == "segments" else "documents"]


TOPIC_WORDS = 40  # per-topic content words, mixed into that topic's documents
TOPIC_WORD_RATE = 0.06
COMMA_RATE = 0.06
NUMBER_RATE = 0.012
REFS_MIN, REFS_MAX = 8, 20  # references per report (subset of the topic pool)
REPORT_SENT_MIN, REPORT_SENT_MAX = 5, 15
ANSWER_TOK_MIN, ANSWER_TOK_MAX = 15, 40
CITES_MIN, CITES_MAX = 1, 3
P_VERBATIM, P_PARAPHRASE = 0.4, 0.4  # rest unrelated
P_FUSED = 0.05  # of all sentences
EDIT_MIN, EDIT_MAX = 0.30, 0.50

_ONSETS = (
    "",
    "",
    "b",
    "c",
    "d",
    "f",
    "g",
    "h",
    "j",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "w",
    "z",
    "br",
    "cr",
    "dr",
    "fl",
    "gr",
    "pl",
    "pr",
    "st",
    "tr",
    "sh",
    "ch",
    "th",
    "qu",
)
_VOWELS = ("a", "e", "i", "o", "u", "a", "e", "o", "ai", "ea", "io", "ou", "y")
_CODAS = ("", "", "", "n", "r", "s", "l", "m", "t", "nd", "st", "rk", "x", "ng")


# ---------------------------------------------------------------------------------------------
# Vocabulary
# ---------------------------------------------------------------------------------------------


@dataclass
class Vocab:
    words: list[str]
    cdf: np.ndarray  # Zipf CDF over ranks, float64
    # surface table: variant * V + id, variants: plain, Cap, plain",", Cap",", plain".", Cap"."
    table: np.ndarray = field(repr=False)

    @property
    def size(self) -> int:
        return len(self.words)

    def sample(self, rng: Generator, n: int) -> np.ndarray:
        idx = np.searchsorted(self.cdf, rng.random(n), side="right")
        return np.minimum(idx, len(self.words) - 1)


def _syllable_count(rank: int, rng: Generator) -> int:
    # Frequent words are short, rare words long (roughly like natural language).
    if rank < 120:
        return 1
    if rank < 1500:
        return 1 + int(rng.random() < 0.8)
    if rank < 12000:
        return 2 + int(rng.random() < 0.6)
    return 3 + int(rng.random() < 0.5)


def build_vocab(seed: int, size: int = VOCAB_SIZE, exponent: float = ZIPF_EXPONENT) -> Vocab:
    """Deterministic pseudo-words from syllables; rank 0 is the most frequent."""
    rng = Generator(PCG64(seed))
    seen: set[str] = set()
    words: list[str] = []
    no, nv, nc = len(_ONSETS), len(_VOWELS), len(_CODAS)
    while len(words) < size:
        rank = len(words)
        nsyl = _syllable_count(rank, rng)
        for _attempt in range(50):
            picks = rng.integers(0, [no, nv, nc] * nsyl)
            w = "".join(
                _ONSETS[picks[3 * s]] + _VOWELS[picks[3 * s + 1]] + _CODAS[picks[3 * s + 2]] for s in range(nsyl)
            )
            if len(w) >= 2 and w not in seen:
                break
            if _attempt % 10 == 9:  # crowded length: go longer
                nsyl += 1
        else:  # pragma: no cover - 50 collisions in a row does not happen with these tables
            raise RuntimeError("could not build vocabulary")
        seen.add(w)
        words.append(w)
    ranks = np.arange(1, size + 1, dtype=np.float64)
    p = ranks**-exponent
    cdf = np.cumsum(p / p.sum())
    cdf[-1] = 1.0
    caps = [w[0].upper() + w[1:] for w in words]
    table = np.array(
        words
        + caps
        + [w + "," for w in words]
        + [w + "," for w in caps]
        + [w + "." for w in words]
        + [w + "." for w in caps],
        dtype=object,
    )
    return Vocab(words=words, cdf=cdf, table=table)


# ---------------------------------------------------------------------------------------------
# Documents
# ---------------------------------------------------------------------------------------------


@dataclass
class Doc:
    doc_id: str
    title: str
    tokens: list[str]  # surface tokens (punctuation attached), " ".join(tokens) == text
    sent_starts: np.ndarray  # start token of each sentence, plus len(tokens) at the end


def _number(rng: Generator) -> str:
    kind = rng.integers(0, 5)
    if kind == 0:
        return str(int(rng.integers(2, 100)))
    if kind == 1:
        return f"{int(rng.integers(0, 100))}.{int(rng.integers(0, 10))}"
    if kind == 2:
        return f"{int(rng.integers(1, 100))},{int(rng.integers(0, 1000)):03d}"
    if kind == 3:
        return str(int(rng.integers(1850, 2031)))
    return f"{int(rng.integers(1, 100))}%"


def _title(rng: Generator, vocab: Vocab, topic_ids: np.ndarray, lo: int, hi: int) -> list[str]:
    n = int(rng.integers(lo, hi + 1))
    ids = np.where(rng.random(n) < 0.6, topic_ids[rng.integers(0, len(topic_ids), n)], vocab.sample(rng, n))
    words = [vocab.words[i] for i in ids]
    words[0] = words[0][0].upper() + words[0][1:]
    return words


def make_topic_docs(vocab: Vocab, seed: int, topic: int, shape: Shape = SHAPES["documents"]) -> tuple[str, list[Doc]]:
    """Title and document pool of topic ``topic`` (1-based)."""
    rng = Generator(PCG64([seed, 1, topic]))
    V = vocab.size
    topic_ids = rng.integers(150, 12000, TOPIC_WORDS)
    title = " ".join(_title(rng, vocab, topic_ids, 4, 9)) + "?"
    pool = int(rng.integers(shape.pool[0], shape.pool[1] + 1))
    docs: list[Doc] = []
    (words_min, words_max), (sent_min, sent_max) = shape.doc_words, shape.doc_sentence_words
    lo, hi = math.log(words_min), math.log(words_max - sent_max + 1)
    for k in range(pool):
        target = int(math.exp(rng.uniform(lo, hi)))
        lens = rng.integers(sent_min, sent_max + 1, target // sent_min + 2)
        cum = np.cumsum(lens)
        nsent = int(np.searchsorted(cum, target)) + 1  # sentences until >= target words
        lens = lens[:nsent]
        n = int(cum[nsent - 1])
        starts = np.zeros(nsent + 1, dtype=np.int64)
        starts[1:] = cum[:nsent]

        ids = vocab.sample(rng, n)
        topical = rng.random(n) < TOPIC_WORD_RATE
        ids[topical] = topic_ids[rng.integers(0, TOPIC_WORDS, int(topical.sum()))]
        variant = np.where(rng.random(n) < COMMA_RATE, 2, 0)
        variant[starts[:-1]] += 1  # capitalised
        ends = starts[1:] - 1
        variant[ends] = 4 + (variant[ends] & 1)  # period (drops a comma)
        tokens: list[str] = vocab.table[variant * V + ids].tolist()
        for pos in np.flatnonzero(rng.random(n) < NUMBER_RATE).tolist():
            num = _number(rng)
            v = int(variant[pos])
            tokens[pos] = num + ("." if v >= 4 else "," if v >= 2 else "")
        doc_title = " ".join(_title(rng, vocab, topic_ids, 3, 8))
        docs.append(Doc(f"bench_doc_{topic:04d}_{k:02d}", doc_title, tokens, starts))
    return title, docs


# ---------------------------------------------------------------------------------------------
# Reports
# ---------------------------------------------------------------------------------------------


def _strip_end(tok: str) -> str:
    return tok[:-1] if tok and tok[-1] in ".," else tok


def _lower_first(tok: str) -> str:
    return tok[0].lower() + tok[1:] if tok and tok[0].isupper() else tok


def _frame(tokens: list[str]) -> str:
    """Make a list of surface tokens a sentence: capital first letter, final period."""
    tokens = list(tokens)
    tokens[-1] = _strip_end(tokens[-1]) + "."
    first = tokens[0]
    tokens[0] = first[0].upper() + first[1:]
    return " ".join(tokens)


def _span(rng: Generator, doc: Doc, fused: bool) -> tuple[list[str], int, int] | None:
    """A copyable token span of ``doc``: (tokens, start, end) or None if the doc can't give one."""
    starts = doc.sent_starts
    lens = np.diff(starts)
    if fused:
        if len(lens) < 2:
            return None
        for _ in range(20):
            s = int(rng.integers(0, len(lens) - 1))
            la, lb = int(lens[s]), int(lens[s + 1])
            L = int(rng.integers(ANSWER_TOK_MIN, ANSWER_TOK_MAX + 1))
            lo_k, hi_k = max(3, L - lb), min(la, L - 3)
            if lo_k > hi_k:
                continue
            k = int(rng.integers(lo_k, hi_k + 1))
            a, b = int(starts[s + 1]) - k, int(starts[s + 1]) + (L - k)
            toks = doc.tokens[a:b]
            toks[k - 1] = _strip_end(toks[k - 1])  # drop the inner period
            toks[k] = _lower_first(toks[k])
            return toks, a, b
        return None
    eligible = np.flatnonzero(lens >= ANSWER_TOK_MIN)
    if len(eligible) == 0:
        return None
    s = int(eligible[rng.integers(0, len(eligible))])
    ls = int(lens[s])
    L = int(rng.integers(ANSWER_TOK_MIN, min(ANSWER_TOK_MAX, ls) + 1))
    a = int(starts[s]) + int(rng.integers(0, ls - L + 1))
    return list(doc.tokens[a : a + L]), a, a + L


def _paraphrase(rng: Generator, vocab: Vocab, toks: list[str]) -> tuple[list[str], int]:
    """Apply round(f * len) token edits, f ~ U[0.3, 0.5]; keeps length within 15-40."""
    n_edits = int(round(rng.uniform(EDIT_MIN, EDIT_MAX) * len(toks)))
    ops = rng.integers(0, 3, n_edits)  # 0 substitute, 1 insert, 2 delete
    u = rng.random(n_edits)
    new_words = vocab.sample(rng, n_edits)
    toks = list(toks)
    for op, x, w in zip(ops.tolist(), u.tolist(), new_words.tolist()):
        if op == 1 and len(toks) >= ANSWER_TOK_MAX:
            op = 0
        elif op == 2 and len(toks) <= ANSWER_TOK_MIN:
            op = 0
        if op == 0:
            toks[int(x * len(toks))] = vocab.words[w]
        elif op == 1:
            toks.insert(int(x * (len(toks) + 1)), vocab.words[w])
        else:
            del toks[int(x * len(toks))]
    return toks, n_edits


@dataclass
class Counts:
    reports: int = 0
    sentences: int = 0
    citations: int = 0
    references: int = 0
    answer_tokens: int = 0
    kinds: dict[str, int] = field(default_factory=lambda: {"verbatim": 0, "paraphrase": 0, "unrelated": 0})
    citations_by_kind: dict[str, int] = field(default_factory=lambda: {"verbatim": 0, "paraphrase": 0, "unrelated": 0})
    fused: int = 0


def make_report(
    vocab: Vocab,
    seed: int,
    topic: int,
    run: int,
    docs: list[Doc],
    counts: Counts,
    truth: list | None = None,
) -> dict:
    rng = Generator(PCG64([seed, 2, topic, run]))
    n_refs = min(len(docs), int(rng.integers(REFS_MIN, REFS_MAX + 1)))
    refs = rng.permutation(len(docs))[:n_refs]
    n_sent = int(rng.integers(REPORT_SENT_MIN, REPORT_SENT_MAX + 1))
    answer = []
    p_fused_given_copy = P_FUSED / (P_VERBATIM + P_PARAPHRASE)
    for si in range(n_sent):
        n_cite = min(n_refs, int(rng.integers(CITES_MIN, CITES_MAX + 1)))
        cites = sorted(rng.choice(n_refs, n_cite, replace=False).tolist())
        r = rng.random()
        kind = "verbatim" if r < P_VERBATIM else "paraphrase" if r < P_VERBATIM + P_PARAPHRASE else "unrelated"
        fused = kind != "unrelated" and rng.random() < p_fused_given_copy
        src = None
        edits = 0
        if kind != "unrelated":
            src = cites[int(rng.integers(0, n_cite))]
            got = _span(rng, docs[int(refs[src])], fused)
            if got is None and fused:
                fused = False
                got = _span(rng, docs[int(refs[src])], False)
            if got is None:  # document too short to copy from: fall back to unrelated text
                kind, src, fused = "unrelated", None, False
        if kind == "unrelated":
            L = int(rng.integers(ANSWER_TOK_MIN, ANSWER_TOK_MAX + 1))
            toks = [vocab.words[i] for i in vocab.sample(rng, L).tolist()]
            if L > 20 and rng.random() < 0.5:
                c = int(rng.integers(3, L - 3))
                toks[c] += ","
            span = None
        else:
            toks, a, b = got
            span = (a, b)
            if kind == "paraphrase":
                toks, edits = _paraphrase(rng, vocab, toks)
        text = _frame(toks)
        answer.append({"text": text, "citations": cites})
        counts.sentences += 1
        counts.citations += n_cite
        counts.answer_tokens += len(toks)
        counts.kinds[kind] += 1
        counts.citations_by_kind[kind] += n_cite
        counts.fused += int(fused)
        if truth is not None:
            truth.append(
                {
                    "run_id": f"run-{run:03d}",
                    "request_id": f"t{topic:04d}",
                    "sentence": si,
                    "kind": kind,
                    "fused": fused,
                    "edits": edits,
                    "source": None if src is None else docs[int(refs[src])].doc_id,
                    "source_tokens": span,
                }
            )
    counts.reports += 1
    counts.references += n_refs
    return {
        "metadata": {
            "team_id": "bench",
            "run_id": f"run-{run:03d}",
            "narrative_id": f"t{topic:04d}",
        },
        "references": [docs[int(i)].doc_id for i in refs],
        "answer": answer,
    }


# ---------------------------------------------------------------------------------------------
# Whole workload
# ---------------------------------------------------------------------------------------------


def _gzip_writer(path: Path, level: int = 6):
    raw = open(path, "wb")
    return raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=level, mtime=0)


def _dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": ")) + "\n"


def generate(
    out: str | os.PathLike,
    size: str = "small",
    seed: int = 13,
    topics: int | None = None,
    runs: int | None = None,
    truth: bool = False,
    progress: bool = False,
) -> dict:
    """Write a workload into ``out`` and return its manifest.

    ``topics``/``runs`` override the size's defaults (the result is then a prefix of any
    bigger workload with the same seed; ``size`` is recorded as given).
    """
    t0 = time.perf_counter()
    base_topics, base_runs = SIZES[size] if size in SIZES else (None, None)
    n_topics = topics if topics is not None else base_topics
    n_runs = runs if runs is not None else base_runs
    if n_topics is None or n_runs is None:
        raise ValueError(f"unknown size {size!r} and no --topics/--runs given")
    out = Path(out)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    for stale in (out / "runs").glob("run-*.jsonl"):
        stale.unlink()
    vocab = build_vocab(seed)
    shape = shape_of(size)
    counts = Counts()
    documents = corpus_words = corpus_bytes = 0
    cited_docs: set[str] = set()

    run_files = [open(out / "runs" / f"run-{r:03d}.jsonl", "w", encoding="utf-8") for r in range(1, n_runs + 1)]
    corpus_raw, corpus = _gzip_writer(out / "corpus.jsonl.gz")
    truth_raw = truth_gz = None
    if truth:
        truth_raw, truth_gz = _gzip_writer(out / "truth.jsonl.gz")
    try:
        with open(out / "topics.jsonl", "w", encoding="utf-8") as topics_f:
            for t in range(1, n_topics + 1):
                title, docs = make_topic_docs(vocab, seed, t, shape)
                topics_f.write(_dumps({"request_id": f"t{t:04d}", "title": title}))
                chunk = []
                for d in docs:
                    line = _dumps({"doc_id": d.doc_id, "title": d.title, "text": " ".join(d.tokens)})
                    chunk.append(line)
                    corpus_words += len(d.tokens)
                    corpus_bytes += len(line)  # ASCII only: chars == bytes
                corpus.write("".join(chunk).encode("utf-8"))
                documents += len(docs)
                truth_rows: list | None = [] if truth else None
                for r in range(1, n_runs + 1):
                    rep = make_report(vocab, seed, t, r, docs, counts, truth_rows)
                    for s in rep["answer"]:
                        for c in s["citations"]:
                            cited_docs.add(rep["references"][c])
                    run_files[r - 1].write(_dumps(rep))
                if truth_gz is not None:
                    truth_gz.write("".join(_dumps(x) for x in truth_rows).encode("utf-8"))
                if progress and (t % 100 == 0 or t == n_topics):
                    print(f"  topic {t}/{n_topics}  {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    finally:
        for f in run_files:
            f.close()
        corpus.close()
        corpus_raw.close()
        if truth_gz is not None:
            truth_gz.close()
            truth_raw.close()

    manifest = {
        "generator": "bench/workload.py",
        "generator_version": GENERATOR_VERSION,
        "size": size,
        "seed": seed,
        "params": {
            "vocab_size": VOCAB_SIZE,
            "zipf_exponent": ZIPF_EXPONENT,
            "pool_docs": list(shape.pool),
            "doc_words": list(shape.doc_words),
            "doc_sentence_words": list(shape.doc_sentence_words),
            "references_per_report": [REFS_MIN, REFS_MAX],
            "sentences_per_report": [REPORT_SENT_MIN, REPORT_SENT_MAX],
            "answer_sentence_tokens": [ANSWER_TOK_MIN, ANSWER_TOK_MAX],
            "citations_per_sentence": [CITES_MIN, CITES_MAX],
            "p_verbatim": P_VERBATIM,
            "p_paraphrase": P_PARAPHRASE,
            "p_fused": P_FUSED,
            "paraphrase_edit_fraction": [EDIT_MIN, EDIT_MAX],
        },
        "counts": {
            "topics": n_topics,
            "runs": n_runs,
            "reports": counts.reports,
            "sentences": counts.sentences,
            "citations": counts.citations,
            "references": counts.references,
            "documents": documents,
            "documents_cited": len(cited_docs),
            "corpus_words": corpus_words,
            "corpus_bytes_uncompressed": corpus_bytes,
            "answer_tokens": counts.answer_tokens,
            "sentences_by_kind": counts.kinds,
            "citations_by_kind": counts.citations_by_kind,
            "fused_sentences": counts.fused,
        },
        "files": {
            "topics": "topics.jsonl",
            "corpus": "corpus.jsonl.gz",
            "runs": "runs/",
            **({"truth": "truth.jsonl.gz"} if truth else {}),
        },
    }
    with open(out / "manifest.json", "w", encoding="utf-8") as f:
        f.write(json.dumps(manifest, indent=2) + "\n")
    return manifest


# ---------------------------------------------------------------------------------------------
# Reading helpers (used by the peer benchmark and the runner)
# ---------------------------------------------------------------------------------------------


def load_manifest(workload_dir: str | os.PathLike) -> dict:
    with open(Path(workload_dir) / "manifest.json", encoding="utf-8") as f:
        return json.load(f)


def iter_reports(workload_dir: str | os.PathLike):
    """Yield every report (dict) of every run, runs in file-name order."""
    for path in sorted((Path(workload_dir) / "runs").glob("*.jsonl")):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)


def load_documents(workload_dir: str | os.PathLike, doc_ids: set[str] | None = None) -> dict[str, str]:
    """doc_id -> text, for ``doc_ids`` only (all documents when None); streams the corpus."""
    docs: dict[str, str] = {}
    with gzip.open(Path(workload_dir) / "corpus.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            if doc_ids is None or d["doc_id"] in doc_ids:
                docs[d["doc_id"]] = d["text"]
    return docs


def ensure(workload_dir: str | os.PathLike, size: str, seed: int = 13, **kw) -> dict:
    """Generate the workload unless a manifest with the same size/seed/version is there."""
    path = Path(workload_dir) / "manifest.json"
    if path.exists():
        m = load_manifest(workload_dir)
        want_topics, want_runs = SIZES.get(size, (None, None))
        want_topics = kw.get("topics") or want_topics
        want_runs = kw.get("runs") or want_runs
        if (
            m.get("seed") == seed
            and m.get("size") == size
            and m.get("generator_version") == GENERATOR_VERSION
            and m["counts"]["topics"] == want_topics
            and m["counts"]["runs"] == want_runs
        ):
            return m
    return generate(workload_dir, size=size, seed=seed, **kw)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", choices=sorted(SIZES), default="small")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--topics", type=int, help="override the number of topics")
    ap.add_argument("--runs", type=int, help="override the number of runs")
    ap.add_argument("--truth", action="store_true", help="also write truth.jsonl.gz")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    m = generate(args.out, args.size, args.seed, args.topics, args.runs, args.truth, progress=True)
    dt = time.perf_counter() - t0
    c = m["counts"]
    print(
        f"{args.size} seed={args.seed}: {c['topics']} topics x {c['runs']} runs = {c['reports']} reports, "
        f"{c['sentences']} sentences, {c['citations']} citations, {c['documents']} documents, "
        f"{c['corpus_words']} corpus words ({c['corpus_bytes_uncompressed'] / 1e6:.1f} MB) in {dt:.1f}s -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
