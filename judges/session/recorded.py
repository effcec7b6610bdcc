"""A judged set's session as its ``NAME.config.yml`` records it: the inputs and the workflow, to
judge again in memory (``run_judge.py attest export``).

The config names every input file with its sha256 (absolute paths; a relative one from an older
config is found as :func:`judges.formats.documents.resolve_input` finds it) and dumps the whole
workflow, ``--attest`` and ``--backend`` folded in. :func:`recorded_session` turns that back into
:class:`judges.session.spec.Inputs` and a :class:`judges.core.config.Workflow`, refusing, with one error
line, an input that is gone or has changed since (its hash differs): the questions of a set are
those of its inputs. ``--max-topics`` and ``--max-runs`` are not recorded; the recorded counts
of topics and runs stand in for them (the first N of N is all of them), and
:func:`check_same_session` compares what the inputs give now with what was recorded.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from pydantic import ValidationError

from judges.core.config import Workflow
from judges.core.errors import InputError
from judges.formats import outputset
from judges.formats.documents import resolve_input
from judges.formats.setrecord import check_set
from judges.formats.tables import read_config
from judges.session.spec import Inputs


class Recorded(NamedTuple):
    inputs: Inputs
    workflow: Workflow
    config: dict  # NAME.config.yml as read
    path: Path  # NAME.config.yml


def recorded_session(out_dir: Path, name: str) -> Recorded:
    """The inputs and workflow of ``out_dir``'s set ``name`` (an :class:`InputError` when its config
    is missing or damaged, or an input is gone or changed)."""
    path = outputset.path(out_dir, name, "config")
    check_set(out_dir, name)  # a file damaged or gone since the set was written: one error line
    try:
        config = read_config(path)
        recorded = config["inputs"]
        workflow = Workflow.model_validate(config["workflow"])
        topics, runs = int(config["topics"]), list(config["runs"])
    except FileNotFoundError:
        raise InputError(path, None, None, "no such file: judge first") from None
    except KeyError as e:
        raise InputError(path, None, None, f"not a citejudge config: no {e}") from None
    except ValidationError as e:
        where = ".".join(str(p) for p in e.errors()[0]["loc"])
        raise InputError(path, None, f"workflow.{where}", e.errors()[0]["msg"]) from None
    except (TypeError, ValueError) as e:
        raise InputError(path, None, None, f"not a citejudge config: {e}") from None

    if "in_memory" in recorded:  # the AutoJudge adapter's topics and reports: no file to read again
        why = "judged from topics and reports handed over in memory: no input files to judge again"
        raise InputError(path, None, "inputs.in_memory", why)

    def found(kind: str) -> list[Path]:
        return recorded_inputs(recorded, kind, path)

    corpus, workflow_file, labels = found("corpus"), found("workflow"), found("labels")
    nuggets = found("nuggets")  # a set judged with --nuggets: its nugget pairs are asked too
    inputs = Inputs(
        topics=found("topics"),
        responses=found("responses"),
        corpus=corpus[0] if corpus else None,
        workflow_path=workflow_file[0] if workflow_file else None,
        labels=tuple(labels),
        dataset=str(config.get("dataset", "auto")),
        max_topics=topics or None,
        max_runs=len(runs) or None,
        on_error=str(config.get("on_error", "fail")),
        allow_missing_text=True,  # the recorded session was judged: a set without text has no question
        allow_few_topics=True,  # and its topics were taken as they are
        nuggets=nuggets[0] if nuggets else None,
        judge=str(config.get("judge", "citation")),
        battle_opponents=config.get("battle_opponents"),
        nugget_model=str(recorded.get("nugget_model", "rag24")),
    )
    return Recorded(inputs, workflow, config, path)


def recorded_inputs(recorded: dict, kind: str, path: Path, missing_ok: bool = False) -> list[Path]:
    """The input files of ``kind`` (``responses``, ``corpus``...) that the config at ``path``
    records (its ``inputs``), each as it is now: an :class:`InputError` for one that has changed
    since (its sha256 differs), or is gone (unless ``missing_ok``: left out)."""
    entries = recorded.get(kind) or []
    entries = entries if isinstance(entries, list) else [entries]
    out = []
    for entry in entries:
        where = resolve_input(entry, path.parent)
        if not where.exists():
            if missing_ok:
                continue
            raise InputError(where, None, None, f"no such file: {path} names it ({kind}); moved since judging?")
        if isinstance(entry, dict) and "sha256" in entry and where.is_file() and _sha256(where) != entry["sha256"]:
            raise InputError(where, None, None, f"changed since {path} was written (sha256 differs): judge again")
        out.append(where)
    return out


def check_same_session(recorded: Recorded, runs: list[str], topics: int) -> None:
    """The runs and the number of topics judged now are those recorded, or one error line."""
    if sorted(runs) != sorted(recorded.config["runs"]) or topics != int(recorded.config["topics"]):
        raise InputError(
            recorded.path,
            None,
            None,
            f"its inputs now give {len(runs)} run(s) on {topics} topic(s), it records {len(recorded.config['runs'])} "
            f"on {recorded.config['topics']}: judge again",
        )


def _sha256(path: Path) -> str:
    from judges.session.writer import file_sha256

    return file_sha256(path)
