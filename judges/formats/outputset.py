"""The files of a session's output set, named once: every writer, reader, the report, ``meta``,
``merge`` and the AutoJudge adapter find a file's name here (:func:`path`), by its kind (the key
under which the summary and ``NAME.config.yml`` list it). How the set is replaced as one is
:mod:`judges.formats.outset`.

A file of kind ``k`` in out-dir ``OUT`` of set ``NAME`` is ``OUT/NAME.<suffix>``; a suffix with
``{fields}`` is filled in by :func:`path` (a round of ``plan-assessments``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from judges.formats.trec import LEADERBOARD_FORMATS


class OutputFile(NamedTuple):
    kind: str  # the key of summary.files and the output targets
    suffix: str  # the file is NAME.<suffix>
    format: str
    writer: str  # the module that writes it
    what: str
    pair_kind: str = ""  # the kind of pair whose judgments it holds, beyond the citations (judges.attest.kinds)
    beside: bool = False  # written by another command beside the set, not part of it


def _written_by(
    writer: str, *rows: tuple[str, str, str, str], pair_kind: str = "", beside: bool = False
) -> tuple[OutputFile, ...]:
    """The files the module ``writer`` writes: ``(kind, suffix, format, what)`` rows."""
    return tuple(OutputFile(kind, suffix, form, writer, what, pair_kind, beside) for kind, suffix, form, what in rows)


FILES: tuple[OutputFile, ...] = (
    *_written_by(
        "judges.session.writer",
        ("qrels", "qrels", "TREC qrels", "best grade per (topic, md5 of sentence + citation)"),
        ("doc_qrels", "doc.qrels", "TREC qrels", "best grade per (topic, cited document)"),
        ("leaderboard_ir_measures", "leaderboard.txt", "run topic measure value", "leaderboard"),
        ("leaderboard_tot", "leaderboard.tot.txt", "tot: measure topic value", "leaderboard"),
        ("leaderboard_jsonl", "leaderboard.jsonl", "JSON lines", "leaderboard"),
        ("leaderboard_parquet", "leaderboard.parquet", "Parquet", "leaderboard"),
        ("assessments_parquet", "assessments.parquet", "Parquet", "one row per citation"),
        ("coverage", "coverage.tsv", "TSV", "per run: topics answered, citations missing"),
    ),
    *_written_by(
        "judges.scores.intervals",
        ("intervals", "intervals.tsv", "TSV", "per run and measure: 95% intervals"),
        ("intervals_parquet", "intervals.parquet", "Parquet", "the intervals"),
        ("pairs", "pairs.tsv", "TSV", "per pair of runs: P(the assessors order them so)"),
        ("pairs_parquet", "pairs.parquet", "Parquet", "the pairs"),
    ),
    *_written_by(
        "judges.session.writer",
        ("plan", "plan.tsv", "TSV", "the citations the attestation plan chose"),
        ("config", "config.yml", "YAML", "the session: inputs, workflow, counts"),
    ),
    *_written_by(
        "judges.session.pipeline",
        ("debug_log", "jsonl", "JSON lines", "debug log (--debug-log puts it elsewhere)"),
    ),
    *_written_by(
        "judges.session.nuggets",
        ("nuggets_jsonl", "nuggets.jsonl", "JSON lines", "NIST's assignment shape"),
        ("nuggets_parquet", "nuggets.parquet", "Parquet", "per (answer, nugget)"),
        pair_kind="nugget",
    ),
    *_written_by(
        "judges.session.battles",
        (
            "battles_jsonl",
            "battles.jsonl",
            "JSON lines",
            "per battle (topic, two runs): order shown, verdict, probabilities, source, evidence",
        ),
        (
            "battle_ranking",
            "battles.ranking.tsv",
            "TSV",
            "per run: Bradley-Terry score over all topics, its interval and rank interval",
        ),
        (
            "battle_above",
            "battles.above.tsv",
            "TSV",
            "per ordered pair of runs: P(the first ranks above the second), over topic resamples",
        ),
        pair_kind="battle",
    ),
    *_written_by(
        "judges.session.nuggets",
        (
            "nugget_bank",
            "nugget-bank.jsonl",
            "JSON lines",
            "the nugget bank judged by (NIST's nuggets.jsonl shape; a made bank's, to edit and give back)",
        ),
        pair_kind="nugget",
    ),
    # written by other commands beside the set
    *_written_by(
        "judges.meta.assessing",
        ("assess_round", "assess-{round}.jsonl", "JSON lines", "plan-assessments"),
        ("assess_nugget_round", "assess-nuggets-{round}.jsonl", "JSON lines", "plan-assessments --nuggets"),
        beside=True,
    ),
    *_written_by(
        "judges.meta.battle_plan",
        ("assess_battle_round", "assess-battles-{round}.jsonl", "JSON lines", "plan-assessments --battles"),
        beside=True,
    ),
    *_written_by(
        "judges.attest.batch",
        ("batch_dir", "batch", "directory", "attest export: requests and manifest"),
        beside=True,
    ),
)
BY_KIND = {f.kind: f for f in FILES}
if len(BY_KIND) != len(FILES) or not all(f"leaderboard_{f}" in BY_KIND for f in LEADERBOARD_FORMATS):
    raise ValueError("output files: a kind named twice, or a --leaderboard-format without its file")


def suffix(kind: str) -> str:
    """The ``<suffix>`` of ``NAME.<suffix>`` for ``kind``."""
    return BY_KIND[kind].suffix


def file_name(name: str, kind: str, **fields) -> str:
    """``NAME.<suffix>`` for ``kind`` (``fields`` fill in the suffix's ``{fields}``)."""
    return f"{name}.{suffix(kind).format(**fields)}"


def path(out_dir: str | Path, name: str, kind: str, **fields) -> Path:
    """``OUT/NAME.<suffix>`` for ``kind``."""
    return Path(out_dir) / file_name(name, kind, **fields)


def of_set() -> tuple[OutputFile, ...]:
    """The files of the output set itself (not those other commands write beside it)."""
    return tuple(f for f in FILES if not f.beside)


def of_pair_kind(kind: str) -> tuple[OutputFile, ...]:
    """The files that hold the judgments of the kind of pair ``kind`` (``nugget``), in table order."""
    return tuple(f for f in FILES if f.pair_kind == kind)


def is_round(path: str | Path) -> bool:
    """Whether a file's name is that of a round ``plan-assessments`` writes beside a set
    (``NAME.assess-N.jsonl``, ``NAME.assess-nuggets-N.jsonl``, ``NAME.assess-battles-N.jsonl``, or
    ``NAME.assess.jsonl`` as written before rounds were numbered)."""
    kinds = ("assess_round", "assess_nugget_round", "assess_battle_round")
    rounds = [re.escape(suffix(k)).replace(r"\{round\}", r"\d+") for k in kinds]
    return re.fullmatch(rf".+\.(?:{'|'.join(rounds)}|assess\.jsonl)", Path(path).name) is not None


def holds_set(directory: str | Path) -> bool:
    """Whether a directory is an out-dir: it holds a set's ``NAME.config.yml``."""
    return any(Path(directory).glob("*." + suffix("config")))


def leaderboard(fmt: str) -> str:
    """The kind of the leaderboard file in ``--leaderboard-format`` ``fmt``."""
    return f"leaderboard_{fmt}"
