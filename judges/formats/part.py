"""A partial set's file, ``NAME.part-K-of-N.arrow`` (written by ``--shard``, read by ``merge``):
plain data only, checked before anything in it is read.

Layout: an Arrow IPC file, uncompressed, with

* the shard's assessment rows as record batches (:data:`judges.formats.tables.ASSESSMENT_SCHEMA`);
* in the schema's metadata, the **manifest** (``citejudge.part``, JSON: :data:`MANIFEST_SHAPE`:
  format, shard, rows and the session's fingerprint) and the **state** the merge needs
  (``citejudge.state``, JSON: :data:`STATE_SHAPE`: the session's inputs and outputs, the first
  pass over the runs, the topics, the counts, each report's measures and where its rows and
  debug-log events are);
* in the file footer's custom metadata, the **checksums** (``citejudge.sha256``, JSON
  ``{"part": [bytes, sha256], "log": [bytes, sha256] | null}``): the SHA-256 of the file's first
  ``bytes`` bytes (its magic, schema, manifest, state and every row: all the merge reads) and of
  the debug log beside it (``.jsonl``; ``null``: the shard wrote none).

:func:`read` checks, in this order: the checksums' record (a changed byte in it is a value that
no longer matches, or no record at all); the SHA-256 of the content and of the debug log (a log
cut short, or longer, says so); then it reads the content from the checked bytes only (as an
Arrow stream: the footer's copy of the schema is not used), parses the manifest and the state as
JSON and checks every value's type and shape, compares the rows' schema with the assessments' and
validates them in full (every string UTF-8, every offset in range), then checks every value the
merge takes again (:func:`check_values`: each measure within its range, each status, grade, label
and LLM answer one of the vocabulary's, every run and topic one the session knows, every
leaderboard format one citejudge writes): checksums only say a part is as its writer left it, and
anyone can write one. Anything that fails is one
:class:`InputError` naming the part (or its log) and what failed. Nothing in a part is ever
executed: JSON and Arrow columns only (an older part's pickled state is refused unread).
"""

from __future__ import annotations

import hashlib
import io
import json
import mmap
from pathlib import Path
from typing import NamedTuple, Optional

import pyarrow as pa
import pyarrow.compute as pc

from judges.core.errors import InputError
from judges.formats import tables
from judges.core.measures import REGISTRY
from judges.core.vocabulary import ANSWERS, STATUS_GRADE, STATUSES
from judges.formats.atomic import naming
from judges.formats.trec import LEADERBOARD_FORMATS

FORMAT = 2  # of a partial set (1: the state pickled, never read again)
MANIFEST, STATE = b"citejudge.part", b"citejudge.state"  # the schema's metadata keys
SHA256 = b"citejudge.sha256"  # the footer's metadata key
PART_SUFFIX, LOG_SUFFIX = ".arrow", ".jsonl"
MAGIC = b"ARROW1\x00\x00"  # an Arrow IPC file's first bytes; the stream of its schema and batches follows
NOT_A_PART = "not a partial set written by run_judge.py --shard"


# -- shapes of plain data -----------------------------------------------------------------------
class Opt(NamedTuple):
    """``None`` or a value of ``shape``."""

    shape: object


class Tuple(NamedTuple):
    """A JSON list of fixed length, one shape per item."""

    shapes: tuple


class Map(NamedTuple):
    """A JSON object with any keys, every value of ``shape``."""

    shape: object


NUMBER = "number"  # an int or a float (NaN and infinities included), never a bool
JSON = "json"  # any JSON value (checked by whoever uses it: the workflow, by its own model)


