"""The nugget judgment in memory: features, spans, probabilities, measures, the model file and
its refit (calibrate-nuggets as a process)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import cli_in_process, ROOT, run_cli, shared

from judges.formats.nuggets import Nugget, NuggetBank, read_nuggets
from judges.nuggets import features as F
from judges.nuggets.judge import judge_topic
from judges.nuggets.measures import answer_measures, f1, from_levels
from judges.meta.nugget_calibrate import calibrate
from judges.nuggets.model import NuggetModel, fit, load_model

MINI = ROOT / "datasets" / "rag24-nuggets-mini"
BANK = NuggetBank(
    "t1",
    "why do bees sleep",
    (
        Nugget("Bees sleep up to 8 hours a day", "vital"),
        Nugget("Sleep helps bees remember the way to flowers", "vital"),
        Nugget("Queen bees never sleep", "okay"),
    ),
)


def _judge(*answers):
    return judge_topic(F.Encoder(), BANK, [(f"r{i}", a) for i, a in enumerate(answers)], load_model())


def test_a_stated_nugget_beats_an_absent_one_and_spans_point_into_the_answer():
    answer = "Bees rest at night. Sleep helps a bee remember the way back to flowers. Hives are warm."
    got = _judge(answer, "Honey is sweet and made in hives.")
    stated, absent = got[0][1], got[1][1]
    assert stated.p_support > 0.5 > absent.p_support
    assert stated.assignment == "support" and absent.assignment == "not_support"
    assert any("remember the way back to flowers" in answer[s:e] for s, e in stated.spans)
    for j in got[0] + got[1]:
        assert j.p_support + j.p_partial + j.p_not == pytest.approx(1.0)
        assert min(j.p_support, j.p_partial, j.p_not) >= 0
        assert j.explanation.startswith(j.assignment)


def test_spread_nugget_gets_spans_in_two_sentences():
    answer = "Queen bees are special. A queen may live for years. They never sleep, unlike workers."
    j = _judge(answer)[0][2]
    assert len(j.spans) >= 2 and j.spans == tuple(sorted(j.spans))
    assert all(a < b for (_, a), (b, _) in zip(j.spans, j.spans[1:]))  # disjoint, in text order


def test_a_number_the_answer_lacks_lowers_support_and_is_explained():
    right = _judge("Bees sleep up to 8 hours a day.")[0][0]
    wrong = _judge("Bees sleep up to 3 hours a day.")[0][0]
    assert wrong.p_support < right.p_support
    assert "numbers missing 8" in wrong.explanation


def test_judgment_does_not_depend_on_the_other_answers():
    a = "Bees sleep up to 8 hours a day. Queen bees never sleep."
    alone = _judge(a)[0]
    beside = _judge("Something else entirely.", a)[1]
    assert [(j.assignment, j.p_support, j.spans) for j in alone] == [
        (j.assignment, j.p_support, j.spans) for j in beside
    ]


def test_measures_follow_the_definitions():
    levels, vital = [2, 1, 0, 2], [True, True, False, False]
    m = from_levels(levels, vital)
    assert m == {"NUGGET_ALL": 2.5 / 4, "NUGGET_ALL_STRICT": 0.5, "NUGGET_VITAL": 0.75, "NUGGET_VITAL_STRICT": 0.5}
    assert from_levels([2], [False])["NUGGET_VITAL"] == 0.0  # no vital nugget: 0
    assert f1(0.0, 0.0) == 0.0 and f1(1.0, 0.5) == pytest.approx(2 / 3)
    judged = _judge("Bees sleep up to 8 hours a day.")[0]
    expected = answer_measures(judged)
    assert expected["NUGGET_ALL"] == pytest.approx(np.mean([j.p_support + 0.5 * j.p_partial for j in judged]))
    assert expected["NUGGET_VITAL_STRICT"] == pytest.approx(np.mean([j.p_support for j in judged[:2]]))


def test_human_measures_match_truth_of_rag24_nuggets():
    """The measure definitions are the assessors': their levels give truth.eval.txt's HUMAN_*."""
    d = shared("rag24-nuggets")
    found = read_nuggets(d / "nugget_assignment.jsonl")
    truth = {}
    for line in (d / "truth.eval.txt").read_text().splitlines():
        run, topic, measure, value = line.split()
        truth[(run, topic, measure)] = float(value)
    for (run, topic), a in found.assignments.items():
        vital = [n.vital for n in found.banks[topic].nuggets]
        for m, v in from_levels(a.levels, vital).items():
            assert v == pytest.approx(truth[(run, topic, "HUMAN_" + m)], abs=1e-4)


def test_fit_is_deterministic_and_round_trips(tmp_path):
    rng = np.random.default_rng(1)
    x = rng.random((200, len(F.FEATURES)))
    y = np.where(x[:, 0] > 0.6, 2, np.where(x[:, 0] > 0.5, 1, 0))
    a, b = fit(x, y), fit(x, y)
    assert a.to_dict() == b.to_dict()
    a.write(tmp_path / "m.json")
    back = NuggetModel.from_dict(json.loads((tmp_path / "m.json").read_text()))
    assert np.allclose(back.probabilities(x)[1], a.probabilities(x)[1])


def test_calibrate_nuggets_as_a_process(tmp_path):
    out = tmp_path / "m.json"
    r = run_cli("calibrate-nuggets", "--assignments", MINI / "nugget_assignment.jsonl", "--output", out)
    assert r.returncode == 0, r.stderr
    assert "cross-validated by topic" in r.stdout
    model = json.loads(out.read_text())
    pairs = sum(len(a.levels) for a in read_nuggets(MINI / "nugget_assignment.jsonl").assignments.values())
    assert model["format"] == "citejudge-nugget-model" and model["training"]["pairs"] == pairs
    assert calibrate(MINI / "nugget_assignment.jsonl").to_dict() == model
    bad = cli_in_process("calibrate-nuggets", "--assignments", MINI / "nuggets.jsonl", "--output", tmp_path / "x.json")
    assert bad.returncode == 2 and "no assignments" in bad.stderr and not (tmp_path / "x.json").exists()


def test_the_partial_band_is_one_ordinal_regression():
    """P(any) shares P(full)'s coefficients with a higher intercept of its own (issue 41): the
    first fit's second regression, fitted to the rare partial labels, did not carry over."""
    rng = np.random.default_rng(2)
    x = rng.random((400, len(F.FEATURES)))
    y = np.where(x[:, 0] + 0.3 * rng.random(400) > 0.8, 2, np.where(rng.random(400) < 0.05, 1, 0))
    for model in (fit(x, y), load_model()):
        assert np.array_equal(model.any_coef, model.full_coef)
        assert model.any_intercept > model.full_intercept
    m = fit(x, y)
    p_any, p_full = m.probabilities(x)
    assert np.all(p_any >= p_full) and abs(p_any.mean() - np.mean(y >= 1)) < 0.01


