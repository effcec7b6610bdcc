"""A synthetic corpus in the real MS MARCO v2.1 segmented layout, for tests and ``bench/corpus_lookup.py``.

``shards`` gzip files ``msmarco_v2.1_doc_segmented_NN.json.gz``, one JSON object per line with the
real fields (``docid``, ``url``, ``title``, ``headings``, ``segment``, ``start_char``,
``end_char``); each segment id ``msmarco_v2.1_doc_NN_DOCOFFSET#SEG_OFFSET`` names its shard and the
byte offset of its line in the uncompressed shard, as in the real corpus. Text is cut from a pool
of pseudo-words, so it compresses about like prose. Deterministic: same arguments, same bytes.
"""

from __future__ import annotations

import functools
import gzip
from pathlib import Path
from typing import Callable, Optional

import numpy as np
import orjson

SHARD_NAME = "msmarco_v2.1_doc_segmented_{:02d}.json.gz"
_POOL_WORDS = 400_000


@functools.lru_cache(maxsize=2)
def _pool(seed: int) -> str:
    rng = np.random.default_rng([seed, 1_000_003])
    letters = np.array(list("etaoinshrdlucmfwypvbgkqjxz"))
    p = np.array(
        [
            12.7,
            9.1,
            8.2,
            7.5,
            7.0,
            6.7,
            6.3,
            6.1,
            6.0,
            4.3,
            4.0,
            2.8,
            2.8,
            2.4,
            2.2,
            2.4,
            2.0,
            2.0,
            1.0,
            1.5,
            1.9,
            0.8,
            0.1,
            0.2,
            0.2,
            0.1,
        ]
    )
    sizes = rng.integers(2, 11, size=20_000)
    chars = "".join(rng.choice(letters, size=int(sizes.sum()), p=p / p.sum()))
    ends = np.cumsum(sizes)
    vocab = [chars[e - n : e] for e, n in zip(ends.tolist(), sizes.tolist())]
    ranks = np.minimum(rng.zipf(1.2, size=_POOL_WORDS), len(vocab)) - 1  # Zipfian word frequencies
    return " ".join(vocab[i] for i in ranks)


def shard_sizes(segments: int, shards: int) -> list[int]:
    return [segments // shards + (i < segments % shards) for i in range(shards)]


def write_shard(out_dir: Path, shard: int, count: int, seed: int = 0, sample: int = 0, level: int = 1) -> list[str]:
    """Write shard ``shard`` with ``count`` segments; returns ``sample`` of its ids (random, in file order)."""
    pool = _pool(seed)
    rng = np.random.default_rng([seed, shard])
    keep = set(rng.choice(count, size=min(sample, count), replace=False).tolist()) if sample else set()
    lengths = rng.integers(300, 1400, size=count)
    starts = rng.integers(0, len(pool) - 1500, size=count)
    per_doc = rng.integers(1, 9, size=count)
    kept: list[str] = []
    offset = doc_offset = 0
    path = Path(out_dir) / SHARD_NAME.format(shard)
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=level, mtime=0) as f:
        i = 0
        while i < count:
            n_seg = min(int(per_doc[i]), count - i)
            title = pool[int(starts[i]) : int(starts[i]) + 40].strip().capitalize()
            url = f"http://example.org/{shard}/{doc_offset}"
            char = 0
            lines = []
            for s in range(n_seg):
                a = int(starts[i + s])
                text = pool[a : a + int(lengths[i + s])].strip()
                doc_id = f"msmarco_v2.1_doc_{shard:02d}_{doc_offset}#{s}_{offset}"
                line = (
                    orjson.dumps(
                        {
                            "docid": doc_id,
                            "url": url,
                            "title": title,
                            "headings": title + "\n",
                            "segment": text,
                            "start_char": char,
                            "end_char": char + len(text),
                        }
                    )
                    + b"\n"
                )
                if (i + s) in keep:
                    kept.append(doc_id)
                lines.append(line)
                offset += len(line)
                char += len(text) // 2  # segments of one document overlap, as in MS MARCO v2.1
            f.write(b"".join(lines))
            doc_offset += 1000 + 37 * n_seg
            i += n_seg
    return kept


def write_corpus(
    out_dir: Path,
    segments: int,
    shards: int = 70,
    seed: int = 0,
    sample: int = 0,
    level: int = 1,
    jobs: int = 1,
    progress: Optional[Callable[[int], None]] = None,
) -> list[str]:
    """Write every shard (``jobs`` processes); returns ``sample`` ids spread over the shards."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    sizes = shard_sizes(segments, shards)
    per_shard = -(-sample // shards) if sample else 0
    args = [(out_dir, s, n, seed, per_shard, level) for s, n in enumerate(sizes)]
    ids: list[str] = []
    if jobs > 1:
        from multiprocessing import get_context

        with get_context("spawn").Pool(jobs) as pool:
            for a, kept in zip(args, pool.imap(_write_shard, args)):
                ids += kept
                if progress:
                    progress(a[2])
    else:
        for a in args:
            ids += write_shard(*a)
            if progress:
                progress(a[2])
    if sample and len(ids) > sample:
        ids = sorted(np.random.default_rng([seed, 7]).choice(ids, size=sample, replace=False).tolist())
    return ids


def _write_shard(args: tuple) -> list[str]:
    return write_shard(*args)
