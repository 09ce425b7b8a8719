"""ReduceFunction: a reduction over a buffer (or a mapping of several), in one or two
dispatches.

Stage 1 runs up to G workgroups of G invocations per batch over the data and stores one
partial per workgroup; stage 2 folds each batch's partials with one workgroup. An input of at
most G x 4 elements per batch takes stage 1 alone, its one group storing the result. Up to
SINGLE_PASS_GROUPS partials per batch are folded in the same dispatch instead, by the last
group of the batch to finish (the single-pass stage, see
:func:`vkdispatch.reduce.stage.make_reduction_stage`; it counts finished groups in a small
counter buffer kept with the output). Stage 1 runs more than G groups where an invocation
would otherwise loop longer than drivers allow (see :mod:`vkdispatch.reduce.geometry`), and
batches beyond the device's workgroup count along y spread over z and further dispatches.
The output buffer holds the results first (flat positions ``[0, batches)``) and the partials
after them.
"""
from __future__ import annotations

import inspect
import math
import sys
import threading
import typing
from typing import List, Optional

import numpy as np

from vkdispatch import dtypes as dt
from vkdispatch.base.buffer import Buffer
from vkdispatch.base.context import get_context
from vkdispatch.base.device_info import is_cpu_device
from vkdispatch.errors import InvalidArgumentError, InvalidShaderArgumentError, InvalidTypeError
from vkdispatch.execution_pipeline.graphs import buffer_key, repeat_or_record
from vkdispatch.reduce.geometry import (batch_blocks, first_stage_groups, partial_slots,
                                        reduction_geometry)
from vkdispatch.reduce.operations import ReduceOp
from vkdispatch.reduce.stage import ReductionParams, make_reduction_stage
from vkdispatch.shader.mapping import MappingFunction

__all__ = ["ReduceFunction"]


# The most partials per batch folded in the first dispatch by its last group (the single pass)
# rather than by a second dispatch. H100, float32 sums: 256 groups (2^20 elements) 6.9 -> 6.2
# us (2^14-2^18 likewise 0.6 us faster), but 1024 groups (2^22) 12.1 -> 12.8 us: every group's
# memory barrier and atomic on the batch's counter then cost more than the dispatch saved.
SINGLE_PASS_GROUPS = 256

# CPU drivers run a group's invocations in SIMD batches with a switch at every barrier: small
# groups that loop longer won there (lavapipe, 2^22 floats: 1024 -> 0.3, 64 -> 0.72 GB/s).
CPU_GROUP_SIZE = 64


def _default_group_size(context) -> int:
    """The largest power-of-two workgroup (at most 1024) on GPUs, CPU_GROUP_SIZE on CPUs."""
    largest = 1 << (min(context.max_workgroup_size[0], 1024).bit_length() - 1)
    if any(is_cpu_device(info) for info in context.device_infos):
        return min(largest, CPU_GROUP_SIZE)
    return largest


