"""Human label files (edge cases: one-line errors) and agreement scores computed by hand."""

import json

import numpy as np
import pandas as pd
import pytest

from judges.core.errors import InputError
from judges.meta import agreement as ag
from judges.formats.labels import read_labels


def write(tmp_path, records, name="labels.jsonl"):
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def lab(run="r", topic="t", sentence=0, label="supported", **extra):
    return {"run_id": run, "topic_id": topic, "sentence_index": sentence, "label": label, **extra}


# ---------------------------------------------------------------------------------------------
# label files
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "records, expected",
    [
        ([lab(), {"run_id": "r", "sentence_index": 1, "label": "supported"}], "{p}:2: topic_id: missing"),
        ([{"run_id": "r", "topic_id": "t", "label": "supported"}], "{p}:1: sentence_index: missing"),
        ([lab(sentence=-1)], "{p}:1: sentence_index: must be an integer >= 0, got -1"),
        ([lab(sentence="0")], '{p}:1: sentence_index: must be an integer >= 0, got "0"'),
        ([lab(sentence=True)], "{p}:1: sentence_index: must be an integer >= 0, got true"),
        (
            [lab(label="yes")],
            '{p}:1: label: unknown "yes"; expected supported, partially, not_supported or a synonym '
            "(partially_supported, PS, 0/1/2...); agreement and calibrate read others with --label-map FROM=TO",
        ),
        (
            [lab(label=1.5)],
            "{p}:1: label: unknown 1.5; expected supported, partially, not_supported or a synonym "
            "(partially_supported, PS, 0/1/2...); agreement and calibrate read others with --label-map FROM=TO",
        ),
        ([{"run_id": "r", "topic_id": "t", "sentence_index": 0}], "{p}:1: label: missing"),
        (
            [lab(), lab(sentence=1), lab(label="not_supported")],
            "{p}:3: label: second label for run 'r', topic 't', sentence 0 (first on line 1)",
        ),
        (
            [lab(doc_id="d"), lab(doc_id="d", label="partially")],
            "{p}:2: label: second label for run 'r', topic 't', sentence 0, doc 'd' (first on line 1)",
        ),
        (
            [lab(doc_id="d"), lab(sentence=1)],
            "{p}:2: doc_id: absent here but present on line 1: labels are all per citation "
            "(with doc_id) or all per sentence",
        ),
        (
            [lab(), lab(sentence=1, doc_id="d")],
            "{p}:2: doc_id: present here but not on line 1: labels are all per citation "
            "(with doc_id) or all per sentence",
        ),
        ([lab(_x=1)], "{p}:1: _x: extra column names must not start with '_'"),
        ([lab(run=["r"])], "{p}:1: run_id: must be a string or an integer, got a list"),
        (["[1, 2]"], "{p}:1: a label must be a JSON object, got a list"),
        (["{bad"], "{p}:1: invalid JSON (Expecting property name enclosed in double quotes at column 2)"),
        ([], "{p}: no labels"),
    ],
)
def test_label_file_errors_are_one_line(tmp_path, records, expected):
    path = write(tmp_path, records)
    with pytest.raises(InputError) as e:
        read_labels(path)
    assert e.value.render() == expected.format(p=path)


@pytest.mark.parametrize(
    "written, label",
    [
        ("supported", "supported"),
        ("Fully Supported", "supported"),
        ("FS", "supported"),
        (2, "supported"),
        ("2", "supported"),
        ("partially_supported", "partially"),
        ("partially-supported", "partially"),
        ("Partial", "partially"),
        ("PS", "partially"),
        (1, "partially"),
        (" NOT_SUPPORTED ", "not_supported"),
        ("unsupported", "not_supported"),
        ("ns", "not_supported"),
        (0, "not_supported"),
    ],
)
def test_label_synonyms(tmp_path, written, label):
    assert read_labels(write(tmp_path, [lab(label=written)])).table.label.tolist() == [label]


def test_label_map_reads_other_values_over_the_synonyms(tmp_path):
    from judges.formats.labels import parse_label_map

    mapping = parse_label_map(["1=supported", "Not Attributable = not_supported", "attributable=FS"])
    path = write(tmp_path, [lab(label=1), lab(sentence=1, label="not attributable"), lab(sentence=2, label=0)])
    assert read_labels(path, mapping).table.label.tolist() == ["supported", "not_supported", "not_supported"]
    for bad, problem in (
        ("supported", "'supported': expected FROM=TO, e.g. attributable=supported"),
        ("=supported", "'=supported': expected FROM=TO, e.g. attributable=supported"),
        ("yes=maybe", "'yes=maybe': 'maybe' is not a label; expected supported, partially, not_supported"),
    ):
        with pytest.raises(InputError) as e:
            parse_label_map([bad])
        assert e.value.render() == f"--label-map: {problem}"


