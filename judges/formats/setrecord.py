"""An output set's record of its own files: ``NAME.sha256``, one line ``<sha256>  <file name>`` per
file (the ``sha256sum`` format: ``cd OUT && sha256sum -c NAME.sha256`` checks a set by hand).

The session writes it last into its staging directory (:func:`write_record`), so it is committed
with the files it lists (:mod:`judges.formats.outset`). The readers of a set check it against its
record first (:func:`check_set`): :func:`judges.formats.tables.output_file` (``report``,
``plan-assessments``, ``agreement``, ``calibrate``, ``judges.read_*``), the recorded session of
``attest export``, the ``--nuggets`` and ``--battles`` plans, and a leaderboard file of a set given
by its path (:func:`check_file`: ``meta-evaluate``, ``report --truth``). A file listed and gone,
cut short, changed or replaced since the set was written, or a file of the set's kinds that the
record does not list, is one error line naming it, instead of numbers read from a damaged file. A set written before
the record existed (no ``NAME.sha256``) is read as before, unchecked.

Not recorded: the debug log (a log, possibly large, that no reader takes numbers from, and
``--debug-log`` may put it elsewhere) and ``NAME.nugget-bank.jsonl`` (written to be edited and
given back with ``--nuggets``). Files written beside the set by other commands (rounds of
``plan-assessments``, ``attest export``'s batch, the answer cache, the report) are not the set's.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Iterable, Optional

from judges.core.errors import InputError, UnreadableFile
from judges.formats import outputset

#: The kinds of the set's files the record leaves out (see the module docstring).
UNRECORDED = ("debug_log", "nugget_bank", "checksums")
_LINE = re.compile(r"([0-9a-f]{64})  ([^/\\\n]+)")
_checked: dict[tuple, bool] = {}  # (record, its stat, each file's stat) -> checked (in this process)


def file_sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def recorded_names(out_dir: Path, name: str) -> set[str]:
    """The file names of ``name``'s set that its record covers (those in ``out_dir``)."""
    return {outputset.file_name(name, f.kind) for f in outputset.of_set() if f.kind not in UNRECORDED}


def write_record(target: Path, staged: Iterable[tuple[Optional[Path], Path]], name: str) -> None:
    """Write the record of the set ``name`` at ``target`` (a staged path): of each staged file
    (``(staged, target)``) whose target is a recorded file of the set beside the record."""
    out_dir = Path(target).parent
    lines = []
    for source, dest in staged:
        if source is None or Path(dest).name not in recorded_names(out_dir, name):
            continue
        lines.append(f"{file_sha256(Path(source))}  {Path(dest).name}\n")
    Path(target).write_text("".join(sorted(lines, key=lambda s: s[66:])), encoding="utf-8")


def record_path(out_dir: Path, name: str) -> Path:
    return outputset.path(out_dir, name, "checksums")


def named_sets(out_dir: Path) -> list[str]:
    """The names of the sets whose record is in ``out_dir``."""
    suffix = "." + outputset.suffix("checksums")
    return sorted(p.name[: -len(suffix)] for p in Path(out_dir).glob("*" + suffix) if p.is_file())


def read_record(out_dir: Path, name: str) -> Optional[dict[str, str]]:
    """``{file name: sha256}`` as ``NAME.sha256`` records it; None when there is no record (a set
    written before records existed). A damaged record is an :class:`InputError`."""
    path = record_path(out_dir, name)
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise InputError(path, None, None, "a directory, not the set's record of its files: judge again") from None
    except UnicodeDecodeError:
        raise InputError(path, None, None, "damaged (not UTF-8): the set's record of its files; judge again") from None
    found: dict[str, str] = {}
    for i, line in enumerate(text.splitlines(keepends=True), 1):
        m = _LINE.fullmatch(line.rstrip("\n"))
        if m is None or not line.endswith("\n") or m.group(2) in found:
            raise InputError(
                path, i, None, "damaged: not a line '<sha256>  <file name>' of the set's record; judge again"
            )
        found[m.group(2)] = m.group(1)
    if not found:
        raise InputError(path, None, None, "empty: the set's record of its files lists none; judge again")
    return found


def check_set(out_dir: str | Path, name: str) -> bool:
    """Check the set ``name`` in ``out_dir`` against its record: True when checked, False when it
    has no record (written before records existed). A file the record lists that is gone, is not
    a regular file, or whose sha256 differs is an :class:`InputError` naming it."""
    out_dir = Path(out_dir)
    record = read_record(out_dir, name)
    if record is None:
        return False
    key = (str(out_dir.resolve()), name, _stat(record_path(out_dir, name)), *(_stat(out_dir / f) for f in record))
    if _checked.get(key):
        return True
    listed = f"the set's record {record_path(out_dir, name).name}"
    for file_name, digest in record.items():
        path = out_dir / file_name
        if not os.path.lexists(path):
            raise UnreadableFile(path, f"missing: listed in {listed}; the set is incomplete, judge again")
        if not path.is_file():
            raise UnreadableFile(path, f"not a regular file: listed in {listed} as one; judge again")
        if file_sha256(path) != digest:
            why = f"its sha256 differs from the one in {listed} (changed since the set was written)"
            raise UnreadableFile(path, f"damaged: {why}; judge again")
    for file_name in sorted(recorded_names(out_dir, name) - set(record)):
        if os.path.lexists(out_dir / file_name):
            why = f"a file of the set's kind that its record {record_path(out_dir, name).name} does not list"
            raise UnreadableFile(out_dir / file_name, f"not part of the set: {why}; remove it or judge again")
    _checked[key] = True
    return True


def check_file(path: str | Path) -> None:
    """A file given by its path (``meta-evaluate OUT/NAME.leaderboard.txt``, ``report --truth``):
    when it is a file of a set whose record lists it, that set is checked (:func:`check_set`)."""
    path = Path(path)
    for name in named_sets(path.parent):
        if path.name in recorded_names(path.parent, name):
            check_set(path.parent, name)


def _stat(path: Path) -> tuple:
    try:
        st = path.stat()
    except OSError:
        return ()
    return (st.st_ino, st.st_size, st.st_mtime_ns)
