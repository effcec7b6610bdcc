"""Alignment backends: one packed-batch interface with five operations (Smith-Waterman alignment,
the prefilter's window counts and candidate windows, the lexical support features, the content
words of parts of sentences found in document ranges), two implementations that give identical
results.

* ``python`` -- the readable references: :func:`judges.align.reference.smith_waterman` and
  :func:`~judges.align.reference.content_found`, :mod:`judges.align.prefilter` and
  :mod:`judges.support.features`, one item at a time; needs
  only numpy and never imports numba.
* ``numba`` -- the kernels of :mod:`judges.align.kernel` and :mod:`judges.support.kernel`
  (imported lazily, on first use).

``align_batch`` returns, in both, the same ``(n, 6)`` int64 array of
``(score, a_start, a_end, b_start, b_end, matches)`` rows (document spans relative to each
pair's window); its arguments are checked by :func:`judges.align.packed.normalize_packed`.
:func:`get_backend` never substitutes one backend for another.

Packed layout: ``a_tokens[a_offsets[q]:a_offsets[q + 1]]`` is answer ``q``; pair ``k`` aligns
answer ``pair_a[k]`` with the document window ``b_tokens[b_lo[k]:b_hi[k]]``.
"""

from __future__ import annotations

import importlib.util

import numpy as np

from judges.align import prefilter, reference
from judges.core.vocabulary import BACKENDS
from judges.align.packed import CandidateQuery, WindowLanes, normalize_packed


class BackendUnavailable(RuntimeError):
    """The requested backend cannot run here (its dependency is missing)."""


