"""The Numba kernels and backends return exactly what the reference returns (whole tuples)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from helpers import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judges.align import backends, kernel
from judges.align.reference import EMPTY, Alignment, smith_waterman

SCORINGS = [(2, -1, -1), (3, -2, -2), (1, -1, -1), (2, -3, -1), (5, -1, -2)]
# Outside the SIMD lanes' domain (gap 0, mismatch >= 0, match <= 0): scalar path only.
ODD_SCORINGS = [(2, -1, 0), (1, 0, -1), (1, 1, -2), (0, -1, -1), (-1, 2, -1)]


def sw(a, b, scoring=(2, -1, -1)):
    return Alignment(*kernel.sw_pair(np.asarray(a, np.int32), np.asarray(b, np.int32), *scoring))


def ref(a, b, scoring=(2, -1, -1)):
    return smith_waterman(list(a), list(b), *scoring)


def pack(answers, docs, pair_a, windows=None):
    """Packed batch: answers and docs concatenated; pair k = answer pair_a[k] x doc k
    (or x an explicit (lo, hi) window of the concatenated docs)."""
    a_offsets = np.zeros(len(answers) + 1, np.int64)
    a_offsets[1:] = np.cumsum([len(x) for x in answers])
    a_tokens = np.array([t for x in answers for t in x], np.int32)
    b_tokens = np.array([t for x in docs for t in x], np.int32)
    if windows is None:
        ends = np.cumsum([len(x) for x in docs]).astype(np.int64)
        windows = list(zip(ends - [len(x) for x in docs], ends))
    b_lo = np.array([w[0] for w in windows], np.int64)
    b_hi = np.array([w[1] for w in windows], np.int64)
    return a_tokens, a_offsets, np.asarray(pair_a, np.int64), b_tokens, b_lo, b_hi


def pairwise(packed, scoring=(2, -1, -1), oracle=ref):
    a_tokens, a_offsets, pair_a, b_tokens, b_lo, b_hi = packed
    rows = []
    for k, q in enumerate(pair_a):
        a = a_tokens[a_offsets[q] : a_offsets[q + 1]].tolist()
        rows.append(tuple(oracle(a, b_tokens[b_lo[k] : b_hi[k]].tolist(), scoring)))
    return np.array(rows, np.int64).reshape(-1, 6)


def tokens(alphabet, max_len):
    return st.lists(st.integers(0, alphabet - 1), max_size=max_len)


seqs = st.integers(2, 4).flatmap(lambda k: st.tuples(tokens(k, 40), tokens(k, 40)))


# --- hand-checked examples ---------------------------------------------------------------------

HAND = [
    # exact substring copy: 3 matches
    ([5, 6, 7], [1, 5, 6, 7, 2], Alignment(6, 0, 3, 1, 4, 3)),
    # two fragments fused across 2 inserted document tokens: 6 matches, 2 gaps = 10 > 6
    ([1, 2, 3, 4, 5, 6], [9, 1, 2, 3, 8, 8, 4, 5, 6, 9], Alignment(10, 0, 6, 1, 9, 6)),
    # a mismatch bridged on the diagonal (2 - 1 + 2); matches counts equal tokens only
    ([1, 2, 3], [1, 9, 3], Alignment(3, 0, 3, 0, 3, 2)),
    # equal scores at document ends 2 and 5: the earliest end wins
    ([1, 2], [1, 2, 9, 1, 2], Alignment(4, 0, 2, 0, 2, 2)),
    # equal scores in one column (answer ends 1 and 2): the smallest answer end wins
    ([1, 1], [1], Alignment(2, 0, 1, 0, 1, 1)),
    # diagonal preferred over left at cell (2, 2): "up/left first" would give a_start 1
    ([0, 0, 1], [0, 2, 1], Alignment(3, 0, 3, 0, 3, 2)),
    # up preferred over left at cell (2, 2): "left before up" would give (3, 1, 3, 0, 3, 2)
    ([0, 1, 2], [1, 0, 2], Alignment(3, 0, 3, 1, 3, 2)),
    # no positive cell, empty inputs
    ([1], [2], EMPTY),
    ([], [1, 2], EMPTY),
    ([1, 2], [], EMPTY),
]


@pytest.mark.parametrize("a, b, expected", HAND)
def test_hand_examples(a, b, expected):
    assert ref(a, b) == expected
    assert sw(a, b) == expected
    batch = kernel.align_batch(*pack([a], [b], [0]))
    assert tuple(batch[0]) == tuple(expected)


def test_hand_examples_as_one_batch():
    answers = [a for a, _, _ in HAND]
    docs = [b for _, b, _ in HAND]
    out = kernel.align_batch(*pack(answers, docs, list(range(len(HAND)))))
    assert [tuple(r) for r in out] == [tuple(e) for _, _, e in HAND]


# --- sw_pair == reference -------------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(seqs)
def test_sw_pair_matches_reference(ab):
    a, b = ab
    assert sw(a, b) == ref(a, b)


@settings(max_examples=120, deadline=None)
@given(seqs, st.sampled_from(SCORINGS + ODD_SCORINGS))
def test_sw_pair_matches_reference_other_scoring(ab, scoring):
    a, b = ab
    assert sw(a, b, scoring) == ref(a, b, scoring)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3).flatmap(lambda k: st.tuples(tokens(k, 12), tokens(k, 12))))
def test_sw_pair_repeats_and_tiny(ab):
    """Tiny alphabets and lengths: many equal-score cells and predecessor ties."""
    a, b = ab
    for scoring in ((2, -1, -1), (1, -1, -1)):
        assert sw(a, b, scoring) == ref(a, b, scoring)


@settings(max_examples=40, deadline=None)
@given(seqs)
def test_int64_score_path(ab):
    """Scores that do not fit int32 storage take the int64 specialisation."""
    a, b = ab
    scoring = (2**29, -1, -(2**28))
    assert sw(a, b, scoring) == ref(a, b, scoring)
    zero = np.int64(0)
    got = kernel._sw_carry(
        np.asarray(a, np.int32), np.asarray(b, np.int32), np.int64(2), np.int64(-1), np.int64(-1), zero
    )
    assert Alignment(*got) == ref(a, b)


# --- batch == pair by pair -----------------------------------------------------------------------


@st.composite
def batches(draw, max_pairs=80, max_len=40):
    k = draw(st.integers(2, 4))
    answers = draw(st.lists(tokens(k, max_len), min_size=1, max_size=8))
    docs = draw(st.lists(tokens(k, max_len), min_size=1, max_size=max_pairs))
    pair_a = draw(st.lists(st.integers(0, len(answers) - 1), min_size=len(docs), max_size=len(docs)))
    return answers, docs, pair_a


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches(), st.sampled_from(SCORINGS))
def test_batch_matches_reference(batch, scoring):
    """Ragged packing, pairs reusing answers, several lane groups (up to 80 pairs)."""
    answers, docs, pair_a = batch
    packed = pack(answers, docs, pair_a)
    out = kernel.align_batch(*packed, *scoring)
    assert out.dtype == np.int64 and out.shape == (len(docs), 6)
    np.testing.assert_array_equal(out, pairwise(packed, scoring))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_batch_windows_of_one_document(data):
    """Windows b_lo:b_hi as sub-slices of one long doc array, zero-length windows included;
    spans come back relative to b_lo."""
    k = data.draw(st.integers(2, 4))
    doc = data.draw(tokens(k, 200))
    answers = data.draw(st.lists(tokens(k, 30), min_size=1, max_size=5))
    n = data.draw(st.integers(1, 70))
    windows = []
    for _ in range(n):
        lo = data.draw(st.integers(0, len(doc)))
        hi = data.draw(st.integers(lo, len(doc)))
        windows.append((lo, hi))
    pair_a = data.draw(st.lists(st.integers(0, len(answers) - 1), min_size=n, max_size=n))
    packed = pack(answers, [doc], pair_a, windows)
    np.testing.assert_array_equal(kernel.align_batch(*packed), pairwise(packed))


def _synthetic(rng, n_pairs, vocab, n_len, m_len, planted=True):
    answers = [rng.integers(0, vocab, rng.integers(*n_len)).tolist() for _ in range(max(1, n_pairs // 3))]
    docs, pair_a = [], []
    for _ in range(n_pairs):
        q = int(rng.integers(len(answers)))
        d = rng.integers(0, vocab, rng.integers(*m_len)).tolist()
        a = answers[q]
        kind = rng.integers(3) if planted else 2
        if kind < 2 and len(d) > len(a):
            frag = list(a)
            if kind == 1:  # edited copy
                for _ in range(rng.integers(1, 5)):
                    if not frag:
                        break
                    pos = int(rng.integers(len(frag)))
                    op = rng.integers(3)
                    if op == 0:
                        frag[pos] = int(rng.integers(vocab))
                    elif op == 1:
                        frag.insert(pos, int(rng.integers(vocab)))
                    elif len(frag) > 1:
                        del frag[pos]
            pos = int(rng.integers(0, max(1, len(d) - len(frag))))
            d[pos : pos + len(frag)] = frag
        docs.append(d)
        pair_a.append(q)
    return answers, docs, pair_a


@pytest.mark.parametrize("scoring", SCORINGS + [(20, -1, -1), (1000, -1, -1)])
def test_batch_long_documents(scoring):
    """Realistic shapes (long documents, planted copies). (20, -1, -1) makes windows wider than
    _WINDOW_MAX; (1000, -1, -1) overflows int16 and takes the scalar path."""
    rng = np.random.default_rng(sum(map(abs, scoring)))
    answers, docs, pair_a = _synthetic(rng, 70, vocab=12, n_len=(1, 41), m_len=(0, 900))
    packed = pack(answers, docs, pair_a)
    out = kernel.align_batch(*packed, *scoring)
    np.testing.assert_array_equal(out, pairwise(packed, scoring, oracle=lambda a, b, s: sw(a, b, s)))
    # and straight against the reference on a few pairs
    expected = pairwise(packed, scoring)[:6]
    np.testing.assert_array_equal(out[:6], expected)


def test_batch_wide_recovery_window():
    """A weak hit late in a long document under a heavy match score: the bound on the path's
    window (len(a) + (len(a)*match - s) // -gap = 610 tokens here) exceeds _WINDOW_MAX, so the
    window goes through sw_pair; spans must still be shifted back to the pair's window."""
    answer = list(range(1, 31))
    doc = [0] * 700 + [5] + [0] * 10
    docs = [doc, doc[::-1], [0] * 100 + answer[:10] + [0] * 600]
    packed = pack([answer], docs, [0, 0, 0])
    out = kernel.align_batch(*packed, 20, -1, -1)
    assert tuple(out[0]) == (20, 4, 5, 700, 701, 1)
    assert 700 > kernel._WINDOW_MAX
    np.testing.assert_array_equal(out, pairwise(packed, (20, -1, -1)))


def test_batch_long_answers_next_to_short_ones():
    """Answers longer than _WINDOW_MAX_ROWS share lane groups with short ones: the long ones
    are recovered by sw_pair, the short ones by pass 2 sized to them."""
    rng = np.random.default_rng(11)
    long_answer = rng.integers(0, 50, 300).tolist()
    short_answer = long_answer[100:110]
    docs = [rng.integers(0, 50, 400).tolist() for _ in range(40)]
    for d in docs[::3]:
        d[50:350] = long_answer
    packed = pack([long_answer, short_answer], docs, [k % 2 for k in range(40)])
    assert len(long_answer) > kernel._WINDOW_MAX_ROWS
    np.testing.assert_array_equal(kernel.align_batch(*packed), pairwise(packed, oracle=lambda a, b, s: sw(a, b, s)))


@pytest.mark.parametrize("scoring", ODD_SCORINGS)
def test_batch_odd_scoring_scalar_path(scoring):
    rng = np.random.default_rng(7)
    answers, docs, pair_a = _synthetic(rng, 40, vocab=3, n_len=(0, 15), m_len=(0, 60))
    packed = pack(answers, docs, pair_a)
    np.testing.assert_array_equal(kernel.align_batch(*packed, *scoring), pairwise(packed, scoring))


def test_batch_negative_token_ids():
    """Negative ids cannot use the lanes' padding sentinels: scalar path, same answers."""
    rng = np.random.default_rng(3)
    answers, docs, pair_a = _synthetic(rng, 40, vocab=4, n_len=(1, 20), m_len=(0, 80))
    shifted = [[t - 2 for t in d] for d in docs]
    for ans, dcs in (([[t - 2 for t in a] for a in answers], shifted), (answers, shifted)):
        packed = pack(ans, dcs, pair_a)
        np.testing.assert_array_equal(kernel.align_batch(*packed), pairwise(packed))
    # Non-negative answers; one document holds a run of the answer-padding sentinel's value
    # (-1), in the lane of a short answer whose padded rows would match it.
    docs = [[0, 1] * 100 for _ in range(10)] + [[1] + [-1] * 30]
    packed = pack([[5] * 20, [1]], docs, [0] * 10 + [1])
    np.testing.assert_array_equal(kernel.align_batch(*packed), pairwise(packed))


def test_batch_many_equal_ties_in_lanes():
    """Each document repeats the answer many times: every lane must keep the earliest end."""
    answers = [[1, 2, 3], [4, 4], [1]]
    docs = [[1, 2, 3, 0] * 50, [4, 4, 4, 4] * 30, [0, 1] * 100] * 15
    pair_a = [0, 1, 2] * 15
    packed = pack(answers, docs, pair_a)
    out = kernel.align_batch(*packed)
    np.testing.assert_array_equal(out, pairwise(packed))
    assert tuple(out[0]) == (6, 0, 3, 0, 3, 3)
    assert tuple(out[1]) == (4, 0, 2, 0, 2, 2)
    assert tuple(out[2]) == (2, 0, 1, 1, 2, 1)


def test_batch_empty_and_degenerate():
    out = kernel.align_batch(*pack([[1, 2]], [], []))
    assert out.shape == (0, 6) and out.dtype == np.int64
    packed = pack([[], [1]], [[1], [], [1, 1]], [0, 1, 1])
    np.testing.assert_array_equal(kernel.align_batch(*packed), pairwise(packed))


def test_align_batch_accepts_any_int_dtypes_and_lists():
    packed = pack([[1, 2, 3]], [[0, 1, 2, 3], [3, 2, 1]], [0, 0])
    expected = kernel.align_batch(*packed)
    loose = [x.astype(np.int64) if x.dtype == np.int32 else x.astype(np.int32) for x in packed]
    np.testing.assert_array_equal(kernel.align_batch(*loose), expected)
    np.testing.assert_array_equal(kernel.align_batch(*[x.tolist() for x in packed]), expected)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda p: p[:4] + (p[4][:1], p[5]), "same length"),
        (lambda p: p[:2] + (p[2] + 5,) + p[3:], "pair_a"),
        (lambda p: p[:5] + (p[5] + 100,), "b_hi"),
        (lambda p: (p[0], p[1][::-1]) + p[2:], "a_offsets"),
        (lambda p: (p[0].reshape(1, -1),) + p[1:], "1-D"),
    ],
)
def test_align_batch_validates(mutate, message):
    packed = pack([[1, 2, 3]], [[0, 1, 2, 3], [3, 2, 1]], [0, 0])
    with pytest.raises(ValueError, match=message):
        kernel.align_batch(*mutate(packed))


