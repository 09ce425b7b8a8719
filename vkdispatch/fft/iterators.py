"""Iterators over the elements a thread moves between its registers and memory.

Each yields one op per register, in a fixed order, while the shader code for its guards is
open: the memory iterators give line positions (shared memory and the basis of the rest);
the global ones also set the shared ``io_index`` temporary to the element's buffer index
before yielding.
"""
from __future__ import annotations

import contextlib
import math
from typing import Iterator

import vkdispatch.codegen as vc
from vkdispatch.errors import InvalidArgumentError
from vkdispatch.fft.config import FFTStage
from vkdispatch.fft.layout import input_position, output_base, output_position
from vkdispatch.fft.memory_ops import (GlobalReadOp, GlobalTransposedWriteOp, GlobalWriteOp,
                                       MemoryOp)
from vkdispatch.fft.registers import FFTRegisters
from vkdispatch.fft.resources import FFTResources

__all__ = ["memory_reads_iterator", "memory_writes_iterator", "global_reads_iterator",
           "global_writes_iterator", "staged_elements", "register_reads_iterator",
           "global_trasposed_write_iterator", "global_transposed_write_iterator"]


def _identity_stage() -> FFTStage:
    """Length 1: one register holding position 0."""
    return FFTStage(1, (), 1, 1, 1, 1)


def _memory_ops(resources: FFTResources, stage_index: int, output: bool) -> Iterator[MemoryOp]:
    stages = resources.config.stages
    stage = stages[stage_index] if stages else _identity_stage()
    registers = resources.config.register_count
    for instance in range(stage.instance_count):
        with resources.instance_guard(stage, instance):
            j = resources.butterfly_index(stage, instance)
            base = output_base(stage, j) if output else None
            if output and not isinstance(base, int) and stage.input_stride not in (
                    1, stage.butterflies):
                base = base.to_register()
            for element in range(stage.radix):
                index = (output_position(stage, base, element) if output
                         else input_position(stage, j, element))
                yield MemoryOp(fft_offset=j, fft_stride=stage.butterflies if not output
                               else stage.input_stride, fft_index=index,
                               fft_size=resources.config.N,
                               register_id=instance * stage.radix + element,
                               register_count=registers, element_id=element,
                               element_count=stage.radix, instance_id=instance,
                               instance_count=stage.instance_count)


def memory_reads_iterator(resources: FFTResources, stage_index: int = 0) -> Iterator[MemoryOp]:
    """The positions ``stage_index`` loads into each register (natural input layout)."""
    return _memory_ops(resources, stage_index, output=False)


def memory_writes_iterator(resources: FFTResources,
                           stage_index: int = -1) -> Iterator[MemoryOp]:
    """The positions each register holds after ``stage_index``."""
    return _memory_ops(resources, stage_index, output=True)


def _fields(op: MemoryOp) -> dict:
    return {name: getattr(op, name) for name in MemoryOp.__dataclass_fields__}


def _row_index(line, position, pitch: int):
    """Buffer index of ``position`` of contiguous line ``line`` in rows of ``pitch``."""
    start = line if pitch == 1 else line * pitch
    return start + position


def _index_function(resources: FFTResources, r2c: bool, inverse: bool, reading: bool):
    """``(line, position) -> buffer index`` for the transform's layout: rows of N (C2C),
    padded real rows of ``2 (N/2 + 1)`` scalars, or half spectra of ``N/2 + 1`` bins."""
    config = resources.config
    half = config.N // 2 + 1
    if r2c:
        pitch = 2 * half if reading != bool(inverse) else half
        return lambda line, position: _row_index(line, position, pitch)
    if resources.grid.contiguous:
        pitch = resources.row_pitch
        return lambda line, position: _row_index(line, position, pitch)
    stride = config.fft_stride
    return lambda _line, position: resources.input_batch_offset + position * stride


