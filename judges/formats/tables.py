"""Parquet tables for notebooks: per-citation assessments and the long-form leaderboard.

:func:`read_table` is the one reader of citejudge's Parquet tables (``judges.read_*``, the
summary, ``report``, ``agreement``, ``calibrate``, ``plan-assessments``): a file that is damaged,
cut short or of another kind raises :class:`~judges.core.errors.UnreadableFile` naming it, never
pyarrow's error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from judges.core.errors import UnreadableFile
from judges.formats import outputset
from judges.formats.atomic import atomic_path
from judges.core.vocabulary import FEATURES

ASSESSMENT_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("topic_id", pa.string()),
        ("sentence_index", pa.int32()),
        ("citation_rank", pa.int32()),
        ("citation", pa.string()),  # as written: an index or a doc id
        ("doc_id", pa.string()),  # resolved document id (null: index out of range)
        ("qrels_doc_id", pa.string()),  # md5(sentence + "_" + citation id), the qrels key
        ("status", pa.string()),
        ("grade", pa.int8()),
        ("weight", pa.float64()),  # the citation's weight in WEIGHTED_PRECISION (judges.engine.weights)
        ("score", pa.int32()),
        ("norm_score", pa.float64()),
        ("answer_coverage", pa.float64()),
        ("evidence_coverage", pa.float64()),
        ("answer_tokens", pa.int32()),
        ("char_start", pa.int32()),
        ("char_end", pa.int32()),
        ("evidence", pa.string()),
        # every place of the document the sentence draws on (judges.align.spans): in document order,
        # disjoint, (char_start, char_end) among them; empty when not aligned
        ("evidence_spans", pa.list_(pa.struct([("char_start", pa.int32()), ("char_end", pa.int32())]))),
        ("doc_source", pa.string()),
        ("reason", pa.string()),
        ("confidence", pa.float64()),
        ("sentence", pa.string()),
        ("support_status", pa.string()),  # the support judge's status, before LLM attestation and the cap
        ("p_any", pa.float64()),  # support model: P(at least partially supported)
        ("p_full", pa.float64()),  # support model: P(fully supported)
        ("llm_answer", pa.string()),  # YES | NO | unparsed | failed | guarded; null: not sent
        ("llm_p_yes", pa.float64()),
        ("llm_tokens_in", pa.int32()),
        ("llm_tokens_out", pa.int32()),
        ("numbers_missing", pa.list_(pa.string())),  # the sentence's numbers the document lacks
        ("entities_missing", pa.list_(pa.string())),  # the sentence's entities the document lacks
        ("capped", pa.bool_()),  # lowered to partial by the grounding cap
        ("human_label", pa.string()),  # an assessor's level from --labels, final (null: none)
        ("explanation", pa.string()),  # the verdict in words (judges.engine.explain): never empty
    ]
    # the support features (judges.support.features), null for missing documents
    + [(f"f_{name}", pa.float64()) for name in FEATURES]
)
ASSESSMENT_SORT = [
    ("run_id", "ascending"),
    ("topic_id", "ascending"),
    ("sentence_index", "ascending"),
    ("citation_rank", "ascending"),
]

LEADERBOARD_SCHEMA = pa.schema(
    [("run_id", pa.string()), ("topic_id", pa.string()), ("measure", pa.string()), ("value", pa.float64())]
)


def write_table(path: Path, table: pa.Table) -> None:
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")


def output_file(path: str | Path, name: str | None, kind: str) -> Path:
    """The output of ``kind`` (:mod:`judges.formats.outputset`), ``NAME.suffix``, in the output
    directory ``path`` (the one of its kind when ``name`` is None), or ``path`` itself when it is a file."""
    suffix = outputset.suffix(kind)
    path = Path(path)
    if path.is_dir():
        from judges.formats.outset import settle
        from judges.formats.setrecord import check_set, named_sets

        if name is None:
            candidates = sorted(path.glob(f"*.{suffix}"))
            if len(candidates) != 1:
                recorded = named_sets(path)
                if len(recorded) == 1:  # the set's record names it: its file of this kind is gone?
                    settle(path, recorded[0])
                    check_set(path, recorded[0])
                raise FileNotFoundError(f"{path}: expected one *.{suffix}, found {len(candidates)}; pass name=")
            found = candidates[0]
            name = found.name[: -len(suffix) - 1]
        else:
            found = outputset.path(path, name, kind)
        settle(path, name)  # a session killed while replacing its outputs: complete its set first
        check_set(path, name)  # a file damaged, gone or changed since the set was written: one error line
    else:
        found = path
    if kind == "config" and found.is_file():
        read_config(found)  # every reader of a set's config comes through here: a damaged one is one line
    return found


def read_config(path: str | Path) -> dict:
    """A session's ``NAME.config.yml``: a mapping with the set's ``name``; one that is damaged or
    of another kind raises :class:`UnreadableFile`."""
    import yaml

    path = Path(path)
    try:
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except OSError as e:
        raise UnreadableFile(path, f"cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise UnreadableFile(path, f"not UTF-8 ({e.reason} at byte {e.start + 1}): not a citejudge config") from None
    except (yaml.YAMLError, RecursionError) as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or "nested too deeply"
        raise UnreadableFile(path, f"invalid YAML{where} ({problem}): cut short or damaged? judge again") from None
    if not isinstance(config, dict) or not isinstance(config.get("name"), str):
        raise UnreadableFile(path, "not a citejudge config (a mapping with the set's name): judge again")
    return config


#: The columns every reader of the assessments relies on (older tables may lack later ones).
ASSESSMENT_KEY = ("run_id", "topic_id", "sentence_index", "citation_rank", "doc_id", "status")


def read_table(path: str | Path, columns: Optional[Sequence[str]] = None, required: Sequence[str] = ()) -> pa.Table:
    """The Parquet table at ``path`` (only ``columns``, when given), with at least the columns
    ``required``. A file that is not a readable Parquet table (cut short, damaged, another format)
    or lacks a column raises :class:`UnreadableFile`; a missing file, ``FileNotFoundError``."""
    path = Path(path)
    try:
        names = pq.read_schema(path).names
        missing = [c for c in dict.fromkeys([*required, *(columns or ())]) if c not in names]
        if missing:
            raise UnreadableFile(path, f"not the table expected here: no column {', '.join(map(repr, missing))}")
        return pq.read_table(path, columns=None if columns is None else list(columns))
    except (FileNotFoundError, UnreadableFile):
        raise
    except (pa.ArrowException, OSError, ValueError) as e:
        raise UnreadableFile(path, _unreadable(path, e)) from None


def _unreadable(path: Path, e: BaseException) -> str:
    """pyarrow's reason, without the path it repeats."""
    detail = str(e).strip() or type(e).__name__
    detail = detail.removeprefix(f"Could not open Parquet input source '{path}': ")
    return f"not a readable Parquet table (cut short, damaged, or another format): {detail}"


def read_assessments(path: str | Path, name: str | None = None):
    """The per-citation assessments as a pandas DataFrame (``path``: file or output dir)."""
    return read_table(output_file(path, name, "assessments_parquet"), required=ASSESSMENT_KEY).to_pandas()


def read_leaderboard(path: str | Path, name: str | None = None):
    """The leaderboard (run_id, topic_id, measure, value) as a pandas DataFrame.

    ``path``: an output directory (with ``name``, or holding one leaderboard), the Parquet table,
    or a leaderboard file in any TREC text format (ir_measures, trec_eval, tot, jsonl; read by
    :func:`judges.formats.leaderboards.read_any_leaderboard`).
    """
    resolved = output_file(path, name, "leaderboard_parquet")
    if resolved.is_file() and not resolved.name.endswith(".parquet"):
        from judges.formats.leaderboards import read_any_leaderboard

        return read_any_leaderboard(resolved)
    return read_table(resolved, required=LEADERBOARD_SCHEMA.names).to_pandas()
