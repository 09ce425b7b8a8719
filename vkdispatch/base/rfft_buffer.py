"""RFFTBuffer: a complex buffer that also holds real data in the in-place R2C padded layout."""
from __future__ import annotations

from typing import Any

import numpy as np

from vkdispatch import dtypes as dt
from vkdispatch.base.buffer import Buffer, normalize_shape
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["RFFTBuffer", "asrfftbuffer"]


class RFFTBuffer(Buffer):
    """Real signal of shape ``real_shape`` stored in a complex buffer for in-place real FFTs.

    The buffer's shape is ``fourier_shape = real_shape[:-1] + (real_shape[-1] // 2 + 1,)`` of
    ``fourier_type``; each row of real samples is padded to ``2 * fourier_shape[-1]`` scalars.

    Args:
        shape: the real shape (1-3 dimensions).
        fourier_type: vd.complex64 (default), vd.complex32 or vd.complex128.
    """

    def __init__(self, shape: int | tuple[int, ...], fourier_type: type[dt.dtype] = dt.complex64):
        if not (isinstance(fourier_type, type) and issubclass(fourier_type, dt._Complex)):
            raise InvalidArgumentError(f"fourier_type must be a complex dtype, got {fourier_type!r}")
        self.real_shape = normalize_shape(shape)
        self.fourier_shape = self.real_shape[:-1] + (self.real_shape[-1] // 2 + 1,)
        self.real_type = fourier_type.child_type
        super().__init__(self.fourier_shape, fourier_type)

    @property
    def _padded_real_shape(self) -> tuple[int, ...]:
        return self.fourier_shape[:-1] + (2 * self.fourier_shape[-1],)

    def write_real(self, data: Any, index: int | None = None) -> None:
        """Uploads real data of exactly ``real_shape``; rows are zero-padded."""
        array = np.asarray(data)
        if array.dtype.kind == "c":
            raise InvalidTypeError(f"write_real needs real data, got {array.dtype}")
        if array.shape != self.real_shape:
            raise InvalidArgumentError(f"write_real: data shape {array.shape} must equal "
                                       f"real_shape {self.real_shape}")
        padded = np.zeros(self._padded_real_shape, dtype=np.float64)
        padded[..., : self.real_shape[-1]] = array
        complex_view = padded.view(np.complex128)
        self.write(complex_view, index)

    def read_real(self, index: int | None = None) -> np.ndarray:
        """Downloads the real samples (without row padding), shape ``real_shape``."""
        fourier = self.read(index)
        real_dtype = dt.host_numpy_dtype(self.real_type)
        pairs = np.ascontiguousarray(fourier)
        pairs = pairs.view(pairs.real.dtype)
        return pairs[..., : self.real_shape[-1]].astype(real_dtype, copy=False)

    def write_fourier(self, data: Any, index: int | None = None) -> None:
        """Uploads complex data of ``fourier_shape``."""
        self.write(data, index)

    def read_fourier(self, index: int | None = None) -> np.ndarray:
        """Downloads the complex view, shape ``fourier_shape``."""
        return self.read(index)


def asrfftbuffer(data: Any, fourier_type: type[dt.dtype] | None = None) -> RFFTBuffer:
    """A new RFFTBuffer holding the real array ``data``.

    The default ``fourier_type`` matches the float width of ``data`` (integers count as the float
    of the same width).
    """
    array = np.asarray(data)
    if array.dtype.kind == "c":
        raise InvalidTypeError(f"asrfftbuffer needs real data, got {array.dtype}")
    if fourier_type is None:
        scalar = dt.make_floating_dtype(dt.from_numpy_dtype(array.dtype))
        fourier_type = dt.complex_from_float(scalar)
    buffer = RFFTBuffer(array.shape, fourier_type)
    buffer.write_real(array)
    return buffer
