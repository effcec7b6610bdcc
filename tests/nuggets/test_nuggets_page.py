"""The nugget judgments a person reads (issue 41): the report's answer pages with their nuggets
found and missing, in a real headless Chromium, and the one-answer call (``check_answer(...,
nuggets=)``, ``check-answer --nuggets``) held to the session's judgment of the same answers.

One judge run (``--judge argue`` on the bundled rag24-nuggets-mini) and one report build serve
the whole module, and one browser."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from helpers import copy_judged, cli_in_process, ROOT, run_cli

import judges
from judges.formats.nuggets import read_nuggets
from judges.formats.tables import read_leaderboard
from judges.nuggets.check import check_nuggets

MINI = ROOT / "datasets" / "rag24-nuggets-mini"
NUGGET_MEASURES = ("NUGGET_ALL", "NUGGET_ALL_STRICT", "NUGGET_VITAL", "NUGGET_VITAL_STRICT")
FOUND = ("support", "partial_support")


@pytest.fixture(scope="module")
def argued(argued_mini, tmp_path_factory):
    """The mini sample judged with ``--judge argue`` (a copy of ``argued_mini``), its report, and the parquet's rows."""
    root = tmp_path_factory.mktemp("nugpage")
    out = copy_judged(argued_mini, root / "out")  # the report is written beside
    report = run_cli("report", out, "--resamples", "20")
    assert report.returncode == 0, report.stderr
    table = judges.read_nuggets(out, "N")
    rows: dict[tuple[str, str], list] = {}
    for row in table.sort_values(["run_id", "topic_id", "nugget_index"]).itertuples():
        rows.setdefault((row.run_id, row.topic_id), []).append(row)
    texts = {k: a.answer_text for k, a in read_nuggets(out / "N.nuggets.jsonl").assignments.items()}
    return {"root": root, "out": out, "report": out / "N.report", "rows": rows, "texts": texts}


def _data(report, page: str) -> dict:
    text = (report / "data" / page).read_text(encoding="utf-8")
    return json.loads(text.split("=", 1)[1].rstrip(";\n").replace("\\/", "/"))


def _pages(argued) -> dict[tuple[str, str], str]:
    """(run, topic) -> the answer page's path under runs/ (rI/tJ.html)."""
    out = {}
    for data in sorted((argued["report"] / "data").glob("r*/t*.js")):
        page = f"{data.parent.name}/{data.stem}"
        d = _data(argued["report"], page + ".js")
        out[(d["run"], d["topic"])] = page + ".html"
    return out


# -- the report ------------------------------------------------------------------------------------
def test_every_answer_page_carries_the_parquets_judgments(argued):
    pages = _pages(argued)
    assert set(pages) == set(argued["rows"]) and len(pages) == 6
    for key, page in pages.items():
        data = _data(argued["report"], page.replace(".html", ".js"))
        rows = argued["rows"][key]
        assert data["nugget_text"] == argued["texts"][key]  # the text the session judged
        assert [n["assignment"] for n in data["nuggets"]] == [r.assignment for r in rows]
        assert [n["vital"] for n in data["nuggets"]] == [r.importance == "vital" for r in rows]
        for n, r in zip(data["nuggets"], rows):
            assert n["spans16"] == [[s["char_start"], s["char_end"]] for s in r.spans]  # ASCII answers
            assert n["p"] == [r.p_support, r.p_partial, r.p_not] and n["explanation"] == r.explanation
        html = (argued["report"] / "runs" / page).read_text(encoding="utf-8")
        found = sum(r.assignment in FOUND for r in rows)
        assert f"Nuggets: {found} found of {len(rows)}" in html
        assert f"{len(rows) - found} missing</h2>" in html


