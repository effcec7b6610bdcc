"""convert-labelled: AttributionBench, WiCE and Factcheck-GPT layouts become runs, topics and labels that the
judge's own readers and the label reader accept."""

import json

import pytest
from helpers import shared

from judges.core.errors import InputError
from judges.formats.runs import read_reports
from judges.formats.topics import read_topics
from judges.meta.convert import read_items, write_converted
from judges.formats.labels import read_labels

AB = [
    {
        "question": "who sings rain",
        "claim": "Milira sings it.",
        "references": ["Title: Rain", "Milira sang it in 1990."],
        "attribution_label": "attributable",
        "src_dataset": "AttributedQA",
        "id": "b-2",
    },
    {
        "question": "q2",
        "claim": "Nobody sings it.",
        "references": ["Milira sang it."],
        "attribution_label": "not attributable",
        "src_dataset": "ExpertQA",
        "id": "a-1",
    },
]
WICE = [
    {
        "label": "partially_supported",
        "supporting_sentences": [[0]],
        "claim": "Arnold is a publisher.",
        "evidence": ["Arnold publishes.", "Skip to content"],
        "meta": {"id": "dev1"},
    },
    {"label": "not_supported", "supporting_sentences": [], "claim": "X.", "evidence": ["Y."], "meta": {"id": "dev0"}},
]

FACTCHECK = [
    {"claim": "Douglas was the oldest justice.", "evidence": "Breyer was the oldest.", "stance": "refute"},
    {
        "claim": "Douglas was the oldest justice.",
        "evidence": "Douglas, 81, was the oldest.",
        "stance": "completely-support",
    },
    {"claim": "He retired in 1975.", "evidence": "Douglas left the Court.", "stance": "partially-support"},
]


def write(tmp_path, records, name="in.jsonl"):
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def test_attributionbench_layout(tmp_path):
    items = read_items(write(tmp_path, AB))
    done = write_converted(tmp_path / "out", items)
    topics = [t for _, t in read_topics(done.topics)]
    assert [t.topic_id for t in topics] == ["a-1", "b-2"] and topics[1].title == "who sings rain"
    (run,) = sorted(done.runs.iterdir())
    reports = [r for _, r in read_reports(run)]
    assert [r.topic_id for r in reports] == ["a-1", "b-2"] and {r.run_id for r in reports} == {"human"}
    rep = reports[1]
    assert rep.sentences[0].text == "Milira sings it." and rep.sentences[0].citations[0].doc_id == "doc-b-2"
    assert rep.documents["doc-b-2"].text == "Title: Rain\n\nMilira sang it in 1990."
    labels = read_labels(done.labels)
    assert labels.level == "citation" and labels.extras == ("src_dataset",)
    assert labels.table[["topic_id", "label", "src_dataset"]].values.tolist() == [
        ["a-1", "not_supported", "ExpertQA"],
        ["b-2", "supported", "AttributedQA"],
    ]


def test_wice_layout_and_run_id(tmp_path):
    done = write_converted(tmp_path / "out", read_items(write(tmp_path, WICE)), run_id="wice-human")
    reports = [r for _, r in read_reports(done.runs / "wice-human.jsonl")]
    assert reports[1].documents["doc-dev1"].text == "Arnold publishes.\nSkip to content"
    assert read_labels(done.labels).table.label.tolist() == ["not_supported", "partially"]


def test_factcheck_layout_ids_by_line_and_keeps_the_stance(tmp_path):
    done = write_converted(tmp_path / "out", read_items(write(tmp_path, FACTCHECK)))
    reports = [r for _, r in read_reports(done.runs / "human.jsonl")]
    assert [r.topic_id for r in reports] == ["line00001", "line00002", "line00003"]
    assert reports[1].documents["doc-line00002"].text == "Douglas, 81, was the oldest."
    labels = read_labels(done.labels)
    assert labels.extras == ("stance",)
    assert labels.table[["label", "stance"]].values.tolist() == [
        ["not_supported", "refute"],
        ["supported", "completely-support"],
        ["partially", "partially-support"],
    ]


def test_output_is_byte_identical_on_rerun(tmp_path):
    items = read_items(write(tmp_path, AB))
    one, two = write_converted(tmp_path / "1", items), write_converted(tmp_path / "2", items)
    for a, b in (
        (one.topics, two.topics),
        (one.labels, two.labels),
        (one.runs / "human.jsonl", two.runs / "human.jsonl"),
    ):
        assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize(
    "records, layout, expected",
    [
        ([AB[0], {**AB[1], "id": "b-2"}], "auto", "{p}:2: id: duplicate id 'b-2' (first on line 1)"),
        (
            [{**AB[0], "attribution_label": "partly"}],
            "auto",
            '{p}:1: attribution_label: unknown "partly"; expected attributable, not attributable',
        ),
        ([{**AB[0], "references": "text"}], "auto", "{p}:1: references: must be a list of strings"),
        ([{k: v for k, v in AB[0].items() if k != "claim"}], "auto", "{p}:1: claim: missing"),
        ([{**AB[0], "claim": "  "}], "auto", "{p}:1: claim: is empty"),
        ([{**WICE[0], "meta": {}}], "auto", "{p}:1: meta.id: missing"),
        (
            [{**WICE[0], "label": "supported?"}],
            "wice",
            '{p}:1: label: unknown "supported?"; expected supported, partially_supported, not_supported',
        ),
        (
            [{"claim": "x"}],
            "auto",
            "{p}:1: neither AttributionBench (attribution_label), WiCE (evidence, supporting_sentences) nor "
            "Factcheck-GPT (stance); pass --layout",
        ),
        (
            [FACTCHECK[0], {**FACTCHECK[1], "stance": "supports"}],
            "auto",
            '{p}:2: stance: unknown "supports"; expected completely-support, partially-support, refute, irrelevant',
        ),
        ([WICE[0]], "attributionbench", "{p}:1: id: missing"),
        ([], "auto", "{p}: no items"),
    ],
)
def test_errors_are_one_line(tmp_path, records, layout, expected):
    path = write(tmp_path, records)
    with pytest.raises(InputError) as e:
        read_items(path, layout)
    assert e.value.render() == expected.format(p=path)


@pytest.mark.parametrize(
    "parts, n, counts",
    [
        (("attributionbench", "dev_all_subset_balanced.jsonl"), 1198, {"supported": 599, "not_supported": 599}),
        (("wice", "claim_dev.jsonl"), 349, {"supported": 115, "partially": 191, "not_supported": 43}),
        (
            ("factcheck-gpt", "subtask3_claim_evidence_stance.jsonl"),
            3305,
            {"supported": 696, "partially": 391, "not_supported": 2218},
        ),
    ],
)
def test_shared_labelled_sets_convert(tmp_path, parts, n, counts):
    items = read_items(shared(*parts))
    assert len(items) == n
    got = {}
    for it in items:
        got[it.label] = got.get(it.label, 0) + 1
    assert got == counts
    done = write_converted(tmp_path, items)
    assert sum(1 for _, r in read_reports(done.runs / "human.jsonl") if not isinstance(r, InputError)) == n
