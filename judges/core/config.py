"""The workflow: every threshold and policy of a judging run, read strictly from YAML.

Unknown keys are errors (a misspelt threshold must not be silently ignored), and every number
has bounds (a window of 10**12 sentences must fail here, not as a 7 TiB allocation while
judging). The defaults here are the ones ``workflows/citation.yml`` spells out.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Optional, Union

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from judges.core.errors import InputError
from judges.core.vocabulary import ANSWERS, BACKENDS

_BACKEND_NAMES = tuple(sorted(BACKENDS))
if TYPE_CHECKING:  # a Literal of names computed at import is no type to mypy
    BackendName = str
else:
    BackendName = Literal[_BACKEND_NAMES]
ANSWER_ERROR_PRIOR = 0.1  # attest.answer_error: the default, and the centre of estimate's prior


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AlignmentSettings(_Strict):
    """Smith-Waterman scoring (linear gaps) and the engine that computes it."""

    match: int = Field(2, gt=0, le=1000, description="score of two equal tokens")
    mismatch: int = Field(-1, lt=0, ge=-1000, description="score of two different tokens")
    gap: int = Field(-1, lt=0, ge=-1000, description="score of a token aligned to nothing")
    backend: BackendName = Field("numba", description="alignment engine; --backend overrides")


class WindowSettings(_Strict):
    """Passage windows over long documents and the lexical prefilter that picks candidates."""

    sentences: int = Field(6, ge=1, le=1000, description="sentences per passage window")
    stride: int = Field(3, ge=1, le=1000, description="sentences between window starts")
    candidates: int = Field(3, ge=1, le=1000, description="windows aligned per citation (best by IDF-weighted overlap)")

    @model_validator(mode="after")
    def _stride_within_size(self) -> "WindowSettings":
        if self.stride > self.sentences:
            raise ValueError("stride must not exceed sentences (windows would leave gaps)")
        return self


class SupportSettings(_Strict):
    """Which judge of support decides the status (judges.support.judges), and its thresholds."""

    judge: Literal["model", "alignment"] = Field(
        "model", description="model: the support model's probabilities; alignment: thresholds on norm_score"
    )
    model: str = Field("rag24", description="support model: a built-in name or a model file (run_judge.py calibrate)")
    p_supported: Optional[float] = Field(
        None, gt=0, lt=1, description="judge model: P(full) for 'supported' (null: the model file's)"
    )
    p_partial: Optional[float] = Field(
        None, gt=0, lt=1, description="judge model: P(any) for 'partial' (null: the model file's)"
    )
    norm_supported: float = Field(0.4, gt=0, le=1, description="judge alignment: norm_score for 'supported'")
    norm_partial: float = Field(0.25, gt=0, le=1, description="judge alignment: norm_score for 'partial'")

    @model_validator(mode="after")
    def _ordered(self) -> "SupportSettings":
        if self.norm_partial > self.norm_supported:
            raise ValueError("norm_partial must not exceed norm_supported")
        return self


class CitationSettings(_Strict):
    """Which citations of a sentence are judged."""

    max_per_sentence: Optional[int] = Field(
        None, ge=1, le=100_000, description="judge only the first N citations of a sentence (RAG 2026: 3); null = all"
    )


class LeaderboardSettings(_Strict):
    """How citations weigh in the support measures, and how topics a run did not answer enter the leaderboard."""

    weights: Literal["expected", "status"] = Field(
        "expected",
        description=(
            "expected: a citation whose status the support model decided weighs its expected TREC weight "
            "under the model's probabilities in WEIGHTED_PRECISION and WEIGHTED_RECALL; "
            "status: every citation weighs its status's weight, so those measures follow from the qrels"
        ),
    )
    on_missing: Literal["default", "fix_aggregate", "error"] = Field(
        "default",
        description="default: add zero rows; fix_aggregate: zeros only in the 'all' mean; error: fail",
    )


class AttestSettings(_Strict):
    """The LLM attestation cascade (Auto-ARGUE): which citations an LLM confirms, and how."""

    mode: Literal["none", "uncertain", "all"] = Field(
        "none",
        description=(
            "none: no LLM; uncertain: the least certain citations (budget or band); all: every resolvable citation"
        ),
    )
    budget: float = Field(
        0.25,
        ge=0,
        le=1,
        description=(
            "uncertain: share of this session's judgeable citations to ask about, planned over the whole session "
            "after a first pass without the LLM, largest expected gain first (judges.attest.plan)"
        ),
    )
    count: Optional[int] = Field(
        None, ge=0, description="uncertain: ask about exactly this many citations instead of a budget share"
    )
    max_cost: Optional[float] = Field(
        None,
        gt=0,
        description=(
            "uncertain with budget or count: stop the plan before the questions' estimated cost exceeds this "
            "(at price_per_1k_input / price_per_1k_output; judges.attest.prompt.question_cost)"
        ),
    )
    band: Optional[tuple[float, float]] = Field(
        None, description="uncertain: P(full) in [low, high) goes to the LLM; overrides budget and count"
    )
    plan_order: bool = Field(
        True,
        description=(
            "uncertain with budget or count: weigh a citation's expected gain by how many runs its run could be "
            "misordered with (judges.attest.plan), so the budget goes where it moves the ranking"
        ),
    )
    question: Literal[tuple(ANSWERS)] = Field(  # type: ignore[valid-type]
        "yes_no",
        description=(
            "yes_no: does the document support the whole sentence, YES/NO (Auto-ARGUE; the support judge "
            "splits NO into partial or unsupported); support_level: FULL/PARTIAL/NONE, the LLM's level is the status"
        ),
    )
    evidence: Literal["window", "document"] = Field(
        "window", description="window: aligned passage plus neighbouring sentences; document: whole text"
    )
    context_sentences: int = Field(
        1, ge=0, le=1000, description="window: sentences added on each side of the aligned span"
    )
    max_evidence_tokens: int = Field(300, ge=16, le=1_000_000, description="cap on the evidence shown, in word tokens")
    answer_error: Union[float, Literal["estimate"]] = Field(
        ANSWER_ERROR_PRIOR,
        description=(
            "the share of the LLM's answers taken to be wrong when an answer updates the model's probabilities "
            "(Bayes' rule: a citation's expected weight, a nugget pair's level, the intervals); 0: the answer decides; "
            "estimate: each kind's rate estimated from its own answers (judges.attest.answers.estimate_error)"
        ),
    )
    on_unparsed: Literal["judge", "unsupported"] = Field(
        "judge",
        description=(
            "an answer that is not one of the question's, or no answer: keep the support judge's status, or unsupported"
        ),
    )
    guard_patterns: tuple[str, ...] = Field(
        (),
        description=(
            "extra regexes (case-insensitive) for text addressed to the judge; "
            "such citations are not sent and judged unsupported"
        ),
    )
    check_size: int = Field(
        default=20,
        ge=0,
        le=100_000,
        description=(
            "the check sample: pairs the judge is sure are supported, and as many it is sure are not, asked beside the "
            "planned questions to measure the LLM's agreement (judges.attest.check); 0: no check"
        ),
    )
    check_use: Literal["if_better_than_chance", "always"] = Field(
        default="if_better_than_chance",
        description=(
            "if_better_than_chance: answers whose check is no better than chance (or unchecked) are not used; "
            "always: used all the same"
        ),
    )
    max_tokens: int = Field(16, ge=1, le=100_000, description="completion tokens per answer")
    seed: int = Field(0, ge=-(2**63), lt=2**63, description="sent to servers that accept a seed")
    logprobs: bool = Field(True, description="ask for token log-probabilities (gives P(YES), or P(FULL))")
    concurrency: int = Field(4, ge=1, le=1024, description="requests in flight per process")
    max_retries: int = Field(4, ge=0, le=100, description="retries of a request on 429/5xx/timeouts/connection errors")
    timeout_s: float = Field(60.0, gt=0, le=86_400, description="seconds per request")
    backoff_s: float = Field(0.5, ge=0, le=3600, description="first retry delay; doubles each retry, with jitter")
    price_per_1k_input: float = Field(0.0, ge=0, le=1e6, description="cost estimate: price per 1000 prompt tokens")
    price_per_1k_output: float = Field(0.0, ge=0, le=1e6, description="cost estimate: price per 1000 completion tokens")
    batch_discount: float = Field(
        0.5,
        ge=0,
        le=1,
        description="cost estimate of answers from batch files (attest import): the share taken off the prices",
    )

    @field_validator("answer_error", mode="before")
    @classmethod
    def _answer_error(cls, value):
        if value == "estimate":
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 0.5:
            raise ValueError(f"must be a number from 0 to 0.5, or estimate (not {value!r})")
        return float(value)

    @property
    def assumed_error(self) -> float:
        """The error rate the update assumes before any answer is in: the number set, or with
        ``estimate`` its prior's centre (:data:`ANSWER_ERROR_PRIOR`)."""
        return ANSWER_ERROR_PRIOR if self.answer_error == "estimate" else self.answer_error

    def cost(self, tokens_in: int, tokens_out: int, batch: bool = False) -> float:
        """The estimated cost of the tokens at the prices (``batch``: less the Batch discount)."""
        online = tokens_in / 1000 * self.price_per_1k_input + tokens_out / 1000 * self.price_per_1k_output
        return online * (1 - self.batch_discount) if batch else online

    @model_validator(mode="after")
    def _check(self) -> "AttestSettings":
        if self.band is not None and not 0 <= self.band[0] < self.band[1]:
            raise ValueError("band must be [low, high) with 0 <= low < high")
        if self.max_cost is not None and not (self.price_per_1k_input or self.price_per_1k_output):
            raise ValueError("max_cost needs price_per_1k_input or price_per_1k_output to estimate a question's cost")
        for pattern in self.guard_patterns:
            try:
                re.compile(pattern)
            except re.error as e:
                raise ValueError(f"guard pattern {pattern!r}: {e}") from None
        return self


