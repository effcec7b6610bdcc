"""Battles: two answers to one topic side by side, and a verdict from the evidence, no LLM.

TREC RAG 2026 assesses the RAG task by battles: per topic two answers, identities hidden, order
randomised; the assessor picks the better or calls a tie. The judge's verdict reads what it has
already judged of each answer (:class:`Evidence`, from the session's per-topic measures):

* ``precision``: expected support precision (``WEIGHTED_PRECISION``, each citation its expected weight);
* ``recall``: expected nugget recall (``NUGGET_ALL``), only with a nugget bank (``--nuggets``);
* ``f1``: their harmonic mean (``NUGGET_F1``'s), only with a bank;
* ``unsupported``: share of sentences without support (``1 - WEIGHTED_RECALL``: uncited, or no
  citation that supports them);
* ``textless``: share of citations that resolve to no text (``1 - CITATION_ACCURACY``);
* ``length``: ``log2`` of the answer's words.

The verdict model is an ordered logit on the difference ``d = x(A) - x(B)`` of the features:
``s = w . d``, ``P(A better) = sigma(s - theta)``, ``P(B better) = sigma(-s - theta)``,
``P(tie)`` the rest; swapping A and B swaps the two probabilities, so the order the answers are
shown in cannot matter. ``w`` and ``theta`` are fitted to proxy preferences from NIST's per-answer
labels (``bench/battles.py``: A beats B when its human NUGGET_F1 is higher by more than a margin),
:data:`WITH_NUGGETS` and :data:`WITHOUT_NUGGETS` (``recall``'s and ``f1``'s weights 0).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, NamedTuple, Optional, Sequence

import numpy as np

from judges.core.records import Report
from judges.formats import rag26

FEATURES = ("precision", "recall", "f1", "unsupported", "textless", "length")
LABELS = {
    "precision": "support precision",
    "recall": "nugget recall",
    "f1": "F1",
    "unsupported": "unsupported sentences",
    "textless": "citations without text",
    "length": "log2 words",
}
VERDICTS = ("A", "tie", "B")
#: The bounds of each feature's weight (:func:`fit_model`).
SIGNS = {"precision": (0, None), "recall": (0, None), "f1": (0, None), "unsupported": (None, 0),
         "textless": (None, 0), "length": (None, None)}  # fmt: skip


class Evidence(NamedTuple):
    """What the verdict reads of one answer (see the module doc); ``words``: its length."""

    precision: float
    recall: float
    unsupported: float
    textless: float
    words: int

    @property
    def length(self) -> float:
        return math.log2(max(self.words, 1))

    @property
    def f1(self) -> float:
        """The harmonic mean of precision and recall (NUGGET_F1's; 0 without a bank)."""
        total = self.precision + self.recall
        return 2 * self.precision * self.recall / total if total else 0.0

    def vector(self) -> np.ndarray:
        return np.array([self.precision, self.recall, self.f1, self.unsupported, self.textless, self.length])

    def describe(self) -> dict:
        return {
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "unsupported": round(self.unsupported, 4),
            "textless": round(self.textless, 4),
            "words": self.words,
        }


def evidence(measures: Mapping[str, float], words: int) -> Evidence:
    """An answer's :class:`Evidence` from its per-topic measures (a missing nugget measure: 0)."""
    return Evidence(
        float(measures.get("WEIGHTED_PRECISION", 0.0)),
        float(measures.get("NUGGET_ALL", 0.0)),
        1.0 - float(measures.get("WEIGHTED_RECALL", 0.0)),
        1.0 - float(measures.get("CITATION_ACCURACY", 1.0)),
        int(words),
    )


class VerdictModel(NamedTuple):
    """Weights of the feature differences (in :data:`FEATURES` order) and the tie threshold."""

    weights: tuple[float, ...]
    theta: float

    def score(self, a: Evidence, b: Evidence) -> float:
        return float(np.dot(self.weights, a.vector() - b.vector()))


# Fitted by bench/battles.py on rag24-nuggets' proxy preferences (human NUGGET_F1 higher by more
# than 0.1; all 8 topics; the cross-validated figures in docs/results/battles.md).
WITH_NUGGETS = VerdictModel((0.392, 0.060, 13.056, -0.118, 0.0, 0.013), 1.212)
WITHOUT_NUGGETS = VerdictModel((5.103, 0.0, 0.0, -0.429, -0.126, 0.655), 0.915)


def model_for(has_nuggets: bool) -> VerdictModel:
    return WITH_NUGGETS if has_nuggets else WITHOUT_NUGGETS


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def probabilities(s: float, theta: float) -> tuple[float, float, float]:
    """(P(A better), P(tie), P(B better)) for the score difference ``s``."""
    pa, pb = _sigmoid(s - theta), _sigmoid(-s - theta)
    return pa, max(0.0, 1.0 - pa - pb), pb


class Verdict(NamedTuple):
    p_a: float
    p_tie: float
    p_b: float
    explanation: str

    @property
    def verdict(self) -> str:
        """The most probable of A, tie, B (a tie of probabilities: tie)."""
        best = max(self.p_a, self.p_tie, self.p_b)
        return "tie" if self.p_tie == best or self.p_a == self.p_b else ("A" if self.p_a == best else "B")


def verdict(a: Evidence, b: Evidence, model: VerdictModel) -> Verdict:
    """The evidence's verdict on A against B, with its reasons: each feature that moves it, the
    side it favours and by how much (in the model's score)."""
    d = a.vector() - b.vector()
    parts = [(float(w * x), name, x) for w, name, x in zip(model.weights, FEATURES, d) if w != 0.0]
    s = sum(p for p, _, _ in parts)
    pa, pt, pb = probabilities(s, model.theta)
    reasons = []
    for push, name, _ in sorted(parts, key=lambda p: (-abs(p[0]), p[1])):
        if abs(push) < 0.005:
            continue
        va, vb = getattr(a, name), getattr(b, name)
        reasons.append(f"{LABELS[name]} {va:.2f} vs {vb:.2f} favours {'A' if push > 0 else 'B'} ({push:+.2f})")
    why = "; ".join(reasons) if reasons else "no evidence tells them apart"
    return Verdict(pa, pt, pb, f"{why}; score {s:+.2f} against a tie band of {model.theta:.2f}")


def fit_model(
    diffs: np.ndarray, outcome: np.ndarray, mask: Optional[Sequence[bool]] = None, ridge: float = 0.01
) -> VerdictModel:
    """The :class:`VerdictModel` of maximum likelihood for feature differences ``diffs`` (rows:
    battles, columns: :data:`FEATURES`) and outcomes ``outcome`` (1: A better, 0: tie, -1: B
    better); ``mask``: the features used (the others weigh 0); ``ridge``: on the weights. Each
    weight keeps the sign of :data:`SIGNS` (more support, recall, F1 is better, more unsupported
    sentences or citations without text worse; length either way), so that no reason says that
    an answer is better for its citations without text."""
    from scipy.optimize import minimize

    use = np.ones(len(FEATURES), bool) if mask is None else np.asarray(mask, bool)
    x = diffs[:, use]

    def nll(params):
        w, log_theta = params[:-1], params[-1]
        theta = math.exp(log_theta)
        s = x @ w
        la = -np.logaddexp(0, -(s - theta))  # log sigma(s - theta)
        lb = -np.logaddexp(0, -(-s - theta))
        pt = np.clip(1 - np.exp(la) - np.exp(lb), 1e-12, 1)
        ll = np.where(outcome > 0, la, np.where(outcome < 0, lb, np.log(pt)))
        return -ll.sum() + ridge * w @ w

    bounds = [SIGNS[f] for f, u in zip(FEATURES, use) if u] + [(None, None)]
    res = minimize(nll, np.r_[np.zeros(x.shape[1]), math.log(0.5)], method="L-BFGS-B", bounds=bounds)
    weights = np.zeros(len(FEATURES))
    weights[use] = res.x[:-1]
    return VerdictModel(tuple(float(w) for w in weights), float(math.exp(res.x[-1])))


class Answers(NamedTuple):
    """What the battle stage reads of the reports (:func:`collect`): each answer's words, the RAG
    2026 rules broken (:mod:`judges.formats.rag26`), whether a nugget bank is judged, the
    budget (opponents per run and topic; ``None``: every pair) and the session's counts (the
    rules broken counted in, and the battles when judged)."""

    words: dict
    rules: Counter
    has_nuggets: bool
    opponents: Optional[float]
    counts: Counter
    shown: dict = {}  # (run, topic) -> the answer as the LLM's side-by-side question shows it (Shown)
    settings: Any = None  # the session's Settings: its LLM, cache, asker and attest settings
    questions: dict = {}  # topic -> its text, shown above the two answers
    labels: Any = None  # assessors' verdicts, final (judges.formats.battle_labels.BattleLabels; --labels)

    def asks(self) -> bool:
        """Whether the LLM is asked about the battles the evidence cannot decide: the session
        asks an LLM (``attest.mode`` not ``none``, an endpoint) and the answers are known."""
        s = self.settings
        return bool(self.shown) and s is not None and s.llm is not None and s.workflow.attest.mode != "none"


@dataclass(frozen=True)
class BattleInputs:
    """What the session hands the battle stage (:func:`collect`) beside the reports."""

    rule_files: Sequence = ()  # (path, lines) of the run files whose records the RAG 2026 rules are checked on
    has_nuggets: bool = False  # a nugget bank is judged (the verdict model with recall)
    opponents: Optional[float] = None  # the budget: opponents per run and topic (None: every pair)
    citations: Optional[Mapping] = None  # (run, topic, sentence, rank) -> (status, evidence), for the LLM's question
    questions: Optional[dict] = None  # topic -> its text, shown above the two answers
    labels: Any = None  # assessors' verdicts, final (judges.formats.battle_labels.BattleLabels; --labels)
    rules: Optional[Counter] = None  # the rules broken as the first pass noted them (None: read rule_files)


def collect(
    settings,
    reports: Iterable[Optional[Report]],
    evidence,
    log,
    warn: Callable[[str], None] = lambda _: None,
    counts: Optional[Counter] = None,
    inputs: BattleInputs = BattleInputs(),
    **_,
) -> Answers:
    """The battle kind's ``judge`` (:func:`judges.engine.pairs.battle_kind`): the answers' words
    from ``reports`` (topic by topic, a ``None`` ends one) and the RAG 2026 rules the records of
    ``inputs.rule_files`` break (``inputs.rules``: as the first pass noted them, no file read
    again), a summary line through ``warn``; with ``inputs.citations`` each answer as the LLM's
    side-by-side question shows it. The verdicts need the session's measures
    and come in :func:`judges.session.battles.judge_battles`."""
    from judges.attest.sidebyside import Shown

    words: dict = {}
    shown: dict = {}
    for rep in reports:
        if rep is not None:
            key = (rep.run_id, rep.topic_id)
            words[key] = sum(len(s.text.split()) for s in rep.sentences)
            if inputs.citations is not None:
                shown[key] = Shown(
                    tuple(
                        (
                            s.text,
                            tuple(
                                inputs.citations.get((*key, s.index, c.rank), ("not judged", "")) for c in s.citations
                            ),
                        )
                        for s in rep.sentences
                        if s.text.strip()
                    )
                )
    rules = rag26.check_files(inputs.rule_files) if inputs.rules is None else inputs.rules
    line = rag26.warning(rules)
    if line is not None:
        warn(line)
    log.event("battles", answers=len(words), rules={k: int(v) for k, v in sorted(rules.items())})
    counts = Counter() if counts is None else counts
    counts.update(rules)
    questions = dict(inputs.questions or {})
    return Answers(
        words, rules, inputs.has_nuggets, inputs.opponents, counts, shown, settings, questions, inputs.labels
    )
