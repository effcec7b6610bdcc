"""citejudge's nugget judge as a TREC AutoJudge judge: it makes its own nugget bank from the answers
(no LLM: :mod:`judges.nuggets.made`) and judges every answer with it.

::

    auto-judge run --workflow workflows/autojudge-nuggets.yml \\
        --rag-responses RUNS_DIR/ --rag-topics TOPICS.jsonl --out-dir OUT/

:class:`NuggetJudge` implements ``create_nuggets`` (autojudge-base's ``NuggetBanks``, one bank per
topic, its nuggets as ``claim_bank`` claims carrying, in their ``metadata``, the runs that state them:
:mod:`judges.formats.nuggetbanks`), and ``judge`` (the nugget measures per topic, each answer judged by
the nuggets *other* runs state, never by its own wording); ``create_qrels`` is the citation judge's.
autojudge-base saves the banks (``OUT/FILEBASE.nuggets.jsonl``) and hands them back to ``judge``;
``judge`` writes them as ``OUT/FILEBASE.citejudge.nugget-bank.json`` and judges by that file, so the
scores record its SHA-256 and source (``answers``; ``post-edited`` when someone changed the bank
between the two steps). Without banks handed over it makes them itself (``--nuggets auto``).

Settings: the citation judge's (:mod:`judges.api.autojudge`), ``min_runs``, ``group``,
``vital_share`` (:class:`judges.nuggets.made.Params`) and ``replay_only``. The bank is made without
an LLM. When the judge workflow (``judge_workflow``) asks the LLM about nugget pairs (``attest.mode``),
the questions go to autojudge-base's LLM configuration (``base_url``, ``model``, ``api_key``) and
their answers to its ``cache_dir`` (default the out-dir); with ``replay_only: true`` every answer
comes from that cache and the first question it lacks stops the run with one line naming it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from autojudge_base import LeaderboardBuilder, LeaderboardSpec, MeasureSpec, NuggetBanks

from judges.api.autojudge import CitationJudge
from judges.attest.replay import CacheMiss
from judges.core.measures import REGISTRY
from judges.formats.nuggetbanks import bank_text
from judges.nuggets.answers import joined
from judges.nuggets.made import AUTO, Params, make_nuggets
from judges.nuggets.measures import NUGGET_MEASURES

BANK_SETTINGS = ("min_runs", "group", "vital_share", "replay_only")


def _params(kwargs: dict[str, Any]) -> tuple[Params, dict[str, Any]]:
    """The bank's parameters from ``kwargs``, and the other settings (the citation judge's)."""
    given = {k: kwargs[k] for k in BANK_SETTINGS if kwargs.get(k) is not None}
    rest = {k: v for k, v in kwargs.items() if k not in BANK_SETTINGS}
    try:
        params = Params(
            group=float(given.get("group", Params.group)),
            min_runs=int(given.get("min_runs", Params.min_runs)),
            vital_share=float(given.get("vital_share", Params.vital_share)),
        )
    except (TypeError, ValueError) as e:
        raise ValueError(f"judges.api.autojudge_nuggets.NuggetJudge: a bank setting is not a number: {e}") from None
    if not isinstance(given.get("replay_only", False), bool):
        raise ValueError(f"setting replay_only: {given['replay_only']!r} is not true or false")
    return params, rest


def llm_of(llm_config, kwargs: dict, outdir: Path):
    """``(endpoint, cache_dir, ask)`` for the nugget pairs' LLM questions (the judge workflow's
    ``attest``): autojudge-base's LLM configuration, its cache directory (default the out-dir) and,
    with ``replay_only``, an asker that answers from that cache alone
    (:class:`judges.attest.replay.Replay`); ``None`` without a model."""
    from judges.attest.endpoint import Endpoint
    from judges.attest.replay import Replay

    model = getattr(llm_config, "model", None)
    if llm_config is None or not model:
        return None
    base_url = getattr(llm_config, "base_url", None) or "http://127.0.0.1:1/v1"  # replay-only asks no server
    cache_dir = Path(getattr(llm_config, "cache_dir", None) or outdir)
    ask = Replay(cache_dir) if kwargs.get("replay_only") else None
    return Endpoint(str(base_url), str(model), str(getattr(llm_config, "api_key", None) or "")), cache_dir, ask


class NuggetJudge(CitationJudge):
    """The nugget judge behind autojudge-base's protocols, with a bank it makes from the answers."""

    nugget_banks_type = NuggetBanks

    def create_nuggets(self, rag_responses, rag_topics, llm_config, nugget_banks=None, corpus=None, **kwargs):
        if rag_responses is None:
            raise ValueError(
                "NuggetJudge makes its bank from the answers: set nugget_depends_on_responses: true in the workflow"
            )
        params, _ = _params(kwargs)
        answers: dict[str, list[tuple[str, str]]] = {t.request_id: [] for t in rag_topics}
        for r in rag_responses:
            text = joined(s.text for s in (r.responses or []))
            answers.setdefault(r.metadata.topic_id, []).append((r.metadata.run_id, text))
        made = make_nuggets(answers, {t.request_id: t.title for t in rag_topics}, params)
        return NuggetBanks.model_validate(json.loads(bank_text(made.banks.values(), "autojudge")))

    def create_qrels(self, rag_responses, rag_topics, llm_config, nugget_banks=None, corpus=None, **kwargs):
        return super().create_qrels(rag_responses, rag_topics, llm_config, None, corpus, **_params(kwargs)[1])

    def judge(self, rag_responses, rag_topics, llm_config, nugget_banks=None, qrels=None, corpus=None, **kwargs):
        _, rest = _params(kwargs)
        bank: Path | str = AUTO
        if nugget_banks is not None:  # the bank create_nuggets made (as autojudge-base saved it), or an edited one
            outdir = Path(rest.get("outdir") or ".")
            base = Path(str(rest.get("filebase") or "citejudge")).name
            bank = outdir / f"{base}.citejudge.nugget-bank.json"
            bank.parent.mkdir(parents=True, exist_ok=True)
            dumped = nugget_banks.model_dump(
                mode="json", exclude_none=True, exclude={"banks": {"__all__": {"all_nuggets_view"}}}
            )
            bank.write_text(json.dumps(dumped, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        llm = llm_of(llm_config, kwargs, Path(rest.get("outdir") or "."))
        try:
            result = self._run(rag_responses, rag_topics, corpus, rest, nuggets=Path(bank), judge="nugget", llm=llm)
        except CacheMiss as e:  # replay-only: one line naming the question
            raise ValueError(e.render()) from None
        values: dict[tuple[str, str], dict[str, float]] = {}
        for run, topic, measure, value in result.per_topic:
            if measure in NUGGET_MEASURES:  # the nugget judge's leaderboard (run_judge.py --judge nugget)
                values.setdefault((run, topic), {})[measure] = value
        names = {m for v in values.values() for m in v}
        spec = LeaderboardSpec(
            measures=tuple(MeasureSpec(m.name, float, m.description) for m in REGISTRY.values() if m.name in names)
        )
        builder = LeaderboardBuilder(spec)
        for (run, topic), v in sorted(values.items()):
            builder.add(run_id=run, topic_id=topic, values=v)
        on_missing = "fix_aggregate" if result.on_missing == "fix_aggregate" else "default"
        return builder.build(expected_topic_ids=[t.request_id for t in rag_topics], on_missing=on_missing)
