"""The passes a session makes over the citations (:func:`judges.session.passes.plan_passes`): which,
in which order, for each workflow and option; :func:`judges.session.passes.run_passes` carries them out
(the real runs are the CLI tests': tests/test_attest_cli.py, tests/test_labels*.py)."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest

from judges.core.config import Workflow
from judges.session.passes import ESTIMATE, FALLBACK, MAIN, PLAN, REFIT, Pass, plan_passes
from judges.session.spec import Inputs
from judges.session.options import RunOptions
from judges.session.stages import Loaded, Session


def _steps(attest: dict, *, outputs=True, strict=False, degenerate=False, labels=False, refit=False):
    inputs = Inputs([], [], refit_support=refit)
    settings = inputs.settings(Workflow.model_validate({"attest": {"check_size": 0, **attest}}))
    session = Session(
        inputs=inputs,
        outputs=None,
        settings=settings,
        described={},
        options=RunOptions(strict_llm=strict, use_degenerate_llm=degenerate),
        outset=object() if outputs else None,  # only whether the session writes is read
    )
    found = SimpleNamespace(statuses={("r", "t", 0, "d"): "supported"}) if labels else None
    loaded = Loaded(topics={}, scan=None, corpus={}, counts=Counter(), labels=found)
    return tuple(p.step for p in plan_passes(session, loaded))  # attest.check_size 0 unless given


@pytest.mark.parametrize(
    ("attest", "options", "steps"),
    [
        ({}, {}, (MAIN,)),  # no LLM: one pass
        ({"mode": "all"}, {}, (MAIN, FALLBACK)),  # asking: the guard against a degenerate LLM
        ({"mode": "all"}, {"strict": True}, (MAIN,)),  # --strict-llm: an error instead
        ({"mode": "all"}, {"degenerate": True}, (MAIN,)),  # --use-degenerate-llm: used all the same
        ({"mode": "all"}, {"outputs": False}, (MAIN,)),  # attest export: no output, no guard
        ({"mode": "uncertain", "budget": 0.3}, {}, (PLAN, MAIN, FALLBACK)),
        ({"mode": "uncertain", "band": [0.3, 0.7]}, {}, (MAIN, FALLBACK)),  # a band: no plan to draw
        ({"mode": "all", "check_size": 20}, {}, (PLAN, MAIN, FALLBACK)),  # the check sample's pass
        ({"mode": "all", "answer_error": "estimate"}, {}, (ESTIMATE, MAIN, FALLBACK)),
        ({"mode": "all", "answer_error": "estimate"}, {"outputs": False}, (MAIN,)),
        ({"mode": "uncertain", "budget": 0.3, "answer_error": "estimate"}, {}, (PLAN, ESTIMATE, MAIN, FALLBACK)),
        ({}, {"labels": True, "refit": True}, (REFIT, MAIN)),
        ({}, {"refit": True}, (MAIN,)),  # --refit-support without labels: nothing to fit to
        ({}, {"labels": True}, (MAIN,)),
        ({"mode": "uncertain", "budget": 0.3}, {"labels": True, "refit": True}, (REFIT, PLAN, MAIN, FALLBACK)),
    ],
)
def test_the_passes_a_session_makes_follow_its_workflow_and_options(attest, options, steps):
    assert _steps(attest, **options) == steps


def test_a_pass_is_a_frozen_record_naming_what_it_does():
    step = Pass(PLAN, "without the LLM: the plan and the check sample", planning=True)
    with pytest.raises(AttributeError):
        step.step = MAIN  # type: ignore[misc]
    assert step.does and step.planning and not step.checking and not step.keep_corpus


def test_an_interrupt_while_staged_leaves_no_trace_and_says_the_set_was_not_committed(tmp_path):
    """:class:`judges.session.staging.Staged`: the session's log and set in one order; Ctrl-C
    before the commit comes out as Interrupted(replaced=False), the staging directory and the lock gone."""
    from judges.formats.outset import Interrupted, OutputSet
    from judges.session.staging import Staged

    outset = OutputSet(tmp_path, "x")
    log_path = tmp_path / "x.jsonl"
    with pytest.raises(Interrupted) as raised:
        with Staged(outset, log_path) as staged:
            staged.log.event("before_the_set")  # kept in memory: nothing is created yet
            assert list(tmp_path.iterdir()) == []
            staged.open_set()
            staged.log.event("staged")
            raise KeyboardInterrupt
    assert raised.value.replaced is False
    assert list(tmp_path.iterdir()) == []  # no log, no staging directory, no lock
    again = OutputSet(tmp_path, "x")
    with Staged(again, log_path) as staged:  # the out-dir is not left locked
        staged.log.event("again")
        staged.open_set()
        staged.log.close()
        again.commit()
    assert [p.name for p in tmp_path.iterdir()] == ["x.jsonl"]
    assert '"again"' in log_path.read_text()


def test_an_interrupt_without_an_output_set_is_the_interrupt_itself():
    from judges.session.staging import Staged

    with pytest.raises(KeyboardInterrupt) as raised:
        with Staged(None, None):
            raise KeyboardInterrupt
    assert type(raised.value) is KeyboardInterrupt
