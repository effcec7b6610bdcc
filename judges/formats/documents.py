"""The cited documents behind an output directory, and the evidence in context for any row.

The judge's outputs hold the evidence span (``char_start``, ``char_end``, ``evidence``) but not
the documents: they are read again from the inputs ``NAME.config.yml`` names (the run files'
embedded documents, the corpus), or from paths given here. The config records absolute paths; a
relative one (configs written before) is tried against the config file's directory, then the
current directory (:func:`resolve_input`). In a notebook::

    import judges
    df = judges.read_assessments("output/", "sample")
    docs = judges.open_documents("output/", "sample")
    ev = docs.evidence(df.iloc[0])          # the cited document and the evidence in it
    ev.evidence == df.iloc[0]["evidence"]   # True
    print(ev)                               # ...before [[evidence]] after...
    ev.text                                 # the whole document
    ev.pages, ev.boxes                      # when the document carries a sentence_mapping
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Optional


from judges.formats.corpus import read_corpus
from judges.formats.docstore import Unresolved, is_store
from judges.formats.jsonl import discover, iter_jsonl
from judges.formats.runs import DOC_ID_KEYS, read_report_at, read_reports
from judges.formats import tables
from judges.formats.tables import output_file
from judges.core.records import Document, Report
from judges.core.errors import InputError

CONTEXT_CHARS = 300


@dataclass
class Evidence:
    """A citation's document and its evidence span, with ``context`` characters either side."""

    doc_id: Optional[str]
    text: Optional[str]  # the whole document (None: not found or missing)
    start: int
    end: int
    before: str = ""
    evidence: str = ""
    after: str = ""
    title: str = ""
    pages: list[int] = field(default_factory=list)  # page indices the span lies on (sentence_mapping)
    boxes: list[dict] = field(default_factory=list)  # {page_index, bbox: [x1, y1, x2, y2]} of the span's sentences

    def __str__(self) -> str:
        if self.text is None:
            return f"<document {self.doc_id!r} not available>"
        lead = "..." if self.start - len(self.before) > 0 else ""
        tail = "..." if self.end + len(self.after) < len(self.text) else ""
        return f"{lead}{self.before}[[{self.evidence}]]{self.after}{tail}"


def in_context(
    doc: Optional[Document],
    doc_id: Optional[str],
    start: int,
    end: int,
    context: int = CONTEXT_CHARS,
    mapping: Optional[list] = None,
) -> Evidence:
    """The span ``[start, end)`` of ``doc`` with ``context`` characters either side (cut at word boundaries)."""
    if doc is None:
        return Evidence(doc_id, None, start, end)
    text = doc.text
    lo, hi = max(0, start - context), min(len(text), end + context)
    if lo > 0:
        space = text.find(" ", lo, start)
        lo = space + 1 if space >= 0 else lo
    if hi < len(text):
        space = text.rfind(" ", end, hi)
        hi = space if space >= 0 else hi
    pages, boxes = locate(mapping, text, start, end) if mapping else ([], [])
    return Evidence(doc_id, text, start, end, text[lo:start], text[start:end], text[end:hi], doc.title, pages, boxes)


def locate(mapping: list, text: str, start: int, end: int) -> tuple[list[int], list[dict]]:
    """Pages and boxes of the span from a document's ``sentence_mapping``
    (``[{index, page_index, spans: [{bbox, content}]}]``): the mapped sentences whose text
    overlaps ``[start, end)`` in ``text`` (each sentence found in order after the previous)."""
    pages: list[int] = []
    boxes: list[dict] = []
    pos = 0
    for sentence in sorted(mapping, key=lambda m: m.get("index", 0)):
        spans = sentence.get("spans") or []
        content = " ".join(str(s.get("content", "")) for s in spans).strip()
        if not content:
            continue
        at = text.find(content, pos)
        if at < 0:
            at = text.find(str(spans[0].get("content", "")).strip(), pos) if spans else -1
        if at < 0:
            continue
        s_end = at + len(content)
        pos = at + 1
        if at < end and s_end > start:
            page = sentence.get("page_index")
            if page is not None and page not in pages:
                pages.append(page)
            for s in spans:
                if s.get("bbox") is not None:
                    boxes.append({"page_index": page, "bbox": list(s["bbox"])})
    return pages, boxes


