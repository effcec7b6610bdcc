"""A docstore for big corpora: built once by ``run_judge.py corpus index``, read by ``--corpus``.

The corpus real TREC RAG and DRAGUN runs cite is the MS MARCO v2.1 segmented corpus: 113,520,750
segments in 70 gzip shards ``msmarco_v2.1_doc_segmented_NN.json.gz`` (about 25 GB), one JSON object
per line. A segment id such as ``msmarco_v2.1_doc_29_677149#3_1637632`` names its shard (29) and
the byte offset of its line in the uncompressed shard (1637632). Streaming that corpus for every run
of the judge is a 25 GB decompression and 10^8 JSON parses; the docstore reads only the cited ids.

Design: one SQLite file (stdlib ``sqlite3``) beside the corpus, ``citejudge-docstore.sqlite`` in a
shard directory or ``FILE.citejudge-docstore.sqlite`` beside a single corpus file, holding

* ``files``: each source file (name, uncompressed length, a fingerprint to notice a changed file);
* ``blocks``: the uncompressed text of each file cut at line ends into blocks of about 16 KiB, each
  compressed on its own with zlib (stdlib), keyed by (file, uncompressed start offset);
* ``ids`` (any corpus but MS MARCO v2.1): each document id's (file, offset), first occurrence wins.
  MS MARCO v2.1 ids carry their (shard, offset) themselves, so that corpus needs no id table.

A lookup groups the cited ids by file and offset, finds each block with one B-tree probe, inflates
it only as far as the cited lines in it (a 64 KiB block took about 0.2 ms whole, 83% of a lookup;
16 KiB blocks inflated partly make lookups about 5x faster for an 11% bigger store; consecutive
ids in one block inflate it once), parses the one line at
the offset and checks that it holds the id asked for, so an id whose offset is out of range, or
does not start a line, or starts another segment's line, is reported as such, never misread.

Why compressed blocks in SQLite rather than a seekable-gzip index (``indexed_gzip``,
``rapidgzip``) over the shards as distributed: Python's ``zlib`` cannot resume inflating at a bit
offset (no ``inflatePrime``), so seeking in the original gzip streams needs a compiled extension,
and even then each lookup inflates on average half a checkpoint interval (0.5 MiB at a 1 MiB
spacing, whose 32 KiB windows already make an index of ~3% of the uncompressed corpus) before it
reaches its line: ~10x slower per lookup than inflating one 64 KiB block. Deflate's window is
32 KiB, so 16 KiB blocks still compress nearly as well as the whole-stream gzip: the store is about as
big as the shards (a second copy, the price of random access without a compiled dependency) and
the shards are not needed after indexing. Nothing beyond the standard library, one file, read-only
at lookup time, safe to share between processes, and deterministic (same corpus, same bytes).

Building streams: one pass per file, a block at a time; ids go into SQLite, never into a Python
dict (a temporary table on disk), and are sorted into their B-tree by SQLite at the end (external
sort), so peak memory does not grow with the corpus.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import sqlite3
import zlib
from pathlib import Path
from typing import Any, Callable, Iterable, NamedTuple, Optional

import orjson

from judges.core.errors import InputError
from judges.formats.jsonl import BOM, JSONL_SUFFIXES, read_error, skip_bom
from judges.formats.runs import DOC_ID_KEYS
from judges.core.records import Document

STORE_NAME = "citejudge-docstore.sqlite"
STORE_SUFFIX = "." + STORE_NAME
FORMAT_VERSION = 1
# Uncompressed bytes per block (rounded up to the next line end): 16 KiB halves lookups against
# 64 KiB for an 11% bigger store (bench/corpus_lookup.py).
BLOCK_BYTES = 1 << 14
ZLIB_LEVEL = 6

# MS MARCO v2.1 segmented: shard files and segment ids (doc shard, doc offset, segment, line offset).
MSMARCO_SHARD = re.compile(r"^msmarco_v2\.1_doc_segmented_(\d\d)\.json(?:l)?(?:\.gz)?$")
MSMARCO_SEGMENT = re.compile(r"^msmarco_v2\.1_doc_(\d\d)_\d+#\d+_(\d+)$")
LAYOUT_MSMARCO = "msmarco-v2.1-segmented"
LAYOUT_GENERIC = "jsonl"


class Unresolved(NamedTuple):
    """A cited id the corpus cannot give: kept beside the found documents with the reason why."""

    doc_id: str
    reason: str


# -- where the store is ---------------------------------------------------------------------------


def is_store(path: Path) -> bool:
    return Path(path).is_file() and Path(path).name.endswith(STORE_NAME)


def store_path_for(source: Path) -> Path:
    """Where ``corpus index`` puts the store of ``source`` (a shard directory or one file)."""
    source = Path(source)
    return source / STORE_NAME if source.is_dir() else source.with_name(source.name + STORE_SUFFIX)


def corpus_files(source: Path) -> list[Path]:
    """The corpus files of ``source``: the file itself, or a directory's JSONL(.gz) files (sorted, not recursive)."""
    source = Path(source)
    if source.is_file():
        return [source]
    if not source.is_dir():
        raise InputError(source, None, "--corpus", "no such file or directory")
    files = sorted(
        (p for p in source.iterdir() if p.is_file() and p.name.endswith(JSONL_SUFFIXES)), key=lambda p: p.name
    )
    if not files:
        raise InputError(source, None, "--corpus", "no JSONL(.gz) corpus files in this directory")
    return files


