"""What a judging session makes and writes of its battles (``--judge battle``; the answers' words
and the RAG 2026 rules: :func:`judges.engine.battles.collect`).

Per topic, every pair of the runs that answered it is a battle (or, under a budget of
``--battle-opponents K``, the pairs :func:`judges.engine.battle_design.design` draws, each with its
inclusion probability); the verdict is the evidence's (:func:`judges.engine.battles.verdict`, no
LLM), the order the two answers would be shown in drawn at random (seeded by the pair: the same
every run). From the verdicts as fractional wins and ties, Bradley-Terry with ties
(:mod:`judges.scores.battles`) per topic gives ``BATTLE_SCORE`` on the leaderboard, and over all
topics the ranking with its intervals. Written:

* ``NAME.battles.jsonl``: one record per battle, sorted by topic and the two runs (``run_a`` <
  ``run_b``): ``topic_id, run_a, run_b, shown`` (the runs in the order shown), ``verdict`` (``A``,
  ``tie`` or ``B``: ``run_a`` better, a tie, ``run_b`` better), ``p_a, p_tie, p_b``, ``source``
  (``judge``: the evidence's), ``inclusion`` (its probability of being drawn), ``evidence`` (each
  answer's :class:`~judges.engine.battles.Evidence`) and ``explanation``;
* ``NAME.battles.ranking.tsv``: per run its score over all topics, the 95% interval and the rank
  interval over topic resamples, and its battles;
* ``NAME.battles.above.tsv``: per ordered pair of runs, P(the first ranks above the second).
"""

from __future__ import annotations

import itertools
import json
import zlib
from functools import lru_cache
from collections import Counter
from pathlib import Path
from typing import Callable, NamedTuple, Optional

import numpy as np

from judges.attest.kinds import BATTLE
from judges.core.counts import BATTLES, BATTLES_LABELLED
from judges.core.measures import BATTLE_SCORE
from judges.engine import battle_design
from judges.engine.battles import Answers, BattleInputs, Verdict, evidence, model_for, verdict
from judges.engine.pairs import Kind, battle_kind
from judges.formats import outputset
from judges.formats.atomic import atomic_text
from judges.scores import battles as bt
from judges.session.stages import PairOutputs

SEED = 20261207


class Battles(NamedTuple):
    """The session's battles: the records of ``NAME.battles.jsonl``, the ranking over all topics."""

    records: list[dict]
    ranking: bt.Ranking
    battles_of: dict[str, int]  # per run, its battles
    llm: dict = {}  # the LLM's side-by-side questions: their figures (ask_llm), for the summary


@lru_cache(maxsize=1)
def kind() -> Kind:
    """The battle kind as a session judges it (:func:`judges.engine.pairs.battle_kind`) with what
    the session writes of it (:func:`outputs`)."""
    return battle_kind()._replace(outputs=outputs)


def outputs(answers: Answers) -> PairOutputs:
    """What the session writes of the battles: the verdicts are made when the other kinds'
    measures are in (``merge_measures``, called after theirs), then written."""
    made: list[Battles] = []

    def merge(per_topic: dict, judge: str) -> None:
        made.append(judge_battles(answers, per_topic, answers.questions))

    def summarize(attest: dict, labels: dict, counts=None) -> None:
        if made and made[-1].llm:
            attest["battles"] = made[-1].llm

    def write(out_dir: Path, name: str, place: Callable[[Path], Path]) -> dict[str, str]:
        return write_battles(made[-1], out_dir, name, place)

    def trust(*_args, **_kwargs):
        from judges.scores.intervals import Trust

        return Trust([], [])  # BATTLE_SCORE's interval is the ranking's bootstrap (NAME.battles.ranking.tsv)

    return PairOutputs(
        BATTLE,
        merge,
        lambda judge, measures: (*measures, BATTLE_SCORE),
        summarize,
        write,
        trust,
    )


