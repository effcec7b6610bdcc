"""The report's pages as data: the judge's tables in, per page a plain dataclass or dict out.

Nothing here reads or writes a file: :mod:`judges.report.build` gathers the tables
(:class:`Tables`: the assessments, the leaderboard and its intervals, the answers and documents
re-read from the inputs), :func:`site` turns them into a :class:`Site`, and the templates
(``templates/*.html``, :mod:`judges.report.render`) draw it. A page is linked only when it is
written: a (run, topic) pair without an answer (scored 0 by ``leaderboard.on_missing``) is shown
as not answered, never as a link.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import pandas as pd

from judges.formats import outputset
from judges.formats.documents import locate
from judges.nuggets.answers import joined
from judges.core.records import Document
from judges.report import svg
from judges.report.leaderboard import Against, Board
from judges.text.script import NONE, script_name, scripts_of
from judges.core.vocabulary import STATUS_LABEL, STATUS_RANK, STATUSES

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")

#: What a citation on a page carries (the assessments' columns, the score features left out).
CITATION_FIELDS = (
    "citation", "doc_id", "status", "support_status", "score", "norm_score", "answer_coverage",
    "evidence_coverage", "char_start", "char_end", "evidence", "evidence_spans", "doc_source", "reason", "p_any",
    "p_full", "llm_answer", "llm_p_yes", "numbers_missing", "entities_missing", "capped", "human_label", "explanation",
    "sentence",
)  # fmt: skip
#: The index's counts per run: (filter name, column header); each links to the run's filtered list.
FLAGS = (
    ("unsupported", "unsupported"),
    ("missing", "missing"),
    ("capped", "capped"),
    ("xlang", "cross-language"),
    ("labelled", "labelled"),
    ("disagree", "disagreements"),
)
P_NEXT_TITLE = "the probability that the assessors rank the run above the next one"


def u16(text: str, i: int) -> int:
    """Character offset ``i`` of ``text`` in UTF-16 code units (how JavaScript counts)."""
    return i if not _ASTRAL.search(text, 0, i) else len(text[:i].encode("utf-16-le")) // 2


def clean(v):
    """A table value as JSON has it (NaN: null; NumPy scalars and arrays: Python's)."""
    if isinstance(v, float) and v != v:
        return None
    if isinstance(v, np.floating):
        return None if np.isnan(v) else float(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.ndarray):
        return [clean(x) for x in v.tolist()]
    return v


def short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


# -- what goes in ----------------------------------------------------------------------------------
@dataclass
class Answer:
    """One run's answer to one topic as the run files hold it: its sentences ``(index, text)`` and
    the documents it embeds (those its citations cite)."""

    sentences: list[tuple[int, str]]
    documents: dict[str, Document] = field(default_factory=dict)


@dataclass
class Labels:
    """Labels given to ``report --labels`` (to compare with): per citation
    ``(run, topic, sentence, doc_id)`` or per sentence ``(run, topic, sentence)``, the label."""

    level: str  # "citation" or "sentence"
    by_key: dict[tuple, str]

    def of(self, run: str, topic: str, index: int, doc_id: Optional[str]) -> Optional[str]:
        key = (run, topic, index) + ((doc_id,) if self.level == "citation" else ())
        return self.by_key.get(key)


@dataclass
class Tables:
    """Everything the report shows, read (by :mod:`judges.report.build`) from the output directory
    and the inputs."""

    name: str
    assessments: pd.DataFrame
    leaderboard: pd.DataFrame
    board: Board
    answers: dict[tuple[str, str], Answer]  # (run, topic) -> the answer in the run files
    corpus: dict[str, Document] = field(default_factory=dict)
    mappings: dict[str, list] = field(default_factory=dict)  # doc id -> sentence_mapping
    thresholds: dict = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)
    labels: Optional[Labels] = None
    against: Optional[Against] = None
    filled: frozenset = frozenset()  # (run, topic) pairs leaderboard.on_missing scored
    on_missing: str = "default"
    attest_mode: Optional[str] = None
    unavailable: list = field(default_factory=list)  # (option, path) of document inputs not found
    nuggets: Optional[pd.DataFrame] = None  # NAME.nuggets.parquet (judges.read_nuggets), when the judge wrote it
    nugget_bank: Optional[dict] = None  # the bank the nuggets were judged by: path, sha256, source (NAME.config.yml)


