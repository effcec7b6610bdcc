"""Which citations assessors should label next: the session's plan (:mod:`judges.attest.plan`) over a
judged output set, written for an annotation tool (``run_judge.py plan-assessments``).

Each line of the JSONL file is one citation, in plan order: its key as ``labels.jsonl`` names it
(``run_id``, ``topic_id``, ``sentence_index``, ``doc_id``) with ``citation_rank``, the plan's
``rank`` and ``expected_gain``, the ``inclusion_probability`` it was drawn with (1 for the
citations that move the ranking most, chosen for sure; less for the share drawn at random, so
that every run keeps a chance of being checked: :func:`judges.attest.plan.make_plan` with
:data:`judges.attest.plan.PLAN_MIX`, the gain without the order factor: leverage x spread, which raised
run tau more on unseen topics in bench/intervals.py), the sentence, the judge's status and probabilities, the evidence
span and a window around it with character offsets into the document, the whole document, and
``"label": null`` for the assessor to fill (``supported``, ``partially``, ``not_supported``). The
file, labelled, is ``--labels`` of the next judge run (lines still null are skipped), whose
labelled citations are final and left out of the next plan: an organiser can go round in rounds.

Each round is its own file, never overwritten: ``NAME.assess-1.jsonl``, ``NAME.assess-2.jsonl``,
... in the output directory (:func:`next_round`), created exclusively (published by ``link(2)``,
which fails when the name exists: a round, once there, is never replaced), by one plan at a time
(:func:`one_plan`: a second ``plan-assessments`` on the same set meanwhile stops with one line).
A plan leaves out every citation on a line of an earlier round's file, labelled or not (a citation
is put to the assessors once), as well as those the judged set has a label for.
"""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from typing import IO, Iterator, NamedTuple, Optional

import numpy as np

from judges.core.errors import InputError
from judges.formats import outputset
from judges.formats.setrecord import check_set
from judges.formats.atomic import new_text
from judges.attest.plan import KEY, PLAN_MIX, Plan, Quota, parse_share, plan_session
from judges.core.vocabulary import INCLUSION_PROBABILITY as PROBABILITY  # the plan file's field

WINDOW_CHARS = 600  # characters of context on each side of the evidence in the window


class Round(NamedTuple):
    """A round's file of ``plan-assessments`` in the output directory."""

    number: int  # 0: NAME.assess.jsonl, as written before rounds were numbered
    path: Path


def rounds(out_dir: Path, name: str, kind: str = "assess_round") -> list[Round]:
    """The round files of set ``name`` in ``out_dir``, in round order (``kind``: the output table's
    ``assess_round``, or ``assess_nugget_round`` for nugget pairs)."""
    before, after = outputset.suffix(kind).split("-{round}")  # round 0: without "-{round}"
    found = re.compile(re.escape(f"{name}.{before}") + r"(?:-([1-9][0-9]*))?" + re.escape(after))
    out = []
    for p in Path(out_dir).iterdir() if Path(out_dir).is_dir() else ():
        m = found.fullmatch(p.name)
        if m and p.is_file():
            out.append(Round(int(m.group(1) or 0), p))
    return sorted(out)


def next_round(out_dir: Path, name: str, kind: str = "assess_round") -> Round:
    """Where the next round goes: ``NAME.assess-N.jsonl`` (``kind`` as :func:`rounds`), N one more
    than the last round's."""
    n = max((r.number for r in rounds(out_dir, name, kind)), default=0) + 1
    return Round(n, outputset.path(out_dir, name, kind, round=n))


class Earlier(NamedTuple):
    """The citations put to the assessors in earlier rounds: (run, topic, sentence index, doc id)."""

    files: int
    labelled: frozenset
    pending: frozenset  # on a line still null


def earlier_rounds(out_dir: Path, name: str) -> Earlier:
    """Every citation on a line of an earlier round's file, labelled or not (a bad line: an
    :class:`InputError` naming its file and line)."""
    from judges.formats.labels import read_labels

    labelled: set[tuple] = set()
    pending: set[tuple] = set()
    found = rounds(out_dir, name)
    for r in found:
        labels = read_labels(r.path, empty=True)
        if labels.level != "citation":
            raise InputError(r.path, None, "doc_id", "a round's lines name a citation (doc_id on every line)")
        t = labels.table
        labelled.update(zip(t.run_id, t.topic_id, t.sentence_index.astype(int), t.doc_id))
        pending.update(labels.pending)
    return Earlier(len(found), frozenset(labelled), frozenset(pending - labelled))


