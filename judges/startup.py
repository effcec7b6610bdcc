"""The way in of ``run_judge.py``, ``python -m judges`` and ``citejudge``, before anything heavy is
imported: Ctrl-C at any moment is one line and exit code 130, never a traceback, and SIGTERM the
same with exit code 143 (the signals' states: :mod:`judges.core.process`).

Importing the command line (typer, rich, pyarrow...) takes a few tenths of a second. Until a
command starts, Ctrl-C ends the process at once with one line (nothing has been written yet);
from then on it raises ``KeyboardInterrupt`` again, which the judge and ``merge`` turn into their
own line (whether the outputs were replaced) and :class:`judges.cli.app.Commands` into one line for
any other command. A SIGINT ignored from the start (a background job's) stays ignored.
"""

from __future__ import annotations

from judges.core.process import early, finished


def main() -> None:
    early()
    from judges.cli.app import run

    try:
        run()
    finally:
        finished()
