"""One answer at a time: ``judges.check_answer`` beside cite-right 0.4 on the same answers and sources.

Usage::

    python bench/answer_api.py [--data ../shared/data] [--repeats 3]

cite-right is a bench-only dependency (``pip install cite-right==0.4.0``); without it only
citejudge's figures are printed. Both are called in one process, as a RAG system would call them.

1. **Latency** on real rag24-support answers: every report with at least 10 sentences and 5 cited
   segments with text (MS MARCO v2.1 segments, about 200-300 words each), its first 10 sentences
   against 5 of its segments, without citations (both tools find the sources). ``first`` is the
   first call in the process (citejudge loads its Numba kernels then), ``warm`` the median of the
   later calls (``--repeats`` passes over the answers).
2. **Discovery against people** on rag24-support with the citations removed: each answer's
   sentences against all the segments its run cited, both tools finding the sources; a labelled
   (sentence, segment) pair counts as found when the tool returns that segment for that sentence
   (citejudge: ``supported`` or ``partial``; cite-right: any citation from it). Recall over the
   pairs NIST's assessors labelled supported (full), or supported or partially; precision over
   the labelled pairs a tool found. And AttributionBench dev (one claim, its evidence):
   attributable pairs found (recall) and found pairs attributable (precision).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import judges  # noqa: E402


def rag24(data: Path) -> list[dict]:
    """rag24-support's reports: run, topic, sentence texts, the cited segments with text."""
    d = data / "rag24-support"
    segments = {}
    for line in open(d / "segments.jsonl", encoding="utf-8"):
        s = json.loads(line)
        segments[s["docid"]] = s["segment"]
    reports = []
    for path in sorted((d / "runs").glob("*.jsonl")):
        for line in open(path, encoding="utf-8"):
            r = json.loads(line)
            texts = [a["text"] if isinstance(a.get("text"), str) else "" for a in r["answer"]]
            refs = [ref for ref in dict.fromkeys(r["references"]) if ref in segments]
            reports.append(
                {
                    "run_id": r["run_id"],
                    "topic_id": r["topic_id"],
                    "sentences": texts,
                    "sources": [(ref, segments[ref]) for ref in refs],
                }
            )
    return reports


def labels(data: Path) -> dict[tuple, str]:
    out = {}
    for line in open(data / "rag24-support" / "labels.jsonl", encoding="utf-8"):
        x = json.loads(line)
        out[(x["run_id"], x["topic_id"], x["sentence_index"], x["doc_id"])] = x["label"]
    return out


def ours(sentences: list[str], sources: list[tuple[str, str]]) -> dict[int, set[str]]:
    checked = judges.check_answer(sentences, sources)
    return {s.index: {c.source_id for c in s.citations} for s in checked.sentences}


def theirs(sentences: list[str], sources: list[tuple[str, str]]) -> dict[int, set[str]]:
    """cite-right on the sentences joined by a space; each span mapped back to its sentence."""
    from cite_right import SourceDocument, align_citations

    starts, text = [], ""
    for s in sentences:
        starts.append(len(text))
        text += s + " "
    spans = align_citations(text, [SourceDocument(id=i, text=t) for i, t in sources])
    found: dict[int, set[str]] = {}
    for span in spans:
        index = max(i for i, start in enumerate(starts) if start <= span.answer_span.char_start)
        found.setdefault(index, set()).update(c.source_id for c in span.citations)
    return found


def latency(reports: list[dict], tools: dict, repeats: int) -> None:
    cases = [
        (r["sentences"][:10], r["sources"][:5])
        for r in reports
        if sum(1 for s in r["sentences"] if s.strip()) >= 10 and len(r["sources"]) >= 5
    ]
    words = statistics.mean(len(t.split()) for _, srcs in cases for _, t in srcs)
    print(f"## Latency: {len(cases)} real answers, 10 sentences against 5 segments ({words:.0f} words on average)\n")
    print("| tool | first call ms | warm median ms | warm p90 ms |")
    print("|---|---:|---:|---:|")
    for name, call in tools.items():
        t = time.perf_counter()
        call(*cases[0])
        first = (time.perf_counter() - t) * 1000
        times = []
        for _ in range(repeats):
            for sentences, sources in cases:
                t = time.perf_counter()
                call(sentences, sources)
                times.append((time.perf_counter() - t) * 1000)
        times.sort()
        p90 = times[int(0.9 * (len(times) - 1))]
        print(f"| {name} | {first:.0f} | {statistics.median(times):.1f} | {p90:.1f} |", flush=True)


def discovery(reports: list[dict], gold: dict[tuple, str], tools: dict) -> None:
    print("\n## Discovery on rag24-support, citations removed (labelled pairs only)\n")
    print("| tool | recall, full | recall, full or partial | precision (full or partial) | precision (full) | found |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, call in tools.items():
        hits = {"full": [0, 0], "any": [0, 0]}
        found_pairs = found_any = found_full = 0
        for r in reports:
            if not r["sources"]:
                continue
            found = call(r["sentences"], r["sources"])
            for i in range(len(r["sentences"])):
                for doc_id, _ in r["sources"]:
                    label = gold.get((r["run_id"], r["topic_id"], i, doc_id))
                    if label is None:
                        continue
                    got = doc_id in found.get(i, ())
                    for kind, positive in (("full", label == "supported"), ("any", label != "not_supported")):
                        if positive:
                            hits[kind][0] += got
                            hits[kind][1] += 1
                    if got:
                        found_pairs += 1
                        found_any += label != "not_supported"
                        found_full += label == "supported"
        print(
            f"| {name} | {hits['full'][0] / hits['full'][1]:.3f} | {hits['any'][0] / hits['any'][1]:.3f} "
            f"| {found_any / max(found_pairs, 1):.3f} | {found_full / max(found_pairs, 1):.3f} | {found_pairs} |",
            flush=True,
        )


def attributionbench(data: Path, tools: dict) -> None:
    path = data / "attributionbench" / "dev_all_subset_balanced.jsonl"
    if not path.exists():
        return
    rows = [json.loads(line) for line in open(path, encoding="utf-8")]
    print(f"\n## AttributionBench dev ({len(rows)} claim / evidence pairs)\n")
    print("| tool | recall (attributable found) | precision (found attributable) | found |")
    print("|---|---:|---:|---:|")
    for name, call in tools.items():
        tp = fp = fn = 0
        for x in rows:
            claim, evidence = (
                x["claim"],
                " ".join(x["references"]) if isinstance(x["references"], list) else x["references"],
            )
            got = bool(call([claim], [("e", evidence)]).get(0))
            positive = x["attribution_label"] == "attributable"
            tp += got and positive
            fp += got and not positive
            fn += positive and not got
        print(f"| {name} | {tp / (tp + fn):.3f} | {tp / max(tp + fp, 1):.3f} | {tp + fp} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    tools = {"citejudge check_answer": ours}
    try:
        import cite_right  # noqa: F401

        tools["cite-right 0.4 align_citations"] = theirs
    except ImportError:
        print("cite-right not importable: its rows are left out (pip install cite-right==0.4.0)\n")
    reports = rag24(args.data)
    latency(reports, tools, args.repeats)
    discovery(reports, labels(args.data), tools)
    attributionbench(args.data, tools)


if __name__ == "__main__":
    main()