# -- what comes out --------------------------------------------------------------------------------
@dataclass
class Cell:
    """A table cell: its text, the value it sorts by (``data-v``; None: by its text), a link,
    small lines under it (``(css class, text)``) and its class (``l``: left-aligned)."""

    text: str
    sort: Optional[str] = None
    href: Optional[str] = None
    notes: tuple[tuple[str, str], ...] = ()
    cls: str = ""


@dataclass
class Head:
    """A column header; ``first``: the direction of the first sort (``asc`` for a rank)."""

    text: str
    cls: str = ""
    first: str = "desc"
    title: str = ""


@dataclass
class Table:
    head: list[Head]
    rows: list[list[Cell]]
    id: str = ""


@dataclass
class AnswerPage:
    """``runs/rI/tJ.html`` and its data ``data/rI/tJ.js``."""

    run: str
    topic: str
    i: int
    j: int
    title: str
    measures: list[tuple[str, float]]  # the headline first
    data: dict  # window.CJ_PAGE
    not_found: int  # cited documents the report has no text for
    from_run_files: bool  # False: rebuilt from the assessments (the run file was not found)
    nuggets: Optional[Counter] = None  # the answer's nugget judgments per assignment (NIST's words)


@dataclass
class RunPage:
    run: str
    i: int
    status_svg: str
    measures: Table
    topics: Table
    rows: list[dict]  # window.CJ_RUN's rows: one per citation
    intervals: str = ""  # what the intervals under the values are (intervals_legend)


@dataclass
class TopicPage:
    topic: str
    j: int
    title: str
    runs: Table


@dataclass
class Site:
    name: str
    runs: list[str]
    topics: list[str]
    answers: list[AnswerPage]
    docs: dict[int, dict]  # topic index -> document key -> {id, title, text}
    run_pages: list[RunPage]
    topic_pages: list[TopicPage]
    index: dict
    not_found: int = 0  # citations whose document should have text and has none here, of
    cited: int = 0  # the citations whose document the report looked for
    without_run_file: int = 0  # answers rebuilt from the assessments
    warnings: list[str] = field(default_factory=list)


# -- the steps -------------------------------------------------------------------------------------
def site(t: Tables) -> Site:
    """Every page of the report, as data."""
    b = t.board
    runs = b.runs + sorted(set(t.assessments["run_id"]) - set(b.runs))
    topics = sorted(set(t.leaderboard["topic_id"]) - {"all"} | set(t.assessments["topic_id"]))
    ctx = _Context(t, runs, topics)
    for run, topic in ctx.answered():
        ctx.answer_page(run, topic)
    without_run_file = sum(not p.from_run_files for p in ctx.pages)
    warned = warnings(t, ctx.not_found, ctx.cited, without_run_file)
    return Site(
        t.name,
        runs,
        topics,
        ctx.pages,
        dict(ctx.topic_docs),
        run_pages=[run_page(ctx, run) for run in runs],
        topic_pages=[topic_page(ctx, topic) for topic in topics],
        index=index_page(ctx, warned),
        not_found=ctx.not_found,
        cited=ctx.cited,
        without_run_file=without_run_file,
        warnings=warned,
    )


def warnings(t: Tables, not_found: int, cited: int, without_run_file: int) -> list[str]:
    """What the reader must know before trusting the pages: documents the inputs did not give
    (``not_found`` of the ``cited`` citations), answers not in the run files."""
    out = []
    if not_found:
        where = "; ".join(f"{option} {path.as_posix()}" for option, path in t.unavailable)
        out.append(
            f"the documents of {not_found} of {cited} citations not found"
            + (f" (not there: {where})" if where else " in the run files or the corpus")
            + ": their pages show the evidence from the assessments only; give report --rag-responses and "
            "--corpus where the inputs are now"
        )
    if without_run_file:
        out.append(
            f"{without_run_file} reports not found in the run files: "
            "their pages show the cited sentences only, without documents"
        )
    return out


