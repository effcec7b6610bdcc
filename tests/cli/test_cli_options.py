"""The CLI's options declared once (judges.cli.options): the judge's are the fields of one record, and an
option several commands take is one declaration, so its help and type are the same everywhere.
Read from the click commands typer builds (no process started)."""

from __future__ import annotations

import dataclasses

import typer.main

from judges.cli.app import app
from judges.cli.options import JudgeOptions


def _commands() -> dict[str, object]:
    """Every command by its path ("" the judge itself, "attest export", ...)."""
    root = typer.main.get_command(app)
    found = {"": root}
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        found[name] = command
        for sub, inner in getattr(command, "commands", {}).items():
            found[f"{name} {sub}"] = inner
    return found


def _option(command, flag: str):
    return next((p for p in command.params if flag in p.opts), None)


def test_the_judge_takes_exactly_the_records_fields_in_order():
    judge = _commands()[""]
    names = [p.name for p in judge.params]
    assert names == [f.name for f in dataclasses.fields(JudgeOptions)] + ["version"]
    assert len(names) == 34  # --battle-opponents, --headline and --allow-few-topics among them


def test_an_option_several_commands_take_is_declared_once():
    commands = _commands()
    shared = {
        # flag: the commands that take it with one meaning
        "--name": [("", "merge"), ("report", "agreement", "calibrate"), ("plan-assessments", "attest export")],
        "--use-env-llm": [("", "merge")],
        "--llm-config": [("", "merge")],
        "--cache-dir": [("", "merge", "attest export", "attest import")],
        "--strict-llm": [("", "merge")],
        "--use-degenerate-llm": [("", "merge")],
        "--rag-responses": [("report", "plan-assessments")],
        "--corpus": [("report", "plan-assessments")],
        "--assessments": [("agreement", "calibrate")],
        "--label-map": [("agreement", "calibrate")],
        "--batch-dir": [("attest export", "attest import")],
    }
    for flag, groups in shared.items():
        for group in groups:
            found = [_option(commands[c], flag) for c in group]
            assert None not in found, (flag, group)
            facts = {(p.help, p.multiple, p.required, p.is_flag, repr(p.default)) for p in found}
            assert len(facts) == 1, (flag, group)
    dirs = [next(p for p in commands[c].params if p.name == "out_dir") for c in ("report", "plan-assessments")]
    assert len({p.help for p in dirs}) == 1