def shard_number(path: Path) -> int:
    """The number of an MS MARCO v2.1 segmented shard file (its layout: :data:`MSMARCO_SHARD`)."""
    found = MSMARCO_SHARD.match(path.name)
    if found is None:
        raise ValueError(f"{path.name}: not an MS MARCO v2.1 segmented shard")
    return int(found.group(1))


def layout_of(files: list[Path]) -> str:
    return LAYOUT_MSMARCO if all(MSMARCO_SHARD.match(f.name) for f in files) else LAYOUT_GENERIC


def fingerprint(path: Path) -> str:
    """Size and the sha256 of the first and last 64 KiB: cheap, and survives a copy (mtime does not)."""
    size = path.stat().st_size
    h = hashlib.sha256(str(size).encode())
    with open(path, "rb") as f:
        h.update(f.read(1 << 16))
        if size > 1 << 16:
            f.seek(max(1 << 16, size - (1 << 16)))
            h.update(f.read())
    return f"{size}:{h.hexdigest()[:32]}"


# -- building ------------------------------------------------------------------------------------


def _open_binary(path: Path):
    """The file (raw), its text (gunzipped) and where its first line starts (after a byte order mark)."""
    raw = open(path, "rb")
    f = gzip.GzipFile(fileobj=raw, mode="rb") if str(path).endswith(".gz") else raw
    try:
        head = f.read(len(BOM))
    except (OSError, EOFError, zlib.error):  # said by the reading that follows, with the line
        head = b""
    skipped = len(head) - len(skip_bom(head))
    f.seek(skipped)
    return raw, f, skipped


def _doc_id(raw: bytes) -> Optional[str]:
    obj = orjson.loads(raw)
    if not isinstance(obj, dict):
        return None
    for k in DOC_ID_KEYS:
        if obj.get(k) is not None:
            return str(obj[k]).strip()
    return None