class _Context:
    """The indices shared by the pages, and what the answer pages gather for the others."""

    def __init__(self, t: Tables, runs: list[str], topics: list[str]):
        self.t, self.runs, self.topics = t, runs, topics
        self.run_ix = {r: i for i, r in enumerate(runs)}
        self.topic_ix = {x: j for j, x in enumerate(topics)}
        self.values: dict[tuple[str, str], dict] = defaultdict(dict)
        lb = t.leaderboard
        for r, x, m, v in zip(lb["run_id"], lb["topic_id"], lb["measure"], lb["value"]):
            self.values[(r, x)][m] = v
        cols = [c for c in t.assessments.columns if not c.startswith("f_")]
        self.cites: dict[tuple[str, str], list[dict]] = defaultdict(list)
        for r in t.assessments[cols].to_dict("records"):
            self.cites[(r["run_id"], r["topic_id"])].append({k: clean(v) for k, v in r.items()})
        self.pages: list[AnswerPage] = []
        self.written: set[tuple[str, str]] = set()
        self.topic_docs: dict[int, dict] = defaultdict(dict)
        self.counts: dict[tuple[str, str], Counter] = {}
        self.flags: dict[str, Counter] = defaultdict(Counter)
        self.run_rows: dict[str, list] = defaultdict(list)
        self.doc_scripts: dict[str, int] = {}
        self.not_found = self.cited = 0
        self.nuggets: dict[tuple[str, str], list[dict]] = defaultdict(list)
        if t.nuggets is not None:
            for r in t.nuggets.sort_values(["run_id", "topic_id", "nugget_index"]).to_dict("records"):
                self.nuggets[(r["run_id"], r["topic_id"])].append(r)
        self.nugget_counts: dict[tuple[str, str], Counter] = {}

    def answered(self) -> list[tuple[str, str]]:
        """The (run, topic) pairs that get a page: an answer in the run files with a leaderboard
        row, or citations in the assessments; in the runs' and topics' order."""
        keys = {k for k in self.t.answers if k in self.values} | set(self.cites)
        keys = {(r, x) for r, x in keys if r in self.run_ix and x in self.topic_ix}
        return sorted(keys, key=lambda k: (self.run_ix[k[0]], self.topic_ix[k[1]]))

    def href(self, run: str, topic: str, up: str = "") -> Optional[str]:
        """The answer page of (run, topic), from the report's root or ``up`` (``../``: from a
        directory below it; ``runs/``: from a run page); None: not written."""
        if (run, topic) not in self.written:
            return None
        page = f"r{self.run_ix[run]}/t{self.topic_ix[topic]}.html"
        return page if up == "runs/" else f"{up}runs/{page}"

    def topic_cell(self, run: str, topic: str, text: str, up: str) -> Cell:
        """The name of a (run, topic) pair in a table: a link to its answer, or why there is none."""
        href = self.href(run, topic, up)
        return Cell(text, cls="l", href=href, notes=() if href else (("", self.why_no_page(run, topic)),))

    def why_no_page(self, run: str, topic: str) -> str:
        if (run, topic) in self.t.filled:
            return f"not answered (leaderboard.on_missing: {self.t.on_missing})"
        return "no answer in the run files the report read"

    def answer_page(self, run: str, topic: str) -> None:
        answer = self.t.answers.get((run, topic))
        if answer is None:  # rebuilt from the assessments: the cited sentences, no documents
            cited = {(c["sentence_index"], c["sentence"]) for c in self.cites[(run, topic)]}
            answer = Answer(sorted(cited))
        i, j = self.run_ix[run], self.topic_ix[topic]
        by_sent: dict[int, list] = defaultdict(list)
        for c in self.cites.get((run, topic), []):
            by_sent[c["sentence_index"]].append(c)
        texts = [text for _, text in answer.sentences]
        sent_scripts = scripts_of(texts)
        rows: list[dict] = []
        counts: Counter[str] = Counter()
        not_found = 0
        for (index, text), s_script in zip(answer.sentences, sent_scripts):
            cites = sorted(by_sent.get(index, []), key=lambda c: c["citation_rank"])
            entries = [self.citation(run, topic, index, c, cites, answer, int(s_script)) for c in cites]
            for c, e in zip(cites, entries):
                counts[c["status"]] += 1
                not_found += e.pop("not_found")
                self.run_rows[run].append(run_row(e, topic, f"r{i}/t{j}.html", c))
            status = max((e["status"] for e in entries), key=STATUS_RANK.__getitem__) if entries else "uncited"
            rows.append({"index": index, "text": text, "status": status, "cites": entries})
        self.counts[(run, topic)] = counts
        self.written.add((run, topic))
        title = self.t.titles.get(topic, "")
        measures = headline_first(self.values.get((run, topic), {}), self.t.board.headline)
        data = {"run": run, "topic": topic, "title": title, "thresholds": self.t.thresholds, "sentences": rows}
        data["measures"] = dict(measures)
        found = None
        if (run, topic) in self.nuggets:
            data.update(nugget_data(self.nuggets[(run, topic)], joined(text for _, text in answer.sentences)))
            found = self.nugget_counts[(run, topic)] = Counter(n["assignment"] for n in data["nuggets"])
        from_run_files = (run, topic) in self.t.answers
        self.pages.append(AnswerPage(run, topic, i, j, title, measures, data, not_found, from_run_files, found))

    def citation(self, run: str, topic: str, index: int, c: dict, cites: list, answer: Answer, s_script: int) -> dict:
        """One citation as its page shows it; ``not_found``: 1 when its document should have text
        and the report has none."""
        e = {k: c.get(k) for k in CITATION_FIELDS}
        e.update(sentence_index=index, rank=c["citation_rank"], key=f"s{index}c{c['citation_rank']}", not_found=0)
        doc = self.document(c, answer)
        if c["doc_id"] is not None and c["status"] != "missing":
            self.cited += 1
            e["not_found"] = unread = int(doc is None)
            self.not_found += unread
        if doc is not None:
            e.update(self.document_fields(doc, c, self.topic_ix[topic]))
        if c.get("support_status") == "cross_language" or c["status"] == "cross_language":
            e["xlang"] = self.languages(doc, s_script, c)
        if c.get("human_label"):
            self.flags[run]["labelled"] += 1
        if self.t.labels is not None:
            e.update(label_fields(self.t.labels, run, topic, index, c, cites))
        for f in ("capped", "xlang", "disagree"):
            if e.get(f):
                self.flags[run][f] += 1
        return e

    def document(self, c: dict, answer: Answer) -> Optional[Document]:
        if c["doc_id"] is None or c["status"] == "missing":
            return None
        doc = answer.documents.get(c["doc_id"]) if c["doc_source"] != "corpus" else None
        return doc if doc is not None else self.t.corpus.get(c["doc_id"])

    def document_fields(self, doc: Document, c: dict, j: int) -> dict:
        """The citation's document (written once per topic, ``docs/tJ.js``) and where the evidence is
        (its best span ``a16``-``b16`` and every span, ``spans16``, in UTF-16 offsets; the pages and
        boxes of every span)."""
        key = "d" + hashlib.sha1(f"{doc.doc_id}\0{doc.text}".encode("utf-8")).hexdigest()[:12]
        self.topic_docs[j].setdefault(key, {"id": doc.doc_id, "title": doc.title, "text": doc.text})
        out = {"doc": key, "doc_chars": len(doc.text)}
        out["a16"], out["b16"] = u16(doc.text, c["char_start"]), u16(doc.text, c["char_end"])
        # every span highlighted (a table without them, from before multi-span evidence: the one)
        spans = [(s["char_start"], s["char_end"]) for s in c.get("evidence_spans") or ()]
        out["spans16"] = [[u16(doc.text, a), u16(doc.text, b)] for a, b in spans]
        mapping = self.t.mappings.get(doc.doc_id)
        if mapping:
            all_pages: list[int] = []
            all_boxes: list[dict] = []
            for a, b in spans or [(c["char_start"], c["char_end"])]:
                pages, boxes = locate(mapping, doc.text, a, b)
                all_pages += [x for x in pages if x not in all_pages]
                all_boxes += boxes
            out["pages"], out["boxes"] = all_pages, all_boxes
        return out

    def languages(self, doc: Optional[Document], s_script: int, c: dict) -> str:
        """Why the judge called it cross-language, in the judge's script names (judges.text.script)."""
        if doc is not None:
            key = f"{doc.doc_id}\0{doc.text}"
            if key not in self.doc_scripts:
                self.doc_scripts[key] = int(scripts_of([doc.text])[0])
            d_script = self.doc_scripts[key]
            if NONE not in (s_script, d_script) and s_script != d_script:
                return f"sentence in {script_name(s_script)} script, document in {script_name(d_script)}"
        return "sentence and document in different scripts"


