"""An independent adversarial harness for citejudge's command line (a bench, not a test).

It builds a scratch copy of small valid inputs and one good output set per command family, then
runs several hundred mutated inputs (one defect each, seeded) and process faults (SIGINT/SIGTERM)
through the real CLI (``sys.executable run_judge.py ...``) and classifies every result:

* **crash**: a Python traceback on stderr, a signal exit or a timeout;
* **misleading**: exit 0 on an input that should be refused, or an error that does not name the file;
* **silent loss**: exit 0 but fewer citations/labels/answers than the input holds, without a
  warning that gives a count;
* **damage**: the out-dir's previous output set changed although the command failed, or any file
  created or changed outside the out-dir (the case directory around it, its sentinel directory,
  the shared inputs and good sets);
* **ok**: otherwise (a refusal naming the file, or a success that loses nothing).

Usage::

    python bench/adversarial.py                  # every family, a table, non-ok cases listed
    python bench/adversarial.py --list           # the cases, one a line
    python bench/adversarial.py --only runs --only faults --json results.json

Each case runs in its own directory ``WORK/NNN-family-name/`` (the process's working directory):
``in/`` its inputs, ``out/`` the out-dir holding a good output set, ``sentinel/`` a file that must
stay as it is. See docs/develop/harness.md.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
SEED = 20261207
TIMEOUT = 300  # seconds per CLI call: generous, the machine is loaded
CLASSES = ("ok", "crash", "misleading", "silent loss", "damage")

# -- the cases --------------------------------------------------------------------------------------
Make = Callable[[Path], None]  # writes a case's mutated inputs into its in/ directory


@dataclass
class Case:
    family: str
    name: str
    args: list[str]  # run_judge.py arguments, relative to the case directory (in/..., out)
    make: Optional[Make] = None
    expect: str = "refuse"  # refuse | accept | either
    names: Optional[str] = None  # what an error line must name (a file's base name)
    out_set: Optional[str] = "cite"  # the good set copied into out/ first (None: an empty out/)
    count: Optional[tuple[str, int]] = None  # (regex with one group on stdout, the count the input holds)
    writes_beside: tuple[str, ...] = ()  # paths under in/ a success may create (corpus index)
    fault: Optional[tuple[str, str]] = None  # (signal name, trigger: "event" | "time")
    same_as_good: bool = False  # exit 0 is ok when out/ then equals the good set (a forged value ignored)
    may_change: tuple[str, ...] = ()  # out/ files a failing command may change (attest import: the cache)


def edit_lines(path: Path, fn: Callable[[list[dict]], None]) -> None:
    """Rewrite a JSON Lines file after ``fn`` changed its records in place."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    fn(records)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


def mut_record(rel: str, fn: Callable[[dict], None], index: int = 0) -> Make:
    def make(d: Path) -> None:
        edit_lines(d / rel, lambda rs: fn(rs[index]))

    return make


def set_path(obj: dict, dotted: str, value: object) -> None:
    keys = dotted.split(".")
    for k in keys[:-1]:
        obj = obj[int(k)] if isinstance(obj, list) else obj[k]
    last = keys[-1]
    if isinstance(obj, list):
        obj[int(last)] = value
    elif value is DELETE:
        obj.pop(last, None)
    else:
        obj[last] = value


DELETE = object()


def field_cases(family, rel, args, mutations, count=None, out_set="cite") -> list[Case]:
    """One case per (name, dotted field, value, expect) mutation of the first record of ``rel``."""
    cases = []
    for name, dotted, value, expect in mutations:
        make = mut_record(rel, lambda r, p=dotted, v=value: set_path(r, p, v))
        cases.append(Case(family, name, args, make, expect, Path(rel).name, out_set, count))
    return cases


CORE = (
    "truncated mid-record",
    "latin-1 encoded",
    "UTF-16 with BOM",
    "UTF-8 BOM",
    "invalid JSON at line 2",
    "empty file",
)
CORE += ("a directory instead", "missing")  # the byte-level defects of a secondary file


