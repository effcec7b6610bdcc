"""The vocabulary of a session's counts: every key of :attr:`judges.session.spec.Summary.counts`.

A session counts into one ``Counter`` (worker processes into their part's, merged by
:mod:`judges.session.pipeline`). Every key written or read is declared here, grouped by the stage that
counts it, and used by name where it is written and read: a misspelt name fails ``ruff check``
and the import, and ``tests/core/test_counts.py`` checks that no count is keyed by a bare string.
The counts go, sorted, under ``counts`` in ``NAME.config.yml`` and into the debug log's
``summary`` event; :func:`judges.attest.cascade.summarize` takes the attestation counts
(``ATTESTATION``, ``attest_failure(reason)``, ``attest_answer(answer, decision)``) out and reports
them under ``attest`` instead.
"""

from __future__ import annotations

from judges.core.vocabulary import NUGGET_ASSIGNMENTS

# The first pass over topics, runs and corpus (judges.session.scan, judges.session.pipeline).
FILES_NOT_READ = "files_not_read"  # files in the run directories that are not run files
REPORTS_UNKNOWN_TOPIC = "reports_unknown_topic"  # not judged: topic not in --rag-topics
REPORTS_BEYOND_MAX_TOPICS = "reports_beyond_max_topics"  # not judged: a topic --max-topics leaves out
RUNS_NOT_SELECTED = "runs_not_selected"  # beyond --max-runs
CORPUS_DOCUMENTS = "corpus_documents"  # cited documents read from --corpus
SKIPPED = {  # --on-error skip: bad input records skipped, by what was skipped (judges.session.scan.Problems)
    "topic": "skipped_topics",
    "report": "skipped_reports",
    "corpus line": "skipped_corpus lines",
}

# Judging (judges.engine.judge.judge_part, then judges.session.pipeline from the merged assessments).
REPORTS = "reports"
SENTENCES = "sentences"
CITATIONS_BEYOND_LIMIT = "citations_beyond_limit"  # beyond citations.max_per_sentence: not judged
CITATIONS = "citations"  # judged citations (assessment rows)
CAPPED = "capped"  # lowered from supported to partial by the grounding checks
HUMAN_LABELLED = "human_labelled"  # citations whose level an assessor's label (--labels) gave

# The nugget pairs (--judge nugget / argue; judges.session.nuggets.summarize).
NUGGET_PAIRS = "nugget_pairs"  # judged (answer, nugget) pairs
NUGGET_ASSIGNED = {a: f"nugget_{a}" for a in NUGGET_ASSIGNMENTS}  # the pairs by their assignment

# Writing (judges.session.writer).
QRELS_ROWS = "qrels_rows"
DOC_QRELS_ROWS = "doc_qrels_rows"

# LLM attestation (judges.attest.cascade.Attester): taken out by summarize.
ATTEST_SELECTED = "attest_selected"
ATTEST_GUARDED = "attest_guarded"
ATTEST_CHANGED = "attest_changed"
ATTEST_CALLS = "attest_calls"
ATTEST_CACHE_HITS = "attest_cache_hits"
ATTEST_FAILED = "attest_failed"  # citations whose question failed
ATTEST_FAILED_REQUESTS = "attest_failed_requests"  # questions that failed (by reason: attest_failure)
ATTEST_UNPARSED = "attest_unparsed"
LLM_TOKENS_IN = "llm_tokens_in"
LLM_TOKENS_OUT = "llm_tokens_out"
ATTEST_FAILURE = "attest_failure: "  # + the reason: failed questions by reason
ATTEST_ANSWER = "attest_answer: "  # + answer and model decision: parsed answers (judges.attest.degenerate)
ATTEST_CHECK = "attest_check: "  # + answer and model decision: the check sample's answers (judges.attest.check)


def attest_failure(reason: str) -> str:
    """The key counting the questions that failed for ``reason``."""
    return ATTEST_FAILURE + reason


def attest_answer(answer: str, decision: str) -> str:
    """The key counting the parsed answers ``answer`` (YES, NO, FULL...) to citations on which the
    support model's confident decision was ``decision`` (:func:`judges.attest.degenerate.model_decision`)."""
    return f"{ATTEST_ANSWER}{answer} {decision}"


