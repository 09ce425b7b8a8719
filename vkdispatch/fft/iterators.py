"""Iterators over the elements a thread moves between its registers and memory.

Each yields one op per register, in a fixed order, while the shader code for its guards is
open: the memory iterators give line positions (shared memory and the basis of the rest);
the global ones also set the shared ``io_index`` temporary to the element's buffer index
before yielding.
"""
from __future__ import annotations

from typing import Iterator

from vkdispatch.errors import InvalidArgumentError
from vkdispatch.fft.config import FFTStage
from vkdispatch.fft.layout import input_position, output_base, output_position
from vkdispatch.fft.memory_ops import GlobalReadOp, GlobalWriteOp, MemoryOp
from vkdispatch.fft.registers import FFTRegisters
from vkdispatch.fft.resources import FFTResources

__all__ = ["memory_reads_iterator", "memory_writes_iterator", "global_reads_iterator",
           "global_writes_iterator"]


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


def _line_index(resources: FFTResources, op: MemoryOp, pitch: int):
    """Buffer index of ``op`` in a row layout of ``pitch`` elements per line (R2C rows)."""
    line = resources.grid.line
    start = line if pitch == 1 else line * pitch
    return start + op.fft_index


def _default_index(resources: FFTResources, op: MemoryOp):
    stride = resources.config.fft_stride
    position = op.fft_index if stride == 1 else op.fft_index * stride
    return resources.input_batch_offset + position


def global_reads_iterator(registers: FFTRegisters, r2c: bool = False, inverse: bool = None,
                          format_transposed: bool = False, inner_only: bool = False,
                          signal_range: tuple | None = None) -> Iterator[GlobalReadOp]:
    """Loads of the first stage's inputs from global memory, one op per register."""
    if r2c and inverse is None:
        raise InvalidArgumentError("global_reads_iterator(r2c=True) needs inverse=True/False")
    if r2c and format_transposed:
        raise InvalidArgumentError("R2C reads cannot use the transposed kernel format")
    resources = registers.resources
    config = resources.config
    start, end = signal_range or (0, config.N)
    signal = (start or 0, config.N if end is None else end)
    half = config.N // 2 + 1
    with resources.line_guard():
        for op in memory_reads_iterator(resources, 0):
            if r2c and not inverse:
                index = _line_index(resources, op, 2 * half)
            elif r2c:
                index = _line_index(resources, op, half)
            else:
                index = _default_index(resources, op)
            resources.io_index[:] = index
            mirror = None
            if r2c and inverse:
                mirror = resources.grid.line * (2 * half) + config.N
            yield GlobalReadOp(**_fields(op), register=registers[op.register_id],
                               io_index=resources.io_index, io_index_2=resources.io_index_2,
                               r2c=r2c, inverse=bool(inverse), r2c_inverse_offset=mirror,
                               format_transposed=format_transposed, signal_range=signal)


def global_writes_iterator(registers: FFTRegisters, r2c: bool = False,
                           inverse: bool = None) -> Iterator[GlobalWriteOp]:
    """Stores of the last stage's outputs (natural frequency order), one op per register."""
    if r2c and inverse is None:
        raise InvalidArgumentError("global_writes_iterator(r2c=True) needs inverse=True/False")
    resources = registers.resources
    half = resources.config.N // 2 + 1
    with resources.line_guard():
        for op in memory_writes_iterator(resources, -1):
            if r2c and not inverse:
                index = _line_index(resources, op, half)
            elif r2c:
                index = _line_index(resources, op, 2 * half)
            else:
                index = _default_index(resources, op)
            resources.io_index[:] = index
            yield GlobalWriteOp(**_fields(op), register=registers[op.register_id],
                                io_index=resources.io_index, r2c=r2c, inverse=bool(inverse))
