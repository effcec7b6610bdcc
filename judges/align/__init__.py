"""Alignment: the readable reference, the Numba kernels, backends and citation scoring."""
