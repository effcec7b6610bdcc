"""What the runs gave the judge to work with, per run: the coverage table and the loud notes.

``NAME.coverage.tsv`` (one row per run, beside the leaderboard) counts the topics a run answered,
its sentences, cited sentences and citations, the citations whose document text is missing (by
reason), and the cross-language citations (sentence and cited text in different scripts, not
aligned). The same figures are printed in the summary; when more than ``MISSING_WARN_SHARE`` of
a run's citations are missing, the summary says so with the reasons.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from judges.formats.atomic import atomic_text

MISSING_WARN_SHARE = 0.05  # above this share of missing citations (all runs together), the summary warns

# Why a citation's text is missing, from its recorded reason (judges.engine.judge.Judge.resolve, runs._sentence).
MISSING_REASONS = (
    ("not_in_run", "no --corpus given", "not in the run (no --corpus)"),
    ("not_in_corpus", "in neither the report's documents nor the corpus", "not in the run nor the corpus"),
    ("no_text", "has no text", "in the run without text"),
    ("index_out_of_range", "out of range", "index out of range"),
)
COLUMNS = (
    "run_id",
    "topics_answered",
    "topics",
    "filled_topics",
    "sentences",
    "cited_sentences",
    "citations",
    *(f"missing_{key}" for key, _, _ in MISSING_REASONS),
    "missing_other",
    "cross_language",
)


def missing_by_reason(table: pa.Table) -> dict[str, Counter]:
    """Per run, the missing citations counted by reason (``MISSING_REASONS`` keys, else ``other``)."""
    missing = table.filter(pc.equal(table["status"], "missing")).select(["run_id", "reason"])
    out: dict[str, Counter] = {}
    if missing.num_rows == 0:
        return out
    reason = missing["reason"].fill_null("")
    kind = pa.array(["other"] * missing.num_rows)
    for key, needle, _ in reversed(MISSING_REASONS):
        kind = pc.if_else(pc.match_substring(reason, needle), key, kind)
    grouped = (
        pa.table({"run_id": missing["run_id"], "kind": kind})
        .group_by(["run_id", "kind"])
        .aggregate([("kind", "count")])
    )
    for run, k, n in zip(grouped["run_id"].to_pylist(), grouped["kind"].to_pylist(), grouped["kind_count"].to_pylist()):
        out.setdefault(run, Counter())[k] = n
    return out


def status_by_run(table: pa.Table, status: str) -> Counter:
    """Per run, the citations with ``status``."""
    runs = table.filter(pc.equal(table["status"], status))["run_id"]
    return Counter({d["values"]: d["counts"] for d in pc.value_counts(runs).to_pylist()})


def coverage_rows(scan, topics: int, table: pa.Table, filled: list[tuple[str, str]]) -> list[dict]:
    """One row per selected run, sorted by run id."""
    missing = missing_by_reason(table)
    cross = status_by_run(table, "cross_language")
    n_filled = Counter(run for run, _ in filled)
    rows = []
    for run in sorted(scan.runs):
        cov, miss = scan.coverage.get(run, Counter()), missing.get(run, Counter())
        row = {
            "run_id": run,
            "topics_answered": len(scan.answered.get(run, ())),
            "topics": topics,
            "filled_topics": n_filled[run],
            "sentences": cov["sentences"],
            "cited_sentences": cov["cited_sentences"],
            "citations": cov["citations"],
        }
        row.update({f"missing_{key}": miss[key] for key, _, _ in MISSING_REASONS})
        row["missing_other"] = miss["other"]
        row["cross_language"] = cross[run]
        rows.append(row)
    return rows


def write_coverage(path: Path, rows: list[dict]) -> None:
    with atomic_text(path) as f:
        f.write("\t".join(COLUMNS) + "\n")
        for row in rows:
            f.write("\t".join(str(row[c]) for c in COLUMNS) + "\n")


def missing_warning(rows: list[dict]) -> str:
    """A one-line warning when more than ``MISSING_WARN_SHARE`` of the citations miss their text
    ('' otherwise): the share, then per run the counts by reason."""
    total = sum(r["citations"] for r in rows)
    labels = {f"missing_{key}": label for key, _, label in MISSING_REASONS} | {"missing_other": "other"}
    n_missing = sum(r[k] for r in rows for k in labels)
    if not total or n_missing <= MISSING_WARN_SHARE * total:
        return ""
    parts = []
    for r in rows:
        reasons = ", ".join(f"{r[k]} {label}" for k, label in labels.items() if r[k])
        if reasons:
            parts.append(f"{r['run_id']}: {reasons}")
    return (
        f"{n_missing} of {total} citations ({100 * n_missing / total:.1f}%) have no document text and are judged "
        f"'missing'; " + "; ".join(parts)
    )