@contextlib.contextmanager
def one_plan(out_dir: Path, name: str) -> Iterator[None]:
    """For the block, this process is the only ``plan-assessments`` of set ``name`` in ``out_dir``
    (the lock ``OUT/.NAME.assess.lock``, let go of when the process ends, even killed); another
    one meanwhile is an :class:`InputError`. Where the out-dir cannot hold the lock (read-only, the
    round written elsewhere with ``--output``) the plan goes on unlocked: the round's exclusive
    creation still keeps any file there."""
    from judges.formats.outset import held, plan_lock_path

    with contextlib.ExitStack() as stack:
        try:
            got = stack.enter_context(held(plan_lock_path(Path(out_dir), name)))
        except OSError:
            got = True  # no lock here: unlocked
        if not got:
            raise InputError(
                out_dir,
                None,
                "--name",
                f"another plan-assessments of {name!r} is running here: wait for it to end, then plan the next round",
            )
        yield


@contextlib.contextmanager
def _new_round(target: Path) -> Iterator[IO[str]]:
    """The round's file, created only if nothing is at ``target`` when complete (an
    :class:`InputError` otherwise: nothing there is replaced)."""
    try:
        with new_text(target) as f:
            yield f
    except FileExistsError:
        raise InputError(target, None, None, _EXISTS) from None


_EXISTS = (
    "exists: plan-assessments never overwrites a round's file (its labels would be lost); "
    "leave --output out for the next numbered round, or give a new file"
)


def answered_topics(config: dict) -> dict[str, int]:
    """Per run, the topics it answered: the session's topics less those ``leaderboard.on_missing`` filled."""
    filled = (config.get("filled_by_on_missing") or {}).get("pairs") or {}
    return {run: int(config["topics"]) - len(filled.get(run, ())) for run in config["runs"]}


def _unchanged_since_judging(
    config: dict, config_path: Path, responses: Optional[list[Path]], corpus: Optional[Path]
) -> None:
    """The run files and corpus the config records, where they still are, are those judged (as
    ``attest export`` checks, :func:`judges.session.recorded.recorded_inputs`): a document sent to
    the assessors must be the one the judge read. Inputs given anew (moved) are taken as given."""
    from judges.session.recorded import recorded_inputs

    inputs = config.get("inputs")
    if not isinstance(inputs, dict):
        return
    for kind, given in (("responses", responses), ("corpus", corpus)):
        if not given:
            recorded_inputs(inputs, kind, config_path, missing_ok=True)


def plan_assessments(
    out_dir: Path,
    name: str,
    target: Path,
    budget: Optional[str],
    count: Optional[int],
    responses: Optional[list[Path]] = None,
    corpus: Optional[Path] = None,
    earlier: Optional[Earlier] = None,
) -> Plan:
    """Plan over ``out_dir``'s set ``name`` and write the chosen citations to ``target``, with their
    documents read from the inputs the set's config names (``responses``, ``corpus``: where they
    are now, when they moved); the citations of ``earlier`` rounds are never chosen. ``target``
    must not exist: a round is never overwritten."""
    if Path(target).exists():
        raise InputError(target, None, None, _EXISTS)
    from judges.formats.tables import ASSESSMENT_KEY, output_file, read_config, read_table
    from judges.formats.documents import open_documents

    config_path = outputset.path(out_dir, name, "config")
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
    given = [("--rag-responses", p) for p in responses or []] + ([("--corpus", corpus)] if corpus else [])
    for option, path in given:
        if not Path(path).exists():
            raise InputError(path, None, option, "no such file or directory")
    _unchanged_since_judging(config, config_path, responses, corpus)
    docs = open_documents(out_dir, name, responses=responses or None, corpus=corpus)
    for option, path in docs.unavailable()[:1]:  # as the config names it, found from here or beside it
        raise InputError(
            path,
            None,
            None,
            f"no such file: {config_path} names it ({option}); moved since judging? give {option} where it is "
            "now (each citation goes to the assessors with its document)",
        )
    share = _budget_share(budget)
    table = read_table(output_file(out_dir, name, "assessments_parquet"), required=ASSESSMENT_KEY)
    exclude = None
    if earlier is not None and (earlier.labelled or earlier.pending):
        asked = earlier.labelled | earlier.pending
        keys = zip(*(table[c].to_pylist() for c in ("run_id", "topic_id", "sentence_index", "doc_id")))
        exclude = np.fromiter((k in asked for k in keys), dtype=bool, count=table.num_rows)
    plan = plan_session(table, answered, cap, Quota(share, count, mix=PLAN_MIX), order=False, exclude=exclude)
    rows = {k: i for i, k in enumerate(zip(*(table[c].to_pylist() for c in KEY)))}
    with _new_round(target) as f:
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


# -- nugget pairs (plan-assessments --nuggets) -------------------------------------------------------
NUGGET_ROUND = "assess_nugget_round"  # the output table's kind: NAME.assess-nuggets-N.jsonl


