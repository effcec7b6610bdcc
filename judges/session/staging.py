"""One session's debug log and output set, opened, committed and closed in one order
(:class:`Staged`): a whole session (:func:`judges.session.pipeline.carry_out`), a topic shard's
partial set and the merge of the shards (:mod:`judges.session.shards`) all stage them by it."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Optional

from judges.core.process import return_freed_memory
from judges.formats.debuglog import DebugLog
from judges.formats.outset import Interrupted, OutputSet


class Staged(contextlib.ExitStack):
    """A session's debug log and output set, as an exit stack (worker processes started on it stop
    with it), in this order:

    - entered: the debug log, its events kept in memory until the set is open when it is written
      (``log_path``; else none are kept); a merge (``set_first``) opens the set at once instead;
    - :meth:`open_set` (once the inputs are read: nothing is created before): the out-dir
      created, locked and recovered, the staging directory made, the log staged in it (or, without
      a log, ``stale_log``, the previous set's, removed with the set);
    - :meth:`judged`: the judged citations' events on their way to disk while the outputs are
      built, the judged documents' memory given back;
    - exited (the writer has committed the set and closed the log): the set's lock released and its
      staging directory removed, then the log closed; a KeyboardInterrupt (or a signal made one)
      comes out as :class:`judges.formats.outset.Interrupted`, saying whether the set was committed
      (without a set, as it was).
    """

    def __init__(
        self,
        outset: Optional[OutputSet],
        log_path: Optional[Path],
        *,
        stale_log: Optional[Path] = None,
        set_first: bool = False,
    ) -> None:
        super().__init__()
        self.outset, self.log_path, self.stale_log, self.set_first = outset, log_path, stale_log, set_first
        self.log = DebugLog(None)

    def __enter__(self) -> "Staged":
        super().__enter__()
        if self.set_first:
            self.open_set()
        else:
            self.log = DebugLog.deferred() if self.log_path is not None else DebugLog(None)
            self.push(self.log.ended)
        return self

    def open_set(self) -> OutputSet:
        """Open the output set (creates and locks the out-dir, recovers it, makes the staging
        directory) and stage the debug log in it; the set."""
        outset = self.outset
        assert outset is not None, "a session without outputs opens no set"
        self.enter_context(outset)
        if self.set_first:  # the log closes before the set's staging directory is removed
            self.log = DebugLog(None)
            self.push(self.log.ended)
        if self.log_path is not None:
            self.log.start(outset.stage(self.log_path))
        elif self.stale_log is not None:  # --no-debug-log: the previous set's log goes with it
            outset.remove(self.stale_log)
        return outset

    def judged(self) -> None:
        """The judging is done: its events go to disk (a durable set) while the outputs are
        written, and the judged documents' memory goes back before they are built."""
        if self.outset is not None and self.outset.durable:
            self.log.sync_soon()
        return_freed_memory()

    def __exit__(self, kind, exc, tb) -> bool:
        try:
            suppressed = super().__exit__(kind, exc, tb)
        except KeyboardInterrupt as e:
            if self.outset is None:
                raise
            raise Interrupted(self.outset.committed, getattr(e, "signum", 2)) from None
        if isinstance(exc, KeyboardInterrupt) and not suppressed and self.outset is not None:
            raise Interrupted(self.outset.committed, getattr(exc, "signum", 2)) from None
        return bool(suppressed)