def build(
    source: Path,
    out: Optional[Path] = None,
    on_error: Optional[Callable[[InputError], None]] = None,
    progress: Callable[[int, int], None] = lambda done, total: None,
    block_bytes: int = BLOCK_BYTES,
    level: int = ZLIB_LEVEL,
) -> dict:
    """Index ``source`` (a shard directory or one JSONL(.gz) file) into ``out``; returns its figures.

    ``progress(bytes read, total bytes)`` follows the (compressed) input. For a generic corpus a
    line without an id is handed to ``on_error`` (default: raise). The store is written to a
    temporary file and renamed when complete.
    """
    source = Path(source)
    files = corpus_files(source)
    layout = layout_of(files)
    out = Path(out) if out is not None else store_path_for(source)
    tmp = out.with_name(out.name + ".tmp")
    tmp.unlink(missing_ok=True)
    total = sum(f.stat().st_size for f in files)
    done_before = 0
    figures: dict[str, Any] = {"layout": layout, "files": len(files), "lines": 0, "blocks": 0, "bytes_in": 0, "ids": 0}

    def fail(e: InputError) -> None:
        raise e

    on_error = on_error or fail
    db = sqlite3.connect(tmp, isolation_level=None)
    try:
        db.executescript("""
            PRAGMA page_size = 65536; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
            PRAGMA temp_store = FILE; PRAGMA cache_size = -65536;
            CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
            CREATE TABLE files (file INTEGER PRIMARY KEY, name TEXT NOT NULL, shard INTEGER,
                                length INTEGER NOT NULL, lines INTEGER NOT NULL, fingerprint TEXT NOT NULL);
            CREATE TABLE blocks (file INTEGER NOT NULL, start INTEGER NOT NULL, size INTEGER NOT NULL,\
 data BLOB NOT NULL);
            CREATE TEMP TABLE ids_unsorted (doc_id TEXT NOT NULL, file INTEGER NOT NULL, offset INTEGER NOT NULL);
            BEGIN;
        """)
        for file_no, path in enumerate(files):
            shard = shard_number(path) if layout == LAYOUT_MSMARCO else None
            raw, f, start = _open_binary(path)
            lines = 0
            try:
                while True:
                    block = f.read(block_bytes)
                    if not block:
                        break
                    if not block.endswith(b"\n"):
                        block += f.readline()
                    n = block.count(b"\n") + (not block.endswith(b"\n"))
                    if layout == LAYOUT_GENERIC:
                        rows, pos = [], 0
                        for i, line in enumerate(block.split(b"\n")[:n]):
                            if line.strip():
                                try:
                                    doc_id = _doc_id(line)
                                except orjson.JSONDecodeError as e:
                                    on_error(InputError(path, lines + i + 1, None, f"invalid JSON ({e})"))
                                    doc_id = ""
                                if doc_id is None:
                                    on_error(
                                        InputError(
                                            path,
                                            lines + i + 1,
                                            "doc_id",
                                            "missing (also looked for docid, docno, id, _id)",
                                        )
                                    )
                                elif doc_id:
                                    rows.append((doc_id, file_no, start + pos))
                            pos += len(line) + 1
                        db.executemany("INSERT INTO ids_unsorted VALUES (?, ?, ?)", rows)
                        figures["ids"] += len(rows)
                    db.execute(
                        "INSERT INTO blocks VALUES (?, ?, ?, ?)",
                        (file_no, start, len(block), zlib.compress(block, level)),
                    )
                    figures["blocks"] += 1
                    start += len(block)
                    lines += n
                    progress(done_before + raw.tell(), total)
            except (OSError, EOFError, zlib.error) as e:
                raise read_error(path, lines + 1, e) from None
            finally:
                f.close()
                raw.close()
            done_before += path.stat().st_size
            figures["lines"] += lines
            figures["bytes_in"] += start
            name = path.name if source.is_dir() else path.resolve().as_posix()
            db.execute(
                "INSERT INTO files VALUES (?, ?, ?, ?, ?, ?)", (file_no, name, shard, start, lines, fingerprint(path))
            )
        _some_documents(source, layout, figures)
        db.execute("CREATE INDEX blocks_at ON blocks (file, start)")
        if layout == LAYOUT_GENERIC:  # sorted by SQLite (external sort), first occurrence kept
            db.execute(
                "CREATE TABLE ids (doc_id TEXT PRIMARY KEY, file INTEGER NOT NULL, "
                "offset INTEGER NOT NULL) WITHOUT ROWID"
            )
            db.execute("INSERT OR IGNORE INTO ids SELECT doc_id, file, offset FROM ids_unsorted ORDER BY doc_id, rowid")
        db.execute("DROP TABLE temp.ids_unsorted")
        db.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [
                ("format", str(FORMAT_VERSION)),
                ("layout", layout),
                ("block_bytes", str(block_bytes)),
                ("zlib_level", str(level)),
            ],
        )
        db.execute("COMMIT")
    except BaseException:
        db.close()
        tmp.unlink(missing_ok=True)
        raise
    db.close()
    os.replace(tmp, out)
    figures["store"] = str(out)
    figures["store_bytes"] = out.stat().st_size
    progress(total, total)
    return figures


