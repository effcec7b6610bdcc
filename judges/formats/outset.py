"""The output set of a session, replaced as one: check, lock, recover, stage, commit.

A session writes up to nine files (qrels, doc qrels, leaderboards, two Parquet tables, config
and debug log). POSIX cannot rename several files in one step, so the set is made atomic with a
lock, a staging directory and a journal:

1. **Check** (:func:`check_targets`, before anything is read or created): no target is a
   directory or another non-regular file (``/dev/null``, a FIFO: a rename would replace it), none
   is an input, no two are the same file, and their directories are writable.
2. **Lock**: ``OUT/.NAME.lock`` is held (``flock``, not waiting) from before judging to the end;
   a second session on the same out-dir and name stops with an error instead of mixing its
   files with the first one's. The lock dies with its process, so a killed session never
   leaves it held. A session that ends removes the file while still holding the lock; a session
   that locks checks that the file it locked is still the one at the path (else it opens the new
   one and locks again), so two sessions never hold locks on two different files. (A session
   killed with SIGKILL leaves the empty file behind; the next session removes it.)
3. **Recover** (:func:`recover`, under the lock): a journal ``OUT/.NAME.commit`` means a session
   was killed during its final step: each staged file it lists that still exists is renamed
   into place (roll forward), completing that session's set. Then the staging directories and
   temporary files of sessions that are no longer running are removed.
4. **Stage**: every output is written into ``OUT/.NAME.stage-PID/`` (a debug log outside the
   out-dir into ``.LOG.stage-PID.tmp`` beside it, on its own file system), worker processes'
   temporary files too.
5. **Commit**: the journal (every staged file and its target) is written and synced, the files
   are renamed into place, the directories synced, the journal removed. SIGINT and SIGTERM
   arriving during this short step are held and acted on after it, so an interrupted session
   says truthfully whether its outputs were replaced.

So after kill -9, SIGINT or SIGTERM at any moment, the out-dir holds the previous complete set
or, once the journal is rolled forward (by the next session, or :func:`recover`), the new one.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import glob
import json
import os
import re
import shutil
import signal
import stat
from pathlib import Path
from typing import Iterable, Iterator, Optional

from judges.core.errors import InputError
from judges.core.process import pid_alive
from judges.formats.atomic import naming

JOURNAL_VERSION = 1


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM: ``replaced`` tells whether the new output set was already in place."""

    def __init__(self, replaced: bool = False, signum: int = signal.SIGINT):
        super().__init__()
        self.replaced, self.signum = replaced, signum


def _lock_path(out_dir: Path, name: str) -> Path:
    return out_dir / f".{name}.lock"


def plan_lock_path(out_dir: Path, name: str) -> Path:
    """``OUT/.NAME.assess.lock``: held while ``plan-assessments`` writes a round of the set ``name``."""
    return _lock_path(out_dir, ".".join((name, "assess")))  # not an output file: outputset's table has no locks


def journal_path(out_dir: Path, name: str) -> Path:
    return out_dir / f".{name}.commit"


def _describe(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "is a directory"
    kind = (
        "a character device"
        if stat.S_ISCHR(mode)
        else "a block device"
        if stat.S_ISBLK(mode)
        else "a FIFO"
        if stat.S_ISFIFO(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    return f"is {kind}, not a regular file (outputs replace their target by a rename)"


def _writable_dir(path: Path) -> Optional[str]:
    """Why files cannot be created in ``path`` (created if missing), or None."""
    p = path
    while not os.path.lexists(p):
        if p.parent == p:
            break
        p = p.parent
    if not p.is_dir():
        return f"{p} is not a directory"
    if not os.access(p, os.W_OK | os.X_OK):
        return f"{p} is not writable"
    return None


def check_targets(targets: dict[str, tuple[Path, str]], inputs: Iterable[Path]) -> None:
    """Refuse, before judging, an output target that cannot or must not be replaced.

    ``targets``: kind -> (path, the option that chose it); ``inputs``: every input file.
    """
    real_inputs = {os.path.realpath(p): Path(p) for p in inputs}
    seen: dict[str, str] = {}
    for kind, (path, option) in targets.items():
        path = Path(path)
        try:
            st = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            st = None
        except OSError as e:
            raise InputError(path, None, option, e.strerror or str(e)) from None
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise InputError(path, None, option, _describe(st.st_mode))
        real = os.path.realpath(path)
        if real in real_inputs:
            raise InputError(
                path,
                None,
                option,
                f"is an input file ({real_inputs[real]}): it would be overwritten by the {kind} output",
            )
        if real in seen:
            raise InputError(path, None, option, f"is both the {seen[real]} and the {kind} output")
        seen[real] = kind
        problem = _writable_dir(path.parent)
        if problem is not None:
            raise InputError(path, None, option, f"cannot be written: {problem}")


def _pid_of(name: str, marker: str) -> Optional[int]:
    """The pid in ``...<marker><pid>[.tmp]``, or None."""
    rest = name.rsplit(marker, 1)[-1].removesuffix(".tmp")
    return int(rest) if rest.isdigit() else None


def _not_synced(_) -> None:
    """In place of a sync, for a set that need not outlive its session (``durable=False``)."""


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def recover(out_dir: Path, name: str, extra_dirs: Iterable[Path] = ()) -> list[str]:
    """Complete a commit a killed session left half done, then remove dead sessions' staging.

    Call it holding the lock (:class:`OutputSet` does). Returns the targets it renamed into place.
    ``extra_dirs``: other directories to clean (where a debug log outside the out-dir is staged).
    """
    out_dir = Path(out_dir)
    done: list[str] = []
    journal = journal_path(out_dir, name)
    if journal.exists():
        try:
            entries = json.loads(journal.read_text(encoding="utf-8"))["renames"]
        except (OSError, ValueError, KeyError, TypeError):
            entries = []  # a journal not completely written: its session had renamed nothing yet
        for staged, target in entries:
            if staged is None or os.path.lexists(staged):
                _apply(staged, target)
                done.append(target)
        for d in {Path(t).parent for _, t in entries}:
            _fsync_dir(d)
        journal.unlink()
    for d in {out_dir, *map(Path, extra_dirs)}:
        entries = []
        with contextlib.suppress(OSError):
            entries = list(os.scandir(d))
        for entry in entries:
            n = entry.name
            if not n.startswith("."):
                continue
            pid = _pid_of(n, ".stage-") if ".stage-" in n else None
            # the former layout: temp files beside their target, workers' TemporaryDirectory(prefix=".NAME.")
            legacy = (
                n.startswith(f".{name}.")
                and ".stage-" not in n
                and (
                    n.endswith(".tmp")
                    or (re.fullmatch(r"[a-z0-9_]{8}", n[len(name) + 2 :]) is not None and entry.is_dir())
                )
            )
            if (pid is not None and not pid_alive(pid) and (n.startswith(f".{name}.") or d != out_dir)) or legacy:
                with contextlib.suppress(OSError):
                    if entry.is_dir(follow_symlinks=False):
                        shutil.rmtree(entry.path)
                    else:
                        os.unlink(entry.path)
    return done


def _lock(path: Path) -> Optional[int]:
    """Hold the lock file at ``path`` (created if absent): its descriptor, or ``None`` when another
    process holds it. The file locked is checked to be the one at ``path`` when the lock is taken
    (a session ending removes it while holding it: a lock on the removed file would lock nothing)."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            os.close(fd)
            if e.errno not in (errno.EWOULDBLOCK, errno.EACCES):
                raise
            return None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)  # removed (or replaced) by the session that held it: lock the file there now


def _unlock(path: Path, fd: int) -> None:
    """Remove the lock file, still holding it, then let go."""
    with contextlib.suppress(OSError):
        os.unlink(path)
    os.close(fd)  # releases the flock


@contextlib.contextmanager
def held(path: Path) -> Iterator[bool]:
    """Hold the lock file at ``path`` (``flock``, not waiting) for the block: yields whether it
    is held (``False``: another process holds it). The file is removed when let go of."""
    fd = _lock(Path(path))
    try:
        yield fd is not None
    finally:
        if fd is not None:
            _unlock(Path(path), fd)


def settle(out_dir: Path, name: str) -> None:
    """For readers (judges.read_*): complete a commit a killed session left half done, unless a
    session is running (it will do so itself)."""
    out_dir = Path(out_dir)
    if not journal_path(out_dir, name).exists():
        return
    lock = _lock_path(out_dir, name)
    try:
        fd = _lock(lock)
    except OSError:
        return
    if fd is None:
        return
    try:
        recover(out_dir, name)
    except OSError:
        pass
    finally:
        _unlock(lock, fd)


class OutputSet:
    """The staged output set of one session (see the module docstring)."""

    def __init__(self, out_dir: Path, name: str, extra_dirs: Iterable[Path] = (), durable: bool = True):
        """``extra_dirs``: where outputs outside the out-dir are staged (a debug log elsewhere).
        ``durable=False``: nothing is synced to disk (scratch that lives as long as one session:
        a Dask task's partial set, merged by the client and then removed)."""
        self.out_dir, self.name, self.extra_dirs = Path(out_dir), name, list(extra_dirs)
        self.durable = durable
        self.stage_dir = self.out_dir / f".{name}.stage-{os.getpid()}"
        self.renames: list[tuple[Optional[Path], Path]] = []  # staged -> target (None: remove the target)
        self.committed = False
        self.recovered: list[str] = []
        self._lock_fd: Optional[int] = None

    def __enter__(self) -> "OutputSet":
        self.out_dir.mkdir(parents=True, exist_ok=True)
        fd = _lock(_lock_path(self.out_dir, self.name))
        if fd is None:
            holder = ""  # the lock file is empty (outputs are byte-identical run to run); its stage dir names the pid
            with contextlib.suppress(OSError):
                pids = [_pid_of(p.name, ".stage-") for p in self.out_dir.glob(f".{glob.escape(self.name)}.stage-*")]
                pids = [p for p in pids if p is not None and pid_alive(p)]
                holder = f" (pid {pids[0]})" if len(pids) == 1 else ""
            raise InputError(
                self.out_dir,
                None,
                "--out-dir",
                f"another citejudge session{holder} is writing the outputs named {self.name!r} here",
            ) from None
        self._lock_fd = fd
        try:
            self.recovered = recover(self.out_dir, self.name, self.extra_dirs)
            self.stage_dir.mkdir()
            _hook("staging")
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def stage(self, target: Path) -> Path:
        """Where to write the output that belongs at ``target``."""
        target = Path(target)
        if target.parent.resolve() == self.out_dir.resolve():
            staged = self.stage_dir / target.name
        else:  # a debug log elsewhere: staged beside it, so the rename stays on its file system
            target.parent.mkdir(parents=True, exist_ok=True)
            staged = target.parent / f".{target.name}.stage-{os.getpid()}.tmp"
        self.renames.append((staged, target))
        return staged

    def remove(self, target: Path) -> None:
        """Remove ``target`` in the commit: a file of the previous set this session does not write
        (the default debug log, with ``--no-debug-log``), so it is not left beside the new set."""
        self.renames.append((None, Path(target)))

    def commit(self) -> None:
        """Rename every staged file into place, journalled, with SIGINT/SIGTERM held until done."""
        sync, sync_dir = (os.fsync, _fsync_dir) if self.durable else (_not_synced, _not_synced)
        held: list[int] = []
        previous = {}
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(ValueError):  # not the main thread: signals go elsewhere anyway
                previous[sig] = signal.signal(sig, lambda signum, frame: held.append(signum))
        try:
            journal = journal_path(self.out_dir, self.name)
            tmp = self.stage_dir / "journal.tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(
                    {
                        "version": JOURNAL_VERSION,
                        "pid": os.getpid(),
                        "renames": [[s and str(s), str(t)] for s, t in self.renames],
                    },
                    f,
                )
                f.flush()
                sync(f.fileno())
            for staged, target in self.renames if self.durable else ():
                if staged is not None:
                    with naming(target), open(staged, "rb") as f:
                        sync(f.fileno())
            os.replace(tmp, journal)
            sync_dir(self.out_dir)
            _hook("commit")
            for staged, target in self.renames:
                _apply(staged, target)
                _hook("rename")
            for d in {t.parent for _, t in self.renames}:
                sync_dir(d)
            journal.unlink()
            self.committed = True
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            for signum in held[:1]:
                signal.raise_signal(signum)

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            _unlock(_lock_path(self.out_dir, self.name), self._lock_fd)
            self._lock_fd = None

    def __exit__(self, kind, exc, tb) -> None:
        if isinstance(exc, OSError) and exc.filename is not None:  # a staged file named as the output it is
            targets = {os.fspath(s): os.fspath(t) for s, t in self.renames if s is not None}
            exc.filename = targets.get(os.fspath(exc.filename), exc.filename)
        try:
            if not self.committed:
                for staged, _ in self.renames:
                    if staged is not None:  # None: a target to remove, nothing staged
                        with contextlib.suppress(OSError):
                            os.unlink(staged)
            shutil.rmtree(self.stage_dir, ignore_errors=True)
        finally:
            self._unlock()


def _apply(staged: Optional[str | Path], target: str | Path) -> None:
    if staged is not None:
        os.replace(staged, target)
    elif os.path.isfile(target):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(target)


def _hook(point: str) -> None:
    """Test hook: ``CITEJUDGE_TEST_PAUSE=staging|commit|rename`` stops there (for signals): until
    the file ``CITEJUDGE_TEST_PAUSE_UNTIL`` exists (the test's event; at most 30 minutes), else for
    ``CITEJUDGE_TEST_PAUSE_S`` seconds."""
    if os.environ.get("CITEJUDGE_TEST_PAUSE") == point:
        import time

        until = os.environ.get("CITEJUDGE_TEST_PAUSE_UNTIL")
        if until:
            deadline = time.monotonic() + 1800
            while not os.path.exists(until) and time.monotonic() < deadline:
                time.sleep(0.01)
            return
        time.sleep(float(os.environ.get("CITEJUDGE_TEST_PAUSE_S", "0.3")))