def nugget_data(rows: list[dict], text: str) -> dict:
    """An answer's nugget judgments as its page shows them (``window.CJ_PAGE``'s ``nuggets``), and
    the answer text their spans are offsets into (``nugget_text``; the session's, joined from the run
    file's sentences). ``spans16``: the spans in UTF-16 offsets; empty when the text read now is
    not the one judged (the run file changed), and ``span_text`` then says what was found."""
    nuggets = []
    for r in rows:
        spans = [(int(s["char_start"]), int(s["char_end"])) for s in r["spans"]]
        said = [str(x) for x in r["span_text"]]
        same = [text[a:b] for a, b in spans] == said
        n = {
            "i": int(r["nugget_index"]),
            "text": r["nugget"],
            "vital": r["importance"] == "vital",
            "assignment": r["assignment"],
            "p": [clean(r["p_support"]), clean(r["p_partial"]), clean(r["p_not"])],
            "spans16": [[u16(text, a), u16(text, b)] for a, b in spans] if same else [],
            "explanation": r["explanation"],
            "human": clean(r["human_assignment"]),
        }
        nuggets.append(n if same else {**n, "span_text": said})
    return {"nugget_text": text, "nuggets": nuggets}


def headline_first(values: dict, headline: str) -> list[tuple[str, float]]:
    return [(m, float(v)) for m, v in sorted(values.items(), key=lambda mv: mv[0] != headline)]


