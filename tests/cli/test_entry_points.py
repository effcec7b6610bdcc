"""The ways in: ``run_judge.py``, ``python -m judges`` and ``citejudge`` are one program; a first word
that is no command is named with the commands; ``--version``; attestation without dspy says what
to install; ``judges.read_leaderboard`` reads the text leaderboard as well as the Parquet one."""

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from helpers import ROOT, base_args, cli_in_process, run_cli  # base_args: the DRAGUN sample, python backend, name t

import judges


def test_version_from_every_entry_point():
    expected = f"citejudge {judges.__version__}"
    assert run_cli("--version").stdout.strip() == expected
    module = subprocess.run(
        [sys.executable, "-m", "judges", "-V"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert module.returncode == 0 and module.stdout.strip() == expected
    # this interpreter's console script (a venv's is not on PATH unless activated; PATH's may be another
    # environment's), importing this checkout's judges as the other entry points do
    script = Path(sysconfig.get_path("scripts")) / "citejudge"
    if not script.exists():
        pytest.skip(f"the citejudge console script is not installed beside this interpreter ({script.parent})")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([script, "--version"], capture_output=True, text=True, timeout=120, env=env)
    assert done.stdout.strip() == expected, done.stderr


def test_python_m_judges_judges_like_run_judge(tmp_path):
    via_script = run_cli(*base_args(tmp_path / "a"))
    via_module = subprocess.run(
        [sys.executable, "-m", "judges", *map(str, base_args(tmp_path / "b"))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert via_script.returncode == 0 and via_module.returncode == 0, via_module.stderr
    for suffix in ("qrels", "leaderboard.txt"):
        assert (tmp_path / "a" / "out" / f"t.{suffix}").read_bytes() == (
            tmp_path / "b" / "out" / f"t.{suffix}"
        ).read_bytes()


@pytest.mark.parametrize(
    "word, hint, run",
    [
        ("meta-evalute", "did you mean 'meta-evaluate'?", run_cli),  # one real process; the rest in this one
        ("calibrat", "did you mean 'calibrate'?", cli_in_process),
        (
            "frobnicate",
            "commands: report, merge, check-answer, corpus, attest, create-nuggets, meta-evaluate",
            cli_in_process,
        ),
    ],
)
def test_a_misspelled_command_is_named_with_the_commands(word, hint, run):
    result = run(word, "--truth", "x.txt")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: unknown command {word!r}") and hint in lines[0], (
        result.stderr
    )


def test_attestation_needs_no_dspy(tmp_path):
    """The questions are stored templates: an environment without dspy asks the LLM as one with it
    (here an endpoint that answers nothing: the session ends, the LLM unchecked and not used)."""
    code = (
        "import sys; sys.modules['dspy'] = None; from judges.cli.app import run; "  # an environment without dspy
        f"sys.argv = ['run_judge.py'] + {[str(a) for a in base_args(tmp_path)]!r} + "
        "['--attest', 'all', '--use-env-llm']; run()"
    )
    env = {
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
        "OPENAI_MODEL": "m",
        "OPENAI_API_KEY": "k",
        "PATH": "/usr/bin:/bin",
    }
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env
    )
    assert result.returncode == 0, result.stderr
    assert "dspy" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert "the LLM is unchecked" in result.stderr
    assert (tmp_path / "out" / "t.qrels").exists()


def test_read_leaderboard_reads_the_text_file_and_the_table_alike(tmp_path):
    assert run_cli(*base_args(tmp_path)).returncode == 0
    out = tmp_path / "out"
    table = judges.read_leaderboard(out, "t").sort_values(["run_id", "topic_id", "measure"]).reset_index(drop=True)
    text = (
        judges.read_leaderboard(out / "t.leaderboard.txt")
        .sort_values(["run_id", "topic_id", "measure"])
        .reset_index(drop=True)
    )
    assert list(text.columns) == ["run_id", "topic_id", "measure", "value"]
    assert (text[["run_id", "topic_id", "measure"]] == table[["run_id", "topic_id", "measure"]]).all().all()
    assert (abs(text["value"] - table["value"]) <= 5e-5).all()  # the text file has 4 decimals


def test_a_judge_process_skips_pandas_and_collects_garbage_after_start_up(tmp_path):
    """pandas costs about 0.15 s of start-up and the judge has no use for it (its tables are
    Arrow); the collector, off during start-up, is on again with the start-up objects frozen."""
    code = (
        "import atexit, gc, runpy, sys\n"
        "atexit.register(lambda: print('imported:', 'pyarrow' in sys.modules, 'pandas' in sys.modules))\n"
        "atexit.register(lambda: print('gc:', gc.isenabled(), gc.get_threshold()[0], gc.get_freeze_count() > 10000))\n"
        "sys.argv = sys.argv[1:]\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n"
    )
    args = [sys.executable, "-c", code, str(ROOT / "run_judge.py"), *map(str, base_args(tmp_path))]
    result = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    from judges.core.process import GC_YOUNGEST

    assert result.stdout.splitlines()[-2:] == [f"gc: True {GC_YOUNGEST} True", "imported: True False"]
    assert (tmp_path / "out" / "t.assessments.parquet").exists()


def test_pyarrow_still_gives_dataframes_after_arrow_without_pandas():
    code = (
        "import sys, pyarrow as pa\n"
        "from judges.core.process import arrow_without_pandas\n"
        "arrow_without_pandas()\n"
        "assert 'pandas' not in sys.modules\n"
        "table = pa.table({'a': ['x', None], 'b': [1, 2]})\n"
        "frame = table.to_pandas()\n"
        "assert 'pandas' in sys.modules and frame.shape == (2, 2) and frame['b'].tolist() == [1, 2]\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_help_names_the_program_as_it_was_invoked(tmp_path):
    """``citejudge report --help`` says ``Usage: citejudge report``, not ``run_judge.py``."""
    script = tmp_path / "citejudge"  # what the console script runs, under its name
    script.write_text(f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nfrom judges.cli.app import run\nrun()\n")
    for args, usage in (
        (["report", "--help"], "Usage: citejudge report [OPTIONS]"),
        (["corpus", "index", "--help"], "Usage: citejudge corpus index [OPTIONS]"),
        (["agreement", "--help"], "Usage: citejudge agreement [OPTIONS]"),
        (["--help"], "Usage: citejudge [OPTIONS] [COMMAND [ARGS]...]"),
    ):
        result = subprocess.run([sys.executable, script, *args], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0 and result.stdout.startswith(usage), result.stdout + result.stderr
    module = subprocess.run(
        [sys.executable, "-m", "judges", "report", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert module.stdout.startswith("Usage: python -m judges report [OPTIONS]"), module.stdout


def test_judge_options_before_a_command_are_refused(tmp_path):
    result = run_cli("--rag-topics", "t.jsonl", "report", tmp_path)
    assert result.returncode == 2
    assert (
        "Error: --rag-topics is an option of judging (without a command), not of 'report': "
        "see run_judge.py report --help" in result.stderr
    )
    assert not list(tmp_path.iterdir())


def test_without_a_command_or_runs_the_judge_asks_for_rag_responses():
    result = run_cli()
    assert result.returncode == 2 and result.stderr.endswith("Error: Missing option '--rag-responses'.\n")


def test_the_command_line_called_in_process_answers_as_the_real_one(tmp_path):
    """helpers.cli_in_process, which runs most bad-input cases, gives what a real process gives
    (exit code, stdout, stderr, the program's name in a usage error) and leaves the test process's
    working directory and garbage collector as they were."""
    import gc
    import os

    cwd = os.getcwd()
    for args in (
        ("--rag-responses", tmp_path / "nope", "--out-dir", tmp_path / "out"),  # the program's own error line
        ("--rag-responses", tmp_path, "--no-such-option"),  # click's usage error
    ):
        real, here = run_cli(*args), cli_in_process(*args, cwd=tmp_path)
        assert real.returncode == here.returncode == 2, (real.stderr, here.stderr)
        assert (here.stdout, here.stderr) == (real.stdout, real.stderr)
        assert os.getcwd() == cwd and gc.isenabled()
    assert not (tmp_path / "out").exists()
