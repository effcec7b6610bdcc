"""Reading nugget banks as they are distributed (``--nuggets FILE``).

Shapes, detected per record (a file may be JSON Lines, a JSON array, or JSON objects one after
another; ``.gz`` too):

* **NIST / nuggetizer bank** (TREC 2024 RAG ``nuggets.jsonl``, castorini nuggetizer's ``create``
  and ``score`` output, autojudge-base's ``NuggetizerNuggetBank``): ``{qid, query, nuggets:
  [{text, importance}]}``; a nugget may be a plain string (no importance), extra keys
  (``reasoning``, ``trace``) are ignored;
* **NIST / nuggetizer assignment** (``nugget_assignment.*.jl``, nuggetizer's ``assign`` output):
  the same with ``run_id`` (and ``answer_text``) and an ``assignment`` per nugget, one record per
  (run, topic) answer. The topic's bank is taken from its records (they must all list the same
  nuggets) and the assignments are kept as labels (:attr:`Nuggets.assignments`);
* **AutoJudge** ``NuggetBank`` (autojudge-base's ``NuggetBanks`` JSON(L), one bank per line or a
  ``{format_version, banks: {qid: bank}}`` container): ``{query_id, title_query, nugget_bank:
  {key: {question, importance}}, claim_bank: {key: {claim, importance}}}`` (or lists of them);
  questions and claims are both nuggets, sub-nuggets are not flattened (their parent stands for
  them). Read as JSON, so that autojudge-base (the ``autojudge`` extra) is not needed to read them.

Importance: ``vital`` (any case) is vital; anything else (``okay``, ``failed``, a number,
missing) is ``okay``. Assignments: ``support``, ``partial_support``, ``not_support`` (also
``partial`` and ``not``/``none``), as NIST writes them.

Bad input raises :class:`~judges.core.errors.InputError` naming the file, line and field.
"""

from __future__ import annotations

import json

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Optional

from judges.core.errors import InputError
from judges.formats.jsondoc import KEYED_DECODER, KeyedObject, iter_array, iter_values, read_text
from judges.formats.runs import checked_id, checked_topic_id, json_type

VITAL, OKAY = "vital", "okay"
SUPPORT, PARTIAL, NOT = "support", "partial_support", "not_support"
ASSIGNMENTS = (NOT, PARTIAL, SUPPORT)  # index = level (0, 1, 2)
_ASSIGNMENT_ALIASES = {
    "support": SUPPORT,
    "supported": SUPPORT,
    "partial_support": PARTIAL,
    "partial": PARTIAL,
    "partially_supported": PARTIAL,
    "not_support": NOT,
    "not": NOT,
    "none": NOT,
    "unsupported": NOT,
}
MAX_NUGGET_CHARS = 10_000

SHAPES = (
    "accepted nugget files: NIST/nuggetizer banks {qid, query, nuggets: [{text, importance}]}, NIST/nuggetizer "
    "assignments (the same with run_id and an assignment per nugget), or AutoJudge NuggetBanks "
    "{query_id, nugget_bank|claim_bank}, as JSON Lines, a JSON array or JSON objects"
)


@dataclass(frozen=True)
class Nugget:
    text: str
    importance: str  # VITAL | OKAY

    @property
    def vital(self) -> bool:
        return self.importance == VITAL


@dataclass(frozen=True)
class MadeFrom:
    """How a made bank was made (:mod:`judges.nuggets.made`), per nugget in the bank's order: the
    runs that state it, the run its wording is taken from and another run's wording. A file keeps
    it as the record's ``made`` and each nugget's ``stated_by``, ``text_from`` and ``alternate``."""

    source: str  # answers | llm:MODEL
    min_runs: int = 0
    vital_runs: int = 0
    stated_by: tuple[tuple[str, ...], ...] = ()
    text_from: tuple[str, ...] = ()
    alternates: tuple[str, ...] = ()
    content_sha256: str = ""  # of the nuggets as made (judges.nuggets.made.content_hash)


