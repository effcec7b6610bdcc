"""A part file is data, never code (judges.formats.part): the merge verifies every part (the SHA-256
of its content and of its debug log, the shape of every value, the rows in full) before it reads
it, and refuses what it cannot vouch for with one line, writing nothing. A pickle in a part is
never unpickled; bytes flipped anywhere in a part or its log are refused or change nothing."""

from __future__ import annotations

import hashlib
import json
import pickle
import shutil
from pathlib import Path

import pyarrow as pa
import pytest
from conftest import cli_in_process, run_cli
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_shards import BUNDLED, python_backend, same_outputs

from judges.session import pipeline
from judges.session import shards
from judges.core.errors import InputError
from judges.formats import part as partfile
from judges.formats import tables
from judges.session.options import RunOptions
from judges.session.spec import Inputs, Outputs

N = 3
NAMES = [f"x.part-{k}-of-{N}{suffix}" for k in range(1, N + 1) for suffix in (".arrow", ".jsonl")]


@pytest.fixture(scope="module")
def judged(tmp_path_factory) -> Path:
    """The RAGTIME sample: one process's set (``one``, written as ``out``) and parts 1..3 (``parts``)."""
    where = tmp_path_factory.mktemp("judged")
    inputs = Inputs(**BUNDLED["ragtime"])
    pipeline.run(inputs, Outputs(where / "out", "x"), python_backend(), RunOptions(workers=1))
    (where / "out").rename(where / "one")
    for k in range(1, N + 1):
        shards.judge_shard(inputs, Outputs(where / "parts", "x"), python_backend(), (k, N), RunOptions(workers=1))
    assert sorted(p.name for p in (where / "parts").iterdir()) == sorted(NAMES)
    return where


def parts_of(where: Path) -> list[Path]:
    return sorted(where.glob("x.part-*.arrow"))


def refused(parts: list[Path], out: Path) -> str:
    """Merged by the command line: exit 2, one line, nothing written; the line."""
    result = run_cli("merge", out, "--name", "x", *parts)
    assert result.returncode == 2 and not out.exists(), result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def copy_parts(judged: Path, to: Path) -> Path:
    shutil.copytree(judged / "parts", to)
    return to


def flip(path: Path, at: float, n: int = 16) -> None:
    """Invert ``n`` bytes of ``path`` from its fraction ``at`` on."""
    data = bytearray(path.read_bytes())
    start = min(int(at * len(data)), len(data) - 1)
    for i in range(start, min(start + n, len(data))):
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))


