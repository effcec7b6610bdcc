"""The command line's two consoles and the one way every command prints a line.

``out`` (stdout) carries the results, ``err`` (stderr) warnings, errors and progress. Neither
reads console markup or highlights: run ids, measure names and paths are shown as written
(``[x]`` is not a style). On a terminal a table is as wide as the terminal; elsewhere (a pipe, a
log file, CI) as wide as its content, so that a long TREC run id or a path is never broken over
lines (a console that is not a terminal would otherwise be 80 columns wide).
"""

from __future__ import annotations

import sys
from typing import Optional

import typer
from rich.console import Console

#: The width of a console that is not a terminal: wide enough for any table's content.
UNLIMITED = 100_000


def _console(stderr: bool) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    terminal = stream is not None and stream.isatty()
    return Console(stderr=stderr, markup=False, highlight=False, width=None if terminal else UNLIMITED)


out = _console(stderr=False)
err = _console(stderr=True)


def say(message: str, console: Console = out) -> None:
    """Print ``message`` as written: no markup, no highlighting, and a line never wrapped."""
    console.print(message, markup=False, highlight=False, soft_wrap=True)


def show(table, console: Console = out) -> None:
    """Print a rich table; not on a terminal, without the spaces that pad its lines to its width."""
    if console.is_terminal:
        console.print(table)
        return
    with console.capture() as captured:
        console.print(table)
    console.file.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))


def warn(message: str) -> None:
    """``warning: message`` on stderr, one line."""
    say(f"warning: {message}", err)


def error(message: str) -> None:
    """``error: message`` on stderr, one line (the caller exits with code 2)."""
    say(f"error: {message}", err)


def fail(message: str) -> typer.Exit:
    """Print ``error: message`` as one line; returns the exit (code 2) for the caller to raise."""
    error(message)
    return typer.Exit(2)


def advancing(bar, task):
    """A session's ``progress(n, total=None)`` shown on ``task`` of ``bar`` (:func:`progress_bar`):
    ``total`` sets its length, ``n`` advances it."""

    def progress(n: int, total: Optional[int] = None) -> None:
        if total is not None:
            bar.update(task, total=total)
        bar.advance(task, n)

    return progress


def progress_bar(title: str, count):
    """A progress bar on stderr (``title``, bar, ``count`` column, elapsed and remaining time),
    shown only on a terminal and gone when done."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    return Progress(
        TextColumn(title),
        BarColumn(),
        count,
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )
