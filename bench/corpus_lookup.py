"""Docstore bench: build time and size per 10^6 segments, lookups per second, peak memory.

Generates (once, cached under --dir) a corpus in the real MS MARCO v2.1 segmented layout: 70 gzip
shards ``msmarco_v2.1_doc_segmented_NN.json.gz``, ids naming shard and byte offset
(:mod:`judges.formats.synthcorpus`), then, each phase in its own process so its peak RSS is its own:

1. ``corpus index`` (:func:`judges.formats.docstore.build`): seconds and store MB per 10^6 segments;
2. lookups of 10^4 and 10^5 cited ids (random, sampled at generation) through ``--corpus``'s reader
   (:func:`judges.formats.corpus.read_corpus` on the shard directory): ids/s.

    python bench/corpus_lookup.py                       # 5 x 10^6 segments
    python bench/corpus_lookup.py --segments 113520750  # the size of the real corpus
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def phase_generate(a) -> dict:
    from judges.formats.synthcorpus import write_corpus

    t = time.perf_counter()
    ids = write_corpus(
        Path(a.dir) / "shards",
        a.segments,
        shards=70,
        seed=a.seed,
        sample=max(a.lookups),
        level=a.gzip_level,
        jobs=a.jobs,
    )
    random.Random(a.seed).shuffle(ids)  # the first 10^4 are spread over the shards too
    (Path(a.dir) / "ids.txt").write_text("\n".join(ids) + "\n")
    return {"seconds": time.perf_counter() - t, "peak_rss_mb": peak_mb()}


def phase_build(a) -> dict:
    from judges.formats import docstore

    t = time.perf_counter()
    fig = docstore.build(Path(a.dir) / "shards")
    return {"seconds": time.perf_counter() - t, "peak_rss_mb": peak_mb(), **fig}


def phase_lookup(a) -> dict:
    from judges.formats.corpus import read_corpus
    from judges.core.records import Document

    ids = (Path(a.dir) / "ids.txt").read_text().split()[: a.n]
    t = time.perf_counter()
    docs = read_corpus(Path(a.dir) / "shards", set(ids), lambda e: None)
    seconds = time.perf_counter() - t
    found = sum(isinstance(d, Document) for d in docs.values())
    assert found == len(ids), f"{found} of {len(ids)} found"
    return {"ids": len(ids), "seconds": seconds, "ids_per_s": len(ids) / seconds, "peak_rss_mb": peak_mb()}


def child(phase: str, a, **extra) -> dict:
    args = [
        sys.executable,
        __file__,
        "--phase",
        phase,
        "--dir",
        a.dir,
        "--segments",
        str(a.segments),
        "--seed",
        str(a.seed),
        "--gzip-level",
        str(a.gzip_level),
        "--jobs",
        str(a.jobs),
        "--lookups",
        *map(str, a.lookups),
    ]
    for k, v in extra.items():
        args += [f"--{k}", str(v)]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"{phase} failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--segments", type=int, default=5_000_000)
    p.add_argument("--dir", default="/tmp/citejudge-corpus-bench", help="Where the corpus is generated (kept, reused).")
    p.add_argument("--lookups", type=int, nargs="+", default=[10_000, 100_000])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--gzip-level", type=int, default=1, help="Compression of the generated shards (1: fast to generate)."
    )
    p.add_argument("--jobs", type=int, default=2, help="Processes generating shards.")
    p.add_argument("--phase", choices=["generate", "build", "lookup"], help=argparse.SUPPRESS)
    p.add_argument("--n", type=int, help=argparse.SUPPRESS)
    a = p.parse_args()
    if not a.phase:
        a.dir = str(Path(a.dir) / f"{a.segments}-s{a.seed}")
    if a.phase:
        print(json.dumps({"generate": phase_generate, "build": phase_build, "lookup": phase_lookup}[a.phase](a)))
        return

    million = a.segments / 1e6
    stamp = Path(a.dir) / "ids.txt"
    if stamp.exists():
        print(f"corpus: {a.dir} (reused)")
    else:
        print(f"generating {a.segments:,} segments in 70 shards under {a.dir} ...", flush=True)
        g = child("generate", a)
        print(f"  generated in {g['seconds']:.0f} s")
    shards = Path(a.dir) / "shards"
    gz = sum(f.stat().st_size for f in shards.glob("*.json.gz"))
    print(f"corpus: {a.segments:,} segments, 70 shards, {gz / 1e9:.2f} GB gzip")
    print("building the docstore ...", flush=True)
    b = child("build", a)
    print(
        f"index build: {b['seconds']:.1f} s ({b['seconds'] / million:.1f} s per 10^6 segments), "
        f"{b['bytes_in'] / 1e9:.2f} GB uncompressed read"
    )
    print(
        f"store size: {b['store_bytes'] / 1e6:,.0f} MB ({b['store_bytes'] / 1e6 / million:.0f} MB per 10^6 segments; "
        f"{b['store_bytes'] / gz:.2f}x the gzip shards)"
    )
    print(f"peak RSS, build: {b['peak_rss_mb']:.0f} MB")
    for n in a.lookups:
        r = child("lookup", a, n=n)
        print(
            f"lookups, {r['ids']:,} cited ids: {r['seconds']:.2f} s, {r['ids_per_s']:,.0f} ids/s, "
            f"peak RSS {r['peak_rss_mb']:.0f} MB"
        )


if __name__ == "__main__":
    main()
