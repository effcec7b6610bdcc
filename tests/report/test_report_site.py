"""The report as a person meets it (issue 32), through the CLI and a real headless Chromium:
cross-language (NeuCLIR-shaped) output, links to pages that exist, inputs given as relative
paths, pages that fit the window, rank columns, assessors' labels; and the report's structure
(short functions, Jinja2 templates, static files as package data, colours from the vocabulary)."""

from __future__ import annotations

import ast
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from helpers import ROOT, judge_cli, run_cli, shared

import judges
from judges.core.vocabulary import STATUS_COLOUR, STATUS_TINT, STATUSES

SAMPLE = [
    "--rag-topics", "datasets/rag25/topics.jsonl", "--rag-responses", "runs/rag25",
    "--corpus", "datasets/rag25/corpus.jsonl", "--workflow", "workflows/citation.yml",
]  # fmt: skip
LABELLED = ("teamR-run-a", "rag25-01", 4, "msmarco_v2.1_doc_31_77420#2_160388")  # judged unsupported


# -- a crawler: every relative href and src of the site, followed from index.html ----------------
class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.links += [v for k, v in attrs if k in ("href", "src") and v is not None]


def crawl(root: Path) -> tuple[list, set]:
    """(broken links as (page, link), the pages reached) from ``root/index.html``; the links the
    run pages' script builds (``data/rI.js`` rows) are followed too."""
    broken, seen, todo = [], set(), [root / "index.html"]
    while todo:
        page = todo.pop()
        if page in seen:
            continue
        seen.add(page)
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.links:
            assert not re.match(r"[a-z]+:|//", link), (page, link)  # relative only: opens from the file system
            target = link.split("#")[0]
            path = (page.parent / target).resolve() if target else page
            if not path.is_file():
                broken.append((page.relative_to(root).as_posix(), link))
            elif path.suffix == ".html":
                todo.append(path)
    for data in sorted((root / "data").glob("r*.js")):
        rows = json.loads(data.read_text(encoding="utf-8").split("=", 1)[1].rstrip(";\n").replace("\\/", "/"))["rows"]
        broken += [(data.name, r["href"]) for r in rows if not (root / "runs" / r["href"]).is_file()]
    return broken, seen


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The bundled RAG 2025 sample (teamR-run-b did not answer rag25-02), judged with one
    assessor's label, and its report with a truth leaderboard."""
    root = tmp_path_factory.mktemp("site")
    run, topic, sentence, doc = LABELLED
    labels = root / "labels.jsonl"
    labels.write_text(
        json.dumps({"run_id": run, "topic_id": topic, "sentence_index": sentence, "doc_id": doc, "label": "partially"})
        + "\n"
    )
    out = root / "out"
    judge_cli(
        "--judge", "citation", *SAMPLE, "--labels", labels, "--out-dir", out, "--name", "rag25", "--backend", "python"
    )
    truth = root / "truth.txt"  # the truth ranks the runs in the reverse of their names
    truth.write_text("teamR-run-a all H 0.2\nteamR-run-b all H 0.5\nteamS-raw24 all H 0.9\n")
    result = run_cli("report", out, "--truth", truth, "--resamples", "50")
    assert result.returncode == 0, result.stderr
    return {"out": out, "report": out / "rag25.report", "stderr": result.stderr}


# -- 2. links ------------------------------------------------------------------------------------
def test_no_broken_link_where_a_run_did_not_answer_a_topic(sample):
    report = sample["report"]
    config = yaml.safe_load((sample["out"] / "rag25.config.yml").read_text())
    assert config["filled_by_on_missing"]["pairs"] == {"teamR-run-b": ["rag25-02"]}  # the case under test
    broken, seen = crawl(report)
    assert broken == []
    assert seen == set(report.rglob("*.html"))  # every page is reached from the index
    index = (report / "index.html").read_text(encoding="utf-8")
    assert "not answered" in index  # the heatmap's cell says why it opens nothing


