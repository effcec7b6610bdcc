"""Fit to the track at hand (issue 39, item 3): with --labels --refit-support the support model's
intercepts are re-fitted on the labelled citations, so stricter assessors move the citations not labelled
too; without it the session judges as before. One pair of CLI runs (re-fit and not) on rag24-mini,
with 60 of its labels made stricter (every label not supported), is checked by the tests here."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

from helpers import cli_in_process, ROOT, run_cli, track

from judges.support.refit import MIN_REFIT_LABELS, refit_to_labels
from judges.support.model import load_model, recalibrated
from judges.core.vocabulary import FEATURES

MINI = ROOT / "datasets" / "rag24-mini"
ARGS = track(MINI)
KEYS = ["run_id", "topic_id", "sentence_index", "doc_id"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("refit")
    lines = [json.loads(line) for line in (MINI / "labels.jsonl").read_text(encoding="utf-8").splitlines()[:60]]
    labels = out / "strict.jsonl"
    labels.write_text("".join(json.dumps({**o, "label": "not_supported"}) + "\n" for o in lines), encoding="utf-8")
    done = {}
    for name, extra in (("refit", ("--refit-support",)), ("asis", ())):
        result = run_cli(*ARGS, "--out-dir", out / name, "--name", "m", "--labels", labels, *extra)
        assert result.returncode == 0, result.stderr
        config = yaml.safe_load((out / name / "m.config.yml").read_text(encoding="utf-8"))
        table = pd.read_parquet(out / name / "m.assessments.parquet").set_index(KEYS + ["citation_rank"])
        done[name] = (result.stdout, config, table, out / name / "m.assessments.parquet")
    return done


def test_the_summary_and_config_say_it_was_refitted_and_on_how_many_labels(runs):
    stdout, config, _, _ = runs["refit"]
    refit = config["labels"]["support_refit"]
    assert refit["done"] is True and refit["labels"] == 60
    before, after = refit["p_full_intercept"]
    assert after < before  # every label not supported: a stricter track
    assert refit["p_any_intercept"][1] < refit["p_any_intercept"][0]
    assert "re-fitted on 60 labels" in stdout and "(--refit-support)" in stdout
    stdout, config, _, _ = runs["asis"]
    assert "support_refit" not in config["labels"] and "re-fitted" not in stdout


def test_stricter_labels_move_the_citations_not_labelled_down_never_up(runs):
    refit, asis = runs["refit"][2], runs["asis"][2]
    assert refit.index.equals(asis.index)
    labelled = refit["human_label"].notna()
    assert labelled.sum() == 60 and (refit.loc[labelled, "status"] == asis.loc[labelled, "status"]).all()
    grade = {"supported": 2, "partial": 1, "unsupported": 0}
    rest = ~labelled & refit["status"].isin(list(grade))
    new, old = refit.loc[rest, "status"].map(grade), asis.loc[rest, "status"].map(grade)
    assert (new <= old).all() and (new < old).sum() >= 10
    assert (refit.loc[rest, "p_full"] <= asis.loc[rest, "p_full"] + 1e-6).all()
    assert (refit.loc[rest, "p_any"] < asis.loc[rest, "p_any"]).any()


def test_too_few_labels_leave_the_model_as_it_is(runs):
    table = pq.read_table(runs["refit"][3])
    model = load_model("rag24")
    keep = np.zeros(table.num_rows, dtype=bool)
    keep[np.flatnonzero(pd.notna(table.column("human_label").to_pandas()))[: MIN_REFIT_LABELS - 1]] = True
    few = table.filter(keep)
    refit, record = refit_to_labels(few, model)
    assert refit is None and record["done"] is False and record["labels"] == MIN_REFIT_LABELS - 1
    refit, record = refit_to_labels(table, model)
    assert refit is not None and record["labels"] == 60


def test_the_shift_follows_the_labels_the_prior_and_the_draw_weights(runs):
    """recalibrated: only the intercepts move; towards the labels' mix, less under a stronger prior;
    a label drawn with probability p weighs 1/p."""
    table = runs["asis"][2]
    model = load_model("rag24")
    x = table[[f"f_{f}" for f in FEATURES]].dropna().to_numpy()[:200]
    y = np.zeros(len(x), dtype=np.int64)
    weak, strong = recalibrated(model, x, y, prior=1.0), recalibrated(model, x, y, prior=1e6)
    assert np.array_equal(weak.any_coef, model.any_coef) and weak.p_supported == model.p_supported
    assert weak.full_intercept < model.full_intercept - 1 and weak.any_intercept < model.any_intercept - 1
    assert abs(strong.full_intercept - model.full_intercept) < 0.01
    up = recalibrated(model, x, np.full(len(x), 2), prior=1.0)
    assert up.full_intercept > model.full_intercept
    half = np.r_[np.zeros(100, dtype=np.int64), np.full(100, 2)]
    even = recalibrated(model, x, half, prior=1.0)
    weighted = recalibrated(model, x, half, np.r_[np.full(100, 4.0), np.ones(100)], prior=1.0)
    assert weighted.full_intercept < even.full_intercept  # the unsupported labels drawn 4x rarer weigh 4x


def test_refit_is_refused_with_shards(tmp_path):
    result = cli_in_process(*ARGS, "--out-dir", tmp_path / "o", "--name", "m", "--refit-support", "--shard", "1/2")
    assert result.returncode == 2 and not (tmp_path / "o").exists()
    assert result.stderr.strip().splitlines() == [
        "error: --refit-support: not with --shard or --dask: a shard sees only its own topics' labels"
    ]
