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
  ``<script src>``, so a page loads its own data only); written for every answer, and linked only
  where written (a topic a run did not answer shows as not answered);
* ``topics/tJ.html``: one topic: every run's answer to it.

Data files are JavaScript (``window.CJ_... = {json}``) with every ``/`` escaped as ``\\/``: no
``</script>`` and no URL appears literally, and nothing is ever fetched.

Three steps: :func:`gather` reads the tables and the inputs (:class:`judges.report.pages.Tables`),
:func:`judges.report.pages.site` turns them into page data, :func:`files` renders them
(:mod:`judges.report.render`, Jinja2 templates) and :func:`build_report` writes them into a new
directory beside the report's and swaps it in when complete (:mod:`judges.formats.swapdir`): Ctrl-C
or a full disk meanwhile leaves the previous report whole.
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Callable, Iterator, Optional

from judges.core.measures import JUDGE_HEADLINES
from judges.formats import outputset
from judges.formats.atomic import naming
from judges.formats.swapdir import replacing
from judges.formats.documents import DocumentStore
from judges.formats.tables import read_assessments, read_leaderboard
from judges.report import pages, render
from judges.report.leaderboard import against_truth, board


def build_report(
    store: DocumentStore,
    report_dir: Optional[Path] = None,
    truth: Optional[Path] = None,
    truth_measure: Optional[str] = None,
    labels: Optional[Path] = None,
    resamples: int = 1000,
    warn: Callable[[str], None] = lambda m: None,
) -> dict:
    """Write the report of the judged set ``store`` opens (its out-dir and name, and where its
    answers and documents are read: :class:`judges.formats.documents.DocumentStore`); returns
    ``{"path", "files", "bytes", "largest", "seconds"}``. What the reader must know (documents the
    inputs did not give) goes to ``warn`` and on the pages."""
    started = time.perf_counter()
    out = Path(report_dir) if report_dir is not None else Path(store.out_dir) / f"{store.name}.report"
    _replaceable(out)
    _judged_inputs(store)
    site = pages.site(gather(store, truth, truth_measure, labels, resamples, warn))
    for message in site.warnings:
        warn(message)
    from judges.report.battles import battle_pages, has_battles

    sizes = []
    with_battles = has_battles(store.out_dir, store.name)
    with replacing(out) as new:  # written beside, then swapped in: an interrupted report leaves the old one whole
        for path, text in itertools.chain(files(site, with_battles), battle_pages(site, store.out_dir, store.name)):
            target = new / path
            target.parent.mkdir(parents=True, exist_ok=True)
            with naming(out / path):
                target.write_text(text, encoding="utf-8")
            sizes.append(len(text.encode("utf-8")))
    return {
        "path": str(out / "index.html"),
        "files": len(sizes),
        "bytes": sum(sizes),
        "largest": max(sizes),
        "seconds": time.perf_counter() - started,
    }


def _judged_inputs(store: DocumentStore) -> None:
    """The run files and corpus the set's config records, where they still are, are those judged
    (their sha256, as ``plan-assessments`` and ``attest export`` check): a page must show the
    document the judge read. Inputs given anew (moved: ``--rag-responses``, ``--corpus``) are taken
    as given; a recorded input that is gone is said by the pages (:meth:`DocumentStore.unavailable`)."""
    from judges.session.recorded import recorded_inputs

    inputs = store.config.get("inputs")
    if not isinstance(inputs, dict):
        return
    for kind in ("responses", "corpus"):
        if not store.given[kind]:
            recorded_inputs(inputs, kind, outputset.path(store.out_dir, store.name, "config"), missing_ok=True)


def _replaceable(out: Path) -> None:
    """``out`` may be replaced by the report: absent, empty or a report; never what is not a report."""
    from judges.core.errors import InputError

    if out.exists() and not out.is_dir():
        raise InputError(out, None, "--report-dir", "exists and is not a directory; give an empty or new directory")
    if out.exists() and any(out.iterdir()):
        if not (out / "assets" / "report.js").is_file():
            raise InputError(
                out, None, "--report-dir", "exists and is not a citejudge report; give an empty or new directory"
            )


def files(site: pages.Site, battles: bool = False) -> Iterator[tuple[str, str]]:
    """Every file of the report: (path under the report's directory, text); ``battles``: the index
    links the side-by-side pages (:mod:`judges.report.battles`)."""
    yield "assets/report.css", render.stylesheet()
    yield "assets/report.js", render.script()
    yield "index.html", render.page("index.html", 0, f"{site.name}: citejudge report", x=site.index, battles=battles)
    headline = site.index["headline"]
    for p in site.answers:
        yield f"data/r{p.i}/t{p.j}.js", render.js("CJ_PAGE", p.data)
        scripts = (f"data/r{p.i}/t{p.j}.js", f"docs/t{p.j}.js")
        yield (
            f"runs/r{p.i}/t{p.j}.html",
            render.page("answer.html", 2, f"{p.run} / {p.topic}", scripts, p=p, headline=headline),
        )
    for j in range(len(site.topics)):
        yield f"docs/t{j}.js", render.documents(site.docs.get(j, {}))
    for r in site.run_pages:
        yield f"data/r{r.i}.js", render.js("CJ_RUN", {"run": r.run, "rows": r.rows})
        yield f"runs/r{r.i}.html", render.page("run.html", 1, f"run {r.run}", (f"data/r{r.i}.js",), p=r)
    for t in site.topic_pages:
        yield f"topics/t{t.j}.html", render.page("topic.html", 1, f"topic {t.topic}", p=t)


