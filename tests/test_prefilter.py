"""The prefilter: the Numba kernels pick exactly the reference's candidate windows."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from judges.align.backends import get_backend
from judges.align.packed import CandidateQuery, WindowLanes
from judges.align.prefilter import candidates_reference, idf_weights

PY, NB = get_backend("python"), get_backend("numba")


def test_reference_prefers_the_window_with_the_rare_shared_tokens_and_breaks_ties_by_position():
    doc = np.array([1, 2, 3, 1, 2, 4, 1, 2, 5, 1, 2, 3], dtype=np.int32)
    windows = np.array([[0, 3], [3, 6], [6, 9], [9, 12]])
    weights = idf_weights(doc, windows, PY.window_df)
    assert candidates_reference([4, 1], doc, weights, windows, 1) == [1]  # 4 occurs in window 1 only
    assert candidates_reference([3], doc, weights, windows, 2) == [0, 3]  # tie: earlier first
    assert candidates_reference([9], doc, weights, windows, 2) == [0, 1]  # no overlap: window order
    assert candidates_reference([9], doc, weights, windows[:2], 3) == [0, 1]  # few windows: all


docs_and_answers = st.tuples(
    st.lists(st.lists(st.integers(0, 6), min_size=0, max_size=40), min_size=1, max_size=4),  # documents
    st.lists(st.lists(st.integers(0, 8), min_size=1, max_size=12), min_size=1, max_size=6),  # answers
    st.integers(1, 4),  # window size in tokens
    st.integers(1, 3),  # k
    st.randoms(use_true_random=False),
)


@settings(max_examples=300, deadline=None)
@given(docs_and_answers)
def test_numba_candidates_and_weights_equal_the_reference(case):
    docs, answers, size, k, rnd = case
    d_tokens = np.concatenate([np.array(d, dtype=np.int32) for d in docs] + [np.zeros(0, np.int32)])
    d_base = np.cumsum([0] + [len(d) for d in docs])
    win_lo, win_hi, w_base, weights = [], [], [0], []
    for i, d in enumerate(docs):
        spans = [(s, min(s + size, len(d))) for s in range(0, max(len(d), 1), max(1, size // 2 + 1))]
        windows = np.array(spans, dtype=np.int64).reshape(-1, 2)
        ids = np.array(d, dtype=np.int32)
        w_py = idf_weights(ids, windows, PY.window_df)
        assert w_py.tolist() == idf_weights(ids, windows, NB.window_df).tolist()
        weights.append(w_py)
        win_lo += (windows[:, 0] + d_base[i]).tolist()
        win_hi += (windows[:, 1] + d_base[i]).tolist()
        w_base.append(w_base[-1] + len(windows))
    a_offsets = np.cumsum([0] + [len(a) for a in answers]).astype(np.int64)
    a_tokens = np.concatenate([np.array(a, dtype=np.int32) for a in answers])
    n = rnd.randrange(1, 25)  # several citations of one document are scored together
    cit_a = np.array([rnd.randrange(len(answers)) for _ in range(n)], dtype=np.int64)
    cit_d = np.array([rnd.randrange(len(docs)) for _ in range(n)], dtype=np.int64)
    w_base = np.array(w_base, dtype=np.int64)
    query = CandidateQuery(a_tokens, a_offsets, cit_a, w_base[cit_d], w_base[cit_d + 1])
    weights = np.concatenate(weights + [np.zeros(0, np.int16)])
    lanes = WindowLanes(d_tokens, weights, np.array(win_lo, dtype=np.int64), np.array(win_hi, dtype=np.int64))
    assert NB.candidates(query, lanes, k, 9).tolist() == PY.candidates(query, lanes, k, 9).tolist()