@dataclass(frozen=True)
class NuggetBank:
    """A topic's nuggets, in the order the file lists them (``made``: a made bank's record)."""

    qid: str
    query: str
    nuggets: tuple[Nugget, ...]
    made: Optional[MadeFrom] = None


@dataclass(frozen=True)
class Assignment:
    """A (run, topic) answer's assignments as a file gives them: one level per nugget of the
    topic's bank (0 not, 1 partial, 2 support), in the bank's order."""

    run_id: str
    qid: str
    answer_text: str
    levels: tuple[int, ...]
    line: int


@dataclass
class Nuggets:
    """Everything a nugget file holds: banks by topic, assignments by (run, topic)."""

    path: str
    banks: dict[str, NuggetBank] = field(default_factory=dict)
    assignments: dict[tuple[str, str], Assignment] = field(default_factory=dict)
    shape: str = ""  # nist | nist_assignment | autojudge (the first record's)
    sha256: str = ""  # of the file's bytes (a bank made in the session: of the file it would be)
    warnings: list[str] = field(default_factory=list)  # path:line: ... of each duplicate nugget text


def importance_of(value: object) -> str:
    return VITAL if isinstance(value, str) and value.strip().lower() == VITAL else OKAY


def _importance(value: object, path: str, line: int, field: str) -> str:
    """A nugget's importance in a file: vital or okay as NIST spells them (any case), none or
    nuggetizer's ``failed`` (its scoring failed): okay."""
    if value is None:
        return OKAY
    if not isinstance(value, str) or value.strip().lower() not in (VITAL, OKAY, "failed"):
        raise InputError(path, line, field, f"{json.dumps(value)} is not an importance (vital, okay)")
    return importance_of(value)


def duplicate_texts(bank: NuggetBank, path: str, line: int) -> list[str]:
    """A warning for each nugget of a bank whose text (in any case and spacing) an earlier one has:
    it would count twice in every nugget measure."""
    first: dict[str, int] = {}
    found = []
    for i, n in enumerate(bank.nuggets):
        key = " ".join(n.text.lower().split())
        if key in first:
            found.append(
                f"{path}:{line}: nugget {i}: the same text as nugget {first[key]} of topic {bank.qid!r}'s bank "
                f"({n.text[:60]!r}): it counts twice"
            )
        else:
            first[key] = i
    return found


def level_of(value: object, path: str, line: int, field: str) -> int:
    """0/1/2 of an assignment as NIST writes it; anything else is an error."""
    key = value.strip().lower() if isinstance(value, str) else None
    if key not in _ASSIGNMENT_ALIASES:
        raise InputError(path, line, field, f"{value!r} is not an assignment (support, partial_support, not_support)")
    return ASSIGNMENTS.index(_ASSIGNMENT_ALIASES[key])


def _text(value: object, path: str, line: int, field: str) -> str:
    if not isinstance(value, str):
        raise InputError(path, line, field, f"must be a string, got {json_type(value)}")
    text = value.strip()
    if not text:
        raise InputError(path, line, field, "is empty")
    if len(text) > MAX_NUGGET_CHARS:
        raise InputError(path, line, field, f"longer than {MAX_NUGGET_CHARS:,} characters: not a nugget")
    return text