# -- a part is never unpickled ----------------------------------------------------------------------
class _Touch:
    """Unpickled, creates the file ``path``."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def crafted(path: Path, table: pa.Table, metadata: dict, log: Path | None) -> None:
    """A part file laid out as judges.formats.part lays one out (written independently here), with
    the given schema metadata and checksums that hold: what someone who means harm can send."""
    table = table.replace_schema_metadata(metadata)
    stream = pa.BufferOutputStream()
    with pa.ipc.new_stream(stream, table.schema) as writer:
        writer.write_table(table)
    content = partfile.MAGIC + stream.getvalue().to_pybytes()
    sums = {"part": [len(content), hashlib.sha256(content).hexdigest()], "log": None}
    if log is not None:
        data = log.read_bytes()
        sums["log"] = [len(data), hashlib.sha256(data).hexdigest()]
    with pa.OSFile(str(path), "wb") as sink:
        with pa.ipc.new_file(sink, table.schema, metadata={partfile.SHA256: json.dumps(sums).encode()}) as writer:
            writer.write_table(table)


def test_a_part_carrying_a_pickle_payload_is_refused_and_the_payload_never_runs(judged, tmp_path):
    marker = tmp_path / "created-by-the-payload"
    payload = pickle.dumps(_Touch(marker))
    check = tmp_path / "check"
    check.mkdir()
    pickle.loads(pickle.dumps(_Touch(check / "live")))  # the payload is live: unpickled, it creates its file
    assert (check / "live").exists()

    good = partfile.read(judged / "parts" / "x.part-1-of-3.arrow")
    manifest = json.dumps(good.manifest).encode()
    old = dict(good.manifest, format=1)  # a part of format 1 (the state pickled), as citejudge wrote them before
    for i, metadata in enumerate(
        (
            {partfile.MANIFEST: json.dumps(old).encode(), partfile.STATE: payload},
            {partfile.MANIFEST: manifest, partfile.STATE: payload},  # today's format, the state a pickle
            {partfile.MANIFEST: manifest, partfile.STATE: b"{}", b"citejudge.extra": payload},
        )
    ):
        where = copy_parts(judged, tmp_path / f"parts{i}")
        target = where / "x.part-1-of-3.arrow"
        if i == 0:  # format 1 had no checksums
            table = good.table.replace_schema_metadata(metadata)
            with pa.OSFile(str(target), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
                writer.write_table(table)
        else:
            crafted(target, good.table, metadata, target.with_suffix(".jsonl"))
        line = refused(parts_of(where), tmp_path / "out")
        assert line.startswith(f"error: {target}: "), line
        with pytest.raises(InputError):
            shards.merge(parts_of(where), tmp_path / "out", "x")
        assert not marker.exists()
    assert "partial set format 1, this is 2" in refused(parts_of(tmp_path / "parts0"), tmp_path / "out")


def test_a_crafted_part_with_true_checksums_is_checked_value_by_value(judged, tmp_path):
    """Checksums only say a part is as written: whoever wrote it, every value is checked."""
    good = partfile.read(judged / "parts" / "x.part-2-of-3.arrow")
    state = json.loads(json.dumps(good.state))
    cases = []
    bad = json.loads(json.dumps(state))
    bad["head"] = "0"
    cases.append((good.manifest, bad, good.table, "state.head: an integer expected, got a string"))
    bad = json.loads(json.dumps(state))
    bad["placed"]["log_end"][-1] = 10**12
    cases.append((good.manifest, bad, good.table, "a report's events are outside the debug log"))
    bad = json.loads(json.dumps(state))
    bad["per_topic"][0][2] = {"WEIGHTED_PRECISION": "1"}
    cases.append((good.manifest, bad, good.table, "a number expected, got a string"))
    manifest = dict(good.manifest, shard=[2, 7])
    cases.append((manifest, state, good.table, "shard: 2 of 7, in a session of 3 shards"))
    # invalid UTF-8 in the sentence column: the rows fail full validation
    column = good.table.column("sentence").combine_chunks()
    _, offsets, data = column.buffers()
    broken = bytearray(data.to_pybytes())
    broken[0] = 0xFF
    sentence = pa.Array.from_buffers(pa.string(), len(column), [None, offsets, pa.py_buffer(bytes(broken))])
    table = good.table.set_column(good.table.schema.get_field_index("sentence"), "sentence", sentence)
    cases.append((good.manifest, state, table, "its rows are invalid"))
    for i, (manifest, state_, table, expected) in enumerate(cases):
        where = copy_parts(judged, tmp_path / f"parts{i}")
        target = where / "x.part-2-of-3.arrow"
        metadata = {partfile.MANIFEST: json.dumps(manifest).encode(), partfile.STATE: json.dumps(state_).encode()}
        crafted(target, table, metadata, target.with_suffix(".jsonl"))
        line = refused(parts_of(where), tmp_path / "out")
        assert line.startswith(f"error: {target}: ") and expected in line, line


def _edited_parts(judged: Path, where: Path, edit) -> list[Path]:
    """The parts, each rewritten with true checksums after ``edit(k, manifest, state, table)`` (in
    place on the plain data; returns the table): what anyone who sends parts can send."""
    copy_parts(judged, where)
    for k in range(1, N + 1):
        target = where / f"x.part-{k}-of-{N}.arrow"
        good = partfile.read(judged / "parts" / target.name)  # not the copy: it is rewritten (and mapped)
        manifest, state = json.loads(json.dumps(good.manifest)), json.loads(json.dumps(good.state))
        table = edit(k, manifest, state, good.table)
        metadata = {partfile.MANIFEST: json.dumps(manifest).encode(), partfile.STATE: json.dumps(state).encode()}
        crafted(target, table, metadata, target.with_suffix(".jsonl"))
    return parts_of(where)


def _row_value(column: str, value):
    def edit(k, manifest, state, table):
        if k != 2:
            return table
        values = table.column(column).to_pylist()
        values[0] = value
        at = table.schema.get_field_index(column)
        return table.set_column(at, table.schema.field(at), pa.array(values, table.schema.field(at).type))

    return edit


def _measure(value):
    def edit(k, manifest, state, table):
        if k == 2:
            state["per_topic"][0][2]["WEIGHTED_PRECISION"] = value
        return table

    return edit


def _topic(k, manifest, state, table):
    if k == 2:
        state["per_topic"][0][1] = "no-such-topic"
    return table


def _format(k, manifest, state, table):
    for outputs in (manifest["fingerprint"]["outputs"], state["outputs"]):
        outputs["leaderboard_formats"] = ["ir_measures", "../../escape"]
    return table


def test_a_part_with_values_citejudge_never_writes_is_refused_with_one_line(judged, tmp_path):
    """Checksums recomputed, shapes right: every value is checked again against the measure's
    range, the vocabulary and the session's runs and topics, before anything is written."""
    cases = [
        (_measure(7.5), "2", "state.per_topic[0].WEIGHTED_PRECISION: 7.5 is outside its range [0, 1]"),
        (_measure(float("nan")), "2", "state.per_topic[0].WEIGHTED_PRECISION: nan is outside its range [0, 1]"),
        (_measure(-3), "2", "state.per_topic[0].WEIGHTED_PRECISION: -3 is outside its range [0, 1]"),
        (_row_value("status", "banana"), "2", "rows[0].status: 'banana': not a status (supported, partial, "),
        (_row_value("grade", 7), "2", "rows[0].grade: 7: not the grade of the row's status"),
        (_row_value("weight", float("nan")), "2", "rows[0].weight: nan: outside [0, 1]"),
        (_row_value("char_start", 10**6), "2", "rows[0].char_end: "),  # an evidence span that ends before it starts
        (_row_value("topic_id", "no-such-topic"), "2", "rows[0].topic_id: 'no-such-topic': not a topic of the session"),
        (_topic, "2", "state.per_topic[0]: run "),
        (
            _format,
            "1",
            "outputs.leaderboard_formats: '../../escape' is not a leaderboard format (ir_measures, tot, jsonl)",
        ),
    ]
    for i, (edit, k, expected) in enumerate(cases):
        parts = _edited_parts(judged, tmp_path / f"parts{i}", edit)
        out = tmp_path / f"out{i}"
        result = cli_in_process("merge", out, "--name", "x", *parts)
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 2 and len(lines) == 1, result.stderr
        target = tmp_path / f"parts{i}" / f"x.part-{k}-of-{N}.arrow"
        assert lines[0].startswith(f"error: {target}: ") and expected in lines[0], (expected, lines[0])
        assert not out.exists() and not (tmp_path / "escape").exists()


