"""One reduction stage: every workgroup folds a strided range of elements into one value.

Each invocation accumulates a grid-strided sequence of elements (mapped by the user's
function in the first stage, read from the output buffer's partials in the second) into a
register started at the identity; the group then combines its registers in a shared-memory
tree (a barrier per halving) down to one subgroup, which finishes with the subgroup collective
when the operation has one and the device supports it, else with more halvings. Invocation 0
stores the group's value. The invocation's two loops are the shader's only loops (the caller
bounds their iterations, see :mod:`vkdispatch.reduce.geometry`). Float sums stay accurate:
each invocation adds a few hundred elements on GPUs and the rest is a balanced tree.
"""
from __future__ import annotations

import dataclasses
import inspect

from vkdispatch import dtypes as dt
from vkdispatch.base.context import get_context
import vkdispatch.codegen as vc
from vkdispatch.errors import InvalidArgumentError
from vkdispatch.reduce.mapped_index import mapped_index_scope
from vkdispatch.reduce.operations import ReduceOp
from vkdispatch.shader.shader_function import ShaderFunction, make_shader_function

__all__ = ["ReductionParams", "make_reduction_stage", "identity_value", "UNROLL"]

UNROLL = 4  # elements each invocation loads per loop iteration (a power of two)


@dataclasses.dataclass
class ReductionParams:
    """Where a stage reads and writes (uniform members, in this order)."""

    input_offset: dt.uint32
    input_size: dt.uint32
    input_stride: dt.uint32
    input_y_batch_stride: dt.uint32
    input_z_batch_stride: dt.uint32
    output_offset: dt.uint32
    output_stride: dt.uint32
    output_y_batch_stride: dt.uint32
    output_z_batch_stride: dt.uint32


def _scalar_identity(identity, scalar):
    """``identity`` as a value of ``scalar``: infinities of its own width (the largest or
    least value for integers), -1 as all bits set for unsigned types."""
    if isinstance(identity, str):
        if identity not in ("inf", "-inf"):
            raise InvalidArgumentError(f"identity must be a number, 'inf' or '-inf', got "
                                       f"{identity!r}")
        positive = identity == "inf"
        if dt.is_float_dtype(scalar):
            name = {dt.float16: "f16", dt.float32: "f32", dt.float64: "f64"}[scalar]
            return getattr(vc, f"{'' if positive else 'n'}inf_{name}")()
        bits = scalar.item_size * 8
        if scalar.name.startswith("u"):
            return (1 << bits) - 1 if positive else 0
        return (1 << (bits - 1)) - 1 if positive else -(1 << (bits - 1))
    if isinstance(identity, bool) or not isinstance(identity, (int, float)):
        raise InvalidArgumentError(f"identity must be a number, 'inf' or '-inf', got "
                                   f"{identity!r}")
    if not dt.is_float_dtype(scalar) and not float(identity).is_integer():
        raise InvalidArgumentError(f"identity {identity!r} is not a value of the reduction's "
                                   f"integer type {scalar.name}")
    if identity == -1 and scalar.name.startswith("u"):
        return (1 << (scalar.item_size * 8)) - 1
    return int(identity) if not dt.is_float_dtype(scalar) else identity


def identity_value(identity, out_type) -> vc.ShaderVariable:
    """A register of ``out_type`` holding the identity (broadcast over vector components)."""
    scalar = out_type.child_type if dt.is_complex(out_type) else (out_type.scalar or out_type)
    value = _scalar_identity(identity, scalar)
    if dt.is_scalar(out_type) and not isinstance(value, vc.ShaderVariable):
        return vc.new_register(out_type, value)
    return vc.to_dtype(out_type, value).to_register()


def _combine(reduction: ReduceOp, out_type, a, b):
    return vc.cast_to(out_type, reduction.reduction(a, b))


def _collective_usable(reduction: ReduceOp, out_type, group_size: int) -> int:
    """The subgroup size to finish with a collective, or 0 (no collective)."""
    context = get_context()
    size = context.subgroup_size
    scalar = out_type.child_type if dt.is_complex(out_type) else (out_type.scalar or out_type)
    if (reduction.subgroup_reduction is None or not context.subgroup_arithmetic or size < 2
            or group_size % size or dt.is_complex(out_type) and reduction.name != "add"
            or scalar.item_size != 4):  # 16/64-bit collectives need extended-type support
        return 0
    return size


def _input_names(map_func, count: int) -> list[str]:
    """How errors name the inputs: the mapping function's parameters, else input, input1..."""
    if map_func is not None:
        names = list(inspect.signature(map_func.mapping_function).parameters)
        if len(names) == count:
            return names
    return ["input"] if count == 1 else [f"input{k}" for k in range(count)]


