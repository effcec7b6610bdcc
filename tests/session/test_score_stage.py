"""The score stage (:mod:`judges.session.score`): a session reads its labels once and loads its
support model once; the writer only writes what :func:`judges.session.score.score` scored."""

from __future__ import annotations

import inspect
from collections import Counter

import pytest

from helpers import cli_in_process, shared


def counting(monkeypatch, module, name: str, calls: Counter, key: str) -> None:
    """Replace ``module.name`` with a wrapper that counts its calls (and the calling modules)."""
    real = getattr(module, name)

    def wrapper(*args, **kwargs):
        calls[key] += 1
        caller = inspect.currentframe().f_back.f_globals.get("__name__", "")
        calls[f"{key} from {caller}"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)


@pytest.mark.shared
def test_labels_read_once_and_the_support_model_loaded_once(monkeypatch, tmp_path):
    import judges.formats.labels as labels
    import judges.support.judges as support_judges
    import judges.support.model as model

    data = shared("rag24-support")
    calls: Counter = Counter()
    monkeypatch.setattr(model, "_LOADED", {})  # this process's earlier sessions' model: loaded afresh
    counting(monkeypatch, labels, "read_label_files", calls, "labels")
    counting(monkeypatch, model, "load_model", calls, "load")
    counting(monkeypatch, support_judges, "load_model", calls, "load")
    counting(monkeypatch, model.SupportModel, "from_dict", calls, "parsed")
    done = cli_in_process(
        *("--judge", "citation", "--rag-topics", data / "topics.jsonl", "--rag-responses", data / "runs"),
        *("--corpus", data / "segments.jsonl", "--labels", data / "labels.jsonl"),
        *("--out-dir", tmp_path, "--name", "s"),
    )
    assert done.returncode == 0, done.stderr
    assert calls["labels"] == 1, calls  # by load(); the score stage takes them from there
    assert calls["parsed"] == 1, calls  # the model file read and parsed once in the session
    session = {k: v for k, v in calls.items() if k.startswith("load from judges.session")}
    assert session == {"load from judges.session.score": 1}, calls  # the writer loads nothing
    made = (tmp_path / "s.intervals.tsv").read_text().splitlines()
    assert sum("labels, taken as drawn at random" in line for line in made) == 45  # every run on its labels


def test_the_writer_takes_one_record_and_scores_are_frozen():
    from judges.session import writer
    from judges.session.score import Scores

    assert list(inspect.signature(writer.write_outputs).parameters) == ["given"]
    scores = Scores((), (), (), (), None)
    with pytest.raises(AttributeError):
        scores.intervals = ((1,),)  # type: ignore[misc]