def label_fields(labels: Labels, run: str, topic: str, index: int, c: dict, cites: list) -> dict:
    """A label given to the report (``--labels``) and whether the judge disagrees with it: per
    citation its status, per sentence its best citation's (every status has a label, cross_language too)."""
    label = labels.of(run, topic, index, c["doc_id"])
    if label is None:
        return {}
    status = c["status"]
    if labels.level == "sentence":
        status = max((x["status"] for x in cites), key=STATUS_RANK.__getitem__)
    return {"label": label, "disagree": STATUS_LABEL[status] != label}


def run_row(e: dict, topic: str, href: str, c: dict) -> dict:
    """A citation in its run page's list (built by the page's script)."""
    return {
        "topic_id": topic,
        "href": href,
        "sentence_index": e["sentence_index"],
        "rank": e["rank"],
        "key": e["key"],
        "doc_id": c["doc_id"] if c["doc_id"] is not None else c["citation"],
        "status": c["status"],
        "p_full": c["p_full"],
        "capped": bool(c["capped"]),
        "xlang": e.get("xlang"),
        "human_label": c.get("human_label"),
        "disagree": e.get("disagree", False),
        "explanation": c["explanation"],
    }


# -- cells -----------------------------------------------------------------------------------------
def ci(v, lo=float("nan"), hi=float("nan"), a_lo=float("nan"), a_hi=float("nan"), bootstrap=False) -> Cell:
    """A value with, under it, each 95% interval given, labelled with what it is: ``assessors``, the
    assessors' value on these topics (the judge's error: ``low``/``high`` of NAME.intervals); ``with
    topic sampling``, theirs over topics like these (``low_topics``/``high_topics``); or, for an output
    set without NAME.intervals, ``topic bootstrap`` (a bootstrap over the run's topics)."""
    if v is None or v != v:
        return Cell("—", "")
    topics = "topic bootstrap" if bootstrap else "with topic sampling"
    notes = ((("assessors", f"assessors [{a_lo:.3f},\u00a0{a_hi:.3f}]"),) if a_lo == a_lo and a_hi == a_hi else ()) + (
        (("topics", f"{topics} [{lo:.3f},\u00a0{hi:.3f}]"),) if lo == lo and hi == hi else ()
    )
    return Cell(f"{v:.3f}", f"{v:.6f}", notes=notes)