def test_align_batch_rejects_positive_gap():
    with pytest.raises(ValueError, match="gap"):
        kernel.align_batch(*pack([[1]], [[1]], [0]), gap=1)


# --- backends ------------------------------------------------------------------------------------


def test_backend_registry():
    assert backends.BACKENDS == ("python", "numba")
    for name in backends.BACKENDS:
        b = backends.get_backend(name)
        assert b.name == name and b.is_available()
    with pytest.raises(ValueError, match="python, numba"):
        backends.get_backend("nope")
    with pytest.raises(ValueError, match="known backends"):
        backends.get_backend("")


def test_unavailable_backend_raises(monkeypatch):
    monkeypatch.setattr(backends.NumbaBackend, "is_available", lambda self: False)
    with pytest.raises(backends.BackendUnavailable, match="pip install numba"):
        backends.get_backend("numba")
    assert backends.get_backend("numba", require_available=False).name == "numba"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches(max_pairs=50), st.sampled_from(SCORINGS))
def test_numba_backend_equals_python_backend(batch, scoring):
    answers, docs, pair_a = batch
    packed = pack(answers, docs, pair_a)
    py = backends.get_backend("python").align_batch(*packed, *scoring)
    nb = backends.get_backend("numba").align_batch(*packed, *scoring)
    assert py.dtype == nb.dtype == np.int64
    np.testing.assert_array_equal(nb, py)


