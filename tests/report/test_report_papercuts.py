"""What a new organiser tripped on in the report (issue 42, items 5 and 6): which interval is which,
a link to a citation, the heatmap's colours. Pages built by the CLI and opened in headless Chromium."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from helpers import SAMPLE_NAME, copy_judged, run_cli

import judges
from judges.scores.intervals import NO_JUDGE_ERROR
from judges.report.svg import NOT_ANSWERED

S = SAMPLE_NAME  # the name of the judged sample's outputs


@pytest.fixture(scope="module")
def sample(judged_sample, tmp_path_factory):
    """The bundled RAG 2025 sample (teamR-run-b did not answer rag25-02), judged (once per worker:
    ``judged_sample``: conftest's BUNDLED) and reported, its outputs named S."""
    out = copy_judged(judged_sample, tmp_path_factory.mktemp("papercuts") / "out")
    report = run_cli("report", out, "--name", S)
    assert report.returncode == 0, report.stderr
    return out


# -- 42.5: two intervals, each labelled, the numbers of NAME.intervals.tsv ---------------------------
def _notes(html: str, value: float, measure: str = "") -> list[tuple[str, str]]:
    """The (class, text) of the notes under the cell of ``value`` (its data-v), in the row of
    ``measure`` (a run page's measures) when given."""
    row = rf'<td class="l">{measure}</td>' if measure else ""
    cell = re.search(rf'{row}<td data-v="{value:.6f}">[^<]*((?:<small[^>]*>[^<]*</small>)*)', html)
    assert cell, (measure, value)
    return re.findall(r'<small(?: class="([^"]*)")?>([^<]*)</small>', cell.group(1))


def test_every_interval_says_what_it_is_with_the_numbers_of_intervals_tsv(sample):
    frame = judges.read_intervals(sample, S)
    index = (sample / f"{S}.report" / "index.html").read_text(encoding="utf-8")
    run_pages = {p: p.read_text(encoding="utf-8") for p in (sample / f"{S}.report" / "runs").glob("r*.html")}
    checked = 0
    for row in frame.itertuples():
        pages = [(index, "")] if row.measure == "WEIGHTED_PRECISION" else []
        pages += [(html, row.measure) for html in run_pages.values() if f"Run {row.run_id}<" in html]
        for html, measure in pages:
            notes = [(cls, text.replace("\xa0", " ")) for cls, text in _notes(html, row.value, measure)]
            topics = ("topics", f"with topic sampling [{row.low_topics:.3f}, {row.high_topics:.3f}]")
            if row.measure in NO_JUDGE_ERROR:  # no judge error: only the interval with topic sampling
                assert notes == [topics], (row.run_id, row.measure)
            else:
                assert notes == [("assessors", f"assessors [{row.low:.3f}, {row.high:.3f}]"), topics]
            checked += 1
    assert checked >= 3 * 12 + 3
    for html in [index, *run_pages.values()]:
        html = unescape(html)
        assert "assessors, for the measures that depend on support judgments, the value the track's assessors " in html
        assert "with topic sampling, the value they would give over other topics like these" in html
        assert "(low_topics, high_topics)" in html and "bootstrap" not in html


def test_without_intervals_the_bootstrap_interval_says_so(sample, tmp_path):
    import shutil

    out = tmp_path / "out"
    shutil.copytree(
        sample, out, ignore=shutil.ignore_patterns(f"{S}.report", f"{S}.intervals.*", f"{S}.sha256")
    )  # a set written before intervals, and so before its record
    result = run_cli("report", out, "--name", S, "--resamples", "50")
    assert result.returncode == 0, result.stderr
    index = unescape((out / f"{S}.report" / "index.html").read_text(encoding="utf-8"))
    assert '<small class="topics">topic bootstrap [' in index and "assessors [" not in index
    assert "under each value its 95% topic bootstrap interval (a bootstrap over the run's topics" in index


# -- 42.6: a link to a citation, the heatmap's colours -----------------------------------------------
@pytest.fixture(scope="module")
def long_answer(tmp_path_factory):
    """One run, one topic, an answer of 60 sentences each citing a passage of one long document."""
    root = tmp_path_factory.mktemp("long")
    facts = [  # long sentences: the panel's content is taller than the window
        f"Station {i} on the northern line, which the weather office has run since the spring of 1950 beside the "
        f"old mill, the bridge over the river and the village school, measured {10 + i} millimetres of rain in "
        "March, more than in any March of the decade before, as the office's yearly report says in its chapter "
        "on rainfall and floods, the same chapter that counts the days of frost, the hours of sun and the storms "
        "that closed the harbour of the town in the autumn and the winter of that year."
        for i in range(60)
    ]
    doc = " ".join(f"The weather office reports that {f[0].lower()}{f[1:]}" for f in facts)
    record = {
        "metadata": {"run_id": "long", "topic_id": "rain"},
        "responses": [{"text": f, "citations": ["d"]} for f in facts],
        "documents": {"d": {"text": doc}},
    }
    (root / "run.jsonl").write_text(json.dumps(record) + "\n")
    out = root / "out"
    judged = run_cli("--rag-responses", root / "run.jsonl", "--out-dir", out, "--name", "l")
    assert judged.returncode == 0, judged.stderr
    assert run_cli("report", out, "--name", "l", "--resamples", "0").returncode == 0
    return out / "l.report" / "runs" / "r0" / "t0.html"


def test_a_link_to_a_citation_opens_with_the_panel_heading_and_the_evidence_in_sight(long_answer, browser):
    browser.set_window_size(1400, 700)  # a laptop's window: the panel's content is taller than it
    try:
        for key in ("s59c0", "s30c0", "s0c0"):
            browser.get("about:blank")  # a new page each time, not a change of its hash
            browser.get(long_answer.as_uri() + f"#c={key}")
            got = browser.execute_script(
                "function R(e) { var r = e.getBoundingClientRect(); return [r.top, r.bottom]; }"
                "var p = document.getElementById('panel'), h = p.querySelector('h3');"
                "var m = document.getElementById('evidence');"
                "var layout = document.querySelector('.layout').getBoundingClientRect().top + window.scrollY;"
                "return {head: R(h), mark: R(m), panel: R(p), height: window.innerHeight, text: h.textContent,"
                " y: window.scrollY, top: layout, scroll: p.scrollHeight > p.clientHeight}"
            )
            index = int(key[1:].split("c")[0])
            assert f"sentence {index}, citation [1]: d" in got["text"]
            head, mark, panel = got["head"], got["mark"], got["panel"]
            assert 0 <= head[0] and head[1] <= got["height"], got  # the panel's heading in the window
            assert head[1] <= mark[0] and mark[1] <= min(panel[1], got["height"]), got  # the evidence below it, shown
            assert got["y"] <= got["top"], got  # the window never scrolled past the panel's place
            assert got["scroll"], got  # the case under test: the panel scrolls inside
    finally:
        browser.set_window_size(1400, 1000)


def test_the_heatmap_tells_a_topic_not_answered_from_a_zero_and_has_a_legend(sample, browser):
    browser.get((sample / f"{S}.report" / "index.html").as_uri())
    got = browser.execute_script(
        "var s = document.querySelector('svg[aria-label$=\"per run and topic\"]'), out = {};"
        "s.querySelectorAll('rect').forEach(function (r) { var t = r.querySelector('title');"
        " if (t) out[t.textContent] = r.getAttribute('fill'); });"
        f"var p = document.getElementById('{NOT_ANSWERED}');"
        "return {fills: out, pattern: p ? p.tagName : null,"
        " legend: Array.prototype.map.call(s.querySelectorAll('g.legend text'),"
        " function (t) { return t.textContent; })}"
    )
    fills = got["fills"]
    (unanswered,) = [k for k in fills if k.startswith("teamR-run-b / rag25-02:")]
    assert "not answered" in unanswered and fills[unanswered] == f"url(#{NOT_ANSWERED})"
    assert got["pattern"] == "pattern"
    assert fills["0"] == "#ffffff" and fills["1"] != fills["0"]  # the legend's scale: 0 white ... 1 dark
    assert fills["not answered"] == f"url(#{NOT_ANSWERED})" != fills["0"]
    assert got["legend"] == ["WEIGHTED_PRECISION", "0", "0.25", "0.5", "0.75", "1", "not answered"]
    answered = [v for k, v in fills.items() if " / " in k and k != unanswered]
    assert answered and f"url(#{NOT_ANSWERED})" not in answered
