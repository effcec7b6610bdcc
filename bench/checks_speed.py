"""Speed of the per-sentence grounding primitive (``judges.checks.missing``) on synthetic text.

    python bench/checks_speed.py [--docs 50] [--sentences 200] [--doc-words 1000]
                                 [--sentence-words 30] [--repeat 3] [--seed 0]

Synthetic English-like text from a fixed word list, with made-up names in several shapes (two
words, acronyms, ``X Holdings``, hyphenated, accented, ``eX``) and numbers in several forms
(``512``, ``5,120``, ``15%``, ``$2.3 million``, years, ``€20``, ``3bn``) mixed in. \
Half of the sentences are copied from a document (their numbers and names are found), half
are drawn fresh (mostly missing). Every sentence is checked against every document.

Printed, each the best of ``--repeat`` runs:

* document preparation: ``Source(text)`` plus building its number and entity indexes, per document;
* sentence preparation: ``Claim(sentence)`` plus extracting its numbers and entities, per sentence;
* per pair, prepared: ``missing(claim, source)`` with both prepared (how a judge should call it);
* per pair, unprepared sentence: a fresh ``Claim`` for every pair (documents prepared);
* placeholders: ``find_placeholders`` with the built-in table, per sentence (the judge runs it
  once per answer sentence).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judges.checks import Claim, Source, find_placeholders, missing

WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at which "
    "but have an they you were her she there been one all we their has would when if so can more "
    "no will out up about into than them some could time these two may then do first any my now "
    "such like our over man me even most made after also did many before must through back years "
    "where much your way well down should because each just those people how too little state good "
    "very make world still own see men work long get here between both life being under never day "
    "same another know while last might us great old year off come since against go came right "
    "used take three report growth market policy study river council program energy water health"
).split()
SYLLABLES = "ka lo mi ra ten sul var no bri zo el an dor fen gu".split()
FORMS = ("{a} {b}", "{A}", "{a} Holdings", "{a}-{b}", "Bank of {a}", "{a}ü{b}", "e{a}")


def name(rng: random.Random) -> str:
    """A made-up name in one of several shapes (two words, acronym, company, hyphenated...)."""
    a = "".join(rng.choice(SYLLABLES) for _ in range(2)).capitalize()
    b = "".join(rng.choice(SYLLABLES) for _ in range(2)).capitalize()
    return rng.choice(FORMS).format(a=a, b=b, A=(a[:2] + b[:2]).upper())


def number(rng: random.Random) -> str:
    """A number in one of several written forms."""
    v = rng.randint(1, 999)
    return rng.choice(
        (
            f"{v}",
            f"{v},{rng.randint(100, 999)}",
            f"{v}%",
            f"${v / 10:.1f} million",
            f"{rng.randint(1950, 2024)}",
            f"{v / 100:.2f}",
            f"{v} percent",
            f"€{v}",
            f"{v}bn",
        )
    )


def sentence(rng: random.Random, n_words: int) -> str:
    out = []
    for _ in range(n_words):
        r = rng.random()
        if r < 0.06:
            out.append(name(rng))
        elif r < 0.11:
            out.append(number(rng))
        else:
            out.append(rng.choice(WORDS))
    return out[0][:1].upper() + " ".join(out)[1:] + "."


def document(rng: random.Random, n_words: int, sentence_words: int) -> tuple[str, list[str]]:
    sents = [sentence(rng, sentence_words) for _ in range(max(1, n_words // sentence_words))]
    return " ".join(sents), sents


def best_of(repeat: int, fn) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=50)
    ap.add_argument("--sentences", type=int, default=200)
    ap.add_argument("--doc-words", type=int, default=1000)
    ap.add_argument("--sentence-words", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    rng = random.Random(args.seed)
    docs, pool = [], []
    for _ in range(args.docs):
        text, sents = document(rng, args.doc_words, args.sentence_words)
        docs.append(text)
        pool.extend(sents)
    sentences = [rng.choice(pool) if i % 2 == 0 else sentence(rng, args.sentence_words) for i in range(args.sentences)]

    def prepare_docs() -> list[Source]:
        out = [Source(t) for t in docs]
        for s in out:  # build both indexes now (they are lazy)
            _ = s.numbers, s.entities
        return out

    def prepare_claims() -> list[Claim]:
        out = [Claim(s) for s in sentences]
        for c in out:  # extract now (lazy otherwise)
            _ = c.numbers, c.entities
        return out

    sources, claims = prepare_docs(), prepare_claims()
    fired = sum(bool(m.numbers or m.entities) for m in (missing(c, s) for c in claims for s in sources))
    n_pairs = len(claims) * len(sources)
    t_docs = best_of(args.repeat, prepare_docs)
    t_claims = best_of(args.repeat, prepare_claims)
    t_pairs = best_of(args.repeat, lambda: [missing(c, s) for c in claims for s in sources])
    t_fresh = best_of(args.repeat, lambda: [missing(Claim(t), s) for t in sentences for s in sources])
    t_placeholders = best_of(args.repeat, lambda: [find_placeholders(t) for t in sentences])

    words_per_doc = sum(len(t.split()) for t in docs) / len(docs)
    words_per_sentence = sum(len(t.split()) for t in sentences) / len(sentences)
    print(
        f"synthetic: {len(docs)} documents (~{words_per_doc:.0f} words), {len(sentences)} sentences "
        f"(~{words_per_sentence:.0f} words), {n_pairs:,} pairs, {fired / n_pairs:.0%} with something missing; "
        f"best of {args.repeat}, Python {sys.version.split()[0]}"
    )
    print(f"{'':38}{'total s':>10}{'us each':>12}")
    print(f"{'document preparation (per document)':38}{t_docs:10.3f}{t_docs / len(docs) * 1e6:12.1f}")
    print(f"{'sentence preparation (per sentence)':38}{t_claims:10.3f}{t_claims / len(sentences) * 1e6:12.1f}")
    print(f"{'pair, both prepared':38}{t_pairs:10.3f}{t_pairs / n_pairs * 1e6:12.1f}")
    print(f"{'pair, fresh Claim per pair':38}{t_fresh:10.3f}{t_fresh / n_pairs * 1e6:12.1f}")
    t_each = t_placeholders / len(sentences) * 1e6
    print(f"{'placeholders (per sentence)':38}{t_placeholders:10.3f}{t_each:12.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
