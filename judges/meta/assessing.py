"""Which citations assessors should label next: the session's plan (:mod:`judges.plan`) over a
judged output set, written for an annotation tool (``run_judge.py plan-assessments``).

Each line of the JSONL file is one citation, in plan order: its key as ``labels.jsonl`` names it
(``run_id``, ``topic_id``, ``sentence_index``, ``doc_id``) with ``citation_rank``, the plan's
``rank`` and ``expected_gain``, the ``inclusion_probability`` it was drawn with (1 for the
citations that move the ranking most, chosen for sure; less for the share drawn at random, so
that every run keeps a chance of being checked: :func:`judges.plan.make_plan` with
:data:`judges.plan.PLAN_MIX`, the gain without the order factor: leverage x spread, which raised
run tau more on unseen topics in bench/intervals.py), the sentence, the judge's status and probabilities, the evidence
span and a window around it with character offsets into the document, the whole document, and
``"label": null`` for the assessor to fill (``supported``, ``partially``, ``not_supported``). The
file, labelled, is ``--labels`` of the next judge run (lines still null are skipped), whose
labelled citations are final and left out of the next plan: an organiser can go round in rounds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from judges.errors import InputError
from judges.formats.atomic import atomic_text
from judges.plan import KEY, PLAN_MIX, PROBABILITY, Plan, parse_share, plan_session

WINDOW_CHARS = 600  # characters of context on each side of the evidence in the window


def answered_topics(config: dict) -> dict[str, int]:
    """Per run, the topics it answered: the session's topics less those ``leaderboard.on_missing`` filled."""
    filled = (config.get("filled_by_on_missing") or {}).get("pairs") or {}
    return {run: int(config["topics"]) - len(filled.get(run, ())) for run in config["runs"]}


def plan_assessments(
    out_dir: Path,
    name: str,
    target: Path,
    budget: Optional[str],
    count: Optional[int],
    responses: Optional[list[Path]] = None,
    corpus: Optional[Path] = None,
) -> Plan:
    """Plan over ``out_dir``'s set ``name`` and write the chosen citations to ``target``, with their
    documents read from the inputs the set's config names (``responses``, ``corpus``: where they
    are now, when they moved)."""
    from judges.formats.tables import ASSESSMENT_KEY, output_file, read_config, read_table
    from judges.formats.documents import open_documents

    config_path = out_dir / f"{name}.config.yml"
    try:
        config = read_config(config_path)
        cap = tuple(config["workflow"]["grounding"]["cap"])
        answered = answered_topics(config)
    except FileNotFoundError:
        raise InputError(config_path, None, None, "no such file: judge first") from None
    except KeyError as e:
        raise InputError(config_path, None, None, f"not a citejudge config: no {e}") from None
    except (TypeError, ValueError) as e:
        raise InputError(config_path, None, None, f"not a citejudge config: {e}") from None
    for option, path in [("--rag-responses", p) for p in responses or []] + [("--corpus", corpus)] * bool(corpus):
        if not Path(path).exists():
            raise InputError(path, None, option, "no such file or directory")
    docs = open_documents(out_dir, name, responses=responses or None, corpus=corpus)
    for option, path in docs.unavailable()[:1]:  # as the config names it, found from here or beside it
        raise InputError(
            path,
            None,
            None,
            f"no such file: {config_path} names it ({option}); moved since judging? give {option} where it is "
            "now (each citation goes to the assessors with its document)",
        )
    share = None
    if budget is not None:
        try:
            share = parse_share(budget)
        except ValueError as e:
            raise InputError("--budget", None, None, str(e).split(": ", 1)[1]) from None
    table = read_table(output_file(out_dir, name, "assessments.parquet"), required=ASSESSMENT_KEY)
    plan = plan_session(table, answered, cap, share, count, order=False, mix=PLAN_MIX)
    rows = {k: i for i, k in enumerate(zip(*(table[c].to_pylist() for c in KEY)))}
    with atomic_text(target) as f:
        for run, topic, sentence, citation_rank, rank, gain, _ in plan.rows():
            row = {c: table[c][rows[(run, topic, sentence, citation_rank)]].as_py() for c in table.column_names}
            planned = plan.get((run, topic, sentence, citation_rank))
            assert planned is not None  # plan.rows() are the plan's own
            probability = planned.probability
            f.write(json.dumps(_line(row, rank, gain, probability, docs), ensure_ascii=False) + "\n")
    return plan


def _line(row: dict, rank: int, gain: float, probability: float, docs) -> dict:
    ev = docs.evidence(row, context=WINDOW_CHARS)
    start, end = row["char_start"], row["char_end"]
    window_start = start - len(ev.before)
    return {
        "run_id": row["run_id"],
        "topic_id": row["topic_id"],
        "sentence_index": row["sentence_index"],
        "doc_id": row["doc_id"],
        "label": None,
        "citation_rank": row["citation_rank"],
        "rank": rank,
        "expected_gain": gain,
        PROBABILITY: probability,
        "sentence": row["sentence"],
        "judge_status": row["status"],
        "p_any": row["p_any"],
        "p_full": row["p_full"],
        "evidence": {"char_start": start, "char_end": end, "text": row["evidence"]},
        "window": {
            "char_start": window_start,
            "char_end": end + len(ev.after),
            "text": ev.before + ev.evidence + ev.after,
        },
        "document": {"doc_id": row["doc_id"], "title": ev.title, "text": ev.text},
    }
