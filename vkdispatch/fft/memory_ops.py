"""One element moved between an FFT register and memory, as seen by mapping hooks.

While an ``input_map``/``kernel_map`` runs, :func:`read_op` returns the :class:`GlobalReadOp`
of the element being loaded; while an ``output_map`` runs, :func:`write_op` returns the
:class:`GlobalWriteOp` being stored. Hooks run once per register, unrolled at trace time.
"""
from __future__ import annotations

import contextlib
import dataclasses
import threading
from typing import Any, Iterator, Optional, Tuple

from vkdispatch import dtypes as dt
import vkdispatch.codegen as vc
from vkdispatch.codegen.variables import ShaderVariable
from vkdispatch.errors import InvalidArgumentError, InvalidStateError

__all__ = ["MemoryOp", "GlobalReadOp", "GlobalWriteOp", "GlobalTransposedWriteOp", "read_op",
           "write_op", "current_op", "derived_op", "kernel_index_scope", "mapped_kernel_index"]


class _Current(threading.local):
    read: Optional["GlobalReadOp"] = None
    write: Optional["GlobalWriteOp"] = None
    kernel_index: Optional[int] = None


_current = _Current()


@dataclasses.dataclass
class MemoryOp:
    """Where an element sits in its FFT line and which register holds it.

    ``fft_index`` is the position ``k`` in the line (int or uint shader value), ``fft_offset``
    the thread's first position, ``fft_stride`` the distance between the positions one
    invocation handles, ``fft_size`` the length N.
    """

    fft_offset: Any
    fft_stride: int
    fft_index: Any
    fft_size: int
    register_id: int
    register_count: int
    element_id: int
    element_count: int
    instance_id: int
    instance_count: int


def _zero(var_type) -> ShaderVariable:
    return vc.to_dtype(var_type, 0, 0)