def judge_stage(settings, inputs, loaded, parts, log, warn: Callable[[str], None]) -> PairOutputs:
    """The battle stage of a session (:func:`judges.session.pipeline.judge_other_kinds`, after the
    other kinds): the answers as the first pass kept them (:func:`judges.engine.battles.collect`:
    words, the RAG 2026 rules of the run files' lines judged, noted as the first pass read them),
    each citation's status and evidence from the citations' ``parts`` for the LLM's question, the
    assessors' verdicts; what is written of them."""
    from judges.engine.pairs import judge_pairs
    from judges.session.scan import reread

    reports = reread(loaded.scan, None, inputs.dataset, settings.workflow.citations.max_per_sentence)
    lines: dict = {}
    for entries in loaded.scan.reports.values():
        for path, line, offset in entries:
            if offset >= 0 and Path(path).is_file():  # run files' lines (not a JSON array's, not records in memory)
                lines.setdefault(path, set()).add(line)
    noted = loaded.scan.rules
    rules: Optional[Counter] = None  # not noted by the first pass: read from the lines (rag26.check_files)
    if noted is not None:
        rules = Counter()
        for path in sorted(lines):  # added up in check_files' order (the counts keep their order)
            for line in sorted(lines[path]):
                rules.update(noted.get((path, line), {}))
    result = judge_pairs(
        kind(),
        settings,
        reports,
        None,
        log,
        warn=warn,
        counts=loaded.counts,  # the rules broken, the battles judged (judges.core.counts)
        inputs=BattleInputs(
            rule_files=sorted(lines.items()) if rules is None else (),
            rules=rules,
            has_nuggets=loaded.nuggets is not None,
            opponents=inputs.battle_opponents,
            citations=citations_shown([part.assessments for part in parts]),
            questions={t: topic.text or topic.title for t, topic in loaded.topics.items()},
            labels=None if loaded.labels is None else loaded.labels.battles,  # assessors' verdicts, final
        ),
    )
    return outputs(result)


def unused_labels(labels) -> str:
    """The warning for battle verdicts given (``--labels``) to a session that judges no battle."""
    where = ", ".join(f["path"] for f in labels.files)
    return f"the {len(labels.labels)} battle verdicts in {where} are not used: no battle is judged (--judge battle)"


def shown_order(topic: str, a: str, b: str) -> list[str]:
    """The order the two answers are shown in, at random but the same every run."""
    flip = zlib.crc32(f"{SEED}\t{topic}\t{a}\t{b}".encode("utf-8")) & 1
    return [b, a] if flip else [a, b]


EVIDENCE_CHARS = 400  # of a citation's evidence shown to the LLM


def citations_shown(tables) -> dict:
    """``(run, topic, sentence index, citation rank) -> (status, evidence)`` from the citations'
    assessment tables: what the LLM's side-by-side question shows of each citation."""
    out: dict = {}
    cols = ["run_id", "topic_id", "sentence_index", "citation_rank", "status", "evidence"]
    for table in tables:
        if table is None or table.num_rows == 0:
            continue
        for r in table.select(cols).to_pylist():
            key = (r["run_id"], r["topic_id"], r["sentence_index"], r["citation_rank"])
            out[key] = (r["status"], (r["evidence"] or "")[:EVIDENCE_CHARS])
    return out


class _Topic(NamedTuple):
    names: list[str]
    ev: dict
    pairs: list[tuple[str, str]]
    verdicts: list
    chosen: np.ndarray
    inclusion: np.ndarray


def _topic(answers: Answers, per_topic: dict, topic: str, names: list[str], model) -> _Topic:
    """One topic's battles: the evidence's verdicts on every pair, those drawn (a budget) and their probabilities."""
    ev = {r: evidence(per_topic[(r, topic)], answers.words[(r, topic)]) for r in names}
    pairs = list(itertools.combinations(names, 2))
    verdicts = [verdict(ev[a], ev[b], model) for a, b in pairs]
    inclusion = np.ones(len(pairs))
    chosen = np.arange(len(pairs))
    if answers.opponents is not None and pairs:
        strength = {r: float(np.dot(model.weights, ev[r].vector())) for r in names}
        rank = {r: k for k, r in enumerate(sorted(names, key=lambda r: (-strength[r], r)))}
        drawn = battle_design.design(
            topic,
            [v.p_a for v in verdicts],
            [v.p_b for v in verdicts],
            [rank[a] for a, _ in pairs],
            [rank[b] for _, b in pairs],
            len(names),
            answers.opponents,
        )
        chosen = drawn.chosen
        inclusion[chosen] = drawn.probability
    return _Topic(names, ev, pairs, verdicts, chosen, inclusion)


