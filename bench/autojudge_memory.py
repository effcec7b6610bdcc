"""The AutoJudge adapter's footprint: temporary directories made, files written and CPU seconds of
``create_qrels`` + ``judge``, on kiddie (``/work/shared/data``) and the three bundled samples.

Usage::

    CITEJUDGE_SHARED=/work/shared PYTHONPATH=. python bench/autojudge_memory.py

Run it with another checkout on ``PYTHONPATH`` (e.g. ``git archive 486cda5 | tar -x -C /tmp/base``)
to compare: the samples are read from this file's checkout. Each case judges with a new
:class:`judges.api.autojudge.CitationJudge` (``backend: python``), once with ``keep_outputs: false``
and once with ``true``; ``tempfile.mkdtemp`` (which ``TemporaryDirectory`` calls) is wrapped to
count the directories made, and ``TMPDIR`` is an empty directory whose entries are counted after.
Prints one line per case and a total; with ``--dump FILE`` it writes the qrels and per-topic rows
as JSON, to diff two checkouts' results.

Importing autojudge-base needs NLTK's ``stopwords`` and ``punkt``: an empty stand-in is made for
what is missing (as ``tests/api/test_meta_autojudge.py`` does).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("CITEJUDGE_SHARED", "/work/shared")) / "data"
TRACKS = (("rag25", "teamR-run-a.jsonl"), ("ragtime", "teamT-run1.jsonl"), ("dragun", "teamD-base.jsonl"))


def nltk_stand_in(where: Path) -> None:
    """An empty English stopword list and an empty ``punkt``, where NLTK has none."""
    import nltk

    (where / "tokenizers" / "punkt").mkdir(parents=True)
    (where / "corpora" / "stopwords").mkdir(parents=True)
    (where / "corpora" / "stopwords" / "english").write_text("")
    nltk.data.path.append(str(where))  # searched after NLTK's own folders


def cases(ajb):
    from autojudge_base.report import load_report
    from autojudge_base.request import load_requests_from_file

    from judges.formats.topics import read_topics

    kiddie = SHARED / "kiddie"
    reports = [r for f in sorted((kiddie / "runs" / "repgen").iterdir()) for r in load_report(f)]
    yield "kiddie", reports, load_requests_from_file(kiddie / "topics" / "kiddie-topics.jsonl"), None
    for track, run in TRACKS:
        topics = [
            ajb.Request.model_validate({"request_id": t.topic_id, "title": t.title or t.topic_id})
            for _, t in read_topics(ROOT / "datasets" / track / "topics.jsonl")
        ]
        corpus = str(ROOT / "datasets" / "rag25" / "corpus.jsonl")
        yield track, load_report(ROOT / "runs" / track / run), topics, corpus


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dump", type=Path, help="write the qrels and per-topic rows here (JSON)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="autojudge-memory-") as t:
        work = Path(t)
        nltk_stand_in(work / "nltk")
        (work / "tmp").mkdir()
        os.environ["TMPDIR"] = str(work / "tmp")
        tempfile.tempdir = None  # gettempdir() reads TMPDIR again
        made: list = []
        real = tempfile.mkdtemp
        tempfile.mkdtemp = lambda *a, **k: made.append(a or k) or real(*a, **k)  # type: ignore[assignment]
        import autojudge_base as ajb

        from judges.api.autojudge import CitationJudge

        dump, total = {}, 0
        for name, reports, topics, corpus in cases(ajb):
            for keep in (False, True):
                before, out = len(made), work / "out" / f"{name}-{keep}"
                settings = {"outdir": out, "filebase": "x", "backend": "python", "keep_outputs": keep, "corpus": corpus}
                judge = CitationJudge()
                cpu = time.process_time()
                qrels = judge.create_qrels(reports, topics, None, **settings)
                lb = judge.judge(reports, topics, None, **settings)
                cpu = time.process_time() - cpu
                written = len(list(out.iterdir())) if out.exists() else 0
                total += len(made) - before
                print(
                    f"{name} keep_outputs={keep}: {len(made) - before} temporary dir(s) made, "
                    f"{len(list((work / 'tmp').iterdir()))} left in TMPDIR, {written} file(s) in the out-dir, "
                    f"{cpu:.2f} CPU s",
                    flush=True,
                )
                dump[f"{name}/{keep}"] = {
                    "qrels": sorted((r.topic_id, r.doc_id, r.grade) for r in qrels.rows),
                    "rows": sorted((e.run_id, e.topic_id, m, v) for e in lb.entries for m, v in e.values.items()),
                }
        print(f"total: {total} temporary dir(s) made by {len(dump)} judges")
        if args.dump is not None:
            args.dump.write_text(json.dumps(dump, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
