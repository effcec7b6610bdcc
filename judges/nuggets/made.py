"""A nugget bank made from the answers themselves, no LLM (``create-nuggets --from answers``,
``--nuggets auto``): per topic, the facts that several independent runs state, in the spirit of
the pyramid method.

1. **Claims.** Each answer's sentences (:func:`judges.text.segment.split_sentences`), further cut
   at ``;``, citation marks (``[1]``) removed. A claim's *key* is its sequence of content stems
   (:class:`judges.nuggets.features.Encoder`) without the query's: every answer repeats the
   query's words, which say nothing about the fact. A claim of fewer than :data:`MIN_KEY` key
   stems is no claim.
2. **Similarity.** Every pair of claims of different runs is aligned over their keys with the
   engine's Smith-Waterman kernel (:func:`judges.align.kernel.align_batch`, the citation judge's
   scoring): ``aligned = 2 score / (match (len a + len b))``; word order alone (a sentence turned
   into the passive) lowers it, so the similarity is the mean of it and the keys' Dice overlap as
   sets of stems (1: the same key; a reordered sentence about 0.7).
3. **Groups.** A claim's *spread* is the number of runs with a claim at similarity ``>= group``
   to it (its own included). Greedily, the claim of largest spread not yet taken (ties: the
   larger summed similarity, then run and position) seeds a group: with it, from each other run
   the claim most similar to it (``>= group``) not yet taken; every claim of any run that
   similar to the seed is taken too (restatements do not seed a group of their own). The
   group's runs are its members' runs.
4. **Nuggets.** A group stated by at least ``min_runs`` distinct runs is a nugget; its wording is
   the seed's (the claim closest to the most runs: the group's most central wording), its
   ``alternate`` the member of another run most similar to the seed. At most :data:`CAP` (30, as
   nuggetizer caps a topic) nuggets, the most widely stated first; ``vital`` when stated by at
   least ``vital_share`` of as many runs as the most widely stated one (and ``min_runs``), else ``okay``.

With the documents each run cites (``cited``), a claim counts only if they hold at least ``grounded``
(0.5) of its key stems: the facts several runs state *and* ground. ``bench/nugget_banks.py`` measured this
on TREC 2024 RAG: it lowered the run ranking's agreement (it is not used by ``--nuggets auto``).

Deterministic: the same answers give the same bank, byte for byte (no randomness, every tie
broken by run id and position).

**No run earns credit for its own words.** A made bank keeps, per nugget, the runs that state
it (``stated_by``) and the run its wording is taken from (``text_from``). When run ``r`` is
judged (:func:`view_for`), a nugget counts only if at least ``min_runs`` runs *other than r*
state it (vital likewise from the others alone), and when its wording is r's own sentence, the
``alternate`` (another run's wording) is judged instead. ``bench/nugget_banks.py`` compares
this with a bank rebuilt without each run (leave-one-run-out) and with no exclusion at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Optional

import numpy as np

from judges.align.kernel import align_batch
from judges.align.packed import Packed
from judges.align.reference import GAP, MATCH, MISMATCH
from judges.formats.nuggets import OKAY, VITAL, MadeFrom, Nugget, NuggetBank, content_hash
from judges.nuggets import features as F
from judges.text.segment import split_sentences

CAP = 30  # nuggets a topic at most (nuggetizer's cap)
MIN_KEY = 3  # key stems a claim needs
MAX_CLAIM_CHARS = 600
SOURCE = "answers"
_MARKS = re.compile(r"\s*\[\d+(?:\s*[,;-]\s*\d+)*\]")
_CLAUSE = re.compile(r";\s+")


@dataclass(frozen=True)
class Params:
    """What a made bank depends on besides the answers (chosen in ``bench/nugget_banks.py`` by
    cross-validation grouped by topic)."""

    group: float = 0.4  # similarity at which two claims say the same
    min_runs: int = 3  # distinct runs a group needs to be a nugget
    vital_share: float = 0.3  # share of the most widely stated nugget's runs that makes a nugget vital
    cap: int = CAP
    grounded: float = 0.5  # share of a claim's key stems the run's cited documents must hold (documents given)

    def describe(self) -> dict:
        return {
            "group": self.group,
            "min_runs": self.min_runs,
            "vital_share": self.vital_share,
            "cap": self.cap,
            "grounded": self.grounded,
        }


@dataclass(frozen=True)
class Claim:
    run_id: str
    position: int
    text: str
    key: np.ndarray  # content stems without the query's


def claims_of(encoder: F.Encoder, query: str, answers: list[tuple[str, str]]) -> list[Claim]:
    """The claims of ``answers`` (``(run_id, text)``, each run once) in run and text order."""
    pieces: list[tuple[str, int, str]] = []
    for run_id, text in sorted(answers):
        k = 0
        for s, e in split_sentences(text):
            for clause in _CLAUSE.split(_MARKS.sub("", text[s:e])):
                clause = " ".join(clause.split())
                if clause and len(clause) <= MAX_CLAIM_CHARS:
                    pieces.append((run_id, k, clause))
                    k += 1
    q = encoder.encode([query])[0]
    query_stems = {int(s) for s, c in zip(q.stems, q.content) if c}
    encoded = encoder.encode([p[2] for p in pieces])
    out = []
    for (run_id, k, text), t in zip(pieces, encoded):
        key = np.array([int(s) for s, c in zip(t.stems, t.content) if c and int(s) not in query_stems], np.int32)
        if len(key) >= MIN_KEY:
            out.append(Claim(run_id, k, text, key))
    return out


def similarities(claims: list[Claim]) -> np.ndarray:
    """The symmetric matrix of claim similarities (step 2 of the module doc); 0 within a run."""
    n = len(claims)
    sim = np.zeros((n, n), dtype=np.float64)
    if n < 2:
        return sim
    runs = np.array([c.run_id for c in claims], dtype=object)
    ii, jj = np.triu_indices(n, k=1)
    keep = runs[ii] != runs[jj]
    ii, jj = ii[keep], jj[keep]
    if not len(ii):
        return sim
    packed = Packed.of_ids([c.key for c in claims], [c.key for c in claims])
    out = align_batch(
        packed.a_tokens,
        packed.a_offsets,
        ii.astype(np.int64),
        packed.d_tokens,
        packed.d_base[jj],
        packed.d_base[jj + 1],
        MATCH,
        MISMATCH,
        GAP,
    )
    lengths = np.array([len(c.key) for c in claims], dtype=np.float64)
    aligned = 2.0 * out[:, 0].astype(np.float64) / (MATCH * (lengths[ii] + lengths[jj]))
    bags = [frozenset(c.key.tolist()) for c in claims]
    shared = np.array([2.0 * len(bags[i] & bags[j]) / (len(bags[i]) + len(bags[j])) for i, j in zip(ii, jj)])
    values = 0.5 * (aligned + shared)
    sim[ii, jj] = values
    sim[jj, ii] = values
    return sim


@dataclass(frozen=True)
class Group:
    seed: int
    members: tuple[int, ...]
    runs: tuple[str, ...]
    alternate: Optional[int]


def group_claims(claims: list[Claim], sim: np.ndarray, threshold: float) -> list[Group]:
    """The groups of step 3 (module doc), in the order they were seeded."""
    n = len(claims)
    if not n:
        return []
    runs = [c.run_id for c in claims]
    close = sim >= threshold
    spread = np.array([1 + len({runs[j] for j in np.flatnonzero(close[i])}) for i in range(n)])
    strength = np.where(close, sim, 0.0).sum(axis=1)
    order = sorted(range(n), key=lambda i: (-spread[i], -round(float(strength[i]), 9), runs[i], claims[i].position))
    taken = np.zeros(n, dtype=bool)
    groups = []
    for seed in map(int, order):
        if taken[seed]:
            continue
        taken[seed] = True
        members: list[int] = [seed]
        best_alt: Optional[int] = None
        by_run: dict[str, int] = {}
        near = [int(j) for j in np.flatnonzero(close[seed] & ~taken)]
        for j in near:
            best = by_run.get(runs[j])
            if best is None or sim[seed, j] > sim[seed, best]:
                by_run[runs[j]] = j
        taken[near] = True
        for run in sorted(by_run):
            k = by_run[run]
            members.append(k)
            if best_alt is None or sim[seed, k] > sim[seed, best_alt]:
                best_alt = k
        group_runs = tuple(sorted({runs[m] for m in members}))
        groups.append(Group(seed, tuple(members), group_runs, best_alt))
    return groups


def grounded_claims(encoder: F.Encoder, claims: list[Claim], cited: dict[str, str], share: float) -> list[Claim]:
    """The claims at least ``share`` of whose key stems the documents their run cites for the
    topic hold (``cited``: run id -> those documents' text; a run absent cites nothing)."""
    runs = sorted({c.run_id for c in claims})
    texts = encoder.encode([cited.get(r, "") for r in runs])
    held = {r: set(t.stems.tolist()) for r, t in zip(runs, texts)}
    return [c for c in claims if np.isin(c.key, list(held[c.run_id])).mean() >= share]


def make_bank(
    encoder: F.Encoder,
    qid: str,
    query: str,
    answers: list[tuple[str, str]],
    params: Params = Params(),
    cited: Optional[dict[str, str]] = None,
) -> NuggetBank:
    """A topic's bank from its answers (``(run_id, text)``; see the module doc); ``cited``: per run
    the text of the documents it cites for the topic, when they are known: a claim counts only if
    they ground it (:func:`grounded_claims` at ``params.grounded``)."""
    claims = claims_of(encoder, query, answers)
    if cited is not None and params.grounded > 0:
        claims = grounded_claims(encoder, claims, cited, params.grounded)
    groups = group_claims(claims, similarities(claims), params.group)
    kept = [g for g in groups if len(g.runs) >= params.min_runs]
    widest = max((len(g.runs) for g in kept), default=0)
    vital_runs = max(params.min_runs, int(np.ceil(params.vital_share * widest)))
    kept.sort(key=lambda g: -len(g.runs))  # stable: seeding order among equals
    kept = kept[: params.cap]
    nuggets, stated, text_from, alternates = [], [], [], []
    for g in kept:
        seed = claims[g.seed]
        nuggets.append(Nugget(seed.text, VITAL if len(g.runs) >= vital_runs else OKAY))
        stated.append(g.runs)
        text_from.append(seed.run_id)
        alternates.append(claims[g.alternate].text if g.alternate is not None else "")
    made = MadeFrom(SOURCE, params.min_runs, vital_runs, tuple(stated), tuple(text_from), tuple(alternates))
    bank = NuggetBank(qid, query, tuple(nuggets), made)
    return replace(bank, made=replace(made, content_sha256=content_hash(bank)))


def view_for(bank: NuggetBank, run_id: str) -> tuple[NuggetBank, list[int]]:
    """The bank run ``run_id`` is judged against, and for each of its nuggets the index in
    ``bank``: a made bank without the nuggets fewer than ``min_runs`` other runs state, vital
    only as the other runs say, the alternate wording where the wording is the run's own (see
    the module doc). A bank not made from the answers is the same for every run."""
    made = bank.made
    if made is None or not made.stated_by:
        return bank, list(range(len(bank.nuggets)))
    nuggets, index = [], []
    for i, n in enumerate(bank.nuggets):
        others = [r for r in made.stated_by[i] if r != run_id]
        if len(others) < made.min_runs:
            continue
        text = n.text
        if made.text_from[i] == run_id:
            if not made.alternates[i]:
                continue
            text = made.alternates[i]
        made_vital = len(made.stated_by[i]) >= made.vital_runs  # else an assessor made it vital: it stays
        vital = n.vital and (len(others) >= made.vital_runs or not made_vital)
        nuggets.append(Nugget(text, VITAL if vital else OKAY))
        index.append(i)
    return NuggetBank(bank.qid, bank.query, tuple(nuggets)), index


def judge_made_topic(encoder: F.Encoder, bank: NuggetBank, answers: list[tuple[str, str]], model, labels=None):
    """:func:`judges.nuggets.judge.judge_topic` for a bank whose judgments differ by run (a made
    bank, :func:`view_for`): each answer judged against its own view, the judgments' indices the
    bank's; a bank not made is judged as :func:`judge_topic` judges it."""
    from judges.formats.nuggets import ASSIGNMENTS
    from judges.nuggets.judge import judge_topic

    if bank.made is None or not bank.made.stated_by:
        return judge_topic(encoder, bank, answers, model, labels)
    out = []
    for run_id, text in answers:
        view, index = view_for(bank, run_id)
        judged = judge_topic(encoder, view, [(run_id, text)], model, None)[0]
        human = (labels or {}).get((run_id, bank.qid))
        out.append(
            [
                replace(
                    j,
                    nugget_index=index[k],
                    human=None if human is None or index[k] >= len(human) else ASSIGNMENTS[human[index[k]]],
                )
                for k, j in enumerate(judged)
            ]
        )
    return out


AUTO = "auto"  # --nuggets auto: the bank made from the answers judged


def is_auto(path) -> bool:
    """``--nuggets auto`` (a file named ``auto`` is given as ``./auto``)."""
    return path is not None and str(path) == AUTO


def make_nuggets(answers: dict[str, list[tuple[str, str]]], queries: dict[str, str], params: Params = Params()):
    """Every topic's bank made from its answers (``{topic: [(run_id, text)]}``), as a
    :class:`judges.formats.nuggets.Nuggets` read from the file ``create-nuggets`` would write
    (``path`` ``auto``, its SHA-256 that file's)."""
    import hashlib

    from judges.formats.nuggetbanks import bank_text
    from judges.formats.nuggets import Nuggets

    encoder = F.Encoder()
    banks = {
        topic: make_bank(encoder, topic, queries.get(topic, ""), answers[topic], params) for topic in sorted(answers)
    }
    sha = hashlib.sha256(bank_text(banks.values(), "nist").encode("utf-8")).hexdigest()
    return Nuggets(AUTO, banks, {}, "nist", sha)