def check_shape(value: object, shape: object, where: str) -> Optional[str]:
    """Where ``value`` departs from ``shape`` and how (``None``: it fits). Shapes: ``str``,
    ``int``, ``bool``, :data:`NUMBER`, :data:`JSON`, :class:`Opt`, :class:`Tuple`, :class:`Map`,
    ``[shape]`` (a list of any length) and ``{key: shape}`` (an object with exactly these keys; a
    key ending in ``?`` may be absent)."""
    if shape is JSON:
        return None
    if isinstance(shape, Opt):
        return None if value is None else check_shape(value, shape.shape, where)
    if shape is NUMBER:
        return None if type(value) in (int, float) else f"{where}: a number expected, got {_kind(value)}"
    if isinstance(shape, type):
        return None if type(value) is shape else f"{where}: {_NAMES[shape]} expected, got {_kind(value)}"
    if isinstance(shape, list):
        return _check_list(value, shape[0], where)
    if isinstance(shape, Tuple):
        if type(value) is not list or len(value) != len(shape.shapes):
            return f"{where}: a list of {len(shape.shapes)} expected, got {_kind(value)}"
        return _first(check_shape(v, s, f"{where}[{i}]") for i, (v, s) in enumerate(zip(value, shape.shapes)))
    if type(value) is not dict:
        return f"{where}: an object expected, got {_kind(value)}"
    if isinstance(shape, Map):
        if shape.shape is NUMBER and all(type(v) in (int, float) for v in value.values()):
            return None
        return _first(check_shape(v, shape.shape, f"{where}.{_key(k)}") for k, v in value.items())
    return _check_object(value, shape, where)  # type: ignore[arg-type]  # a dict shape, the cases above aside


def _check_list(value: object, item: object, where: str) -> Optional[str]:
    if type(value) is not list:
        return f"{where}: a list expected, got {_kind(value)}"
    if isinstance(item, type) and all(type(v) is item for v in value):  # the long lists: no call per item
        return None
    if isinstance(item, Tuple) and all(isinstance(s, type) or s == Map(NUMBER) for s in item.shapes):
        n = len(item.shapes)  # e.g. [run, topic, citations] by the thousand: checked column by column
        if all(type(v) is list and len(v) == n for v in value) and all(
            all(type(v[i]) is s for v in value)
            if isinstance(s, type)
            else all(type(v[i]) is dict and all(type(x) in (int, float) for x in v[i].values()) for v in value)
            for i, s in enumerate(item.shapes)
        ):
            return None
    return _first(check_shape(v, item, f"{where}[{i}]") for i, v in enumerate(value))


def _check_object(value: dict, shape: dict, where: str) -> Optional[str]:
    keys = {k.rstrip("?"): k.endswith("?") for k in shape}
    for k in value:
        if k not in keys:
            return f"{where}.{_key(k)}: not a field of a partial set"
    missing = next((k for k, optional in keys.items() if not optional and k not in value), None)
    if missing is not None:
        return f"{where}.{missing}: missing"
    return _first(
        check_shape(value[k.rstrip("?")], s, f"{where}.{k.rstrip('?')}")
        for k, s in shape.items()
        if k.rstrip("?") in value
    )


def _key(key: str) -> str:
    """A key as an error line names it: as it is, or quoted when it is not a plain word."""
    return key if key.replace("_", "").isalnum() and key.isascii() else json.dumps(key)


def _first(problems) -> Optional[str]:
    return next((p for p in problems if p), None)


_NAMES = {str: "a string", int: "an integer", bool: "true or false"}


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    return {str: "a string", int: "an integer", float: "a number", list: "a list", dict: "an object"}.get(
        type(value), type(value).__name__
    )