@pytest.mark.shared
def test_no_broken_link_on_rag24_support(tmp_path):
    data = shared("rag24-support")
    out = tmp_path / "out"
    judge_cli("--judge", "citation", "--rag-topics", data / "topics.jsonl", "--rag-responses", data / "runs",
              "--corpus", data / "segments.jsonl", "--backend", "python", out=out, name="r24")  # fmt: skip
    result = run_cli("report", out, "--truth", data / "truth.eval.txt", "--labels", data / "labels.jsonl",
                     "--resamples", "0")  # fmt: skip
    assert result.returncode == 0, result.stderr
    broken, seen = crawl(out / "r24.report")
    assert broken == [], broken[:10]
    assert len(seen) > 585 and seen == set((out / "r24.report").rglob("*.html"))


def test_links_built_by_the_run_page_script_open_pages(sample, browser):
    report = sample["report"]
    for page in sorted((report / "runs").glob("r*.html")):
        browser.get(page.as_uri())
        hrefs = browser.execute_script(
            "return Array.prototype.map.call(document.querySelectorAll('#citations a'), function (a) {"
            " return a.getAttribute('href'); })"
        )
        assert hrefs
        assert all((page.parent / h.split("#")[0]).is_file() for h in hrefs), page


# -- 1. cross-language output ----------------------------------------------------------------------
EN = {
    "e1": "The Eiffel Tower is 330 metres tall and was finished in 1889. It stands in Paris on the Champ de Mars.",
    "e2": "The Great Wall of China stretches across the northern frontier. Most of it was built in the Ming dynasty.",
}
ZH = [
    ("埃菲尔铁塔高三百三十米，于一八八九年建成，位于巴黎战神广场。", [0, 1]),  # two cross-language citations
    ("长城横跨中国北部边境，大部分建于明朝时期。", [1]),
    ("东京塔。", [0]),  # too few letters for a script: aligned as usual, not cross-language
]