# -- reading -------------------------------------------------------------------------------------


def _some_documents(source: Path, layout: str, figures: dict) -> None:
    """An index of no document (an empty file, blank lines, every line skipped) is an error."""
    if not (figures["ids"] if layout == LAYOUT_GENERIC else figures["bytes_in"]):
        raise InputError(source, None, None, "no documents (empty, or only blank or skipped lines)")


class DocStore:
    """Read-only access to a built store: ``get(ids)`` returns documents and, per id it cannot give, why."""

    def __init__(self, path: Path, source_dir: Optional[Path] = None):
        self.path = Path(path)
        try:
            self.db = sqlite3.connect(f"file:{self.path.resolve().as_posix()}?mode=ro&immutable=1", uri=True)
            meta = dict(self.db.execute("SELECT key, value FROM meta"))
            rows = self.db.execute("SELECT file, name, shard, length, fingerprint FROM files ORDER BY file").fetchall()
        except sqlite3.DatabaseError as e:
            raise InputError(self.path, None, None, f"not a citejudge docstore ({e})") from None
        if meta.get("format") != str(FORMAT_VERSION):
            raise InputError(
                self.path,
                None,
                None,
                f"docstore format {meta.get('format')!r}, this citejudge reads {FORMAT_VERSION}: "
                "run corpus index again",
            )
        self.layout = meta["layout"]
        self.files = {file: (name, shard, length, fp) for file, name, shard, length, fp in rows}
        self.by_shard = {shard: file for file, (_, shard, _, _) in self.files.items() if shard is not None}
        if source_dir is not None:
            self.check_sources(Path(source_dir))

    def close(self) -> None:
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def check_sources(self, source_dir: Path) -> None:
        """Fail when a corpus file beside the store changed since it was indexed (a stale store)."""
        for name, _, _, fp in self.files.values():
            path = source_dir / name
            if path.is_file() and fingerprint(path) != fp:
                raise InputError(
                    path,
                    None,
                    None,
                    f"changed since it was indexed into {self.path.name}: "
                    f"run `run_judge.py corpus index {source_dir}` again",
                )

    def shard_name(self, file: int) -> str:
        return self.files[file][0]

    def locate(self, doc_id: str) -> tuple[Optional[int], int, Optional[str]]:
        """(file, offset, None), or (None, 0, reason) when the id cannot be in the corpus."""
        if self.layout == LAYOUT_MSMARCO:
            m = MSMARCO_SEGMENT.match(doc_id)
            if m is None:
                return None, 0, "not in corpus"
            file = self.by_shard.get(int(m.group(1)))
            if file is None:
                return None, 0, f"not in corpus: no shard {m.group(1)}"
            return file, int(m.group(2)), None
        row = self.db.execute("SELECT file, offset FROM ids WHERE doc_id = ?", (doc_id,)).fetchone()
        return (row[0], row[1], None) if row else (None, 0, "not in corpus")

    def get(
        self, ids: Iterable[str], on_error: Optional[Callable[[InputError], None]] = None
    ) -> tuple[dict[str, Document], dict[str, str]]:
        """The documents of ``ids`` found, and for each other id the reason (``not in corpus``,
        ``index out of range: ...``). A line at the offset that is not a valid document goes to
        ``on_error`` (default: raise), and its id is reported missing."""

        try:
            return self._get(ids, on_error)
        except (sqlite3.DatabaseError, zlib.error, TypeError) as e:
            raise InputError(self.path, None, None, f"corrupt docstore ({e}): run corpus index again") from None

    def _get(self, ids, on_error):
        def fail(e: InputError) -> None:
            raise e

        on_error = on_error or fail
        found: dict[str, Document] = {}
        missing: dict[str, str] = {}
        located = []
        for doc_id in ids:
            file, offset, reason = self.locate(doc_id)
            if file is None:
                missing[doc_id] = reason
            else:
                located.append((file, offset, doc_id))
        located.sort()
        block: Optional[_Block] = None
        for file, offset, doc_id in located:
            name, _, length, _ = self.files[file]
            if offset >= length:
                missing[doc_id] = f"index out of range: offset {offset} is beyond the end of {name} ({length} bytes)"
                continue
            start = self.db.execute(
                "SELECT start FROM blocks WHERE file = ? AND start <= ? ORDER BY start DESC LIMIT 1", (file, offset)
            ).fetchone()[0]
            if block is None or (block.file, block.start) != (file, start):
                data = self.db.execute(
                    "SELECT data FROM blocks WHERE file = ? AND start = ?", (file, start)
                ).fetchone()[0]
                block = _Block(file, start, data)
            at = offset - start
            line = block.line_at(at)
            if line is None:
                missing[doc_id] = (
                    f"not in corpus: offset {offset} of {name} is not the start of a line (index out of range)"
                )
                continue
            doc = self._document(line, doc_id, name, offset, on_error)
            if doc is None:
                missing[doc_id] = f"not in corpus: offset {offset} of {name} holds no valid document"
            elif doc.doc_id != doc_id:
                missing[doc_id] = f"not in corpus: offset {offset} of {name} holds {doc.doc_id!r} (index out of range)"
            else:
                found[doc_id] = doc
        return found, missing

    @staticmethod
    def _document(line: bytes, doc_id: str, name: str, offset: int, on_error) -> Optional[Document]:
        from judges.formats.corpusfile import parse_document

        where = f"{name}@{offset}"
        try:
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError as e:
                raise InputError(where, None, None, f"invalid JSON ({e})") from None
            return parse_document(obj, where, None)
        except InputError as e:
            on_error(e)
            return None

    def stats(self) -> dict:
        blocks, stored, raw = self.db.execute(
            "SELECT count(*), coalesce(sum(length(data)), 0), coalesce(sum(size), 0) FROM blocks"
        ).fetchone()
        lines = self.db.execute("SELECT coalesce(sum(lines), 0) FROM files").fetchone()[0]
        return {
            "store": str(self.path),
            "layout": self.layout,
            "files": len(self.files),
            "lines": lines,
            "blocks": blocks,
            "uncompressed_bytes": raw,
            "compressed_bytes": stored,
            "store_bytes": self.path.stat().st_size,
        }