_FILE = {"path": str, "sha256": str}
MANIFEST_SHAPE = {
    "format": int,
    "shard": Tuple((int, int)),
    "rows": int,
    "fingerprint": {  # what the parts of one session share (judges.session.shards.fingerprint)
        "citejudge": str,
        "name": str,
        "shards": int,
        "workflow": Map(JSON),  # read by the workflow's own model
        "inputs": {  # judges.session.writer.describe_inputs(..., with_hashes=True)
            "topics": [_FILE],
            "responses": [_FILE],
            "corpus?": JSON,
            "workflow?": _FILE,
            "labels?": [_FILE],
            "nuggets?": _FILE,
            "nugget_model?": str,
        },
        "options": {
            "dataset": str,
            "on_error": str,
            "max_topics": Opt(int),
            "max_runs": Opt(int),
            "allow_missing_text": bool,
            "allow_few_topics?": bool,
            "workers": int,
        },
        "outputs": {"debug_log": Opt(str), "no_debug_log": bool, "leaderboard_formats": [str]},
        "model": Opt(str),
    },
}
STATE_SHAPE = {
    "inputs": {  # judges.session.spec.Inputs
        "topics": [str],
        "responses": [str],
        "corpus": Opt(str),
        "workflow_path": Opt(str),
        "labels": [str],
        "dataset": str,
        "max_topics": Opt(int),
        "max_runs": Opt(int),
        "on_error": str,
        "allow_missing_text": bool,
        "allow_few_topics?": bool,
        "headline?": Opt(str),
        "nuggets?": Opt(str),  # the nugget stage's (judges.session.nuggets): judged by the merge
        "judge?": str,
        "battle_opponents?": Opt(NUMBER),  # --judge battle's budget (None: every pair)
        "nugget_model?": str,
    },
    "outputs": {  # judges.session.spec.Outputs: what the merge writes
        "out_dir": str,
        "name": str,
        "debug_log": Opt(str),
        "no_debug_log": bool,
        "leaderboard_formats": [str],
    },
    "scan": {  # judges.session.scan.Scan, without the reports and documents to read (the shard read them)
        "files": [str],
        "runs": [str],
        "answered": [Tuple((str, [str]))],  # run, its topics
        "citations": int,
        "report_citations": [Tuple((str, str, int))],  # run, topic, citations
        "coverage": [Tuple((str, [Tuple((str, int))]))],  # run, its counts
        "without_text": [Tuple((str, int))],  # cited id, citations
    },
    "topics": [Tuple((str, str, str, str))],  # judges.core.records.Topic
    "counts": [Tuple((str, int))],  # of reading the inputs: the session's
    "judged": [Tuple((str, int))],  # of judging: the shard's
    "head": int,  # bytes of the debug log before the first report's events (the session's)
    # per report judged, in the part's order: run, topic and its measures; and (placed) its rank in
    # one process's order, its first row and rows, the byte range of its events in the debug log
    "per_topic": [Tuple((str, str, Map(NUMBER)))],
    "placed": {"rank": [int], "row": [int], "rows": [int], "log_start": [int], "log_end": [int]},
}
_SHA = Tuple((int, str))
SHA256_SHAPE = {"part": _SHA, "log": Opt(_SHA)}


# -- writing --------------------------------------------------------------------------------------
class _Hashing(io.RawIOBase):
    """A sink that keeps only the SHA-256 and length of what is written to it."""

    def __init__(self, start: bytes):
        self.sha, self.size = hashlib.sha256(start), len(start)

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self.sha.update(data)
        self.size += len(data)
        return len(data)


def write(path: Path, table: pa.Table, manifest: dict, state: dict, log: Optional[Path]) -> None:
    """Write the part at ``path``: ``table``'s rows, the ``manifest`` and ``state`` (plain data, of
    :data:`MANIFEST_SHAPE` and :data:`STATE_SHAPE`), and the checksums of the content and of the
    debug log at ``log`` (written and closed already; ``None``: none)."""
    table = table.replace_schema_metadata({MANIFEST: _dumps(manifest), STATE: _dumps(state)})
    content = _Hashing(MAGIC)  # an Arrow file's content is its magic, then the stream of schema and batches
    with pa.PythonFile(content, mode="w") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    sums = {"part": [content.size, content.sha.hexdigest()], "log": None if log is None else list(_file_sha256(log))}
    with naming(path), pa.OSFile(str(path), "wb") as sink:
        with pa.ipc.new_file(sink, table.schema, metadata={SHA256: _dumps(sums)}) as writer:
            writer.write_table(table)