def ask_llm(answers: Answers, topics: dict[str, _Topic], questions: dict[str, str]) -> tuple[dict, dict]:
    """The LLM's side-by-side verdicts (:mod:`judges.attest.sidebyside`, both orders) on the drawn
    battles the evidence cannot decide: ``{(topic, pair index): (Verdict, a_first, b_first)}``
    (empty when the judge is flagged: it reads the order) and the figures for the summary."""

    from judges.attest import sidebyside as sbs
    from judges.attest.client import online

    settings = answers.settings
    attest, endpoint = settings.workflow.attest, settings.llm
    battles, where = [], []
    for topic, t in sorted(topics.items()):
        for k in t.chosen:
            v = t.verdicts[k]
            a, b = t.pairs[k]
            if sbs.undecided(v.p_a, v.p_tie, v.p_b) and (a, topic) in answers.shown and (b, topic) in answers.shown:
                battles.append(sbs.Battle((topic, int(k)), questions.get(topic, ""), answers.shown[(a, topic)],
                                          answers.shown[(b, topic)]))  # fmt: skip
                where.append((topic, int(k)))
    ask = settings.ask or online(endpoint, attest)
    judge = sbs.SideBySide(
        endpoint.model,
        settings.cache_dir,
        ask,
        seed=attest.seed,
        max_cost=attest.max_cost,
        price_per_1k_input=attest.price_per_1k_input,
        price_per_1k_output=attest.price_per_1k_output,
    )
    try:
        asked = judge.decide(battles) if battles else []
    finally:
        judge.close()
    guard = sbs.position_bias(asked)
    figures = {"undecided": len(battles), **{k: int(v) for k, v in sorted(judge.counts.items())}, "position": guard}
    if guard["flagged"]:
        figures["degenerate"] = {
            "message": f"the LLM picks the {'first' if guard['first'] >= guard['second'] else 'second'} answer shown "
            f"in {max(guard['first'], guard['second']):.0%} of {guard['answers']} side-by-side answers",
            "used": False,
        }
        return {}, figures
    e = attest.assumed_error
    out = {}
    for (topic, k), x in zip(where, asked):
        if x.verdict is None:
            continue
        p = {"A": e / 2, "tie": e / 2, "B": e / 2} | {x.verdict: 1 - e}
        old = topics[topic].verdicts[k]
        why = f"LLM, both orders: {x.a_first} with A first, {x.b_first} with B first; evidence: {old.explanation}"
        out[(topic, k)] = (Verdict(p["A"], p["tie"], p["B"], why), x.a_first, x.b_first)
    figures["used"] = len(out)
    return out, figures