# -- the --corpus hook ---------------------------------------------------------------------------


class _Block:
    """One stored block, decompressed only as far as the lines asked of it (ids are asked in
    offset order, so a block is decompressed at most once, and rarely to its end)."""

    CHUNK = 4096

    def __init__(self, file: int, start: int, data: bytes) -> None:
        self.file, self.start = file, start
        self._inflate = zlib.decompressobj()
        self._pending = data
        self._done = False
        self.text = bytearray()

    def _grow(self) -> bool:
        """Decompress a little more; False once the block is whole."""
        if self._done:
            return False
        tail = self._inflate.unconsumed_tail or self._pending
        self._pending = b""
        if tail:
            self.text += self._inflate.decompress(tail, self.CHUNK)
        else:
            self.text += self._inflate.flush()
            self._done = True
        return True

    def line_at(self, at: int) -> Optional[bytes]:
        """The line starting at byte ``at`` of the block (without its newline), or ``None`` when
        ``at`` is not the start of a line."""
        while len(self.text) <= at and self._grow():
            pass
        if at > 0 and (at > len(self.text) or self.text[at - 1] != 0x0A):
            return None
        end = self.text.find(b"\n", at)
        while end < 0 and self._grow():
            end = self.text.find(b"\n", at)
        return bytes(self.text[at:] if end < 0 else self.text[at:end])


