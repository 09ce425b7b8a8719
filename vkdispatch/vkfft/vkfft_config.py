"""VkFFTConfig: the one description of a vd.vkfft transform, in Python's terms (shape, axes,
padding per axis). It is checked and normalised when made, so it is at once the key of the plan
cache and the only argument a plan is built from; :meth:`VkFFTConfig.geometry` translates it to
VkFFT's terms (reversed dimensions, omitted ones batched over)."""
from __future__ import annotations

import dataclasses
import math
import numbers
from typing import Optional, Tuple

import numpy as np

from vkdispatch import dtypes as dt
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["VkFFTConfig", "python_axes"]


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


def _padding_bounds(padding, shape: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """The (left, right) zero-block bounds of each Python axis ((0, 0): none)."""
    if padding is None:
        return ((0, 0),) * len(shape)
    if not isinstance(padding, (tuple, list)):
        raise InvalidTypeError(f"padding: one (left, right) pair or None per axis of {shape}, "
                               f"got {padding!r:.80}")
    if len(padding) != len(shape):
        raise InvalidArgumentError(f"padding: one (left, right) pair per axis of {shape}, got "
                                   f"{len(padding)}")
    return tuple(_padding_block(block, axis, length)
                 for axis, (block, length) in enumerate(zip(padding, shape)))


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
    if type(value) is not int and (isinstance(value, bool) or  # plain ints skip the ABC check
                                   not isinstance(value, numbers.Integral)):
        raise InvalidTypeError(f"{name} must be an int, got {value!r:.60} "
                               f"({type(value).__name__})")
    if not low <= value <= high:
        raise InvalidArgumentError(f"{name} must be in [{low}, {high}], got {value}")
    return int(value)


def _check_fourier_type(fourier_type) -> None:
    if fourier_type is not dt.complex64 and fourier_type is not dt.complex128:
        raise InvalidTypeError(f"fourier_type: VkFFT transforms complex64 or complex128 "
                               f"buffers, got {getattr(fourier_type, 'name', fourier_type)!r}")


@dataclasses.dataclass(frozen=True)
class VkFFTConfig:
    """A VkFFT transform of ``shape`` (Python order), checked and normalised when made: sequences
    become tuples, ``axes`` the sorted transformed axes, ``padding`` one ``(left, right)`` pair per
    axis, counts ints and flags bools. So two descriptions of one transform (lists or tuples,
    axes in any order, a bool for ``conjugate_convolution``) are equal and share a cached plan.

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
        single_kernel_multiple_batches: accepted where vkdispatch 0.1.0's VkFFTPlan took it
            (VkFFT 1.2 ignores it); not kept.
        keep_shader_code: VkFFT prints each kernel it runs.
        fourier_type: vd.complex64 (default) or vd.complex128 (devices with 64-bit floats).
        runs: the transform repeated over this many consecutive blocks of its buffers, each
            block what one run uses (how convolve2D batches images: VkFFT 1.2.26's convolutions
            go wrong with ``num_batches`` > 1).

    Raises:
        ValueError: a shape, axis or padding VkFFT cannot plan, a count out of range
            (``num_batches`` or ``runs`` < 1, ``conjugate_convolution`` not 0, 1 or 2, ...).
        TypeError: a non-complex ``fourier_type``; a count, padding bound or length that is not
            an int.
    """

    shape: Tuple[int, ...]
    do_r2c: bool = False
    axes: Optional[Tuple[int, ...]] = None
    normalize: bool = False
    padding: Optional[Tuple[Tuple[int, int], ...]] = None
    pad_frequency_domain: bool = False
    kernel_count: int = 0
    input_shape: Optional[Tuple[int, ...]] = None
    input_type: Optional[type] = None
    kernel_convolution: bool = False
    conjugate_convolution: int = 0
    convolution_features: int = 1
    num_batches: int = 1
    single_kernel_multiple_batches: dataclasses.InitVar[bool] = False
    keep_shader_code: bool = False
    fourier_type: type = dt.complex64
    runs: int = 1

    def __post_init__(self, single_kernel_multiple_batches: bool) -> None:
        shape = _check_shape(self.shape, "shape")
        axes = tuple(python_axes(self.axes, len(shape)))
        _check_fourier_type(self.fourier_type)
        conjugate = self.conjugate_convolution  # a bool (what vkdispatch 0.1.0 passed): 0 or 1
        normalised = dict(
            shape=shape, axes=axes, do_r2c=bool(self.do_r2c), normalize=bool(self.normalize),
            num_batches=_count(self.num_batches, "num_batches", 1, 2**64 - 1),
            runs=_count(self.runs, "runs", 1),
            kernel_count=_count(self.kernel_count, "kernel_count", 0),
            convolution_features=_count(self.convolution_features, "convolution_features", 0),
            conjugate_convolution=_count(int(conjugate) if isinstance(conjugate, bool)
                                         else conjugate, "conjugate_convolution", 0, 2),
            input_shape=None if self.input_shape is None
            else _check_shape(self.input_shape, "input_shape"),
            pad_frequency_domain=bool(self.pad_frequency_domain),
            kernel_convolution=bool(self.kernel_convolution),
            keep_shader_code=bool(self.keep_shader_code))
        if normalised["do_r2c"]:
            if len(shape) - 1 not in axes:
                raise InvalidArgumentError(f"axes: a real transform runs along the last axis "
                                           f"({len(shape) - 1}), which {list(axes)} does not "
                                           f"include")
            if shape[-1] == 1:
                raise InvalidArgumentError(f"shape: a real transform needs a last axis longer "
                                           f"than 1, got {shape}")
        normalised["padding"] = _padding_bounds(self.padding, shape)
        if all(shape[axis] == 1 for axis in axes):
            raise InvalidArgumentError(f"axes: every transformed axis of {shape} has length 1 "
                                       f"(the transform is the identity): {list(axes)}")
        for name, value in normalised.items():  # frozen: set once, here
            object.__setattr__(self, name, value)

    @property
    def double_precision(self) -> bool:
        return self.fourier_type is dt.complex128

    def geometry(self) -> dict:
        """The transform in VkFFT's terms: the native plan's arguments."""
        input_bytes = 0 if self.input_shape is None else \
            math.prod(self.input_shape) * (self.input_type or self.fourier_type).item_size
        return dict(
            self._dimensions(), batches=self.num_batches,
            double_precision=self.double_precision, r2c=self.do_r2c, normalize=self.normalize,
            frequency_zeropadding=self.pad_frequency_domain, kernel_count=self.kernel_count,
            kernel_convolution=self.kernel_convolution,
            conjugate_convolution=self.conjugate_convolution,
            coordinate_features=max(self.convolution_features, 1), input_bytes=input_bytes,
            keep_shader_code=self.keep_shader_code, runs=self.runs)

    def _dimensions(self) -> dict:
        """VkFFT's dimensions, sizes, omitted flags and padding. Axes of length 1 are left out:
        they change no memory layout and transform as the identity, and VkFFT 1.2.26 cannot
        plan a dimension of length 1."""
        shape = self.shape
        kept = [axis for axis in range(len(shape)) if shape[axis] > 1]
        dims = len(kept)
        size, omitted = [1, 1, 1], [False, False, False]
        pad_left, pad_right = [0, 0, 0], [0, 0, 0]
        for position, axis in enumerate(kept):
            d = dims - 1 - position  # VkFFT's dimension 0 is the last (contiguous) axis
            size[d], omitted[d] = shape[axis], axis not in self.axes
            pad_left[d], pad_right[d] = self.padding[axis]
        return dict(dimensions=dims, size=tuple(size), omitted=tuple(omitted),
                    pad_left=tuple(pad_left), pad_right=tuple(pad_right))