def in_fresh_python(code: str) -> None:
    """Run ``code`` in a new interpreter (what it imports is not what this test session did)."""
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_python_backend_never_imports_numba():
    code = (
        "import sys\n"
        "from judges.align.backends import get_backend\n"
        "out = get_backend('python').align_batch([1, 2], [0, 2], [0], [0, 1, 2], [0], [3])\n"
        "assert out.tolist() == [[4, 0, 2, 1, 3, 2]], out\n"
        "assert 'numba' not in sys.modules\n"
    )
    in_fresh_python(code)


def test_the_judge_with_the_python_backend_imports_no_scipy_linalg_nor_do_its_workers(tmp_path):
    """``--backend python`` aligns in Python, but the text kernels are Numba's all the same: loading
    them imported scipy.linalg (numba.np.arraymath asking for BLAS) in the process that judged (the
    judge itself, or each worker), which the numba backend's warm-up had been spared. Every
    interpreter of a run (spawned workers inherit PYTHONPROFILEIMPORTTIME) reports its imports on
    stderr."""
    from helpers import ROOT, run_cli

    mini = ROOT / "datasets" / "rag24-mini"
    for workers, interpreters in (("1", 1), ("2", 3)):  # the judge alone; the judge and 2 workers
        result = run_cli(
            "--backend", "python", "--workers", workers, "--rag-topics", mini / "topics.jsonl",
            "--rag-responses", mini / "runs", "--corpus", mini / "segments.jsonl",
            "--out-dir", tmp_path / workers, "--name", "p", env={"PYTHONPROFILEIMPORTTIME": "1"},
        )  # fmt: skip
        assert result.returncode == 0, result.stderr[-2000:]
        lines = result.stderr.splitlines()
        imported = [line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")]
        assert imported.count("judges.session.workers") == interpreters, workers
        assert imported.count("numba.np.arraymath") == interpreters  # Numba's NumPy support in each
        assert "scipy.linalg" not in imported, workers  # (its cython_blas is listed: the import refused at once)


def test_loading_the_kernels_does_not_import_scipy_linalg_which_still_imports_after():
    code = (
        "import sys\n"
        "from judges.session.pipeline import prepare\n"
        "from judges.core.config import Workflow\n"
        "prepare(Workflow())\n"
        "assert 'numba.np.arraymath' in sys.modules\n"
        "assert 'scipy.linalg' not in sys.modules, 'numba imported scipy.linalg'\n"
        "import scipy.linalg.cython_blas, scipy.linalg\n"
        "assert abs(scipy.linalg.det([[2.0, 0.0], [0.0, 3.0]]) - 6.0) < 1e-12\n"
    )
    in_fresh_python(code)


# -- multi-span evidence: content words of parts of sentences found in document ranges ------------
@st.composite
def content_cases(draw):
    """Token ids below ``n_ids``, a content flag per id, groups of answer ranges each with its
    document ranges (any order, overlapping or empty)."""
    n_ids = draw(st.integers(1, 12))
    a_tokens = np.array(draw(st.lists(st.integers(0, n_ids - 1), max_size=40)), np.int32)
    d_tokens = np.array(draw(st.lists(st.integers(0, n_ids - 1), max_size=60)), np.int32)
    content = np.array(draw(st.lists(st.integers(0, 1), min_size=n_ids, max_size=n_ids)), np.uint8)

    def span(n):
        lo = draw(st.integers(0, n))
        return lo, draw(st.integers(lo, n))

    n_groups = draw(st.integers(0, 6))
    g = [span(len(a_tokens)) for _ in range(n_groups)]
    pieces = [[span(len(d_tokens)) for _ in range(draw(st.integers(0, 3)))] for _ in range(n_groups)]
    p_first = np.concatenate([[0], np.cumsum([len(p) for p in pieces])]).astype(np.int64)
    flat = [x for p in pieces for x in p]
    p_lo = np.array([lo for lo, _ in flat], np.int64)
    p_hi = np.array([hi for _, hi in flat], np.int64)
    g_lo = np.array([lo for lo, _ in g], np.int64)
    g_hi = np.array([hi for _, hi in g], np.int64)
    return a_tokens, g_lo, g_hi, content, d_tokens, p_first, p_lo, p_hi


@settings(max_examples=300, deadline=None)
@given(content_cases())
def test_content_found_kernel_equals_its_reference(case):
    got = backends.get_backend("numba").content_found(*case)
    expected = backends.get_backend("python").content_found(*case)
    assert got.dtype == np.int64 and got.tolist() == expected.tolist()
    a_tokens, g_lo, g_hi, content, d_tokens, p_first, p_lo, p_hi = case
    for g in range(len(g_lo)):  # and what it counts, said plainly
        present = {t for p in range(p_first[g], p_first[g + 1]) for t in d_tokens[p_lo[p] : p_hi[p]].tolist()}
        assert got[g] == sum(1 for t in a_tokens[g_lo[g] : g_hi[g]].tolist() if content[t] and t in present)