def _nist(obj: dict, path: str, line: int) -> tuple[NuggetBank, Optional[tuple[str, str, tuple[int, ...]]]]:
    """A NIST/nuggetizer bank, and the assignment when the record is one."""
    if "qid" not in obj:
        raise InputError(path, line, "qid", "missing")
    qid = checked_topic_id(obj["qid"], path, line, "qid")
    query = obj.get("query", "")
    if isinstance(query, dict):  # nuggetizer's Query object {qid, text}
        query = query.get("text", "")
    if not isinstance(query, str):
        raise InputError(path, line, "query", f"must be a string, got {json_type(query)}")
    raw = obj.get("nuggets")
    if not isinstance(raw, list):
        what = "missing" if raw is None else f"must be a list, got {json_type(raw)}"
        raise InputError(path, line, "nuggets", what)
    assigned = "run_id" in obj
    nuggets, levels = [], []
    for i, n in enumerate(raw):
        where = f"nuggets[{i}]"
        if isinstance(n, str):
            nuggets.append(Nugget(_text(n, path, line, where), OKAY))
            if assigned:
                raise InputError(path, line, where, "an assignment record's nugget must be an object with assignment")
            continue
        if not isinstance(n, dict):
            raise InputError(path, line, where, f"must be an object or a string, got {json_type(n)}")
        text = _text(n.get("text"), path, line, f"{where}.text")
        nuggets.append(Nugget(text, _importance(n.get("importance"), path, line, f"{where}.importance")))
        if assigned:
            levels.append(level_of(n.get("assignment"), path, line, f"{where}.assignment"))
    bank = NuggetBank(qid, query.strip(), tuple(nuggets), made_of(obj, raw, path, line))
    if not assigned:
        return bank, None
    run_id = checked_id(obj["run_id"], path, line, "run_id")
    answer = obj.get("answer_text", "")
    if not isinstance(answer, str):
        raise InputError(path, line, "answer_text", f"must be a string, got {json_type(answer)}")
    return bank, (run_id, answer, tuple(levels))


def made_of(obj: dict, raw: list, path: str, line: int) -> Optional[MadeFrom]:
    """A made bank's record (the ``made`` key and each nugget's ``stated_by``, ``text_from``,
    ``alternate``), when the record has one; a bank without is a plain bank."""
    made = obj.get("made")
    if made is None:
        return None
    if not isinstance(made, dict) or not isinstance(made.get("source"), str):
        raise InputError(path, line, "made", "must be an object with a source string")
    ints = []
    for key in ("min_runs", "vital_runs"):
        value = made.get(key, 0)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise InputError(path, line, f"made.{key}", f"must be a whole number >= 0, got {value!r}")
        ints.append(value)
    stated, text_from, alternates = [], [], []
    for i, n in enumerate(raw):
        n = n if isinstance(n, dict) else {}
        runs = n.get("stated_by", [])
        if not isinstance(runs, list) or not all(isinstance(r, str) for r in runs):
            raise InputError(path, line, f"nuggets[{i}].stated_by", "must be a list of run ids")
        first, alternate = n.get("text_from", ""), n.get("alternate", "")
        for key, value in (("text_from", first), ("alternate", alternate)):
            if not isinstance(value, str):
                raise InputError(path, line, f"nuggets[{i}].{key}", f"must be a string, got {json_type(value)}")
        stated.append(tuple(runs))
        text_from.append(first)
        alternates.append(alternate)
    sha = made.get("content_sha256", "")
    return MadeFrom(
        made["source"],
        ints[0],
        ints[1],
        tuple(stated),
        tuple(text_from),
        tuple(alternates),
        sha if isinstance(sha, str) else "",
    )