class PlaceholderPattern(_Strict):
    """One extra placeholder pattern (added to the built-in table of judges.checks.placeholders)."""

    name: str
    regex: str
    category: str = "custom"

    @model_validator(mode="after")
    def _compiles(self) -> "PlaceholderPattern":
        try:
            re.compile(self.regex)
        except re.error as e:
            raise ValueError(f"placeholder pattern {self.name!r}: {e}") from None
        return self


class GroundingSettings(_Strict):
    """Deterministic grounding checks (judges.checks): the numbers and entities a cited sentence
    states must be in the cited document; placeholder text is counted per response."""

    cap: tuple[Literal["numbers", "entities"], ...] = Field(
        ("numbers", "entities"),
        description=(
            "a citation whose document lacks a number / an entity of its sentence is at most 'partial'; "
            "[] = never capped"
        ),
    )
    number_tolerance: float = Field(0.0, ge=0, lt=1, description="relative tolerance when comparing numbers (0: equal)")
    entity_fuzzy: Optional[float] = Field(
        None, gt=0, le=1, description="fuzzy entity matching: difflib ratio cutoff per word (null: off)"
    )
    placeholder_patterns: tuple[PlaceholderPattern, ...] = Field(
        (), description="extra placeholder patterns {name, regex, category} for PLACEHOLDER_FREE"
    )


class Workflow(_Strict):
    judge: Literal["citation"] = "citation"
    alignment: AlignmentSettings = AlignmentSettings()
    windows: WindowSettings = WindowSettings()
    support: SupportSettings = SupportSettings()
    citations: CitationSettings = CitationSettings()
    leaderboard: LeaderboardSettings = LeaderboardSettings()
    attest: AttestSettings = AttestSettings()
    grounding: GroundingSettings = GroundingSettings()


def load_workflow(path: Path | None) -> Workflow:
    """Read a workflow YAML file; ``None`` gives the defaults."""
    if path is None:
        return Workflow()
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise InputError(path, None, None, f"cannot read workflow: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise InputError(path, None, None, f"not UTF-8 ({e.reason} at byte {e.start + 1})") from None
    except RecursionError:
        raise InputError(path, None, None, "invalid YAML: nested too deeply") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise InputError(path, line, None, f"invalid YAML: {getattr(e, 'problem', e)}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InputError(path, None, None, "a workflow must be a mapping of settings")
    try:
        return Workflow.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or None
        problem = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
        raise InputError(path, None, field, problem) from None
