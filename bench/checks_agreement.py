"""How often would the grounding cap fire on human-labelled pairs? (``judges.checks``, no model)

    python bench/checks_agreement.py [--data /work/shared/data] [--judge] [--workflow workflows/citation.yml]
                                     [--workers 2] [--show N]

The cap fires on a (claim, evidence) pair when the claim states a number or an entity that the
evidence lacks: ``judges.checks.missing(Claim(claim, context=answer), Source(evidence))`` returns
a non-empty ``numbers`` or ``entities`` list, with the library's default options.

Sets (loaded with the functions of ``bench/agreement.py``, so the evidence is built the same way):

* AttributionBench dev (1198 pairs, 599 attributable): the set the extraction rules were tuned
  on. The context is the pair's full ``response`` (the whole answer), as a judge would pass it.
  The issue's criterion: the cap fires on at most 5% of attributable pairs.
* WiCE dev (349 claims), when present: a check that the rates carry over to another set. It was
  not used for tuning except once: its supported claims the cap fired on showed that years inside
  ISO dates (``2004-10-19``) were not read, which was fixed for all text. The context is the
  claim itself.

Printed: per human label, how many pairs the cap fires on (either reason, numbers, entities),
by AttributionBench source dataset too, and with the entity options that were tuned
(``single_words``, ``partial``) switched. ``--show N`` lists N fired attributable pairs.

With ``--judge``, the citation judge is also run through the CLI (``bench/agreement.py``'s
``judge``, a minute or two each) twice, with ``grounding.cap: []`` and with the cap on, and the
balanced accuracy and macro-F1 (``binary_scores``) of its "supported" decision are printed for
both, with how many citations the cap lowered per human label. Inside the judge the context of
a claim is its report, which here holds the claim alone.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from agreement import (
    AB_FILE,
    DATA,
    WICE_FILE,
    binary_scores,
    fmt,
    judge,
    load_attributionbench,
    load_wice,
    read_jsonl,
    table,
)

from judges.checks import Claim, Source, missing


def share(k: int, n: int) -> str:
    return f"{k} ({100.0 * k / n:.1f}%)" if n else str(k)


def fire_table(labels: list[str], fired: list[tuple[bool, bool]], order: list[str]) -> str:
    rows = []
    for label in order:
        sel = [f for lab, f in zip(labels, fired) if lab == label]
        n = len(sel)
        either = sum(a or b for a, b in sel)
        nums = sum(a for a, _ in sel)
        ents = sum(b for _, b in sel)
        rows.append([label, str(n), share(either, n), share(nums, n), share(ents, n)])
    return table(["human label", "pairs", "cap fires", "number missing", "entity missing"], rows)


def check(
    items: list[dict],
    contexts: list[str],
    single_words: bool = False,
    partial: bool = True,
) -> tuple[list[tuple[bool, bool]], list, float]:
    t0 = time.perf_counter()
    results = [
        missing(Claim(it["claim"], context=ctx, single_words=single_words), Source(it["evidence"]), partial=partial)
        for it, ctx in zip(items, contexts)
    ]
    seconds = time.perf_counter() - t0
    return [(bool(m.numbers), bool(m.entities)) for m in results], results, seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="folder with attributionbench/ (and wice/)")
    ap.add_argument("--judge", action="store_true", help="also run the citation judge (CLI) and combine")
    ap.add_argument("--workflow", type=Path, default=ROOT / "workflows" / "citation.yml")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--show", type=int, default=0, help="list this many fired attributable pairs")
    args = ap.parse_args()

    ab_path = args.data / AB_FILE
    if not ab_path.exists():
        print(f"{ab_path} is missing")
        return 2
    items = load_attributionbench(ab_path)
    responses = [r["response"] for r in read_jsonl(ab_path)]
    fired, results, seconds = check(items, responses)
    labels = ["attributable" if it["positive"] else "not attributable" for it in items]

    print("# Grounding cap vs human labels\n")
    print("## AttributionBench dev (rules tuned on this set)\n")
    print(f"{len(items)} pairs checked in {seconds:.2f} s (extraction of claim and evidence included).\n")
    print(fire_table(labels, fired, ["attributable", "not attributable"]) + "\n")
    rows = []
    for src in sorted({it["src"] for it in items}):
        for label in ("attributable", "not attributable"):
            sel = [f for it, lab, f in zip(items, labels, fired) if it["src"] == src and lab == label]
            k = sum(a or b for a, b in sel)
            rows.append([src, label, str(len(sel)), f"{k} ({100.0 * k / len(sel):.1f}%)"])
    print(table(["source", "human label", "pairs", "cap fires"], rows, right_from=2) + "\n")

    rows = []
    positive = [lab == "attributable" for lab in labels]
    for single, partial in ((False, True), (True, True), (False, False), (True, False)):
        alt = fired if (single, partial) == (False, True) else check(items, responses, single, partial)[0]
        rate = [sum(a or b for (a, b), p in zip(alt, positive) if p == want) for want in (True, False)]
        ent = [sum(b for (_, b), p in zip(alt, positive) if p == want) for want in (True, False)]
        rows.append(
            [
                f"single_words={single}, partial={partial}" + (" (default)" if not single and partial else ""),
                f"{rate[0]} ({100.0 * rate[0] / sum(positive):.1f}%)",
                f"{ent[0]}",
                f"{rate[1]} ({100.0 * rate[1] / (len(positive) - sum(positive)):.1f}%)",
                f"{ent[1]}",
            ]
        )
    print("Entity options (numbers unchanged):\n")
    print(
        table(["entity options", "fires: attributable", "by entities", "fires: not attributable", "by entities"], rows)
        + "\n"
    )

    if args.show:
        print(f"Fired on attributable pairs (first {args.show}):\n")
        shown = 0
        for it, lab, m in zip(items, labels, results):
            if lab == "attributable" and (m.numbers or m.entities) and shown < args.show:
                print(f"- numbers {m.numbers} entities {m.entities}: {it['claim'][:160]!r}")
                shown += 1
        print()

    wice_path = args.data / WICE_FILE
    if wice_path.exists():
        wice = load_wice(wice_path)
        w_fired, _, w_seconds = check(wice, [it["claim"] for it in wice])
        print("## WiCE dev (a second set; see the notes above)\n")
        print(f"{len(wice)} claims checked in {w_seconds:.2f} s.\n")
        print(
            fire_table([it["label"] for it in wice], w_fired, ["supported", "partially_supported", "not_supported"])
            + "\n"
        )

    if args.judge:
        positive = np.array([it["positive"] for it in items])
        rows = []
        with tempfile.TemporaryDirectory(prefix="citejudge-checks-") as tmp:
            base = yaml.safe_load(args.workflow.read_text(encoding="utf-8")) or {}
            for name, cap in (
                ("judge, grounding cap off", []),
                ("judge, grounding cap on (default)", ["numbers", "entities"]),
            ):
                workflow = Path(tmp) / f"cap-{len(cap)}.yml"
                workflow.write_text(yaml.safe_dump({**base, "grounding": {**base.get("grounding", {}), "cap": cap}}))
                df, judge_s = judge(Path(tmp) / f"attributionbench-{len(cap)}", items, workflow, args.workers)
                df = df.loc[[it["id"] for it in items]]
                predicted = (df["status"] == "supported").to_numpy()
                capped = df["capped"].to_numpy()
                ba, f1 = binary_scores(predicted, positive)
                c = Counter(zip(predicted.tolist(), positive.tolist()))
                rows.append(
                    [
                        name,
                        f"{judge_s:.1f}",
                        str(int(predicted.sum())),
                        str(c[(True, True)]),
                        str(c[(True, False)]),
                        share(int((capped & positive).sum()), int(positive.sum())),
                        share(int((capped & ~positive).sum()), int((~positive).sum())),
                        fmt(ba),
                        fmt(f1),
                    ]
                )
        print(f"## The citation judge with and without the cap (`{args.workflow.name}`, CLI, alignment only)\n")
        print("'capped' counts citations the judge lowered from supported to partial.\n")
        print(
            table(
                [
                    "judge",
                    "CLI s",
                    "supported",
                    "true pos",
                    "false pos",
                    "capped: attributable",
                    "capped: not attributable",
                    "bal. acc",
                    "macro-F1",
                ],
                rows,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
