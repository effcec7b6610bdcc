"""Human support labels: a JSONL file, one label per sentence or per citation.

Each line is an object with

* ``run_id``, ``topic_id`` (string or integer) and ``sentence_index`` (integer >= 0, the index of
  the sentence in the report's ``answer``/``responses`` list, as in the assessments table);
* ``doc_id`` (optional): present on every line, the labels are per citation (the judgment of that
  document cited by that sentence); absent on every line, per sentence. A mix is an error;
* ``label``: ``supported``, ``partially`` or ``not_supported``, or a synonym of one
  (:data:`~judges.core.vocabulary.LABEL_SYNONYMS`: ``partially_supported``, ``partial``, ``PS``,
  ``FS``, ``NS``, ``0``/``1``/``2``..., in any case), or a value ``label_map`` (``--label-map
  FROM=TO``) maps to one; ``null``: not labelled yet (the line is skipped and counted:
  ``plan-assessments`` writes its lines so, for an assessor to fill);
* any other keys: extra columns (string, number, boolean or null), e.g. the source data set, by
  which ``agreement`` breaks its scores down; objects and lists (e.g. the document and evidence
  ``plan-assessments`` writes, or WiCE's ``supporting_sentences``) are left out.

A key given twice is an error naming both lines.

Nugget assignments are labels too (a nugget pair is (nugget, answer), as a citation is (sentence,
document); :data:`judges.attest.kinds.NUGGET`): a file whose first record has ``nugget_index``
(``plan-assessments --nuggets`` lines, filled in: ``run_id``, ``topic_id``, ``nugget_index``,
``label`` as NIST writes assignments, ``support``, ``partial_support``, ``not_support``, or as a
citation label, ``supported``, ``partially``, ``not_supported`` and their synonyms; ``null``: not
labelled yet) or ``nuggets`` (NIST's ``nugget_assignment.*.jl`` records, ``{qid, run_id,
nuggets: [{text, importance, assignment}]}``, every nugget of the record labelled) is read by
:func:`read_nugget_labels`; :func:`read_label_files` sets such files apart
(:attr:`LabelFiles.nuggets`), and the nugget stage takes their assignments as final.

Several files (``--labels`` given more than once, or a directory of them: the rounds of
``plan-assessments``) are read together by :func:`read_label_files`: every label is in effect;
one citation labelled the same in two files counts once, labelled two ways it is an error naming
both files and lines. Each label keeps where it came from (file, line).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping, NamedTuple, Optional

import pandas as pd

if TYPE_CHECKING:
    from judges.formats.battle_labels import BattleLabels

from judges.core.errors import InputError
from judges.formats.jsonl import iter_jsonl
from judges.formats.runs import checked_id, json_type
from judges.core.vocabulary import INCLUSION_PROBABILITY as PROBABILITY  # the plan file's field
from judges.core.vocabulary import LABEL_STATUS, LABEL_SYNONYMS, LABELS, MIN_INCLUSION_PROBABILITY

KEY = ("run_id", "topic_id", "sentence_index")
RESERVED = {"label", *KEY, "doc_id"}
LINE = "_line"  # the label's line number, for messages


class Labels(NamedTuple):
    path: Path
    level: str  # "citation" (with doc_id) or "sentence"
    table: pd.DataFrame  # run_id, topic_id, sentence_index, [doc_id], label, _line, extras...
    extras: tuple[str, ...]  # extra column names, in order of first appearance
    unlabelled: int = 0  # lines whose label is null (not labelled yet), skipped
    pending: tuple = ()  # the keys of those lines (a plan's citations still to label)

    @property
    def key(self) -> list[str]:
        return [*KEY, "doc_id"] if self.level == "citation" else list(KEY)


def inclusion_problem(value: object) -> Optional[str]:
    """Why ``value`` is no inclusion probability (:data:`PROBABILITY` of a label line), or None:
    a number in [:data:`MIN_INCLUSION_PROBABILITY`, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value <= 1.0:
        return f"must be a number in (0, 1], got {json.dumps(value)}"
    if value < MIN_INCLUSION_PROBABILITY:
        return (
            f"{value!r} is below {MIN_INCLUSION_PROBABILITY:g}, the least a plan draws with "
            "(estimates weigh a label by 1/probability)"
        )
    return None


def _describe(key: tuple) -> str:
    run, topic, sentence = key[:3]
    text = f"run {run!r}, topic {topic!r}, sentence {sentence}"
    return text + (f", doc {key[3]!r}" if len(key) > 3 else "")


def label_key(value: object) -> Optional[str]:
    """How a label is looked up: a string stripped, in lower case, spaces and hyphens as
    underscores; an integer as its digits; anything else has none."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    return text_key(str(value))


def text_key(text: str) -> str:
    """:func:`label_key` of a string."""
    return "_".join(text.strip().lower().replace("-", " ").split())


#: Every way of writing a label (:func:`label_key`) -> the label.
SYNONYMS = {text_key(w): label for label in LABELS for w in (label, *LABEL_SYNONYMS[label])}


def parse_label_map(items: Iterable[str], option: str = "--label-map") -> dict[str, str]:
    """``FROM=TO`` items (``--label-map``) as a map from the way of writing (:func:`label_key`)
    to the label; ``TO`` is a label or a synonym of one."""
    found: dict[str, str] = {}
    for item in items:
        source, eq, target = item.partition("=")
        if not eq or label_key(source) in (None, ""):
            raise InputError(option, None, None, f"{item!r}: expected FROM=TO, e.g. attributable=supported")
        label = SYNONYMS.get(text_key(target))
        if label is None:
            raise InputError(
                option, None, None, f"{item!r}: {target.strip()!r} is not a label; expected {', '.join(LABELS)}"
            )
        found[text_key(source)] = label
    return found


def read_labels(path: str | Path, label_map: Optional[Mapping[str, str]] = None, empty: bool = False) -> Labels:
    """The label file at ``path``; ``label_map`` (:func:`parse_label_map`) reads other values as
    labels, before the synonyms. A file without a label is an error unless ``empty``."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, None, None, "no such file")
    reader = _Reader(path, {**SYNONYMS, **(label_map or {})})
    for line, obj in iter_jsonl(path):
        reader.add(line, obj)
    return reader.labels(empty)


class _Reader:
    """The lines of one label file, checked one by one (:func:`read_labels`)."""

    def __init__(self, path: Path, names: Mapping[str, str]):
        self.path, self.names = path, names
        self.records: list[dict] = []
        self.extras: dict[str, None] = {}
        self.level: Optional[str] = None
        self.level_line = 0
        self.seen: dict[tuple, int] = {}
        self.unlabelled = 0
        self.pending: list[tuple] = []

    def add(self, line: int, obj: object) -> None:
        if isinstance(obj, InputError):
            raise obj
        if not isinstance(obj, dict):
            raise InputError(self.path, line, None, f"a label must be a JSON object, got {json_type(obj)}")
        rec = self._key(line, obj)
        if "label" not in obj:
            raise InputError(self.path, line, "label", "missing")
        if obj["label"] is None:  # not labelled yet
            self.unlabelled += 1
            self.pending.append(tuple(rec.values()))
            return
        rec["label"] = self._label(line, obj["label"])
        problem = inclusion_problem(obj[PROBABILITY]) if obj.get(PROBABILITY) is not None else None
        if problem:
            raise InputError(self.path, line, PROBABILITY, problem)
        rec[LINE] = line
        rec.update(self._extras(line, obj))
        key = tuple(rec[k] for k in ((*KEY, "doc_id") if self.level == "citation" else KEY))
        if key in self.seen:
            raise InputError(
                self.path, line, "label", f"second label for {_describe(key)} (first on line {self.seen[key]})"
            )
        self.seen[key] = line
        self.records.append(rec)

    def _key(self, line: int, obj: dict) -> dict:
        """run_id, topic_id, sentence_index and (per citation) doc_id, checked."""
        rec: dict = {}
        for k in ("run_id", "topic_id"):
            if obj.get(k) is None:
                raise InputError(self.path, line, k, "missing")
            rec[k] = checked_id(obj[k], str(self.path), line, k)
        idx = obj.get("sentence_index")
        if idx is None:
            raise InputError(self.path, line, "sentence_index", "missing")
        if isinstance(idx, bool) or not isinstance(idx, int) or idx < 0:
            raise InputError(self.path, line, "sentence_index", f"must be an integer >= 0, got {json.dumps(idx)}")
        rec["sentence_index"] = idx
        this_level = "sentence" if obj.get("doc_id") is None else "citation"
        if self.level is None:
            self.level, self.level_line = this_level, line
        elif this_level != self.level:
            where = "present here but not" if this_level == "citation" else "absent here but present"
            raise InputError(
                self.path,
                line,
                "doc_id",
                f"{where} on line {self.level_line}: labels are all per citation (with doc_id) or all per sentence",
            )
        if this_level == "citation":
            rec["doc_id"] = checked_id(obj["doc_id"], str(self.path), line, "doc_id")
        return rec

    def _label(self, line: int, value: object) -> str:
        key = label_key(value)
        label = self.names.get(key) if key is not None else None
        if label is None:
            raise InputError(
                self.path,
                line,
                "label",
                f"unknown {json.dumps(value)}; expected {', '.join(LABELS)} or a synonym (partially_supported, "
                "PS, 0/1/2...); agreement and calibrate read others with --label-map FROM=TO",
            )
        return label

    def _extras(self, line: int, obj: dict) -> dict:
        """The line's other keys with a scalar value, as strings (objects and lists left out)."""
        extras = {}
        for k, v in obj.items():
            if k in RESERVED:
                continue
            if k.startswith("_"):
                raise InputError(self.path, line, k, "extra column names must not start with '_'")
            if isinstance(v, (dict, list)):  # not a column: left out
                continue
            self.extras.setdefault(k, None)
            extras[k] = None if v is None else str(v)
        return extras

    def labels(self, empty: bool = False) -> Labels:
        if not self.records and not empty:
            pending = f" ({self.unlabelled} lines not labelled yet)" if self.unlabelled else ""
            raise InputError(self.path, None, None, f"no labels{pending}")
        columns = [*KEY] + (["doc_id"] if self.level == "citation" else []) + ["label", LINE, *self.extras]
        table = pd.DataFrame.from_records(self.records, columns=columns)
        table = table.astype({"run_id": str, "topic_id": str, "sentence_index": "int64", "label": str, LINE: "int64"})
        return Labels(
            self.path, self.level or "citation", table, tuple(self.extras), self.unlabelled, tuple(self.pending)
        )


def citation_statuses(labels: Labels) -> dict[tuple, str]:
    """Per-citation labels as the judge takes them (``--labels``): (run, topic, sentence index,
    doc id) -> status (:data:`LABEL_STATUS`)."""
    if labels.level != "citation":
        why = "--labels needs one label per citation (doc_id on every line), not per sentence"
        raise InputError(labels.path, None, "doc_id", why)
    t = labels.table
    return {
        (run, topic, int(sentence), doc): LABEL_STATUS[label]
        for run, topic, sentence, doc, label in zip(t.run_id, t.topic_id, t.sentence_index, t.doc_id, t.label)
    }


def citation_probabilities(labels: Labels) -> dict[tuple, float]:
    """Per labelled citation (keys as :func:`citation_statuses`), the probability the plan drew it
    with (its line's :data:`PROBABILITY`, a number in [:data:`MIN_INCLUSION_PROBABILITY`, 1]); citations
    whose line has none, or ``null``, are left out (an organiser's own labels, not drawn with a known
    probability: the intervals take them as drawn at random)."""
    t = labels.table
    if PROBABILITY not in t.columns or labels.level != "citation":
        return {}
    out = {}
    for run, topic, sentence, doc, value, line in zip(
        t.run_id, t.topic_id, t.sentence_index, t.doc_id, t[PROBABILITY], t[LINE]
    ):
        if value is None or pd.isna(value):  # null or no such key on the line: no known probability
            continue
        try:
            p = float(value)
        except ValueError:
            p = float("nan")
        problem = inclusion_problem(p) if p == p else f"must be a number in (0, 1], got {value}"
        if problem:
            raise InputError(labels.path, int(line), PROBABILITY, problem)
        out[(run, topic, int(sentence), doc)] = p
    return out


NUGGET_KEY = ("run_id", "topic_id", "nugget_index")  # judges.attest.kinds.NUGGET.key
NUGGET_WORDS = ("not_support", "partial_support", "support")  # NIST's assignments, by level
_CITATION_LEVEL = {"not_supported": 0, "partially": 1, "supported": 2}


class NuggetLabels(NamedTuple):
    """Nugget assignments read from label files (:func:`read_nugget_labels`)."""

    levels: dict[tuple, str]  # (run, topic, nugget index) -> support | partial_support | not_support
    sources: dict[tuple, tuple[Path, int]]  # the same key -> the file and line its label came from
    probabilities: dict[tuple, float]  # the plan's inclusion probability, where the line gives one
    files: list[dict]  # per file: path, labels, not_labelled
    pending: frozenset = frozenset()  # keys on lines not labelled yet
    quotes: tuple = ()  # (key, file, line, field, the nugget's text its line quotes, or None) of every label


def is_nugget_file(path: Path) -> bool:
    """Whether the label file's first record is a nugget assignment (``nugget_index`` or ``nuggets``)."""
    try:  # read as the label readers read it: gzip, a byte order mark (an unreadable file: theirs to name)
        for _, obj in iter_jsonl(path):
            return isinstance(obj, dict) and ("nugget_index" in obj or "nuggets" in obj)
    except (OSError, InputError):
        return False
    return False


def _nugget_level(value: object, path: Path, line: int, field: str) -> int:
    """0/1/2 of a nugget label: NIST's assignment words or a citation label (with its synonyms)."""
    from judges.formats.nuggets import level_of

    citation = label_key(value)
    name = SYNONYMS.get(citation) if citation is not None else None
    if name in _CITATION_LEVEL:
        return _CITATION_LEVEL[name]
    return level_of(value, str(path), line, field)


def _nugget_records(path: Path):
    """(key, level or None, line, inclusion probability or None, (field, nugget text) or None) of
    every label of one nugget file."""
    for line, obj in iter_jsonl(path):
        if isinstance(obj, InputError):
            raise obj
        if not isinstance(obj, dict):
            raise InputError(path, line, None, f"must be a JSON object, got {json_type(obj)}")
        if "nuggets" in obj:  # NIST's assignment record: every nugget of the answer
            nuggets = obj["nuggets"]
            if not isinstance(nuggets, list):
                raise InputError(path, line, "nuggets", f"must be a list, got {json_type(nuggets)}")
            run = checked_id(obj.get("run_id"), str(path), line, "run_id")
            topic = checked_id(obj.get("qid", obj.get("topic_id")), str(path), line, "qid")
            for i, n in enumerate(nuggets):
                if not isinstance(n, dict):
                    raise InputError(path, line, f"nuggets[{i}]", f"must be an object, got {json_type(n)}")
                assigned = _nugget_level(n.get("assignment"), path, line, f"nuggets[{i}].assignment")
                yield (run, topic, i), assigned, line, None, (f"nuggets[{i}].text", n.get("text"))
            continue
        run = checked_id(obj.get("run_id"), str(path), line, "run_id")
        topic = checked_id(obj.get("topic_id"), str(path), line, "topic_id")
        index = obj.get("nugget_index")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise InputError(path, line, "nugget_index", f"must be an integer >= 0, got {index!r}")
        value = obj.get("label")
        level = None if value is None else _nugget_level(value, path, line, "label")
        p = obj.get(PROBABILITY)
        problem = inclusion_problem(p) if p is not None else None
        if problem:
            raise InputError(path, line, PROBABILITY, problem)
        yield (run, topic, index), level, line, p, ("nugget", obj.get("nugget"))


def read_nugget_labels(paths: Iterable[str | Path], empty: bool = False) -> NuggetLabels:
    """Nugget assignments from the files ``paths``, all in effect: the same pair labelled alike in
    two files (or lines) counts once; labelled two ways it is an :class:`InputError` naming both
    files and lines. A file without a label is an error unless ``empty``."""
    levels: dict[tuple, str] = {}
    sources: dict[tuple, tuple[Path, int]] = {}
    probabilities: dict[tuple, float] = {}
    pending: set[tuple] = set()
    quotes: list[tuple] = []
    files = []
    for path in map(Path, paths):
        n = unlabelled = 0
        for key, level, line, p, text in _nugget_records(path):
            if level is None:
                unlabelled += 1
                pending.add(key)
                continue
            n += 1
            word = NUGGET_WORDS[level]
            quotes.append((key, path, line, *text))
            if key in levels and levels[key] != word:
                first, first_line = sources[key]
                run, topic, index = key
                raise InputError(
                    path,
                    line,
                    "label",
                    f"{word} for run {run!r}, topic {topic!r}, nugget {index}, labelled {levels[key]} in {first} "
                    f"line {first_line}: one nugget pair labelled two ways; correct one of the files",
                )
            if key not in levels:
                levels[key], sources[key] = word, (path, line)
                if p is not None:
                    probabilities[key] = float(p)
        if not n and not empty and not unlabelled:
            raise InputError(path, None, "label", "no nugget labels in the file")
        files.append({"path": str(path), "labels": n, "not_labelled": unlabelled})
    return NuggetLabels(levels, sources, probabilities, files, frozenset(pending - set(levels)), tuple(quotes))


def check_nugget_labels(labels: NuggetLabels, banks: Mapping, bank_path: str) -> None:
    """Every label of a topic that ``banks`` (:attr:`judges.formats.nuggets.Nuggets.banks`, read from
    ``bank_path``) has names one of its nuggets, and the nugget its line quotes (a NIST record's
    ``text``, a plan line's ``nugget``) is that one: else an :class:`InputError` naming the label's
    file, line and field (labels of another bank would label other nuggets). Labels of topics
    without a bank are the session's to count (they match no pair)."""
    records = {(path, line) for _, path, line, field, _ in labels.quotes if field.startswith("nuggets[")}  # NIST's
    for key, (path, line) in labels.sources.items():
        run, topic, index = key
        bank = banks.get(topic)
        if bank is not None and index >= len(bank.nuggets):
            field = f"nuggets[{index}]" if (path, line) in records else "nugget_index"
            raise InputError(
                path,
                line,
                field,
                f"nugget {index} of topic {topic!r}: its bank in {bank_path} has {len(bank.nuggets)} nuggets",
            )
    for (_, topic, index), path, line, field, text in labels.quotes:
        bank = banks.get(topic)
        if bank is None or text is None:
            continue
        if not isinstance(text, str) or text.strip() != bank.nuggets[index].text:
            raise InputError(
                path,
                line,
                field,
                f"{text!r} is not nugget {index} of topic {topic!r} in {bank_path} ({bank.nuggets[index].text!r}): "
                "labels of another nugget bank?",
            )


class LabelFiles(NamedTuple):
    """Per-citation labels read from several files together (:func:`read_label_files`)."""

    statuses: dict[tuple, str]  # (run, topic, sentence index, doc id) -> status, as citation_statuses
    sources: dict[tuple, tuple[Path, int]]  # the same key -> the file and line its label came from
    files: list[Labels]  # each file as read, in the order given
    nuggets: Optional[NuggetLabels] = None  # the nugget assignment files among them, when any
    battles: Optional["BattleLabels"] = None  # the battle verdict files among them (judges.formats.battle_labels)

    def counts(self) -> list[dict]:
        """Per file: its path, its labels and its lines not labelled yet (for the summary and config.yml)."""
        found = [{"path": str(f.path), "labels": len(f.table), "not_labelled": f.unlabelled} for f in self.files]
        found += self.nuggets.files if self.nuggets is not None else []
        return found + (self.battles.files if self.battles is not None else [])


def holds_labels(path: Path) -> bool:
    """Whether a file's first record is a label: ``run_id`` and a ``label`` (null: not labelled
    yet), or NIST's nugget assignment record (``run_id`` and a list of ``nuggets``)."""
    try:
        for _, obj in iter_jsonl(path):
            return (
                isinstance(obj, dict) and "run_id" in obj and ("label" in obj or isinstance(obj.get("nuggets"), list))
            )
    except (OSError, InputError):
        return False
    return False


def label_paths(paths: Iterable[str | Path], option: str = "--labels") -> list[Path]:
    """The label files of ``paths``, in the order given: a file is read as given; a directory for
    its label files only: the rounds ``plan-assessments`` writes (``NAME.assess-N.jsonl``) and the
    files whose records are labels; a directory that holds an output set (an out-dir) for its
    rounds only (its debug log and ``NAME.nuggets.jsonl`` are the judge's, not an assessor's)."""
    from judges.formats.jsonl import discover
    from judges.formats.outputset import holds_set, is_round

    found: list[Path] = []
    for p in map(Path, paths):
        if not p.is_dir():
            found += discover([p], option)
            continue
        out_dir = holds_set(p)
        found += [f for f in discover([p], option) if is_round(f) or (not out_dir and holds_labels(f))]
    return list(dict.fromkeys(found))


def read_label_files(paths: Iterable[str | Path], option: str = "--labels") -> LabelFiles:
    """Per-citation labels from ``paths`` (files, or directories read as folders of label files),
    all in effect: the same citation labelled alike in two files counts once; labelled two ways it
    is an :class:`InputError` naming both files and lines (never resolved silently)."""
    statuses: dict[tuple, str] = {}
    sources: dict[tuple, tuple[Path, int]] = {}
    files: list[Labels] = []
    paths = list(paths)
    found_paths = label_paths(paths, option)
    if not found_paths:
        where = ", ".join(map(str, paths))
        raise InputError(where, None, option, "no label files (NAME.assess-N.jsonl, or records with a label)")
    several = len(found_paths) > 1  # a round not labelled yet, beside others: read, its lines counted
    from judges.formats.battle_labels import is_battle_file, read_battle_labels

    nugget_paths = [p for p in found_paths if is_nugget_file(p)]
    battle_paths = [p for p in found_paths if p not in nugget_paths and is_battle_file(p)]
    found_paths = [p for p in found_paths if p not in nugget_paths and p not in battle_paths]
    nuggets = read_nugget_labels(nugget_paths, empty=several) if nugget_paths else None
    battles = read_battle_labels(battle_paths) if battle_paths else None
    for path in found_paths:
        labels = read_labels(path, empty=several)
        found = citation_statuses(labels)
        for key, line in zip(found, labels.table[LINE]):
            if key in statuses and statuses[key] != found[key]:
                first, first_line = sources[key]
                raise InputError(
                    path,
                    int(line),
                    "label",
                    f"{found[key]} for {_describe(key)}, labelled {statuses[key]} in {first} line {first_line}: "
                    "one citation labelled two ways; correct one of the files",
                )
            if key not in statuses:
                statuses[key], sources[key] = found[key], (path, int(line))
        citation_probabilities(labels)  # a bad probability: one line now, before anything is written
        files.append(labels)
    if not statuses and not (nuggets is not None and nuggets.levels) and not (battles is not None and battles.labels):
        pending = sum(f.unlabelled for f in files) + (sum(f["not_labelled"] for f in nuggets.files) if nuggets else 0)
        where = ", ".join(map(str, paths))
        raise InputError(where, None, option, f"no labels in {len(files)} files ({pending} lines not labelled yet)")
    return LabelFiles(statuses, sources, files, nuggets, battles)