def intervals_legend(b: Board, name: str) -> str:
    """What the intervals under a leaderboard value are, in words (index and run pages)."""
    tsv = outputset.file_name(name, "intervals")
    if b.bootstrap:
        return (
            "under each value its 95% topic bootstrap interval (a bootstrap over the run's topics, BCa: this output "
            f"set has no {name}.intervals)"
        )
    return (
        f"under each value its 95% intervals from {tsv}: assessors, for the measures that depend "
        "on support judgments, the value the track's assessors would give on these topics, from the judge's "
        "error alone (low, high); with topic sampling, the value they would give over other topics like these, "
        "the judge's error and the spread of the run's per-topic values added (low_topics, high_topics). Both rest "
        f"on the judge's errors as learned on labelled data, which the column made of {tsv} "
        f"names, {b.learned[1]}; with assessors' labels (--labels) weighted precision's also on the labels"
    )


def count(n: int, href: Optional[str] = None) -> Cell:
    return Cell(str(n), str(n), href if n else None)


def assessors(b: Board, run: str, m: str) -> tuple[float, float]:
    """The 95% interval for the assessors' value of ``m`` for ``run`` (NaN without NAME.intervals,
    and for the measures without judge error: their interval is the value)."""
    from judges.scores.intervals import NO_JUDGE_ERROR

    if b.assessors_low is None or b.assessors_high is None or run not in b.assessors_low.index or m in NO_JUDGE_ERROR:
        return float("nan"), float("nan")
    return b.assessors_low.loc[run, m], b.assessors_high.loc[run, m]


def measure_cell(b: Board, run: str, m: str) -> Cell:
    if run not in b.value.index:
        return ci(None)
    return ci(b.value.loc[run, m], b.low.loc[run, m], b.high.loc[run, m], *assessors(b, run, m), b.bootstrap)


def measure_head(m: str) -> Head:
    """A measure's header, breakable after its underscores (a narrower table)."""
    return Head(m.replace("_", "_\u200b"))


# -- run, topic and index pages --------------------------------------------------------------------
def _status_counts(ctx: _Context, run: str, topic: str) -> list[Cell]:
    c = ctx.counts.get((run, topic), Counter())
    return [count(c[s]) for s in STATUSES]


NUGGET_HEADS = [
    Head("nuggets found", title="the topic's nuggets the answer was judged to contain (support or partial support)"),
    Head("nuggets missing", title="the topic's nuggets judged not in the answer (not_support)"),
]


def _nugget_counts(ctx: _Context, run: str, topic: str, up: str) -> list[Cell]:
    """Found (support or partial) and missing nuggets of the answer, the first linked to its
    nuggets; no cells for an output set without nugget judgments."""
    if not ctx.nugget_counts:
        return []
    c = ctx.nugget_counts.get((run, topic))
    if c is None:
        return [Cell("—", ""), Cell("—", "")]
    found, href = c["support"] + c["partial_support"], ctx.href(run, topic, up)
    partial = (("", f"{c['partial_support']} partial"),) if c["partial_support"] else ()
    return [
        Cell(f"{found} of {sum(c.values())}", str(found), f"{href}#nuggets" if href else None, partial),
        count(c["not_support"]),
    ]