class Backend:
    """A named way to align a packed batch."""

    name: str = ""
    install_hint: str = ""

    def is_available(self) -> bool:
        raise NotImplementedError

    def align_batch(
        self,
        a_tokens,
        a_offsets,
        pair_a,
        b_tokens,
        b_lo,
        b_hi,
        match=reference.MATCH,
        mismatch=reference.MISMATCH,
        gap=reference.GAP,
    ) -> np.ndarray:
        """``(n, 6)`` int64 array of ``(score, a_start, a_end, b_start, b_end, matches)``; the arguments
        checked and converted by :func:`judges.align.packed.normalize_packed` (``ValueError``)."""
        packed = normalize_packed(a_tokens, a_offsets, pair_a, b_tokens, b_lo, b_hi, match, mismatch, gap)
        return self._align_packed(*packed)

    def _align_packed(self, a_tokens, a_offsets, pair_a, b_tokens, b_lo, b_hi, match, mismatch, gap) -> np.ndarray:
        """:meth:`align_batch` of checked and converted arguments."""
        raise NotImplementedError

    def window_df(self, local, windows, n_local) -> np.ndarray:
        """How many of ``windows`` contain each local token id (:mod:`judges.align.prefilter`)."""
        raise NotImplementedError

    def candidates(self, query: CandidateQuery, lanes: WindowLanes, k: int, vocab_size: int) -> np.ndarray:
        """``(n, k)`` candidate windows per citation, best first, ``-1`` padded (the prefilter); ``k``
        windows at most, token ids below ``vocab_size``."""
        raise NotImplementedError

    def lexical_features(
        self, a_stems, a_content, a_clause, a_offsets, d_stems, d_base, cit_a, cit_d, n_stems
    ) -> np.ndarray:
        """``(n, 4)`` lexical support features per citation (:mod:`judges.support.features`)."""
        raise NotImplementedError

    def content_found(self, a_tokens, g_lo, g_hi, content, d_tokens, p_first, p_lo, p_hi) -> np.ndarray:
        """Per group ``g``: the content tokens of ``a_tokens[g_lo[g]:g_hi[g]]`` that occur in its
        ranges ``d_tokens[p_lo[p]:p_hi[p]]``, ``p`` in ``p_first[g]:p_first[g + 1]`` (int64)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<Backend {self.name}>"


class PythonBackend(Backend):
    """The readable reference, one pair at a time. Slow; the specification."""

    name = "python"
    install_hint = ""

    def is_available(self) -> bool:
        return True

    def _align_packed(self, a_tokens, a_offsets, pair_a, b_tokens, b_lo, b_hi, match, mismatch, gap) -> np.ndarray:
        answers = [a_tokens[a_offsets[q] : a_offsets[q + 1]].tolist() for q in range(a_offsets.shape[0] - 1)]
        out = np.zeros((pair_a.shape[0], 6), dtype=np.int64)
        for k in range(pair_a.shape[0]):
            doc = b_tokens[b_lo[k] : b_hi[k]].tolist()
            out[k] = reference.smith_waterman(answers[pair_a[k]], doc, match, mismatch, gap)
        return out

    def window_df(self, local, windows, n_local) -> np.ndarray:
        return prefilter.window_df_reference_counts(local, windows, n_local)

    def candidates(self, query: CandidateQuery, lanes: WindowLanes, k: int, vocab_size: int) -> np.ndarray:
        q, w = query, lanes
        out = np.full((len(q.cit_a), k), -1, dtype=np.int64)
        for c in range(len(q.cit_a)):
            answer = q.a_tokens[q.a_offsets[q.cit_a[c]] : q.a_offsets[q.cit_a[c] + 1]]
            rows = slice(q.cit_w0[c], q.cit_w1[c])
            windows = np.stack([w.win_lo[rows], w.win_hi[rows]], axis=1)
            got = prefilter.candidates_reference(answer.tolist(), w.d_tokens, w.d_weights, windows, k)
            out[c, : len(got)] = got
        return out

    def lexical_features(
        self, a_stems, a_content, a_clause, a_offsets, d_stems, d_base, cit_a, cit_d, n_stems
    ) -> np.ndarray:
        from judges.support.features import lexical_features_batch_reference

        return lexical_features_batch_reference(a_stems, a_content, a_clause, a_offsets, d_stems, d_base, cit_a, cit_d)

    def content_found(self, a_tokens, g_lo, g_hi, content, d_tokens, p_first, p_lo, p_hi) -> np.ndarray:
        out = np.zeros(len(g_lo), dtype=np.int64)
        for g in range(len(g_lo)):
            ranges = [d_tokens[p_lo[p] : p_hi[p]].tolist() for p in range(p_first[g], p_first[g + 1])]
            out[g] = reference.content_found(a_tokens[g_lo[g] : g_hi[g]].tolist(), ranges, content)
        return out


class NumbaBackend(Backend):
    """The Numba kernels (:mod:`judges.align.kernel`), parallel over the current Numba thread
    count (set by the caller, e.g. the CLI)."""

    name = "numba"
    install_hint = "pip install numba"

    def is_available(self) -> bool:
        return importlib.util.find_spec("numba") is not None

    def _align_packed(self, a_tokens, a_offsets, pair_a, b_tokens, b_lo, b_hi, match, mismatch, gap) -> np.ndarray:
        from judges.align import kernel  # lazy: importing numba costs time and may be absent

        return kernel.align_packed(a_tokens, a_offsets, pair_a, b_tokens, b_lo, b_hi, match, mismatch, gap)

    def window_df(self, local, windows, n_local) -> np.ndarray:
        from judges.align import kernel

        return kernel.window_df(local, windows, n_local)

    def candidates(self, query: CandidateQuery, lanes: WindowLanes, k: int, vocab_size: int) -> np.ndarray:
        from judges.align import kernel

        q, w = query, lanes
        return kernel.candidates_batch(
            q.a_tokens, q.a_offsets, q.cit_a, w.d_tokens, w.d_weights, w.win_lo, w.win_hi, q.cit_w0, q.cit_w1, k,
            vocab_size,
        )  # fmt: skip

    def lexical_features(
        self, a_stems, a_content, a_clause, a_offsets, d_stems, d_base, cit_a, cit_d, n_stems
    ) -> np.ndarray:
        from judges.support import kernel

        order = np.argsort(cit_d, kind="stable")
        return kernel.lexical_features(
            a_stems, a_content, a_clause, a_offsets, d_stems, d_base, cit_a, cit_d, order, max(int(n_stems), 1)
        )

    def content_found(self, a_tokens, g_lo, g_hi, content, d_tokens, p_first, p_lo, p_hi) -> np.ndarray:
        from judges.align import kernel

        a_tokens, d_tokens = np.ascontiguousarray(a_tokens, np.int32), np.ascontiguousarray(d_tokens, np.int32)
        n_ids = content.shape[0]
        if a_tokens.max(initial=-1) >= n_ids or d_tokens.max(initial=-1) >= n_ids:
            raise ValueError(f"content must cover every token id (it has {n_ids})")
        g_lo, g_hi, p_first, p_lo, p_hi = (np.ascontiguousarray(x, np.int64) for x in (g_lo, g_hi, p_first, p_lo, p_hi))
        content = np.ascontiguousarray(content, np.uint8)
        return kernel.content_found(a_tokens, g_lo, g_hi, content, d_tokens, p_first, p_lo, p_hi, n_ids)


_REGISTRY: dict[str, type[Backend]] = {"python": PythonBackend, "numba": NumbaBackend}
assert tuple(_REGISTRY) == BACKENDS


def get_backend(name: str, *, require_available: bool = True) -> Backend:
    """The backend called ``name``.

    Raises ``ValueError`` (listing the known names) for an unknown name, and
    :class:`BackendUnavailable` (with the install hint) when the backend cannot run here,
    unless ``require_available=False``. Never substitutes another backend.
    """
    try:
        backend = _REGISTRY[name]()
    except (KeyError, TypeError):
        raise ValueError(f"unknown alignment backend {name!r}; known backends: {', '.join(BACKENDS)}") from None
    if require_available and not backend.is_available():
        raise BackendUnavailable(f"alignment backend {name!r} is not available here: {backend.install_hint}")
    return backend