def attest_check(answer: str, decision: str) -> str:
    """The key counting the check questions (:mod:`judges.attest.check`) answered ``answer``
    (``unanswered``: none parsed) on pairs the model is sure are ``decision``."""
    return f"{ATTEST_CHECK}{answer} {decision}"


def check_tally(counts) -> dict[tuple[str, str], int]:
    """The check answers of ``counts`` by (answer, model decision): :func:`attest_check` read back."""
    return {
        tuple(k[len(ATTEST_CHECK) :].split(" ", 1)): int(v) for k, v in counts.items() if k.startswith(ATTEST_CHECK)
    }


def answer_tally(counts) -> dict[tuple[str, str], int]:
    """The parsed answers of ``counts`` by (answer, model decision): :func:`attest_answer` read back."""
    return {
        tuple(k[len(ATTEST_ANSWER) :].split(" ", 1)): int(v) for k, v in counts.items() if k.startswith(ATTEST_ANSWER)
    }


# Battles (--judge battle: judges.session.battles) and the RAG 2026 rules their answers break (judges.formats.rag26).
BATTLES = "battles"  # battles judged (every pair per topic, or those a --battle-opponents budget drew)
BATTLES_LABELLED = "battles_labelled"  # of them, decided by an assessor's verdict (--labels)
# The side-by-side questions' own counts (judges.attest.sidebyside; the figures under attest.battles).
SIDE_CALLS = "calls"  # questions answered by the LLM
SIDE_FAILED = "failed"  # questions that failed
SIDE_CACHE_HITS = "cache_hits"  # questions the cache answered
SIDE_OVER_COST = "over_cost"  # questions not asked: attest.max_cost
# A nugget bank made by an LLM (create-nuggets --from llm: judges.attest.nuggetize): its questions' own counts.
BANK_ASKED = "asked"  # questions the LLM answered
BANK_CACHE_HITS = "cache_hits"  # questions the cache answered
BANK_FAILED = "failed"  # questions that failed
BANK_UNPARSED = "unparsed"  # replies not a list of the expected length
BANK_TOKENS_IN = "tokens_in"
BANK_TOKENS_OUT = "tokens_out"
BANK_PENDING_TOPICS = "pending_topics"  # topics waiting for answers from batch files
RAG26_SENTENCES_OVER_CITATIONS = "rag26_sentences_over_citations"  # sentences with more than 3 citations
RAG26_REFERENCES_UNCITED = "rag26_references_uncited"  # references no sentence cites
RAG26_ANSWERS_OVER_WORDS = "rag26_answers_over_words"  # answers of more than 1,024 words
RAG26_ANSWERS_BREAKING = "rag26_answers_breaking"  # answers breaking any of the three


ATTESTATION = (
    ATTEST_SELECTED,
    ATTEST_GUARDED,
    ATTEST_CHANGED,
    ATTEST_CALLS,
    ATTEST_CACHE_HITS,
    ATTEST_FAILED,
    ATTEST_FAILED_REQUESTS,
    ATTEST_UNPARSED,
    LLM_TOKENS_IN,
    LLM_TOKENS_OUT,
)
ATTESTATION_PREFIXES = ("attest_", "llm_tokens_")  # what summarize takes out of the session's counts

KEYS = frozenset(
    (
        FILES_NOT_READ,
        REPORTS_UNKNOWN_TOPIC,
        RUNS_NOT_SELECTED,
        CORPUS_DOCUMENTS,
        *SKIPPED.values(),
        REPORTS,
        SENTENCES,
        CITATIONS_BEYOND_LIMIT,
        CITATIONS,
        CAPPED,
        HUMAN_LABELLED,
        QRELS_ROWS,
        DOC_QRELS_ROWS,
        *ATTESTATION,
        BATTLES,
        BATTLES_LABELLED,
        RAG26_SENTENCES_OVER_CITATIONS,
        RAG26_REFERENCES_UNCITED,
        RAG26_ANSWERS_OVER_WORDS,
        RAG26_ANSWERS_BREAKING,
    )
)


def declared(key: str) -> bool:
    """Whether ``key`` is a declared count (a fixed key, ``attest_failure(reason)`` or
    ``attest_answer(answer, decision)``)."""
    return key in KEYS or key.startswith((ATTEST_FAILURE, ATTEST_ANSWER, ATTEST_CHECK))