def test_the_leaderboard_shows_the_nugget_measures_after_the_citations(argued):
    """The headline of argue (NUGGET_F1) first, then the citations' measures, then the nuggets'."""
    html = (argued["report"] / "index.html").read_text(encoding="utf-8")
    heads = [h.replace("_<wbr>", "_").replace("\u200b", "") for h in re.findall(r"<th[^>]*>(.*?)</th>", html)]
    order = [h for h in heads if h in ("WEIGHTED_PRECISION", "PLACEHOLDER_FREE", *NUGGET_MEASURES, "NUGGET_F1")]
    assert order == ["NUGGET_F1", "WEIGHTED_PRECISION", "PLACEHOLDER_FREE", *NUGGET_MEASURES]


def test_a_set_without_nuggets_renders_as_before(argued):
    """The same output set without NAME.nuggets.parquet: no nugget section, column or data, and
    every answer page's data the nugget report's less its two nugget keys."""
    plain = argued["root"] / "plain"
    shutil.copytree(argued["out"], plain, ignore=shutil.ignore_patterns("N.report", "N.nuggets.*", "N.sha256"))
    r = run_cli("report", plain, "--resamples", "20")
    assert r.returncode == 0, r.stderr
    for page in _pages(argued).values():
        with_nuggets = _data(argued["report"], page.replace(".html", ".js"))
        without = _data(plain / "N.report", page.replace(".html", ".js"))
        assert without == {k: v for k, v in with_nuggets.items() if k not in ("nuggets", "nugget_text")}
        html = (plain / "N.report" / "runs" / page).read_text(encoding="utf-8")
        assert "nugget" not in html.lower().replace("nugget_", "")  # the measures' names only
    for page in [*(plain / "N.report" / "runs").glob("r*.html"), *(plain / "N.report" / "topics").glob("*.html")]:
        assert "nuggets found" not in page.read_text(encoding="utf-8")


_MARKS = """
var out = [];
document.querySelectorAll('#nuggets-found li.nugget').forEach(function (li) {
  li.click();
  var box = document.getElementById('nugget-answer'), at = 0, marks = [];
  box.childNodes.forEach(function (n) {
    var len = n.textContent.length;
    if (n.nodeName === 'MARK') marks.push([at, at + len, n.textContent]);
    at += len;
  });
  out.push({id: li.id, marks: marks, text: box.textContent, on: li.classList.contains('on'),
            head: document.querySelector('#nugget-panel h3').textContent, hash: location.hash});
});
return out;
"""


def test_found_nuggets_are_highlighted_at_the_parquets_offsets(argued, browser):
    """Clicking each found nugget marks exactly its spans in the answer: the marks' offsets in the
    answer shown are the parquet's, their text its span_text; several places where it has several."""
    spread = 0
    for key, page in _pages(argued).items():
        browser.get((argued["report"] / "runs" / page).as_uri())
        got = browser.execute_script(_MARKS)
        found = [r for r in argued["rows"][key] if r.assignment in FOUND]
        assert [g["id"] for g in got] == [f"n{r.nugget_index}" for r in found]
        for g, r in zip(got, found):
            assert g["text"] == argued["texts"][key] and g["on"] and g["hash"] == f"#n={r.nugget_index + 1}"
            assert [m[:2] for m in g["marks"]] == [[s["char_start"], s["char_end"]] for s in r.spans]
            assert [m[2] for m in g["marks"]] == list(r.span_text)
            assert g["head"].endswith(r.nugget) and ("vital" in g["head"]) == (r.importance == "vital")
            spread += len(g["marks"]) > 1
    assert spread > 0  # multi-span nuggets were among them


def test_found_and_missing_counts_in_the_browser_equal_the_parquets(argued, browser):
    from selenium.webdriver.common.by import By

    for key, page in _pages(argued).items():
        browser.get((argued["report"] / "runs" / page).as_uri())
        rows = argued["rows"][key]
        found = browser.find_elements(By.CSS_SELECTOR, "#nuggets-found li.nugget")
        missing = browser.find_elements(By.CSS_SELECTOR, "#nuggets-missing li.nugget")
        assert len(found) == sum(r.assignment in FOUND for r in rows)
        assert len(missing) == sum(r.assignment == "not_support" for r in rows)
        badges = [li.find_element(By.CSS_SELECTOR, ".badge").text for li in found]
        partial = sum(r.assignment == "partial_support" for r in rows)
        assert badges.count("partial support") == partial and badges.count("support") == len(found) - partial
        explanation = {li.get_attribute("id"): li.get_attribute("title") for li in found + missing}
        assert explanation == {f"n{r.nugget_index}": r.explanation for r in rows}  # on hover
        missing[0].click()  # a missing nugget: its explanation, no highlight
        panel = browser.find_element(By.ID, "nugget-panel").text
        assert "Not found in the answer." in panel and not browser.find_elements(By.ID, "nugget-answer")


