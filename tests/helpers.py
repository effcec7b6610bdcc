"""The tests' shared helpers, defined once: repository paths, the optional ../shared/data directory,
the judge's command line as a subprocess (``run_cli``, ``judge_cli``) and in this process
(``cli_in_process``), the headless browser (``chrome``), the skips for optional extras.

Every test folder imports them as ``from helpers import ...``: ``tests/`` is on ``sys.path``
through pyproject's ``[tool.pytest.ini_options] pythonpath``. The fixtures built on them
(``browser``, ``judged_sample``) are in ``tests/conftest.py``; a folder's own fixtures are in
that folder's ``conftest.py``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: the tests' own data: input shapes, team folders (``tests/fixtures``) and golden outputs (``tests/golden``)
FIXTURES = ROOT / "tests" / "fixtures"


SHARED = Path(os.environ.get("CITEJUDGE_SHARED", ROOT.parent / "shared")) / "data"


#: the bundled RAG 2025 sample as the judge's input options
BUNDLED = (
    *("--rag-topics", ROOT / "datasets" / "rag25" / "topics.jsonl", "--rag-responses", ROOT / "runs" / "rag25"),
    *("--corpus", ROOT / "datasets" / "rag25" / "corpus.jsonl"),
)


def track(
    folder: Path,
    topics: str = "topics.jsonl",
    runs: str = "runs",
    corpus: str | None = "segments.jsonl",
    nuggets: str | None = None,
) -> tuple:
    """A track folder's (../shared/data's layout) topics, runs, corpus (none: ``corpus=None``) and nugget
    bank (``nuggets="nuggets.jsonl"``: a nugget track's) as the judge's input options."""
    options = ("--rag-topics", folder / topics, "--rag-responses", folder / runs)
    options += ("--corpus", folder / corpus) if corpus is not None else ()
    return options + (("--nuggets", folder / nuggets) if nuggets is not None else ())


def shared(*parts: str) -> Path:
    """A path under ../shared/data, or skip the test when that data is not present."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not present: {path}")
    return path


def kiddie_options() -> tuple:
    """The citation judge's options for ../shared/data/kiddie (its topics folder and runs, no corpus, the
    python backend), or skip the test when that data is not present."""
    return ("--judge", "citation", *track(shared("kiddie"), topics="topics", corpus=None), "--backend", "python")


DSPY_REASON = "dspy is not installed: LLM attestation needs the attest extra (pip install -e '.[attest]')"


def needs_dspy() -> None:
    """Skip the calling test (or module) unless dspy imports: LLM attestation asks through it."""
    pytest.importorskip("dspy", reason=DSPY_REASON)


DASK_REASON = "--dask needs the dask extra: pip install -e '.[dask]'"
#: a test's mark when it runs ``--dask`` (its fixtures are not built when dask is absent)
needs_dask = pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason=DASK_REASON)


def this_python_first(where: Path) -> dict:
    """An environment whose ``python`` on PATH is this interpreter (``sys.executable``: a venv's,
    not the system's), for a shell script that runs ``python ...``; ``where``: a folder for the link."""
    bin_dir = Path(where) / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    if not (bin_dir / "python").exists():
        (bin_dir / "python").symlink_to(sys.executable)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}


def run_cli(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``python run_judge.py ARGS`` as a real subprocess."""
    return subprocess.run(
        [sys.executable, str(ROOT / "run_judge.py"), *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=1800,  # generous: the real-LLM runs took more than 600 s at load 15-20 (2 cores)
    )


def judge_cli(
    *args, out=None, name=None, ok: bool = True, cwd: Path = ROOT, env: dict | None = None
) -> subprocess.CompletedProcess:
    """The judge's command line ``run_judge.py ARGS`` as a subprocess (:func:`run_cli`), with
    ``--out-dir OUT`` and ``--name NAME`` after ``ARGS`` when given; with ``ok`` it asserts that
    the command exited 0 (its stderr shown when not)."""
    tail = [*(("--out-dir", out) if out is not None else ()), *(("--name", name) if name is not None else ())]
    result = run_cli(*args, *tail, cwd=cwd, env=env)
    if ok:
        assert result.returncode == 0, result.stderr
    return result


def cli_in_process(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    """``run_cli``'s result from the same command line called in this process (no interpreter
    start-up, no imports: a few milliseconds where a subprocess takes a second of CPU).

    For the many bad-input cases that end before judging; each command and each kind of error
    keeps at least one real subprocess (``run_cli``), which alone covers ``judges.startup``'s
    Ctrl-C set-up. Calls the typer app as ``judges.startup`` does, under the program name
    ``run_judge.py``; stdout and stderr are captured, the working directory, the environment
    and the garbage collector's settings (the judge command changes them for its own process)
    are restored. An exception that escapes becomes exit code 1 and its traceback on stderr, as
    in a subprocess.
    """
    import contextlib
    import gc
    import io
    import traceback

    from judges.cli.app import app

    out, err = io.StringIO(), io.StringIO()
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_gc, saved_hook = (gc.isenabled(), gc.get_threshold()), sys.excepthook  # typer sets its own hook
    os.environ.update({k: str(v) for k, v in (env or {}).items()})
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                app(args=[str(a) for a in args], prog_name="run_judge.py")
                code = 0
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except Exception:  # noqa: BLE001 - a subprocess would print it and exit 1
                traceback.print_exc()
                code = 1
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        sys.excepthook = saved_hook
        gc.unfreeze()
        gc.set_threshold(*saved_gc[1])
        (gc.enable if saved_gc[0] else gc.disable)()
    return subprocess.CompletedProcess(["run_judge.py", *map(str, args)], code, out.getvalue(), err.getvalue())


def calibrate_cli(judged: Path, name: str, labels: Path, output: Path, *options, run=None):
    """``calibrate`` fitting the support model on a judged output set (``--assessments JUDGED --name
    NAME``) and ``labels``, into ``output`` (``options``: more of its options): :func:`run_cli`'s result,
    or ``run``'s (:func:`cli_in_process` for an error line)."""
    args = ("calibrate", "--assessments", judged, "--name", name, "--labels", labels, "--output", output, *options)
    return (run or run_cli)(*args)