def staged_elements(resources: FFTResources, row_length: int | None = None,
                    clamp_lines: bool = False) -> Iterator[tuple]:
    """The group's lines one after the other: ``(line, slot, position)`` per element this
    invocation moves (``row_length`` positions per line, default N), with the guards for
    partial rounds and lines open. ``line`` is the line's index in a contiguous group, its
    column (index in the stride) in a strided one.

    ``clamp_lines`` (loads): the last group's missing lines read the last line again instead
    of being guarded. A guard per element serialises the loads (each one's shared-memory
    store waits for it before the next load issues): lengths whose line count left a partial
    group ran at 0.5-0.8 of those without one. The duplicated rows are never stored."""
    grid, config = resources.grid, resources.config
    row_length = row_length or config.N
    invocations = math.prod(grid.local_size)
    total = grid.group_lines * row_length
    if grid.contiguous:
        first, line_count = grid.group * grid.lines_per_group, config.line_count
    else:
        first, line_count = (grid.inner - grid.lane).to_register(), config.fft_stride
    local = vc.local_invocation_index()
    for round_index in range(-(-total // invocations)):
        element = local if round_index == 0 else local + round_index * invocations
        element = element.to_register()
        with contextlib.ExitStack() as guards:
            if (round_index + 1) * invocations > total:
                guards.enter_context(vc.if_block(element < total))
            slot = (element // row_length).to_register()
            position = (element % row_length).to_register()
            line = first + slot
            if grid.partial and clamp_lines:
                line = vc.min(line, line_count - 1)
            line = line.to_register()
            if grid.partial and not clamp_lines:
                guards.enter_context(vc.if_block(line < line_count))
            yield line, slot, position


def _staged_op(op_class, resources, config, register, position, **extra):
    return op_class(fft_offset=position, fft_stride=config.N, fft_index=position,
                    fft_size=config.N, register_id=0, register_count=1, element_id=0,
                    element_count=1, instance_id=0, instance_count=1, register=register,
                    io_index=resources.io_index, **extra)


def global_reads_iterator(registers: FFTRegisters, r2c: bool = False, inverse: bool = None,
                          format_transposed: bool = False, inner_only: bool = False,
                          signal_range: tuple | None = None) -> Iterator[GlobalReadOp]:
    """Loads of the first stage's inputs from global memory, one op per register (per
    element of the group in address order when the grid is ``staged``)."""
    if r2c and inverse is None:
        raise InvalidArgumentError("global_reads_iterator(r2c=True) needs inverse=True/False")
    if r2c and format_transposed:
        raise InvalidArgumentError("R2C reads cannot use the transposed kernel format")
    resources = registers.resources
    config = resources.config
    start, end = signal_range or (0, config.N)
    extra = dict(io_index_2=resources.io_index_2, r2c=r2c, inverse=bool(inverse),
                 format_transposed=format_transposed,
                 signal_range=(start or 0, config.N if end is None else end))
    index_of = _index_function(resources, r2c, inverse, reading=True)
    mirror_of = (lambda line: line * (2 * (config.N // 2 + 1)) + config.N) \
        if r2c and inverse else (lambda line: None)
    if format_transposed or inner_only:
        yield from register_reads_iterator(registers, format_transposed, inner_only)
        return
    if resources.grid.staged:
        yield from _staged_reads(registers, index_of, mirror_of, extra)
        return
    with resources.line_guard():
        for op in memory_reads_iterator(resources, 0):
            resources.io_index[:] = index_of(resources.grid.line, op.fft_index)
            yield GlobalReadOp(**_fields(op), register=registers[op.register_id],
                               io_index=resources.io_index,
                               r2c_inverse_offset=mirror_of(resources.grid.line), **extra)


def _kernel_index(resources: FFTResources, op: MemoryOp, format_transposed: bool,
                  inner_only: bool):
    """The element's index in a kernel buffer: the signal's own index, the transposed
    (consumption-order) one, or without the outer batch (``inner_only``)."""
    grid, config = resources.grid, resources.config
    if format_transposed:
        return grid.transposed_index(op.register_id, config.register_count, inner_only)
    if not inner_only:
        return _index_function(resources, False, False, reading=True)(grid.line, op.fft_index)
    if grid.contiguous:
        return op.fft_index
    return grid.inner + op.fft_index * config.fft_stride


def register_reads_iterator(registers: FFTRegisters, format_transposed: bool = False,
                            inner_only: bool = False,
                            layout: tuple = (0, False)) -> Iterator[GlobalReadOp]:
    """One load op per register of ``layout`` (``(stage, output)``: by default the first
    stage's input positions), the op's ``register`` being the register itself (never
    staged): for hooks that update registers in place, such as convolution kernels."""
    resources = registers.resources
    config = resources.config
    with resources.line_guard():
        for op in _memory_ops(resources, *layout):
            resources.io_index[:] = _kernel_index(resources, op, format_transposed, inner_only)
            yield GlobalReadOp(**_fields(op), register=registers[op.register_id],
                               io_index=resources.io_index, io_index_2=resources.io_index_2,
                               format_transposed=format_transposed,
                               signal_range=(0, config.N))


def global_trasposed_write_iterator(registers: FFTRegisters, inner_only: bool = False,
                                    layout: tuple = (0, False)
                                    ) -> Iterator[GlobalTransposedWriteOp]:
    """Stores of every register (first-stage input layout) at its transposed index (vkdispatch
    0.1.0's spelling; also ``global_transposed_write_iterator``). With ``inner_only``
    only the invocations of the first outer batch store (one kernel for every batch)."""
    resources = registers.resources
    grid = resources.grid
    with contextlib.ExitStack() as guards:
        if inner_only and not grid.contiguous:
            guards.enter_context(vc.if_block(grid.group < grid.inner_groups))
        elif inner_only:
            guards.enter_context(vc.if_block(grid.line == 0))
        for op in _memory_ops(resources, *layout):
            resources.io_index[:] = _kernel_index(resources, op, True, inner_only)
            yield GlobalTransposedWriteOp(**_fields(op), register=registers[op.register_id],
                                          io_index=resources.io_index)


global_transposed_write_iterator = global_trasposed_write_iterator


def _staged_reads(registers: FFTRegisters, index_of, mirror_of, extra: dict):
    resources = registers.resources
    config, grid, sdata = resources.config, resources.grid, resources.sdata
    staging = vc.new_register(config.compute_type)  # one per pass: several may follow
    sdata.sync("write")
    for line, slot, position in staged_elements(resources, clamp_lines=True):
        resources.io_index[:] = index_of(line, position)
        yield _staged_op(GlobalReadOp, resources, config, staging, position,
                         r2c_inverse_offset=mirror_of(line), **extra)
        sdata.sdata[grid.sdata_index(position, slot)] = staging
    sdata.read_from_sdata(registers, 0)


def _staged_writes(registers: FFTRegisters, layout: tuple, index_of, extra: dict):
    """The group's stores one line after the other, through shared memory: a contiguous
    group's lines are padded rows there (``grid.sdata_index``), a strided group's rows of
    ``grid.row_pitch`` (``grid.row_index``; the interleaved exchange layout would put a
    subgroup reading one line on two banks), its buffer index the line's column plus the
    position's stride."""
    resources = registers.resources
    config, grid, sdata = resources.config, resources.grid, resources.sdata
    index_in_sdata = grid.sdata_index if grid.contiguous else grid.row_index
    if not grid.contiguous:
        outer_offset = (grid.batch_offset - grid.inner).to_register()
        index_of = lambda line, position: outer_offset + line + position * config.fft_stride
    sdata.write_to_sdata(registers, *layout, index_of=index_in_sdata)
    staging = vc.new_register(config.compute_type)
    sdata.sync("read")
    for line, slot, position in staged_elements(resources):
        staging[:] = sdata.sdata[index_in_sdata(position, slot)]
        resources.io_index[:] = index_of(line, position)
        yield _staged_op(GlobalWriteOp, resources, config, staging, position, **extra)


def global_writes_iterator(registers: FFTRegisters, r2c: bool = False, inverse: bool = None,
                           layout: tuple = (-1, True)) -> Iterator[GlobalWriteOp]:
    """Stores of the registers held in ``layout`` (by default the last stage's outputs), one
    op per register (per element of the group in address order when the grid is
    ``staged``)."""
    if r2c and inverse is None:
        raise InvalidArgumentError("global_writes_iterator(r2c=True) needs inverse=True/False")
    resources = registers.resources
    config = resources.config
    index_of = _index_function(resources, r2c, inverse, reading=False)
    extra = dict(r2c=r2c, inverse=bool(inverse))
    grid = resources.grid
    if grid.staged or grid.staged_stores:
        yield from _staged_writes(registers, layout, index_of, extra)
        return
    with resources.line_guard():
        for op in _memory_ops(resources, *layout):
            resources.io_index[:] = index_of(resources.grid.line, op.fft_index)
            yield GlobalWriteOp(**_fields(op), register=registers[op.register_id],
                                io_index=resources.io_index, **extra)
