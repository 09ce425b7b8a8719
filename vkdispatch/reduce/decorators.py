"""``@vd.reduce.reduce(identity)`` and ``@vd.reduce.map_reduce(op)``: reductions from Python
functions."""
from __future__ import annotations

import inspect
from typing import Callable

import vkdispatch.codegen as vc
from vkdispatch.errors import InvalidArgumentError
from vkdispatch.reduce.mapped_index import mapped_io_index
from vkdispatch.reduce.operations import ReduceOp
from vkdispatch.reduce.reduce_function import ReduceFunction
from vkdispatch.shader.mapping import MappingFunction, map as make_map

__all__ = ["reduce", "map_reduce"]


def _load(buffer):
    return buffer[mapped_io_index()]


def _loader(out_type) -> MappingFunction:
    """The default mapping: the element of the single input buffer."""
    return make_map(_load, return_type=out_type, input_types=[vc.Buffer[out_type]])


def reduce(identity, axes=None, group_size=None, mapping_function=None):  # noqa: A001
    """Decorates ``combine(a: T, b: T) -> T`` into a :class:`ReduceFunction` over buffers of
    T (or over what ``mapping_function`` returns, which must be T). ``axes`` and
    ``group_size`` as in :func:`map_reduce`."""
    def decorate(function: Callable) -> ReduceFunction:
        signature = inspect.signature(function, eval_str=True)
        if signature.return_annotation is inspect.Signature.empty:
            raise InvalidArgumentError("Return type must be annotated")
        out_type = signature.return_annotation
        mapping = mapping_function or _loader(out_type)
        if mapping.return_type is not out_type:
            raise InvalidArgumentError(
                f"the mapping function returns {getattr(mapping.return_type, 'name', None)}, "
                f"the reduction {out_type.name}; they must match")
        op = ReduceOp(function.__name__, function, identity)
        return ReduceFunction(op, group_size, axes, mapping)

    return decorate


def map_reduce(reduction: ReduceOp, axes=None, group_size=None):
    """Decorates a mapping function (annotated arguments, ``mapped_io_index()`` for the
    element, annotated return type) into a :class:`ReduceFunction` reducing its values with
    ``reduction``.

    Args:
        reduction: the operation, e.g. ``vd.reduce.SubgroupAdd``.
        axes: None (every element into one value) or a trailing block of the first
            argument's axes without gaps (``[2]``, ``[1, 2]`` or ``[0, 1, 2]`` of a 3-D
            input, negative numbers allowed); the axes before it are batches, of any number.
        group_size: the workgroup size, a power of two and a multiple of the device's
            subgroup size (``vd.get_context().subgroup_size``); None picks one for the device.

    A bad ``axes`` or ``group_size`` raises ``ValueError`` at the first call."""
    if not isinstance(reduction, ReduceOp):
        raise InvalidArgumentError(f"map_reduce needs a vd.reduce.ReduceOp (e.g. "
                                   f"vd.reduce.SubgroupAdd), got {reduction!r}")

    def decorate(function: Callable) -> ReduceFunction:
        return ReduceFunction(reduction, group_size, axes, make_map(function))

    return decorate