def _dumps(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _file_sha256(path: Path) -> tuple[int, str]:
    with open(path, "rb") as f:
        digest = hashlib.file_digest(f, "sha256")
        return f.tell(), digest.hexdigest()


# -- reading --------------------------------------------------------------------------------------
class Part(NamedTuple):
    """A part read and checked: its manifest and state (plain data of their shapes), its rows,
    and the file mapped read-only (the rows' columns point into it)."""

    path: Path
    manifest: dict
    state: dict
    table: pa.Table
    mapped: mmap.mmap
    log_bytes: Optional[int]  # None: the shard wrote no debug log

    @property
    def log(self) -> Path:
        return log_path(self.path)


def log_path(path: Path) -> Path:
    return Path(path).with_suffix(LOG_SUFFIX)


def read(path: Path) -> Part:
    """The part at ``path``, checked (module doc); an :class:`InputError` naming it otherwise."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, None, "PART", "no such file (a partial set NAME.part-K-of-N.arrow written by --shard)")
    try:
        with open(path, "rb") as f:
            mapped = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
    except (OSError, ValueError) as e:  # ValueError: an empty file
        raise InputError(path, None, "PART", f"{NOT_A_PART} ({getattr(e, 'strerror', None) or e})") from None
    buffer = pa.py_buffer(mapped)
    sums = _checksums(path, buffer)
    size, digest = sums["part"]
    if not len(MAGIC) < size <= len(mapped) or hashlib.sha256(memoryview(mapped)[:size]).hexdigest() != digest:
        raise InputError(
            path, None, "PART", "damaged: its content's sha256 differs from the one it recorded (changed since written)"
        )
    log_bytes = None
    if sums["log"] is not None:
        log_bytes = _check_log(path, *sums["log"])
    try:
        reader = pa.ipc.open_stream(buffer.slice(len(MAGIC), size - len(MAGIC)))
        metadata = reader.schema.metadata or {}
        manifest, state = json.loads(metadata[MANIFEST]), json.loads(metadata[STATE])
        table = reader.read_all()
    except (pa.ArrowInvalid, OSError, KeyError, ValueError, RecursionError) as e:
        raise InputError(path, None, "PART", f"{NOT_A_PART} ({_first_line(e)})") from None
    if set(metadata) != {MANIFEST, STATE}:
        raise InputError(path, None, "PART", f"{NOT_A_PART} (its schema's metadata has other keys)")
    for what, value, shape in (("manifest", manifest, MANIFEST_SHAPE), ("state", state, STATE_SHAPE)):
        if what == "manifest" and isinstance(value, dict) and value.get("format") != FORMAT:
            raise _format_error(path, value.get("format"))
        problem = check_shape(value, shape, what)
        if problem:
            field, _, why = problem.partition(": ")
            raise InputError(path, None, field, why or "not of a partial set's shape")
    if not table.schema.equals(tables.ASSESSMENT_SCHEMA, check_metadata=False):
        raise InputError(path, None, "PART", "its rows' columns are not the assessments' columns")
    try:
        table.validate(full=True)
    except pa.ArrowInvalid as e:
        raise InputError(path, None, "PART", f"its rows are invalid: {_first_line(e)}") from None
    if table.num_rows != manifest["rows"]:
        raise InputError(path, None, "rows", f"{manifest['rows']}, but the part holds {table.num_rows} rows")
    _check_placed(path, state, table.num_rows, log_bytes)
    check_values(path, manifest, state, table)
    table = table.replace_schema_metadata(tables.ASSESSMENT_SCHEMA.metadata)
    return Part(path, manifest, state, table, mapped, log_bytes)


def _checksums(path: Path, buffer: pa.Buffer) -> dict:
    """The footer's checksums record, of its shape; an older part (format 1) is named as such."""
    if buffer.size < len(MAGIC) or buffer[: len(MAGIC)].to_pybytes() != MAGIC:
        raise InputError(path, None, "PART", NOT_A_PART)
    try:
        reader = pa.ipc.open_file(buffer)
        record = (reader.metadata or {}).get(SHA256)
    except (pa.ArrowInvalid, OSError) as e:
        raise InputError(
            path, None, "PART", f"damaged or cut short: its footer cannot be read ({_first_line(e)})"
        ) from None
    if record is None:
        try:  # an older part: its manifest names its format (its state, pickled, is never read)
            found = json.loads(reader.schema.metadata[MANIFEST]).get("format")
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError):
            raise InputError(path, None, "PART", f"{NOT_A_PART} (no checksums)") from None
        raise _format_error(path, found)
    try:
        sums = json.loads(record)
    except (ValueError, RecursionError):
        sums = None
    problem = check_shape(sums, SHA256_SHAPE, "sha256")
    if problem:
        raise InputError(path, None, "PART", f"damaged: its checksums cannot be read ({problem})")
    return sums


