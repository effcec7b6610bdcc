"""How a process that judges is set up: what it does not import, and how it collects garbage.

Only the judge command, ``check-answer`` and the worker processes call these (and
:func:`judges.engine.judge.warmup` :func:`numba_without_scipy_blas`, which changes no result); a library
user's process (a notebook, a test) keeps its own settings.
"""

from __future__ import annotations

import gc
import os
import signal
import sys

GC_YOUNGEST = 10_000  # allocations between collections of the youngest generation (Python's default: 700)


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` is running (this one is; another user's counts: it cannot be signalled,
    but it lives). The leftovers of an output set or a swapped directory name the process that made them."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def arrow_without_pandas() -> None:
    """Let pyarrow build arrays from Python lists without importing pandas (0.15 s of a judge run).

    The first time pyarrow converts a list it asks whether pandas is installed, to recognise
    pandas objects, and answering imports pandas. A process that never gives pyarrow a pandas
    object (the judge command, a worker process) makes that question fail once, with the import
    of pandas refused for that moment; pyarrow converts lists exactly as before. Asking pyarrow
    for a DataFrame later still imports pandas. Nothing changes where pandas is already imported.
    """
    if "pandas" in sys.modules:
        return
    import pyarrow as pa

    sys.meta_path.insert(0, _REFUSE_PANDAS)
    try:
        pa.array([0])
    finally:
        sys.meta_path.remove(_REFUSE_PANDAS)


class _RefusePandas:
    """An import finder that refuses ``pandas`` (see :func:`arrow_without_pandas`)."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "pandas":
            raise ImportError("pandas is not imported by this process")
        return None


_REFUSE_PANDAS = _RefusePandas()


def numba_without_scipy_blas() -> None:
    """Import Numba's NumPy support without importing scipy.linalg (0.15 s of a run's start-up).

    ``numba.np.arraymath`` asks at import whether scipy's BLAS is there (``_HAVE_BLAS``, which
    only chooses how ``np.correlate``/``np.convolve`` are compiled), and answering imports all of
    scipy.linalg. No kernel here uses BLAS: the question is made to fail (the module is marked
    missing for the moment of that import), so Numba uses its own loops. Nothing changes when
    either module is already imported.
    """
    blas = "scipy.linalg.cython_blas"
    if "numba.np.arraymath" in sys.modules or blas in sys.modules:
        return
    sys.modules[blas] = None  # type: ignore[assignment]  # `import` raises ImportError
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        del sys.modules[blas]


def quiet_collector() -> None:
    """No garbage collection while modules are imported and kernels loaded: what they make
    lives as long as the process (:func:`settle_collector` ends this)."""
    gc.disable()


def settle_collector() -> None:
    """Before judging: the objects made so far are frozen out of the collector's sight
    (``gc.freeze``), and the youngest generation is collected every ``GC_YOUNGEST``
    allocations instead of 700. Judging makes many short-lived objects and few reference cycles,
    and each collection used to walk the hundreds of thousands of objects imports and kernels
    left: 0.4 s of a 3.3 s run on the segments workload (bench/compare.py)."""
    gc.freeze()
    gc.set_threshold(GC_YOUNGEST, 10, 10)
    gc.enable()


def return_freed_memory() -> None:
    """Give the memory freed so far back to the system (glibc keeps freed blocks for reuse).

    Called once the documents are judged: the hundreds of megabytes a large track's took
    would otherwise stay counted against the process while it writes the outputs. Collects
    first (the collector runs rarely in a judge process). Does nothing where the C library is
    not glibc.
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return
    gc.collect()
    trim(0)


# Ctrl-C and SIGTERM, from the way in (judges.startup) to the end of the program's command
# (judges.cli.app.Commands): one line and exit code 130 (SIGTERM: 143) at any moment, never a
# traceback, never an end without a word.
INTERRUPTED = 130  # 128 + SIGINT


class Terminated(KeyboardInterrupt):
    """SIGTERM during a command: raised as Ctrl-C's ``KeyboardInterrupt`` is, so the command
    cleans up the same way; ``signum`` gives the exit code (128 + 15)."""

    def __init__(self, signum: int = signal.SIGTERM):
        super().__init__()
        self.signum = signum


def _interrupted(signum, frame) -> None:
    os.write(2, b"interrupted: nothing was written\n")
    os._exit(128 + signum)


def _terminated(signum, frame) -> None:
    raise Terminated(signum)


def early() -> None:
    """Until :func:`started`: Ctrl-C or SIGTERM ends the process with one line (``run_judge.py``
    holds SIGINT back from its first line until here: a Ctrl-C meanwhile is delivered now)."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupted)
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _interrupted)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def started() -> bool:
    """A command starts: Ctrl-C raises ``KeyboardInterrupt`` and SIGTERM :class:`Terminated` (the
    command cleans up, says what it did). Whether this is the program's command (not the command
    line called as a library)."""
    program = False
    if signal.getsignal(signal.SIGTERM) is _interrupted:
        signal.signal(signal.SIGTERM, _terminated)
        program = True
    if signal.getsignal(signal.SIGINT) is _interrupted:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        program = True
    return program


def finished() -> None:
    """The program's command is done: a Ctrl-C from here on finds nothing to interrupt (ignored:
    else the interpreter's own exit, which puts back the default action, would end by the signal,
    silently, whichever of the process's threads it reaches); a SIGTERM ends the process at once
    with the default action (there is nothing left to clean)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if signal.getsignal(signal.SIGTERM) in (_terminated, _interrupted):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
