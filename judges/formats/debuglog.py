"""The JSONL debug log: one timestamped event per line, enough to reconstruct every decision.

Events, each an object with ``ts`` and ``event``:

* ``session_start`` -- version, backend, name, workers, the workflow and the inputs;
* ``INPUT_ERROR`` -- a bad input record (path, line, field, problem), failed on or skipped;
* ``CITATION_INPUT`` and ``CITATION_OUTPUT`` -- per judged citation: the sentence, the cited
  document and the candidate windows; then the alignment, features, judgment and the rule behind it;
* ``ATTEST_INPUT`` and ``ATTEST_OUTPUT`` -- per citation asked of the LLM: the prompt (a question of the
  check sample, judges.attest.check, says ``check``: it has no ATTEST_OUTPUT, its answer only measures); then the
  answer (or failure), where it came from (``cache``, ``llm`` or ``failed``) and the status it gave;
* ``ATTEST_SUMMARY`` -- the session's attestation figures (only when the workflow attests);
* ``summary`` -- counts, statuses and the files written.

Events logged before the out-dir exists are kept in memory (:meth:`DebugLog.deferred`); worker
processes' logs are appended while they are written (:meth:`DebugLog.append_file`). The file
appears at its path only when the session's outputs are committed. Encoded with orjson: two
events per citation made the standard library's encoder a quarter of the judge's time.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import BinaryIO, Optional

import orjson

from judges.formats.atomic import atomic_path, naming


class DebugLog:
    """``DebugLog(path)``: written to a temporary file that replaces ``path`` on success.

    ``DebugLog.deferred()``: events are kept in memory until :meth:`start` names the file (the
    pipeline's first pass runs before the out-dir may be created); :meth:`close` ends it.
    """

    def __init__(self, path: Optional[Path]):
        self.path = path
        self.file: Optional[Path] = None  # the file written (``path``'s temporary file, or the one started)
        self._stack = contextlib.ExitStack()
        self._f: Optional[BinaryIO] = None
        self._buffer: Optional[list[bytes]] = None
        self._ms, self._ts = -1, ""
        self._heads: dict[str, bytes] = {}
        self._syncing: Optional[threading.Thread] = None
        self._copying: Optional[threading.Thread] = None  # append_ranges(..., soon=True)
        self._copy_failed: Optional[BaseException] = None
        self._failed = False  # a write failed (a full disk): closing the file fails again, unsaid

    @classmethod
    def deferred(cls) -> "DebugLog":
        log = cls(None)
        log._buffer = []
        return log

    def start(self, path: Path) -> None:
        """Open ``path`` (written directly, as the caller stages it) and write the kept events."""
        self._f = self._stack.enter_context(open(path, "wb"))
        self.file = Path(path)
        buffered, self._buffer = b"".join(self._buffer or ()), None
        try:
            self._f.write(buffered)
        except OSError as e:
            raise self._write_failed(e) from None

    def sync_soon(self) -> None:
        """Start writing what is logged so far to disk, in a thread: the session's commit syncs
        every output, and most of a large track's log (gigabytes) can be on disk by then."""
        self._copied()
        if self._f is None or self._syncing is not None:
            return
        with self._naming():
            self._f.flush()
        syncing = threading.Thread(target=_sync, args=(self._f.fileno(),), name="sync-log", daemon=True)
        syncing.start()
        self._syncing = syncing  # only once started: a Ctrl-C between the two leaves no thread to join

    def close(self) -> None:
        with self._naming():
            try:
                self._copied()
            finally:
                self._close()

    def ended(self, kind, exc, tb) -> None:
        """:meth:`close` as the exit of a ``with`` block (``ExitStack.push``): when the block raised,
        closing fails too on a full disk (the buffer's rest), and must not hide what it raised."""
        try:
            self.close()
        except OSError:
            if exc is None:
                raise

    def _write_failed(self, e: OSError) -> OSError:
        """A write failed (a full disk): ``e``, naming the file; closing will not say it again."""
        self._failed = True
        if e.filename is None and self.file is not None:
            e.filename = os.fspath(self.file)
        return e

    def _naming(self):
        """A write error (a full disk) names the log's file."""
        return naming(self.file) if self.file is not None else contextlib.nullcontext()

    def _close(self) -> None:
        if self._syncing is not None:  # before the file closes: its descriptor is being synced
            self._syncing.join()
            self._syncing = None
        try:
            self._stack.close()
        except OSError:
            if not self._failed:  # else said already: the buffer's rest fails to go out again
                raise
        self._f = None

    def __enter__(self) -> "DebugLog":
        if self.path is not None:
            tmp = self.file = self._stack.enter_context(atomic_path(self.path))
            self._f = self._stack.enter_context(open(tmp, "wb"))
        return self

    def __exit__(self, *exc) -> bool:
        return bool(self._stack.__exit__(*exc))

    @property
    def enabled(self) -> bool:
        return self._f is not None or self._buffer is not None

    def append_file(self, path: Path, offset: int = 0) -> int:
        """Append what another process logged to ``path`` from byte ``offset`` on; returns the
        offset reached (the file may still grow: call again from there)."""
        with open(path, "rb") as src:
            end = os.fstat(src.fileno()).st_size
        if self._f is None or end <= offset:
            return max(end, offset)
        self.append_ranges([(path, offset, end)])
        return end

    def append_ranges(self, ranges, *, soon: bool = False) -> None:
        """Append byte ranges ``(path, start, end)`` of other processes' logs, in order (each file
        opened once). Gigabytes for a large track, copied by the kernel where it can, without
        passing through Python. ``soon``: in a thread, then synced to disk (as :meth:`sync_soon`),
        while the caller writes other outputs; the next event, append or :meth:`close` waits for it
        (and raises what the copy raised)."""
        self._copied()
        if self._f is None:
            return
        if not soon:
            with self._naming():
                self._f.flush()
                _copy_ranges(self._f, ranges)
            return
        with self._naming():
            self._f.flush()
        ranges = list(ranges)
        copying = threading.Thread(target=self._copy_then_sync, args=(ranges,), name="copy-log", daemon=True)
        copying.start()
        self._copying = copying  # only once started: a Ctrl-C between the two leaves no thread to join

    def _copy_then_sync(self, ranges: list) -> None:
        try:
            f = self._f
            assert f is not None, "a copy is started on an open log"
            _copy_ranges(f, ranges)
            f.flush()
            _sync(f.fileno())
        except BaseException as e:  # raised again by the thread that waits for the copy
            self._copy_failed = e

    def _copied(self) -> None:
        """Wait for a copy started by ``append_ranges(..., soon=True)``; raise what it raised."""
        if self._copying is None:
            return
        if self._copying.ident is not None:  # started (a Ctrl-C can come before start() returns)
            self._copying.join()
        self._copying = None
        failed, self._copy_failed = self._copy_failed, None
        if failed is not None:
            with self._naming():
                raise failed

    def tell(self) -> int:
        """Bytes written to the file so far (0 without a file)."""
        self._copied()
        return self._f.tell() if self._f is not None else 0

    def event(self, kind: str, /, **data: object) -> None:
        """One line: ``{"ts": ..., "event": kind, **data}`` (``data`` names neither ``ts`` nor ``event``)."""
        self.record(kind, data)

    def record(self, kind: str, data: dict) -> None:
        """:meth:`event` with the fields as a dict (the judge's per-citation events build theirs
        directly: a dict literal is much cheaper than keyword arguments merged into one)."""
        if not self.enabled:
            return
        if self._copying is not None:
            self._copied()
        now = int(time.time() * 1000)
        if now != self._ms:  # formatting the time costs as much as the event: once per millisecond
            self._ms = now
            self._ts = datetime.fromtimestamp(now / 1000, tz=timezone.utc).isoformat(timespec="milliseconds")
            self._heads.clear()
        head = self._heads.get(kind)
        if head is None:  # b'{"ts":"...","event":"..."' for this millisecond and kind
            head = self._heads[kind] = orjson.dumps({"ts": self._ts, "event": kind})[:-1]
        body = orjson.dumps(data, default=_default, option=_OPTIONS)  # b'{...}\n': the fields after the head
        line = head + (b"," + body[1:] if data else body[1:])
        if self._f is not None:
            try:
                self._f.write(line)
            except OSError as e:
                raise self._write_failed(e) from None
        elif self._buffer is not None:  # deferred (enabled: one of the two)
            self._buffer.append(line)


def _copy_ranges(dst, ranges) -> None:
    """Append to the open file ``dst`` (flushed) the byte ranges ``(path, start, end)``."""
    sources: dict = {}
    try:
        for path, start, end in ranges:
            src = sources.get(path)
            if src is None:
                src = sources[path] = open(path, "rb")
            _copy_range(src, dst, start, end)
    finally:
        for src in sources.values():
            src.close()


def _copy_range(src, dst, start: int, end: int) -> None:
    offset = start
    try:
        while offset < end:
            copied = os.copy_file_range(src.fileno(), dst.fileno(), end - offset, offset)
            if copied == 0:
                break
            offset += copied
    except (AttributeError, OSError):  # no copy_file_range here: copy what is left in blocks
        pass
    dst.seek(0, os.SEEK_END)  # where the kernel's copy ended
    src.seek(offset)
    while offset < end:
        block = src.read(min(1 << 20, end - offset))
        if not block:
            break
        dst.write(block)
        offset += len(block)
    dst.flush()


def _sync(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError:  # early and only a help: the commit syncs the file again, and says why it fails
        pass


def _default(value: object) -> object:
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


_OPTIONS = orjson.OPT_APPEND_NEWLINE | orjson.OPT_SERIALIZE_NUMPY
