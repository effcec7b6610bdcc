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
   (citejudge: the sources ``check_answer`` keeps; cite-right: any citation from it). Recall over
   the pairs NIST's assessors labelled supported (full), or supported or partially; precision over
   the labelled pairs a tool found; balanced accuracy (the mean of the recall and the share of
   the other pairs left out) for the two positive classes. The support model is the shipped one,
   fitted on these labels: in-sample for citejudge (``bench/discovery.py`` scores it on topics the
   model never saw). And AttributionBench dev (one claim, its evidence): attributable pairs found
   (recall), found pairs attributable (precision), balanced accuracy. ``citejudge, partial floor 0``
   is the discovery rule before :data:`judges.api.answer.PARTIAL_FLOOR` (every source judged as a
   citation, then :func:`judges.api.answer.discovered` at floor 0).
3. **Evidence offsets** where both tools found a source for a sentence (rag24-support, as in 2):
   how often the two evidence spans are the same, overlap by more than half (shared characters
   over the characters either covers), or do not overlap.
4. **Evidence against people** on WiCE dev: each claim people labelled supported or partially
   supported against its cited web page (sentences joined by a newline): how often each tool
   finds the page, and whether the evidence it gives lies in the sentences people marked as
   supporting the claim (at least one character; the share of its characters), and with every
   evidence span (multi-span evidence) the share of their characters in marked sentences and the
   share of the marked sentences they reach.

SALAD-shaped answers (long reports over many passages) are not in ``../shared/data``; the long
documents of WiCE stand in for them.
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
from judges.api.answer import discovered  # noqa: E402


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


Span = tuple[int, int]
#: sentence index -> source id -> (the contiguous evidence, every evidence span)
Found = dict[int, dict[str, tuple[Span, tuple[Span, ...]]]]


def ours(sentences: list[str], sources: list[tuple[str, str]]) -> Found:
    checked = judges.check_answer(sentences, sources)
    return {
        s.index: {
            c.source_id: ((c.char_start, c.char_end), tuple(x[:2] for x in c.evidence_spans)) for c in s.citations
        }
        for s in checked.sentences
    }


def before(sentences: list[str], sources: list[tuple[str, str]]) -> Found:
    """``check_answer``'s discovery with partial floor 0 (the rule before the floor), from the
    judgments of every source as a citation of every sentence."""
    ids = [i for i, _ in sources]
    checked = judges.check_answer(sentences, sources, citations=[ids] * len(sentences))
    return {
        s.index: {
            c.source_id: ((c.char_start, c.char_end), tuple(x[:2] for x in c.evidence_spans))
            for c in discovered(s.citations, 0.0)
        }
        for s in checked.sentences
    }


def theirs(sentences: list[str], sources: list[tuple[str, str]]) -> Found:
    """cite-right on the sentences joined by a space; each span mapped back to its sentence (a
    source cited by two spans of one sentence: the first one's evidence)."""
    from cite_right import SourceDocument, align_citations

    starts, text = [], ""
    for s in sentences:
        starts.append(len(text))
        text += s + " "
    spans = align_citations(text, [SourceDocument(id=i, text=t) for i, t in sources])
    found: Found = {}
    for span in spans:
        index = max(i for i, start in enumerate(starts) if start <= span.answer_span.char_start)
        for c in span.citations:
            spans = tuple((e.char_start, e.char_end) for e in c.evidence_spans)
            found.setdefault(index, {}).setdefault(c.source_id, ((c.char_start, c.char_end), spans))
    return found