def run_page(ctx: _Context, run: str) -> RunPage:
    b, i = ctx.t.board, ctx.run_ix[run]
    totals: Counter[str] = Counter()
    for x in ctx.topics:
        totals.update(ctx.counts.get((run, x), Counter()))
    measures = Table(
        [Head("measure", "l"), Head("value")], [[Cell(m, cls="l"), measure_cell(b, run, m)] for m in b.measures]
    )
    rows = []
    for x in ctx.topics:
        if (run, x) not in ctx.values and (run, x) not in ctx.written:
            continue
        title = Cell(short(ctx.t.titles.get(x, ""), 70), cls="l")
        value = ci(ctx.values.get((run, x), {}).get(b.headline))
        cells = [ctx.topic_cell(run, x, x, "runs/"), title, value] + _status_counts(ctx, run, x)
        rows.append(cells + _nugget_counts(ctx, run, x, "runs/"))
    head = [Head("topic", "l"), Head("title", "l"), measure_head(b.headline)] + [Head(s) for s in STATUSES]
    head += NUGGET_HEADS if ctx.nugget_counts else []
    bars = svg.status_bars([(run, totals, None)])
    legend = intervals_legend(b, ctx.t.name)
    return RunPage(run, i, bars, measures, Table(head, rows), ctx.run_rows.get(run, []), legend)


def topic_page(ctx: _Context, topic: str) -> TopicPage:
    b, j = ctx.t.board, ctx.topic_ix[topic]
    rows = []
    for run in ctx.runs:
        if (run, topic) not in ctx.values and (run, topic) not in ctx.written:
            continue
        value = ci(ctx.values.get((run, topic), {}).get(b.headline))
        cells = [ctx.topic_cell(run, topic, run, "../"), value] + _status_counts(ctx, run, topic)
        rows.append(cells + _nugget_counts(ctx, run, topic, "../"))
    head = [Head("run", "l"), measure_head(b.headline)] + [Head(s) for s in STATUSES]
    head += NUGGET_HEADS if ctx.nugget_counts else []
    return TopicPage(topic, j, ctx.t.titles.get(topic, ""), Table(head, rows))


def truth_ranks(values: Optional[pd.Series]) -> dict[str, int]:
    if values is None:
        return {}
    ranked = values.sort_values(ascending=False, kind="stable")
    return {r: k + 1 for k, r in enumerate(ranked.index)}


def leaderboard_head(ctx: _Context, flags: list[tuple[str, str]]) -> list[Head]:
    b = ctx.t.board
    head = [Head("#", first="asc"), Head("run", "l", first="asc")]
    if b.truth is not None:
        head += [Head(f"truth: {b.truth_measure}"), Head("truth rank", first="asc")]
    for m in b.measures:
        head.append(measure_head(m))
        if m == b.headline and b.next_p is not None:  # beside the headline
            head.append(Head("P(above next)", title=P_NEXT_TITLE))
    return head + [Head(label) for _, label in flags]


def leaderboard_row(ctx: _Context, k: int, run: str, flags: list[tuple[str, str]], truth: Optional[pd.Series]) -> list:
    b, i = ctx.t.board, ctx.run_ix[run]
    cells = [Cell(str(k + 1), str(k + 1)), Cell(run, cls="l", href=f"runs/r{i}.html")]
    if b.truth is not None and truth is not None:  # (index_page's truth is the board's, or paired with it)
        rank = truth_ranks(truth).get(run)
        cells += [ci(truth.get(run, float("nan"))), Cell(str(rank) if rank else "—", str(rank) if rank else "")]
    for m in b.measures:
        cells.append(measure_cell(b, run, m))
        if m == b.headline and b.next_p is not None:
            p = b.next_p.get(run)
            cells.append(Cell(f"{p:.2f}", f"{p:.6f}") if p is not None else Cell("—", ""))
    statuses: Counter[str] = Counter()
    for x in ctx.topics:
        statuses.update(ctx.counts.get((run, x), Counter()))
    have = {**statuses, **ctx.flags.get(run, {})}
    return cells + [count(have.get(f, 0), f"runs/r{i}.html#f={f}") for f, _ in flags]


def index_flags(ctx: _Context) -> list[tuple[str, str]]:
    """The index's count columns: labelled when the judge had labels, disagreements with --labels."""
    labelled = "human_label" in ctx.t.assessments and ctx.t.assessments["human_label"].notna().any()
    keep = {"labelled": labelled, "disagree": ctx.t.labels is not None}
    return [(f, label) for f, label in FLAGS if keep.get(f, True)]


