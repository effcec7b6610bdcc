"""Alignment: the readable reference, the Numba kernels, backends and citation scoring."""

#: The alignment backends' names (:mod:`judges.align.backends`), the reference first; the CLI and
#: the workflow list them sorted (``numba|python``). Here, not in ``backends``: no numpy to import.
BACKENDS = ("python", "numba")
