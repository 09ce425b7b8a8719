"""The procedural FFT builder: ``with vd.fft.fft_context(shape, axis) as ctx: ...``.

Everything the high-level transforms generate goes through this API: declare the signature
(or an :class:`IOManager`), load registers, :meth:`FFTContext.execute` the stages, store.
"""
from __future__ import annotations

import contextlib
from typing import Iterator, Optional, Tuple

from vkdispatch import dtypes as dt
import vkdispatch.codegen as vc
from vkdispatch.errors import InvalidArgumentError, InvalidStateError
from vkdispatch.fft.butterflies import multiply_by_constant_twiddle, radix_fft, runtime_twiddle
from vkdispatch.fft.config import DeviceLimits, FFTConfig, FFTStage
from vkdispatch.fft.grid import FFTGridManager, StridedGroups
from vkdispatch.fft.io_manager import IOManager
from vkdispatch.fft.iterators import global_reads_iterator, global_writes_iterator
from vkdispatch.fft.registers import FFTRegisters
from vkdispatch.fft.resources import FFTResources
from vkdispatch.fft.sdata import FFTSDataManager
from vkdispatch.shader.shader_function import ShaderFunction, make_shader_function

__all__ = ["FFTContext", "fft_context"]


class FFTContext:
    """One FFT shader being traced (see :func:`fft_context`).

    Attributes: ``shader_context``, ``config``, ``grid``, ``resources``, ``registers`` (the
    default set, named "fft"), ``sdata``, ``name``, ``fft_callable`` (after the block).
    """

    def __init__(self, shader_context, buffer_shape: Tuple, axis: Optional[int] = None,
                 max_register_count: Optional[int] = None, compute_type=dt.complex64,
                 name: Optional[str] = None, limits: DeviceLimits | None = None,
                 force_sdata: bool = False, split_above_bytes: Optional[int] = None,
                 plane_rows: Optional[int] = None, strided: Optional[StridedGroups] = None):
        self.shader_context = shader_context
        self.config = FFTConfig(buffer_shape, axis, max_register_count, compute_type, limits,
                                split_above_bytes, plane_rows)
        self.grid = FFTGridManager(self.config, force_sdata, strided=strided)
        self.resources = FFTResources(self.config, self.grid)
        self.registers = self.allocate_registers("fft")
        self.sdata = FFTSDataManager(self.config, self.grid, self.registers)
        self.resources.sdata = self.sdata  # the staged global iterators exchange through it
        self.name = name or f"fft_shader_{tuple(buffer_shape)}_{self.config.axis}"
        self.fft_callable: ShaderFunction | None = None
        self.declared_shader_args = None
        self.declarer = None
        self.io: IOManager | None = None

    def allocate_registers(self, name: str, count: Optional[int] = None) -> FFTRegisters:
        """A new register set (``register_count`` registers by default)."""
        if name is None:
            raise InvalidArgumentError("allocate_registers needs a name (got None)")
        return FFTRegisters(self.resources, count or self.config.register_count, name)

    def _declare_once(self, what: str) -> None:
        if self.declarer is not None:
            raise InvalidStateError(f"the shader's arguments were already declared by "
                                    f"{self.declarer}; {what} cannot declare them again")
        self.declarer = what

    def declare_shader_args(self, types: list) -> list:
        """Declares the shader's signature; returns the argument variables (once only)."""
        self._declare_once("declare_shader_args")
        self.declared_shader_args = self.shader_context.declare_input_arguments(list(types))
        return self.declared_shader_args

    def make_io_manager(self, output_map, output_type=dt.complex64, input_type=None,
                        input_map=None, kernel_map=None) -> IOManager:
        """Declares the signature from the output/input/kernel sides (once only)."""
        self._declare_once("make_io_manager")
        self.io = IOManager(self.registers, self.shader_context, output_map, output_type,
                            input_type, input_map, kernel_map)
        return self.io

    def reads_iter(self, r2c: bool = False, inverse: bool = None,
                   format_transposed: bool = False, inner_only: bool = False,
                   signal_range=None):
        return global_reads_iterator(self.registers, r2c, inverse, format_transposed,
                                     inner_only, signal_range)

    def writes_iter(self, r2c: bool = False, inverse: bool = None):
        return global_writes_iterator(self.registers, r2c, inverse)

    def register_shuffle(self, registers: FFTRegisters | None = None, output_stage: int = -1,
                         input_stage: int = 0):
        """Moves the data from ``output_stage``'s output layout to ``input_stage``'s input
        layout: ``True`` when renaming registers sufficed, else through shared memory."""
        return self.relayout(registers, (output_stage, True), (input_stage, False))

    def relayout(self, registers: FFTRegisters | None, source: tuple, target: tuple):
        """Moves the data between layouts (``(stage index, output)`` pairs)."""
        registers = registers or self.registers
        if registers.try_relayout(source, target):
            return True
        self.sdata.relayout(registers, source, target)
        return None

    def execute(self, inverse: bool) -> None:
        """Emits every stage on ``registers`` (stage-0 input layout in, natural order out)."""
        sign = 1 if inverse else -1
        for index, stage in enumerate(self.config.stages):
            if index > 0:
                self.register_shuffle(self.registers, index - 1, index)
            for instance in range(stage.instance_count):
                with self.resources.instance_guard(stage, instance):
                    self._butterfly(stage, instance, sign)

    def execute_adjoint(self) -> None:
        """The stages of :meth:`execute` backwards, each replaced by its adjoint: ``N`` times
        the inverse transform, taking the registers in the forward transform's *output*
        layout and leaving them in its first stage's input layout. So a forward transform,
        a pointwise product and this need no exchange between the two transforms."""
        stages = self.config.stages
        for index in reversed(range(len(stages))):
            stage = stages[index]
            if index < len(stages) - 1:
                self.relayout(self.registers, (index + 1, False), (index, True))
            for instance in range(stage.instance_count):
                with self.resources.instance_guard(stage, instance):
                    first = instance * stage.radix
                    values = radix_fft(list(self.registers[first:first + stage.radix]),
                                       stage.primes, 1)
                    if stage.twiddle_period > 1:
                        values = self._twiddle(stage, instance, values, 1)
                    for register, value in zip(self.registers[first:first + stage.radix],
                                               values):
                        register[:] = value

    def _butterfly(self, stage: FFTStage, instance: int, sign: int) -> None:
        first = instance * stage.radix
        values = list(self.registers[first:first + stage.radix])
        if stage.twiddle_period > 1:
            values = self._twiddle(stage, instance, values, sign)
        for register, value in zip(self.registers[first:first + stage.radix],
                                   radix_fft(values, stage.primes, sign)):
            register[:] = value

    def _twiddle(self, stage: FFTStage, instance: int, values: list, sign: int) -> list:
        """Multiplies input ``m`` by ``W_{L r}^{m k}``, ``k = (j mod S) // I`` for the input
        stride ``S``, ``I`` interleaved transforms (1 but in planes) and ``L = S / I``."""
        j = self.resources.butterfly_index(stage, instance)
        stride, period = stage.input_stride, stage.twiddle_period
        unit = sign * 2 * 3.141592653589793 / (period * stage.radix)
        if isinstance(j, int):
            k = (j % stride) // stage.interleaved
            return [values[0]] + [multiply_by_constant_twiddle(values[m], unit * m * k)
                                  for m in range(1, stage.radix)]
        k = j % stride
        k = (k if stage.interleaved == 1 else k // stage.interleaved).to_register()
        ct = self.config.compute_type
        powers: dict[int, object] = {}
        twiddled = [values[0]]
        for m in range(1, stage.radix):
            if ct is dt.complex128 and m > 1:
                # Double twiddles are Taylor polynomials (GLSL has no double sin/cos), about
                # 40 double operations each: w^m is w^(m//2) w^(m - m//2) instead, an error of
                # one rounding per level (at most 4 levels for radix 16). Single precision
                # keeps a sin / cos per twiddle: there the products carry the hardware sine's
                # error of w times m, and on an H200 they raised the error against numpy from
                # 3e-7 to 1e-6 (N = 1024) and 2e-6 (N = 4096) for 2% of speed.
                w = vc.mult_complex(powers[m // 2], powers[m - m // 2]).to_register()
            else:
                w = runtime_twiddle(ct, k, m, period * stage.radix, sign)
            powers[m] = w
            twiddled.append(vc.mult_complex(values[m], w))
        return twiddled

    def compile_shader(self) -> None:
        description = self.shader_context.get_description(self.name)
        self.fft_callable = make_shader_function(description, local_size=self.grid.local_size,
                                                 workgroups=self.grid.workgroups)
        if self.io is not None:
            self.fft_callable.require_buffer_bytes(self.io.extents)
            self.fft_callable.label_arguments(self.io.labels)

    def get_callable(self) -> ShaderFunction:
        if self.fft_callable is None:
            raise InvalidStateError("the FFT shader is built when its fft_context block ends")
        return self.fft_callable


@contextlib.contextmanager
def fft_context(buffer_shape: Tuple, axis: Optional[int] = None,
                max_register_count: Optional[int] = None, compute_type=dt.complex64,
                name: Optional[str] = None, limits: DeviceLimits | None = None,
                force_sdata: bool = False,
                split_above_bytes: Optional[int] = None,
                plane_rows: Optional[int] = None,
                strided: Optional[StridedGroups] = None) -> Iterator[FFTContext]:
    """Traces a hand-written FFT shader; on a normal exit ``ctx.get_callable()`` returns it.

    ``force_sdata`` declares the group's shared memory even when the transform itself needs
    none (for custom exchanges through ``ctx.sdata``); ``split_above_bytes`` and
    ``plane_rows``: see :class:`FFTConfig`; ``strided``: see :class:`StridedGroups`."""
    with vc.shader_context(vc.ShaderFlags.NO_EXEC_BOUNDS) as shader_context:
        context = FFTContext(shader_context, buffer_shape, axis, max_register_count,
                             compute_type, name, limits, force_sdata, split_above_bytes,
                             plane_rows, strided)
        yield context
        context.compile_shader()
