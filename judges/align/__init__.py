"""Alignment: the readable reference, the Numba kernels, backends and citation scoring (the
backends' names: :data:`judges.core.vocabulary.BACKENDS`)."""
