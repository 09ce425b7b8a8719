"""A reduction's launch geometry, as pure functions: which axes are batches, how many groups
the first stage runs per batch, how many partial slots the output keeps, and how batches
spread over the workgroup grid's y and z axes and over dispatches."""
from __future__ import annotations

import math
import numbers
from typing import List, Optional

from vkdispatch.errors import InvalidArgumentError
from vkdispatch.reduce.stage import UNROLL

__all__ = ["reduction_geometry", "first_stage_groups", "partial_slots", "batch_blocks",
           "MAX_LOOP_ITERATIONS", "MAX_INVOCATION_ELEMENTS"]

# lavapipe (Mesa's llvmpipe) silently leaves a shader's loops once their iterations together
# reach 65535 (one counter for all loops of an invocation): a sum of 2^24 ones with
# group_size=8 gave 16777024. A stage's two loops together stay within a quarter of that,
# leaving the rest to loops inside mapping functions.
MAX_LOOP_ITERATIONS = 65535 // 4
# The most elements one invocation folds: its unrolled loop then runs at most
# MAX_LOOP_ITERATIONS - UNROLL times and its tail loop fewer than UNROLL times.
MAX_INVOCATION_ELEMENTS = UNROLL * (MAX_LOOP_ITERATIONS - UNROLL)


def reduction_geometry(shape: tuple, axes: Optional[List[int]]) -> tuple[int, int]:
    """``(batches, elements per batch)``: the reduced axes must be a trailing block (the last
    axis and the axes just before it, without gaps); the axes before it are batches."""
    shape = tuple(int(d) for d in shape)
    if axes is None:
        return 1, math.prod(shape)
    if isinstance(axes, numbers.Integral):  # a numpy integer too
        axes = [axes]
    try:
        axes = [int(a) if isinstance(a, numbers.Integral) and not isinstance(a, bool) else a
                for a in axes]
    except TypeError:  # a float (was a bare "not iterable")
        raise InvalidArgumentError(f"axes must be an axis number or a sequence of them, got "
                                   f"{axes!r}") from None
    ndim = len(shape)
    valid = all(isinstance(a, int) and not isinstance(a, bool) and -ndim <= a < ndim
                for a in axes)
    normalized = sorted({a % ndim for a in axes}) if valid else [None]
    if valid and len(normalized) != len(axes):
        raise InvalidArgumentError(f"axes must name each axis once, got {list(axes)!r} (shape "
                                   f"{shape})")
    if not normalized or None in normalized:
        raise InvalidArgumentError(f"axes must be axis numbers of a {ndim}-D input (shape "
                                   f"{shape}), got {axes!r}")
    first = normalized[0]
    if normalized != list(range(first, ndim)):
        allowed = ", ".join(str(list(range(k, ndim))) for k in reversed(range(ndim)))
        raise InvalidArgumentError(f"Reduction axes must be contiguous! axes must be a "
                                   f"trailing block of the axes of shape {shape} (one of "
                                   f"{allowed}, negative numbers allowed); got axes {axes!r}")
    return math.prod(shape[:first]), math.prod(shape[first:])


def first_stage_groups(size: int, group_size: int) -> int:
    """Groups per batch of the first stage over ``size`` elements: enough for UNROLL elements
    per invocation, at most ``group_size`` of them (0.1.0's count, one fold group then holds
    every partial), but more where an invocation would fold over MAX_INVOCATION_ELEMENTS.

    Two stages always suffice: even for MAX_BUFFER_ELEMENTS (2^30) and one-invocation groups
    the second stage's invocations fold fewer than MAX_INVOCATION_ELEMENTS partials each."""
    wanted = min(-(-size // (group_size * UNROLL)), group_size)
    return max(wanted, -(-size // (group_size * MAX_INVOCATION_ELEMENTS)))


def partial_slots(size: int, group_size: int) -> int:
    """Partial slots per batch in the output buffer: 0.1.0's ``min(ceil(size / G), G)``, or
    the first stage's groups where the loop bound makes them more."""
    return max(min(-(-size // group_size), group_size), first_stage_groups(size, group_size))


def batch_blocks(batches: int, max_rows: int, max_layers: int) -> list[tuple[int, int, int]]:
    """``(first batch, rows, layers)`` of each dispatch: a rows x layers block of batches on
    the workgroup grid's y and z axes (batch ``first + y + z * rows``), within the device's
    workgroup counts; one dispatch up to ``max_rows`` batches, two (or a few) beyond."""
    blocks, first = [], 0
    while first < batches:
        rows = min(batches - first, max_rows)
        layers = min((batches - first) // rows, max_layers)
        blocks.append((first, rows, layers))
        first += rows * layers
    return blocks