@dataclasses.dataclass
class GlobalReadOp(MemoryOp):
    """A load into ``register`` from the flat element index ``io_index`` (a shared uint
    temporary: copy it to keep it beyond this hook).

    With ``r2c`` (forward) ``io_index`` counts real scalars of the padded real row; with
    ``r2c`` inverse, positions past N/2 read the Hermitian mirror ``r2c_inverse_offset -
    io_index`` conjugated.
    """

    register: ShaderVariable = None
    io_index: ShaderVariable = None
    io_index_2: ShaderVariable = None
    r2c: bool = False
    inverse: bool = False
    r2c_inverse_offset: Any = None
    format_transposed: bool = False
    signal_range: Tuple[int, int] = (0, 0)

    def read_from_buffer(self, buffer, register: ShaderVariable = None,
                         io_index: ShaderVariable = None) -> None:
        """Loads the element (zero outside ``signal_range``; R2C-aware)."""
        register = self.register if register is None else register
        io_index = self.io_index if io_index is None else io_index
        start, end = self.signal_range
        if isinstance(self.fft_index, int):
            if start <= self.fft_index < end:
                self._load(buffer, register, io_index)
            else:
                register[:] = _zero(register.var_type)
            return
        conditions = ([self.fft_index >= start] if start > 0 else []) + \
                     ([self.fft_index < end] if end < self.fft_size else [])
        if not conditions:
            self._load(buffer, register, io_index)
            return
        vc.if_statement(vc.all(*conditions))
        self._load(buffer, register, io_index)
        vc.else_statement()
        register[:] = _zero(register.var_type)
        vc.end()

    def _load(self, buffer, register, io_index) -> None:
        ct = register.var_type
        if self.r2c and not self.inverse:
            pair = buffer[io_index // 2]
            scalar = vc.str_to_dtype(ct.child_type if dt.is_complex(buffer.var_type) else ct,
                                     f"{pair.name}[{(io_index % 2).name}]")
            register[:] = vc.to_dtype(ct, vc.to_dtype(ct.child_type, scalar), 0)
            return
        if self.r2c and self.inverse:
            self._load_hermitian(buffer, register, io_index)
            return
        register[:] = vc.cast_to(ct, buffer[io_index])

    def _load_hermitian(self, buffer, register, io_index) -> None:
        ct = register.var_type
        half = self.fft_size // 2
        mirrored = isinstance(self.fft_index, int) and self.fft_index > half
        if isinstance(self.fft_index, int):
            if mirrored:
                value = vc.cast_to(ct, buffer[self.r2c_inverse_offset - io_index])
                register[:] = vc.to_dtype(ct, value.real, -value.imag)
            else:
                register[:] = vc.cast_to(ct, buffer[io_index])
            return
        vc.if_statement(self.fft_index > half)
        value = vc.cast_to(ct, buffer[self.r2c_inverse_offset - io_index])
        register[:] = vc.to_dtype(ct, value.real, -value.imag)
        vc.else_statement()
        register[:] = vc.cast_to(ct, buffer[io_index])
        vc.end()


@dataclasses.dataclass
class GlobalWriteOp(MemoryOp):
    """A store of ``register`` to the flat element index ``io_index`` (R2C-aware)."""

    register: ShaderVariable = None
    io_index: ShaderVariable = None
    r2c: bool = False
    inverse: bool = False

    def write_to_buffer(self, buffer, register: ShaderVariable = None,
                        io_index: ShaderVariable = None) -> None:
        """Stores the element: C2C as is, R2C forward only bins up to N/2, R2C inverse the
        real part into the padded real row."""
        register = self.register if register is None else register
        io_index = self.io_index if io_index is None else io_index
        if self.r2c and not self.inverse:
            limit = self.fft_size // 2 + 1
            if isinstance(self.fft_index, int):
                if self.fft_index < limit:
                    buffer[io_index] = vc.cast_to(buffer.var_type, register)
                return
            vc.if_statement(self.fft_index < limit)
            buffer[io_index] = vc.cast_to(buffer.var_type, register)
            vc.end()
            return
        if self.r2c and self.inverse:
            pair = buffer[io_index // 2]
            scalar_type = buffer.var_type.child_type
            target = vc.str_to_dtype(scalar_type, f"{pair.name}[{(io_index % 2).name}]",
                                     settable=True)
            target[:] = vc.to_dtype(scalar_type, register.real)
            return
        buffer[io_index] = vc.cast_to(buffer.var_type, register)


@dataclasses.dataclass
class GlobalTransposedWriteOp(MemoryOp):
    """A store of ``register`` at its transposed (consumption-order) index."""

    register: ShaderVariable = None
    io_index: ShaderVariable = None

    def write_to_buffer(self, buffer, register: ShaderVariable = None,
                        io_index: ShaderVariable = None) -> None:
        register = self.register if register is None else register
        io_index = self.io_index if io_index is None else io_index
        buffer[io_index] = vc.cast_to(buffer.var_type, register)


def _slot(op) -> str:
    return "read" if isinstance(op, GlobalReadOp) else "write"


@contextlib.contextmanager
def current_op(op) -> Iterator[None]:
    """Makes ``op`` what :func:`read_op`/:func:`write_op` return while a hook runs."""
    slot = _slot(op)
    if getattr(_current, slot) is not None:
        raise InvalidStateError(f"A global {slot} operation is already set for the current "
                                "thread (FFT hooks cannot nest)")
    with derived_op(op):
        yield


@contextlib.contextmanager
def derived_op(op) -> Iterator[None]:
    """Makes ``op`` current in place of the current op of its kind, for a hook that runs
    another hook on an element it derived (another index or length) from its own."""
    slot = _slot(op)
    previous = getattr(_current, slot)
    setattr(_current, slot, op)
    try:
        yield
    finally:
        setattr(_current, slot, previous)


@contextlib.contextmanager
def kernel_index_scope(index: int) -> Iterator[None]:
    """Makes ``index`` what :func:`mapped_kernel_index` returns while kernel hooks run."""
    _current.kernel_index = index
    try:
        yield
    finally:
        _current.kernel_index = None


def mapped_kernel_index() -> Optional[int]:
    """Which kernel (0 .. kernel_num-1) a convolution's ``kernel_map`` (or the output map
    that follows it) is handling; None outside a convolution."""
    return _current.kernel_index


def read_op() -> GlobalReadOp:
    """The element being loaded, inside an ``input_map`` or ``kernel_map``."""
    if _current.read is None:
        raise InvalidArgumentError("No global read operation is set for the current thread! "
                                   "vd.fft.read_op() works inside an input_map or kernel_map.")
    return _current.read


def write_op() -> GlobalWriteOp:
    """The element being stored, inside an ``output_map``."""
    if _current.write is None:
        raise InvalidArgumentError("No global write operation is set for the current thread! "
                                   "vd.fft.write_op() works inside an output_map.")
    return _current.write