def _format_error(path: Path, found: object) -> InputError:
    return InputError(
        path, None, "format", f"partial set format {found!r}, this is {FORMAT}: judge the shard again with this version"
    )


def _check_log(path: Path, size: int, digest: str) -> int:
    """The debug log beside the part, checked against the size and SHA-256 the part recorded."""
    log = log_path(path)
    if not log.is_file():
        raise InputError(log, None, "PART", f"the debug log of {path.name} is missing")
    try:
        found, found_digest = _file_sha256(log)
    except OSError as e:
        raise InputError(log, None, "PART", f"cannot read the debug log of {path.name}: {e.strerror or e}") from None
    if found < size:
        raise InputError(
            log, None, "PART", f"the debug log of {path.name} is cut short: {found:,} of the {size:,} bytes it recorded"
        )
    if found > size:
        raise InputError(
            log, None, "PART", f"the debug log of {path.name} has {found:,} bytes, {size:,} recorded: changed since"
        )
    if found_digest != digest:
        raise InputError(
            log, None, "PART", f"the debug log of {path.name} is damaged: its sha256 differs from the one recorded"
        )
    return size


def _check_placed(path: Path, state: dict, rows: int, log_bytes: Optional[int]) -> None:
    """Where each report's rows and events are: in range of the part's rows and of its log."""
    placed, reports = state["placed"], len(state["per_topic"])
    if any(len(v) != reports for v in placed.values()):
        raise InputError(path, None, "state.placed", f"not one entry per report ({reports} reports)")
    at = 0
    for first, n in zip(placed["row"], placed["rows"]):
        if first != at or n < 0:
            raise InputError(path, None, "state.placed.row", "the reports' rows are not one after the other")
        at += n
    if at != rows:
        raise InputError(path, None, "state.placed.rows", f"{at} rows in all, but the part holds {rows}")
    end = 0 if log_bytes is None else log_bytes
    ranges = zip(placed["log_start"], placed["log_end"])
    if not 0 <= state["head"] <= end or any(not 0 <= a <= b <= end for a, b in ranges):
        raise InputError(path, None, "state.placed.log_end", "a report's events are outside the debug log")
    if any(r < 0 for r in placed["rank"]):
        raise InputError(path, None, "state.placed.rank", "a negative rank")


# -- every value the merge takes, checked against what citejudge writes --------------------------------
LLM_ANSWERS = (*dict.fromkeys(a for answers in ANSWERS.values() for a in answers), "unparsed", "failed", "guarded")
_PROBABILITIES = ("weight", "p_any", "p_full", "llm_p_yes", "confidence")  # in [0, 1], or null (weight: never)


