"""The dispatching transforms: ``vd.fft.fft``, ``ifft``, ``rfft``... and their 2-D/3-D forms.

Each 1-D pass is one cached shader (:func:`make_fft_shader`) recorded as one dispatch into
``graph`` (default: the thread's global graph, which submits at once). Arguments follow the
shaders' order: the output side, then the input side (see ``io_manager.py``).
"""
from __future__ import annotations

import math
from typing import Optional, Tuple, Union

import numpy as np

from vkdispatch.base.buffer import Buffer, normalize_shape
from vkdispatch.base.context import get_context
from vkdispatch.base.rfft_buffer import RFFTBuffer
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError
from vkdispatch.execution_pipeline.graphs import buffer_key, repeat_or_record
from vkdispatch.fft.config import DeviceLimits
from vkdispatch.fft.operand_types import resolve_fft_types
from vkdispatch.fft.plane import plane_fits, plane_shader
from vkdispatch.fft.shader_factories import make_fft_shader
from vkdispatch.shader.dispatch_target import DispatchTarget
from vkdispatch.shader.mapping import MappingFunction

__all__ = ["fft", "ifft", "fft2", "ifft2", "fft3", "ifft3", "rfft", "irfft", "rfft2",
           "irfft2", "rfft3", "irfft3"]


# -- checks ---------------------------------------------------------------------------------