def test_a_link_to_an_answers_nuggets_opens_them(argued, browser):
    from selenium.webdriver.common.by import By

    run_page = argued["report"] / "runs" / "r0.html"
    browser.get(run_page.as_uri())
    links = browser.find_elements(By.CSS_SELECTOR, "a[href$='#nuggets']")
    assert len(links) == 2  # one per topic of the run
    target = links[0].get_attribute("href")
    links[0].click()
    assert browser.current_url == target
    assert browser.execute_script("var r = document.getElementById('nuggets').getBoundingClientRect();"
                                  "return r.top >= 0 && r.top < window.innerHeight;")  # fmt: skip
    page = target.split("#")[0]
    key = next(k for k, p in _pages(argued).items() if page.endswith(p))
    row = next(r for r in argued["rows"][key] if r.assignment in FOUND)
    browser.get(f"{page}#n={row.nugget_index + 1}")  # a link to one nugget, by the number the page shows
    head = browser.find_element(By.CSS_SELECTOR, "#nugget-panel h3").text
    assert head.endswith(row.nugget) and f"nugget {row.nugget_index + 1} " in head
    assert browser.find_element(By.ID, f"n{row.nugget_index}").get_attribute("class") == "nugget on"
    assert browser.find_element(By.ID, "nugget-mark").text == row.span_text[0]


def test_a_link_to_nugget_k_opens_the_nugget_numbered_k(argued, browser):
    """``#n=2`` opens the nugget the page numbers 2 (the bank's second, index 1), found or missing,
    and clicking a nugget writes its shown number into the address."""
    from selenium.webdriver.common.by import By

    for key, page in _pages(argued).items():
        uri = (argued["report"] / "runs" / page).as_uri()
        for row in argued["rows"][key][:3]:
            browser.get("about:blank")
            browser.get(f"{uri}#n={row.nugget_index + 1}")
            head = browser.find_element(By.CSS_SELECTOR, "#nugget-panel h3").text
            assert f" nugget {row.nugget_index + 1} " in f" {head}" and head.endswith(row.nugget), head
            on = browser.find_elements(By.CSS_SELECTOR, "li.nugget.on")
            assert [li.get_attribute("id") for li in on] == [f"n{row.nugget_index}"]
            assert on[0].get_attribute("value") == str(row.nugget_index + 1)  # the number shown beside it
        browser.get("about:blank")
        browser.get(f"{uri}#n=2")
        head = browser.find_element(By.CSS_SELECTOR, "#nugget-panel h3").text
        assert " nugget 2 " in f" {head}" and head.endswith(argued["rows"][key][1].nugget), head


# -- one answer ------------------------------------------------------------------------------------
def test_check_answer_equals_the_sessions_judgment_of_every_answer(argued):
    banks = read_nuggets(MINI / "nuggets.jsonl").banks
    lb = read_leaderboard(argued["out"], "N")
    values = {(r, t, m): v for r, t, m, v in zip(lb["run_id"], lb["topic_id"], lb["measure"], lb["value"])}
    for (run, topic), rows in argued["rows"].items():
        checked = judges.check_answer(argued["texts"][(run, topic)], [], nuggets=banks[topic])
        assert len(checked.nuggets) == len(rows)
        for j, r in zip(checked.nuggets, rows):
            assert (j.nugget_index, j.nugget, j.importance, j.assignment) == (
                r.nugget_index, r.nugget, r.importance, r.assignment,
            )  # fmt: skip
            assert (j.p_support, j.p_partial, j.p_not, j.score) == (r.p_support, r.p_partial, r.p_not, r.score)
            assert [list(s) for s in j.spans] == [[s["char_start"], s["char_end"]] for s in r.spans]
            assert j.explanation == r.explanation
        for m in NUGGET_MEASURES:
            assert checked.measures[m] == pytest.approx(values[(run, topic, m)], abs=1e-12), m