def test_a_debug_log_path_a_part_records_is_never_written_to(judged, tmp_path):
    """The merge writes only under its out-dir, to paths it derives itself: the debug log goes to
    OUT/NAME.jsonl, whatever path the parts name (a file there is left as it was)."""
    victim = tmp_path / "elsewhere" / "precious.txt"
    victim.parent.mkdir()
    victim.write_text("precious\n")

    def edit(k, manifest, state, table):
        manifest["fingerprint"]["outputs"]["debug_log"] = state["outputs"]["debug_log"] = str(victim)
        state["outputs"]["out_dir"] = str(victim.parent)
        return table

    parts = _edited_parts(judged, tmp_path / "parts", edit)
    out = tmp_path / "out"
    result = cli_in_process("merge", out, "--name", "x", *parts)
    assert result.returncode == 0, result.stderr
    assert victim.read_text() == "precious\n" and sorted(p.name for p in victim.parent.iterdir()) == ["precious.txt"]
    assert (out / "x.jsonl").is_file()
    assert (out / "x.qrels").read_bytes() == (judged / "one" / "x.qrels").read_bytes()


# -- damage: refused with one line, or nothing changed ------------------------------------------------
def test_a_part_with_16_bytes_flipped_in_its_middle_is_refused(judged, tmp_path):
    where = copy_parts(judged, tmp_path / "parts")
    flip(where / "x.part-2-of-3.arrow", 0.5)
    line = refused(parts_of(where), tmp_path / "out")
    assert line == (
        f"error: {where / 'x.part-2-of-3.arrow'}: PART: damaged: its content's sha256 differs from the one it "
        "recorded (changed since written)"
    )


