"""Constant tables that fused FFT shaders read (Bluestein's chirps, Rader's kernel and
permutation): computed once in float64 on the host, where the device's float32 would lose
the phase of long lines, and rounded once to the compute type."""
from __future__ import annotations

import numpy as np

from vkdispatch import dtypes as dt
from vkdispatch.base.buffer import Buffer

__all__ = ["upload_table"]


def upload_table(values: np.ndarray, compute_type) -> Buffer:
    """A new buffer of ``compute_type`` holding ``values`` (complex128), in the current
    context."""
    host = np.complex128 if compute_type is dt.complex128 else np.complex64
    table = Buffer((len(values),), compute_type)
    table.write(values.astype(host))
    return table
