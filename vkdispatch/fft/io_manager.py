"""The FFT shader's signature and its loads/stores: plain buffers or user mapping hooks.

A shader's arguments are the output side, then the input side, then the kernel side. Each
side is an :class:`IOProxy`: nothing, one buffer of a dtype, or a ``vd.map`` whose arguments
become shader arguments and which runs once per element with :func:`read_op`/:func:`write_op`
set. Without input arguments the input side reads the output buffer (an in-place FFT).
"""
from __future__ import annotations

import inspect
import math

from vkdispatch import dtypes as dt
import vkdispatch.codegen as vc
from vkdispatch.errors import InvalidArgumentError
from vkdispatch.fft.caller_hooks import multiply
from vkdispatch.fft.iterators import (global_reads_iterator, global_writes_iterator,
                                      register_reads_iterator)
from vkdispatch.fft.memory_ops import current_op
from vkdispatch.fft.registers import FFTRegisters
from vkdispatch.shader.mapping import MappingFunction

__all__ = ["IOProxy", "IOManager", "plain_extent"]


class IOProxy:
    """One side of the signature: ``None`` (absent), a dtype (one ``Buffer[dtype]``) or a
    :class:`~vkdispatch.MappingFunction` (its argument list)."""

    def __init__(self, obj, name: str):
        self.name = name
        self.map_func = None
        self.buffer_types: list = []
        if isinstance(obj, MappingFunction):
            self.map_func = obj
            self.buffer_types = list(obj.buffer_types)
        elif isinstance(obj, type) and issubclass(obj, dt.dtype):
            self.buffer_types = [vc.Buffer[obj]]
        elif obj is not None:
            raise InvalidArgumentError(f"{name} must be None, a vkdispatch dtype or a vd.map "
                                       f"MappingFunction, got {obj!r}")
        self.variables: list = []
        self.position = 0  # of the side's first argument in the shader's signature

    @property
    def enabled(self) -> bool:
        return bool(self.buffer_types)

    def set_variables(self, variables: list) -> None:
        self.variables = list(variables)

    def labels(self, side: str):
        """``(position, text)`` per argument of this side, for errors: the map's parameter
        names, or the side's one buffer."""
        if self.map_func is None:
            return [(self.position, f"the {side} buffer")] if self.enabled else []
        try:
            names = list(inspect.signature(self.map_func.mapping_function).parameters)
        except (TypeError, ValueError):  # a callable without a signature
            names = []
        return [(self.position + i, f"{self.name}'s parameter '{names[i]}'" if i < len(names)
                 else f"{self.name}'s argument {i}") for i in range(len(self.buffer_types))]

    def has_callback(self) -> bool:
        return self.map_func is not None

    def do_callback(self) -> None:
        self.map_func.callback(*self.variables)


def plain_extent(shape: tuple, declared, r2c: bool) -> tuple[int, str]:
    """``(bytes, what)``: how much of a plain buffer of ``declared`` the transform of
    ``shape`` reads or writes (for ``r2c``, padded real rows or half spectra: 2 (N/2 + 1)
    scalars a row) and how an error names it."""
    if r2c:
        scalar = declared.item_size // 2 if dt.is_complex(declared) else declared.item_size
        half = shape[-1] // 2 + 1
        return (math.prod(shape[:-1]) * half * 2 * scalar,
                f"the real shape {shape} as rows of {half} complex bins")
    return math.prod(shape) * declared.item_size, f"the shape {shape} of {declared.name}"


_SIDES = ("output", "input", "kernel")


