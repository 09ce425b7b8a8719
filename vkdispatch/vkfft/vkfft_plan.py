"""VkFFTPlan: a VkFFT transform described in Python's terms (shape, axes, padding per axis),
translated to VkFFT's (reversed dimensions, omitted ones batched over)."""
from __future__ import annotations

import math
import numbers
from typing import Sequence

import numpy as np

from vkdispatch import dtypes as dt
from vkdispatch.base.buffer import Buffer
from vkdispatch.base.commands import FFTRun
from vkdispatch.base.context import get_context
from vkdispatch.base.fft_plan import FFTPlan
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError
from vkdispatch.shader.dispatch_target import DispatchTarget

__all__ = ["VkFFTPlan"]


def python_axes(axes, ndim: int, name: str = "axes") -> list[int]:
    """The transformed Python axes (non-negative, sorted, unique) from an int or a sequence;
    None means all. ``name`` is the argument named in errors."""
    if axes is None:
        return list(range(ndim))
    if isinstance(axes, int) and not isinstance(axes, bool):
        axes = [axes]
    elif not isinstance(axes, (list, tuple, range)):
        raise InvalidTypeError(f"{name}: an int or a sequence of ints, got {axes!r}")
    chosen = set()
    for axis in axes:
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise InvalidTypeError(f"{name}: each axis must be an int, got {axis!r}")
        if not -ndim <= axis < ndim:
            raise InvalidArgumentError(f"{name}: axis {axis} is out of range for a {ndim}-D "
                                       f"shape (valid: {-ndim}..{ndim - 1})")
        if axis % ndim in chosen:
            raise InvalidArgumentError(f"{name}: axis {axis} is given twice (as "
                                       f"{axis % ndim}); each axis is transformed once")
        chosen.add(axis % ndim)
    if not chosen:
        raise InvalidArgumentError(f"{name}: at least one axis must be transformed, got none")
    return sorted(chosen)


_MAX_POINTS = 2**32 - 1


def _check_shape(shape, name: str) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    try:
        shape = tuple(shape)
    except TypeError:  # None, a float...: was a bare "not iterable"
        raise InvalidTypeError(f"{name} must be an int or a tuple of ints, got "
                               f"{shape!r}") from None
    if not 1 <= len(shape) <= 3:
        raise InvalidArgumentError("Shape must be 1D, 2D, or 3D! "
                                   f"({name} has {len(shape)} dimensions: {shape})")
    for length in shape:
        if isinstance(length, bool) or not isinstance(length, int) or length < 1:
            raise InvalidArgumentError(f"{name}: every length must be a positive int, got "
                                       f"{shape}")
    if math.prod(shape) > _MAX_POINTS:  # VkFFT's kernels index with 32-bit ints
        raise InvalidArgumentError(f"{name}: {shape} holds {math.prod(shape)} points; VkFFT "
                                   f"transforms at most {_MAX_POINTS} at once")
    return shape


def _padding_bounds(padding, shape: tuple[int, ...]) -> list[tuple[int, int]]:
    """The (left, right) zero-block bounds of each Python axis ((0, 0): none)."""
    if padding is None:
        return [(0, 0)] * len(shape)
    if not isinstance(padding, (tuple, list)):
        raise InvalidTypeError(f"padding: one (left, right) pair or None per axis of {shape}, "
                               f"got {padding!r:.80}")
    if len(padding) != len(shape):
        raise InvalidArgumentError(f"padding: one (left, right) pair per axis of {shape}, got "
                                   f"{len(padding)}")
    return [_padding_block(block, axis, length)
            for axis, (block, length) in enumerate(zip(padding, shape))]


def _padding_block(block, axis: int, length: int) -> tuple[int, int]:
    """One axis's block: indices ``left`` to ``right - 1`` read as zeros. An empty block other
    than (0, 0) is refused: it is what (before, after) pad amounts such as (5, 5) look like,
    which this argument does not mean."""
    if block is None:
        return (0, 0)
    if not (isinstance(block, (tuple, list)) and len(block) == 2 and
            all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in block)):
        raise InvalidTypeError(f"padding: axis {axis} takes None or a (left, right) pair of "
                               f"ints, got {block!r:.60}")
    low, high = int(block[0]), int(block[1])
    if (low, high) != (0, 0) and not 0 <= low < high <= length:
        raise InvalidArgumentError(
            f"padding: ({low}, {high}) for axis {axis} must satisfy 0 <= left < right <= "
            f"{length}: the block is indices left to right - 1 of the axis, read as zeros (not "
            "amounts to pad); None or (0, 0) for no block")
    return (low, high)