def test_left_out_by_topic_the_partial_band_keeps_the_assessors_mix():
    """On NIST's rag24-nuggets, left out by topic: P(any) averages near the assessors' share of
    (partial) support, and the statuses agree with theirs more often than the first fit's (0.677
    exact, 0.438 kappa; 0.762 and 0.551 now, bench/nuggets.py)."""
    from judges.meta.agreement import matrix_scores
    from judges.meta.nugget_calibrate import assignment_features
    from judges.nuggets.model import cross_validate

    x, y, keys = assignment_features(shared("rag24-nuggets", "nugget_assignment.jsonl"))
    p_any, _, level = cross_validate(x, y, np.array([k[1] for k in keys]))
    assert abs(p_any.mean() - np.mean(y >= 1)) < 0.03
    conf = np.zeros((3, 3))
    np.add.at(conf, (y, level), 1)
    scores = matrix_scores(conf)
    assert scores["accuracy"] > 0.74 and scores["kappa"] > 0.5
    # the shipped model is re-fittable: fitted to every topic of NIST's file (as calibrate-nuggets
    # fits it; the bench reads the run files' answers, which differ from NIST's answer_text in one
    # spacing) it judges every pair within 0.02 of the file shipped, with the same features
    shipped, refit = load_model(), fit(x, y)
    assert refit.features == shipped.features
    assert np.abs(refit.probabilities(x)[1] - shipped.probabilities(x)[1]).max() < 0.02
    assert np.abs(refit.probabilities(x)[0] - shipped.probabilities(x)[0]).max() < 0.02


TELEPHONE = NuggetBank(
    "t2",
    "did people trust the telephone when it was invented",
    (
        Nugget("The telephone was initially neglected by the public.", "vital"),
        Nugget("Many viewed the telephone with suspicion and fear.", "vital"),
        Nugget("The telephone revolutionized business communication.", "okay"),
        Nugget("The telephone made emergency services more accessible.", "okay"),
    ),
)


def test_the_span_of_a_found_nugget_is_where_the_answer_states_it():
    """The highlighted span of a supported nugget is the text that states it: in the sentence
    holding most of its rare words, from its first word of the nugget to its last; not "the
    telephone", the topic's subject every nugget shares (the whole-answer alignment's pick)."""
    answer = (
        "Alexander Graham Bell patented the telephone in 1876. "
        "At first many people viewed the new device with suspicion and fear, calling it a toy. "
        "Within decades the telephone was in most homes of the cities."
    )
    got = judge_topic(F.Encoder(), TELEPHONE, [("r", answer)], load_model())[0]
    fear = got[1]
    assert fear.assignment != "not_support"
    stated = "many people viewed the new device with suspicion and fear"
    assert [answer[s:e] for s, e in fear.spans] == [stated]
    # every span of every found nugget starts and ends on a word of that nugget
    enc = F.Encoder()
    for j in got:
        if j.assignment == "not_support":
            continue
        nugget_stems = set(enc.encode([j.nugget])[0].stems.tolist())
        for s, e in j.spans:
            words = enc.encode([answer[s:e]])[0]
            assert words.stems[0] in nugget_stems and words.stems[-1] in nugget_stems, answer[s:e]
