"""Writing the static HTML report of an output directory (``run_judge.py report``).

Layout of ``REPORT_DIR`` (default ``OUT_DIR/NAME.report/``), every link relative so it opens from
the file system with no server and no network:

* ``index.html``: the leaderboard (runs x measures, sortable, 95% bootstrap intervals over
  topics, the truth beside it), counts of the citations worth a look per run, and the plots;
* ``runs/rI.html``: one run: its topics, and its citations in a table with filters
  (``data/rI.js``);
* ``runs/rI/tJ.html``: one run on one topic: the answer, each sentence coloured by status; a
  click on a citation shows the cited document with the evidence highlighted, the scores, the
  flags and the explanation (``data/rI/tJ.js`` and the topic's documents ``docs/tJ.js``, loaded by
  ``<script src>``, so a page loads its own data only);
* ``topics/tJ.html``: one topic: every run's answer to it.

Data files are JavaScript (``window.CJ_... = {json}``) with every ``/`` escaped as ``\\/``: no
``</script>`` and no URL appears literally, and nothing is ever fetched.
"""

from __future__ import annotations

import json
import re
import shutil
import time
import unicodedata
from collections import Counter, defaultdict
from html import escape
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from judges.formats.tables import read_assessments, read_leaderboard
from judges.report import svg
from judges.report.assets import CSS, JS
from judges.formats.documents import DocumentStore, locate
from judges.report.leaderboard import against_truth, board
from judges.vocabulary import STATUS_LABEL as JUDGE_LABEL, STATUS_RANK

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def u16(text: str, i: int) -> int:
    """Character offset ``i`` of ``text`` in UTF-16 code units (how JavaScript counts)."""
    return i if not _ASTRAL.search(text, 0, i) else len(text[:i].encode("utf-16-le")) // 2


def script(text: str, limit: int = 4000) -> Optional[str]:
    """The writing system most of the letters of ``text`` are in (LATIN, CYRILLIC, CJK, ARABIC...)."""
    counts: Counter = Counter()
    for ch in text[:limit]:
        if ch.isalpha():
            name = unicodedata.name(ch, "")
            word = name.split(" ")[0] if name else ""
            counts["CJK" if word in ("CJK", "HIRAGANA", "KATAKANA") else word] += 1
    return counts.most_common(1)[0][0] if counts else None


def js(var: str, obj) -> str:
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return f"window.{var}=" + text.replace("/", "\\/") + ";\n"


def _clean(v):
    if isinstance(v, float) and v != v:
        return None
    if isinstance(v, (np.floating,)):
        return None if np.isnan(v) else float(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.ndarray):
        return [_clean(x) for x in v.tolist()]
    return v


def _page(title: str, depth: int, body: str, scripts: tuple[str, ...] = (), tail: str = "") -> str:
    up = "../" * depth
    tags = "".join(f'<script src="{up}{s}"></script>' for s in scripts)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width">'
        f'<title>{escape(title)}</title><link rel="stylesheet" href="{up}assets/report.css"></head><body>'
        f'{body}{tags}<script src="{up}assets/report.js"></script>{tail}</body></html>\n'
    )