class ReduceFunction:
    """A reduction of the elements produced by ``mapping_function`` (over the arguments'
    flat indices) with ``reduction``; calling it returns the output buffer (see the module
    text for its layout: ``out.read(0)[0]`` is the result of an unbatched reduction)."""

    def __init__(self, reduction: ReduceOp, group_size: int = None, axes: List[int] = None,
                 mapping_function: Optional[MappingFunction] = None):
        if mapping_function is None or mapping_function.return_type is None:
            raise InvalidArgumentError("a reduction needs a mapping function with a return "
                                       "type (annotate the function's return value)")
        self.reduction = reduction
        self.map_func = mapping_function
        self.out_type = mapping_function.return_type
        self.input_types = list(mapping_function.buffer_types)
        self.group_size = group_size
        self.axes = axes
        self.stage1 = self.stage2 = self.single_pass = None
        self._folds: dict = {}  # second stages sized for few partials, by group size
        self._spare: Buffer | None = None  # the last output made here (see _output)
        self._spare_lock = threading.Lock()
        self._geometries: dict = {}  # (shape, element type) of the first input -> _geometry

    def make_stages(self) -> None:
        if self.stage1 is not None:
            return
        context = get_context()
        if self.group_size is None:
            self.group_size = _default_group_size(context)
        size = self.group_size
        if isinstance(size, bool) or not isinstance(size, int) or size < 1 or size & (size - 1):
            raise InvalidArgumentError(f"group_size must be a power of two, got {size!r}")
        if size > context.max_workgroup_invocations:
            raise InvalidArgumentError(f"group_size: one workgroup reduces a group, and the "
                                       f"device runs at most {context.max_workgroup_invocations}"
                                       f" invocations per workgroup; got group_size={size}")
        subgroup = context.subgroup_size if context.subgroup_enabled else 1
        if size % subgroup:
            raise InvalidArgumentError(f"Group size must be a multiple of the sub-group size! "
                                       f"group_size must be a multiple of the device's "
                                       f"subgroup size, {subgroup}; got group_size={size}")
        self.stage1 = make_reduction_stage(self.reduction, self.out_type, size, False,
                                           self.map_func, self.input_types)
        self.stage2 = make_reduction_stage(self.reduction, self.out_type, size, True)

    def get_src(self, line_numbers=None) -> list:
        self.make_stages()
        return [self.stage1.get_src(line_numbers), self.stage2.get_src(line_numbers)]

    def print_src(self, line_numbers=None) -> None:
        for label, source in zip(("stage 1", "stage 2"), self.get_src(line_numbers)):
            print(f"// {label}\n{source}")

    def __repr__(self) -> str:
        return "\n".join(repr(source) for source in self.get_src())

    def __call__(self, *args, graph=None, out: Buffer | None = None, **kwargs) -> Buffer:
        if kwargs:
            raise InvalidShaderArgumentError(
                f"{self.reduction.name} reduction got an unexpected keyword argument "
                f"'{next(iter(kwargs))}' (it takes the mapping function's arguments, graph= "
                "and out=)")
        if not args or not hasattr(args[0], "shape"):
            raise InvalidArgumentError("a reduction needs its input buffer(s) as positional "
                                       "arguments; the first one decides the shape")
        if len(args) != len(self.input_types):  # was reported against the stage's arguments
            names = ", ".join(f"'{name}'" for name in _parameter_names(self.map_func))
            raise InvalidShaderArgumentError(
                f"{self.reduction.name} reduction takes {len(self.input_types)} argument(s), "
                f"the mapping function's {names}; got {len(args)}")
        self.make_stages()
        batches, size, shape = self._geometry(args[0])
        # The input's context, which the graph's must be: not the current one, which may differ.
        context = args[0].context if isinstance(args[0], Buffer) else get_context()
        if out is not None and any(out is arg for arg in args):
            # Its partials overwrite the input while other groups still read it.
            raise InvalidArgumentError("out: the output must be another buffer than the "
                                       "inputs (it holds partial results while they are read)")
        out = self._output(out, shape, context)
        # A script's repeat (the same buffers, the dropped output reused) submits the
        # recording again: the stages below are not traced through the shader layer again.
        repeat_or_record(graph, _repeat_key(self, out, args),
                         lambda: self._record(out, args, batches, size, context, graph))
        return out

    def _record(self, out: Buffer, args: tuple, batches: int, size: int, context,
                graph) -> None:
        """Records the stages that reduce ``batches`` rows of ``size`` elements of ``args``
        into ``out``."""
        group = self.group_size
        groups = first_stage_groups(size, group)
        blocks = batch_blocks(batches, *context.max_workgroup_count[1:])
        if groups == 1:  # one group per batch holds it all: its value is the result
            for first, rows, layers in blocks:
                self.stage1(out, *args, _params(first * size, size, first, 1, rows),
                            exec_size=(group, rows, layers), graph=graph)
            return
        if len(blocks) == 1 and groups <= min(SINGLE_PASS_GROUPS, group):
            # one group folds the partials, one per invocation; it finds its batch's counter
            # and result at workgroup y, so all batches must be one dispatch's rows
            self._single_pass()(out, _counter_of(out, batches), *args,
                                _params(0, size, batches, groups, batches),
                                exec_size=(groups * group, batches), graph=graph)
            return
        fold_size, fold = self._fold(groups, context)
        for first, rows, layers in blocks:
            partials = batches + first * groups
            self.stage1(out, *args, _params(first * size, size, partials, groups, rows),
                        exec_size=(groups * group, rows, layers), graph=graph)
            fold(out, _params(partials, groups, first, 1, rows),
                 exec_size=(fold_size, rows, layers), graph=graph)

    def _single_pass(self):
        """Stage 1 with stage 2's fold in its last group, traced on first use (like the folds
        below): a reduction that never needs it does not pay for tracing it."""
        if self.single_pass is None:
            self.single_pass = make_reduction_stage(self.reduction, self.out_type,
                                                    self.group_size, False, self.map_func,
                                                    self.input_types, single_pass=True)
        return self.single_pass

    def _fold(self, partials: int, context):
        """The second stage for ``partials`` values: a group just big enough (at least a
        subgroup of ``context``'s devices), so a few partials do not pay for a 1024-invocation
        tree."""
        floor = context.subgroup_size if context.subgroup_enabled else 1
        size = min(self.group_size, max(floor, 1 << (partials - 1).bit_length()))
        if size == self.group_size:
            return size, self.stage2
        if size not in self._folds:
            self._folds[size] = make_reduction_stage(self.reduction, self.out_type, size, True)
        return size, self._folds[size]

    def _geometry(self, first) -> tuple:
        """``(batches, size, output shape)`` of a reduction whose first input is ``first``;
        cached by its shape and element type (a script's repeated call would otherwise
        work them out each time, about a microsecond of its host time)."""
        key = (first.shape, getattr(first, "var_type", None))
        geometry = self._geometries.get(key)
        if geometry is None:
            batches, size = reduction_geometry(_shape_as(first, self.input_types[0]), self.axes)
            if size == 0:
                raise InvalidArgumentError("cannot reduce an empty input")
            # The output keeps 0.1.0's shape (one partial slot per group of G elements, at
            # most G, unless the loop bound needs more groups); the first stage runs fewer
            # groups, so each invocation has the unrolled loop's elements (H100, 2^20 floats:
            # one per invocation took 10.3 us, four 6.2).
            slots = partial_slots(size, self.group_size)
            shape = (slots + 1,) if batches == 1 else (slots + 1, batches)
            if len(self._geometries) >= 64:  # bounded: a script of ever new shapes
                self._geometries.clear()
            geometry = self._geometries[key] = (batches, size, shape)
        return geometry

    def _output(self, out: Buffer | None, shape: tuple, context) -> Buffer:
        if out is None:
            return self._new_output(shape, context)
        if not isinstance(out, Buffer):
            raise InvalidTypeError(f"out must be a vd.Buffer, got {type(out).__name__}")
        if out.var_type is not self.out_type:
            raise InvalidTypeError(f"out holds {out.var_type.name}; this reduction produces "
                                   f"{self.out_type.name}")
        if out.size < math.prod(shape):
            raise InvalidArgumentError(f"out holds {out.size} elements; this reduction needs "
                                       f"{math.prod(shape)} (results and partials, {shape})")
        return out


    def _new_output(self, shape: tuple, context) -> Buffer:
        """A buffer for the result: the last one made here when nothing else holds it any
        more (a script that reduces in a loop and keeps only the values read), else a new
        one. Allocating per call (and zeroing the single pass's counter kept with it) cost
        more than the reduction of a few thousand elements. Only this function's reference
        and the caller's local one remain when nobody holds it (CPython's reference count:
        a graph that recorded it, or a variable of the user's, holds one more)."""
        with self._spare_lock:
            spare, self._spare = self._spare, None
        if spare is None or spare.destroyed or spare.context is not context or \
                spare.shape != shape or sys.getrefcount(spare) > 2:
            with context:
                spare = Buffer(shape, self.out_type)
        with self._spare_lock:
            self._spare = spare
        return spare


