"""The way in of ``run_judge.py``, ``python -m judges`` and ``citejudge``, before anything heavy is
imported: Ctrl-C at any moment is one line and exit code 130, never a traceback.

Importing the command line (typer, rich, pyarrow...) takes a few tenths of a second. Until a
command starts, Ctrl-C ends the process at once with one line (nothing has been written yet);
from then on it raises ``KeyboardInterrupt`` again, which the judge and ``merge`` turn into their
own line (whether the outputs were replaced) and :class:`judges.cli.Commands` into one line for
any other command. A SIGINT ignored from the start (a background job's) stays ignored.
"""

from __future__ import annotations

import os
import signal

INTERRUPTED = 130  # 128 + SIGINT


def _interrupted(signum, frame) -> None:
    os.write(2, b"interrupted: nothing was written\n")
    os._exit(128 + signum)


def early() -> None:
    """Until :func:`started`: Ctrl-C ends the process with one line (``run_judge.py`` holds SIGINT
    back from its first line until here: a Ctrl-C meanwhile is delivered now)."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupted)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def started() -> bool:
    """A command starts: Ctrl-C raises ``KeyboardInterrupt`` (the command cleans up, says what it
    did). Whether this is the program's command (not the command line called as a library)."""
    if signal.getsignal(signal.SIGINT) is _interrupted:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        return True
    return False


def finished() -> None:
    """The program's command is done: a Ctrl-C from here on finds nothing to interrupt (ignored:
    else the interpreter's own exit, which puts back the default action, would end by the signal,
    silently, whichever of the process's threads it reaches)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def main() -> None:
    early()
    from judges.cli import run

    try:
        run()
    finally:
        finished()