def test_label_file_levels_and_extras(tmp_path):
    s = read_labels(write(tmp_path, [lab(topic=5, src="A"), lab(sentence=2, label="partially", src=None, n=3)]))
    assert s.level == "sentence" and s.extras == ("src", "n") and s.key == ["run_id", "topic_id", "sentence_index"]
    assert s.table.topic_id.tolist() == ["5", "t"] and s.table.n.tolist()[1] == "3"
    c = read_labels(write(tmp_path, [lab(doc_id="d1"), lab(doc_id="d2", label="not_supported")], "c.jsonl"))
    assert c.level == "citation" and c.table.doc_id.tolist() == ["d1", "d2"]


# ---------------------------------------------------------------------------------------------
# decisions and the join
# ---------------------------------------------------------------------------------------------
def assessments(rows):
    cols = ["run_id", "topic_id", "sentence_index", "citation_rank", "doc_id", "status", "norm_score"]
    return pd.DataFrame(rows, columns=cols)


A = assessments(
    [
        ("r", "t", 0, 0, "d1", "unsupported", 0.1),
        ("r", "t", 0, 1, "d2", "supported", 0.8),  # sentence 0: supported (any citation supported)
        ("r", "t", 1, 0, "d1", "partial", 0.3),
        ("r", "t", 1, 1, "d3", "missing", None),  # sentence 1: partially (best citation partial)
        ("r", "t", 2, 0, "d4", "unsupported", 0.2),
        ("r", "t", 2, 1, "d4", "partial", 0.3),  # d4 cited twice: its best judgment
        # sentence 3 has no citations: no rows
    ]
)


def test_unlabelled_lines_are_skipped_and_nested_fields_left_out(tmp_path):
    path = write(
        tmp_path,
        [
            lab(doc_id="d", document={"text": "..."}, evidence=[1, 2], src="x"),
            lab(sentence=1, doc_id="d", label=None, document={"text": "..."}),
        ],
    )
    labels = read_labels(path)
    assert labels.unlabelled == 1 and len(labels.table) == 1
    assert labels.extras == ("src",) and "document" not in labels.table.columns
    with pytest.raises(InputError, match="no labels \\(1 lines not labelled yet\\)"):
        read_labels(write(tmp_path, [lab(doc_id="d", label=None)], "empty.jsonl"))


def test_sentence_decisions_aggregate_like_sentence_support():
    d = ag.decisions(A, "sentence").set_index("sentence_index")
    assert d[ag.JUDGED].to_dict() == {0: "supported", 1: "partially", 2: "partially"}
    assert d[ag.SCORE].to_dict() == {0: 0.8, 1: 0.3, 2: 0.3}
    c = ag.decisions(A, "citation").set_index(["sentence_index", "doc_id"])
    assert c.loc[(1, "d3"), ag.JUDGED] == "not_supported" and c.loc[(1, "d3"), ag.SCORE] == 0.0
    assert c.loc[(2, "d4"), ag.JUDGED] == "partially" and len(c) == 5


def test_join_uncited_sentence_and_missing_judgments(tmp_path):
    labels = read_labels(
        write(
            tmp_path, [lab(sentence=0), lab(sentence=3, label="not_supported"), lab(topic="u", label="not_supported")]
        )
    )
    with pytest.raises(InputError) as e:
        ag.join(labels, A)
    assert (
        e.value.render() == f"{labels.path}:3: topic_id: no judged report for run 'r', topic 'u' "
        "(--on-missing warn or skip leaves them out)"
    )
    said = []
    joined = ag.join(labels, A, "warn", said.append)
    assert joined[ag.JUDGED].tolist() == ["supported", "not_supported"]  # sentence 3: uncited
    assert joined[ag.SCORE].tolist() == [0.8, 0.0]
    assert said == [f"{labels.path}:3: topic_id: no judged report for run 'r', topic 'u'; left out"]
    cit = read_labels(write(tmp_path, [lab(doc_id="d2"), lab(sentence=1, doc_id="d9")], "c.jsonl"))
    with pytest.raises(
        InputError, match=r"c.jsonl:2: doc_id: sentence 1 of run 'r', topic 't' has no judged citation of 'd9'"
    ):
        ag.join(cit, A)
    assert len(ag.join(cit, A, "skip")) == 1
    only_missing = read_labels(write(tmp_path, [lab(topic="u")], "m.jsonl"))
    with pytest.raises(InputError, match="no label has a judgment to compare with"):
        ag.join(only_missing, A, "skip")


