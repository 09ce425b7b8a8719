"""FFTRegisters: the complex registers that hold a thread's share of an FFT line."""
from __future__ import annotations

from vkdispatch.codegen.variables import ShaderVariable
import vkdispatch.codegen as vc
from vkdispatch.errors import InvalidArgumentError
from vkdispatch.fft.layout import register_positions
from vkdispatch.fft.resources import FFTResources

__all__ = ["FFTRegisters"]


class FFTRegisters:
    """``count`` registers of the compute type named ``{name}_reg_{i}``.

    Register ``i * r + m`` of stage ``s`` (radix ``r``) holds element ``m`` of the thread's
    butterfly instance ``i``. With one thread per line, stages hand over by reordering this
    list at trace time, so the order of ``registers`` is the order of the data.
    """

    def __init__(self, resources: FFTResources, count: int, name: str):
        if name is None:
            raise InvalidArgumentError("FFTRegisters need a name (name=None given)")
        self.resources = resources
        self.config = resources.config
        self.name = name
        compute_type = self.config.compute_type
        self.registers = [vc.new_register(compute_type, var_name=f"{name}_reg_{i}")
                          for i in range(count)]

    def __len__(self) -> int:
        return len(self.registers)

    def __iter__(self):
        return iter(self.registers)

    def __getitem__(self, index):
        return self.registers[index]

    def __setitem__(self, index: int, value) -> None:
        self.registers[index][:] = value

    def clear(self) -> None:
        for register in self.registers:
            register[:] = 0

    def register_slice(self, selection: slice) -> list[ShaderVariable]:
        return self.registers[selection]

    def slice_set(self, selection: slice, values: list) -> None:
        for register, value in zip(self.registers[selection], values, strict=True):
            register[:] = value

    def normalize(self) -> None:
        """Divides every register by N (the inverse transform's normalisation)."""
        scale = 1.0 / self.config.N
        for register in self.registers:
            product = register * scale  # float32 arithmetic for half-precision registers
            register[:] = vc.cast_to(register.var_type, product)

    def read_from_registers(self, other: "FFTRegisters") -> None:
        """Copies ``other`` into these registers (same count)."""
        if len(other) != len(self):
            raise InvalidArgumentError(f"cannot copy {len(other)} registers into {len(self)}")
        for mine, theirs in zip(self.registers, other.registers):
            mine[:] = theirs

    def try_shuffle(self, output_stage: int = -1, input_stage: int = 0) -> bool:
        """Reorders the registers from ``output_stage``'s output layout to ``input_stage``'s
        input layout when no data crosses threads (one thread per line); returns whether it
        could."""
        return self.try_relayout((output_stage, True), (input_stage, False))

    def try_relayout(self, source: tuple, target: tuple) -> bool:
        """Reorders the registers from layout ``source`` to ``target`` (``(stage, output)``
        pairs) when one thread owns the line; returns whether it could."""
        if not isinstance(self.resources.tid, int):
            return False
        stages = self.config.stages
        if not stages:
            return True
        held = register_positions(stages[source[0]], 0, output=source[1])
        wanted = register_positions(stages[target[0]], 0, output=target[1])
        by_position = dict(zip(held, self.registers))
        self.registers[:len(wanted)] = [by_position[p] for p in wanted]
        return True
