"""The fixtures every test folder shares: the browser of the report tests and the bundled sample
judged once per worker. The helpers they use are in ``tests/helpers.py`` (``from helpers import ...``);
a folder's own fixtures are in that folder's ``conftest.py``."""

from __future__ import annotations

import os

# One BLAS/OpenMP thread per test process: the suite runs one worker per core (xdist), and threaded
# BLAS on top of that oversubscribes the cores (restricted_likelihood ran 8x slower on a busy
# 2-core machine). Set before numpy is first imported; CLI subprocesses inherit it.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from helpers import BUNDLED, ROOT, SAMPLE_NAME, calibrate_cli, chrome, judge_cli, shared, track  # noqa: E402


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


@pytest.fixture(scope="module")
def browser():
    """One browser per test module (:func:`chrome`), quit after its last test."""
    driver = chrome()
    yield driver
    driver.quit()


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


@pytest.fixture(scope="session")
def judged_rag24_support(tmp_path_factory) -> Path:
    """../shared/data/rag24-support (topics, runs, segments; skipped when absent) judged once per worker
    with the default workflow, its outputs named ``r24``: a real CLI run, shared by the tests that
    calibrate on it, report on it or compare another run with it. Read it, never write into it
    (:func:`helpers.copy_judged` for a test that writes beside it)."""
    data = shared("rag24-support")
    out = tmp_path_factory.mktemp("judged-rag24-support")
    judge_cli(*track(data), out=out, name="r24")
    return out


@pytest.fixture(scope="session")
def calibrated_rag24_support(judged_rag24_support, tmp_path_factory) -> tuple[Path, str]:
    """The support model ``calibrate`` fits on :func:`judged_rag24_support` and rag24-support's labels
    (``--data rag24-support``), once per worker: (the model file, calibrate's stdout). Read only."""
    model = tmp_path_factory.mktemp("calibrated-rag24-support") / "model.json"
    labels = shared("rag24-support", "labels.jsonl")
    done = calibrate_cli(judged_rag24_support, "r24", labels, model, "--data", "rag24-support")
    assert done.returncode == 0, done.stderr
    return model, done.stdout


@pytest.fixture(scope="session")
def judged_rag24_mini(tmp_path_factory) -> tuple[Path, str]:
    """The bundled real TREC 2024 RAG runs (datasets/rag24-mini) judged once per worker with the default
    workflow, outputs named ``M``: (the output folder, the judge's stdout). Read only."""
    out = tmp_path_factory.mktemp("judged-rag24-mini")
    return out, judge_cli(*track(ROOT / "datasets" / "rag24-mini"), out=out, name="M").stdout
