"""Hooks of multi-pass transforms that reach the caller's side of the signature.

A transform made of several passes (the two-pass FFT of long lines, Bluestein's algorithm)
reads the caller's input and writes the caller's output from inside its own hooks: there an op
counts positions along one pass's line, so these pieces recover the position along the whole
line and run the caller's map on an op derived from it, or move the element to or from the
caller's plain buffer.
"""
from __future__ import annotations

import vkdispatch.codegen as vc
from vkdispatch.fft.memory_ops import derived_op

__all__ = ["line_position", "caller_side", "through_caller", "where_below", "zero"]


def line_position(op, n: int, inner: int):
    """The position along the whole line of ``n`` of a multi-pass op (lines laid out as
    ``(outer, n, inner)``; the op's own ``fft_index`` counts along one pass's line)."""
    index = op.io_index // inner if inner > 1 else op.io_index
    return (index % n).to_register()


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