def latency(reports: list[dict], tools: dict, repeats: int) -> None:
    cases = [
        (r["sentences"][:10], r["sources"][:5])
        for r in reports
        if sum(1 for s in r["sentences"] if s.strip()) >= 10 and len(r["sources"]) >= 5
    ]
    words = statistics.mean(len(t.split()) for _, srcs in cases for _, t in srcs)
    print(f"## Latency: {len(cases)} real answers, 10 sentences against 5 segments ({words:.0f} words on average)\n")
    print("| tool | first call ms | warm median ms | warm p90 ms | warm median CPU ms |")
    print("|---|---:|---:|---:|---:|")
    for name, call in tools.items():
        t = time.perf_counter()
        call(*cases[0])
        first = (time.perf_counter() - t) * 1000
        times, cpu = [], []
        for _ in range(repeats):
            for sentences, sources in cases:
                t, c = time.perf_counter(), time.process_time()
                call(sentences, sources)
                times.append((time.perf_counter() - t) * 1000)
                cpu.append((time.process_time() - c) * 1000)
        times.sort()
        p90 = times[int(0.9 * (len(times) - 1))]
        row = f"| {name} | {first:.0f} | {statistics.median(times):.1f} | {p90:.1f} | {statistics.median(cpu):.1f} |"
        print(row, flush=True)