def make_reduction_stage(reduction: ReduceOp, out_type, group_size: int,
                         output_is_input: bool, map_func=None, input_types=None,
                         single_pass: bool = False) -> ShaderFunction:
    """The shader of one stage: ``stage(out, *inputs, params, exec_size=(groups * G,
    batches))``; with ``output_is_input`` it reads the partials in ``out`` itself. With
    ``single_pass`` it is ``stage(out, counter, *inputs, params, ...)`` and also does the
    second stage's work (see :func:`_fold_in_last_group`): ``counter`` holds one zero uint32
    per batch, and is zero again after the dispatch."""
    input_types = list(input_types or [])
    inputs_label = ",".join(str(t).replace("vkdispatch.codegen.arguments.", "")
                            .replace("vkdispatch.dtypes.", "") for t in input_types)
    kind = "single_pass" if single_pass else "stage"
    name = f"reduction_{kind}_{reduction.name}_{out_type.name}_[{inputs_label}]_{group_size}"
    collective = _collective_usable(reduction, out_type, group_size)
    with vc.shader_context() as ctx:
        ctx.builder.name = name
        input_annotations = [] if output_is_input else input_types
        counter_annotation = [vc.Buffer[dt.uint32]] if single_pass else []
        arguments = ctx.declare_input_arguments(
            [vc.Buffer[out_type]] + counter_annotation + input_annotations + [ReductionParams],
            ["out"] + ["counter"] * single_pass + _input_names(map_func, len(input_annotations))
            + ["params"])
        out, params = arguments[0], arguments[-1]
        inputs = arguments[1 + single_pass:-1]
        accumulator = _accumulate(reduction, out_type, out, inputs, params, map_func,
                                  output_is_input)
        sdata = vc.shared_buffer(out_type, group_size, "sdata")
        result = _group_reduce(reduction, out_type, group_size, accumulator, collective, sdata)
        group = vc.workgroup_id()
        with vc.if_block(vc.local_invocation_id().x == 0):
            out[params.output_offset + group.x * params.output_stride
                + group.y * params.output_y_batch_stride
                + group.z * params.output_z_batch_stride] = result
        if single_pass:
            _fold_in_last_group(reduction, out_type, group_size, collective, sdata, out,
                                arguments[1], params)
        description = ctx.get_description(name)
    return make_shader_function(description, local_size=(group_size, 1, 1))


def _fold_in_last_group(reduction: ReduceOp, out_type, group_size: int, collective: int,
                        sdata, out, counter, params) -> None:
    """The second stage inside the first: each group, once its partial is stored and made
    visible, counts itself done in ``counter[batch]``; the group that counts last (all others'
    partials are then visible) folds the batch's partials (at most G of them, one per
    invocation) into ``out[batch]`` and sets the counter back to zero. One dispatch instead
    of two: the second cost about 2 us on an H100 (a dependent dispatch), a sixth of a 2^22
    float sum. ``out`` is coherent, so the last group reads the partials from memory."""
    vc.coherent(out)
    tid = vc.local_invocation_id().x
    batch = vc.workgroup_id().y
    groups = vc.num_workgroups().x
    finished = vc.shared_buffer(dt.uint32, 1, "groups_finished")
    with vc.if_block(tid == 0):
        vc.memory_barrier_buffer()  # this group's partial before its count
        finished[0] = vc.atomic_add(counter[batch], 1)
    vc.barrier()
    with vc.if_block(finished[0] == groups - 1):
        vc.memory_barrier_buffer()  # every count seen before the partials are read
        partial = identity_value(reduction.identity, out_type)
        with vc.if_block(tid < groups):
            partial[:] = out[params.output_offset + tid * params.output_stride
                             + batch * params.output_y_batch_stride]
        result = _group_reduce(reduction, out_type, group_size, partial, collective, sdata)
        with vc.if_block(tid == 0):
            out[batch] = result
            counter[batch] = 0


def _accumulate(reduction: ReduceOp, out_type, out, inputs, params, map_func,
                output_is_input: bool):
    """This invocation's fold of its grid-strided elements."""
    group = vc.workgroup_id()
    start = (params.input_offset + group.y * params.input_y_batch_stride
             + group.z * params.input_z_batch_stride).to_register()
    end = (start + params.input_size).to_register()
    index = (start + vc.global_invocation_id().x * params.input_stride).to_register()
    step = (vc.workgroup_size().x * vc.num_workgroups().x * params.input_stride).to_register()
    accumulator = identity_value(reduction.identity, out_type)

    def element(at):
        if output_is_input:
            return out[at]
        with mapped_index_scope(at):
            return map_func.callback(*inputs)

    # UNROLL independent loads per iteration keep that many memory requests in flight.
    last = (step * (UNROLL - 1)).to_register()
    with vc.while_block(index + last < end):
        values = [element(index if u == 0 else (index + step * u).to_register())
                  for u in range(UNROLL)]
        while len(values) > 1:  # a balanced tree of the loaded values
            values = [_combine(reduction, out_type, values[i], values[i + 1])
                      for i in range(0, len(values), 2)]
        accumulator[:] = _combine(reduction, out_type, accumulator, values[0])
        index[:] = index + step * UNROLL
    with vc.while_block(index < end):
        accumulator[:] = _combine(reduction, out_type, accumulator, element(index))
        index[:] = index + step
    return accumulator


def _group_reduce(reduction: ReduceOp, out_type, group_size: int, accumulator,
                  collective: int, sdata):
    """The group's value (meaningful in invocation 0), combined through the shared array
    ``sdata`` of ``group_size`` values."""
    tid = vc.local_invocation_id().x
    sdata[tid] = accumulator
    vc.barrier()
    floor = collective or 1
    size = group_size // 2
    while size >= floor:
        with vc.if_block(tid < size):
            sdata[tid] = _combine(reduction, out_type, sdata[tid], sdata[tid + size])
        vc.barrier()
        size //= 2
    if not collective:
        return sdata[0]
    value = sdata[tid].to_register() if group_size > 1 else accumulator
    result = vc.new_register(out_type, 0) if dt.is_scalar(out_type) else \
        identity_value(0, out_type)
    with vc.if_block(tid < collective):
        result[:] = reduction.subgroup_reduction(value)
    return result
