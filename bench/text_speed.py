"""Speed of document preparation: ``Vocabulary.encode`` and ``split_sentences``, old vs new.

"old" is the regex reference kept beside each fast path (``Vocabulary.encode_reference``,
``split_sentences_reference``); "new" is what the judge runs. Every repetition encodes the whole
corpus into a fresh vocabulary, as a judging run does; the best of ``--repeat`` is reported
(the Numba kernels are compiled or loaded before timing). The outputs are checked identical.

    python bench/text_speed.py [--corpus bench/workloads/small/corpus.jsonl.gz] [--repeat 3]

The corpus comes from ``python bench/workload.py --size small --out bench/workloads/small/``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judges.text.segment import split_sentences, split_sentences_reference  # noqa: E402
from judges.text.tokenize import Vocabulary  # noqa: E402


def load(path: Path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f if line.strip()]


def best_of(repeat: int, fn):
    best, result = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=ROOT / "bench/workloads/small/corpus.jsonl.gz")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if not args.corpus.exists():
        print(f"{args.corpus} is missing: python bench/workload.py --size small --out bench/workloads/small/")
        return 2
    texts = load(args.corpus)
    n_chars = sum(map(len, texts))
    ascii_share = sum(t.isascii() for t in texts) / max(1, len(texts))
    Vocabulary().encode("Warm up. Ünïcode too.")
    split_sentences("Warm up. Ünïcode too.")

    def encode_all(method: str):
        vocab = Vocabulary()
        enc = getattr(vocab, method)
        return [enc(t) for t in texts], vocab

    t_old, (old, old_vocab) = best_of(args.repeat, lambda: encode_all("encode_reference"))
    t_new, (new, new_vocab) = best_of(args.repeat, lambda: encode_all("encode"))
    same = list(old_vocab._ids.items()) == list(new_vocab._ids.items()) and all(
        (a.ids.tolist(), a.starts.tolist(), a.ends.tolist()) == (b.ids.tolist(), b.starts.tolist(), b.ends.tolist())
        for a, b in zip(old, new)
    )
    n_tokens = sum(map(len, new))
    s_old, old_spans = best_of(args.repeat, lambda: [split_sentences_reference(t) for t in texts])
    s_new, new_spans = best_of(args.repeat, lambda: [split_sentences(t) for t in texts])
    n_sent = sum(map(len, new_spans))

    print(
        f"corpus: {args.corpus}  docs={len(texts):,}  chars={n_chars:,}  tokens={n_tokens:,}  "
        f"sentences={n_sent:,}  ascii docs={ascii_share:.0%}  best of {args.repeat}"
    )
    heads = ("old s", "new s", "old us/tok", "new us/tok", "old tok/s", "new tok/s", "speedup")
    print(f"{'':16}" + "".join(f"{h:>{w}}" for h, w in zip(heads, (9, 9, 12, 12, 12, 12, 9))))
    for name, a, b in (("encode", t_old, t_new), ("split_sentences", s_old, s_new)):
        print(
            f"{name:16}{a:9.3f}{b:9.3f}{a / n_tokens * 1e6:12.4f}{b / n_tokens * 1e6:12.4f}"
            f"{n_tokens / a:12,.0f}{n_tokens / b:12,.0f}{a / b:8.1f}x"
        )
    a, b = t_old + s_old, t_new + s_new
    print(
        f"{'both':16}{a:9.3f}{b:9.3f}{a / n_tokens * 1e6:12.4f}{b / n_tokens * 1e6:12.4f}"
        f"{n_tokens / a:12,.0f}{n_tokens / b:12,.0f}{a / b:8.1f}x"
    )
    identical = same and old_spans == new_spans
    print("outputs identical:", identical)
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
