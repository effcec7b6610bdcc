"""The manual (mkdocs.yml, docs/): it builds with ``mkdocs build --strict`` (no warning, no broken link or
anchor), its generated reference names every command and option of the CLI, every measure of the
registry, every output file, every workflow key and every name of ``judges.__all__``, and its pages
render in a browser, served on loopback."""

from __future__ import annotations

import functools
import html
import http.server
import importlib.util
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from helpers import ROOT


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    for module, package in (("mkdocs", "mkdocs"), ("material", "mkdocs-material"), ("mkdocstrings", "mkdocstrings")):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{package} is not installed (pip install -e '.[docs]')")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={"NO_MKDOCS_2_WARNING": "1", **__import__("os").environ},
    )
    assert done.returncode == 0, done.stderr[-4000:]
    warnings = [line for line in done.stderr.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert warnings == []
    return out


def text_of(site: Path, page: str) -> str:
    """The words of a built page, tags dropped and entities decoded."""
    raw = (site / page / "index.html").read_text(encoding="utf-8")
    return html.unescape(re.sub(r"<[^>]+>", "", raw))


def test_the_site_builds_strictly_with_every_page_of_the_nav(site):
    import yaml

    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]

    def pages(entry):
        if isinstance(entry, str):
            yield entry
        elif isinstance(entry, dict):
            for value in entry.values():
                yield from pages(value)
        else:
            for item in entry:
                yield from pages(item)

    listed = set(pages(nav))
    on_disk = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert on_disk - listed == set(), "a page not in mkdocs.yml's nav"
    for page in listed:
        built = site / (page[: -len(".md")] + "/index.html" if not page.endswith("index.md") else page[:-3] + ".html")
        assert built.is_file(), page


def test_the_cli_reference_names_every_command_and_option(site):
    import typer

    from judges.cli.app import app

    text = text_of(site, "reference/cli")
    missing = []

    def walk(command, path):
        for param in command.params:
            names = [*getattr(param, "opts", []), *getattr(param, "secondary_opts", [])]
            for name in names if names and names[0].startswith("-") else [param.name]:
                if name not in text:
                    missing.append(f"{' '.join(path) or 'judge'}: {name}")
            help_text = " ".join((getattr(param, "help", None) or "").split())
            if help_text and help_text[:60] not in " ".join(text.split()):
                missing.append(f"{' '.join(path) or 'judge'}: {names}'s help")
        for name, sub in getattr(command, "commands", {}).items():
            if " ".join([*path, name]) not in text:
                missing.append(" ".join([*path, name]))
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    assert missing == []
    assert "--rag-responses" in text and "corpus index" in text and "attest export" in text  # the walk sees them


def test_the_measures_reference_is_the_registry(site):
    from judges.core.measures import REGISTRY, markdown_table

    text = " ".join(text_of(site, "reference/measures").split())
    assert [m for m in REGISTRY if m not in text] == []
    for m in REGISTRY.values():
        assert " ".join(m.description.replace("`", "").split())[:50] in text.replace("`", ""), m.name
    source = (ROOT / "docs" / "reference" / "measures.md").read_text(encoding="utf-8")
    assert "<!-- generate: measures -->" in source and "| measure | definition |" not in source  # not pasted
    assert markdown_table().splitlines()[0] == "| measure | definition |"  # what the hook puts in


def test_the_output_files_reference_names_every_file_and_column(site):
    from judges.formats import outputset, tables
    from judges.scores import intervals
    from judges.session import nuggets

    text = text_of(site, "reference/output-files")
    assert [f.suffix for f in outputset.FILES if f"NAME.{f.suffix}" not in text] == []
    for schema in (tables.ASSESSMENT_SCHEMA, tables.LEADERBOARD_SCHEMA, intervals.INTERVAL_SCHEMA, nuggets.SCHEMA):
        assert [c for c in schema.names if c not in text] == []
    assert "the verdict in words" in text  # a column's comment in judges/formats/tables.py


def test_the_workflow_and_api_references_name_every_key_and_name(site):
    from pydantic import BaseModel

    import judges
    from judges.core.config import Workflow

    text = text_of(site, "reference/workflow")
    keys = [
        f"{name}.{key}"
        for name, field in Workflow.model_fields.items()
        if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel)
        for key in field.annotation.model_fields
    ]
    assert len(keys) > 40 and [k for k in keys if k not in text] == []
    api = text_of(site, "reference/api")
    assert [n for n in judges.__all__ if f"judges.{n}" not in api] == []
    assert "Judge one answer against its sources" in " ".join(api.split())  # mkdocstrings rendered the docstring
    assert ":func:" not in api  # the docstrings' Sphinx roles shown as the name alone


def test_every_command_in_the_manual_is_one_the_cli_takes():
    """Each ``run_judge.py [COMMAND ...] --option`` line of the README and the pages (code blocks and inline
    code) names a command the CLI has and options that command takes: a renamed option cannot stay quoted."""
    import typer

    from judges.cli.app import app

    root = typer.main.get_command(app)
    texts = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    wrong, seen = [], 0
    for path in texts:
        text = path.read_text(encoding="utf-8")
        chunks = re.findall(r"```(?:bash|text)?\n(.*?)```", text, re.S)
        chunks += re.findall(r"`([^`\n]*run_judge\.py[^`\n]*)`", text)
        for line in (ln for chunk in chunks for ln in chunk.replace("\\\n", " ").splitlines() if "run_judge.py" in ln):
            seen += 1
            words, command, path_ = line.split("run_judge.py", 1)[1].split(), root, []
            while words and words[0] in getattr(command, "commands", {}):
                command = command.commands[words[0]]
                path_.append(words.pop(0))
            options = {o for p in command.params for o in (*getattr(p, "opts", []), *getattr(p, "secondary_opts", []))}
            for word in words:
                flag = word.split("=")[0].rstrip(",;:)")
                if flag.startswith("--") and flag not in options | {"--help"}:
                    wrong.append(f"{path.relative_to(ROOT)}: run_judge.py {' '.join(path_)} {flag}")
    assert seen > 40 and wrong == []


@pytest.fixture(scope="module")
def served(site):
    """The built site on 127.0.0.1, a free port, in a thread; shut down after the module's tests."""
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


def test_pages_render_in_a_browser(served, tmp_path):
    """The home page, a guide, a generated reference page and a results page, opened in headless Chromium:
    each has its heading and is no 404; a screenshot of each is saved (tmp_path/shots)."""
    from helpers import chrome

    driver = chrome()
    shots = tmp_path / "shots"
    shots.mkdir()
    try:
        for page, heading in (
            ("", "citejudge"),
            ("guides/scale-out/", "Scale out"),
            ("reference/cli/", "Command line"),
            ("results/agreement/", "Results: agreement"),
        ):
            driver.get(f"{served}/{page}")
            title = driver.find_element("css selector", "article h1").text
            assert title.startswith(heading), (page, title)
            assert "404" not in driver.title and "not found" not in driver.page_source.lower()[:2000]
            assert driver.find_element("css selector", "nav.md-tabs").is_displayed()  # the theme loaded
            name = (page.strip("/").replace("/", "-") or "home") + ".png"
            driver.save_screenshot(str(shots / name))
            assert (shots / name).stat().st_size > 10_000
        driver.get(f"{served}/no/such/page/")
        assert "404" in driver.page_source
    finally:
        driver.quit()
