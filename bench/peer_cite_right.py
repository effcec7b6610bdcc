"""Throughput of the peer tool cite-right (0.4.0) on a bench workload.

Usage::

    python bench/peer_cite_right.py [--workload bench/workloads/small] [--n 2000]
                                    [--processes 1 2] [--mode sentence|prepared|report|all]
                                    [--rayon-threads K]

cite-right is a bench-only dependency (``pip install cite-right==0.4.0``); the citejudge package
never imports it. When it is not importable this script says so and exits 0 ("skipped").

How cite-right is called
------------------------
Its public entry point is ``cite_right.align_citations(answer, sources, config=...)``: it
segments ``answer`` into sentence spans, splits each source into sentence passages, selects
candidate passages (Rust inverted index), runs Smith-Waterman (Rust, Rayon) and returns one
``SpanCitations`` per answer span, each with ``citations`` (``source_id``, char offsets,
evidence) and a ``status`` of supported / partial / unsupported.

``--mode sentence`` (default, the question citejudge answers): one call per cited answer sentence,
``align_citations(sentence_text, [SourceDocument(id=doc_id, text=doc_text) for each cited doc])``
with the default ``CitationConfig()`` (``top_k=3`` = the most citations a sentence has here) and
the default backend ("auto" = Rust). A citation (sentence, doc) counts as supported when
cite-right returns a citation whose ``source_id`` is that doc. Document preparation
(tokenising/segmenting the cited documents) happens inside each call, as the API does it.

``--mode prepared`` (the same question, preparation amortised): ``PreparedCitationCorpus`` (public
API, "prepared source-side corpus state for repeated citation alignment") built once per document
with ``PreparedCitationCorpus.from_sources([SourceDocument(...)])`` and cached for the whole
measurement (building counts in the timing), then ``corpus.align(sentence_text)`` once per
citation (sentence, doc); supported when any span gets a citation.

``--mode report`` (the README's usage): one call per report with the whole answer text
(sentences joined by a space) against the union of documents its sentences cite; each returned
span is mapped back to its sentence by character offset and a citation (sentence, doc) counts as
supported when that sentence's spans have a citation from that doc. This amortises document
preparation over a report but aligns every sentence against every document the report cites.

Each measurement is the median of ``--repeats`` (default 3) timed passes over the same selection
(the ``prepared`` cache is rebuilt in every pass). Timing covers only cite-right's work (the calls \
above plus the verdict bookkeeping); loading the
workload, importing, starting worker processes and one warm-up call per process are excluded.
``--processes P`` splits the units (sentences or reports) into contiguous chunks and maps them
over a ``multiprocessing`` pool (spawn start method: Rayon's thread pool does not survive fork)
whose workers read the same selection from a pickle. Rayon's pool uses every core by default in
each process; ``--rayon-threads K`` sets ``RAYON_NUM_THREADS`` before cite-right first runs.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import workload as wl  # noqa: E402

DEFAULT_N = 2000

# ---------------------------------------------------------------------------------------------
# Selection
# ---------------------------------------------------------------------------------------------


def load_selection(workload_dir: str | os.PathLike, n: int = DEFAULT_N) -> dict:
    """The first ``n`` cited sentences of the workload (runs in file order, reports in line order).

    Returns ``{"reports": [[(text, [doc_id, ...]), ...], ...], "docs": {doc_id: text}}`` where each
    inner list is one report's selected sentences (the last report may be cut short).
    """
    reports: list[list[tuple[str, list[str]]]] = []
    need: set[str] = set()
    taken = 0
    for rep in wl.iter_reports(workload_dir):
        if taken >= n:
            break
        refs = rep["references"]
        sents = []
        for s in rep["answer"]:
            if taken >= n:
                break
            if not s.get("citations"):
                continue
            ids = list(dict.fromkeys(refs[c] for c in s["citations"]))
            need.update(ids)
            sents.append((s["text"], ids))
            taken += 1
        if sents:
            reports.append(sents)
    docs = wl.load_documents(workload_dir, need)
    missing = need - docs.keys()
    if missing:
        raise SystemExit(f"{len(missing)} cited documents missing from the corpus, e.g. {sorted(missing)[:3]}")
    return {"reports": reports, "docs": docs}


def _units(sel: dict, mode: str) -> list:
    if mode in ("sentence", "prepared"):
        return [s for rep in sel["reports"] for s in rep]
    return sel["reports"]


# ---------------------------------------------------------------------------------------------
# Judging with cite-right
# ---------------------------------------------------------------------------------------------

_SEL: dict | None = None


def _cite_right():
    import cite_right  # noqa: F401  (ImportError is handled by the caller)
    from cite_right import CitationConfig, SourceDocument, align_citations

    return align_citations, SourceDocument, CitationConfig


def _judge_sentences(units, docs) -> tuple[int, int, int]:
    align_citations, SourceDocument, CitationConfig = _cite_right()
    cfg = CitationConfig()
    citations = supported = sentences = 0
    for text, ids in units:
        spans = align_citations(text, [SourceDocument(id=d, text=docs[d]) for d in ids], config=cfg)
        found = {c.source_id for sp in spans for c in sp.citations}
        citations += len(ids)
        supported += sum(d in found for d in ids)
        sentences += 1
    return citations, supported, sentences


def _judge_reports(units, docs) -> tuple[int, int, int]:
    align_citations, SourceDocument, CitationConfig = _cite_right()
    cfg = CitationConfig()
    citations = supported = sentences = 0
    for rep in units:
        order = list(dict.fromkeys(d for _, ids in rep for d in ids))
        sources = [SourceDocument(id=d, text=docs[d]) for d in order]
        starts, pos = [], 0
        for text, _ in rep:
            starts.append(pos)
            pos += len(text) + 1
        answer = " ".join(text for text, _ in rep)
        spans = align_citations(answer, sources, config=cfg)
        found: list[set[str]] = [set() for _ in rep]
        for sp in spans:
            # sentence whose start is the last one <= span start
            k = max(i for i, st in enumerate(starts) if st <= sp.answer_span.char_start)
            found[k].update(c.source_id for c in sp.citations)
        for (_, ids), f in zip(rep, found):
            citations += len(ids)
            supported += sum(d in f for d in ids)
            sentences += 1
    return citations, supported, sentences


def _judge_prepared(units, docs) -> tuple[int, int, int]:
    from cite_right import PreparedCitationCorpus, SourceDocument

    _, _, CitationConfig = _cite_right()
    cfg = CitationConfig()
    cache: dict[str, object] = {}
    citations = supported = sentences = 0
    for text, ids in units:
        for d in ids:
            corpus = cache.get(d)
            if corpus is None:
                corpus = cache[d] = PreparedCitationCorpus.from_sources(
                    [SourceDocument(id=d, text=docs[d])], config=cfg
                )
            spans = corpus.align(text)
            citations += 1
            supported += any(sp.citations for sp in spans)
        sentences += 1
    return citations, supported, sentences


_JUDGES = {"sentence": _judge_sentences, "report": _judge_reports, "prepared": _judge_prepared}
MODES = tuple(_JUDGES)


def _judge(units, docs, mode: str):
    return _JUDGES[mode](units, docs)


def _worker_init(pickle_path: str, rayon_threads: int | None, mode: str) -> None:
    global _SEL
    if rayon_threads:
        os.environ["RAYON_NUM_THREADS"] = str(rayon_threads)
    with open(pickle_path, "rb") as f:
        _SEL = pickle.load(f)
    units = _units(_SEL, mode)
    _judge(units[:1], _SEL["docs"], mode)  # warm-up


def _worker_run(args):
    lo, hi, mode = args
    return _judge(_units(_SEL, mode)[lo:hi], _SEL["docs"], mode)


def _available() -> tuple[bool, str]:
    try:
        import cite_right

        return True, getattr(cite_right, "__version__", "?")
    except Exception as e:  # ImportError, or a broken extension module
        return False, f"{type(e).__name__}: {e}"


def measure(
    workload_dir: str | os.PathLike,
    n: int = DEFAULT_N,
    processes: int = 1,
    mode: str = "sentence",
    rayon_threads: int | None = None,
    selection: dict | None = None,
    repeats: int = 3,
) -> dict:
    """cite-right's citations/s judging the first ``n`` cited sentences of ``workload_dir``.

    Returns a dict with ``status`` ("ok" or "skipped"), ``citations``, ``seconds``,
    ``citations_per_s`` (median of ``repeats`` timed passes) and details. ``selection`` (from \
:func:`load_selection`) can be passed to
    reuse one loaded selection across calls.
    """
    ok, version = _available()
    base = {
        "tool": "cite-right",
        "mode": mode,
        "processes": processes,
        "rayon_threads": rayon_threads or os.environ.get("RAYON_NUM_THREADS") or "default",
        "n": n,
    }
    if not ok:
        return {
            **base,
            "status": "skipped",
            "reason": f"cite-right not importable ({version}); pip install cite-right==0.4.0",
        }
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    sel = selection if selection is not None else load_selection(workload_dir, n)
    units = _units(sel, mode)
    docs = sel["docs"]

    if processes <= 1:
        if rayon_threads:
            # Only effective before Rayon's global pool first runs in this process.
            os.environ["RAYON_NUM_THREADS"] = str(rayon_threads)
        _judge(units[:1], docs, mode)  # warm-up (imports, first allocation)
        times = []
        for _ in range(max(1, repeats)):
            t0 = time.perf_counter()
            citations, supported, sentences = _judge(units, docs, mode)
            times.append(time.perf_counter() - t0)
    else:
        ctx = mp.get_context("spawn")
        with tempfile.TemporaryDirectory(prefix="peer_cr_") as tmp:
            path = os.path.join(tmp, "selection.pkl")
            with open(path, "wb") as f:
                pickle.dump(sel, f, protocol=pickle.HIGHEST_PROTOCOL)
            n_chunks = max(processes, min(len(units), processes * 8))
            bounds = [round(i * len(units) / n_chunks) for i in range(n_chunks + 1)]
            tasks = [(bounds[i], bounds[i + 1], mode) for i in range(n_chunks) if bounds[i] < bounds[i + 1]]
            with ctx.Pool(processes, initializer=_worker_init, initargs=(path, rayon_threads, mode)) as pool:
                # make sure every worker finished its initializer before timing
                pool.map(_noop, range(processes * 4), chunksize=1)
                times = []
                for _ in range(max(1, repeats)):
                    t0 = time.perf_counter()
                    parts = pool.map(_worker_run, tasks, chunksize=1)
                    times.append(time.perf_counter() - t0)
        citations = sum(p[0] for p in parts)
        supported = sum(p[1] for p in parts)
        sentences = sum(p[2] for p in parts)

    seconds = statistics.median(times)
    return {
        **base,
        "status": "ok",
        "repeats": len(times),
        "seconds_all": [round(t, 4) for t in times],
        "version": version,
        "sentences": sentences,
        "reports": len(sel["reports"]),
        "citations": citations,
        "supported": supported,
        "seconds": seconds,
        "citations_per_s": citations / seconds if seconds > 0 else float("inf"),
    }


def _noop(_):
    time.sleep(0.05)
    return os.getpid()


def format_table(rows: list[dict]) -> str:
    lines = [
        "| peer | mode | processes | rayon threads | sentences | "
        "citations | seconds (median) | citations/s | supported |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if r["status"] != "ok":
            lines.append(
                f"| cite-right | {r['mode']} | {r['processes']} | {r['rayon_threads']} | - | - | - | skipped | - |"
            )
            continue
        lines.append(
            f"| cite-right {r['version']} | {r['mode']} | {r['processes']} | {r['rayon_threads']} | {r['sentences']} | "
            f"{r['citations']} | {r['seconds']:.2f} | "
            f"{r['citations_per_s']:,.0f} | {r['supported'] / r['citations']:.1%} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="cite-right throughput on a bench workload")
    ap.add_argument("--workload", default=str(HERE / "workloads" / "small"), help="workload directory")
    ap.add_argument("--size", choices=sorted(wl.SIZES), help="generate this size into --workload if absent")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--n", type=int, default=DEFAULT_N, help="cited sentences to judge (default 2000)")
    ap.add_argument("--processes", type=int, nargs="+", default=[1], help="e.g. --processes 1 2")
    ap.add_argument("--mode", choices=[*MODES, "all"], default="sentence")
    ap.add_argument("--rayon-threads", type=int, default=None)
    ap.add_argument("--repeats", type=int, default=3, help="timed passes; the median is reported")
    args = ap.parse_args(argv)

    ok, why = _available()
    if not ok:
        print(f"cite-right is not importable ({why}); install it with `pip install cite-right==0.4.0`.")
        print("status: skipped")
        return 0
    wdir = Path(args.workload)
    if not (wdir / "manifest.json").exists():
        size = args.size or (wdir.name if wdir.name in wl.SIZES else None)
        if size is None:
            print(f"no workload at {wdir} (give --size to generate one)", file=sys.stderr)
            return 2
        print(f"generating {size} workload into {wdir} ...", file=sys.stderr)
        wl.generate(wdir, size, args.seed)

    t0 = time.perf_counter()
    sel = load_selection(wdir, args.n)
    print(
        f"loaded {sum(len(r) for r in sel['reports'])} sentences / {len(sel['reports'])} reports / "
        f"{len(sel['docs'])} documents from {wdir} in {time.perf_counter() - t0:.1f}s",
        file=sys.stderr,
    )
    modes = list(MODES) if args.mode == "all" else [args.mode]
    rows = [
        measure(wdir, args.n, p, mode=m, rayon_threads=args.rayon_threads, selection=sel, repeats=args.repeats)
        for m in modes
        for p in args.processes
    ]
    print(format_table(rows))
    print("status: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