def _autojudge(obj: dict, path: str, line: int) -> NuggetBank:
    qid = checked_topic_id(obj.get("query_id"), path, line, "query_id")
    query = obj.get("title_query") or ""
    if not isinstance(query, str):
        raise InputError(path, line, "title_query", f"must be a string, got {json_type(query)}")
    nuggets = []
    for bank_key, text_key in (("nugget_bank", "question"), ("claim_bank", "claim")):
        entries = obj.get(bank_key)
        if entries is None:
            continue
        if isinstance(entries, dict):
            twice = entries.twice if isinstance(entries, KeyedObject) else ()
            if twice:  # JSON keeps the last: a nugget would be dropped without a word
                raise InputError(path, line, f"{bank_key}.{twice[0]}", "nugget id given twice in the bank")
            items = [(f"{bank_key}.{k}", v) for k, v in entries.items()]
        elif isinstance(entries, list):
            items = [(f"{bank_key}[{i}]", v) for i, v in enumerate(entries)]
            _check_ids(items, bank_key, path, line)
        else:
            raise InputError(path, line, bank_key, f"must be an object or a list, got {json_type(entries)}")
        for where, n in items:
            if not isinstance(n, dict):
                raise InputError(path, line, where, f"must be an object, got {json_type(n)}")
            text = _text(n.get(text_key), path, line, f"{where}.{text_key}")
            nuggets.append(Nugget(text, _importance(n.get("importance"), path, line, f"{where}.importance")))
    made = None
    meta = obj.get("metadata")
    claims = obj.get("claim_bank")
    claims = list(claims.values()) if isinstance(claims, dict) else claims  # autojudge-base keys them by text
    if isinstance(meta, dict) and isinstance(meta.get("made"), dict) and isinstance(claims, list):
        raw = [n.get("metadata") or {} for n in claims if isinstance(n, dict)]
        if len(raw) == len(nuggets):  # a made bank written as AutoJudge's (judges.formats.nuggetbanks)
            made = made_of(meta, raw, path, line)
    return NuggetBank(qid, query.strip(), tuple(nuggets), made)


ID_KEYS = ("question_id", "claim_id", "nugget_id", "id")  # an AutoJudge nugget's id, in a list of them


def _check_ids(items: list[tuple[str, object]], bank_key: str, path: str, line: int) -> None:
    """A nugget id given twice in a list of AutoJudge nuggets is an error naming the second."""
    first: dict[object, str] = {}
    for where, n in items:
        key = next((k for k in ID_KEYS if isinstance(n, dict) and n.get(k) is not None), None)
        if key is None:
            continue
        nid = n[key]  # type: ignore[index]
        if not isinstance(nid, (str, int)):
            continue
        if nid in first:
            raise InputError(
                path, line, f"{where}.{key}", f"nugget id {nid!r} given twice in the bank (first at {first[nid]})"
            )
        first[nid] = where


def _records(path: Path) -> Iterator[tuple[int, object]]:
    try:
        text = read_text(path)
    except InputError as e:
        raise InputError(e.path, e.line, None, f"{e.problem}: not a nugget file; {SHAPES}") from None
    start = text.lstrip()[:1]
    if start == "[":
        for line, _, value in iter_array(text, path, KEYED_DECODER):
            yield line, value
    elif start == "{":
        for line, value in iter_values(text, path, KEYED_DECODER):
            if isinstance(value, dict) and isinstance(value.get("banks"), dict):  # an AutoJudge container
                twice = getattr(value["banks"], "twice", ())
                if twice:
                    raise InputError(path, line, f"banks.{twice[0]}", "a topic's bank given twice in the container")
                for bank in value["banks"].values():
                    yield line, bank
            else:
                yield line, value
    elif start:
        raise InputError(path, 1, None, f"not JSON; {SHAPES}")