def _write(path: Path, text: str, sizes: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    sizes.append(len(text.encode("utf-8")))


def _ci(v, lo, hi, a_lo=float("nan"), a_hi=float("nan")) -> str:
    """A value cell: under the value its bootstrap interval over topics (``[lo, hi]``) and, when
    given, the interval for the assessors' value (``assessors [a_lo, a_hi]``, judges.intervals)."""
    if v is None or v != v:
        return '<td data-v="">—</td>'
    small = f"<small>[{lo:.3f}, {hi:.3f}]</small>" if lo == lo and hi == hi else ""
    if a_lo == a_lo and a_hi == a_hi:
        small += f'<small class="assessors">assessors [{a_lo:.3f}, {a_hi:.3f}]</small>'
    return f'<td data-v="{v:.6f}">{v:.3f}{small}</td>'


P_NEXT_HEADER = '<th title="the probability that the assessors rank the run above the next one">P(above next)</th>'


def _assessors(b, run: str, m: str) -> tuple[float, float]:
    """The 95% interval for the assessors' value of ``m`` for ``run`` (NaN without NAME.intervals,
    and for the measures without judge error: their interval is the value)."""
    from judges.intervals import NO_JUDGE_ERROR

    if b.assessors_low is None or run not in b.assessors_low.index or m in NO_JUDGE_ERROR:
        return float("nan"), float("nan")
    return b.assessors_low.loc[run, m], b.assessors_high.loc[run, m]


def build_report(  # noqa: C901 (to split: issue 32)
    out_dir,
    name: Optional[str] = None,
    report_dir: Optional[Path] = None,
    truth: Optional[Path] = None,
    truth_measure: Optional[str] = None,
    labels: Optional[Path] = None,
    responses: Optional[list] = None,
    corpus: Optional[Path] = None,
    resamples: int = 1000,
    warn: Callable[[str], None] = lambda m: None,
) -> dict:
    """Write the report; returns ``{"path", "files", "bytes", "largest", "seconds"}``."""
    started = time.perf_counter()
    store = DocumentStore(out_dir, name, responses=responses, corpus=corpus)
    name = store.name
    out = Path(report_dir) if report_dir is not None else Path(out_dir) / f"{name}.report"
    if out.exists() and any(out.iterdir()):
        if not (out / "assets" / "report.js").is_file():  # never delete what is not a report
            from judges.errors import InputError

            raise InputError(
                out, None, "--report-dir", "exists and is not a citejudge report; give an empty or new directory"
            )
        shutil.rmtree(out)
    sizes: list[int] = []
    df = read_assessments(out_dir, name)
    lb = read_leaderboard(out_dir, name)
    truth_df = None
    if truth is not None:
        from judges.formats.leaderboards import read_any_leaderboard

        truth_df = read_any_leaderboard(truth)
    trust = {}
    for kind in ("intervals", "pairs"):  # judges.intervals; absent from outputs written before them
        if (Path(out_dir) / f"{name}.{kind}.parquet").is_file():
            from judges import intervals as iv

            trust[kind] = getattr(iv, f"read_{kind}")(out_dir, name)
    b = board(lb, truth_df, truth_measure, resamples=resamples, **trust)
    paths = (Path(truth), Path(out_dir) / f"{name}.leaderboard.parquet") if truth is not None else ()
    against = against_truth(b, lb, truth_df, paths, warn) if truth_df is not None else None
    thresholds = _thresholds(store.config)

    # -- labels: human label per citation (or sentence) and whether the judge disagrees ----------
    human: dict[tuple, str] = {}
    label_level = None
    if labels is not None:
        from judges.meta.labels import read_labels

        lab = read_labels(labels)
        label_level = lab.level
        for r in lab.table.itertuples(index=False):
            key = (str(r.run_id), str(r.topic_id), int(r.sentence_index)) + (
                (str(r.doc_id),) if lab.level == "citation" else ()
            )
            human[key] = r.label

    runs = b.runs + sorted(set(df["run_id"]) - set(b.runs))
    run_ix = {r: i for i, r in enumerate(runs)}
    topics = sorted(set(lb["topic_id"]) - {"all"} | set(df["topic_id"]))
    topic_ix = {t: j for j, t in enumerate(topics)}
    titles = _topic_titles(store.config)

    # -- citations, grouped by report ------------------------------------------------------------
    cols = [c for c in df.columns if not c.startswith("f_")]
    records = df[cols].to_dict("records")
    by_report: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in records:
        by_report[(r["run_id"], r["topic_id"])].append({k: _clean(v) for k, v in r.items()})
    corpus_ids = {r["doc_id"] for r in records if r["doc_source"] == "corpus" and r["doc_id"] is not None}
    corpus_docs = store.load_corpus(corpus_ids) if corpus_ids else {}

    topic_docs: dict[int, dict[str, dict]] = defaultdict(dict)
    doc_keys: dict[tuple[str, str], str] = {}
    scripts: dict[str, Optional[str]] = {}
    run_rows: dict[int, list] = defaultdict(list)
    per_report_counts: dict[tuple[str, str], Counter] = {}
    flag_counts: dict[str, Counter] = defaultdict(Counter)
    seen_reports: set = set()

    def doc_key(doc) -> str:
        k = (doc.doc_id, doc.text)
        if k not in doc_keys:
            import hashlib

            doc_keys[k] = "d" + hashlib.sha1(f"{doc.doc_id}\0{doc.text}".encode("utf-8")).hexdigest()[:12]
        return doc_keys[k]

    def write_report_page(run: str, topic: str, sentences: list[tuple[int, str]], documents: dict) -> None:
        i, j = run_ix[run], topic_ix[topic]
        cites = by_report.get((run, topic), [])
        by_sent: dict[int, list] = defaultdict(list)
        for c in cites:
            by_sent[c["sentence_index"]].append(c)
        sent_rows = []
        counts: Counter = Counter()
        for index, text in sentences:
            s_script = None
            out_cites = []
            for c in sorted(by_sent.get(index, []), key=lambda c: c["citation_rank"]):
                doc = documents.get(c["doc_id"]) if c["doc_id"] is not None and c["status"] != "missing" else None
                if doc is None and c["doc_id"] is not None and c["status"] != "missing":
                    doc = corpus_docs.get(c["doc_id"])
                entry = {
                    k: c.get(k)
                    for k in (
                        "citation",
                        "doc_id",
                        "status",
                        "support_status",
                        "score",
                        "norm_score",
                        "answer_coverage",
                        "evidence_coverage",
                        "char_start",
                        "char_end",
                        "evidence",
                        "doc_source",
                        "reason",
                        "p_any",
                        "p_full",
                        "llm_answer",
                        "llm_p_yes",
                        "numbers_missing",
                        "entities_missing",
                        "capped",
                        "explanation",
                        "sentence",
                    )
                }
                entry["sentence_index"], entry["rank"] = index, c["citation_rank"]
                entry["key"] = f"s{index}c{c['citation_rank']}"
                if doc is not None:
                    key = doc_key(doc)
                    topic_docs[j].setdefault(key, {"id": doc.doc_id, "title": doc.title, "text": doc.text})
                    entry["doc"] = key
                    entry["doc_chars"] = len(doc.text)
                    entry["a16"], entry["b16"] = u16(doc.text, c["char_start"]), u16(doc.text, c["char_end"])
                    mapping = store.mapping(doc.doc_id)
                    if mapping:
                        entry["pages"], entry["boxes"] = locate(mapping, doc.text, c["char_start"], c["char_end"])
                    if s_script is None:
                        s_script = script(text) or ""
                    if key not in scripts:
                        scripts[key] = script(doc.text)
                    if s_script and scripts[key] and s_script != scripts[key]:
                        entry["xlang"] = f"sentence in {s_script.lower()} script, document in {scripts[key].lower()}"
                label = (
                    human.get((run, topic, index, c["doc_id"]))
                    if label_level == "citation"
                    else human.get((run, topic, index))
                )
                if label is not None:
                    entry["label"] = label
                    judged = JUDGE_LABEL[c["status"]]
                    if label_level == "sentence":
                        best = max(by_sent[index], key=lambda x: STATUS_RANK[x["status"]])["status"]
                        judged = JUDGE_LABEL[best]
                    entry["disagree"] = judged != label
                counts[c["status"]] += 1
                for f in ("capped", "xlang", "disagree"):
                    if entry.get(f):
                        flag_counts[run][f] += 1
                out_cites.append(entry)
                run_rows[i].append(
                    {
                        "topic_id": topic,
                        "href": f"r{i}/t{j}.html",
                        "sentence_index": index,
                        "rank": entry["rank"],
                        "key": entry["key"],
                        "doc_id": c["doc_id"] if c["doc_id"] is not None else c["citation"],
                        "status": c["status"],
                        "p_full": c["p_full"],
                        "capped": bool(c["capped"]),
                        "xlang": entry.get("xlang"),
                        "disagree": entry.get("disagree", False),
                        "explanation": c["explanation"],
                    }
                )
            status = max((x["status"] for x in out_cites), key=STATUS_RANK.get) if out_cites else "uncited"
            sent_rows.append({"index": index, "text": text, "status": status, "cites": out_cites})
        per_report_counts[(run, topic)] = counts
        measures = {m: float(v) for m, v in lb_idx.get((run, topic), {}).items()}
        data = {
            "run": run,
            "topic": topic,
            "title": titles.get(topic, ""),
            "thresholds": thresholds,
            "sentences": sent_rows,
            "measures": measures,
        }
        _write(out / "data" / f"r{i}" / f"t{j}.js", js("CJ_PAGE", data), sizes)
        head = (
            f'<nav><a href="../../index.html">leaderboard</a> › <a href="../r{i}.html">run {escape(run)}</a> › '
            f'<a href="../../topics/t{j}.html">topic {escape(topic)}</a></nav>'
            f'<h1>{escape(run)} on topic {escape(topic)}</h1><p class="muted">{escape(titles.get(topic, ""))}</p>'
            f"<p>{_measure_line(lb_idx.get((run, topic), {}), b.headline)}</p>"
            '<p class="muted">Sentences are coloured by their best citation: '
            "supported, partial, unsupported, missing; "
            'uncited sentences are plain.</p><div id="app"></div>'
        )
        _write(
            out / "runs" / f"r{i}" / f"t{j}.html",
            _page(f"{run} / {topic}", 2, head, (f"data/r{i}/t{j}.js", f"docs/t{j}.js"), "<script>CJ.page()</script>"),
            sizes,
        )

    lb_idx: dict[tuple[str, str], dict] = defaultdict(dict)
    for r, t, m, v in zip(lb["run_id"], lb["topic_id"], lb["measure"], lb["value"]):
        lb_idx[(r, t)][m] = v

    for rep in store.reports():
        key = (rep.run_id, rep.topic_id)
        if key in seen_reports or rep.run_id not in run_ix or rep.topic_id not in topic_ix or key not in lb_idx:
            continue
        seen_reports.add(key)
        docs = {k: v for k, v in rep.documents.items() if v is not None}
        write_report_page(rep.run_id, rep.topic_id, [(s.index, s.text) for s in rep.sentences], docs)
    missing_reports = [k for k in by_report if k not in seen_reports]
    if missing_reports:
        warn(
            f"{len(missing_reports)} reports not found in the run files: "
            "their pages show the cited sentences only, without documents"
        )
    for run, topic in missing_reports:
        sents = sorted({(c["sentence_index"], c["sentence"]) for c in by_report[(run, topic)]})
        write_report_page(run, topic, sents, {})

    for j, docs in topic_docs.items():
        _write(
            out / "docs" / f"t{j}.js",
            "window.CJ_DOCS=window.CJ_DOCS||{};Object.assign(window.CJ_DOCS,"
            + js("X", docs)[len("window.X=") : -2]
            + ");\n",
            sizes,
        )
    for j in range(len(topics)):
        if j not in topic_docs:
            _write(out / "docs" / f"t{j}.js", "window.CJ_DOCS=window.CJ_DOCS||{};\n", sizes)

    # -- run pages -----------------------------------------------------------------------------------
    status_by_run = {r: Counter() for r in runs}
    for (run, _), counts in per_report_counts.items():
        status_by_run[run].update(counts)
    for run in runs:
        i = run_ix[run]
        _write(out / "data" / f"r{i}.js", js("CJ_RUN", {"run": run, "rows": run_rows.get(i, [])}), sizes)
        rows = []
        for t in topics:
            if (run, t) not in lb_idx:
                continue
            j = topic_ix[t]
            c = per_report_counts.get((run, t), Counter())
            v = lb_idx[(run, t)].get(b.headline)
            rows.append(
                f'<tr><td class="l"><a href="r{i}/t{j}.html">{escape(t)}</a></td>'
                f'<td class="l">{escape(_short(titles.get(t, ""), 70))}</td>'
                f"{_ci(v, float('nan'), float('nan'))}"
                + "".join(f'<td data-v="{c[s]}">{c[s]}</td>' for s in svg.STATUSES)
                + "</tr>"
            )
        measures = "".join(
            f'<tr><th class="l">{m}</th>'
            + _ci(
                b.value.loc[run, m] if run in b.value.index else None,
                b.low.loc[run, m] if run in b.low.index else float("nan"),
                b.high.loc[run, m] if run in b.high.index else float("nan"),
                *_assessors(b, run, m),
            )
            + "</tr>"
            for m in b.measures
        )
        body = (
            f'<nav><a href="../index.html">leaderboard</a> › run {escape(run)}</nav><h1>Run {escape(run)}</h1>'
            + svg.status_bars([(run, status_by_run[run], None)])
            + "<h2>Measures (mean over topics; 95% interval by bootstrap over topics; the assessors' value on "
            + f"these topics, 95%)</h2><table>{measures}</table>"
            + '<h2>Topics</h2><table class="sortable"><tr><th class="l">topic</th><th class="l">title</th>'
            + f"<th>{b.headline}</th>"
            + "".join(f"<th>{s}</th>" for s in svg.STATUSES)
            + "</tr>"
            + "".join(rows)
            + "</table>"
            + '<h2>Citations</h2><div id="citations"></div>'
        )
        _write(
            out / "runs" / f"r{i}.html",
            _page(f"run {run}", 1, body, (f"data/r{i}.js",), "<script>CJ.run()</script>"),
            sizes,
        )

    # -- topic pages -----------------------------------------------------------------------------------
    for t in topics:
        j = topic_ix[t]
        rows = []
        for run in runs:
            if (run, t) not in lb_idx:
                continue
            i = run_ix[run]
            c = per_report_counts.get((run, t), Counter())
            rows.append(
                f'<tr><td class="l"><a href="../runs/r{i}/t{j}.html">{escape(run)}</a></td>'
                f"{_ci(lb_idx[(run, t)].get(b.headline), float('nan'), float('nan'))}"
                + "".join(f'<td data-v="{c[s]}">{c[s]}</td>' for s in svg.STATUSES)
                + "</tr>"
            )
        body = (
            f'<nav><a href="../index.html">leaderboard</a> › topic {escape(t)}</nav><h1>Topic {escape(t)}</h1>'
            f'<p>{escape(titles.get(t, ""))}</p><table class="sortable"><tr><th class="l">run</th><th>{b.headline}</th>'
            + "".join(f"<th>{s}</th>" for s in svg.STATUSES)
            + "</tr>"
            + "".join(rows)
            + "</table>"
        )
        _write(out / "topics" / f"t{j}.html", _page(f"topic {t}", 1, body), sizes)

    # -- index -------------------------------------------------------------------------------------------
    _write(
        out / "index.html",
        _index(
            name,
            b,
            runs,
            run_ix,
            topics,
            topic_ix,
            titles,
            df,
            status_by_run,
            flag_counts,
            thresholds,
            lb_idx,
            label_level,
            store.config,
            against,
        ),
        sizes,
    )
    _write(out / "assets" / "report.css", CSS, sizes)
    _write(out / "assets" / "report.js", JS, sizes)
    return {
        "path": str(out / "index.html"),
        "files": len(sizes),
        "bytes": sum(sizes),
        "largest": max(sizes),
        "seconds": time.perf_counter() - started,
    }


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _measure_line(values: dict, headline: str) -> str:
    parts = [f"<b>{escape(headline)} {values[headline]:.3f}</b>"] if headline in values else []
    parts += [f"{escape(m)} {v:.3f}" for m, v in values.items() if m != headline]
    return " · ".join(parts)


def _thresholds(config: dict) -> dict:
    """The support judge's thresholds as the judge used them (model defaults filled in)."""
    try:
        from judges.config import SupportSettings
        from judges.support.judges import get_judge

        wf = config.get("workflow", {})
        path = (config.get("inputs", {}).get("workflow") or {}).get("path")
        return get_judge(SupportSettings(**wf.get("support", {})), Path(path) if path else None).thresholds()
    except Exception:  # an unreadable model: the page shows the statuses without thresholds
        return {}


def _topic_titles(config: dict) -> dict[str, str]:
    from judges.errors import InputError
    from judges.formats.topics import read_topics

    titles: dict[str, str] = {}
    for entry in config.get("inputs", {}).get("topics", []) or []:
        path = Path(entry["path"] if isinstance(entry, dict) else entry)
        if not path.exists():
            continue
        try:
            for _, topic in read_topics(path):
                if not isinstance(topic, InputError):
                    titles.setdefault(topic.topic_id, topic.title or topic.text)
        except Exception:
            continue
    return titles


def _index(
    name,
    b,
    runs,
    run_ix,
    topics,
    topic_ix,
    titles,
    df,
    status_by_run,
    flag_counts,
    thresholds,
    lb_idx,
    label_level,
    config,
    against=None,
) -> str:
    """``against``: the judge against the truth (:func:`judges.report.leaderboard.against_truth`):
    the truth column, its rank, the plot and the tau, each run over the truth's topics for it."""
    counts = Counter(df["status"])
    n = len(df)
    tau = against.tau if against is not None else None
    truth_values = against.truth if against is not None else b.truth
    truth_rank = {}
    if truth_values is not None:
        ranked = truth_values.sort_values(ascending=False, kind="stable")
        truth_rank = {r: k + 1 for k, r in enumerate(ranked.index)}
    head = ["<th>#</th>", '<th class="l">run</th>']
    if b.truth is not None:
        head += [f"<th>truth: {escape(b.truth_measure)}</th>", "<th>truth rank</th>"]
    head += [f"<th>{escape(m)}</th>" for m in b.measures]
    if b.next_p is not None:  # beside the headline
        head.insert(head.index(f"<th>{escape(b.headline)}</th>") + 1, P_NEXT_HEADER)
    head += ["<th>unsupported</th>", "<th>missing</th>", "<th>capped</th>", "<th>cross-language</th>"]
    if label_level:
        head.append("<th>disagreements</th>")
    rows = []
    for k, run in enumerate(runs):
        i = run_ix[run]
        cells = [f'<td data-v="{k + 1}">{k + 1}</td>', f'<td class="l"><a href="runs/r{i}.html">{escape(run)}</a></td>']
        if b.truth is not None:
            tv = truth_values.get(run, float("nan"))
            cells.append(_ci(tv, float("nan"), float("nan")))
            cells.append(f'<td data-v="{truth_rank.get(run, "")}">{truth_rank.get(run, "—")}</td>')
        for m in b.measures:
            has = run in b.value.index
            cells.append(
                _ci(
                    b.value.loc[run, m] if has else None,
                    b.low.loc[run, m] if has else float("nan"),
                    b.high.loc[run, m] if has else float("nan"),
                    *_assessors(b, run, m),
                )
            )
            if m == b.headline and b.next_p is not None:
                p = b.next_p.get(run)
                cells.append(f'<td data-v="{p:.6f}">{p:.2f}</td>' if p is not None else '<td data-v="">—</td>')
        sc, fc = status_by_run.get(run, Counter()), flag_counts.get(run, Counter())
        for f, v in (
            ("unsupported", sc["unsupported"]),
            ("missing", sc["missing"]),
            ("capped", fc["capped"]),
            ("xlang", fc["xlang"]),
        ) + ((("disagree", fc["disagree"]),) if label_level else ()):
            cells.append(
                f'<td data-v="{v}"><a href="runs/r{i}.html#f={f}">{v}</a></td>' if v else '<td data-v="0">0</td>'
            )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    table = f'<table class="sortable" id="leaderboard"><tr>{"".join(head)}</tr>{"".join(rows)}</table>'

    plots = [
        "<h3>Status of the citations, per run</h3>"
        + svg.status_bars([(r, status_by_run.get(r, {}), f"runs/r{run_ix[r]}.html") for r in runs])
    ]
    by_status = {s: df.loc[df["status"] == s] for s in svg.STATUSES}
    if thresholds.get("judge") == "model":
        plots.append(
            "<h3>Distribution of P(full), by final status, with the supported threshold</h3>"
            + svg.histogram(
                {s: g["p_full"].dropna().tolist() for s, g in by_status.items()},
                [(thresholds["p_supported"], "supported at P(full) ≥")],
                "P(full)",
            )
        )
        plots.append(
            "<h3>Distribution of P(any), by final status, with the partial threshold</h3>"
            + svg.histogram(
                {s: g["p_any"].dropna().tolist() for s, g in by_status.items()},
                [(thresholds["p_partial"], "partial at P(any) ≥")],
                "P(any)",
            )
        )
    else:
        lines = [(thresholds[k], k) for k in ("norm_supported", "norm_partial") if k in thresholds]
        plots.append(
            "<h3>Distribution of norm_score, by final status, with the thresholds</h3>"
            + svg.histogram({s: g["norm_score"].dropna().tolist() for s, g in by_status.items()}, lines, "norm_score")
        )
    if against is not None:
        pts = [
            (r, float(against.truth[r]), float(against.judged[r]), f"runs/r{run_ix[r]}.html")
            for r in runs
            if r in against.truth.index
        ]
        over = ", each run over the topics the truth has for it" if against.truth_topics else ""
        plots.append(f"<h3>Judge against truth, per run{over} (Kendall's tau {tau:.3f})</h3>")
        plots.append(svg.scatter(pts, f"truth: {b.truth_measure}", f"judge: {b.headline}"))
    plots.append(
        f"<h3>{escape(b.headline)} per run and topic (click a cell for the answer)</h3>"
        + svg.heatmap(
            runs,
            topics,
            lambda r, t: lb_idx.get((r, t), {}).get(b.headline, float("nan")),
            lambda r, t: f"runs/r{run_ix[r]}/t{topic_ix[t]}.html",
            b.headline,
        )
    )

    thr = ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}" for k, v in thresholds.items())
    summary = (
        f"<p>{n} citations judged: "
        + ", ".join(f"{counts[s]} {s}" for s in svg.STATUSES)
        + f". Support judge: {escape(thr) or 'unknown'}."
        + (f" Attestation: {escape(str(config.get('attest', {}).get('mode')))}." if config.get("attest") else "")
        + (
            f" Judge against truth: Kendall's tau {tau:.3f} over {len(against.truth)} runs"
            + (
                ", each run's mean over the topics the truth has for it, on both sides"
                " (as <code>meta-evaluate --truth-topics</code> ranks them)."
                if against.truth_topics
                else "."
            )
            if against is not None
            else ""
        )
        + "</p>"
    )
    topic_list = "".join(
        f'<li><a href="topics/t{topic_ix[t]}.html">{escape(t)}</a> {escape(_short(titles.get(t, ""), 90))}</li>'
        for t in topics
    )
    body = (
        f"<nav>citejudge report · <b>{escape(name)}</b></nav><h1>{escape(name)}: leaderboard</h1>{summary}"
        f'<p class="muted">Runs ranked by {escape(b.headline)} (the mean over each run\'s topics); '
        "under each value its 95% interval from a bootstrap over the run's topics and, labelled assessors, for "
        "the measures that depend on support judgments the 95% interval for the value the track's assessors "
        "would give on these topics (the judge's error, "
        f"{escape(name)}.intervals.tsv); beside {escape(b.headline)} the probability that the assessors rank the "
        f"run above the next one ({escape(name)}.pairs.tsv). "
        "Click a header to sort, a run for its answers, a count for those citations.</p>"
        f'{table}<h2>Plots</h2><div class="plots">{"".join(plots)}</div><h2>Topics</h2><ul>{topic_list}</ul>'
    )
    return _page(f"{name}: citejudge report", 0, body)