def test_a_debug_log_cut_short_is_refused_and_says_so(judged, tmp_path):
    where = copy_parts(judged, tmp_path / "parts")
    log = where / "x.part-3-of-3.jsonl"
    data = log.read_bytes()
    cut = data[: data.rindex(b"\n", 0, len(data) * 2 // 3) + 1]  # whole lines: still valid JSON Lines
    log.write_bytes(cut)
    line = refused(parts_of(where), tmp_path / "out")
    assert line == (
        f"error: {log}: PART: the debug log of x.part-3-of-3.arrow is cut short: {len(cut):,} of the "
        f"{len(data):,} bytes it recorded"
    )
    middle = len(data) // 2
    log.write_bytes(data[:middle] + bytes([data[middle] ^ 1]) + data[middle + 1 :])  # as long, one bit changed
    assert refused(parts_of(where), tmp_path / "out").endswith("is damaged: its sha256 differs from the one recorded")
    log.unlink()
    assert refused(parts_of(where), tmp_path / "out").endswith("the debug log of x.part-3-of-3.arrow is missing")


def test_a_part_cut_short_is_refused(judged, tmp_path):
    where = copy_parts(judged, tmp_path / "parts")
    part = where / "x.part-1-of-3.arrow"
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])
    assert "PART: damaged or cut short: its footer cannot be read" in refused(parts_of(where), tmp_path / "out")


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)
@given(which=st.sampled_from(NAMES), at=st.floats(0, 1, exclude_max=True))
@example(which="x.part-2-of-3.arrow", at=0.5)
@example(which="x.part-2-of-3.arrow", at=0.8)
@example(which="x.part-1-of-3.arrow", at=0.0)
@example(which="x.part-3-of-3.arrow", at=0.999)
@example(which="x.part-1-of-3.jsonl", at=0.5)
def test_16_bytes_flipped_anywhere_are_refused_or_change_nothing(judged, tmp_path, which, at):
    """A merge in this process (the command line's path: shards.merge, an InputError its one line)."""
    where = tmp_path / "flipped"
    shutil.rmtree(where, ignore_errors=True)
    copy_parts(judged, where)
    flip(where / which, at)
    out = judged / "out"  # where one process wrote its set: the debug log's summary names the files
    try:
        shards.merge(parts_of(where), out, "x")
    except InputError as e:
        assert "\n" not in e.render() and not out.exists()
        return
    try:
        same_outputs(judged / "one", out)  # merged: then byte for byte one process's set
    finally:
        shutil.rmtree(out)


def test_the_part_layout_is_an_arrow_file_any_arrow_reader_opens(judged):
    """The rows, manifest and state are plain Arrow and JSON: pyarrow alone reads them."""
    path = judged / "parts" / "x.part-1-of-3.arrow"
    reader = pa.ipc.open_file(path)
    table = reader.read_all()
    assert table.schema.equals(tables.ASSESSMENT_SCHEMA, check_metadata=False)
    manifest = json.loads(table.schema.metadata[partfile.MANIFEST])
    state = json.loads(table.schema.metadata[partfile.STATE])
    assert manifest["format"] == partfile.FORMAT and manifest["rows"] == table.num_rows
    assert partfile.check_shape(state, partfile.STATE_SHAPE, "state") is None
    size, digest = json.loads(reader.metadata[partfile.SHA256])["part"]
    assert hashlib.sha256(path.read_bytes()[:size]).hexdigest() == digest