_SCALARS = (int, float, bool, complex)


def _shape_as(buffer, annotation) -> tuple:
    """The shape of ``buffer`` counted in the elements its mapping parameter reads: a vec2
    buffer of 10 read as floats holds 20 (the reduction covered 10, half of them), a float32
    buffer of (N, 2) read as vec2 holds (N, 1) (it covered 2N, reading past the end)."""
    element = (typing.get_args(annotation) or (None,))[0]
    given = getattr(buffer, "var_type", None)
    if element is None or given is None or element is given or \
            element not in dt.all_dtypes():
        return buffer.shape
    have, read = given.item_size, element.item_size
    *outer, last = buffer.shape
    if (last * have) % read:
        raise InvalidArgumentError(f"a reduction reading {element.name} cannot cover a last "
                                   f"axis of {last} {given.name} ({last * have} bytes)")
    return (*outer, last * have // read)


def _parameter_names(mapping: MappingFunction) -> list[str]:
    """The mapping function's parameter names, for errors (``#i`` where it has none)."""
    try:
        names = list(inspect.signature(mapping.mapping_function).parameters)
    except (TypeError, ValueError):  # a callable without a signature
        names = []
    return [names[i] if i < len(names) else f"#{i}" for i in range(len(mapping.buffer_types))]


def _repeat_key(function, out: Buffer, args: tuple) -> tuple | None:
    """What a reduction's recording depends on beyond ``function`` and its context: the output
    and input buffers (see buffer_key) and the mapping function's other arguments (None, not
    repeated, where one is not a plain number)."""
    if all(a.__class__ is Buffer for a in args):  # most calls: no scalar arguments
        buffers_key = buffer_key((out, *args))
        return buffers_key and (function, buffers_key, ())
    buffers = tuple(a for a in args if isinstance(a, Buffer))
    values = tuple((position, type(a), a) for position, a in enumerate(args)
                   if not isinstance(a, Buffer))
    if any(kind not in _SCALARS for _position, kind, _value in values):
        return None
    buffers_key = buffer_key((out, *buffers))
    return buffers_key and (function, buffers_key, values)


def _params(input_offset: int, size: int, output_offset: int, output_batch_stride: int,
            rows: int) -> ReductionParams:
    """A stage's params for batches ``y + z * rows`` of ``size`` contiguous elements from
    ``input_offset``, each storing its groups' values ``output_batch_stride`` apart from
    ``output_offset``."""
    return ReductionParams(input_offset, size, 1, size, rows * size, output_offset, 1,
                           output_batch_stride, rows * output_batch_stride)


_counter_lock = threading.Lock()


def _counter_of(out: Buffer, batches: int) -> Buffer:
    """The zeroed uint32 per batch with which the single pass counts finished groups, kept
    with ``out`` (each dispatch leaves it zero again) and made again where it is too short."""
    with _counter_lock:
        counter = out.derived.get(_counter_of)
        if counter is None or counter.destroyed or counter.size < batches:
            with out.context:
                counter = out.derived[_counter_of] = Buffer((batches,), dt.uint32)
            counter.write(np.zeros(batches, np.uint32))
        return counter
