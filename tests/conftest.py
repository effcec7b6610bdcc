"""Shared fixtures: repository paths and the optional ../shared/data directory."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

# One BLAS/OpenMP thread per test process: the suite runs one worker per core (xdist), and threaded
# BLAS on top of that oversubscribes the cores (restricted_likelihood ran 8x slower on a busy
# 2-core machine). Set before numpy is first imported; CLI subprocesses inherit it.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config) -> None:
    """Under pytest-xdist, compile (or load) the Numba kernels once in the controlling process
    before the workers start: from a fresh clone each worker's first CLI subprocesses would
    otherwise all compile them at the same time (30-90 CPU seconds each under load) before one
    of them has written the cache (``cache=True``, beside the kernels) that the others read."""
    if hasattr(config, "workerinput") or getattr(config.option, "dist", "no") == "no" or config.option.collectonly:
        return
    from judges.core.config import load_workflow
    from judges.session.pipeline import prepare

    prepare(load_workflow(None))


SHARED = Path(os.environ.get("CITEJUDGE_SHARED", ROOT.parent / "shared")) / "data"


#: the bundled RAG 2025 sample as the judge's input options
BUNDLED = (
    *("--rag-topics", ROOT / "datasets" / "rag25" / "topics.jsonl", "--rag-responses", ROOT / "runs" / "rag25"),
    *("--corpus", ROOT / "datasets" / "rag25" / "corpus.jsonl"),
)


def track(folder: Path, topics: str = "topics.jsonl", runs: str = "runs", corpus: str = "segments.jsonl") -> tuple:
    """A track folder's (../shared/data's layout) topics, runs and corpus as the judge's input options."""
    return ("--rag-topics", folder / topics, "--rag-responses", folder / runs, "--corpus", folder / corpus)


def shared(*parts: str) -> Path:
    """A path under ../shared/data, or skip the test when that data is not present."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not present: {path}")
    return path


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


@pytest.fixture(scope="module")
def browser():
    """One browser per test module (:func:`chrome`), quit after its last test."""
    driver = chrome()
    yield driver
    driver.quit()


# -- the bundled sample judged once per worker -------------------------------------------------------
#: the name the shared judged sample's outputs carry (``SAMPLE_NAME.assessments.parquet``, ...)
SAMPLE_NAME = "a"


@pytest.fixture(scope="session")
def judged_sample(tmp_path_factory) -> Path:
    """The bundled RAG 2025 sample (:data:`BUNDLED`) judged once per worker process with the default
    workflow, its outputs named :data:`SAMPLE_NAME`: a real CLI run (``judge_cli``), shared by every
    test that reads a judged sample instead of judging it again. Read it, never write into it; a test
    that writes beside the outputs (plan-assessments, a second judge run) takes a copy first
    (:func:`copy_judged`)."""
    out = tmp_path_factory.mktemp("judged-sample")
    judge_cli(*BUNDLED, out=out, name=SAMPLE_NAME)
    return out


def copy_judged(judged: Path, dest: Path) -> Path:
    """A copy of a judged output directory (:func:`judged_sample`) in ``dest``, for a test that
    writes beside its outputs; returns ``dest``."""
    shutil.copytree(judged, dest, dirs_exist_ok=True)
    return dest