def check_in_place_buffer(buffer, buffer_shape: Tuple, r2c: bool) -> None:
    if not isinstance(buffer, Buffer):
        raise InvalidTypeError(f"the FFT buffer must be a vd.Buffer, got "
                               f"{type(buffer).__name__}")
    needed = math.prod(buffer_shape)
    if r2c:
        needed = math.prod(buffer_shape[:-1]) * (buffer_shape[-1] // 2 + 1)
    if buffer.size < needed:
        raise InvalidArgumentError(f"buffer_shape {tuple(buffer_shape)} needs {needed} "
                                   f"elements but the buffer holds {buffer.size} "
                                   f"(shape {buffer.shape})")


def check_graph(graph) -> None:
    if graph is not None and not isinstance(graph, DispatchTarget):
        raise InvalidTypeError(f"graph must be a vd.CommandGraph (or None), got "
                               f"{type(graph).__name__}")


def _split_buffers(buffers: tuple, graph, print_shader: bool):
    """vkdispatch 0.1.0's multi-axis helpers take ``(buffer, graph=None, print_shader=False)``
    positionally; ours take every map buffer too, so a trailing graph/bool positional keeps
    its old meaning."""
    buffers = list(buffers)
    if buffers and isinstance(buffers[-1], bool) and len(buffers) >= 2 \
            and isinstance(buffers[-2], DispatchTarget):
        print_shader = buffers.pop()
    if buffers and isinstance(buffers[-1], DispatchTarget):
        if graph is not None:
            raise InvalidTypeError("graph was given both by position and by keyword")
        graph = buffers.pop()
    return tuple(buffers), graph, print_shader


def shape_of(buffer_shape, buffer) -> tuple:
    """The shape a transform works on: ``buffer_shape`` (checked: 1-3 positive ints), else
    ``buffer``'s (which must be a buffer)."""
    if not isinstance(buffer, Buffer):
        raise InvalidTypeError(f"buffer: the data to transform must be a vd.Buffer, got "
                               f"{type(buffer).__name__}")
    if buffer_shape is None:
        return tuple(buffer.shape)
    return normalize_shape(buffer_shape, "buffer_shape")


def check_flags(**flags) -> None:
    """Each flag is a bool (numpy's, or the int 0 or 1, too): any other object was taken for
    its truth value, so ``normalize="False"`` normalised."""
    for name, value in flags.items():
        if value is True or value is False or isinstance(value, np.bool_) or \
                (type(value) is int and value in (0, 1)):
            continue
        raise InvalidTypeError(f"{name} must be a bool, got {value!r}")


def check_live(buffers: tuple) -> None:
    """A destroyed buffer argument is named as the caller passed it (the shader call named its
    generated parameter, 'param0')."""
    for position, buffer in enumerate(buffers):
        if isinstance(buffer, Buffer) and buffer.destroyed:
            raise buffer.unusable_error("buffer" if position == 0 else
                                        f"buffer argument {position}")


def check_int(value, name: str) -> None:
    """An int option (a numpy integer too) or None: 1.0 or True, equal to 1, shared a plan
    cached for 1 and so passed once 1 had been used (refused before)."""
    if value is not None and (isinstance(value, bool) or
                              not isinstance(value, (int, np.integer))):
        raise InvalidTypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")


def check_name(name) -> None:
    """The shader's name is None or a str (others raised bare errors deep inside)."""
    if name is not None and type(name) is not str:
        raise InvalidTypeError(f"name must be a str (the generated shader's name) or None, "
                               f"got {type(name).__name__} {name!r}")


# -- 1-D ------------------------------------------------------------------------------------

def fft(*buffers: Buffer, buffer_shape: Tuple = None, graph=None, print_shader: bool = False,
        axis: int = None, name: str = None, inverse: bool = False,
        normalize_inverse: bool = True, r2c: bool = False,
        input_map: MappingFunction = None, output_map: MappingFunction = None,
        output_type=None, input_type=None, compute_type=None,
        input_signal_range: Union[Tuple[Optional[int], Optional[int]], None] = None) -> None:
    """The 1-D FFT of every line along ``axis`` (default: the last; negative counts from the
    end), in place unless mapping hooks route the input or output elsewhere.

    Forward uses ``exp(-2 pi i jk/N)`` and no scaling; ``inverse=True`` uses ``exp(+...)``
    and divides by N unless ``normalize_inverse=False`` (numpy's conventions). ``r2c=True``
    reads/writes the ``RFFTBuffer`` real layout (``buffer_shape`` is then the real shape).
    ``input_signal_range=(start, end)`` treats samples outside ``[start, end)`` as zeros.
    ``name`` names the generated shader.
    """
    if not buffers:
        raise InvalidArgumentError("At least one buffer must be provided")
    check_graph(graph)
    if input_map is None and output_map is None and len(buffers) != 1:
        raise InvalidArgumentError(f"fft() without input_map/output_map works in place on "
                                   f"exactly one buffer, got {len(buffers)}")
    shape = shape_of(buffer_shape, buffers[0])
    check_flags(inverse=inverse, normalize_inverse=normalize_inverse, r2c=r2c)
    check_name(name)
    check_int(axis, "axis")
    options = (shape, axis, inverse, normalize_inverse, r2c, input_map, output_map, input_type,
               output_type, compute_type, input_signal_range, name)

    def record() -> None:
        check_live(buffers)
        if input_map is None and output_map is None:
            check_in_place_buffer(buffers[0], shape, r2c)
        shader = cached_plan(_plan, buffers, options)
        if print_shader:
            print(shader)
        shader(*buffers, graph=graph)
    one_operation(graph, print_shader, buffers, options, record)


def _plan(buffers, shape, axis, inverse, normalize_inverse, r2c, input_map, output_map,
          input_type, output_type, compute_type, input_signal_range, name):
    """The shader of an :func:`fft` call, its types resolved and checked."""
    input_type, output_type, compute_type = resolve_fft_types(
        buffers, input_map, output_map, input_type, output_type, compute_type)
    return make_fft_shader(shape, axis, inverse=inverse, normalize_inverse=normalize_inverse,
                           r2c=r2c, input_map=input_map, output_map=output_map,
                           input_type=input_type, output_type=output_type,
                           compute_type=compute_type, input_signal_range=input_signal_range,
                           name=name)


# Distinct eager calls whose plans a context keeps (a script has a handful).
_PLANS_PER_CONTEXT = 1024
_generation = [0]  # raised by plans_clear: every context's plans are then stale


class _Plans(dict):
    """A context's eager-call plans, of one generation."""

    def __init__(self, generation: int):
        super().__init__()
        self.generation = generation


def plans_clear() -> None:
    """Forgets every context's eager-call plans (with the shader caches, by
    ``vd.fft.cache_clear``)."""
    _generation[0] += 1


def cached_plan(plan, buffers: tuple, options: tuple):
    """``plan(buffers, *options)`` (the checked plan of an eager call), kept per context by
    ``plan``, the device limits, the buffers' dtypes and ``options``: what a repeated call would
    resolve and check again is the same (the checks cost an eager call more than its
    submission). Uncached where an option is unhashable or an argument has no dtype, so that
    errors name the argument itself."""
    context = get_context()
    dtypes = tuple(getattr(b, "var_type", None) for b in buffers)
    plans = context.derived.get(cached_plan)
    if plans is None or plans.generation != _generation[0]:
        plans = context.derived[cached_plan] = _Plans(_generation[0])
    key = (plan, DeviceLimits.current(), dtypes, options)  # limits: a plan is made for them
    try:
        found = plans.get(key)
    except TypeError:
        return plan(buffers, *options)
    if found is None:
        found = plan(buffers, *options)
        if None not in dtypes:
            if len(plans) >= _PLANS_PER_CONTEXT:
                plans.clear()
            plans[key] = found
    return found


def ifft(buffer: Buffer, graph=None, print_shader: bool = False, axis: int = None,
         name: str = None, normalize: bool = True, input_map: MappingFunction = None,
         output_map: MappingFunction = None, output_type=None, input_type=None,
         compute_type=None) -> None:
    """The inverse of :func:`fft` along ``axis`` (divided by N unless ``normalize=False``);
    for out-of-place inverses with map buffers use ``fft(..., inverse=True)``."""
    fft(buffer, graph=graph, print_shader=print_shader, axis=axis, name=name, inverse=True,
        normalize_inverse=normalize, input_map=input_map, output_map=output_map,
        output_type=output_type, input_type=input_type, compute_type=compute_type)


# -- several axes ---------------------------------------------------------------------------

def _passes(buffers: tuple, axes: list[int], input_map, output_map, **options) -> None:
    """One :func:`fft` per axis: the first reads through ``input_map``, the last writes
    through ``output_map``, the ones between work in place on the working buffer (the output
    buffer, or the input buffer that follows the output map's arguments)."""
    if not buffers:
        raise InvalidArgumentError("At least one buffer must be provided")
    if input_map is None and output_map is None and len(buffers) != 1:  # others were ignored
        raise InvalidArgumentError(f"without input_map/output_map the transform works in place "
                                   f"on exactly one buffer, got {len(buffers)}")
    working_index = len(output_map.buffer_types) if output_map is not None else 0
    if working_index >= len(buffers):
        raise InvalidArgumentError("an input buffer argument must be provided after the "
                                   "output_map's arguments")
    working = buffers[working_index]
    ndim = len(shape_of(None, working))
    if ndim not in (2, 3) or (len(axes) == 3 and ndim != 3):
        wanted = "3" if len(axes) == 3 else "2 or 3"
        raise InvalidArgumentError(f"Buffer must have {wanted} dimensions, got shape "
                                   f"{working.shape}")
    input_type, output_type = options.pop("input_type"), options.pop("output_type")
    check_flags(**{name: options[name] for name in ("inverse", "normalize_inverse")
                   if name in options})

    check_graph(options["graph"])
    plain = input_map is None and output_map is None and input_type is None \
        and output_type is None

    def record() -> None:
        rest = axes
        if plain:
            check_live((working,))
            plane = cached_plan(_plane_plan, (working,), (
                tuple(working.shape), tuple(axes), options.get("inverse", False),
                options.get("normalize_inverse", True), options["compute_type"]))
            if plane:
                if options["print_shader"]:
                    print(plane)
                plane(working, graph=options["graph"])
                rest = [axis for axis in axes if axis < ndim - 2]
        for index, axis in enumerate(rest):
            first, last = index == 0, index == len(rest) - 1
            args = list(buffers[working_index:] if first and input_map is not None
                        else [working])
            if last and output_map is not None:
                args = list(buffers[:working_index]) + args
            fft(*args, axis=axis, input_map=input_map if first else None,
                output_map=output_map if last else None,
                input_type=input_type if first else None,
                output_type=output_type if last and output_map is None else None,
                buffer_shape=tuple(working.shape), **options)

    one_operation(options["graph"], options["print_shader"], buffers,
                  (tuple(axes), input_map, output_map, input_type, output_type,
                   tuple(options.items())), record)


def _plane_plan(buffers: tuple, shape: tuple, axes: tuple, inverse: bool, normalize: bool,
                compute_type):
    """The one-pass shader of the last two axes of ``shape`` (see plane.py) where ``axes``
    includes both and the plane fits a workgroup, else False (a plan that is cached too)."""
    if not {len(shape) - 2, len(shape) - 1} <= set(axes):
        return False
    _, buffer_type, compute_type = resolve_fft_types(buffers, None, None, None, None,
                                                     compute_type)
    limits = DeviceLimits.current()
    if not plane_fits(shape[-2], shape[-1], compute_type, limits):
        return False
    return plane_shader(limits, shape, bool(inverse), bool(normalize), buffer_type,
                        compute_type)


def one_operation(graph, print_shader: bool, buffers: tuple, options: tuple, record) -> None:
    """``record()``, the dispatches of one library operation, as one submission; a script's
    repeat of it (the same ``record`` code, buffers and ``options``, which must hold every
    other value the recording depends on) submits the recording again without tracing its
    dispatches (see :func:`~vkdispatch.execution_pipeline.graphs.repeat_or_record`). Printing
    shaders always records."""
    buffers_key = None if print_shader else buffer_key(buffers)
    key = buffers_key and (record.__code__, _generation[0], buffers_key, options)
    repeat_or_record(graph, key, record)


def _last_two_axes(buffers: tuple) -> list[int]:
    if not buffers:
        return []
    ndim = len(shape_of(None, buffers[0]))
    return [ndim - 2, ndim - 1]


def fft2(*buffers: Buffer, graph=None, print_shader: bool = False, input_map=None,
         output_map=None, output_type=None, input_type=None, compute_type=None) -> None:
    """2-D FFT over the last two axes of a 2-D or 3-D buffer: one dispatch where a plane fits
    one workgroup and no map or type is given (complex64 up to 4096 values a plane), else
    two."""
    buffers, graph, print_shader = _split_buffers(buffers, graph, print_shader)
    axes = _last_two_axes(buffers)
    _passes(buffers, axes, input_map, output_map, graph=graph, print_shader=print_shader,
            input_type=input_type, output_type=output_type, compute_type=compute_type)


def ifft2(*buffers: Buffer, graph=None, print_shader: bool = False, normalize: bool = True,
          input_map=None, output_map=None, output_type=None, input_type=None,
          compute_type=None) -> None:
    """Inverse of :func:`fft2` (divided by the product of the two lengths by default)."""
    buffers, graph, print_shader = _split_buffers(buffers, graph, print_shader)
    axes = _last_two_axes(buffers)
    _passes(buffers, axes, input_map, output_map, graph=graph, print_shader=print_shader,
            inverse=True, normalize_inverse=normalize, input_type=input_type,
            output_type=output_type, compute_type=compute_type)


def fft3(*buffers: Buffer, graph=None, print_shader: bool = False, input_map=None,
         output_map=None, output_type=None, input_type=None, compute_type=None) -> None:
    """3-D FFT of a 3-D buffer: axes 0, 1, 2 (three dispatches; two where the planes of
    axes 1 and 2 fit one workgroup, as in :func:`fft2`)."""
    buffers, graph, print_shader = _split_buffers(buffers, graph, print_shader)
    _passes(buffers, [0, 1, 2], input_map, output_map, graph=graph, print_shader=print_shader,
            input_type=input_type, output_type=output_type, compute_type=compute_type)


def ifft3(*buffers: Buffer, graph=None, print_shader: bool = False, normalize: bool = True,
          input_map=None, output_map=None, output_type=None, input_type=None,
          compute_type=None) -> None:
    """Inverse of :func:`fft3`."""
    buffers, graph, print_shader = _split_buffers(buffers, graph, print_shader)
    _passes(buffers, [0, 1, 2], input_map, output_map, graph=graph, print_shader=print_shader,
            inverse=True, normalize_inverse=normalize, input_type=input_type,
            output_type=output_type, compute_type=compute_type)


# -- real transforms ------------------------------------------------------------------------

def _check_rfft_buffer(buffer, dims: tuple[int, ...]) -> None:
    if not isinstance(buffer, RFFTBuffer):
        raise InvalidTypeError(f"real transforms need a vd.RFFTBuffer, got "
                               f"{type(buffer).__name__} (vd.asrfftbuffer(array) makes one)")
    if len(buffer.real_shape) not in dims:
        wanted = " or ".join(str(d) for d in dims)
        raise InvalidArgumentError(f"the RFFTBuffer's real shape must have {wanted} "
                                   f"dimensions, got {buffer.real_shape}")


def _real_pass(buffer: RFFTBuffer, inverse: bool, graph, print_shader: bool, normalize: bool,
               compute_type, name: str = None) -> None:
    fft(buffer, buffer_shape=tuple(buffer.real_shape), graph=graph, print_shader=print_shader,
        name=name, inverse=inverse, normalize_inverse=normalize, r2c=True,
        input_type=buffer.var_type, output_type=buffer.var_type, compute_type=compute_type)


def _complex_pass(buffer: RFFTBuffer, axis: int, inverse: bool, graph, print_shader: bool,
                  normalize: bool, compute_type) -> None:
    fft(buffer, graph=graph, print_shader=print_shader, axis=axis, inverse=inverse,
        normalize_inverse=normalize, input_type=buffer.var_type, output_type=buffer.var_type,
        compute_type=compute_type)


def rfft(buffer: RFFTBuffer, graph=None, print_shader: bool = False, name: str = None,
         compute_type=None) -> None:
    """Real-to-complex FFT of the last axis, in place on an :class:`~vkdispatch.RFFTBuffer`
    (its spectrum ``real_shape[-1] // 2 + 1`` bins per row, as ``numpy.fft.rfft``)."""
    _check_rfft_buffer(buffer, (1, 2, 3))
    _real_pass(buffer, False, graph, print_shader, True, compute_type, name)


def irfft(buffer: RFFTBuffer, graph=None, print_shader: bool = False, name: str = None,
          normalize: bool = True, compute_type=None) -> None:
    """Complex-to-real inverse of :func:`rfft` (divided by N unless ``normalize=False``)."""
    _check_rfft_buffer(buffer, (1, 2, 3))
    _real_pass(buffer, True, graph, print_shader, normalize, compute_type, name)


def rfft2(buffer: RFFTBuffer, graph=None, print_shader: bool = False, compute_type=None) -> None:
    """``numpy.fft.rfft2``: rfft of the last axis, then an FFT of the half spectrum along the
    one before."""
    _check_rfft_buffer(buffer, (2, 3))

    def record() -> None:
        _real_pass(buffer, False, graph, print_shader, True, compute_type)
        _complex_pass(buffer, len(buffer.real_shape) - 2, False, graph, print_shader, True,
                      compute_type)
    one_operation(graph, print_shader, (buffer,), (compute_type,), record)


def rfft3(buffer: RFFTBuffer, graph=None, print_shader: bool = False, compute_type=None) -> None:
    """``numpy.fft.rfftn`` of a 3-D real shape: rfft, then FFTs along axes 1 and 0."""
    _check_rfft_buffer(buffer, (3,))

    def record() -> None:
        _real_pass(buffer, False, graph, print_shader, True, compute_type)
        for axis in (1, 0):
            _complex_pass(buffer, axis, False, graph, print_shader, True, compute_type)
    one_operation(graph, print_shader, (buffer,), (compute_type,), record)


def irfft2(buffer: RFFTBuffer, graph=None, print_shader: bool = False, normalize: bool = True,
           compute_type=None) -> None:
    """Inverse of :func:`rfft2`."""
    _check_rfft_buffer(buffer, (2, 3))
    check_flags(normalize=normalize)  # before it keys the repeat (an array cannot)

    def record() -> None:
        _complex_pass(buffer, len(buffer.real_shape) - 2, True, graph, print_shader,
                      normalize, compute_type)
        _real_pass(buffer, True, graph, print_shader, normalize, compute_type)
    one_operation(graph, print_shader, (buffer,), (normalize, compute_type), record)


def irfft3(buffer: RFFTBuffer, graph=None, print_shader: bool = False, normalize: bool = True,
           compute_type=None) -> None:
    """Inverse of :func:`rfft3`."""
    _check_rfft_buffer(buffer, (3,))
    check_flags(normalize=normalize)

    def record() -> None:
        for axis in (0, 1):
            _complex_pass(buffer, axis, True, graph, print_shader, normalize, compute_type)
        _real_pass(buffer, True, graph, print_shader, normalize, compute_type)
    one_operation(graph, print_shader, (buffer,), (normalize, compute_type), record)
