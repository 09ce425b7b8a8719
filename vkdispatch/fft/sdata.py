"""FFTSDataManager: stage hand-over through workgroup shared memory.

Each stage writes its outputs at their line positions and the next stage reads its inputs;
a barrier separates every change of direction (write -> read, read -> write), so a group
never reads a slot before it is written or overwrites one still being read.
"""
from __future__ import annotations

import vkdispatch.codegen as vc
from vkdispatch.fft.config import FFTConfig
from vkdispatch.fft.grid import FFTGridManager
from vkdispatch.fft.iterators import memory_reads_iterator, memory_writes_iterator
from vkdispatch.fft.registers import FFTRegisters

__all__ = ["FFTSDataManager"]


class FFTSDataManager:
    """Owns the group's ``sdata`` array (declared by the grid) and its barrier state."""

    def __init__(self, config: FFTConfig, grid: FFTGridManager,
                 default_registers: FFTRegisters | None):
        self.config = config
        self.grid = grid
        self.default_registers = default_registers
        self.sdata = grid.sdata
        self._last_access = None  # "read" or "write": decides the next barrier

    def sync(self, access: str) -> None:
        """Emits a barrier when ``access`` ("read"/"write") changes direction."""
        if self._last_access not in (None, access):
            # GLSL's compute barrier() also orders shared memory (glslang emits
            # OpControlBarrier with WorkgroupMemory semantics); memoryBarrierShared() on top
            # would be a second full barrier on CPU drivers.
            vc.barrier()
        self._last_access = access

    def exchange(self, registers: FFTRegisters, output_stage: int, input_stage: int) -> None:
        """Moves the registers from ``output_stage``'s output layout to ``input_stage``'s
        input layout."""
        self.relayout(registers, (output_stage, True), (input_stage, False))

    def relayout(self, registers: FFTRegisters, source: tuple, target: tuple) -> None:
        """Moves the registers from layout ``source`` to layout ``target``, each a
        ``(stage index, output)`` pair (the stage's output positions, or its input ones);
        with a split exchange, the real parts first, then the imaginary ones (a register's
        imaginary part is still the old one while the real parts travel)."""
        if not self.grid.split:
            self.write_to_sdata(registers, *source)
            self.read_from_sdata(registers, *target)
            return
        for component in ("real", "imag"):
            self.sync("write")
            for register, position in self._positions(registers, *source):
                self.sdata[self.grid.sdata_index(position)] = getattr(register, component)
            self.sync("read")
            for register, position in self._positions(registers, *target):
                setattr(register, component, self.sdata[self.grid.sdata_index(position)])

    def write_to_sdata(self, registers: FFTRegisters | None = None,
                       stage_index: int = -1, output: bool = True, index_of=None) -> None:
        """Stores the registers at ``stage_index``'s output (or input) positions, each at
        ``index_of(position)`` (by default the exchange layout's ``grid.sdata_index``)."""
        registers = registers or self.default_registers
        index_of = index_of or self.grid.sdata_index
        self.sync("write")
        for register, position in self._positions(registers, stage_index, output):
            self.sdata[index_of(position)] = register

    def read_from_sdata(self, registers: FFTRegisters | None = None,
                        stage_index: int = 0, output: bool = False) -> None:
        """Loads the registers from ``stage_index``'s input (or output) positions."""
        registers = registers or self.default_registers
        self.sync("read")
        for register, position in self._positions(registers, stage_index, output):
            register[:] = self.sdata[self.grid.sdata_index(position)]

    @staticmethod
    def _positions(registers: FFTRegisters, stage_index: int, output: bool):
        """``(register, line position)`` pairs of a stage's layout, with its guards open."""
        iterate = memory_writes_iterator if output else memory_reads_iterator
        for op in iterate(registers.resources, stage_index):
            yield registers[op.register_id], op.fft_index