def check_values(path: Path, manifest: dict, state: dict, table: pa.Table) -> None:
    """Every value the merge takes from a part (of the right shape already) is one citejudge
    writes: each report's measures known and within their range (:data:`judges.core.measures.REGISTRY`'s
    ``high``; never NaN), each row's status, grade, human label and LLM answer of the vocabulary
    (:mod:`judges.core.vocabulary`), its weight and probabilities in [0, 1], every run and topic of
    a report or a row one of the session's (``state.scan.runs``, ``state.topics``), every count at
    least 0, every leaderboard format one citejudge writes. Else an :class:`InputError` naming the
    part, the field and the value."""
    formats = manifest["fingerprint"]["outputs"]["leaderboard_formats"] + state["outputs"]["leaderboard_formats"]
    for fmt in formats:
        if fmt not in LEADERBOARD_FORMATS:
            raise InputError(
                path,
                None,
                "outputs.leaderboard_formats",
                f"{fmt!r} is not a leaderboard format ({', '.join(LEADERBOARD_FORMATS)})",
            )
    runs, topics = set(state["scan"]["runs"]), {t[0] for t in state["topics"]}
    for i, (run, topic, values) in enumerate(state["per_topic"]):
        where = f"state.per_topic[{i}]"
        if run not in runs or topic not in topics:
            raise InputError(path, None, where, f"run {run!r}, topic {topic!r}: not a run and topic of the session")
        for name, value in values.items():
            measure = REGISTRY.get(name)
            if measure is None:
                raise InputError(path, None, f"{where}.{name}", "not a measure of citejudge")
            if not 0 <= value <= measure.high:  # NaN fails too
                raise InputError(path, None, f"{where}.{name}", f"{value!r} is outside its range [0, {measure.high:g}]")
    for field in ("counts", "judged"):
        for key, n in state[field]:
            if n < 0:
                raise InputError(path, None, f"state.{field}.{key}", f"{n}: a count is at least 0")
    _check_rows(path, table, runs, topics)


def _check_rows(path: Path, table: pa.Table, runs: set, topics: set) -> None:
    def refuse(column: str, bad: pa.ChunkedArray, problem: str) -> None:
        at = pc.index(bad, True).as_py()
        if at >= 0:
            value = table.column(column)[at].as_py()
            raise InputError(path, None, f"rows[{at}].{column}", f"{value!r}: {problem}")

    def not_in(column: str, allowed, nulls: bool) -> pa.ChunkedArray:
        values = table.column(column)
        found = pc.is_in(values, value_set=pa.array(sorted(allowed), type=values.type))
        return pc.invert(pc.if_else(pc.is_null(values), pa.scalar(nulls), found))

    refuse("run_id", not_in("run_id", runs, False), "not a run of the session")
    refuse("topic_id", not_in("topic_id", topics, False), "not a topic of the session")
    for column, nulls in (("status", False), ("support_status", True), ("human_label", True)):
        refuse(column, not_in(column, STATUSES, nulls), f"not a status ({', '.join(STATUSES)})")
    refuse("llm_answer", not_in("llm_answer", LLM_ANSWERS, True), f"not an LLM answer ({', '.join(LLM_ANSWERS)})")
    status, grade = table.column("status"), table.column("grade")
    wrong = pc.is_null(grade)
    for name, level in STATUS_GRADE.items():
        wrong = pc.or_(wrong, pc.and_(pc.equal(status, name), pc.not_equal(grade, level)))
    refuse("grade", wrong, "not the grade of the row's status")
    for column in _PROBABILITIES:
        values = table.column(column)
        inside = pc.and_(pc.greater_equal(values, 0.0), pc.less_equal(values, 1.0))  # NaN: false
        refuse(column, pc.invert(pc.fill_null(inside, column != "weight")), "outside [0, 1]")
    if "char_start" in table.column_names and "char_end" in table.column_names:  # the evidence's span
        start, end = table.column("char_start"), table.column("char_end")
        bad = pc.or_(pc.less(start, 0), pc.less(end, start))
        refuse("char_end", pc.fill_null(bad, False), "not a span: char_start <= char_end and char_start >= 0")


def _first_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0]
