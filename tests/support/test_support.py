"""The support features (Numba kernel against its reference), the support model and calibrate."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import ROOT, base_args, calibrate_cli, cli_in_process, run_cli, shared
from judges.align.backends import get_backend
from judges.support.features import (
    CLAUSE_BREAK,
    LEXICAL,
    clause_ids,
    lexical_features_batch_reference,
)
from judges.support.lexicon import Lexicon, STOPWORDS
from judges.support.model import fit, fit_logistic, load_model, SupportModel
from judges.text.tokenize import Vocabulary

WORDS = ["plant", "plants", "planted", "the", "of", "employs", "1,200", "people", "Leipzig", "and", "opened", "%", "in"]


def packed(answers: list[str], docs: list[str], pairs: list[tuple[int, int]]):
    vocab, lex = Vocabulary(), Lexicon()
    a = vocab.encode_many(answers)
    d = [vocab.encode(t) for t in docs]
    stem, content = lex.update(vocab)
    a_offsets = np.zeros(len(a) + 1, dtype=np.int64)
    np.cumsum([len(x) for x in a], out=a_offsets[1:])
    d_base = np.zeros(len(d) + 1, dtype=np.int64)
    np.cumsum([len(x) for x in d], out=d_base[1:])
    a_ids = np.concatenate([x.ids for x in a])
    d_ids = np.concatenate([x.ids for x in d])
    cit_a = np.array([p[0] for p in pairs], dtype=np.int64)
    cit_d = np.array([p[1] for p in pairs], dtype=np.int64)
    return (
        stem[a_ids],
        content[a_ids],
        clause_ids(answers, [x.starts for x in a]),
        a_offsets,
        stem[d_ids],
        d_base,
        cit_a,
        cit_d,
        lex.n_stems,
    )


def test_features_say_what_a_person_checks():
    doc = "The plant employs 1,200 people in Leipzig. It opened in 2004."
    answers = [
        "The plants employ 1,200 people in Leipzig.",  # stems: all content words found
        "The plant employs 1,200 people in Leipzig; it closed in Paris.",  # second clause unsupported
        "Bananas are yellow.",  # nothing
    ]
    args = packed(answers, [doc], [(0, 0), (1, 0), (2, 0), (2, -1)])
    f = lexical_features_batch_reference(*args[:-1])
    assert f[0, 0] == 1.0 and f[2, 0] == 0.0
    assert f[1, 2] < f[1, 3] == 1.0  # clause min < clause max
    assert f[0, 1] > 0 and f[2, 1] == 0.0  # bigrams
    assert (f[3] == 0).all()  # a missing document


texts = st.lists(st.sampled_from(WORDS + [",", ".", ";", ", and", "X"]), max_size=25).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(answers=st.lists(texts, min_size=1, max_size=4), docs=st.lists(texts, min_size=1, max_size=3), data=st.data())
def test_numba_kernel_equals_the_reference(answers, docs, data):
    pairs = data.draw(st.lists(st.tuples(st.integers(0, len(answers) - 1), st.integers(-1, len(docs) - 1)), max_size=8))
    args = packed(answers, docs, pairs)
    ref = lexical_features_batch_reference(*args[:-1])
    got = get_backend("numba").lexical_features(*args)
    np.testing.assert_array_equal(got, ref)
    assert got.shape == (len(pairs), len(LEXICAL))


@given(
    st.lists(
        st.sampled_from(["Alpha beta.", "gamma; delta", "x, and y", "3.5 percent", "U.S. law"]), min_size=1, max_size=5
    )
)
def test_clause_ids_over_joined_texts_equal_one_text_at_a_time(texts):
    vocab = Vocabulary()
    toks = vocab.encode_many(texts)
    joined = clause_ids(texts, [t.starts for t in toks])
    one = np.concatenate(
        [
            np.searchsorted(
                np.array([m.end() for m in CLAUSE_BREAK.finditer(t)], dtype=np.int64), tk.starts, side="right"
            )
            for t, tk in zip(texts, toks)
        ]
    )
    np.testing.assert_array_equal(joined, one)


def test_lexicon_stems_once_and_knows_stopwords():
    vocab, lex = Vocabulary(), Lexicon()
    ids = vocab.encode("Plants planted the plant").ids
    stem, content = lex.update(vocab)
    assert stem[ids[0]] == stem[ids[3]] and content[ids[2]] == 0 and "the" in STOPWORDS
    vocab.encode("new words")
    stem2, _ = lex.update(vocab)
    assert len(stem2) == len(vocab) and (stem2[: len(stem)] == stem).all()


def test_fit_is_deterministic_and_ordered():
    rng = np.random.default_rng(0)
    x = rng.random((300, 9))
    y = np.clip((x[:, 2] * 3 + rng.normal(0, 0.5, 300)).astype(int), 0, 2)
    a, b = fit(x, y, {"data": "synthetic"}), fit(x, y, {"data": "synthetic"})
    assert json.dumps(a.to_dict()) == json.dumps(b.to_dict())
    p_any, p_full = a.probabilities(x)
    assert (p_full <= p_any).all()
    assert a.any_coef[2] > 0  # the feature that drives the labels raises P(any)
    share_full = np.mean(p_full >= a.p_supported)
    assert abs(share_full - np.mean(y == 2)) < 0.02  # default thresholds reproduce the label mix


def test_a_row_weighing_k_fits_as_k_copies_of_it():
    # the weights bench/support_features.py gives other label regimes' rows: weight k = k copies
    rng = np.random.default_rng(1)
    z = rng.normal(size=(200, 3))
    y = (z[:, 0] + rng.normal(0, 1, 200) > 0).astype(np.float64)
    k = rng.integers(1, 4, 200)
    weighted = fit_logistic(z, y, weights=k.astype(np.float64))
    copied = fit_logistic(np.repeat(z, k, axis=0), np.repeat(y, k))
    assert weighted[0] == pytest.approx(copied[0], abs=1e-8)
    np.testing.assert_allclose(weighted[1], copied[1], atol=1e-8)
    assert not np.allclose(fit_logistic(z, y)[1], copied[1], atol=1e-3)  # the weights changed the fit
    x, levels_ = rng.random((200, 9)), np.where(y > 0, 2, 0)
    a, b = fit(x, levels_, {}, weights=np.ones(200)), fit(x, levels_, {})
    assert json.dumps(a.to_dict()) == json.dumps(b.to_dict())  # weight 1: the unweighted model, byte for byte


def test_shipped_model_names_its_training_data_and_scores():
    model = load_model("rag24")
    assert isinstance(model, SupportModel) and "rag24-support" in model.training["data"]
    assert model.training["citations"] == 2348 and model.cross_validation["grouping"] == "topic"
    assert {"run_tau", "exact", "kappa", "auc_full", "auc_any"} <= set(model.cross_validation)


def test_a_model_file_of_an_older_format_is_refused_in_one_line(tmp_path):
    old = json.loads((ROOT / "judges" / "support" / "models" / "rag24.json").read_text())
    old["format_version"] = 1
    old["p_full_quantiles"] = old.pop("expected_error_quantiles")
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "wf.yml").write_text("support:\n  model: old.json\n")
    r = cli_in_process(
        *base_args(tmp_path),
        "--corpus",
        ROOT / "datasets" / "rag25" / "corpus.jsonl",
        "--workflow",
        tmp_path / "wf.yml",
    )
    assert r.returncode == 2
    assert "old.json" in r.stderr and "version 2" in r.stderr and "run calibrate again" in r.stderr
    written = [p.name for p in (tmp_path / "out").iterdir() if not p.name.startswith(".")]  # the lock file aside
    assert written == []


@pytest.mark.shared
@pytest.mark.slow
def test_calibrate_writes_the_same_model_twice(tmp_path, judged_rag24_support, calibrated_rag24_support):
    first, said = calibrated_rag24_support  # CITEJUDGE_SHARED or ../shared, skipped when absent
    labels = shared("rag24-support", "labels.jsonl")
    c = calibrate_cli(judged_rag24_support, "r24", labels, tmp_path / "again.json", "--data", "rag24-support")
    assert c.returncode == 0, c.stderr
    assert "cross-validated by topic (14 folds)" in said and "cross-validated by topic (14 folds)" in c.stdout
    assert first.read_bytes() == (tmp_path / "again.json").read_bytes()
    bad = tmp_path / "labels.jsonl"
    bad.write_text(json.dumps({"run_id": "r", "topic_id": "t", "sentence_index": 0, "label": "supported"}) + "\n")
    c = calibrate_cli(judged_rag24_support, "r24", bad, tmp_path / "c.json", run=cli_in_process)
    assert c.returncode == 2 and "doc_id" in c.stderr


def test_meta_evaluate_truth_topics_averages_each_run_over_the_topics_people_judged(tmp_path):
    # people judged run a on t1 only, b on t2 only, c on both; the judge has rows (zeros) everywhere
    truth = tmp_path / "truth.txt"
    truth.write_text("a t1 H 0.9\nb t2 H 0.5\nc t1 H 0.1\nc t2 H 0.3\n")
    judged = tmp_path / "judge.txt"
    judged.write_text("a t1 J 0.8\na t2 J 0.0\nb t1 J 0.0\nb t2 J 0.6\nc t1 J 0.2\nc t2 J 0.2\n")
    fmt = ("--truth-format", "ir_measures", "--eval-format", "ir_measures", "--bootstrap", "0")
    r = run_cli("meta-evaluate", "--truth", truth, judged, "--truth-topics", *fmt)
    assert r.returncode == 0, r.stderr
    kendall = next(line for line in r.stdout.splitlines() if "kendall " in line + " ")
    assert "1.000" in kendall  # a 0.8 > b 0.6 > c 0.2, as a 0.9 > b 0.5 > c 0.2
    plain = cli_in_process("meta-evaluate", "--truth", truth, judged, "--recompute", *fmt)
    assert plain.returncode == 2 and "without a row for some run" in plain.stderr