def content_hash(bank: NuggetBank) -> str:
    """SHA-256 of a bank's content (its nuggets' texts and importances, in order): what tells a
    made bank an assessor edited (``post-edited``) from one as made."""
    import hashlib
    import json

    text = json.dumps([[n.text, n.importance] for n in bank.nuggets], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def source_of(nuggets: Nuggets) -> str:
    """Where a bank's content comes from: ``human`` (no bank of the file was made),
    ``post-edited`` (a made bank whose content changed since it was made), else the made banks'
    source (``answers``, ``llm:MODEL``)."""
    made = [b for b in nuggets.banks.values() if b.made is not None]
    if not made:
        return "human"
    if any(b.made is not None and b.made.content_sha256 != content_hash(b) for b in made) or len(made) < len(
        nuggets.banks
    ):
        return "post-edited"
    sources = sorted({b.made.source for b in made if b.made is not None})
    return sources[0] if len(sources) == 1 else "+".join(sources)


def answer_texts(path: Path | str) -> dict[tuple[str, str], str]:
    """``(run_id, qid) -> answer_text`` of a set's ``NAME.nuggets.jsonl`` (NIST's assignment shape,
    as :mod:`judges.session.nuggets` writes it); a missing, cut or damaged file, or a record
    without those fields, is one :class:`InputError` naming the file (and line)."""
    from judges.formats.jsonl import iter_jsonl

    path = Path(path)
    if not path.is_file():
        raise InputError(path, None, None, "no such file: judge with --nuggets again to write it")
    texts: dict[tuple[str, str], str] = {}
    for line, record in iter_jsonl(path):
        if isinstance(record, InputError):
            raise record
        if not isinstance(record, dict):
            raise InputError(path, line, None, f"must be a JSON object, got {json_type(record)}")
        run = checked_id(record.get("run_id"), str(path), line, "run_id")
        qid = checked_topic_id(record.get("qid"), str(path), line, "qid")
        text = record.get("answer_text", "")
        if not isinstance(text, str):
            raise InputError(path, line, "answer_text", f"must be a string, got {json_type(text)}")
        texts[(run, qid)] = text
    return texts


def check_nugget_path(path: Path | str) -> None:
    """``--nuggets`` names one nugget file: a directory, or no such file, is one error line."""
    path = Path(path)
    if path.is_dir():
        raise InputError(
            path, None, "--nuggets", "is a directory: give the nugget bank file itself (e.g. nuggets.jsonl)"
        )
    if not path.is_file():
        raise InputError(path, None, "--nuggets", "no such file")


def read_nuggets(path: Path | str) -> Nuggets:
    """Every bank (and assignment) of a nugget file. Errors: a topic with two banks that differ,
    two assignments of one (run, topic), a record of no accepted shape, a file without a bank."""
    path = Path(path)
    where = str(path)
    banks: dict[str, NuggetBank] = {}
    assignments: dict[tuple[str, str], Assignment] = {}
    first_shape = ""  # the first record's
    bank_line: dict[str, int] = {}
    warnings: list[str] = []
    for line, obj in _records(path):
        if not isinstance(obj, dict):
            raise InputError(where, line, None, f"a nugget bank must be a JSON object, got {json_type(obj)}")
        if "nuggets" in obj or "qid" in obj:
            bank, assignment = _nist(obj, where, line)
            shape = "nist_assignment" if assignment is not None else "nist"
        elif "query_id" in obj or "nugget_bank" in obj or "claim_bank" in obj:
            bank, assignment, shape = _autojudge(obj, where, line), None, "autojudge"
        else:
            raise InputError(where, line, "qid", f"missing (also looked for query_id); {SHAPES}")
        first_shape = first_shape or shape
        known = banks.get(bank.qid)
        if known is None:
            banks[bank.qid], bank_line[bank.qid] = bank, line
            warnings += duplicate_texts(bank, where, line)
        elif assignment is None or known.nuggets != bank.nuggets:
            why = "a second bank" if assignment is None else "nuggets that differ from those"
            raise InputError(where, line, "qid", f"{bank.qid!r}: {why} of line {bank_line[bank.qid]}")
        if assignment is not None:
            run_id, answer, levels = assignment
            key = (run_id, bank.qid)
            if key in assignments:
                first = assignments[key].line
                raise InputError(
                    where, line, "run_id", f"{run_id!r} assigned topic {bank.qid!r} already at line {first}"
                )
            assignments[key] = Assignment(run_id, bank.qid, answer, levels, line)
    if not banks:
        raise InputError(where, None, None, f"no nugget bank in the file; {SHAPES}")
    import hashlib

    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    return Nuggets(where, banks, assignments, first_shape, sha, warnings)
