"""The qrels and the assessments table the writer writes, against plain-Python references."""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judges.session import writer

# Topic ids and keys over a small alphabet (many ties and shared prefixes) and beyond the BMP
# (where UTF-16 order would differ from code point order).
_text = st.text(alphabet=st.sampled_from("ab0Zé\u00ff\u4e2d\U0001f600 _"), max_size=4)
_rows = st.lists(st.tuples(_text, st.one_of(st.none(), _text), st.integers(0, 3)), max_size=60)


def _reference(rows):
    best: dict[tuple[str, str], int] = {}
    for topic, key, grade in rows:
        if key is not None:
            best[(topic, key)] = max(grade, best.get((topic, key), grade))
    return sorted((topic, key, grade) for (topic, key), grade in best.items())


@settings(max_examples=300, deadline=None)
@given(rows=_rows, batch=st.integers(1, 7))
def test_qrels_are_the_best_grade_per_key_in_python_order(tmp_path_factory, rows, batch):
    from judges.formats import trec

    table = pa.table(
        {
            "topic_id": pa.array([r[0] for r in rows], pa.string()),
            "doc_id": pa.array([r[1] for r in rows], pa.string()),
            "grade": pa.array([r[2] for r in rows], pa.int8()),
        }
    )
    path = tmp_path_factory.mktemp("qrels") / "x.qrels"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(trec, "QRELS_BATCH", batch)  # lines are formatted a batch at a time: cross the seams
        n = trec.write_qrels(path, writer.qrels_table(table, "doc_id"))
    expected = _reference(rows)
    assert path.read_bytes() == "".join(f"{t} 0 {k} {g}\n" for t, k, g in expected).encode("utf-8")
    assert n == len(expected)


_keys = st.lists(
    st.tuples(
        st.sampled_from(["r1", "r2", "é"]), st.sampled_from(["t1", "t10", "t2"]), st.integers(0, 3), st.integers(0, 2)
    ),
    max_size=40,
)


@settings(max_examples=100, deadline=None)
@given(keys=_keys, group=st.integers(1, 7))
def test_assessments_are_written_sorted_a_row_group_at_a_time(tmp_path_factory, keys, group):
    """The rows, sorted by run, topic, sentence and citation (ties in table order), in row groups
    of SORTED_ROW_GROUP rows: the next group is gathered while the last one is written."""
    import pyarrow.parquet as pq

    from judges.formats import tables

    schema = tables.ASSESSMENT_SCHEMA
    columns = {name: pa.nulls(len(keys), schema.field(name).type) for name in schema.names}
    for name, values in zip(
        ("run_id", "topic_id", "sentence_index", "citation_rank"), zip(*keys) if keys else [()] * 4
    ):
        columns[name] = pa.array(values, schema.field(name).type)
    columns["evidence"] = pa.array([str(i) for i in range(len(keys))], pa.string())  # which row is where
    table = pa.table(columns, schema=schema)
    path = tmp_path_factory.mktemp("assessments") / "a.parquet"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(writer, "SORTED_ROW_GROUP", group)
        writer.write_assessments(path, table)
    written = pq.ParquetFile(path)
    expected = sorted(range(len(keys)), key=lambda i: keys[i])
    assert written.read().column("evidence").to_pylist() == [str(i) for i in expected]
    sizes = [written.metadata.row_group(g).num_rows for g in range(written.metadata.num_row_groups)]
    full, rest = divmod(len(keys), group)
    assert [n for n in sizes if n] == [group] * full + ([rest] if rest else [])
