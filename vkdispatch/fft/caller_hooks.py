"""Hooks of multi-pass transforms that reach the caller's side of the signature.

A transform made of several passes (the two-pass FFT of long lines, Bluestein's algorithm)
reads the caller's input and writes the caller's output from inside its own hooks: there an op
counts positions along one pass's line, so these pieces recover the position along the whole
line and run the caller's map on an op derived from it, or move the element to or from the
caller's plain buffer.
"""
from __future__ import annotations

import dataclasses
import math

import vkdispatch.codegen as vc
from vkdispatch.errors import InvalidArgumentError
from vkdispatch.fft.memory_ops import derived_op

__all__ = ["line_position", "real_layout_op", "CallerLines", "caller_side", "through_caller",
           "where_below", "zero", "multiply"]


def line_position(op, n: int, inner: int):
    """The position along the whole line of ``n`` of a multi-pass op (lines laid out as
    ``(outer, n, inner)``; the op's own ``fft_index`` counts along one pass's line)."""
    index = op.io_index // inner if inner > 1 else op.io_index
    return (index % n).to_register()


def real_layout_op(op, n: int, inverse: bool, reading: bool, row, position):
    """``op`` as the element at ``position`` of real line ``row`` of length ``n`` in the
    RFFTBuffer layout: padded real rows of ``2 (n/2 + 1)`` scalars (forward reads, inverse
    writes) or half spectra of ``n/2 + 1`` bins (see ``GlobalReadOp``)."""
    half = n // 2 + 1
    fields = {}
    if reading and inverse:  # bins past n/2 mirror conj(X[n - k])
        fields["r2c_inverse_offset"] = row * (2 * half) + n
    real_side = reading != inverse
    return dataclasses.replace(op, io_index=row * (2 * half if real_side else half) + position,
                               r2c=True, inverse=inverse, fft_index=position, fft_size=n,
                               **fields)


@dataclasses.dataclass(frozen=True)
class CallerLines:
    """The caller's lines that a transform working on lines of another length (Bluestein's
    padded lines, Rader's convolutions of ``n - 1``) reads and writes: ``n`` elements,
    ``inner`` apart; for real transforms, rows of the RFFTBuffer layout."""

    n: int
    inner: int
    r2c: bool
    inverse: bool

    @classmethod
    def along(cls, buffer_shape: tuple, axis: int, r2c: bool, inverse: bool, **extra):
        """The lines along ``axis`` of ``buffer_shape`` (``extra``: a subclass's fields)."""
        lines = cls(buffer_shape[axis], math.prod(buffer_shape[axis + 1:]), r2c, inverse,
                    **extra)
        if r2c and lines.inner != 1:
            raise InvalidArgumentError("R2C io only supported for contiguous data (the last "
                                       f"axis); got axis {axis} of shape {buffer_shape}")
        return lines

    def real_op(self, op, reading: bool, row, position):
        """``op`` as the element at ``position`` of real row ``row`` (see real_layout_op)."""
        return real_layout_op(op, self.n, self.inverse, reading, row, position)


def caller_side(side_map, buffer_type) -> tuple:
    """``(map, argument types)`` of one side of the caller's signature: its map, or one plain
    buffer of ``buffer_type``."""
    if side_map is not None:
        return side_map, list(side_map.buffer_types)
    return None, [vc.Buffer[buffer_type]]


def through_caller(side_map, op, variables, method: str) -> None:
    """Runs the caller's map on ``op`` (current while it runs), or moves the element to or from
    the plain buffer (``method``: ``read_from_buffer`` or ``write_to_buffer``)."""
    if side_map is None:
        getattr(op, method)(variables[0])
        return
    with derived_op(op):
        side_map.callback(*variables)


def where_below(index, n: int, body, otherwise=None) -> None:
    """``body()`` where the position ``index`` is below ``n``, else ``otherwise()``."""
    if isinstance(index, int):
        if index < n:
            body()
        elif otherwise is not None:
            otherwise()
        return
    vc.if_statement(index < n)
    body()
    if otherwise is not None:
        vc.else_statement()
        otherwise()
    vc.end()


def zero(register) -> None:
    register[:] = vc.to_dtype(register.var_type, 0, 0)


def multiply(register, value, conjugate: bool = False) -> None:
    """``register *= value`` (its conjugate with ``conjugate``), ``value`` taken in the
    register's type."""
    ct = register.var_type
    value = vc.cast_to(ct, value)
    if conjugate:
        value = vc.to_dtype(ct, value.real, -value.imag)
    register[:] = vc.mult_complex(register, value)
