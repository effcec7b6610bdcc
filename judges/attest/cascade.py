"""The attestation cascade: the support judge decides the clear cases, an LLM the uncertain ones.

Which citations go to the LLM (workflow ``attest.mode``):

* ``none``: none; the judge makes no network call and is fully deterministic;
* ``uncertain``: the citations the session's rule selects (:mod:`judges.attest.selection`):
  ``P(full)`` in ``attest.band`` when given, else those the session's plan chose
  (:mod:`judges.attest.plan`) after a first pass without the LLM: exactly ``attest.count``, or
  ``attest.budget`` of the judgeable citations, largest expected gain first;
* ``all``: every resolvable citation (one question per citation, as the TREC AutoJudge citation
  judge asks); alignment still chooses the evidence shown.

Missing documents never go to the LLM. A citation whose sentence or evidence contains text
addressed to the judge (:data:`GUARD_PATTERNS` plus ``attest.guard_patterns``) is not sent
either: it is marked ``guarded`` and judged ``unsupported``. Keeping the judge's status instead
would let such text dodge an LLM that says NO; grading it lower than any answer could makes
instructing the judge never pay.

What the model sees (``attest.evidence``): ``window``, the aligned span widened to whole
sentences plus ``context_sentences`` on each side (a citation without an alignment shows its
best candidate window), or ``document``, the document from its start; both are capped at
``max_evidence_tokens`` word tokens around the aligned span.

The final status (:func:`combine`) depends on the question (``attest.question``,
:mod:`judges.attest.prompt`):

* ``yes_no`` (the default): the question is whether the document fully supports the sentence,
  so the LLM decides the ``supported`` level and the support judge the rest. The LLM's
  probability of YES is P(YES) from the answer token's log-probabilities when the server gives
  them, else 1 for YES and 0 for NO. At P(YES) >= 0.5 the citation is ``supported``; below, it
  is ``partial`` when the support judge said ``supported`` or ``partial``, else ``unsupported``:

  | support judge says | LLM YES | LLM NO |
  |---|---|---|
  | supported | supported | partial |
  | partial | supported | partial |
  | unsupported | supported | unsupported |

* ``support_level``: the LLM's level is the status (FULL ``supported``, PARTIAL ``partial``,
  NONE ``unsupported``), whatever the support judge said; P(FULL) from the log-probabilities
  is recorded (``llm_p_yes``) but does not decide.

A reply that is none of the question's answers (``unparsed``) or no reply (``failed``) follows
``attest.on_unparsed``: keep the support judge's status (``judge``), or ``unsupported``.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Callable, Mapping, NamedTuple, Optional, Union

import numpy as np

from judges.align.passages import DocIndex
from judges.attest import check, degenerate
from judges.attest.answers import affirms, parse_answer
from judges.attest.cache import Answer, AnswerCache, question_key
from judges.attest.client import Asker, Failure, Request, online
from judges.attest.endpoint import Endpoint
from judges.attest.kinds import CITATION, PairKind
from judges.attest.selection import Band, Rule
from judges.core.config import AttestSettings
from judges.core.counts import (
    ATTESTATION_PREFIXES,
    ATTEST_CACHE_HITS,
    ATTEST_CALLS,
    ATTEST_CHANGED,
    ATTEST_FAILED,
    ATTEST_FAILED_REQUESTS,
    ATTEST_FAILURE,
    ATTEST_GUARDED,
    ATTEST_SELECTED,
    ATTEST_UNPARSED,
    LLM_TOKENS_IN,
    LLM_TOKENS_OUT,
    answer_tally,
    attest_answer,
    attest_check,
    attest_failure,
    check_tally,
)
from judges.formats.debuglog import DebugLog
from judges.core.records import Judgment
from judges.core.vocabulary import ANSWERS, LEVEL_STATUS
from judges.core.vocabulary import STATUS_GRADE


def combine(judge_status: str, answer: str, p_yes, question: str = "yes_no") -> str:
    """The status from the support judge's status and the LLM's answer (see the module doc)."""
    if question == "support_level":
        return LEVEL_STATUS[answer]
    if affirms(answer, p_yes):
        return "supported"
    return "partial" if judge_status in ("supported", "partial") else "unsupported"


# Text that addresses the judge instead of stating facts (matched case-insensitively).
GUARD_PATTERNS: tuple[str, ...] = (
    r"\b(answer|respond|reply|output|return)\s*[:\-]?\s+(with\s+)?(only\s+)?[\"'“‘]?(yes|no)\b",
    r"\bignore\s+(all\s+|any\s+|the\s+)?(previous|prior|above|earlier|other|your)\s+(instructions?|rules?|prompts?)",
    r"\bnote\s+to\s+(the\s+)?(assessor|grader|evaluator|judge|annotator|model|reviewer|ai|llm)\b",
    r"\b(assessor|grader|evaluator|annotator|llm|ai model|language model)s?\b[^.!?\n]{0,40}\b(must|should|shall)\b",
    r"\b(this|the)\s+(document|passage|source|text|citation)\s+(fully\s+)?supports\s+(this|the\s+sentence|every|all|the\s+claim)",
    r"\bsystem\s+prompt\b",
)


class Case(NamedTuple):
    """One judged citation, as the attester needs it."""

    sentence: str
    doc: Optional[DocIndex]  # None: missing document
    judgment: Judgment
    window: Optional[tuple[int, int]]  # best candidate window (token range), for citations without an alignment
    ids: dict  # run_id, topic_id, sentence_index, citation_rank, doc_id (for the debug log)


class Pair(NamedTuple):
    """One pair of either kind as the cascade needs it: the claim asked about, the ids of its
    debug-log events, its selection key (the kind's ``key`` fields), and the judge's status (in
    the citation's words: ``supported``, ``partial``, ``unsupported``, ``missing``, ...),
    probabilities and human label."""

    claim: str
    ids: dict
    key: tuple
    status: str
    p_any: Optional[float]
    p_full: Optional[float]
    human_label: Optional[object] = None


class Decided(NamedTuple):
    """What the cascade decided for one selected pair: ``source`` (``llm``, ``cache``, ``failed``,
    ``guarded``), the answer read (``FULL``, ``YES``, ..., or ``unparsed``, ``failed``,
    ``guarded``), the status in the citation's words, and the reply's P(YES) and tokens."""

    source: str
    answer: str
    status: str
    p_yes: Optional[float] = None
    tokens_in: int = 0
    tokens_out: int = 0


class Attester:
    """Sends the selected citations to the LLM (through the cache) and applies the grade table."""

    def __init__(
        self,
        settings: AttestSettings,
        endpoint: Endpoint,
        cache_dir: Path,
        log: DebugLog,
        counts: Counter,
        selection: Optional[Rule] = None,
        ask: Optional[Asker] = None,
        kind: PairKind = CITATION,
        check_sample: Optional[Mapping[tuple, str]] = None,
    ):
        """``selection``: the rule ``uncertain`` sends by (a band, or the session's plan); ``ask``:
        who answers the questions the cache does not (default: the endpoint, online); ``kind``:
        which kind of pair it asks about (:mod:`judges.attest.kinds`); ``check_sample``: the pairs
        asked to check the LLM, by key the model's sure decision (:func:`judges.attest.check.draw`)."""
        self.s, self.endpoint, self.log, self.counts = settings, endpoint, log, counts
        self.check_sample = dict(check_sample or {})
        self.kind = kind
        self.question, self.reading = kind.question(settings.question), kind.answers(settings.question)
        self.selection = selection
        self.ask: Asker = ask or online(endpoint, settings)
        from judges.attest import prompt

        self.messages = prompt.messages
        self.answers = ANSWERS[self.reading]
        self.cache = AnswerCache(Path(cache_dir))
        self.guard = re.compile(
            "|".join(f"(?:{p})" for p in GUARD_PATTERNS + tuple(settings.guard_patterns)), re.IGNORECASE
        )
        self.params = {"temperature": 0, "max_tokens": settings.max_tokens, "seed": settings.seed}
        if settings.logprobs:
            self.params |= {"logprobs": True, "top_logprobs": 5}

    def close(self) -> None:
        self.cache.close()

    def why(self, key: tuple, j: Judgment) -> Optional[dict]:
        """Why ``j`` was or was not sent, as named fields (``uncertain`` only; ``key``: run, topic,
        sentence index, citation rank)."""
        if self.selection is None or j.status == "missing" or j.human_label is not None:
            return None
        return self.selection.fields(key, j)

    def selects(self, key: tuple, j: Union[Judgment, Pair]) -> bool:
        if self.s.mode == "none" or j.status == "missing" or j.human_label is not None:
            return False
        if self.s.mode == "all":
            return True
        if j.status == "cross_language" and isinstance(self.selection, Band):  # alignment could not judge it
            return True
        assert self.selection is not None, "uncertain sends by a rule (judges.attest.selection.rule)"
        return self.selection.sends(key, j)

    # -- what the model sees ---------------------------------------------------------------
    def evidence(self, case: Case) -> tuple[str, int]:
        """The evidence text shown for ``case`` and its length in word tokens."""
        doc, j, cap = case.doc, case.judgment, self.s.max_evidence_tokens
        assert doc is not None, "only selected cases are shown, and a missing document is never selected"
        starts, ends = doc.tokens.starts, doc.tokens.ends
        n = len(starts)
        if n == 0:
            return doc.text.strip(), 0
        if j.score > 0:
            a, b = j.char_start, j.char_end
        elif case.window is not None:
            a, b = int(starts[case.window[0]]), int(ends[case.window[1] - 1])
        else:
            a, b = int(starts[0]), int(ends[min(n, cap) - 1])
        span_lo = int(np.searchsorted(starts, a, "left"))
        span_hi = max(span_lo + 1, int(np.searchsorted(starts, b, "left")))
        if self.s.evidence == "document":
            lo, hi = 0, n
        else:
            spans = doc.sentences
            s_starts = spans[:, 0]
            first = max(int(np.searchsorted(s_starts, a, "right")) - 1, 0)
            last = max(int(np.searchsorted(s_starts, b, "left")) - 1, first)
            first = max(first - self.s.context_sentences, 0)
            last = min(last + self.s.context_sentences, len(spans) - 1)
            lo = int(np.searchsorted(starts, spans[first][0], "left"))
            hi = int(np.searchsorted(starts, spans[last][1], "left"))
            if hi - lo <= cap:  # whole sentences, punctuation included
                return doc.text[spans[first][0] : spans[last][1]], hi - lo
        if hi - lo <= cap:
            return doc.text.strip(), hi - lo
        # Too long: ``cap`` tokens that keep the aligned span, centred (its start when it is longer).
        if self.s.evidence == "document" and span_hi <= cap:
            lo, hi = 0, cap
        else:
            first_tok, last_tok = lo, hi
            lo = span_lo if span_hi - span_lo >= cap else span_lo - (cap - (span_hi - span_lo)) // 2
            lo = max(first_tok, min(lo, last_tok - cap))
            hi = lo + cap
        return doc.text[int(starts[lo]) : int(ends[hi - 1])], hi - lo

    # -- the cascade -------------------------------------------------------------------------
    def attest(self, cases: list[Case]) -> list[Judgment]:
        """The final judgment of every case (unchanged for citations not selected)."""
        out = [c.judgment for c in cases]
        pairs = []
        for case in cases:
            ids, j = case.ids, case.judgment
            key = (ids["run_id"], ids["topic_id"], ids["sentence_index"], ids["citation_rank"])
            pairs.append(Pair(case.sentence, ids, key, j.status, j.p_any, j.p_full, j.human_label))
        decided = self.decide(pairs, lambda i: self.evidence(cases[i]))
        for i, d in enumerate(decided):
            if d is None:
                continue
            j = cases[i].judgment
            if d.source == "guarded":
                out[i] = j._replace(status="unsupported", grade=0, llm_answer="guarded")
            elif d.answer == "failed":
                out[i] = j._replace(status=d.status, grade=STATUS_GRADE[d.status], llm_answer=d.answer)
            else:
                out[i] = j._replace(
                    status=d.status,
                    grade=STATUS_GRADE[d.status],
                    llm_answer=d.answer,
                    llm_p_yes=d.p_yes,
                    llm_tokens_in=d.tokens_in,
                    llm_tokens_out=d.tokens_out,
                )
        return out

    def decide(self, pairs: list[Pair], evidence_of: Callable[[int], tuple[str, int]]) -> list[Optional[Decided]]:
        """What the cascade decides for each pair of this attester's kind (None: not selected):
        selection, the guard, the question (``evidence_of(i)``: the evidence shown for pair
        ``i`` and its length in word tokens), the cache, the questions not cached asked at once,
        and the status in the citation's words (see the module doc)."""
        counts = self.counts
        out: list[Optional[Decided]] = [None] * len(pairs)
        chosen = self._questions(pairs, evidence_of, out)
        if not chosen:
            return out

        answers: dict[str, Union[Answer, Failure]] = dict(self.cache.get_many(sorted({c[1] for c in chosen})))
        cached = set(answers)
        checking = {c[1] for c in chosen if c[5] is not None}
        requests, asked = [], set()
        for _, key, msgs, _, _, _ in chosen:
            if key not in answers and key not in asked:
                asked.add(key)
                body = {"model": self.endpoint.model, "messages": msgs, **self.params}
                requests.append(Request(key, body, self.answers, key in checking))

        def on_result(request: Request, result: Union[Answer, Failure]) -> None:
            answers[request.key] = result
            if isinstance(result, Answer):
                self.cache.put(request.key, self.endpoint.model, result)
                counts[ATTEST_CALLS] += 1
                counts[LLM_TOKENS_IN] += result.tokens_in
                counts[LLM_TOKENS_OUT] += result.tokens_out
            else:
                counts[ATTEST_FAILED_REQUESTS] += 1
                counts[attest_failure(result.reason)] += 1

        self.ask(requests, on_result=on_result)

        reading = self.reading
        for i, key, _, _, selected, side in chosen:
            pair, result = pairs[i], answers[key]
            got = result if isinstance(result, Answer) else None
            parsed = parse_answer(got.reply, reading) if got is not None else None
            if side is not None:  # the check: its answer measured against the model's sure decision
                read = (
                    check.UNANSWERED
                    if got is None or parsed is None
                    else degenerate.answer_of(parsed, got.p_yes, reading)
                )
                counts[attest_check(read, side)] += 1
            if not selected:
                continue
            aligned = pair.status
            if isinstance(result, Failure):
                counts[ATTEST_FAILED] += 1
                decided = Decided("failed", "failed", self._unparsed(aligned))
            else:
                source = "cache" if key in cached else "llm"
                counts[ATTEST_CACHE_HITS] += key in cached
                if parsed is None:
                    counts[ATTEST_UNPARSED] += 1
                    answer, status = "unparsed", self._unparsed(aligned)
                else:
                    answer, status = parsed, combine(aligned, parsed, result.p_yes, reading)
                    read = degenerate.answer_of(parsed, result.p_yes, reading)
                    counts[attest_answer(read, degenerate.model_decision(pair.p_any, pair.p_full))] += 1
                decided = Decided(source, answer, status, result.p_yes, result.tokens_in, result.tokens_out)
            counts[ATTEST_CHANGED] += decided.status != aligned
            out[i] = decided
            self._log_output(pair, key, decided, result)
        return out

    def _questions(
        self, pairs: list[Pair], evidence_of: Callable[[int], tuple[str, int]], out: list[Optional[Decided]]
    ) -> list[tuple[int, str, list, int, bool, Optional[str]]]:
        """The questions to ask, per pair selected or in the check sample: (pair index, key, messages,
        evidence tokens, selected, the model's sure decision if a check pair); guarded pairs are
        decided in ``out`` here."""
        counts = self.counts
        # (pair index, key, messages, evidence tokens, selected, the model's sure decision if a check pair)
        chosen: list[tuple[int, str, list, int, bool, Optional[str]]] = []
        for i, pair in enumerate(pairs):
            selected = self.selects(pair.key, pair)
            side = self.checks(pair)
            if not selected and side is None:
                continue
            counts[ATTEST_SELECTED] += selected
            evidence, n_tokens = evidence_of(i)
            if self.guard.search(pair.claim) or self.guard.search(evidence):
                if side is not None:
                    counts[attest_check(check.UNANSWERED, side)] += 1
                if not selected:
                    continue
                counts[ATTEST_GUARDED] += 1
                counts[ATTEST_CHANGED] += pair.status != "unsupported"
                guarded = out[i] = Decided("guarded", "guarded", "unsupported")
                self._log_output(pair, None, guarded, None)
                continue
            msgs = self.messages(pair.claim, evidence, self.question)
            key = question_key(self.endpoint.model, msgs, self.params)
            chosen.append((i, key, msgs, n_tokens, selected, side))
            if self.log.enabled:
                self.log.event(
                    "ATTEST_INPUT",
                    **self._ids(pair),
                    model=self.endpoint.model,
                    prompt_key=key,
                    evidence_tokens=n_tokens,
                    prompt=msgs[-1]["content"],
                    **({"check": side} if side is not None else {}),
                )
        return chosen

    def checks(self, pair: Pair) -> Optional[str]:
        """The model's sure decision on ``pair`` when it is in the check sample (None: it is not);
        a missing or labelled pair never is."""
        if not self.check_sample or self.s.mode == "none" or pair.status == "missing" or pair.human_label is not None:
            return None
        return self.check_sample.get(pair.key)

    def _unparsed(self, aligned: str) -> str:
        return aligned if self.s.on_unparsed == "judge" else "unsupported"

    def _ids(self, pair: Pair) -> dict:
        """The pair's fields in its debug-log events (nugget pairs say their kind)."""
        return pair.ids if self.kind.name == "citation" else {"kind": self.kind.name, **pair.ids}

    def _log_output(self, pair: Pair, key, decided: Decided, result) -> None:
        if not self.log.enabled:
            return
        extra: dict[str, object] = {}
        if isinstance(result, Answer):
            extra = dict(reply=result.reply)
        elif isinstance(result, Failure):
            extra = dict(failure=result.reason, attempts=result.attempts)
        status = self.kind.status
        self.log.event(
            "ATTEST_OUTPUT",
            **self._ids(pair),
            prompt_key=key,
            source=decided.source,
            answer=decided.answer,
            p_yes=decided.p_yes,
            tokens_in=decided.tokens_in,
            tokens_out=decided.tokens_out,
            support_status=status.get(pair.status, pair.status),
            status=status[decided.status],
            **extra,
        )


def summarize(counts: Counter, settings: AttestSettings, endpoint: Endpoint) -> dict:
    """The attestation figures of a session, for the summary, ``config.yml`` and the debug log.

    ``calls`` are questions answered by the endpoint in this session (each costs tokens);
    ``cache_hits`` are citations answered from the cache; the cost estimate prices this
    session's calls only. ``answers`` counts the parsed answers, ``confident`` those to citations
    the support model is sure of, ``kappa`` is their agreement with the model there, and
    ``check`` is the LLM's agreement on the check sample (:mod:`judges.attest.check`), and
    ``degenerate`` is ``None`` or why the answers are not to be used (:mod:`judges.attest.degenerate`).
    """
    mine = {k: counts.pop(k) for k in [k for k in counts if k.startswith(ATTESTATION_PREFIXES)]}
    counts = Counter(mine)  # taken out of the session's counts: they are reported here
    failures = {k[len(ATTEST_FAILURE) :]: int(v) for k, v in sorted(counts.items()) if k.startswith(ATTEST_FAILURE)}
    tokens_in, tokens_out = int(counts[LLM_TOKENS_IN]), int(counts[LLM_TOKENS_OUT])
    cost = settings.cost(tokens_in, tokens_out)
    return {
        "mode": settings.mode,
        **endpoint.describe(),
        "selected": int(counts[ATTEST_SELECTED]),
        "guarded": int(counts[ATTEST_GUARDED]),
        "cache_hits": int(counts[ATTEST_CACHE_HITS]),
        "calls": int(counts[ATTEST_CALLS]),
        "failed": int(counts[ATTEST_FAILED]),
        "unparsed": int(counts[ATTEST_UNPARSED]),
        "changed": int(counts[ATTEST_CHANGED]),
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
        "estimated_cost": round(cost, 6),
        "failed_requests": failures,
        **degenerate.figures(answer_tally(counts), check.figures(check_tally(counts), settings.check_size), settings),
    }