def discovery(reports: list[dict], gold: dict[tuple, str], tools: dict) -> dict[str, list[Found]]:
    """Prints the table; returns each tool's findings per report (for :func:`offsets`)."""
    print("\n## Discovery on rag24-support, citations removed (labelled pairs only; citejudge in-sample)\n")
    print(
        "| tool | recall, full | recall, full or partial | precision (full or partial) | precision (full) | found "
        "| balanced accuracy, full | balanced accuracy, any |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    everything = {}
    for name, call in tools.items():
        hits = {"full": [0, 0], "any": [0, 0]}
        found_pairs = found_any = found_full = labelled = 0
        everything[name] = per_report = []
        for r in reports:
            found = call(r["sentences"], r["sources"]) if r["sources"] else {}
            per_report.append(found)
            if not r["sources"]:
                continue
            for i in range(len(r["sentences"])):
                for doc_id, _ in r["sources"]:
                    label = gold.get((r["run_id"], r["topic_id"], i, doc_id))
                    if label is None:
                        continue
                    labelled += 1
                    got = doc_id in found.get(i, ())
                    for kind, positive in (("full", label == "supported"), ("any", label != "not_supported")):
                        if positive:
                            hits[kind][0] += got
                            hits[kind][1] += 1
                    if got:
                        found_pairs += 1
                        found_any += label != "not_supported"
                        found_full += label == "supported"
        ba = {  # the mean of the positives kept and the negatives left out
            kind: (hits[kind][0] / hits[kind][1] + 1 - (found_pairs - found) / (labelled - hits[kind][1])) / 2
            for kind, found in (("full", found_full), ("any", found_any))
        }
        print(
            f"| {name} | {hits['full'][0] / hits['full'][1]:.3f} | {hits['any'][0] / hits['any'][1]:.3f} "
            f"| {found_any / max(found_pairs, 1):.3f} | {found_full / max(found_pairs, 1):.3f} | {found_pairs} "
            f"| {ba['full']:.3f} | {ba['any']:.3f} |",
            flush=True,
        )
    return everything


def overlap(a: tuple[int, int], b: tuple[int, int]) -> float:
    """Characters two spans share over the characters either covers (0 when both are empty)."""
    inter = max(0, min(a[1], b[1]) - max(a[0], b[0]))
    union = (a[1] - a[0]) + (b[1] - b[0]) - inter
    return inter / union if union > 0 else 0.0


def offsets(everything: dict[str, list[Found]]) -> None:
    """Where both tools found a source for a sentence, how far their evidence offsets agree."""
    if len(everything) < 2:
        return
    (_, mine), (_, other) = list(everything.items())[:2]
    ious = [
        overlap(span[0], other[r][i][source][0])
        for r, found in enumerate(mine)
        for i, sources in found.items()
        for source, span in sources.items()
        if source in other[r].get(i, {})
    ]
    exact = sum(x == 1.0 for x in ious)
    print(f"\n## Evidence offsets where both found the source for the sentence ({len(ious)} pairs)\n")
    print("| same span | overlap > 0.5 | no overlap | mean overlap (shared / either's characters) |")
    print("|---:|---:|---:|---:|")
    n = max(len(ious), 1)
    print(
        f"| {exact / n:.3f} | {sum(x > 0.5 for x in ious) / n:.3f} | {sum(x == 0 for x in ious) / n:.3f} "
        f"| {statistics.mean(ious) if ious else 0:.3f} |"
    )


def wice(data: Path, tools: dict) -> None:
    """WiCE dev: claims people labelled supported or partially supported, against the cited page
    (its sentences joined by a newline); the evidence each tool gives, against the sentences people
    marked as supporting it."""
    path = data / "wice" / "claim_dev.jsonl"
    if not path.exists():
        return
    items = []
    for line in open(path, encoding="utf-8"):
        x = json.loads(line)
        gold = sorted({i for group in x["supporting_sentences"] for i in group})
        if x["label"] == "not_supported" or not gold:
            continue
        spans, text = [], ""
        for sentence in x["evidence"]:
            spans.append((len(text), len(text) + len(sentence)))
            text += sentence + "\n"
        items.append((x["claim"], text, [spans[i] for i in gold if i < len(spans)], x["label"]))
    full = sum(label == "supported" for *_, label in items)
    print(f"\n## WiCE dev: evidence against the supporting sentences people marked ({len(items)} claims)\n")
    print(
        f"| tool | found: supported ({full}) | found: partially ({len(items) - full}) | evidence in a marked sentence "
        "| its characters in marked sentences | every span: characters in marked sentences | marked sentences reached |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")

    def shared(span: Span, gold: list[Span]) -> int:
        return sum(max(0, min(span[1], b) - max(span[0], a)) for a, b in gold)

    for name, call in tools.items():
        found, hit, inside, inside_all, reached = {"supported": 0, "partially_supported": 0}, 0, [], [], []
        for claim, text, gold, label in items:
            got = call([claim], [("page", text)]).get(0, {}).get("page")
            if got is None:
                continue
            (span, spans), found[label] = got, found[label] + 1
            spans = spans or (span,)
            hit += shared(span, gold) > 0
            inside.append(shared(span, gold) / max(span[1] - span[0], 1))
            inside_all.append(sum(shared(x, gold) for x in spans) / max(sum(b - a for a, b in spans), 1))
            reached.append(sum(any(shared(x, [g]) for x in spans) for g in gold) / len(gold))
        print(
            f"| {name} | {found['supported'] / full:.3f} | {found['partially_supported'] / (len(items) - full):.3f} "
            f"| {hit / max(len(inside), 1):.3f} | {statistics.mean(inside) if inside else 0:.3f} "
            f"| {statistics.mean(inside_all) if inside else 0:.3f} | {statistics.mean(reached) if inside else 0:.3f} |",
            flush=True,
        )


def attributionbench(data: Path, tools: dict) -> None:
    path = data / "attributionbench" / "dev_all_subset_balanced.jsonl"
    if not path.exists():
        return
    rows = [json.loads(line) for line in open(path, encoding="utf-8")]
    print(f"\n## AttributionBench dev ({len(rows)} claim / evidence pairs)\n")
    print(
        "| tool | recall (attributable found) | precision (found attributable) | found "
        "| not attributable left out | balanced accuracy |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for name, call in tools.items():
        tp = fp = fn = tn = 0
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
            tn += not positive and not got
        left = tn / (tn + fp)
        print(
            f"| {name} | {tp / (tp + fn):.3f} | {tp / max(tp + fp, 1):.3f} | {tp + fp} | {left:.3f} "
            f"| {(tp / (tp + fn) + left) / 2:.3f} |",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--latency-only", action="store_true", help="only the latency table")
    args = ap.parse_args()
    tools = {"citejudge check_answer": ours}
    try:
        import cite_right  # noqa: F401

        tools["cite-right 0.4 align_citations"] = theirs
    except ImportError:
        print("cite-right not importable: its rows are left out (pip install cite-right==0.4.0)\n")
    reports = rag24(args.data)
    latency(reports, tools, args.repeats)
    if args.latency_only:
        return
    tools["citejudge, partial floor 0 (the rule before)"] = before
    offsets(discovery(reports, labels(args.data), tools))
    attributionbench(args.data, tools)
    wice(args.data, tools)


if __name__ == "__main__":
    main()