class IOManager:
    """Declares the shader's arguments from the three sides and moves registers through them.

    ``output_map`` without ``input_map`` needs ``input_type`` (the input buffer's type).
    """

    def __init__(self, default_registers: FFTRegisters, shader_context, output_map,
                 output_type=dt.complex64, input_type=None, input_map=None, kernel_map=None):
        self.default_registers = default_registers
        if output_map is not None and input_map is None and input_type is None:
            raise InvalidArgumentError("an output_map without an input_map needs input_type "
                                       "(the dtype of the input buffer argument)")
        self.output_proxy = IOProxy(output_map if output_map is not None else output_type,
                                    "output_map")
        input_side = input_map if input_map is not None else (
            input_type if output_map is not None else None)
        self.input_proxy = IOProxy(input_side, "input_map")
        self.kernel_proxy = IOProxy(kernel_map, "kernel_map")
        proxies = [self.output_proxy, self.input_proxy, self.kernel_proxy]
        types = [t for proxy in proxies for t in proxy.buffer_types]
        variables = shader_context.declare_input_arguments(types)
        position = 0
        for proxy in proxies:
            count = len(proxy.buffer_types)
            proxy.set_variables(variables[:count])
            proxy.position = position
            variables, position = variables[count:], position + count
        # position of a plain buffer argument -> (bytes the shader reads or writes, what)
        self.extents: dict[int, tuple[int, str]] = {}
        self.labels = {position: label for proxy, side in zip(proxies, _SIDES)
                       for position, label in proxy.labels(side)}
        if not self.input_proxy.enabled:
            self.input_proxy = self.output_proxy  # in place: read the output buffer

    def record_extent(self, proxy: IOProxy, shape: tuple, r2c: bool) -> None:
        """Notes how many bytes the plain buffer of ``proxy`` must hold: the shader indexes it
        by the planned shape alone, so a smaller buffer would be read past its end (garbage
        or zeros, no error) unless the call checks. Mapped sides index what the map says."""
        if proxy.has_callback() or not proxy.enabled:
            return
        needed, what = plain_extent(shape, proxy.buffer_types[0].__args__[0], r2c)
        known = self.extents.get(proxy.position)
        if known is None or known[0] < needed:
            self.extents[proxy.position] = (needed, what)

    def read_from_proxy(self, proxy: IOProxy, ops) -> None:
        self._through_proxy(proxy, ops, "read_from_buffer")

    def write_to_proxy(self, proxy: IOProxy, ops) -> None:
        self._through_proxy(proxy, ops, "write_to_buffer")

    @staticmethod
    def _through_proxy(proxy: IOProxy, ops, buffer_method: str) -> None:
        """Runs the proxy's map once per op (with the op current), or moves the element
        to/from its single buffer."""
        for op in ops:
            if proxy.has_callback():
                with current_op(op):
                    proxy.do_callback()
            else:
                getattr(op, buffer_method)(proxy.variables[0])

    def read_input(self, registers: FFTRegisters | None = None, r2c: bool = False,
                   inverse: bool = None, signal_range: tuple | None = None) -> None:
        """Loads the input side into the registers (stage-0 layout)."""
        registers = registers or self.default_registers
        proxy = self.input_proxy
        self.record_extent(proxy, registers.resources.config.buffer_shape, r2c)
        self.read_from_proxy(proxy, global_reads_iterator(registers, r2c=r2c, inverse=inverse,
                                                          signal_range=signal_range))

    def read_kernel(self, registers: FFTRegisters | None = None,
                    format_transposed: bool = False, inner_only: bool = False,
                    layout: tuple = (0, False)) -> None:
        """Applies the kernel side to the registers (first-stage layout, in place): the
        ``kernel_map`` once per register, or by default ``register *= conj(kernel[index])``
        from the kernel buffer at the signal's index (transposed, or without the outer batch,
        on request)."""
        registers = registers or self.default_registers
        proxy = self.kernel_proxy
        ops = register_reads_iterator(registers, format_transposed, inner_only, layout)
        if proxy.has_callback():
            self.read_from_proxy(proxy, ops)
            return
        (kernel,) = proxy.variables
        for op in ops:
            multiply(op.register, kernel[op.io_index], conjugate=True)

    def write_output(self, registers: FFTRegisters | None = None, r2c: bool = False,
                     inverse: bool = None, layout: tuple = (-1, True)) -> None:
        """Stores the registers (held in ``layout``, by default the last stage's output
        positions) through the output side."""
        registers = registers or self.default_registers
        self.record_extent(self.output_proxy, registers.resources.config.buffer_shape, r2c)
        self.write_to_proxy(self.output_proxy, global_writes_iterator(
            registers, r2c=r2c, inverse=inverse, layout=layout))