def open_store(path: Path) -> Optional[DocStore]:
    """The store ``--corpus PATH`` names: the store file itself or a directory holding one."""
    path = Path(path)
    if is_store(path):
        return DocStore(path, source_dir=path.parent)
    if path.is_dir() and (path / STORE_NAME).is_file():
        return DocStore(path / STORE_NAME, source_dir=path)
    return None


def read_store_or_dir(
    path: Path, wanted: set[str], on_error: Callable[[InputError], None]
) -> Optional[dict[str, Document | Unresolved]]:
    """For ``--corpus`` naming a store or a directory: the wanted documents, plus an
    :class:`Unresolved` for each id whose offset is bad (out of range, not a line, another id).
    ``None`` when ``path`` is a plain corpus file (streamed by :func:`judges.formats.corpusfile.read_corpus_file`)."""
    path = Path(path)
    store = open_store(path)
    if store is not None:
        with store:
            found, missing = store.get(sorted(wanted), on_error)
        out: dict[str, Document | Unresolved] = dict(found)
        out.update((d, Unresolved(d, r)) for d, r in missing.items() if r != "not in corpus")
        return out
    if not path.is_dir():
        return None
    return _scan_dir(path, wanted, on_error)


def _scan_dir(path: Path, wanted: set[str], on_error) -> dict[str, Document | Unresolved]:
    """A directory without a store: MS MARCO v2.1 shards are read only as far as their last cited
    offset (and only the shards cited); other directories are streamed file by file."""
    from judges.formats.corpusfile import parse_document, read_corpus_file
    from judges.formats.jsonl import iter_lines, parse_line

    files = corpus_files(path)
    out: dict[str, Document | Unresolved] = {}
    if layout_of(files) != LAYOUT_MSMARCO:
        for f in files:
            for k, v in read_corpus_file(f, wanted - out.keys(), on_error).items():
                out.setdefault(k, v)
        return out
    by_shard = {shard_number(f): f for f in files}
    wanted_at: dict[Path, dict[int, str]] = {}
    for doc_id in wanted:
        m = MSMARCO_SEGMENT.match(doc_id)
        if m and int(m.group(1)) in by_shard:
            wanted_at.setdefault(by_shard[int(m.group(1))], {})[int(m.group(2))] = doc_id
    for f, at in sorted(wanted_at.items()):
        last, length, complete = max(at), 0, True
        for line_no, offset, raw in iter_lines(f):
            length = offset + len(raw)
            found_id = at.pop(offset, None)
            if found_id is not None:
                value = parse_line(f, line_no, raw)
                try:
                    if isinstance(value, InputError):
                        raise value
                    doc = parse_document(value, str(f), line_no)
                except InputError as e:
                    on_error(e)
                    doc = None
                if doc is not None and doc.doc_id == found_id:
                    out[found_id] = doc
                else:
                    held = "no valid document" if doc is None else repr(doc.doc_id)
                    out[found_id] = Unresolved(
                        found_id, f"not in corpus: offset {offset} of {f.name} holds {held} (index out of range)"
                    )
            if offset >= last:
                complete = False
                break
        for offset, doc_id in at.items():
            out[doc_id] = Unresolved(
                doc_id,
                f"index out of range: no line of {f.name} starts at offset {offset}"
                + (f" (it ends at {length})" if complete and offset >= length else ""),
            )
    return out


def describe(path: Path, with_hashes: bool) -> object:
    """How the config record names a store or shard directory (never hashing gigabytes)."""
    path = Path(path)
    store = open_store(path)
    if store is None:
        return path.as_posix()
    with store:
        files = [{"name": name, "fingerprint": fp} for name, _, _, fp in store.files.values()]
    return {
        "path": path.as_posix(),
        "docstore": store.path.as_posix(),
        "layout": store.layout,
        **({"files": files} if with_hashes else {}),
    }
