"""A directory of outputs replaced as one (the HTML report): written beside its target, then
swapped in.

:func:`replacing` yields a new directory ``.NAME.new-PID`` beside the target ``NAME``; when the
block ends without an error the target (if any) is renamed ``.NAME.old-PID``, the new one renamed
into place, and only then the old one removed. SIGINT and SIGTERM arriving during these two
renames are held and acted on after them. An error or an interrupt before: the new directory is
removed, the target untouched. So after Ctrl-C, SIGTERM or a full disk at any moment the target
holds the previous directory, whole, or the new one; after ``kill -9`` between the two renames
the previous one is ``.NAME.old-PID``, which the next call puts back (and the leftovers of
processes no longer running are removed).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
from pathlib import Path
from typing import Iterator

from judges.core.process import pid_alive


def _remove(path: Path) -> None:
    """Remove the directory (or symbolic link to one) at ``path``, as far as possible."""
    if path.is_symlink():
        with contextlib.suppress(OSError):
            path.unlink()
    else:
        shutil.rmtree(path, ignore_errors=True)


def _leftovers(target: Path) -> None:
    """Put back a previous directory a killed swap left aside, remove dead processes' new ones."""
    for entry in sorted(target.parent.glob(f".{glob.escape(target.name)}.*-*")):
        kind, _, pid = entry.name[len(target.name) + 2 :].rpartition("-")
        if kind not in ("new", "old") or not pid.isdigit() or pid_alive(int(pid)):
            continue
        with contextlib.suppress(OSError):
            if kind == "old" and not os.path.lexists(target):
                os.rename(entry, target)
            else:
                _remove(entry)


@contextlib.contextmanager
def replacing(target: Path) -> Iterator[Path]:
    """Yield an empty directory beside ``target``; on success it replaces ``target`` (module doc)."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    _leftovers(target)
    new = target.parent / f".{target.name}.new-{os.getpid()}"
    old = target.parent / f".{target.name}.old-{os.getpid()}"
    shutil.rmtree(new, ignore_errors=True)
    new.mkdir()
    try:
        yield new
        held: list[int] = []
        previous: dict = {}
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(ValueError):  # not the main thread
                previous[signum] = signal.signal(signum, lambda n, frame: held.append(n))
        try:
            had = os.path.lexists(target)
            if had:
                os.rename(target, old)
            os.rename(new, target)
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            for n in held[:1]:
                signal.raise_signal(n)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise
    if had:
        _remove(old)