def index_page(ctx: _Context, warnings: list[str]) -> dict:
    """The leaderboard, the summary, the plots and the topics."""
    t, b = ctx.t, ctx.t.board
    truth = t.against.truth if t.against is not None else b.truth
    flags = index_flags(ctx)
    table = Table(
        leaderboard_head(ctx, flags),
        [leaderboard_row(ctx, k, r, flags, truth) for k, r in enumerate(ctx.runs)],
        id="leaderboard",
    )
    counts = Counter(t.assessments["status"])
    return {
        "name": t.name,
        "headline": b.headline,
        "intervals": intervals_legend(b, t.name),
        "next_p": b.next_p is not None,
        "table": table,
        "judged": len(t.assessments),
        "statuses": [(counts[s], s) for s in STATUSES],
        "thresholds": ", ".join(
            f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}" for k, v in t.thresholds.items()
        ),
        "attest_mode": t.attest_mode,
        "nugget_bank": t.nugget_bank,
        "against": t.against,
        "truth_measure": b.truth_measure,
        "plots": plots(ctx),
        "topics": [(f"topics/t{ctx.topic_ix[x]}.html", x, short(t.titles.get(x, ""), 90)) for x in ctx.topics],
        "warnings": warnings,
    }


def plots(ctx: _Context) -> list[tuple[str, str]]:
    """(title, SVG) of each plot of the index."""
    t, b, df = ctx.t, ctx.t.board, ctx.t.assessments
    status_by_run: dict[str, Counter[str]] = {r: Counter() for r in ctx.runs}
    for (run, _), c in ctx.counts.items():
        status_by_run[run].update(c)
    bars = [(r, status_by_run[r], f"runs/r{ctx.run_ix[r]}.html") for r in ctx.runs]
    out = [("Status of the citations, per run", svg.status_bars(bars))]
    by_status = {s: df.loc[df["status"] == s] for s in svg.STATUSES}
    th = t.thresholds
    if ctx.nugget_counts and (df["status"] == "missing").all():
        pass  # --judge nugget without documents: no citation judged, no distribution to draw
    elif th.get("judge") == "model":
        for p, k, what in (("p_full", "p_supported", "supported"), ("p_any", "p_partial", "partial")):
            name = "P(full)" if p == "p_full" else "P(any)"
            values = {s: g[p].dropna().tolist() for s, g in by_status.items()}
            title = f"Distribution of {name}, by final status, with the {what} threshold"
            out.append((title, svg.histogram(values, [(th[k], f"{what} at {name} ≥")], name)))
    else:
        lines = [(th[k], k) for k in ("norm_supported", "norm_partial") if k in th]
        values = {s: g["norm_score"].dropna().tolist() for s, g in by_status.items()}
        title = "Distribution of norm_score, by final status, with the thresholds"
        out.append((title, svg.histogram(values, lines, "norm_score")))
    if t.against is not None:
        a = t.against
        pts = [
            (r, float(a.truth[r]), float(a.judged[r]), f"runs/r{ctx.run_ix[r]}.html")
            for r in ctx.runs
            if r in a.truth.index
        ]
        over = ", each run over the topics the truth has for it" if a.truth_topics else ""
        title = f"Judge against truth, per run{over} (Kendall's tau {a.tau:.3f})"
        out.append((title, svg.scatter(pts, f"truth: {b.truth_measure}", f"judge: {a.measure or b.headline}")))
    heat = svg.heatmap(
        ctx.runs,
        ctx.topics,
        lambda r, x: ctx.values.get((r, x), {}).get(b.headline, float("nan")),
        lambda r, x: ctx.href(r, x),
        b.headline,
        note=lambda r, x: "" if (r, x) in ctx.written else ctx.why_no_page(r, x),
        unanswered=lambda r, x: (r, x) in ctx.t.filled,
    )
    out.append((f"{b.headline} per run and topic (click a cell for the answer)", heat))
    return out
