"""The pairs beyond the citations a session judges after its passes (:mod:`judges.session.passes`):
every answer against its topic's nuggets (``--nuggets``: :func:`judges.session.nuggets.kind`),
then the battles (``--judge battle``: :mod:`judges.session.battles`)."""

from __future__ import annotations

from typing import Sequence

from judges.attest.degenerate import DegeneratePolicy
from judges.engine.judge import Part
from judges.engine.pairs import judge_pairs
from judges.formats.debuglog import DebugLog
from judges.session.scan import reread
from judges.session.stages import Loaded, Session
from judges.session.stages import PairOutputs


def judge_other_kinds(
    session: Session, loaded: Loaded, log: DebugLog, parts: Sequence[Part] = ()
) -> tuple[dict[str, PairOutputs], tuple[str, ...]]:
    """The pairs of every kind beyond the citations that the session was asked for (``--nuggets``:
    :func:`judges.session.nuggets.kind`): every answer of the scan against its topic's nuggets,
    its events logged; by kind, what is written of them (:class:`judges.session.stages.PairOutputs`);
    and the summary's warnings."""
    from judges.session import nuggets

    inputs, settings = session.inputs, session.settings
    warnings: list[str] = []
    judged: dict[str, PairOutputs] = {}
    for kind in (nuggets.kind(),) if loaded.nuggets is not None else ():  # the citations are judge_pass's
        reports = reread(loaded.scan, None, inputs.dataset, settings.workflow.citations.max_per_sentence)
        result = judge_pairs(
            kind,
            settings,  # the nugget pairs' cascade: attest, llm, cache, asker
            reports,
            loaded.nuggets,
            log,
            warn=warnings.append,
            answered={run: len(topics) for run, topics in loaded.scan.answered.items()},
            model_spec=inputs.nugget_model,
            degenerate=DegeneratePolicy(session.options.strict_llm, session.options.use_degenerate_llm),
            assigned=None if loaded.labels is None else loaded.labels.nuggets,  # nugget assignments in effect
        )
        assert kind.outputs is not None, "a kind beyond the citations carries what the session writes of it"
        judged[kind.name] = kind.outputs(result)
    if inputs.judge == "battle":  # last: its verdicts read the other kinds' measures (judges.session.battles)
        from judges.session import battles

        judged[battles.BATTLE.name] = battles.judge_stage(settings, inputs, loaded, parts, log, warnings.append)
    return judged, tuple(warnings)