# ---------------------------------------------------------------------------------------------
# scores by hand
# ---------------------------------------------------------------------------------------------
def test_scores_by_hand():
    human = ["supported", "supported", "supported", "partially", "not_supported", "not_supported"]
    judged = ["supported", "partially", "not_supported", "supported", "not_supported", "supported"]
    score = [0.9, 0.35, 0.1, 0.5, 0.05, 0.6]
    s = ag.scores(human, judged, score)
    # binary (positive = supported): human P P P N N N, judge P N N P N P -> TP 1, FN 2, FP 2, TN 1
    assert s["n"] == 6 and s["positives"] == 3
    assert s["accuracy"] == pytest.approx(2 / 6)
    assert s["balanced_accuracy"] == pytest.approx((1 / 3 + 1 / 3) / 2)
    assert s["macro_f1"] == pytest.approx((1 / 3 + 1 / 3) / 2)  # F1 = 2TP / (2TP + FP + FN) = 2/6, both classes
    assert s["kappa"] == pytest.approx((2 / 6 - 0.5) / (1 - 0.5))  # p_e = (3*3 + 3*3) / 36
    # AUC: positives 0.9, 0.35, 0.1 vs negatives 0.5, 0.05, 0.6: pairs won 3 + 1 + 1 = 5 of 9
    assert s["auc"] == pytest.approx(5 / 9)
    # three levels: diagonal 1 + 0 + 1 of 6
    assert s["accuracy_3"] == pytest.approx(2 / 6)
    assert s["balanced_accuracy_3"] == pytest.approx((1 / 3 + 0 / 1 + 1 / 2) / 3)
    # F1: supported 2*1/(3+3), partially 0, not_supported 2*1/(2+2)
    assert s["macro_f1_3"] == pytest.approx((1 / 3 + 0 + 1 / 2) / 3)
    # kappa: rows 3,1,2; cols 3,1,2 -> p_e = (9 + 1 + 4) / 36
    assert s["kappa_3"] == pytest.approx((2 / 6 - 14 / 36) / (1 - 14 / 36))
    assert s["confusion.supported.partially"] == 1 and s["confusion.partially.supported"] == 1
    assert s["confusion.not_supported.supported"] == 1 and s["confusion.not_supported.not_supported"] == 1


def test_auc_counts_ties_as_half_and_lenient_positive():
    assert ag.roc_auc([0.5, 0.5, 0.2], [True, False, False]) == pytest.approx((0.5 + 1) / 2)
    assert np.isnan(ag.roc_auc([0.1, 0.2], [True, True]))
    s = ag.scores(
        ["partially", "not_supported"], ["partially", "supported"], [0.3, 0.9], positive="supported+partially"
    )
    assert s["positives"] == 1 and s["accuracy"] == pytest.approx(0.5) and s["auc"] == 0.0


def test_perfect_agreement_on_one_class_has_undefined_kappa():
    s = ag.scores(["supported"] * 3, ["supported"] * 3, [1, 1, 1])
    assert s["accuracy"] == 1.0 and np.isnan(s["kappa"]) and np.isnan(s["auc"])


def test_breakdown_by_an_extra_column(tmp_path):
    labels = read_labels(
        write(
            tmp_path,
            [
                lab(sentence=0, src="A"),
                lab(sentence=1, src="B", label="partially"),
                lab(sentence=2, src="B", label="not_supported"),
            ],
        )
    )
    joined = ag.join(labels, A)
    assert ag.default_breakdown(labels) == ["src"]
    t = ag.agreement_table(joined, ["src"])
    assert t[["by", "group", "n"]].values.tolist() == [["", "all", 3], ["src", "A", 1], ["src", "B", 2]]
    assert t.set_index("group").loc["B", "accuracy_3"] == pytest.approx(0.5)


def test_matches_scikit_learn_on_random_labels():
    metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn not installed (an optional cross-check)")
    rng = np.random.default_rng(11)
    labels = ["supported", "partially", "not_supported"]
    h, j = rng.choice(labels, 300), rng.choice(labels, 300)
    score = rng.random(300).round(1)
    s = ag.scores(h, j, score)
    assert s["kappa_3"] == pytest.approx(metrics.cohen_kappa_score(h, j))
    assert s["balanced_accuracy_3"] == pytest.approx(metrics.balanced_accuracy_score(h, j))
    assert s["macro_f1_3"] == pytest.approx(metrics.f1_score(h, j, average="macro"))
    hb, jb = h == "supported", j == "supported"
    assert s["kappa"] == pytest.approx(metrics.cohen_kappa_score(hb, jb))
    assert s["balanced_accuracy"] == pytest.approx(metrics.balanced_accuracy_score(hb, jb))
    assert s["macro_f1"] == pytest.approx(metrics.f1_score(hb, jb, average="macro"))
    assert s["auc"] == pytest.approx(metrics.roc_auc_score(hb, score))