def judge_battles(answers: Answers, per_topic: dict, questions: Optional[dict] = None) -> Battles:
    """Every battle's verdict (the evidence's; the LLM's on those it cannot decide when the session
    asks one), ``BATTLE_SCORE`` per (run, topic) into ``per_topic``, the ranking."""
    model = model_for(answers.has_nuggets)
    by_topic: dict[str, list[str]] = {}
    for run, topic in sorted(answers.words):
        if (run, topic) in per_topic:
            by_topic.setdefault(topic, []).append(run)
    runs = sorted({r for rs in by_topic.values() for r in rs})
    index = {r: i for i, r in enumerate(runs)}
    topics = {topic: _topic(answers, per_topic, topic, names, model) for topic, names in sorted(by_topic.items())}
    llm, figures = ask_llm(answers, topics, questions or {}) if answers.asks() else ({}, {})
    records: list[dict] = []
    outcomes: dict[str, bt.Outcomes] = {}
    battles_of = dict.fromkeys(runs, 0)
    labelled = answers.labels.labels if answers.labels is not None else {}
    used_labels = 0
    for topic, t in topics.items():
        rows, local = [], []
        here = {r: k for k, r in enumerate(t.names)}
        drawn = set(t.chosen.tolist())
        judged = {k for k, (a, b) in enumerate(t.pairs) if (topic, a, b) in labelled}
        for k in sorted(drawn | judged):
            (a, b), v = t.pairs[k], t.verdicts[k]
            source, said = "judge", None
            if (topic, a, b) in labelled:  # an assessor's verdict is final
                human = labelled[(topic, a, b)]
                p = {"A": 0.0, "tie": 0.0, "B": 0.0} | {human.verdict: 1.0}
                v = Verdict(p["A"], p["tie"], p["B"], f"assessor ({human.path} line {human.line}); {v.explanation}")
                source, said = "human", None
                used_labels += 1
            elif (topic, int(k)) in llm:
                v, a_first, b_first = llm[(topic, int(k))]
                source, said = "llm", {"a_first": a_first, "b_first": b_first}
            w = 1.0 / t.inclusion[k] if k in drawn else 1.0
            rows.append((index[a], index[b], v.p_a, v.p_tie, v.p_b, w))
            local.append((here[a], here[b], v.p_a, v.p_tie, v.p_b, w))
            battles_of[a] += 1
            battles_of[b] += 1
            record = {
                "topic_id": topic,
                "run_a": a,
                "run_b": b,
                "shown": shown_order(topic, a, b),
                "verdict": v.verdict,
                "p_a": round(v.p_a, 4),
                "p_tie": round(v.p_tie, 4),
                "p_b": round(v.p_b, 4),
                "source": source,
                "inclusion": round(float(t.inclusion[k]), 4) if k in drawn else 1.0,
                "evidence": {"a": t.ev[a].describe(), "b": t.ev[b].describe()},
                "explanation": v.explanation,
            }
            if said is not None:
                record["llm"] = said
            records.append(record)
        outcomes[topic] = bt.outcomes(rows)
        scores = bt.fit(len(t.names), bt.outcomes(local)).scores()  # the topic's runs only
        for r in t.names:
            per_topic[(r, topic)][BATTLE_SCORE] = float(round(scores[here[r]], 6))
    ranking = bt.ranking(runs, outcomes)
    answers.counts[BATTLES] += len(records)
    if used_labels:
        answers.counts[BATTLES_LABELLED] += used_labels
    return Battles(records, ranking, battles_of, figures)


def _interval(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}-{high}"


def write_battles(made: Battles, out_dir: Path, name: str, place: Callable[[Path], Path]) -> dict[str, str]:
    """The battle files (see the module doc); their paths by file kind."""
    paths = {f.kind: outputset.path(out_dir, name, f.kind) for f in outputset.of_pair_kind(BATTLE.name)}
    with atomic_text(place(paths["battles_jsonl"])) as f:
        for record in made.records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    r = made.ranking
    with atomic_text(place(paths["battle_ranking"])) as f:
        f.write("run_id\tbattle_score\tlow\thigh\trank\tranks\tbattles\n")
        for k in np.argsort(r.rank, kind="stable"):
            f.write(
                f"{r.runs[k]}\t{r.score[k]:.4f}\t{r.low[k]:.4f}\t{r.high[k]:.4f}\t{r.rank[k]}\t"
                f"{_interval(int(r.rank_low[k]), int(r.rank_high[k]))}\t{made.battles_of[r.runs[k]]}\n"
            )
    with atomic_text(place(paths["battle_above"])) as f:
        f.write("run_a\trun_b\tp_above\n")
        for a, b in itertools.permutations(range(len(r.runs)), 2):
            f.write(f"{r.runs[a]}\t{r.runs[b]}\t{r.above[a, b]:.4f}\n")
    return {kind: str(path) for kind, path in paths.items()}