def read_config(out_dir: Path, name: Optional[str]) -> tuple[str, dict]:
    """The set's name and its ``NAME.config.yml`` (read by :func:`judges.formats.tables.read_config`)."""
    config = tables.read_config(output_file(out_dir, name, "config"))
    return config["name"], config


def resolve_input(entry, config_dir: Path) -> Path:
    """An input as ``NAME.config.yml`` records it (a path, or ``{path: ...}``): an absolute path as
    it is; a relative one (configs written before they were absolute) against the config file's
    directory, then the current directory, the first that exists (else as written)."""
    path = Path(entry["path"] if isinstance(entry, dict) else entry)
    if path.is_absolute():
        return path
    return next((base / path for base in (Path(config_dir), Path.cwd()) if (base / path).exists()), path)


class DocumentStore:
    """The documents an output directory's citations cite, read from its inputs on demand."""

    def __init__(
        self,
        out_dir: str | Path,
        name: Optional[str] = None,
        responses: Optional[list] = None,
        corpus: Optional[Path] = None,
        dataset: Optional[str] = None,
    ):
        self.out_dir = Path(out_dir)
        self.name, self.config = read_config(self.out_dir, name)
        self.config_dir = output_file(self.out_dir, self.name, "config").parent
        inputs = self.config.get("inputs", {})
        self.dataset = dataset or self.config.get("dataset", "auto")
        self.given = {"responses": bool(responses), "corpus": corpus is not None}  # given anew, not as recorded
        self.responses = [Path(p) for p in responses] if responses else self.inputs("responses")
        if corpus is None and inputs.get("corpus"):
            corpus = self.inputs("corpus")[0]
        self.corpus_path = corpus
        self._corpus: Optional[dict[str, Document | Unresolved]] = None
        self._mappings: dict[str, list] = {}
        self._where: Optional[dict[tuple[str, str], tuple[str, int, int]]] = None
        self._reports: dict[tuple[str, str], Optional[Report]] = {}

    def inputs(self, kind: str) -> list[Path]:
        """The paths of one kind of input the config records (``topics``, ``responses``,
        ``corpus``, ``workflow``, ``labels``), resolved (:func:`resolve_input`)."""
        entries = self.config.get("inputs", {}).get(kind) or []
        entries = entries if isinstance(entries, list) else [entries]
        return [resolve_input(e, self.config_dir) for e in entries]

    def unavailable(self) -> list[tuple[str, Path]]:
        """The document inputs that are not there: ``(option, path)`` for each run file or
        directory and the corpus (the documents of their citations cannot be shown)."""
        gone = [("--rag-responses", Path(p)) for p in self.responses if not Path(p).exists()]
        if self.corpus_path is not None and not Path(self.corpus_path).exists():
            gone.append(("--corpus", Path(self.corpus_path)))
        return gone

    # -- reading ------------------------------------------------------------------------------
    def run_files(self) -> list[Path]:
        existing = [p for p in self.responses if Path(p).exists()]
        return discover(existing, "--rag-responses") if existing else []

    def reports(self) -> Iterator[Report]:
        """Every valid report of the run files, in file order (bad lines are skipped)."""
        for path in self.run_files():
            if not path.exists():
                continue
            for _, rep in read_reports(path, self.dataset):
                if isinstance(rep, Report):
                    yield rep

    def load_corpus(self, wanted: set[str]) -> dict[str, Document]:
        """The corpus documents with these ids (and their sentence mappings, when they carry one)."""
        if self._corpus is None:
            self._corpus = {}
        todo = {w for w in wanted if w not in self._corpus}
        if todo and self.corpus_path is not None and Path(self.corpus_path).exists():
            self._corpus.update(read_corpus(Path(self.corpus_path), todo, on_error=self._on_corpus_error))
            if Path(self.corpus_path).is_file() and not is_store(Path(self.corpus_path)):
                self._read_mappings(todo)  # a plain corpus file's (a directory's or a store's documents carry none)
        return {k: d for k in wanted if isinstance(d := self._corpus.get(k), Document)}  # not an Unresolved

    def _on_corpus_error(self, e: InputError) -> None:
        """A bad line of the corpus: an error when the set was judged with ``--on-error fail`` (the
        judge refused such a corpus: this one is not the corpus judged), else skipped as the judge did."""
        if self.config.get("on_error", "fail") == "fail":
            raise e

    def _read_mappings(self, wanted: set[str]) -> None:
        """``sentence_mapping`` of the wanted corpus documents (a cheap text test first)."""
        assert self.corpus_path is not None, "mappings are read from the corpus file"
        for _, obj in iter_jsonl(Path(self.corpus_path)):
            if not isinstance(obj, dict) or "sentence_mapping" not in obj:
                continue
            key = next((k for k in DOC_ID_KEYS if obj.get(k) is not None), None)
            if key is not None and str(obj[key]) in wanted and isinstance(obj["sentence_mapping"], list):
                self._mappings[str(obj[key])] = obj["sentence_mapping"]

    def mapping(self, doc_id: Optional[str]) -> Optional[list]:
        return self._mappings.get(doc_id) if doc_id else None

    def report(self, run_id: str, topic_id: str) -> Optional[Report]:
        key = (str(run_id), str(topic_id))
        if key in self._reports:
            return self._reports[key]
        if self._where is None:
            self._where = {}
            for path in self.run_files():
                if path.exists():
                    for _, rep in read_reports(path, self.dataset):
                        if isinstance(rep, Report):
                            self._where.setdefault((rep.run_id, rep.topic_id), (rep.path, rep.line, rep.offset))
        where = self._where.get(key)
        if where is None:
            return None
        file, line, offset = where
        found: Optional[Report]
        try:
            with open(file, "rb") as f:
                found = read_report_at(f, file, line, offset, self.dataset)
        except Exception:  # a gzip file cannot seek: read it through
            found = next(
                (r for _, r in read_reports(Path(file), self.dataset, lines={line}) if isinstance(r, Report)), None
            )
        if len(self._reports) > 64:
            self._reports.clear()
        self._reports[key] = found
        return found

    def document(self, run_id: str, topic_id: str, doc_id: Optional[str], doc_source: str = "") -> Optional[Document]:
        """The document a citation of (run, topic) resolved to: embedded in the report, else the corpus."""
        if doc_id is None:
            return None
        if doc_source != "corpus":
            rep = self.report(run_id, topic_id)
            if rep is not None and rep.documents.get(doc_id) is not None:
                return rep.documents[doc_id]
        return self.load_corpus({doc_id}).get(doc_id)

    def evidence(self, row, context: int = CONTEXT_CHARS) -> Evidence:
        """The cited document and the evidence in context for one assessments row (a Series or dict)."""
        get = row.get if hasattr(row, "get") else (lambda k, d=None: getattr(row, k, d))
        doc_id = get("doc_id")
        doc_id = None if doc_id is None or doc_id != doc_id else str(doc_id)
        doc = self.document(str(get("run_id")), str(get("topic_id")), doc_id, get("doc_source") or "")
        return in_context(
            doc, doc_id, int(get("char_start") or 0), int(get("char_end") or 0), context, self.mapping(doc_id)
        )


def open_documents(out_dir: str | Path, name: Optional[str] = None, **kwargs) -> DocumentStore:
    """The documents behind an output directory (see the module doc); ``responses=``, ``corpus=``
    point at inputs that moved since the judge ran."""
    return DocumentStore(out_dir, name, **kwargs)