def nugget_rounds(out_dir: Path, name: str) -> list[Round]:
    """The nugget round files of set ``name`` in ``out_dir``, in round order."""
    return rounds(out_dir, name, NUGGET_ROUND)


def next_nugget_round(out_dir: Path, name: str) -> Round:
    return next_round(out_dir, name, NUGGET_ROUND)


def plan_nugget_assessments(
    out_dir: Path, name: str, target: Path, budget: Optional[str], count: Optional[int]
) -> tuple[Plan, int]:
    """The nugget pairs of ``out_dir``'s set ``name`` (``NAME.nuggets.parquet``, ``--judge nugget``
    or ``argue``) assessors should label next, written to ``target`` in plan order: the plan of
    :func:`judges.attest.plan.make_plan` over the kind's key (:data:`judges.attest.kinds.NUGGET`), a share
    :data:`PLAN_MIX` drawn at random with its ``inclusion_probability``, as for citations. Each line:
    ``run_id``, ``topic_id``, ``nugget_index``, ``"label": null`` (to fill: ``support``,
    ``partial_support``, ``not_support``), ``rank``, ``expected_gain``, ``inclusion_probability``,
    the nugget and its importance, the judge's assignment and probabilities, the spans that carry
    it and the whole answer text. Pairs labelled in the set, or on a line of an earlier nugget
    round's file, are never chosen. Returns the plan and the number of pairs left out for earlier rounds."""
    if Path(target).exists():
        raise InputError(target, None, None, _EXISTS)
    from judges.attest.kinds import NUGGET
    from judges.formats.tables import read_config, read_table
    from judges.formats.labels import read_nugget_labels
    from judges.formats.nuggets import answer_texts
    from judges.engine.nuggets import plan_columns
    from judges.attest.plan import make_plan

    parquet = outputset.path(out_dir, name, "nuggets_parquet")
    if not parquet.is_file():
        raise InputError(out_dir, None, "--name", f"no {parquet.name} here: judge with --nuggets first")
    check_set(out_dir, name)  # a file damaged or gone since the set was written: one line (its record)
    config_path = outputset.path(out_dir, name, "config")
    try:
        answered = answered_topics(read_config(config_path))
    except FileNotFoundError:
        raise InputError(config_path, None, None, "no such file: judge first") from None
    except (KeyError, TypeError, ValueError) as e:
        raise InputError(config_path, None, None, f"not a citejudge config: {e}") from None
    share = _budget_share(budget)
    rows = read_table(parquet, required=list(NUGGET.key)).to_pandas()
    rows = rows.sort_values(list(NUGGET.key), kind="stable").reset_index(drop=True)
    earlier = read_nugget_labels([r.path for r in nugget_rounds(out_dir, name)], empty=True)
    asked = set(earlier.levels) | set(earlier.pending)
    keys = list(zip(rows.run_id, rows.topic_id, rows.nugget_index.astype(int)))
    exclude = np.array([k in asked for k in keys], dtype=bool) | rows.labelled.to_numpy(dtype=bool)
    columns = plan_columns(list(rows.itertuples()))
    quota = Quota(share, count, mix=PLAN_MIX)
    plan = make_plan(columns, answered, np.zeros(len(rows), bool), quota, exclude=exclude, order=False, key=NUGGET.key)
    texts = answer_texts(outputset.path(out_dir, name, "nuggets_jsonl"))
    at = {k: i for i, k in enumerate(keys)}
    with _new_round(target) as f:
        for (run, topic, index), chosen in sorted(plan.chosen.items(), key=lambda kv: kv[1].rank):
            row = rows.iloc[at[(run, topic, index)]]
            line = {
                "run_id": run,
                "topic_id": topic,
                "nugget_index": index,
                "label": None,
                "rank": chosen.rank,
                "expected_gain": chosen.gain,
                PROBABILITY: chosen.probability,
                "nugget": row.nugget,
                "importance": row.importance,
                "judge_assignment": row.assignment,
                "p_support": float(row.p_support),
                "p_partial": float(row.p_partial),
                "p_not": float(row.p_not),
                "spans": [{"char_start": int(s["char_start"]), "char_end": int(s["char_end"])} for s in row.spans],
                "answer_text": texts.get((run, topic), ""),
            }
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    return plan, len(asked)


def _budget_share(budget: Optional[str]) -> Optional[float]:
    """``--budget`` as a share of the pairs (``None``: not given); bad input is one line naming the option."""
    if budget is None:
        return None
    try:
        return parse_share(budget)
    except ValueError as e:
        raise InputError("--budget", None, None, str(e).split(": ", 1)[1]) from None
