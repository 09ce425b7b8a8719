"""Helpers shared by the test suites (imported as ``helpers``; tests/ is on sys.path)."""
from __future__ import annotations

import numpy as np


def random_array(rng: np.random.Generator, shape, np_dtype) -> np.ndarray:
    """Random values spanning the type's useful range (never all zeros)."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype.kind == "c":
        real = rng.standard_normal(shape) * 100
        imag = rng.standard_normal(shape) * 100
        return (real + 1j * imag).astype(np_dtype)
    if np_dtype.kind == "f":
        return (rng.standard_normal(shape) * 100).astype(np_dtype)
    info = np.iinfo(np_dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=np_dtype, endpoint=True)
