"""Seeing the evidence: explanations for every verdict, the static HTML report (opened in a real
headless Chromium), the notebook helper, and page/box locations."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import cli_in_process, copy_judged, run_cli, shared

import judges
from judges.engine.explain import explain
from judges.core.records import Judgment
from judges.formats.documents import locate


MODEL = {"judge": "model", "p_supported": 0.454, "p_partial": 0.648}
ALIGN = {"judge": "alignment", "norm_supported": 0.4, "norm_partial": 0.25}


def j(**kw) -> Judgment:
    base = dict(
        status="partial",
        grade=1,
        score=10,
        norm_score=0.3,
        answer_coverage=0.5,
        evidence_coverage=0.5,
        answer_tokens=10,
        char_start=0,
        char_end=5,
        evidence="x",
        doc_source="corpus",
        reason="",
        support_status="partial",
        p_any=0.7,
        p_full=0.3,
    )
    return Judgment(**{**base, **kw})


# -- explanations -----------------------------------------------------------------------------------
def test_explanation_names_the_threshold_that_decided():
    assert (
        explain(j(), MODEL)
        == "partial: P(full) 0.3 < supported threshold 0.454 and P(any) 0.7 >= partial threshold 0.648"
    )
    e = explain(j(status="unsupported", support_status="unsupported", p_any=0.2), MODEL)
    assert e.startswith("unsupported: ") and "P(any) 0.2 < partial threshold 0.648" in e
    # close to the threshold: enough digits to tell them apart
    e = explain(
        j(status="unsupported", support_status="unsupported", p_any=None, p_full=None, norm_score=0.2499), ALIGN
    )
    assert "norm_score 0.2499 < partial threshold 0.25" in e


def test_explanation_of_llm_cap_missing_and_empty_sentence():
    yes = explain(j(status="supported", llm_answer="YES", llm_p_yes=0.91), MODEL, why={"band": [0.2, 0.6]})
    assert yes.startswith("supported: the LLM answered YES (P(YES) 0.91 >= 0.5)") and "attest.band [0.2, 0.6)" in yes
    planned = {"planned": True, "plan_rank": 3, "expected_gain": 0.0125, "chosen": 10, "candidates": 40}
    why = explain(j(status="supported", llm_answer="YES", p_any=0.8, p_full=0.5), MODEL, why=planned)
    assert "asked because the session's plan ranked it 3 of 40 by expected gain (0.0125; 10 asked)" in why
    skipped = explain(j(), MODEL, why={"planned": False, "chosen": 10, "candidates": 40})
    assert skipped.endswith("; not asked: outside the session's plan (10 of 40 citations asked)")
    human = explain(j(status="supported", human_label="supported"), MODEL)
    assert human.startswith("supported: human label supported (--labels), final; the support judge said partial")
    assert "the support judge said partial (P(full) 0.3 < supported threshold 0.454" in yes
    no = explain(j(status="partial", support_status="supported", p_full=0.5, llm_answer="NO", llm_p_yes=0.1), MODEL)
    assert no.startswith("partial: the LLM answered NO (P(YES) 0.1 < 0.5)")
    assert "guarded" in explain(j(status="unsupported", llm_answer="guarded"), MODEL)
    assert "attest.on_unparsed: judge" in explain(j(llm_answer="unparsed"), MODEL)
    capped = explain(
        j(status="partial", support_status="supported", p_full=0.9, capped=True, numbers_missing=("2019",)), MODEL
    )
    assert (
        capped == "partial: P(full) 0.9 >= supported threshold 0.454, which makes it supported, "
        "but capped at partial: the document lacks numbers 2019"
    )
    assert (
        explain(j(status="missing", support_status="missing", reason="document 'd9' has no text"), MODEL)
        == "missing: document 'd9' has no text"
    )
    assert (
        explain(j(status="unsupported", support_status="unsupported", answer_tokens=0), MODEL)
        == "unsupported: the sentence has no word tokens to align"
    )


# -- a small track with the awkward cases -------------------------------------------------------------
DOC_A = (
    "Intro 😀 with an emoji and a link https://example.org/page before the facts. "
    "The Eiffel Tower is 330 metres tall and was finished in 1889. It stands in Paris on the Champ de Mars."
)
DOC_B = "Der Eiffelturm steht in Paris. Er wurde 1889 fertiggestellt und ist ein Wahrzeichen der Stadt."
DOC_C = "Привет мир. Это русский текст о башне в Париже, построенной давно."


def _track(root: Path) -> dict:
    (root / "runs").mkdir(parents=True)
    (root / "topics.jsonl").write_text(
        "".join(json.dumps({"id": t, "title": f"About {t}"}) + "\n" for t in ("t1", "t2"))
    )
    mapping = [
        {"index": 0, "page_index": 0, "spans": [{"bbox": [10, 10, 200, 20], "content": DOC_A.split(". ")[0] + "."}]},
        {
            "index": 1,
            "page_index": 1,
            "spans": [
                {"bbox": [10, 30, 300, 40], "content": "The Eiffel Tower is 330 metres tall and was finished in 1889."}
            ],
        },
    ]
    corpus = [
        {"doc_id": "a", "title": "Tower", "text": DOC_A, "sentence_mapping": mapping},
        {"doc_id": "b", "text": DOC_B},
        {"doc_id": "c", "text": DOC_C},
    ]
    (root / "corpus.jsonl").write_text(
        "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in corpus), encoding="utf-8"
    )
    answers = {
        "r1": [
            ("The Eiffel Tower is 330 metres tall and was finished in 1889.", [0]),
            ("It stands in Paris.", [0, 1]),
            ("An uncited sentence.", []),
            ("The tower was painted blue in 2020.", [2]),
            ("It is in Paris.", [3]),
        ],
        "r2": [("The Eiffel Tower was finished in 1889.", [1]), ("Nobody knows how tall it is </script>.", [0])],
    }
    refs = ["a", "b", "c", "zzz-not-in-corpus"]
    for run, sents in answers.items():
        with open(root / "runs" / f"{run}.jsonl", "w", encoding="utf-8") as f:
            for topic in ("t1", "t2"):
                f.write(
                    json.dumps(
                        {
                            "run_id": run,
                            "topic_id": topic,
                            "references": refs,
                            "answer": [{"text": t, "citations": c} for t, c in sents],
                        }
                    )
                    + "\n"
                )
    labels = [
        {"run_id": "r1", "topic_id": "t1", "sentence_index": 0, "doc_id": "a", "label": "not_supported"},
        {"run_id": "r1", "topic_id": "t1", "sentence_index": 1, "doc_id": "a", "label": "supported"},
    ]
    (root / "labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels))
    truth = [
        "r1 t1 HUMAN 0.9",
        "r1 t2 HUMAN 0.8",
        "r1 all HUMAN 0.85",
        "r2 t1 HUMAN 0.2",
        "r2 t2 HUMAN 0.4",
        "r2 all HUMAN 0.3",
    ]
    (root / "truth.txt").write_text("\n".join(truth) + "\n")
    return dict(
        topics=root / "topics.jsonl",
        runs=root / "runs",
        corpus=root / "corpus.jsonl",
        labels=root / "labels.jsonl",
        truth=root / "truth.txt",
    )


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    t = _track(root / "in")
    out = root / "out"
    result = run_cli(
        "--judge",
        "citation",
        "--rag-topics",
        t["topics"],
        "--rag-responses",
        t["runs"],
        "--corpus",
        t["corpus"],
        "--out-dir",
        out,
        "--name",
        "tiny",
        "--backend",
        "python",
    )
    assert result.returncode == 0, result.stderr
    t["judge_stdout"] = result.stdout
    result = run_cli("report", out, "--truth", t["truth"], "--labels", t["labels"], "--resamples", "200")
    assert result.returncode == 0, result.stderr
    t.update(out=out, report=out / "tiny.report", report_stdout=result.stdout)
    return t


def test_every_verdict_is_explained_in_the_table_and_the_log(judged):
    df = judges.read_assessments(judged["out"], "tiny")
    assert (df["explanation"].str.len() > 0).all()
    assert set(df["status"]) >= {"supported", "missing"}
    assert (
        df.loc[df["status"] == "missing", "explanation"].str.startswith("missing: document 'zzz-not-in-corpus'").all()
    )
    events = [json.loads(x) for x in (judged["out"] / "tiny.jsonl").read_text().splitlines()]
    outs = [e for e in events if e["event"] == "CITATION_OUTPUT"]
    aligned = next(e for e in outs if e["alignment"])
    assert set(aligned["alignment"]) == {
        "score",
        "answer_token_start",
        "answer_token_end",
        "doc_token_start",
        "doc_token_end",
        "matches",
    }
    assert "norm_score" in aligned["features"] and aligned["decision"]["thresholds"]["p_supported"] > 0
    assert all(e["explanation"] for e in outs)
    inputs = [e for e in events if e["event"] == "CITATION_INPUT" and e["candidate_windows"]]
    assert set(inputs[0]["candidate_windows"][0]) == {"doc_token_start", "doc_token_end"}


def test_judge_prints_the_top_of_the_leaderboard(judged):
    assert "top runs by WEIGHTED_PRECISION" in judged["judge_stdout"]
    assert re.search(r"1\s+r[12]\s+\d\.\d{4}", judged["judge_stdout"])


def test_notebook_helper_returns_the_document_and_evidence_in_context(judged):
    df = judges.read_assessments(judged["out"], "tiny")
    docs = judges.open_documents(judged["out"], "tiny")
    for _, row in df.iterrows():
        ev = docs.evidence(row)
        if row["status"] == "missing":
            assert ev.text is None
            continue
        assert ev.text in (DOC_A, DOC_B, DOC_C)
        assert ev.evidence == row["evidence"] == ev.text[row["char_start"] : row["char_end"]]
        assert (
            ev.text[row["char_start"] - len(ev.before) : row["char_end"] + len(ev.after)]
            == ev.before + ev.evidence + ev.after
        )
    row = df[(df["doc_id"] == "a") & (df["sentence_index"] == 0)].iloc[0]
    ev = docs.evidence(row)
    assert "[[" in str(ev) and ev.pages == [1] and ev.boxes == [{"page_index": 1, "bbox": [10, 30, 300, 40]}]


def test_locate_maps_a_span_to_pages_and_boxes():
    text = "First sentence here. Second one there. Third."
    mapping = [
        {"index": 0, "page_index": 0, "spans": [{"bbox": [0, 0, 1, 1], "content": "First sentence here."}]},
        {
            "index": 1,
            "page_index": 2,
            "spans": [{"bbox": [0, 5, 1, 6], "content": "Second one"}, {"bbox": [0, 7, 1, 8], "content": "there."}],
        },
        {"index": 2, "page_index": 3, "spans": [{"bbox": [0, 9, 1, 9], "content": "Third."}]},
    ]
    pages, boxes = locate(mapping, text, text.index("here"), text.index("one") + 3)
    assert pages == [0, 2] and [b["bbox"] for b in boxes] == [[0, 0, 1, 1], [0, 5, 1, 6], [0, 7, 1, 8]]


def test_report_is_self_contained_and_paged(judged):
    report = judged["report"]
    assert "wrote" in judged["report_stdout"] and (report / "index.html").is_file()
    files = [p for p in report.rglob("*") if p.is_file()]
    for p in files:
        text = p.read_text(encoding="utf-8")
        assert not re.search(r"(https?:|ftp:)//|src=\"//|href=\"//", text, re.IGNORECASE), p
        assert "</script" not in text or p.suffix == ".html", p
    # one page and one data file per (run, topic), the topic's documents apart
    for run in (0, 1):
        for topic in (0, 1):
            assert (report / "runs" / f"r{run}" / f"t{topic}.html").is_file()
            assert (report / "data" / f"r{run}" / f"t{topic}.js").is_file()
    index = (report / "index.html").read_text(encoding="utf-8")
    assert "truth: HUMAN" in index and "Kendall" in index and index.count("<svg") >= 4
    assert "disagreements" in index


def _loaded_only_local_files(driver) -> None:
    """Every script, stylesheet and link of the page is a local file; nothing was fetched from elsewhere."""
    urls = driver.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('[src],[href]'), function (e) { "
        "return new URL(e.getAttribute('src') || e.getAttribute('href'), document.baseURI).href; })"
    )
    fetched = driver.execute_script(
        "return performance.getEntriesByType('resource').map(function (e) { return e.name; })"
    )
    assert urls and all(u.startswith("file://") for u in urls + fetched), urls + fetched


def test_clicking_a_citation_highlights_exactly_its_evidence(judged, browser):
    from selenium.webdriver.common.by import By

    df = judges.read_assessments(judged["out"], "tiny")
    report = judged["report"]
    runs = ["r1", "r2"]  # ranked: r1 is the better run here; the page index comes from the report
    index = (report / "index.html").read_text(encoding="utf-8")
    checked = 0
    for run in runs:
        i = re.search(rf'href="runs/r(\d+)\.html">{run}<', index).group(1)
        for topic_j, topic in enumerate(["t1", "t2"]):
            browser.get((report / "runs" / f"r{i}" / f"t{topic_j}.html").as_uri())
            rows = df[(df["run_id"] == run) & (df["topic_id"] == topic)]
            for _, row in rows.iterrows():
                key = f"s{row['sentence_index']}c{row['citation_rank']}"
                browser.find_element(By.CSS_SELECTOR, f'button[data-key="{key}"]').click()
                assert browser.find_element(By.ID, "explanation").text == row["explanation"]
                if row["status"] == "missing" or not row["evidence"]:
                    continue
                mark = browser.find_element(By.CSS_SELECTOR, "#passage mark#evidence")
                assert mark.get_property("textContent") == row["evidence"]
                checked += 1
            _loaded_only_local_files(browser)
            assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert checked >= 8
    # the emoji before the evidence: offsets converted to JavaScript's UTF-16 counting
    assert any(DOC_A.index("😀") < s for s in df.loc[df["doc_id"] == "a", "char_start"])


def test_filters_and_leaderboard_in_the_browser(judged, browser):
    from selenium.webdriver.common.by import By

    report = judged["report"]
    browser.get((report / "index.html").as_uri())
    _loaded_only_local_files(browser)
    rows = browser.find_elements(By.CSS_SELECTOR, "#leaderboard tr")
    assert len(rows) == 3
    browser.find_elements(By.CSS_SELECTOR, "#leaderboard th")[1].click()  # sort by run name
    browser.get((report / "runs" / "r0.html").as_uri() + "#f=missing")
    shown = browser.find_element(By.ID, "shown").text
    n_missing = int(shown.split(" of ")[0])
    assert n_missing >= 1
    assert all(
        r.get_attribute("class") == "st-missing" for r in browser.find_elements(By.CSS_SELECTOR, "#citations tr[class]")
    )
    browser.find_element(By.ID, "f-missing").click()  # off: every citation
    assert int(browser.find_element(By.ID, "shown").text.split(" of ")[0]) > n_missing
    browser.get((report / "runs" / "r0" / "t0.html").as_uri() + "#f=xlang")
    visible = [b for b in browser.find_elements(By.CSS_SELECTOR, "button.cite") if b.is_displayed()]
    assert visible  # the Russian document cited by an English sentence
    visible[0].click()
    assert "sentence in Latin script, document in Cyrillic" in browser.find_element(By.ID, "panel").text


@pytest.mark.shared
def test_rag24_support_every_citation_explained_and_report_built(tmp_path, judged_rag24_support):
    data = shared("rag24-support")
    out = copy_judged(judged_rag24_support, tmp_path / "out")  # the report is written beside
    df = judges.read_assessments(out, "r24")
    assert len(df) == 2348 and (df["explanation"].str.len() > 0).all()
    result = run_cli(
        "report", out, "--truth", data / "truth.eval.txt", "--labels", data / "labels.jsonl", "--resamples", "200"
    )
    assert result.returncode == 0, result.stderr
    sizes = [p.stat().st_size for p in (out / "r24.report").rglob("*") if p.is_file()]
    assert max(sizes) < 5_000_000 and len(list((out / "r24.report" / "runs").glob("r*.html"))) == 45


def test_report_never_replaces_a_directory_that_is_not_a_report(judged, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    result = cli_in_process("report", judged["out"], "--report-dir", tmp_path, "--resamples", "0")
    assert result.returncode == 2 and "is not a citejudge report" in result.stderr
    assert (tmp_path / "notes.txt").read_text() == "mine"
