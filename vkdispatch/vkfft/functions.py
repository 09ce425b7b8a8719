"""The transforms of vd.vkfft: complex and real, 1-3 axes, in place in the buffer (or from a
separate input buffer), recorded into a graph or run at once."""
from __future__ import annotations

import math

from vkdispatch import dtypes as dt
from vkdispatch.base.buffer import Buffer, normalize_shape
from vkdispatch.base.rfft_buffer import RFFTBuffer
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError
from vkdispatch.execution_pipeline.buffer_copy import copy
from vkdispatch.execution_pipeline.graphs import buffer_key, graph_or_global, repeat_or_record
from vkdispatch.vkfft.vkfft_config import VkFFTConfig, python_axes
from vkdispatch.vkfft.vkfft_dispatcher import execute_fft_plan

__all__ = ["fft", "fft2", "fft3", "ifft", "ifft2", "ifft3", "rfft", "rfft2", "rfft3", "irfft",
           "irfft2", "irfft3"]


def _complex_buffer(buffer, name: str) -> Buffer:
    if not isinstance(buffer, Buffer):
        raise InvalidTypeError(f"{name} must be a vd.Buffer, got {type(buffer).__name__}")
    if buffer.destroyed:
        raise buffer.unusable_error(name)
    if buffer.var_type not in (dt.complex64, dt.complex128):
        raise InvalidTypeError(f"{name}: VkFFT transforms complex64 or complex128 buffers, got "
                               f"{buffer.var_type.name}")
    return buffer


def _axes(axis, ndim: int) -> tuple[int, ...]:
    """Python axes from None (the last), an int or a sequence."""
    return (ndim - 1,) if axis is None else tuple(python_axes(axis, ndim, "axis"))


def fft(buffer: Buffer, input_buffer: Buffer = None, buffer_shape=None, graph=None,
        print_shader: bool = False, axis=None, inverse: bool = False,
        normalize_inverse: bool = True, r2c: bool = False) -> None:
    """Transforms ``buffer`` in place along ``axis`` (default the last; an int or a sequence).

    With ``input_buffer`` the data are read from it and the result written to ``buffer``.
    ``inverse`` runs the inverse, divided by the transformed lengths when ``normalize_inverse``.
    ``r2c`` with ``buffer_shape`` (the real shape) makes a real transform of an RFFTBuffer.
    Without ``graph`` it runs at once; with one it is recorded, ordered with the graph's other
    calls.

    Raises:
        TypeError: a buffer that is not complex64/complex128.
        ValueError: an axis out of range, a length or axis VkFFT cannot transform (VkFFT's
            reason included), a buffer too small for ``buffer_shape``.
    """
    _complex_buffer(buffer, "buffer")
    shape = buffer.shape if buffer_shape is None else _checked_shape(buffer, buffer_shape, r2c)
    axes = _axes(axis, len(shape))
    if r2c and len(shape) - 1 not in axes:
        raise InvalidArgumentError(f"axis: a real transform runs along the last axis "
                                   f"({len(shape) - 1}), which {axes} does not include")
    graph = graph_or_global(graph)
    if graph.destroyed:  # refused even where the transform is the identity and records nothing
        raise graph.unusable_error("graph")
    input_shape = input_type = None
    # Transforms of length 1 are the identity (VkFFT cannot plan them).
    identity = not r2c and all(shape[axis] == 1 for axis in axes)
    if input_buffer is not None:
        _complex_buffer(input_buffer, "input_buffer")
        if input_buffer is buffer:
            raise InvalidArgumentError("input_buffer: out of place, the input must be another "
                                       "buffer than buffer (leave input_buffer out to transform "
                                       "in place)")
        if input_buffer.var_type is not buffer.var_type:
            raise InvalidTypeError(f"input_buffer holds {input_buffer.var_type.name} but buffer "
                                   f"holds {buffer.var_type.name}")
        if input_buffer.shape != buffer.shape or r2c:
            raise InvalidArgumentError(f"input_buffer: out of place, the input needs the "
                                       f"buffer's shape {buffer.shape} (complex transforms), got "
                                       f"{input_buffer.shape}")
        if inverse or identity:
            # VkFFT's inverse reads the buffer it writes: bring the input there first (as
            # much of it as the transform covers: the rest of the buffer stays).
            copy(buffer, input_buffer, count=math.prod(shape), graph=graph)
            input_buffer = None
        else:
            input_shape, input_type = input_buffer.shape, input_buffer.var_type
    if identity:
        return

    def record() -> None:
        config = VkFFTConfig(shape, do_r2c=r2c, axes=axes, normalize=normalize_inverse,
                             input_shape=input_shape, input_type=input_type,
                             keep_shader_code=print_shader, fourier_type=buffer.var_type)
        execute_fft_plan(buffer, inverse, config, input=input_buffer, graph=graph)

    # A script's repeat submits the recorded run again (no plan lookup, no re-recording).
    buffers_key = None if print_shader else \
        buffer_key((buffer,) if input_buffer is None else (buffer, input_buffer))
    repeat_or_record(graph, buffers_key and (fft, buffers_key, shape, axes, inverse,
                                             normalize_inverse, r2c), record)


