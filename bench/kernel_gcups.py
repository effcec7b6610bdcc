"""Smith-Waterman kernel throughput in GCUPS (10^9 cell updates per second). Not a test.

Builds a seeded synthetic batch -- Zipfian vocabulary (~20k ids), answers of 15-40 tokens,
documents of 300-3000 tokens, a third each verbatim copies / edited copies / unrelated -- and
times:

* the Python reference on a small subset,
* the Numba pair kernel (``sw_pair``), one pair at a time on one thread,
* ``align_batch`` on the current Numba thread count.

Run it once per thread count, e.g.::

    NUMBA_NUM_THREADS=1 python bench/kernel_gcups.py
    NUMBA_NUM_THREADS=2 python bench/kernel_gcups.py

A cell update is one (answer token, document token) cell: sum of len(a) * len(b) over pairs.
The first call of each kernel (compilation, or loading Numba's on-disk cache) is reported
separately and excluded from the timed runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judges.align.reference import smith_waterman  # noqa: E402


def make_batch(n_pairs: int, seed: int, vocab: int = 20_000):
    """Packed batch ``(a_tokens, a_offsets, pair_a, b_tokens, b_lo, b_hi)``."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, vocab + 1) ** 1.07  # Zipf-like token frequencies
    p /= p.sum()

    def draw(k: int) -> np.ndarray:
        return rng.choice(vocab, size=k, p=p).astype(np.int32)

    n_answers = max(1, n_pairs // 3)  # answers are reused by several pairs
    answers = [draw(int(rng.integers(15, 41))) for _ in range(n_answers)]
    pair_a = rng.integers(0, n_answers, size=n_pairs).astype(np.int64)
    docs = []
    for k in range(n_pairs):
        doc = draw(int(rng.integers(300, 3001)))
        frag = answers[pair_a[k]]
        kind = k % 3
        if kind == 1:  # edited copy: substitutions, insertions, deletions
            frag = list(frag)
            for _ in range(int(rng.integers(1, 6))):
                op, pos = int(rng.integers(3)), int(rng.integers(len(frag)))
                if op == 0:
                    frag[pos] = int(draw(1)[0])
                elif op == 1:
                    frag.insert(pos, int(draw(1)[0]))
                elif len(frag) > 2:
                    del frag[pos]
            frag = np.array(frag, np.int32)
        if kind < 2:  # 0: verbatim copy, 1: edited copy, 2: unrelated
            pos = int(rng.integers(0, len(doc) - len(frag)))
            doc[pos : pos + len(frag)] = frag
        docs.append(doc)
    a_offsets = np.zeros(n_answers + 1, np.int64)
    a_offsets[1:] = np.cumsum([len(a) for a in answers])
    b_hi = np.cumsum([len(d) for d in docs]).astype(np.int64)
    b_lo = b_hi - [len(d) for d in docs]
    return np.concatenate(answers), a_offsets, pair_a, np.concatenate(docs), b_lo, b_hi


def cells(a_offsets, pair_a, b_lo, b_hi, subset=slice(None)) -> int:
    n = (a_offsets[1:] - a_offsets[:-1])[pair_a[subset]]
    return int((n * (b_hi[subset] - b_lo[subset])).sum())


def best_time(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=5, help="timed runs; the best is reported")
    ap.add_argument("--python-pairs", type=int, default=6, help="pairs for the Python reference")
    args = ap.parse_args()

    batch = make_batch(args.pairs, args.seed)
    a_tokens, a_offsets, pair_a, b_tokens, b_lo, b_hi = batch
    total = cells(a_offsets, pair_a, b_lo, b_hi)
    print(f"batch: {args.pairs} pairs, {total / 1e6:.1f} M cells, seed {args.seed}")

    def pair_args(k):
        q = pair_a[k]
        return a_tokens[a_offsets[q] : a_offsets[q + 1]], b_tokens[b_lo[k] : b_hi[k]]

    # Python reference, small subset
    sub = range(min(args.python_pairs, args.pairs))
    t = time.perf_counter()
    ref_rows = [tuple(smith_waterman(*(x.tolist() for x in pair_args(k)))) for k in sub]
    dt = time.perf_counter() - t
    print(
        f"python reference   : {cells(a_offsets, pair_a, b_lo, b_hi, slice(0, len(sub))) / dt / 1e9:8.4f} GCUPS"
        f"  ({len(sub)} pairs)"
    )

    t = time.perf_counter()
    import numba  # noqa: E402

    from judges.align import kernel  # noqa: E402

    print(f"import numba+kernel: {time.perf_counter() - t:.2f} s")

    # Numba pair kernel, one thread, one pair per call
    t = time.perf_counter()
    kernel.sw_pair(*pair_args(0), 2, -1, -1)
    print(f"sw_pair first call : {time.perf_counter() - t:.2f} s (compile or cache load)")
    rows = [None] * args.pairs

    def run_pairs():
        for k in range(args.pairs):
            rows[k] = kernel.sw_pair(*pair_args(k), 2, -1, -1)

    dt = best_time(run_pairs, max(1, args.repeat // 2))
    print(f"sw_pair, 1 thread  : {total / dt / 1e9:8.3f} GCUPS")

    # Batch kernel, current thread count
    t = time.perf_counter()
    out = kernel.align_batch(*batch)
    print(f"align_batch first  : {time.perf_counter() - t:.2f} s (compile or cache load)")
    dt = best_time(lambda: kernel.align_batch(*batch), args.repeat)
    print(f"align_batch, {numba.get_num_threads()} thr : {total / dt / 1e9:8.3f} GCUPS  ({dt * 1e3:.1f} ms)")

    # Sanity: all three agree
    assert np.array_equal(out, np.array(rows, np.int64)), "align_batch != sw_pair"
    assert [tuple(r) for r in out[: len(sub)]] == ref_rows, "kernel != reference"
    full = int((out[:, 5] == (a_offsets[1:] - a_offsets[:-1])[pair_a]).sum())
    print(f"results agree: {int((out[:, 0] > 0).sum())} pairs score > 0, {full} contain the whole answer")


if __name__ == "__main__":
    main()