@pytest.fixture(scope="module")
def cross(tmp_path_factory):
    """A run in Chinese citing English documents (and one in English), judged with an assessor's
    label on a cross-language citation, reported with the same labels."""
    root = tmp_path_factory.mktemp("xlang")
    (root / "runs").mkdir()
    (root / "corpus.jsonl").write_text("".join(json.dumps({"doc_id": k, "text": v}) + "\n" for k, v in EN.items()))
    (root / "topics.jsonl").write_text("".join(json.dumps({"id": t, "title": f"About {t}"}) + "\n" for t in "xy"))
    answers = {"zh": ZH, "en": [(EN["e1"].split(". ")[0] + ".", [0]), ("It was built in the Ming dynasty.", [1])]}
    for run, sents in answers.items():
        lines = [
            {"run_id": run, "topic_id": t, "references": ["e1", "e2"],
             "answer": [{"text": s, "citations": c} for s, c in sents]}
            for t in "xy"
        ]  # fmt: skip
        (root / "runs" / f"{run}.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    labels = root / "labels.jsonl"
    labels.write_text(
        json.dumps({"run_id": "zh", "topic_id": "x", "sentence_index": 0, "doc_id": "e1", "label": "supported"}) + "\n"
    )
    out = root / "out"
    judge_cli("--judge", "citation", "--rag-topics", root / "topics.jsonl", "--rag-responses", root / "runs",
              "--corpus", root / "corpus.jsonl", "--labels", labels, "--backend", "python",
              out=out, name="x")  # fmt: skip
    result = run_cli("report", out, "--labels", labels, "--resamples", "0")
    assert result.returncode == 0, result.stderr
    return {"out": out, "report": out / "x.report", "stderr": result.stderr}


def _page_data(report: Path, page: str) -> dict:
    text = (report / "data" / page).read_text(encoding="utf-8")
    return json.loads(text.split("=", 1)[1].rstrip(";\n").replace("\\/", "/"))


def _run_index(report: Path, run: str) -> int:
    index = (report / "index.html").read_text(encoding="utf-8")
    return int(re.search(rf'href="runs/r(\d+)\.html">{run}<', index).group(1))


def test_cross_language_output_reports_with_labels(cross):
    assert "Traceback" not in cross["stderr"]
    broken, seen = crawl(cross["report"])
    assert broken == [] and len(seen) > 3  # every page reached from index.html, no link broken
    df = judges.read_assessments(cross["out"], "x")
    zh = df[df.run_id == "zh"]
    assert (zh.support_status == "cross_language").sum() == 6
    assert zh.loc[zh.human_label.notna(), "status"].tolist() == ["supported"]  # the label is final
    short = zh[zh.sentence == ZH[2][0]]
    assert (short.support_status != "cross_language").all()  # the judge's script rule: too few letters
    report = cross["report"]
    i = _run_index(report, "zh")
    flagged = 0
    for j in (0, 1):
        page = _page_data(report, f"r{i}/t{j}.js")
        for s in page["sentences"]:
            for c in s["cites"]:
                assert bool(c.get("xlang")) == (c["support_status"] == "cross_language"), c
                flagged += bool(c.get("xlang"))
                if c.get("xlang"):
                    assert c["xlang"] == "sentence in CJK script, document in Latin"
        assert page["sentences"][0]["status"] == ("supported" if j == 0 else "cross_language")
    assert flagged == 6
    # the index counts what the judge found cross-language (the page's filter), linked to the run's list
    index = (report / "index.html").read_text(encoding="utf-8")
    assert f'<a href="runs/r{i}.html#f=xlang">6</a>' in index
    assert "5 cross_language" in index  # the summary names every status of the vocabulary
    run_page = (report / "runs" / f"r{i}.html").read_text(encoding="utf-8")
    assert re.search(r"<th>cross_(<wbr>)?language</th>", run_page)  # the topics table has a column for it


def test_cross_language_citations_in_the_browser(cross, browser):
    from selenium.webdriver.common.by import By

    report = cross["report"]
    i = _run_index(report, "zh")
    browser.get((report / "runs" / f"r{i}" / "t0.html").as_uri())
    buttons = browser.find_elements(By.CSS_SELECTOR, "button.cite.s-cross_language")
    assert len(buttons) == 2
    r, g, b = (int(STATUS_COLOUR["cross_language"][k : k + 2], 16) for k in (1, 3, 5))
    assert buttons[0].value_of_css_property("background-color") == f"rgba({r}, {g}, {b}, 1)"
    browser.find_element(By.CSS_SELECTOR, 'button[data-key="s0c0"]').click()  # labelled: supported, final
    panel = browser.find_element(By.ID, "panel").text
    assert "assessor's label" in panel and "languages" in panel
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


# -- 4. the pages in a 1,400 px window, sorting, labels ---------------------------------------------
def test_every_kind_of_page_fits_a_1400_px_window(sample, browser):
    report = sample["report"]
    browser.set_window_size(1400, 1000)
    for page in ("index.html", "runs/r0.html", "topics/t0.html", "runs/r0/t0.html"):
        browser.get((report / page).as_uri())
        width, window = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        assert width <= window, (page, width, window)
    browser.get((report / "index.html").as_uri())  # the leaderboard scrolls inside its box, whole
    box = browser.execute_script(
        "var t = document.getElementById('leaderboard'), p = t.parentElement;"
        "return [t.scrollWidth, p.clientWidth, getComputedStyle(p).overflowX]"
    )
    assert box[0] <= box[1] or box[2] in ("auto", "scroll"), box


def test_the_heatmap_shows_every_topic_label_whole(sample, browser):
    browser.get((sample["report"] / "index.html").as_uri())
    clipped = browser.execute_script(
        "var s = document.querySelector('svg[aria-label$=\"per run and topic\"]');"
        "var r = s.getBoundingClientRect(), out = [];"
        "s.querySelectorAll('text').forEach(function (t) { var b = t.getBoundingClientRect();"
        " if (b.right > r.right + 0.5 || b.left < r.left - 0.5 || b.top < r.top - 0.5) out.push(t.textContent); });"
        "return out"
    )
    assert clipped == []


def test_rank_columns_sort_ascending_first(sample, browser):
    from selenium.webdriver.common.by import By

    browser.get((sample["report"] / "index.html").as_uri())
    heads = browser.find_elements(By.CSS_SELECTOR, "#leaderboard th")
    names = [h.text for h in heads]

    def column(k):
        return [
            r.find_elements(By.TAG_NAME, "td")[k].text
            for r in browser.find_elements(By.CSS_SELECTOR, "#leaderboard tr")[1:]
        ]

    k = names.index("truth rank")
    heads[k].click()
    assert column(k) == ["1", "2", "3"]  # ascending first: the truth's best run on top
    heads[k].click()
    assert column(k) == ["3", "2", "1"]
    heads[0].click()  # the judge's rank: ascending first too
    assert column(0) == ["1", "2", "3"]
    wp = names.index("WEIGHTED_PRECISION")
    heads[wp].click()  # a value: descending first
    values = [float(v.split()[0]) for v in column(wp)]
    assert values == sorted(values, reverse=True)


def test_assessors_labels_in_the_panel_filters_and_counts(sample, browser):
    from selenium.webdriver.common.by import By

    report = sample["report"]
    run, topic, sentence, doc = LABELLED
    df = judges.read_assessments(sample["out"], "rag25")
    row = df[(df.run_id == run) & (df.topic_id == topic) & (df.sentence_index == sentence) & (df.doc_id == doc)]
    assert row.human_label.tolist() == ["partial"] and row.status.tolist() == ["partial"]
    i = _run_index(report, run)
    index = (report / "index.html").read_text(encoding="utf-8")
    assert f'<a href="runs/r{i}.html#f=labelled">1</a>' in index
    j = sorted(set(df.topic_id)).index(topic)
    browser.get((report / "runs" / f"r{i}" / f"t{j}.html").as_uri() + "#f=labelled")
    assert "labelled by an assessor (1)" in browser.find_element(By.ID, "filters").text
    visible = [b for b in browser.find_elements(By.CSS_SELECTOR, "button.cite") if b.is_displayed()]
    assert len(visible) == 1
    visible[0].click()
    panel = browser.find_element(By.ID, "panel").text
    assert re.search(r"assessor's label \(judge --labels, final\)\s+partial", panel), panel
    browser.get((report / "runs" / f"r{i}.html").as_uri() + "#f=labelled")
    assert browser.find_element(By.ID, "shown").text.startswith("1 of ")


# -- 5. structure ---------------------------------------------------------------------------------
REPORT_PKG = ROOT / "judges" / "report"


def test_report_functions_are_short_and_none_is_marked_to_split():
    long = []
    for path in sorted(REPORT_PKG.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "noqa: C901" not in text, path
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > 80:
                    long.append((path.name, node.name, lines))
    assert long == []


def test_pages_are_jinja_templates_and_static_files_are_package_data():
    assert {p.name for p in (REPORT_PKG / "templates").glob("*.html")} >= {"index.html", "run.html", "topic.html"}
    assert {p.name for p in (REPORT_PKG / "static").iterdir()} >= {"report.css", "report.js"}
    assert not (REPORT_PKG / "assets.py").exists()
    py = "".join(p.read_text(encoding="utf-8") for p in REPORT_PKG.glob("*.py"))
    assert "<table" not in py and "<html" not in py  # markup lives in the templates
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'"jinja2[>=<]', project)
    assert re.search(r'"judges\.report" = \[[^\]]*"templates/\*\.html"[^\]]*"static/\*"', project)


def test_status_colours_of_the_stylesheet_are_the_vocabulary(sample):
    css = (sample["report"] / "assets" / "report.css").read_text(encoding="utf-8")
    for s in STATUSES:
        assert re.search(rf"\.st-{s}\{{background:{STATUS_TINT[s]}\}}", css), s
        assert re.search(rf"\.b-{s},button\.s-{s}\{{background:{STATUS_COLOUR[s]}\}}", css), s


def test_the_report_is_the_same_from_any_directory(sample, tmp_path):
    """Relative links only, nothing that depends on where the report was written from."""
    copy = tmp_path / "moved"
    shutil.copytree(sample["report"], copy)
    broken, _ = crawl(copy)
    assert broken == []