def _count(value, name: str, low: int, high: int = 2**32 - 1) -> int:
    """An int argument in [low, high] (the native type's range at most)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidTypeError(f"{name} must be an int, got {value!r:.60} "
                               f"({type(value).__name__})")
    if not low <= value <= high:
        raise InvalidArgumentError(f"{name} must be in [{low}, {high}], got {value}")
    return int(value)


def _precision(fourier_type, context) -> bool:
    """True for double precision; checks the dtype and the devices."""
    if fourier_type is dt.complex64:
        return False
    if fourier_type is dt.complex128:
        missing = [info.device_name for info in context.device_infos
                   if not info.float_64_support]
        if missing:
            raise InvalidArgumentError(f"fourier_type: complex128 needs 64-bit floats, which "
                                       f"{', '.join(missing)} does not support; use complex64")
        return True
    raise InvalidTypeError(f"fourier_type: VkFFT transforms complex64 or complex128 buffers, "
                           f"got {getattr(fourier_type, 'name', fourier_type)!r}")


class VkFFTPlan(FFTPlan):
    """A VkFFT transform of ``shape`` (Python order) on every device of the current context.

    Args:
        shape: 1-3 lengths; the last axis is contiguous (VkFFT's first dimension).
        do_r2c: a real transform along the last axis (in place, rows padded as in RFFTBuffer).
        axes: the transformed axes (default all); VkFFT batches over the others.
        normalize: inverse transforms divide by the product of the transformed lengths.
        padding: per axis, None or a ``(left, right)`` block of zeros VkFFT does not read.
        pad_frequency_domain: the zero block lies in the frequency domain.
        kernel_count: > 0 makes a convolution plan multiplying by that many kernels.
        input_shape, input_type: a separate input buffer of this shape and dtype (out of place).
        kernel_convolution: the plan prepares a convolution kernel (forward transform).
        conjugate_convolution: 1 conjugates the transformed sequence, 2 the kernel.
        convolution_features: coordinates per element of a convolution (default 1).
        num_batches: independent copies of the whole shape laid out one after another.
        single_kernel_multiple_batches: accepted for compatibility (VkFFT 1.2 ignores it).
        keep_shader_code: VkFFT prints each kernel it runs.
        runs: the transform repeated over this many consecutive blocks of its buffers, each
            block what one run uses (how convolve2D batches images: VkFFT 1.2.26's convolutions
            go wrong with ``num_batches`` > 1).
        fourier_type: vd.complex64 (default) or vd.complex128 (devices with 64-bit floats).

    Raises:
        ValueError: a shape, axis, padding or size VkFFT cannot plan (VkFFT's reason included),
            a count out of range (``num_batches`` or ``runs`` < 1, ``conjugate_convolution``
            not 0, 1 or 2, ...).
        TypeError: a non-complex ``fourier_type``; a count, padding bound or length that is not
            an int.
    """

    def __init__(self, shape: Sequence[int], do_r2c: bool = False, axes: Sequence[int] = None,
                 normalize: bool = False, padding=None, pad_frequency_domain: bool = False,
                 kernel_count: int = 0, input_shape: Sequence[int] = None,
                 input_type: type[dt.dtype] = None, kernel_convolution: bool = False,
                 conjugate_convolution: int = 0, convolution_features: int = 1,
                 num_batches: int = 1, single_kernel_multiple_batches: bool = False,
                 keep_shader_code: bool = False, fourier_type: type[dt.dtype] = dt.complex64,
                 runs: int = 1):
        context = get_context()
        self.shape = _check_shape(shape, "shape")
        self.do_r2c = bool(do_r2c)
        self.axes = python_axes(axes, len(self.shape))
        self.fourier_type = fourier_type
        double = _precision(fourier_type, context)
        num_batches = _count(num_batches, "num_batches", 1, 2**64 - 1)
        runs, kernel_count = _count(runs, "runs", 1), _count(kernel_count, "kernel_count", 0)
        convolution_features = _count(convolution_features, "convolution_features", 0)
        conjugate_convolution = _count(  # a bool (what vkdispatch 0.1.0 passed) is 0 or 1
            int(conjugate_convolution) if isinstance(conjugate_convolution, bool)
            else conjugate_convolution, "conjugate_convolution", 0, 2)
        input_bytes = 0
        if input_shape is not None:
            input_bytes = math.prod(_check_shape(input_shape, "input_shape")) * \
                (input_type or fourier_type).item_size
        self.mem_size = fourier_type.item_size * math.prod(self.shape)
        super().__init__(dict(
            self._dimensions(padding), batches=num_batches, double_precision=double,
            r2c=self.do_r2c, normalize=bool(normalize),
            frequency_zeropadding=bool(pad_frequency_domain), kernel_count=kernel_count,
            kernel_convolution=bool(kernel_convolution),
            conjugate_convolution=conjugate_convolution,
            coordinate_features=max(convolution_features, 1), input_bytes=input_bytes,
            keep_shader_code=bool(keep_shader_code), runs=runs))

    def _dimensions(self, padding) -> dict:
        """VkFFT's dimensions, sizes, omitted flags and padding. Axes of length 1 are left out:
        they change no memory layout and transform as the identity, and VkFFT 1.2.26 cannot
        plan a dimension of length 1."""
        shape, ndim = self.shape, len(self.shape)
        if self.do_r2c and ndim - 1 not in self.axes:
            raise InvalidArgumentError(f"axes: a real transform runs along the last axis "
                                       f"({ndim - 1}), which {self.axes} does not include")
        if self.do_r2c and shape[-1] == 1:
            raise InvalidArgumentError(f"shape: a real transform needs a last axis longer than "
                                       f"1, got {shape}")
        bounds = _padding_bounds(padding, shape)
        kept = [axis for axis in range(ndim) if shape[axis] > 1]
        if not any(axis in kept for axis in self.axes):
            raise InvalidArgumentError(f"axes: every transformed axis of {shape} has length 1 "
                                       f"(the transform is the identity): {self.axes}")
        dims = len(kept)
        size, omitted = [1, 1, 1], [False, False, False]
        pad_left, pad_right = [0, 0, 0], [0, 0, 0]
        for position, axis in enumerate(kept):
            d = dims - 1 - position  # VkFFT's dimension 0 is the last (contiguous) axis
            size[d], omitted[d] = shape[axis], axis not in self.axes
            pad_left[d], pad_right[d] = bounds[axis]
        return dict(dimensions=dims, size=tuple(size), omitted=tuple(omitted),
                    pad_left=tuple(pad_left), pad_right=tuple(pad_right))

    def _check_buffer(self, buffer, name: str) -> None:
        if buffer is None:
            return
        if not isinstance(buffer, Buffer):
            raise InvalidTypeError(f"{name} must be a vd.Buffer, got {type(buffer).__name__}")
        if buffer.destroyed:  # a closed context's buffers too, before "another context"
            raise buffer.unusable_error(name)
        if buffer.context is not self.context:
            raise InvalidArgumentError(f"{name} belongs to another context than the plan")

    def record(self, graph, buffer: Buffer, inverse: bool = False, kernel: Buffer = None,
               input: Buffer = None) -> None:
        """Records the transform of ``buffer`` into ``graph`` (submitted at once by an
        immediate graph): forward, or inverse when ``inverse``."""
        if not isinstance(graph, DispatchTarget):  # was an AttributeError on record_command
            raise InvalidTypeError(f"graph must be a vd.CommandGraph, got "
                                   f"{type(graph).__name__}")
        if buffer is None:
            raise InvalidTypeError("buffer must be a vd.Buffer, got None")
        for name, value in (("buffer", buffer), ("kernel", kernel), ("input", input)):
            self._check_buffer(value, name)
        if self.destroyed:
            raise self.unusable_error("this VkFFTPlan")
        # Checked here as well as natively: a graph records natively only when it is submitted.
        if buffer.mem_size < self.buffer_bytes:
            raise InvalidArgumentError(f"buffer: the transform of shape {self.shape} works on "
                                       f"{self.buffer_bytes} bytes; the buffer has "
                                       f"{buffer.mem_size}")
        graph.record_command(FFTRun(self, buffer, 1 if inverse else -1, input, kernel))

    def record_forward(self, graph, buffer: Buffer) -> None:
        self.record(graph, buffer, False)

    def record_inverse(self, graph, buffer: Buffer) -> None:
        self.record(graph, buffer, True)