def test_nuggets_as_a_bank_record_or_a_list_and_f1_beside_a_precision(argued):
    bank = read_nuggets(MINI / "nuggets.jsonl").banks["2024-153051"]
    text = argued["texts"][("KML.gpt_mini", "2024-153051")]
    record = {"qid": bank.qid, "query": bank.query, "nuggets": [{"text": n.text, "importance": n.importance}
                                                                 for n in bank.nuggets]}  # fmt: skip
    assert check_nuggets(text, record) == check_nuggets(text, bank)  # a line of NIST's nuggets.jsonl
    as_list = check_nuggets(text, [n.text for n in bank.nuggets])  # no query, no importance: all okay
    assert {j.importance for j in as_list.judgments} == {"okay"} and as_list.measures["NUGGET_VITAL"] == 0.0
    with_f1 = check_nuggets(text, bank, precision=0.5)
    n = with_f1.measures["NUGGET_ALL"]
    assert with_f1.measures["NUGGET_F1"] == pytest.approx(2 * 0.5 * n / (0.5 + n))
    assert "NUGGET_F1" not in check_nuggets(text, bank).measures


@pytest.mark.parametrize(
    "nuggets,said",
    [
        (["Target prosecutes shoplifters", "  "], "nuggets[1]: its text is empty"),
        ([{"importance": "vital"}], "nuggets[0]: a nugget is a string or a dict with text"),
        ("Target prosecutes shoplifters", "nuggets: a list of nuggets"),
        ({"query": 3, "nuggets": []}, "nuggets: query must be a string"),
    ],
)
def test_bad_nuggets_are_one_clear_error(nuggets, said):
    with pytest.raises(ValueError) as e:
        judges.check_answer("Target prosecutes shoplifters.", [], nuggets=nuggets)
    assert str(e.value).startswith(said)