def file_cases(
    family: str, rel: str, args: list[str], count=None, out_set="cite", skip=(), only: tuple[str, ...] = ()
) -> list[Case]:
    """The byte-level defects of one input file (``rel`` under in/)."""
    base = Path(rel).name

    def rewrite(fn: Callable[[bytes], bytes]) -> Make:
        def make(d: Path) -> None:
            p = d / rel
            p.write_bytes(fn(p.read_bytes()))

        return make

    def replace_with_dir(d: Path) -> None:
        p = d / rel
        p.unlink()
        p.mkdir()

    def invalid_line(k: int) -> Make:
        def fn(data: bytes) -> bytes:
            lines = data.split(b"\n")
            k2 = min(k, len([x for x in lines if x.strip()])) - 1
            lines[k2] = lines[k2][: max(1, len(lines[k2]) // 2)]
            return b"\n".join(lines)

        return rewrite(fn)

    def accented(data: bytes) -> str:
        return data.decode("utf-8").replace('"text": "', '"text": "Caf\u00e9 ', 1).replace('", "', ' na\u00efve", "', 1)

    def mixed(data: bytes) -> bytes:  # the first half UTF-8, the rest latin-1
        text = accented(data)
        cut = text.index("\n") + 1 if "\n" in text.strip() else len(text) // 2
        return text[:cut].encode("utf-8") + text[cut:].encode("latin-1", "replace")

    defects: list[tuple[str, Make, str]] = [
        ("truncated mid-record", rewrite(lambda b: b[: int(len(b) * 0.6)]), "refuse"),
        ("truncated to 10 bytes", rewrite(lambda b: b[:10]), "refuse"),
        ("latin-1 encoded", rewrite(lambda b: accented(b).encode("latin-1", "replace")), "refuse"),
        ("half latin-1", rewrite(mixed), "refuse"),
        ("UTF-16 with BOM", rewrite(lambda b: b.decode("utf-8").encode("utf-16")), "either"),
        ("UTF-16-LE no BOM", rewrite(lambda b: b.decode("utf-8").encode("utf-16-le")), "refuse"),
        ("UTF-8 BOM", rewrite(lambda b: b"\xef\xbb\xbf" + b), "either"),
        ("CRLF line ends", rewrite(lambda b: b.replace(b"\n", b"\r\n")), "either"),
        ("invalid JSON at line 1", invalid_line(1), "refuse"),
        ("invalid JSON at line 2", invalid_line(2), "refuse"),
        ("invalid JSON at last line", invalid_line(10**6), "refuse"),
        ("NUL byte inside", rewrite(lambda b: b[: len(b) // 3] + b"\x00" + b[len(b) // 3 :]), "refuse"),
        ("random binary", rewrite(lambda b: random.Random(SEED).randbytes(len(b))), "refuse"),
        ("empty file", rewrite(lambda b: b""), "refuse"),
        ("only blank lines", rewrite(lambda b: b"\n\n  \n"), "refuse"),
        ("a JSON scalar", rewrite(lambda b: b"42\n"), "refuse"),
        ("a JSON array of numbers", rewrite(lambda b: b"[1, 2, 3]\n"), "refuse"),
        ("records of another kind", rewrite(lambda b: b'{"foo": 1, "bar": [2]}\n'), "refuse"),
        ("gzip bytes, plain name", rewrite(gzip.compress), "either"),
        ("truncated gzip bytes", rewrite(lambda b: gzip.compress(b)[:40]), "refuse"),
        ("a directory instead", replace_with_dir, "refuse"),
        ("missing", lambda d: (d / rel).unlink(), "refuse"),
    ]
    return [
        Case(family, f"{base}: {name}", args, make, expect, base, out_set, count)
        for name, make, expect in defects
        if name not in skip and (not only or name in only)
    ]


# -- inputs and arguments ----------------------------------------------------------------------------
R25 = ["--rag-topics", "in/rag25/topics.jsonl", "--rag-responses", "in/rag25/runs", "--corpus", "in/rag25/corpus.jsonl"]
JUDGE = [*R25, "--out-dir", "out", "--no-debug-log"]
CITED = r"citations judged\s+(\d+)"


def n_citations(runs: list[Path]) -> int:
    total = 0
    for p in runs:
        for line in p.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rec = json.loads(line)
                for s in rec.get("answer") or rec.get("responses") or rec.get("sentences") or []:
                    total += len(s.get("citations") or [])
    return total


def topics_family(base: Path) -> list[Case]:
    count = (CITED, n_citations(sorted((base / "rag25/runs").glob("*.jsonl"))))
    rel = "rag25/topics.jsonl"
    extra = ("NUL byte inside", "invalid JSON at line 1", "truncated to 10 bytes", "CRLF line ends", "half latin-1")
    cases = file_cases("topics", rel, JUDGE, count, skip=("a directory instead",), only=CORE + extra)
    cases.append(Case("topics", "topics: an empty directory", JUDGE, lambda d: _emptydir(d / rel), "refuse", "topics"))
    cases += field_cases(
        "topics",
        rel,
        JUDGE,
        [
            ("id missing", "id", DELETE, "refuse"),
            ("id null", "id", None, "refuse"),
            ("id a list", "id", ["rag25-01"], "refuse"),
            ("id empty", "id", "", "refuse"),
            ("id with a tab", "id", "rag25\t01", "refuse"),
            ("id 'all'", "id", "all", "refuse"),
            ("id a float", "id", 1.5, "refuse"),
            ("id true", "id", True, "refuse"),
            ("narrative an int", "narrative", 7, "refuse"),
            ("narrative a dict", "narrative", {"x": 1}, "refuse"),
            ("extra field", "extra_field", {"nested": [1]}, "accept"),
        ],
        count,
    )
    cases += [
        Case("topics", "duplicate topic id", JUDGE, _dup_line(rel, 0), "refuse", "topics.jsonl", count=count),
        Case("topics", "topics match none of the runs", JUDGE, _foreign_topics, "refuse", "topics.jsonl"),
        Case("topics", "one run topic not in topics", JUDGE, _drop_line(rel, 1), "either", "topics.jsonl", count=count),
        Case(
            "topics",
            "a run file given as topics",
            [
                "--rag-topics",
                "in/rag25/runs/teamR-run-a.jsonl",
                *JUDGE[2:],
            ],
            None,
            "refuse",
            "teamR-run-a.jsonl",
        ),
        Case("topics", "a TSV with 3 columns", JUDGE, _write(rel, "rag25-01\tx\ty\n"), "refuse", "topics.jsonl"),
        Case("topics", "a JSON array of topics", JUDGE, _as_array(rel), "accept", "topics.jsonl", count=count),
    ]
    return cases


def _emptydir(p: Path) -> None:
    p.unlink()
    p.mkdir()


def _write(rel: str, text: str) -> Make:
    return lambda d: (d / rel).write_text(text, encoding="utf-8")


def _dup_line(rel: str, i: int) -> Make:
    return lambda d: edit_lines(d / rel, lambda rs: rs.append(json.loads(json.dumps(rs[i]))))


def _drop_line(rel: str, i: int) -> Make:
    return lambda d: edit_lines(d / rel, lambda rs: rs.pop(i))


def _as_array(rel: str) -> Make:
    def make(d: Path) -> None:
        lines = [json.loads(x) for x in (d / rel).read_text().splitlines() if x.strip()]
        (d / rel).write_text(json.dumps(lines, indent=1))

    return make


def _foreign_topics(d: Path) -> None:
    shutil.copy(d / "nuggets/topics.jsonl", d / "rag25/topics.jsonl")


def runs_family(base: Path) -> list[Case]:
    run = "rag25/runs/teamR-run-a.jsonl"
    total = n_citations(sorted((base / "rag25/runs").glob("*.jsonl")))
    count = (CITED, total)
    # the runs are given as a directory: a run file missing there is no defect, an empty one is a loss
    cases = file_cases("runs", run, JUDGE, count, skip=("missing", "a directory instead"))
    for c in cases:
        if c.name.endswith(("empty file", "only blank lines")):
            c.expect = "either"
    one_file = [*R25[:2], "--rag-responses", "in/" + run, *R25[4:], "--out-dir", "out", "--no-debug-log"]
    cases += [
        Case(
            "runs",
            "teamR-run-a.jsonl given, missing",
            one_file,
            lambda d: (d / run).unlink(),
            "refuse",
            "teamR-run-a.jsonl",
        ),
        Case(
            "runs",
            "teamR-run-a.jsonl given, a directory",
            one_file,
            lambda d: _emptydir(d / run),
            "refuse",
            "teamR-run-a.jsonl",
        ),
        Case("runs", "teamR-run-a.jsonl given, empty", one_file, _write(run, ""), "refuse", "teamR-run-a.jsonl"),
    ]
    second = json.loads((base / run).read_text().splitlines()[1])
    one = sum(len(s.get("citations") or []) for s in second["answer"])  # the citations of its second report
    skip = [*JUDGE, "--on-error", "skip"]
    cases.append(
        Case(
            "runs",
            "invalid JSON at line 2 with --on-error skip",
            skip,
            _break_line(run, 1),
            "accept",
            None,
            "cite",
            (CITED, total - one),
        )
    )
    rag = [
        ("metadata missing", "metadata", DELETE, "refuse"),
        ("metadata a list", "metadata", [], "refuse"),
        ("run_id missing", "metadata.run_id", DELETE, "refuse"),
        ("run_id null", "metadata.run_id", None, "refuse"),
        ("run_id with a space", "metadata.run_id", "team R", "refuse"),
        ("run_id ../../escape", "metadata.run_id", "../../escape", "either"),
        ("narrative_id missing", "metadata.narrative_id", DELETE, "refuse"),
        ("narrative_id unknown topic", "metadata.narrative_id", "no-such-topic", "either"),
        ("answer missing", "answer", DELETE, "refuse"),
        ("answer a string", "answer", "text", "refuse"),
        ("answer a dict", "answer", {"text": "x"}, "refuse"),
        ("answer empty", "answer", [], "either"),
        ("sentence text null", "answer.0.text", None, "refuse"),
        ("sentence text an int", "answer.0.text", 5, "refuse"),
        ("sentence a string", "answer.0", "just text", "refuse"),
        ("citations a string", "answer.0.citations", "0", "refuse"),
        ("citations a dict of strings", "answer.0.citations", {"a": "b"}, "refuse"),
        ("citation index out of range", "answer.0.citations", [99], "either"),
        ("citation index negative", "answer.0.citations", [-1], "either"),
        ("citation a float", "answer.0.citations", [0.5], "refuse"),
        ("citation NaN", "answer.0.citations", [float("nan")], "refuse"),
        ("citation 1e400", "answer.0.citations", [1e308 * 10], "refuse"),
        ("citation true", "answer.0.citations", [True], "refuse"),
        ("citation null", "answer.0.citations", [None], "refuse"),
        ("citation a nested list", "answer.0.citations", [[0]], "refuse"),
        ("references a string", "references", "doc", "refuse"),
        ("references with null", "references.0", None, "refuse"),
        ("references missing", "references", DELETE, "either"),
        ("response_length a string", "response_length", "x", "either"),
        ("extra top-level field", "zz_extra", [1, {"a": None}], "accept"),
    ]
    for name, dotted, value, expect in rag:
        make = mut_record(run, lambda r, p=dotted, v=value: set_path(r, p, v))
        c = count if expect in ("accept", "either") else None
        cases.append(Case("runs", f"rag: {name}", JUDGE, make, expect, "teamR-run-a.jsonl", "cite", c))
    cases += [
        Case("runs", "rag: report given twice", JUDGE, _dup_line(run, 0), "refuse", "teamR-run-a.jsonl"),
        Case(
            "runs",
            "rag: a topics file among the runs",
            JUDGE,
            _copy("rag25/topics.jsonl", "rag25/runs/zz.jsonl"),
            "accept",
            None,
            count=count,
        ),
        Case(
            "runs",
            "rag: a leaderboard among the runs",
            JUDGE,
            _copy_good("cite/citejudge.leaderboard.txt", "rag25/runs/zz.jsonl"),
            "refuse",
            "zz.jsonl",
        ),
        Case("runs", "rag: two files, one run id", JUDGE, _copy(run, "rag25/runs/copy.jsonl"), "refuse", "copy.jsonl"),
        Case("runs", "rag: empty run directory", JUDGE, _empty_runs, "refuse", "runs"),
        Case("runs", "rag: a JSON array run file", JUDGE, _as_array(run), "accept", None, count=count),
        Case("runs", "rag: --max-runs 1", [*JUDGE, "--max-runs", "1"], None, "accept", None),
        Case(
            "runs",
            "rag: --dataset ragtime on rag runs",
            [*JUDGE, "--dataset", "ragtime"],
            None,
            "refuse",
            "teamR-run-a.jsonl",
        ),
    ]
    # the responses shape (AutoJudge kiddie, documents embedded) and the RAGTIME shape
    kid = [
        "--rag-topics",
        "in/kiddie/topics",
        "--rag-responses",
        "in/kiddie/runs",
        "--out-dir",
        "out",
        "--no-debug-log",
    ]
    krun = "kiddie/runs/repgen/run1.jsonl"
    kcount = (CITED, n_citations(sorted((base / "kiddie/runs/repgen").glob("*.jsonl"))))
    for name, dotted, value, expect in [
        ("responses missing", "responses", DELETE, "refuse"),
        ("responses a dict", "responses", {"0": 1}, "refuse"),
        ("citations a string", "responses.0.citations", "Chlorophyll", "refuse"),
        ("documents a string", "documents", "x", "refuse"),
        ("document text null", "documents.Chlorophyll.text", None, "refuse"),
        ("document text an int", "documents.Chlorophyll.text", 3, "refuse"),
        ("topic_id unknown", "metadata.topic_id", "no-such", "either"),
        ("extra field", "metadata.zz", 1, "accept"),
    ]:
        make = mut_record(krun, lambda r, p=dotted, v=value: set_path(r, p, v))
        c = kcount if expect != "refuse" else None
        cases.append(Case("runs", f"kiddie: {name}", kid, make, expect, "run1.jsonl", None, c))
    rt = [
        "--rag-topics",
        "in/ragtime/topics.jsonl",
        "--rag-responses",
        "in/ragtime/runs",
        "--out-dir",
        "out",
        "--no-debug-log",
        "--allow-missing-text",
    ]
    rrun = "ragtime/runs/teamT-run1.jsonl"
    for name, dotted, value, expect in [
        ("confidence a string", "responses.0.citations", {"rt-doc-000101": "high"}, "refuse"),
        ("confidence NaN", "responses.0.citations", {"rt-doc-000101": float("nan")}, "refuse"),
        ("confidence -1", "responses.0.citations", {"rt-doc-000101": -1}, "refuse"),
        ("citations a list of ints (doc ids)", "responses.0.citations", [1, 2], "either"),
    ]:
        make = mut_record(rrun, lambda r, p=dotted, v=value: set_path(r, p, v))
        cases.append(Case("runs", f"ragtime: {name}", rt, make, expect, "teamT-run1.jsonl", None))
    return cases


def _break_line(rel: str, i: int) -> Make:
    def make(d: Path) -> None:
        lines = (d / rel).read_bytes().split(b"\n")
        lines[i] = lines[i][: len(lines[i]) // 2]
        (d / rel).write_bytes(b"\n".join(lines))

    return make


def _copy(src: str, dst: str) -> Make:
    return lambda d: shutil.copy(d / src, d / dst)


def _copy_good(src: str, dst: str) -> Make:
    return lambda d: shutil.copy(GOOD_DIR / src, d / dst)


def _empty_runs(d: Path) -> None:
    shutil.rmtree(d / "rag25/runs")
    (d / "rag25/runs").mkdir()


def corpus_family(base: Path) -> list[Case]:
    rel = "rag25/corpus.jsonl"
    count = (CITED, n_citations(sorted((base / "rag25/runs").glob("*.jsonl"))))
    cases = file_cases("corpus", rel, JUDGE, count)
    cases += field_cases(
        "corpus",
        rel,
        JUDGE,
        [
            ("doc_id missing", "doc_id", DELETE, "refuse"),
            ("doc_id null", "doc_id", None, "refuse"),
            ("doc_id a list", "doc_id", ["x"], "refuse"),
            ("text null", "text", None, "refuse"),
            ("text an int", "text", 12, "refuse"),
            ("text missing", "text", DELETE, "refuse"),
            ("title a list", "title", ["t"], "refuse"),
            ("extra field", "zz", {"a": 1}, "accept"),
        ],
        count,
    )
    cases.append(Case("corpus", "duplicate doc id, other text", JUDGE, _dup_changed(rel), "refuse", "corpus.jsonl"))
    # corpus index and lookup
    idx = ["corpus", "index", "in/rag25/corpus.jsonl"]
    beside = ("rag25/corpus.jsonl.citejudge-docstore.sqlite",)
    for c in file_cases("corpus", rel, idx, None, None, skip=("UTF-16 with BOM", "UTF-8 BOM"), only=CORE):
        c.name, c.writes_beside = "index: " + c.name, beside
        cases.append(c)
    cases.append(
        Case(
            "corpus",
            "index: a line without id",
            idx,
            mut_record(rel, lambda r: r.pop("doc_id")),
            "refuse",
            "corpus.jsonl",
            None,
            writes_beside=beside,
        )
    )
    cases.append(
        Case(
            "corpus",
            "index: a line without id, --on-error skip",
            [*idx, "--on-error", "skip"],
            mut_record(rel, lambda r: r.pop("doc_id")),
            "accept",
            None,
            None,
            (r"(?m)^ids\s+(\d+)", 11),
            beside,
        )
    )
    lk = ["corpus", "lookup"]
    cases.append(
        Case(
            "corpus",
            "lookup: a JSONL file, not a docstore",
            [*lk, "in/rag25/corpus.jsonl", "x"],
            None,
            "refuse",
            "corpus.jsonl",
            None,
        )
    )
    cases.append(
        Case(
            "corpus",
            "lookup: a garbage .sqlite",
            [*lk, "in/bad.sqlite", "x"],
            _write("bad.sqlite", "not sqlite" * 50),
            "refuse",
            "bad.sqlite",
            None,
        )
    )
    cases.append(
        Case("corpus", "lookup: a missing store", [*lk, "in/none.sqlite", "x"], None, "refuse", "none.sqlite", None)
    )
    cases.append(
        Case(
            "corpus",
            "lookup: an empty file",
            [*lk, "in/empty.sqlite", "x"],
            _write("empty.sqlite", ""),
            "refuse",
            "empty.sqlite",
            None,
        )
    )
    return cases


def _dup_changed(rel: str) -> Make:
    def fn(rs: list[dict]) -> None:
        rs.append(dict(rs[0], text="Something else entirely."))

    return lambda d: edit_lines(d / rel, fn)


def labels_family(base: Path) -> list[Case]:
    rel = "labels.jsonl"
    args = [*JUDGE, "--labels", "in/labels.jsonl"]
    n = sum(1 for line in (base / rel).read_text().splitlines() if line.strip())
    count = (r"human labels\s+(\d+)", n)
    cases = file_cases("labels", rel, args, count, only=CORE)
    edges = [(0, "refuse"), (1e-300, "either"), (5e-324, "either"), (None, "either"), (-1, "refuse"), (2, "refuse")]
    edges += [("x", "refuse"), (float("nan"), "refuse"), (True, "refuse"), (1, "accept"), (0.5, "accept")]
    for v, expect in edges:
        c = count if expect != "refuse" else None
        cases.append(
            Case(
                "labels",
                f"inclusion_probability {v!r}",
                args,
                mut_record(rel, lambda r, v=v: r.__setitem__("inclusion_probability", v)),
                expect,
                rel,
                count=c,
            )
        )
    for name, dotted, value, expect in [
        ("label unknown", "label", "maybe", "refuse"),
        ("label null (unlabelled)", "label", None, "either"),
        ("label an int", "label", 2, "refuse"),
        ("run_id unknown", "run_id", "no-such-run", "either"),
        ("topic_id unknown", "topic_id", "no-such-topic", "either"),
        ("sentence_index 999", "sentence_index", 999, "either"),
        ("sentence_index -1", "sentence_index", -1, "refuse"),
        ("sentence_index a string", "sentence_index", "1", "refuse"),
        ("doc_id not cited there", "doc_id", "msmarco_v2.1_doc_00_0#0_0", "either"),
        ("doc_id missing", "doc_id", DELETE, "refuse"),
        ("extra field", "zz", 1, "accept"),
    ]:
        c = count if expect != "refuse" else None
        make = mut_record(rel, lambda r, p=dotted, v=value: set_path(r, p, v))
        cases.append(Case("labels", name, args, make, expect, rel, count=c))
    cases.append(Case("labels", "one citation labelled two ways", args, _dup_relabel(rel), "refuse", rel))
    cases.append(Case("labels", "the same label twice", args, _dup_line(rel, 0), "either", rel, count=count))
    cases.append(Case("labels", "labels dir is an out-dir", [*JUDGE, "--labels", "out"], None, "refuse", "out"))
    cases.append(
        Case(
            "labels",
            "labels of another track (rag24-mini)",
            [*JUDGE, "--labels", "in/rag24labels.jsonl"],
            None,
            "refuse",
            "rag24labels.jsonl",
        )
    )
    cases.append(
        Case("labels", "--refit-support with one label", [*args, "--refit-support"], _keep_first(rel), "either", rel)
    )
    return cases


def _dup_relabel(rel: str) -> Make:
    return lambda d: edit_lines(d / rel, lambda rs: rs.append(dict(rs[0], label="not_supported")))


def _keep_first(rel: str) -> Make:
    return lambda d: edit_lines(d / rel, lambda rs: rs.__delitem__(slice(1, None)))


NUG = [
    "--rag-topics",
    "in/nuggets/topics.jsonl",
    "--rag-responses",
    "in/nuggets/runs",
    "--corpus",
    "in/nuggets/segments.jsonl",
    "--out-dir",
    "out",
    "--no-debug-log",
]


def nuggets_family(base: Path) -> list[Case]:
    rel = "nuggets/nuggets.jsonl"
    cases = []
    argue = ["--judge", "argue", "--nuggets", "in/nuggets/nuggets.jsonl", *NUG]
    cases += [c for c in file_cases("nuggets", rel, argue, None, "nug", only=CORE)]
    for judge in ("nugget",):
        args = ["--judge", judge, "--nuggets", "in/nuggets/nuggets.jsonl", *NUG]
        for name, make, expect in [
            ("empty bank (nuggets [])", mut_record(rel, lambda r: r.__setitem__("nuggets", [])), "either"),
            ("duplicate nugget text", mut_record(rel, lambda r: r["nuggets"].append(dict(r["nuggets"][0]))), "refuse"),
            (
                "importance unknown",
                mut_record(rel, lambda r: r["nuggets"][0].__setitem__("importance", "crucial")),
                "refuse",
            ),
            ("nugget text null", mut_record(rel, lambda r: r["nuggets"][0].__setitem__("text", None)), "refuse"),
            ("nugget text empty", mut_record(rel, lambda r: r["nuggets"][0].__setitem__("text", "")), "refuse"),
            ("nuggets a string", mut_record(rel, lambda r: r.__setitem__("nuggets", "x")), "refuse"),
            ("qid missing", mut_record(rel, lambda r: r.pop("qid")), "refuse"),
            ("bank twice for one topic", _dup_line(rel, 0), "refuse"),
            ("another track's topics", _nug_foreign, "refuse"),
            ("bank lacks one topic", _drop_line(rel, 1), "either"),
        ]:
            cases.append(Case("nuggets", f"{judge}: {name}", args, make, expect, "nuggets.jsonl", "nug"))
    cases.append(
        Case("nuggets", "nugget: no --nuggets", ["--judge", "nugget", *NUG], None, "refuse", "--nuggets", "nug")
    )
    cases.append(
        Case(
            "nuggets",
            "nugget: --nuggets is the runs dir",
            ["--judge", "nugget", "--nuggets", "in/nuggets/runs", *NUG],
            None,
            "refuse",
            "runs",
            "nug",
        )
    )
    cases.append(
        Case(
            "nuggets",
            "nugget: --nugget-model garbage file",
            ["--judge", "nugget", "--nuggets", "in/nuggets/nuggets.jsonl", "--nugget-model", "in/model.json", *NUG],
            _write("model.json", '{"a": 1}'),
            "refuse",
            "model.json",
            "nug",
        )
    )
    return cases


def _nug_foreign(d: Path) -> None:
    edit_lines(
        d / "nuggets/nuggets.jsonl", lambda rs: [r.__setitem__("qid", f"rag25-0{i + 1}") for i, r in enumerate(rs)]
    )


def workflow_family(base: Path) -> list[Case]:
    args = [*JUDGE, "--workflow", "in/wf.yml"]
    good = (ROOT / "workflows/citation.yml").read_text()
    cases = []
    for name, text in [
        ("unknown top-level key", good + "\nzz_unknown: 1\n"),
        ("unknown nested key", "attest:\n  zz_mode: all\n"),
        ("attest.mode a number", "attest:\n  mode: 3\n"),
        ("attest.budget -1", "attest:\n  budget: -1\n"),
        ("attest.budget 'x'", "attest:\n  budget: x\n"),
        ("attest.budget .nan", "attest:\n  budget: .nan\n"),
        ("root a list", "- a\n- b\n"),
        ("root a string", "hello\n"),
        ("invalid YAML", "attest: [unclosed\n"),
        ("tab indentation", "attest:\n\tmode: all\n"),
        ("a YAML tag (!!python/object)", "attest: !!python/object/apply:os.system ['touch ../pwned']\n"),
        (
            "an anchor bomb",
            "a: &a [1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
            "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n",
        ),
        ("latin-1 bytes", None),
        ("empty file", ""),
    ]:
        if text is None:
            make = lambda d: (d / "wf.yml").write_bytes("# caf\u00e9\nattest:\n  mode: none\n".encode("latin-1"))
            expect = "refuse"
        else:
            make = _write("wf.yml", text)
            expect = "either" if name == "empty file" else "refuse"
        cases.append(Case("workflow", name, args, make, expect, "wf.yml"))
    cases.append(Case("workflow", "a directory", [*JUDGE, "--workflow", "in/rag25"], None, "refuse", "rag25"))
    cases.append(Case("workflow", "missing", [*JUDGE, "--workflow", "in/none.yml"], None, "refuse", "none.yml"))
    cases.append(
        Case(
            "workflow",
            "llm-config without keys",
            [*JUDGE, "--llm-config", "in/llm.yml", "--attest", "all"],
            _write("llm.yml", "OPENAI_MODEL: m\n"),
            "refuse",
            "llm.yml",
        )
    )
    return cases


def plan_family(base: Path) -> list[Case]:
    pa_ = ["plan-assessments", "out", "--name", "citejudge"]
    cases = []
    for name, extra, expect in [
        ("--budget 0", ["--budget", "0"], "either"),
        ("--budget 150%", ["--budget", "150%"], "refuse"),
        ("--budget -5%", ["--budget", "-5%"], "refuse"),
        ("--budget x", ["--budget", "x"], "refuse"),
        ("--budget nan", ["--budget", "nan"], "refuse"),
        ("--budget and --count", ["--budget", "5%", "--count", "3"], "refuse"),
        ("--count 100000", ["--count", "100000"], "either"),
        ("--output an existing file", ["--count", "2", "--output", "out/citejudge.qrels"], "refuse"),
        ("--output in a missing dir", ["--count", "2", "--output", "in/nodir/x.jsonl"], "either"),
        ("--name of no set", ["--count", "2", "--name", "nosuch"], "refuse"),
    ]:
        names = {"--output an existing file": "citejudge.qrels", "--name of no set": "nosuch"}.get(name)
        argv = pa_ + extra if name != "--name of no set" else ["plan-assessments", "out", *extra]
        beside = ("nodir",) if "missing dir" in name else ()  # an explicit --output may make its directory
        cases.append(Case("plan", name, argv, None, expect, names, writes_beside=beside))
    count = ["--count", "3"]
    for name, fn, names in [
        ("config.yml truncated", _trunc_out("citejudge.config.yml"), "citejudge.config.yml"),
        ("config.yml garbage", _garble_out("citejudge.config.yml"), "citejudge.config.yml"),
        ("config.yml missing", _rm_out("citejudge.config.yml"), "citejudge.config.yml"),
        ("assessments.parquet truncated", _trunc_out("citejudge.assessments.parquet"), "citejudge.assessments.parquet"),
        ("assessments.parquet missing", _rm_out("citejudge.assessments.parquet"), "citejudge.assessments.parquet"),
        (
            "an earlier round truncated",
            _round_then(lambda p: p.write_bytes(p.read_bytes()[:100])),
            "citejudge.assess-1.jsonl",
        ),
        ("an earlier round is a directory", _round_dir, "citejudge.assess-1.jsonl"),
        ("a run file changed since judging", _change_input, "teamR-run-b.jsonl"),
    ]:
        cases.append(Case("plan", name, pa_ + count, fn, "refuse", names))
    cases.append(Case("plan", "--nuggets on a citation set", [*pa_, "--nuggets", "--count", "2"], None, "refuse", None))
    cases.append(
        Case("plan", "rounds: second round after first", pa_ + count, _round_then(lambda p: None), "accept", None)
    )
    return cases


def _in_out(fn: Callable[[Path], None]) -> Make:
    """A change to the good set in out/ (the make runs after out/ is filled)."""
    fn.__in_out__ = True  # type: ignore[attr-defined]
    return fn


def _trunc_out(name: str) -> Make:
    return _in_out(lambda d: (d / "out" / name).write_bytes((d / "out" / name).read_bytes()[:57]))


def _garble_out(name: str) -> Make:
    return _in_out(lambda d: (d / "out" / name).write_bytes(b"{[}: \x00\xff garbage\n"))


def _rm_out(name: str) -> Make:
    return _in_out(lambda d: (d / "out" / name).unlink())


def _round_then(fn: Callable[[Path], None]) -> Make:
    def make(d: Path) -> None:
        p = d / "out/citejudge.assess-1.jsonl"
        shutil.copy(GOOD_DIR / "round1.jsonl", p)
        fn(p)

    return _in_out(make)


def _round_dir(d: Path) -> None:
    (d / "out/citejudge.assess-1.jsonl").mkdir()


_round_dir = _in_out(_round_dir)


def _change_input(d: Path) -> None:
    # the good set's config records the shared inputs; point it at a changed private copy
    cfg = d / "out/citejudge.config.yml"
    text = cfg.read_text()
    shutil.copytree(BASE_DIR / "rag25", d / "in/moved")
    runb = d / "in/moved/runs/teamR-run-b.jsonl"
    runb.write_text(runb.read_text().replace("a", "b", 3))
    cfg.write_text(text.replace(str(BASE_DIR / "rag25"), str(d / "in/moved")))
    _rerecord(d / "out", cfg)  # the set as if judged from in/moved: its record says so too


def _rerecord(out: Path, changed: Path) -> None:
    """After a case's setup edits a file of the good set on purpose: its line in the set's record
    (``NAME.sha256``, when the set has one) follows, so the case meets the defect it is about."""
    for record in out.glob("*.sha256"):
        digest = hashlib.sha256(changed.read_bytes()).hexdigest()
        lines = record.read_text().splitlines(keepends=True)
        record.write_text(
            "".join(f"{digest}  {changed.name}\n" if ln.endswith(f"  {changed.name}\n") else ln for ln in lines)
        )


_change_input = _in_out(_change_input)


def report_family(base: Path) -> list[Case]:
    rp = ["report", "out"]
    cases = [
        Case(
            "report", "--truth garbage", [*rp, "--truth", "in/t.txt"], _write("t.txt", "a b\n\x00\n"), "refuse", "t.txt"
        ),
        Case("report", "--truth missing", [*rp, "--truth", "in/none.txt"], None, "refuse", "none.txt"),
        Case("report", "--truth of other runs", [*rp, "--truth", "in/rag24-truth.txt"], None, "either", None),
        Case(
            "report",
            "--labels garbage",
            [*rp, "--labels", "in/l.jsonl"],
            _write("l.jsonl", "{oops\n"),
            "refuse",
            "l.jsonl",
        ),
        Case(
            "report",
            "--labels with inclusion_probability 0",
            [*rp, "--labels", "in/labels.jsonl"],
            mut_record("labels.jsonl", lambda r: r.__setitem__("inclusion_probability", 0)),
            "refuse",
            "labels.jsonl",
        ),
        Case("report", "--name of no set", ["report", "out", "--name", "nosuch"], None, "refuse", "nosuch"),
        Case("report", "out_dir missing", ["report", "in/nodir"], None, "refuse", "nodir"),
        Case("report", "out_dir is a file", ["report", "in/labels.jsonl"], None, "refuse", "labels.jsonl"),
        Case(
            "report",
            "--report-dir is a file",
            [*rp, "--report-dir", "out/citejudge.qrels"],
            None,
            "refuse",
            "citejudge.qrels",
        ),
        Case("report", "--resamples 0", [*rp, "--resamples", "0"], None, "accept", None),
        Case(
            "report", "--corpus garbage", [*rp, "--corpus", "in/c.jsonl"], _write("c.jsonl", "{\n"), "refuse", "c.jsonl"
        ),
    ]
    for name, fn, names in [
        ("config.yml truncated", _trunc_out("citejudge.config.yml"), "citejudge.config.yml"),
        ("config.yml missing", _rm_out("citejudge.config.yml"), "citejudge.config.yml"),
        ("assessments.parquet truncated", _trunc_out("citejudge.assessments.parquet"), "citejudge.assessments.parquet"),
        ("leaderboard.txt garbage", _garble_out("citejudge.leaderboard.txt"), "citejudge.leaderboard.txt"),
        ("intervals.tsv missing", _rm_out("citejudge.intervals.tsv"), "citejudge.intervals.tsv"),
        ("pairs.tsv truncated", _trunc_out("citejudge.pairs.tsv"), "citejudge.pairs.tsv"),
        ("a run file changed since judging", _change_input, "teamR-run-b.jsonl"),
    ]:
        cases.append(Case("report", name, rp, fn, "refuse", names))
    return cases


def attest_family(base: Path) -> list[Case]:
    imp = ["attest", "import", "out", "--name", "citejudge", "in/answers.jsonl"]
    n = sum(1 for _ in (base / "answers.jsonl").open())
    count = (r"(?:imported|cached|applied|read)\D{0,40}(\d+)", n)

    def ans(fn: Callable[[list[dict]], None]) -> Make:
        return lambda d: edit_lines(d / "answers.jsonl", fn)

    def lp(value: object) -> Callable[[list[dict]], None]:
        def fn(rs: list[dict]) -> None:
            ch = rs[0]["response"]["body"]["choices"][0]
            ch["logprobs"]["content"][0]["logprob"] = value
            for t in ch["logprobs"]["content"][0]["top_logprobs"]:
                t["logprob"] = value

        return fn

    def top(value: object) -> Callable[[list[dict]], None]:
        return lambda rs: rs[0]["response"]["body"]["choices"][0]["logprobs"]["content"][0].__setitem__(
            "top_logprobs", value
        )

    cases = [
        c
        for c in file_cases("attest", "answers.jsonl", imp, None, "attest", only=CORE)
        if c.name.split(": ")[1] not in ("CRLF line ends",)
    ]
    for name, fn in [
        ("logprob 800", lp(800)),
        ("logprob NaN", lp(float("nan"))),
        ("logprob a string", lp("x")),
        ("logprob -1e400", lp(-1e308 * 10)),
        ("top_logprobs an int", top(3)),
        ("top_logprobs [1, 2]", top([1, 2])),
        ("custom_id missing", lambda rs: rs[0].pop("custom_id")),
        ("custom_id unknown", lambda rs: rs[0].__setitem__("custom_id", "f" * 64)),
        ("custom_id ../../escape", lambda rs: rs[0].__setitem__("custom_id", "../../escape")),
        ("custom_id an int", lambda rs: rs[0].__setitem__("custom_id", 7)),
        ("custom_id repeated", lambda rs: rs.append(rs[0])),
        ("status 500", lambda rs: rs[0]["response"].__setitem__("status_code", 500)),
        ("status a string", lambda rs: rs[0]["response"].__setitem__("status_code", "200")),
        ("body without choices", lambda rs: rs[0]["response"]["body"].pop("choices")),
        ("choices empty", lambda rs: rs[0]["response"]["body"].__setitem__("choices", [])),
        ("content null", lambda rs: rs[0]["response"]["body"]["choices"][0]["message"].__setitem__("content", None)),
        (
            "content 'MAYBE'",
            lambda rs: rs[0]["response"]["body"]["choices"][0]["message"].__setitem__("content", "MAYBE"),
        ),
        ("usage tokens -5", lambda rs: rs[0]["response"]["body"]["usage"].__setitem__("prompt_tokens", -5)),
        ("usage tokens a string", lambda rs: rs[0]["response"]["body"]["usage"].__setitem__("completion_tokens", "1")),
        ("error set", lambda rs: rs[0].__setitem__("error", {"message": "boom"})),
        ("response null", lambda rs: rs[0].__setitem__("response", None)),
    ]:
        cases.append(Case("attest", f"import: {name}", imp, ans(fn), "refuse", "answers.jsonl", "attest"))
    cases.append(
        Case(
            "attest",
            "import: half the answers",
            imp,
            ans(lambda rs: rs.__delitem__(slice(n // 2, None))),
            "accept",
            None,
            "attest",
            (count[0], n - n // 2),
        )
    )
    cases.append(
        Case(
            "attest",
            "import: manifest missing",
            imp,
            _rm_out("citejudge.batch/manifest.json"),
            "refuse",
            "manifest.json",
            "attest",
        )
    )
    cases.append(
        Case(
            "attest",
            "import: manifest truncated",
            imp,
            _trunc_out("citejudge.batch/manifest.json"),
            "refuse",
            "manifest.json",
            "attest",
        )
    )
    cases.append(
        Case(
            "attest",
            "import: answers are the requests",
            ["attest", "import", "out", "--name", "citejudge", "out/citejudge.batch/requests-0001.jsonl"],
            None,
            "refuse",
            "requests-0001.jsonl",
            "attest",
        )
    )
    ex = ["attest", "export", "out", "--name", "citejudge", "--model", "m"]
    cases += [
        Case("attest", "export: --attest bogus", [*ex, "--attest", "bogus"], None, "refuse", None, "attest"),
        Case("attest", "export: no mode recorded", ex, None, "refuse", None, "cite"),
        Case(
            "attest",
            "export: config truncated",
            [*ex, "--attest", "all"],
            _trunc_out("citejudge.config.yml"),
            "refuse",
            "citejudge.config.yml",
            "cite",
        ),
        Case(
            "attest",
            "export: --batch-dir is a file",
            [*ex, "--attest", "all", "--batch-dir", "out/citejudge.qrels"],
            None,
            "refuse",
            "citejudge.qrels",
            "cite",
        ),
        Case(
            "attest",
            "export: --workflow garbage",
            [*ex, "--attest", "all", "--workflow", "in/wf.yml"],
            _write("wf.yml", "attest: [\n"),
            "refuse",
            "wf.yml",
            "cite",
        ),
        Case(
            "attest",
            "export: a run changed since judging",
            [*ex, "--attest", "all"],
            _change_input,
            "refuse",
            "teamR-run-b.jsonl",
            "cite",
        ),
    ]
    for c in cases:
        if c.args[:2] == ["attest", "import"]:
            c.may_change = ("attest-cache.sqlite3",)
    return cases


def merge_family(base: Path) -> list[Case]:
    p1, p2 = "in/parts/p.part-1-of-2.arrow", "in/parts/p.part-2-of-2.arrow"
    mg = ["merge", "out", "--name", "p", p1, p2]
    cases = [
        Case(
            "merge",
            "a part missing",
            ["merge", "out", "--name", "p", p1],
            None,
            "refuse",
            "p.part-2-of-2.arrow",
            "merged",
        ),
        Case(
            "merge",
            "a part given twice",
            ["merge", "out", "--name", "p", p1, p1, p2],
            None,
            "refuse",
            "p.part-1-of-2.arrow",
            "merged",
        ),
        Case("merge", "a part truncated", mg, _trunc_part(p1, 0.5), "refuse", "p.part-1-of-2.arrow", "merged"),
        Case("merge", "a part's last byte flipped", mg, _flip_part(p2, -1), "refuse", "p.part-2-of-2.arrow", "merged"),
        Case(
            "merge", "a part's middle byte flipped", mg, _flip_part(p2, 0.5), "refuse", "p.part-2-of-2.arrow", "merged"
        ),
        Case("merge", "a part empty", mg, _write(p1[3:], ""), "refuse", "p.part-1-of-2.arrow", "merged"),
        Case("merge", "a part is JSON", mg, _write(p1[3:], "{}\n"), "refuse", "p.part-1-of-2.arrow", "merged"),
        Case(
            "merge",
            "a part's debug log truncated",
            mg,
            _trunc_part(p1.replace(".arrow", ".jsonl"), 0.5),
            "refuse",
            "p.part-1-of-2",
            "merged",
        ),
        Case(
            "merge",
            "a part's debug log missing",
            mg,
            lambda d: (d / p1[3:].replace(".arrow", ".jsonl")).unlink(),
            "refuse",
            "p.part-1-of-2",
            "merged",
        ),
        Case(
            "merge",
            "a part of another session",
            ["merge", "out", "--name", "p", p1, "in/parts/q.part-2-of-2.arrow"],
            _other_session,
            "refuse",
            "q.part-2-of-2.arrow",
            "merged",
        ),
        Case(
            "merge",
            "a directory as a part",
            ["merge", "out", "--name", "p", p1, "in/parts"],
            None,
            "refuse",
            "parts",
            "merged",
        ),
    ]
    # forged parts: valid checksums around values no shard writes
    forgeries = [
        ("status 'forged'", "col", ("status", "forged")),
        ("grade 99", "col", ("grade", 99)),
        ("grade -3", "col", ("grade", -3)),
        ("weight NaN", "col", ("weight", float("nan"))),
        ("weight 1e300", "col", ("weight", 1e300)),
        ("p_any 7", "col", ("p_any", 7.0)),
        ("char_end before char_start", "col", ("char_end", -5)),
        ("unknown topic in rows", "col", ("topic_id", "no-such-topic")),
        ("unknown run in rows", "col", ("run_id", "no-such-run")),
        ("measure NaN", "measure", float("nan")),
        ("measure 5.0", "measure", 5.0),
        ("measure -inf", "measure", float("-inf")),
        ("per_topic unknown topic", "state", ("per_topic.0.1", "no-such-topic")),
        ("outputs.name ../../escape", "state", ("outputs.name", "../../escape")),
        ("outputs.out_dir /tmp escape", "state", ("outputs.out_dir", "ESCAPE")),
        ("outputs.debug_log ../../escape.jsonl", "state", ("outputs.debug_log", "../../escape.jsonl")),
        ("leaderboard format ../../x", "state", ("outputs.leaderboard_formats", ["../../x"])),
        ("leaderboard format 'pickle'", "state", ("outputs.leaderboard_formats", ["pickle"])),
        ("manifest shard 3 of 2", "manifest", ("shard", [3, 2])),
        ("manifest rows +1", "manifest", ("rows", None)),
        ("inputs.dataset 'bogus'", "state", ("inputs.dataset", "bogus")),
        ("inputs.on_error 'bogus'", "state", ("inputs.on_error", "bogus")),
        ("counts negative", "state", ("counts", [["citations", -4]])),
        ("placed rank out of range", "state", ("placed.rank.0", 999)),
        ("placed row out of range", "state", ("placed.row.0", 10**6)),
        ("placed log_end past the log", "state", ("placed.log_end.0", 10**9)),
        ("scan.citations 10**9", "state", ("scan.citations", 10**9)),
    ]
    for name, kind, what in forgeries:
        cases.append(
            Case(
                "merge",
                f"forged: {name}",
                mg,
                _forge(p2, kind, what),
                "refuse",
                "p.part-2-of-2.arrow",
                "merged",
                same_as_good=True,
            )
        )
    return cases


def _trunc_part(rel: str, frac: float) -> Make:
    def make(d: Path) -> None:
        p = d / rel[3:]
        b = p.read_bytes()
        p.write_bytes(b[: int(len(b) * frac)])

    return make


def _flip_part(rel: str, where: float) -> Make:
    def make(d: Path) -> None:
        p = d / rel[3:]
        b = bytearray(p.read_bytes())
        i = len(b) - 1 if where < 0 else int(len(b) * where)
        b[i] ^= 0x55
        p.write_bytes(bytes(b))

    return make


def _other_session(d: Path) -> None:
    shutil.copy(GOOD_DIR / "otherparts/q.part-2-of-2.arrow", d / "parts/q.part-2-of-2.arrow")
    shutil.copy(GOOD_DIR / "otherparts/q.part-2-of-2.jsonl", d / "parts/q.part-2-of-2.jsonl")


def _forge(rel: str, kind: str, what: object) -> Make:
    """Rewrite a part with its module's own writer (valid checksums) around one forged value."""

    def make(d: Path) -> None:
        import pyarrow as pa

        sys.path.insert(0, str(ROOT))
        from judges.formats import part

        path = d / rel[3:]
        copy = Path(tempfile.mkdtemp()) / path.name  # read a copy: the rows stay mapped while the part is rewritten
        shutil.copy(path, copy)
        if part.log_path(path).exists():
            shutil.copy(part.log_path(path), part.log_path(copy))
        got = part.read(copy)
        table, manifest, state = got.table, json.loads(json.dumps(got.manifest)), json.loads(json.dumps(got.state))
        if kind == "col":
            col, value = what  # type: ignore[misc]
            i = table.schema.get_field_index(col)
            arr = table.column(col).to_pylist()
            arr[0] = value
            table = table.set_column(i, table.schema.field(i), pa.array(arr, type=table.schema.field(i).type))
        elif kind == "measure":
            measures = state["per_topic"][0][2]
            measures[next(iter(measures))] = what
        else:
            dotted, value = what  # type: ignore[misc]
            target = state if kind == "state" else manifest
            if value is None and dotted == "rows":
                value = manifest["rows"] + 1
            if value == "ESCAPE":
                value = str(d.parent / "escape-out")
            set_path(target, dotted, value)
        log = part.log_path(path)
        part.write(path, table, manifest, state, log if log.exists() else None)

    return make


def meta_family(base: Path) -> list[Case]:
    me = ["meta-evaluate", "--bootstrap", "100", "--eval-measure", "WEIGHTED_PRECISION"]
    me += ["--truth", "in/truth.txt", "in/lb.txt"]
    cases = []
    for name, fn, expect, names in [
        ("truth empty", _write("truth.txt", ""), "refuse", "truth.txt"),
        ("truth NaN value", _sed("truth.txt", 1, lambda l: re.sub(r"[\d.]+$", "nan", l)), "refuse", "truth.txt"),
        ("truth value 'x'", _sed("truth.txt", 1, lambda l: re.sub(r"[\d.]+$", "x", l)), "refuse", "truth.txt"),
        ("truth 5 columns", _sed("truth.txt", 1, lambda l: l + "\textra"), "refuse", "truth.txt"),
        (
            "truth binary",
            lambda d: (d / "truth.txt").write_bytes(random.Random(SEED).randbytes(300)),
            "refuse",
            "truth.txt",
        ),
        (
            "truth latin-1",
            lambda d: (d / "truth.txt").write_bytes(
                (d / "truth.txt").read_text().replace("run", "r\u00e9n", 1).encode("latin-1")
            ),
            "either",
            "truth.txt",
        ),
        ("truth of other runs", _copy("rag24-truth.txt", "truth.txt"), "refuse", "truth.txt"),
        ("leaderboard empty", _write("lb.txt", ""), "refuse", "lb.txt"),
        ("leaderboard NaN", _sed("lb.txt", 1, lambda l: re.sub(r"[\d.]+$", "nan", l)), "refuse", "lb.txt"),
        ("leaderboard inf", _sed("lb.txt", 1, lambda l: re.sub(r"[\d.]+$", "inf", l)), "refuse", "lb.txt"),
        (
            "leaderboard truncated",
            lambda d: (d / "lb.txt").write_bytes((d / "lb.txt").read_bytes()[:333]),
            "either",
            "lb.txt",
        ),
        ("leaderboard duplicate row, other value", _dup_last("lb.txt"), "refuse", "lb.txt"),
        ("leaderboard a directory of nothing", lambda d: _emptydir(d / "lb.txt"), "refuse", "lb.txt"),
        ("leaderboard missing", lambda d: (d / "lb.txt").unlink(), "refuse", "lb.txt"),
    ]:
        cases.append(Case("meta", name, me, fn, expect, names, None))
    cases.append(
        Case("meta", "--truth-measure unknown", [*me, "--truth-measure", "NOPE"], None, "refuse", "NOPE", None)
    )
    cases.append(Case("meta", "--correlation bogus", [*me, "--correlation", "bogus"], None, "refuse", "bogus", None))
    cases.append(
        Case(
            "meta",
            "--output into a missing dir",
            [*me, "--output", "in/nodir/x.jsonl"],
            None,
            "either",
            "x.jsonl",
            None,
            writes_beside=("nodir",),
        )
    )
    cases.append(Case("meta", "--output .txt suffix", [*me, "--output", "in/x.txt"], None, "refuse", "x.txt", None))
    cases.append(
        Case(
            "meta",
            "--on-missing skip, half the runs",
            [*me, "--on-missing", "skip"],
            _keep_run("lb.txt"),
            "either",
            None,
            None,
        )
    )
    return cases


def _sed(rel: str, i: int, fn: Callable[[str], str]) -> Make:
    def make(d: Path) -> None:
        lines = (d / rel).read_text().split("\n")
        lines[i] = fn(lines[i])
        (d / rel).write_text("\n".join(lines))

    return make


def _dup_last(rel: str) -> Make:
    def make(d: Path) -> None:
        lines = [x for x in (d / rel).read_text().split("\n") if x]
        last = lines[-1].rsplit("\t", 1) if "\t" in lines[-1] else lines[-1].rsplit(" ", 1)
        lines.append(last[0] + "\t0.123456")
        (d / rel).write_text("\n".join(lines) + "\n")

    return make


def _keep_run(rel: str) -> Make:
    def make(d: Path) -> None:
        lines = (d / rel).read_text().split("\n")
        first = lines[1].split()[0] if len(lines) > 1 and lines[1] else lines[0].split()[0]
        (d / rel).write_text("\n".join(x for x in lines if not x or x.split()[0] != first))

    return make


def answer_family(base: Path) -> list[Case]:
    ca = ["check-answer", "--answer", "in/answer.txt", "--sources", "in/rag25/corpus.jsonl"]
    cases = []
    for name, fn, expect, names in [
        ("answer empty", _write("answer.txt", ""), "refuse", "answer.txt"),
        (
            "answer binary",
            lambda d: (d / "answer.txt").write_bytes(random.Random(SEED).randbytes(200)),
            "refuse",
            "answer.txt",
        ),
        (
            "answer latin-1",
            lambda d: (d / "answer.txt").write_bytes("Caf\u00e9 bees use the sun.".encode("latin-1")),
            "refuse",
            "answer.txt",
        ),
        (
            "answer UTF-16",
            lambda d: (d / "answer.txt").write_bytes("Bees use the sun.".encode("utf-16")),
            "either",
            "answer.txt",
        ),
        ("answer JSON list of ints", _write_as("answer.json", "[1, 2]"), "refuse", "answer.json"),
        (
            "answer JSON citations bad",
            _write_as("answer.json", '[{"text": "Bees.", "citations": [99]}]'),
            "refuse",
            "answer.json",
        ),
        ("answer JSON truncated", _write_as("answer.json", '[{"text": "Bees.", "cit'), "refuse", "answer.json"),
        ("answer JSON {text: null}", _write_as("answer.json", '[{"text": null}]'), "refuse", "answer.json"),
    ]:
        args = (
            ca
            if not name.startswith("answer JSON")
            else ["check-answer", "--answer", "in/answer.json", "--sources", "in/rag25/corpus.jsonl"]
        )
        cases.append(Case("answer", name, args, fn, expect, names, None))
    for c in file_cases(
        "answer",
        "rag25/corpus.jsonl",
        ca,
        None,
        None,
        skip=("UTF-8 BOM", "UTF-16 with BOM"),
        only=CORE,
    ):
        c.name = "sources " + c.name
        cases.append(c)
    cases.append(
        Case(
            "answer",
            "--nuggets garbage",
            [*ca, "--nuggets", "in/n.jsonl"],
            _write("n.jsonl", "{\n"),
            "refuse",
            "n.jsonl",
            None,
        )
    )
    cases.append(
        Case(
            "answer",
            "--nuggets, --topic unknown",
            [*ca, "--nuggets", "in/nuggets/nuggets.jsonl", "--topic", "nope"],
            None,
            "refuse",
            "nope",
            None,
        )
    )
    cases.append(
        Case(
            "answer",
            "--nuggets of two banks, no --topic",
            [*ca, "--nuggets", "in/nuggets/nuggets.jsonl"],
            None,
            "refuse",
            "nuggets.jsonl",
            None,
        )
    )
    return cases


def _write_as(rel: str, text: str) -> Make:
    return _write(rel, text)


def shards_family(base: Path) -> list[Case]:
    cases = []
    for spec in ("0/2", "3/2", "1/0", "a/b", "1/2/3", "-1/2", "1/1000000"):
        cases.append(
            Case(
                "shards",
                f"--shard {spec}",
                [*R25, "--out-dir", "out", "--name", "p", "--shard", spec],
                None,
                "either" if spec == "1/1000000" else "refuse",
                None,
                None,
            )
        )
    cases.append(
        Case(
            "shards",
            "--shard with --refit-support",
            [*R25, "--out-dir", "out", "--shard", "1/2", "--labels", "in/labels.jsonl", "--refit-support"],
            None,
            "refuse",
            None,
            None,
        )
    )
    cases.append(Case("shards", "--workers 0", [*JUDGE, "--workers", "0"], None, "refuse", None))
    cases.append(Case("shards", "--workers -1", [*JUDGE, "--workers", "-1"], None, "refuse", None))
    cases.append(Case("shards", "--max-topics 0", [*JUDGE, "--max-topics", "0"], None, "refuse", None))
    cases.append(
        Case(
            "shards",
            "--out-dir is a file",
            [*R25, "--out-dir", "in/labels.jsonl"],
            None,
            "refuse",
            "labels.jsonl",
            None,
        )
    )
    cases.append(Case("shards", "--name ../escape", [*JUDGE, "--name", "../escape"], None, "refuse", None))
    cases.append(Case("shards", "--name with a slash", [*JUDGE, "--name", "a/b"], None, "refuse", None))
    cases.append(Case("shards", "--name empty", [*JUDGE, "--name", ""], None, "refuse", None))
    cases.append(
        Case("shards", "--leaderboard-format ../x", [*JUDGE, "--leaderboard-format", "../x"], None, "refuse", None)
    )
    cases.append(
        Case(
            "shards",
            "--cache-dir is a file",
            [*JUDGE, "--cache-dir", "in/labels.jsonl", "--attest", "all", "--use-env-llm"],
            None,
            "refuse",
            None,
        )
    )
    return cases


# -- process faults ----------------------------------------------------------------------------------
FAULT_COMMANDS = {  # name -> (args, good set in out/, how to know the command is under way)
    "judge": (JUDGE, "cite"),
    "judge --workers 2": ([*JUDGE, "--workers", "2"], "cite"),
    "report": (["report", "out", "--resamples", "200"], "cite"),
    "plan-assessments": (["plan-assessments", "out", "--name", "citejudge", "--count", "3"], "cite"),
    "attest import": (["attest", "import", "out", "--name", "citejudge", "in/answers.jsonl"], "attest"),
    "merge": (
        ["merge", "out", "--name", "p", "in/parts/p.part-1-of-2.arrow", "in/parts/p.part-2-of-2.arrow"],
        "merged",
    ),
}


def faults_family(base: Path) -> list[Case]:
    cases = []
    for name, (args, out_set) in FAULT_COMMANDS.items():
        for sig in ("SIGINT", "SIGTERM"):
            for trigger in ("event", "time") if name in ("judge", "merge") else ("event",):
                cases.append(
                    Case(
                        "faults",
                        f"{name}: {sig} on {trigger}",
                        args,
                        None,
                        "either",
                        None,
                        out_set,
                        fault=(sig, trigger),
                    )
                )
    return cases


FAMILIES: dict[str, Callable[[Path], list[Case]]] = {
    "topics": topics_family,
    "runs": runs_family,
    "corpus": corpus_family,
    "labels": labels_family,
    "nuggets": nuggets_family,
    "workflow": workflow_family,
    "plan": plan_family,
    "report": report_family,
    "attest": attest_family,
    "merge": merge_family,
    "meta": meta_family,
    "answer": answer_family,
    "shards": shards_family,
    "faults": faults_family,
}

# -- the scratch inputs and good sets ----------------------------------------------------------------
BASE_DIR = Path()  # set by main: WORK/base (inputs), WORK/good (good output sets)
GOOD_DIR = Path()


def cli(args: list[str], cwd: Path, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="0")
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run(
        [sys.executable, str(ROOT / "run_judge.py"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        errors="replace",
    )


def build(work: Path) -> None:
    """Copy the samples into WORK/base and judge them once into WORK/good (also warms the kernels)."""
    base, good = work / "base", work / "good"
    base.mkdir(parents=True)
    good.mkdir()
    shutil.copytree(ROOT / "datasets/rag25", base / "rag25")
    shutil.copytree(ROOT / "runs/rag25", base / "rag25/runs")
    shutil.copytree(ROOT / "datasets/rag24-nuggets-mini", base / "nuggets")
    shutil.copytree(ROOT / "datasets/ragtime", base / "ragtime")
    shutil.copytree(ROOT / "runs/ragtime", base / "ragtime/runs")
    if SHARED.joinpath("kiddie").is_dir():
        shutil.copytree(SHARED / "kiddie", base / "kiddie")
        for p in (base / "kiddie").rglob("*"):
            p.chmod(0o755 if p.is_dir() else 0o644)
        (base / "kiddie").chmod(0o755)
    shutil.copy(ROOT / "datasets/rag24-mini/truth.eval.txt", base / "rag24-truth.txt")
    shutil.copy(ROOT / "datasets/rag24-mini/labels.jsonl", base / "rag24labels.jsonl")
    (base / "answer.txt").write_text("Honeybees use the sun as a compass. Tidal power is cheap.\n")

    def ok(args: list[str], cwd: Path = good) -> str:
        r = cli(args, cwd)
        if r.returncode != 0:
            raise SystemExit(f"building the good set failed: {' '.join(args)}\n{r.stderr}")
        return r.stdout

    r25 = [a.replace("in/", str(base) + "/") for a in R25]
    ok([*r25, "--out-dir", "cite"])  # compiles the kernels once
    ok(["plan-assessments", "cite", "--name", "citejudge", "--count", "5", "--output", str(good / "round1.jsonl")])
    labels = [json.loads(x) for x in (good / "round1.jsonl").read_text().splitlines()]
    levels = ("supported", "partially", "not_supported")
    (base / "labels.jsonl").write_text(
        "".join(json.dumps(dict(d, label=levels[i % 3])) + "\n" for i, d in enumerate(labels))
    )
    shutil.copytree(good / "cite", good / "attest")
    ok(["attest", "export", "attest", "--name", "citejudge", "--attest", "all", "--model", "m"])
    sys.path.insert(0, str(ROOT / "bench"))
    import standin_batch

    reqs = [json.loads(x) for x in (good / "attest/citejudge.batch/requests-0001.jsonl").read_text().splitlines()]
    (base / "answers.jsonl").write_text(
        "".join(json.dumps(standin_batch.output_line(i, q)) + "\n" for i, q in enumerate(reqs))
    )
    nug = [a.replace("in/", str(base) + "/") for a in NUG if a not in ("--out-dir", "out")]
    ok(["--judge", "argue", "--nuggets", str(base / "nuggets/nuggets.jsonl"), *nug, "--out-dir", "nug"])
    for k in (1, 2):
        ok([*r25, "--out-dir", str(base / "parts"), "--name", "p", "--shard", f"{k}/2"])
    ok(["merge", "merged", "--name", "p", *(str(base / f"parts/p.part-{k}-of-2.arrow") for k in (1, 2))])
    ok([*r25, "--out-dir", "otherparts", "--name", "q", "--shard", "2/2", "--max-runs", "2"])
    lb = good / "cite/citejudge.leaderboard.txt"
    shutil.copy(lb, base / "lb.txt")
    shutil.copy(base / "rag24-truth.txt", base / "truth.txt")
    # the truth for lb.txt: the judge's own leaderboard with values moved, so the runs match
    rows = [x.split("\t") if "\t" in x else x.split() for x in lb.read_text().splitlines() if x.strip()]
    rows = [r for r in rows if r[2] == "WEIGHTED_PRECISION"]
    (base / "truth.txt").write_text(
        "".join("\t".join([r[0], r[1], "HUMAN", f"{_u(r[0] + r[1]):.6f}"]) + "\n" for r in rows)
    )
    if not base.joinpath("kiddie").is_dir():
        print("../shared/data/kiddie absent: the kiddie cases are skipped")


def _u(text: str) -> float:
    return int(hashlib.sha256(text.encode()).hexdigest(), 16) % 997 / 997


# -- running and classifying -------------------------------------------------------------------------
def tree_hashes(root: Path, skip: Optional[Path] = None) -> dict[str, str]:
    out: dict[str, str] = {}
    if not root.exists():
        return out
    for dirpath, dirnames, filenames in os.walk(root):
        d = Path(dirpath)
        if skip is not None and (d == skip or skip in d.parents):
            dirnames[:] = []
            continue
        for name in dirnames:
            if skip is not None and d / name == skip:
                continue
            out[str((d / name).relative_to(root)) + "/"] = "dir"
        for name in filenames:
            p = d / name
            try:
                out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
            except OSError as e:
                out[str(p.relative_to(root))] = f"unreadable {e.errno}"
    return out


def listing(root: Path) -> dict[str, tuple[int, int]]:
    """Names, sizes and modification times under root (cheap enough to poll)."""
    out = {}
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            try:
                st = os.stat(os.path.join(dirpath, name))
                out[os.path.join(dirpath, name)] = (st.st_size, st.st_mtime_ns)
            except OSError:
                pass
    return out


def diff(a: dict[str, str], b: dict[str, str]) -> list[str]:
    return sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))


@dataclass
class Result:
    family: str
    name: str
    command: str
    verdict: str
    why: str = ""
    returncode: Optional[int] = None
    stderr_head: list[str] = field(default_factory=list)
    stdout_head: list[str] = field(default_factory=list)
    seconds: float = 0.0


TRACEBACK = "Traceback (most recent call last)"
GOOD_KEYS = [f"p.{x}" for x in ("qrels", "doc.qrels", "leaderboard.txt", "pairs.tsv", "intervals.tsv", "coverage.tsv")]
GOOD_KEYS += ["p.assessments.parquet", "p.leaderboard.parquet"]


def prepare(case: Case, cdir: Path) -> None:
    cdir.mkdir(parents=True)
    shutil.copytree(BASE_DIR, cdir / "in", symlinks=True)
    (cdir / "sentinel").mkdir()
    (cdir / "sentinel/keep.txt").write_text("must stay\n")
    if case.out_set:
        shutil.copytree(GOOD_DIR / case.out_set, cdir / "out")
    else:
        (cdir / "out").mkdir()
    if case.make is not None:
        if getattr(case.make, "__in_out__", False):
            case.make(cdir)
        else:
            case.make(cdir / "in")


def warned(text: str) -> bool:
    return any(
        re.search(r"\d", line)
        and re.search(r"warn|skip|ignor|drop|left out|not judged|rejected|unknown|without", line, re.I)
        for line in text.splitlines()
    )


def classify(
    case: Case, r: subprocess.CompletedProcess | None, before: dict, after: dict, outside: list[str], timed_out: bool
) -> tuple[str, str]:
    if timed_out:
        return "crash", f"no exit within {TIMEOUT} s"
    assert r is not None
    err = r.stderr or ""
    if r.returncode < 0:
        return "crash", f"killed by signal {-r.returncode}"
    if TRACEBACK in err:
        return "crash", "a Python traceback on stderr"
    if outside:
        return "damage", "changed outside the out-dir: " + ", ".join(outside[:4])
    changed = [k for k in diff(before, after) if k not in case.may_change]
    if r.returncode != 0:
        if changed:
            return "damage", "failed, yet the previous output set changed: " + ", ".join(changed[:4])
        if case.names and case.names not in err:
            return "misleading", f"the error does not name {case.names!r}"
        if not err.strip():
            return "misleading", "failed without a message"
        return "ok", "refused"
    if case.expect == "refuse" and case.same_as_good:
        differ = [k for k in GOOD_KEYS if k in before and after.get(k) != before[k]]
        if differ:
            return "misleading", "exit 0, and the forged value reached " + ", ".join(differ)
        return "ok", "accepted, the forged value reached no output"
    if case.expect == "refuse":
        return "misleading", "exit 0 on an input that should be refused"
    if case.count:
        m = re.search(case.count[0], r.stdout + "\n" + err)
        got = int(m.group(1)) if m else None
        if got is None:
            return "silent loss", f"no count found (expected {case.count[1]})"
        if got < case.count[1] and not warned(r.stdout + "\n" + err):
            return "silent loss", f"{got} of {case.count[1]} without a warning naming the count"
    return "ok", "accepted"


def run_case(i: int, case: Case, work: Path) -> Result:
    cdir = work / "cases" / f"{i:03d}-{case.family}"
    prepare(case, cdir)
    command = "run_judge.py " + " ".join(a if a and " " not in a else repr(a) for a in case.args)
    if case.fault:
        return run_fault(case, cdir, command)
    before_out = tree_hashes(cdir / "out")
    before_rest = tree_hashes(cdir, skip=cdir / "out")
    shared_before = tree_hashes(BASE_DIR), tree_hashes(GOOD_DIR)
    t0 = time.monotonic()
    r, timed_out = None, False
    try:
        r = cli(case.args, cdir)
    except subprocess.TimeoutExpired:
        timed_out = True
    secs = time.monotonic() - t0
    after_rest = tree_hashes(cdir, skip=cdir / "out")
    outside = [k for k in diff(before_rest, after_rest) if not any(k.startswith("in/" + w) for w in case.writes_beside)]
    outside += ["WORK/base/" + k for k in diff(shared_before[0], tree_hashes(BASE_DIR))]
    outside += ["WORK/good/" + k for k in diff(shared_before[1], tree_hashes(GOOD_DIR))]
    outside += [f"WORK/{p.name}" for p in work.iterdir() if p.name not in ("base", "good", "cases", "list-base")]
    outside += [f"WORK/cases/{p.name}" for p in (work / "cases").iterdir() if not re.match(r"\d{3}-", p.name)]
    verdict, why = classify(case, r, before_out, tree_hashes(cdir / "out"), outside, timed_out)
    head = r.stderr.strip().splitlines()[:4] if r and r.stderr.strip() else []
    out_head = [x for x in r.stdout.splitlines() if x.strip()][:3] if r and r.returncode == 0 else []
    if verdict == "ok":
        shutil.rmtree(cdir, ignore_errors=True)
    return Result(case.family, case.name, command, verdict, why, r.returncode if r else None, head, out_head, secs)


KEY_FILES = (
    "citejudge.qrels",
    "citejudge.leaderboard.txt",
    "citejudge.pairs.tsv",
    "citejudge.intervals.tsv",
    "p.qrels",
    "p.leaderboard.txt",
)


def run_fault(case: Case, cdir: Path, command: str) -> Result:
    """Start the command, wait for its event (a new file in out/ or in.. ) or a seeded moment, signal it;
    then the previous set must be intact or the new one complete, and a re-run must give the good set."""
    sig, trigger = case.fault  # type: ignore[misc]
    rng = random.Random(f"{SEED}-{case.name}")
    before = tree_hashes(cdir / "out")
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="0")
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "run_judge.py"), *case.args],
        cwd=cdir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
    )
    delay = rng.uniform(0.3, 2.5)
    fired = "exited first"
    first = listing(cdir / "out")
    while proc.poll() is None and time.monotonic() - t0 < TIMEOUT:
        if trigger == "event":
            if listing(cdir / "out") != first:
                proc.send_signal(getattr(signal, sig))
                fired = "on the first new or changed file in out/"
                break
        elif time.monotonic() - t0 > delay:
            proc.send_signal(getattr(signal, sig))
            fired = f"after {delay:.1f} s"
            break
        time.sleep(0.005)
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return Result(
            case.family,
            case.name,
            command,
            "crash",
            f"no exit after {sig} ({fired})",
            None,
            [],
            seconds=time.monotonic() - t0,
        )
    rc = proc.returncode
    head = err.strip().splitlines()[:4]
    after = tree_hashes(cdir / "out")
    verdict, why = "ok", f"{sig} {fired}: rc {rc}"
    if TRACEBACK in err:
        verdict, why = "crash", f"{sig} {fired}: a Python traceback"
    elif rc is not None and rc < 0 and rc != -getattr(signal, sig):
        verdict, why = "crash", f"{sig} {fired}: killed by signal {-rc}"
    else:
        changed = diff(before, after)
        leftovers = [k for k in set(after) - set(before) if re.search(r"\.tmp|\.part$|~$|\.partial", k)]
        if rc != 0 and changed:
            verdict, why = (
                "damage",
                f"{sig} {fired}: interrupted, and the previous set changed: {', '.join(changed[:4])}",
            )
        elif leftovers:
            verdict, why = "damage", f"{sig} {fired}: temporary files left: {', '.join(leftovers[:4])}"
    if verdict == "ok":  # a re-run gives the good set's key files
        try:
            r = cli(case.args, cdir)
        except subprocess.TimeoutExpired:
            return Result(
                case.family,
                case.name,
                command,
                "crash",
                "the re-run did not exit",
                rc,
                head,
                seconds=time.monotonic() - t0,
            )
        if r.returncode != 0 and not ("plan-assessments" in command or "attest" in command):
            verdict, why = "damage", f"{sig} {fired}: the re-run failed: {r.stderr.strip().splitlines()[-1:]}"
        else:
            good = GOOD_DIR / (case.out_set or "cite")
            bad = [
                k
                for k in KEY_FILES
                if (good / k).exists() and (cdir / "out" / k).read_bytes() != (good / k).read_bytes()
            ]
            if bad:
                verdict, why = "damage", f"{sig} {fired}: after a re-run {', '.join(bad)} differ from the good set"
    if verdict == "ok":
        shutil.rmtree(cdir, ignore_errors=True)
    return Result(case.family, case.name, command, verdict, why, rc, head, seconds=time.monotonic() - t0)


def all_cases(base: Path, only: list[str]) -> list[Case]:
    cases = []
    for fam, fn in FAMILIES.items():
        if only and fam not in only:
            continue
        for c in fn(base):
            if c.family == "runs" and "kiddie" in c.name and not (base / "kiddie").is_dir():
                continue
            cases.append(c)
    return cases


def table(results: list[Result]) -> str:
    fams = list(dict.fromkeys(r.family for r in results))
    lines = [f"{'family':10} {'cases':>5} " + " ".join(f"{c:>11}" for c in CLASSES)]
    for fam in [*fams, "total"]:
        rs = [r for r in results if fam in ("total", r.family)]
        lines.append(f"{fam:10} {len(rs):5d} " + " ".join(f"{sum(r.verdict == c for r in rs):11d}" for c in CLASSES))
    return "\n".join(lines)


def main() -> int:
    global BASE_DIR, GOOD_DIR
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--only", action="append", default=[], choices=list(FAMILIES), help="run only this family (repeatable)"
    )
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--json", type=Path, help="save the results as JSON")
    ap.add_argument("--work", type=Path, help="scratch directory (default: a new temporary one; kept)")
    ap.add_argument("--jobs", type=int, default=2, help="cases at a time (at most 2 on a shared machine)")
    ap.add_argument("--match", help="run only the cases whose name contains this")
    a = ap.parse_args()
    work = a.work or Path(tempfile.mkdtemp(prefix="citejudge-adversarial-"))
    work.mkdir(parents=True, exist_ok=True)
    BASE_DIR, GOOD_DIR = work / "base", work / "good"
    if a.list:
        lister = work / "list-base"
        if not BASE_DIR.exists():  # counts need the inputs only
            shutil.copytree(ROOT / "runs/rag25", lister / "rag25/runs")
            for f in ("labels.jsonl", "answers.jsonl"):
                (lister / f).write_text("{}\n")
            if SHARED.joinpath("kiddie").is_dir():
                shutil.copytree(SHARED / "kiddie", lister / "kiddie")
        for c in all_cases(lister if lister.exists() else BASE_DIR, a.only):
            print(f"{c.family:9} {c.expect:7} {c.name}")
        shutil.rmtree(lister, ignore_errors=True)
        return 0
    t0 = time.monotonic()
    if not BASE_DIR.exists():
        print(f"building inputs and good sets in {work} (the first judge call compiles the kernels) ...", flush=True)
        build(work)
    shutil.rmtree(work / "cases", ignore_errors=True)  # the directories of an earlier run's non-ok cases
    (work / "cases").mkdir()
    cases = [c for c in all_cases(BASE_DIR, a.only) if not a.match or a.match in c.name]
    print(f"{len(cases)} cases, {a.jobs} at a time; built in {time.monotonic() - t0:.0f} s", flush=True)
    results: list[Result] = []
    with ThreadPoolExecutor(max_workers=max(1, min(a.jobs, 2))) as pool:
        futures = [pool.submit(run_case, i, c, work) for i, c in enumerate(cases)]
        for f in futures:
            res = f.result()
            results.append(res)
            if a.json:  # saved as it goes
                a.json.write_text(json.dumps([r.__dict__ for r in results], indent=1))
            if res.verdict != "ok":
                print(f"  {res.verdict:11} {res.family}: {res.name}", flush=True)
    print()
    print(table(results))
    bad = [r for r in results if r.verdict != "ok"]
    if bad:
        print(f"\n{len(bad)} non-ok cases (their directories kept under {work / 'cases'}):")
    for r in bad:
        print(f"\n[{r.verdict}] {r.family}: {r.name} -- {r.why}\n  $ {r.command}  (exit {r.returncode})")
        for line in r.stderr_head:
            print("  | " + line[:300])
        for line in r.stdout_head:
            print("  > " + line[:300])
    print(f"\n{len(results)} cases in {time.monotonic() - t0:.0f} s; work directory {work}")
    if a.json:
        a.json.write_text(json.dumps([r.__dict__ for r in results], indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