# -- the browser of the report tests ------------------------------------------------------------------
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def chrome():
    """A headless Chromium driven by Selenium, through the system's chromedriver (nothing is
    downloaded); the calling test skips without selenium, chromium or chromium-driver."""
    pytest.importorskip("selenium", reason="selenium not installed (pip install '.[test]')")
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.skip("chromium and chromium-driver not installed (apt-get install -y chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
    ):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


# -- the bundled sample judged once per worker -------------------------------------------------------
#: the name the shared judged sample's outputs carry (``SAMPLE_NAME.assessments.parquet``, ...)
SAMPLE_NAME = "a"


def copy_judged(judged: Path, dest: Path) -> Path:
    """A copy of a judged output directory (:func:`judged_sample`) in ``dest``, for a test that
    writes beside its outputs; returns ``dest``."""
    shutil.copytree(judged, dest, dirs_exist_ok=True)
    return dest


def base_args(tmp_path, *runs) -> list:
    """The judge's options for the DRAGUN sample (or ``runs``), python backend, named ``t``, into ``tmp_path/out``."""
    return [
        "--judge",
        "citation",
        "--rag-topics",
        ROOT / "datasets" / "dragun" / "topics.jsonl",
        "--rag-responses",
        *(runs or [ROOT / "runs" / "dragun"]),
        "--out-dir",
        tmp_path / "out",
        "--name",
        "t",
        "--backend",
        "python",
    ]


# -- a real CLI process paused at a chosen point ---------------------------------------------------
# A hook stops the process at the point a test chose and creates a file there: the test waits for
# that file (the event itself, never a time window), then signals it or runs a second process.
EVENT_LIMIT_S = 600  # a process that never reaches its pause is a failure, however loaded the machine

# Runs the command line as run_judge.py does, after a patch that stops the process (until a signal)
# at the point the test chose, creating the file MARKER there first.
HOOKED = """
import signal, sys, time
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
sys.argv = ["run_judge.py", *sys.argv[1:]]
MARKER = %(marker)r

def pause():
    open(MARKER, "w").close()
    while True:
        time.sleep(0.05)

%(patch)s
from judges.startup import main
main()
"""


def default_sigint() -> None:
    """A child's ``preexec_fn``: it gets Ctrl-C as a terminal would deliver it, even when the suite itself
    runs as a background job (which starts with SIGINT ignored, inherited by every child; the judge
    leaves an ignored SIGINT ignored, so a test's SIGINT would never end it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def paused(tmp_path: Path, patch: str, *args) -> tuple[subprocess.Popen, Path]:
    """A real CLI process started with ``patch``; returns once it is paused there (the process and
    its marker)."""
    marker = tmp_path / f"paused-{len(list(tmp_path.glob('paused-*')))}"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOOKED % {"marker": str(marker), "patch": patch}, *map(str, args)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=default_sigint,
    )
    deadline = time.monotonic() + EVENT_LIMIT_S
    while not marker.exists():
        if proc.poll() is not None:
            pytest.fail(f"ended before its pause: {proc.returncode} {proc.stderr.read()}")
        assert time.monotonic() < deadline, "never reached its pause"
        time.sleep(0.01)
    return proc, marker


def ended(proc: subprocess.Popen) -> tuple[int, list[str]]:
    """A :func:`paused` process's exit code and stderr lines once it has ended."""
    _, stderr = proc.communicate(timeout=EVENT_LIMIT_S)
    return proc.returncode, stderr.strip().splitlines()