def test_the_check_answer_command_judges_the_nuggets_as_the_session(argued, tmp_path):
    key = ("KML.gpt_mini", "2024-153051")
    answer = tmp_path / "answer.txt"
    answer.write_text(argued["texts"][key], encoding="utf-8")
    source = tmp_path / "source.txt"
    source.write_text("Target prosecutes shoplifters and uses video surveillance.", encoding="utf-8")
    common = ["check-answer", "--answer", answer, "--sources", source, "--nuggets", MINI / "nuggets.jsonl"]
    r = run_cli(*common, "--topic", key[1], "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    rows = argued["rows"][key]
    assert [(n["assignment"], n["p_support"], n["explanation"]) for n in got["nuggets"]] == [
        (r.assignment, r.p_support, r.explanation) for r in rows
    ]
    assert [n["spans"] for n in got["nuggets"]] == [[[s["char_start"], s["char_end"]] for s in r.spans] for r in rows]
    assert {m for m in got["measures"] if m.startswith("NUGGET_")} == set(NUGGET_MEASURES)
    table = run_cli(*common, "--topic", key[1])
    assert table.returncode == 0, table.stderr
    assert f"{len(rows)} nuggets; NUGGET_ALL {got['measures']['NUGGET_ALL']:.3f}" in table.stdout
    several = cli_in_process(*common)  # two topics' banks in the file, none named
    assert several.returncode == 2 and several.stdout == ""
    assert (
        several.stderr.strip()
        == f"error: {MINI / 'nuggets.jsonl'}: --topic: the file holds the banks of 2 topics: name one"
    )


def test_a_bad_nugget_file_for_check_answer_is_one_line_naming_file_line_and_field(tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_text("Target prosecutes shoplifters.", encoding="utf-8")
    bad = tmp_path / "nuggets.jsonl"
    bad.write_text(
        '{"qid": "t1", "query": "q", "nuggets": [{"text": "ok"}]}\n{"qid": "t2", "nuggets": [{"text": ""}]}\n'
    )
    r = cli_in_process("check-answer", "--answer", answer, "--sources", answer, "--nuggets", bad, "--topic", "t1")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip() == f"error: {bad}:2: nuggets[0].text: is empty"


def test_the_guides_nugget_example_prints_what_it_shows(capsys):
    readme = (ROOT / "docs" / "guides" / "one-answer.md").read_text(encoding="utf-8")
    section = readme.split("**Nuggets of one answer.**")[1]
    code = section.split("```python\n")[1].split("```")[0]
    shown = section.split("```text\n")[1].split("```")[0]
    exec(compile(code, "docs/guides/one-answer.md", "exec"), {})
    assert capsys.readouterr().out == shown


def test_a_nugget_only_report_draws_no_empty_citation_plots(tmp_path):
    """``--judge nugget`` without documents: every citation is missing, so the index draws no
    probability histograms; the P(above next) column is the nugget headline's (the nugget measures
    have their own pairs); the answers still show their nuggets."""
    out = tmp_path / "out"
    r = run_cli(
        "--judge", "nugget", "--rag-topics", MINI / "topics.jsonl", "--rag-responses", MINI / "runs",
        "--nuggets", MINI / "nuggets.jsonl", "--out-dir", out, "--name", "N", "--backend", "python",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    report = run_cli("report", out, "--resamples", "20")
    assert report.returncode == 0, report.stderr
    index = (out / "N.report" / "index.html").read_text(encoding="utf-8")
    assert "Runs ranked by NUGGET_ALL" in index and "NUGGET_ALL per run and topic" in index
    assert "Distribution of" not in index
    assert "P(above next)" in index and "NUGGET_ALL the probability that the assessors rank the run above" in index
    pages = list((out / "N.report" / "runs").glob("r*/t*.html"))
    assert len(pages) == 6 and all('id="nuggets"' in p.read_text(encoding="utf-8") for p in pages)


def test_the_assessors_assignments_show_where_they_differ(tmp_path, browser):
    """Judged with NIST's assignments as labels (``--nuggets nugget_assignment.jsonl``): each
    nugget whose assessors' assignment differs from the judge's is marked, and its panel says so."""
    from selenium.webdriver.common.by import By

    out = tmp_path / "out"
    r = run_cli(
        "--judge", "nugget", "--rag-topics", MINI / "topics.jsonl", "--rag-responses", MINI / "runs",
        "--nuggets", MINI / "nugget_assignment.jsonl", "--out-dir", out, "--name", "N", "--backend", "python",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert run_cli("report", out, "--resamples", "0").returncode == 0
    table = judges.read_nuggets(out, "N")
    differ = table[table["human_assignment"] != table["assignment"]]
    assert table["human_assignment"].notna().all() and 0 < len(differ) < len(table)
    marked = 0
    for data in sorted((out / "N.report" / "data").glob("r*/t*.js")):
        d = _data(out / "N.report", f"{data.parent.name}/{data.name}")
        browser.get((out / "N.report" / "runs" / data.parent.name / f"{data.stem}.html").as_uri())
        shown = {li.get_attribute("id") for li in browser.find_elements(By.CSS_SELECTOR, "li.nugget")
                 if li.find_elements(By.CSS_SELECTOR, ".disagree")}  # fmt: skip
        rows = differ[(differ["run_id"] == d["run"]) & (differ["topic_id"] == d["topic"])]
        assert shown == {f"n{i}" for i in rows["nugget_index"]}
        marked += len(shown)
        if len(rows):
            browser.find_element(By.ID, f"n{rows['nugget_index'].iloc[0]}").click()
            panel = browser.find_element(By.ID, "nugget-panel").text
            assert f"assessors' assignment {rows['human_assignment'].iloc[0]} (disagrees)" in panel
    assert marked == len(differ)