def _checked_shape(buffer: Buffer, buffer_shape, r2c: bool) -> tuple[int, ...]:
    """``buffer_shape`` normalised, refused when its transform would run past the buffer's
    end."""
    shape = normalize_shape(buffer_shape, "buffer_shape")
    if r2c and shape[-1] == 1:
        raise InvalidArgumentError(f"buffer_shape: a real transform needs a last axis longer "
                                   f"than 1, got {shape}")
    # A real transform's spectrum (the larger of its two layouts) holds n // 2 + 1 values.
    values = math.prod(shape[:-1]) * (shape[-1] // 2 + 1) if r2c else math.prod(shape)
    needed = values * buffer.var_type.item_size
    if needed > buffer.mem_size:
        raise InvalidArgumentError(f"buffer_shape {shape} of {buffer.var_type.name} needs "
                                   f"{needed} bytes; the buffer (shape {buffer.shape}) has "
                                   f"{buffer.mem_size}")
    return shape


def ifft(buffer: Buffer, graph=None, print_shader: bool = False, axis=None,
         normalize: bool = True) -> None:
    """The inverse of :func:`fft` in place (divided by the lengths when ``normalize``)."""
    fft(buffer, graph=graph, print_shader=print_shader, axis=axis, inverse=True,
        normalize_inverse=normalize)


def _need_dims(buffer, at_least: int, exactly: bool = False) -> None:
    if not isinstance(buffer, Buffer):
        raise InvalidTypeError(f"buffer must be a vd.Buffer, got {type(buffer).__name__}")
    ndim = len(getattr(buffer, "real_shape", None) or buffer.shape)
    if exactly and ndim != at_least:
        raise InvalidArgumentError(f"Buffer must have {at_least} dimensions (got shape "
                                   f"{buffer.shape})")
    if ndim < at_least:
        raise InvalidArgumentError(f"Buffer must have at least {at_least} dimensions (got "
                                   f"shape {buffer.shape})")


def fft2(buffer: Buffer, graph=None, print_shader: bool = False) -> None:
    """2-D transform over the last two axes."""
    _need_dims(buffer, 2)
    ndim = len(buffer.shape)
    fft(buffer, graph=graph, print_shader=print_shader, axis=(ndim - 2, ndim - 1))


def ifft2(buffer: Buffer, graph=None, print_shader: bool = False) -> None:
    _need_dims(buffer, 2)
    ndim = len(buffer.shape)
    ifft(buffer, graph=graph, print_shader=print_shader, axis=(ndim - 2, ndim - 1))


def fft3(buffer: Buffer, graph=None, print_shader: bool = False) -> None:
    """3-D transform over axes (0, 1, 2)."""
    _need_dims(buffer, 3)
    fft(buffer, graph=graph, print_shader=print_shader, axis=(0, 1, 2))


def ifft3(buffer: Buffer, graph=None, print_shader: bool = False) -> None:
    _need_dims(buffer, 3, exactly=True)
    ifft(buffer, graph=graph, print_shader=print_shader, axis=(0, 1, 2))


def _real_buffer(buffer) -> RFFTBuffer:
    if not isinstance(buffer, RFFTBuffer):
        raise InvalidTypeError(f"buffer must be a vd.RFFTBuffer (real data in the padded "
                               f"layout), got {type(buffer).__name__}")
    return buffer


def _real_axes(buffer: RFFTBuffer, axis) -> tuple[int, ...]:
    ndim = len(buffer.real_shape)
    axes = _axes(axis, ndim)
    if ndim - 1 not in axes:
        raise InvalidArgumentError(f"axis: a real transform runs along the last axis "
                                   f"({ndim - 1}); {axes} does not include it")
    return axes


def rfft(buffer: RFFTBuffer, graph=None, print_shader: bool = False, axis=None) -> None:
    """Real-to-complex transform of an RFFTBuffer in place (the last axis, plus any other
    ``axis`` given, as complex transforms)."""
    _real_buffer(buffer)
    fft(buffer, buffer_shape=buffer.real_shape, graph=graph, print_shader=print_shader,
        axis=_real_axes(buffer, axis), r2c=True)


def irfft(buffer: RFFTBuffer, graph=None, print_shader: bool = False, normalize: bool = True,
          axis=None) -> None:
    """Complex-to-real inverse of :func:`rfft` in place."""
    _real_buffer(buffer)
    fft(buffer, buffer_shape=buffer.real_shape, graph=graph, print_shader=print_shader,
        axis=_real_axes(buffer, axis), inverse=True, normalize_inverse=normalize, r2c=True)


def rfft2(buffer: RFFTBuffer, graph=None, print_shader: bool = False) -> None:
    _real_buffer(buffer)
    _need_dims(buffer, 2)
    ndim = len(buffer.real_shape)
    rfft(buffer, graph=graph, print_shader=print_shader, axis=(ndim - 2, ndim - 1))


def irfft2(buffer: RFFTBuffer, graph=None, print_shader: bool = False) -> None:
    _real_buffer(buffer)
    _need_dims(buffer, 2)
    ndim = len(buffer.real_shape)
    irfft(buffer, graph=graph, print_shader=print_shader, axis=(ndim - 2, ndim - 1))


def rfft3(buffer: RFFTBuffer, graph=None, print_shader: bool = False) -> None:
    _real_buffer(buffer)
    _need_dims(buffer, 3, exactly=True)
    rfft(buffer, graph=graph, print_shader=print_shader, axis=(0, 1, 2))


def irfft3(buffer: RFFTBuffer, graph=None, print_shader: bool = False) -> None:
    _real_buffer(buffer)
    _need_dims(buffer, 3, exactly=True)
    irfft(buffer, graph=graph, print_shader=print_shader, axis=(0, 1, 2))