# -- reading what the report shows ------------------------------------------------------------------
def gather(
    store: DocumentStore,
    truth: Optional[Path],
    truth_measure: Optional[str],
    labels: Optional[Path],
    resamples: int,
    warn: Callable[[str], None],
) -> pages.Tables:
    """The judge's tables, the truth, the labels, and the answers and documents from the inputs."""
    out_dir, name = store.out_dir, store.name
    df = read_assessments(out_dir, name)
    lb = read_leaderboard(out_dir, name)
    truth_df = None
    if truth is not None:
        from judges.formats.leaderboards import read_any_leaderboard

        truth_df = read_any_leaderboard(truth)
    headline = store.config.get("headline") or JUDGE_HEADLINES.get(store.config.get("judge", "citation"))
    b = board(lb, truth_df, truth_measure, resamples=resamples, headline=headline, **_trust(out_dir, name))
    paths = (Path(truth), outputset.path(out_dir, name, "leaderboard_parquet")) if truth is not None else ()
    corpus_ids = set(df.loc[(df["doc_source"] == "corpus") & df["doc_id"].notna(), "doc_id"])
    missing = store.config.get("filled_by_on_missing") or {}
    return pages.Tables(
        name,
        df,
        lb,
        b,
        _answers(store, df),
        corpus=store.load_corpus(corpus_ids) if corpus_ids else {},
        mappings={d: m for d in set(df["doc_id"].dropna()) if (m := store.mapping(d))},
        thresholds=_thresholds(store),
        titles=_topic_titles(store),
        labels=_labels(labels) if labels is not None else None,
        against=against_truth(b, lb, truth_df, paths, warn) if truth_df is not None else None,
        filled=frozenset((r, t) for r, ts in (missing.get("pairs") or {}).items() for t in ts),
        on_missing=missing.get("policy", "default"),
        attest_mode=(store.config.get("attest") or {}).get("mode"),
        unavailable=store.unavailable(),
        nuggets=_nuggets(out_dir, name),
        nugget_bank=store.config.get("nugget_bank"),
    )


def _trust(out_dir: Path, name: str) -> dict:
    """``NAME.intervals`` and ``NAME.pairs`` (judges.scores.intervals; absent from outputs written before them)."""
    found = {}
    for kind in ("intervals", "pairs"):
        if outputset.path(out_dir, name, f"{kind}_parquet").is_file():
            from judges.scores import intervals as iv

            found[kind] = getattr(iv, f"read_{kind}")(out_dir, name)
    return found


def _nuggets(out_dir: Path, name: str):
    """``NAME.nuggets.parquet`` (``--judge nugget`` or ``argue``), None for an output set without nuggets."""
    if not outputset.path(out_dir, name, "nuggets_parquet").is_file():
        return None
    from judges.session.nuggets import read_nuggets_table

    return read_nuggets_table(out_dir, name)


def _answers(store: DocumentStore, df) -> dict[tuple[str, str], pages.Answer]:
    """Each (run, topic)'s answer in the run files (the first of duplicates), with the documents
    it embeds that its citations cite."""
    cited: dict[tuple[str, str], set] = {}
    for run, topic, doc in zip(df["run_id"], df["topic_id"], df["doc_id"]):
        cited.setdefault((run, topic), set()).add(doc)
    answers: dict[tuple[str, str], pages.Answer] = {}
    for rep in store.reports():
        key = (rep.run_id, rep.topic_id)
        if key not in answers:
            wanted = cited.get(key, set())
            docs = {k: v for k, v in rep.documents.items() if v is not None and k in wanted}
            answers[key] = pages.Answer([(s.index, s.text) for s in rep.sentences], docs)
    return answers


def _labels(path: Path) -> pages.Labels:
    from judges.formats.labels import read_labels

    lab = read_labels(path)
    by_key = {}
    for r in lab.table.itertuples(index=False):
        key = (str(r.run_id), str(r.topic_id), int(r.sentence_index))
        by_key[key + ((str(r.doc_id),) if lab.level == "citation" else ())] = r.label
    return pages.Labels(lab.level, by_key)


def _thresholds(store: DocumentStore) -> dict:
    """The support judge's thresholds as the judge used them (model defaults filled in)."""
    try:
        from judges.core.config import SupportSettings
        from judges.support.judges import get_judge

        wf = store.config.get("workflow", {})
        path = next(iter(store.inputs("workflow")), None)
        return get_judge(SupportSettings(**wf.get("support", {})), path).thresholds()
    except Exception:  # an unreadable model: the page shows the statuses without thresholds
        return {}


def _topic_titles(store: DocumentStore) -> dict[str, str]:
    from judges.core.errors import InputError
    from judges.formats.topics import read_topics

    titles: dict[str, str] = {}
    for path in store.inputs("topics"):
        if not path.exists():
            continue
        try:
            for _, topic in read_topics(path):
                if not isinstance(topic, InputError):
                    titles.setdefault(topic.topic_id, topic.title or topic.text)
        except Exception:
            continue
    return titles
