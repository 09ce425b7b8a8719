"""Lengths too long for one workgroup: the four-step FFT in two passes through a scratch
buffer.

With ``N = N1 N2`` and ``n = n1 + N1 n2``, ``k = N2 k1 + k2``:
``X[N2 k1 + k2] = sum_n1 W_N1^(n1 k1) [W_N^(n1 k2) sum_n2 x[n1 + N1 n2] W_N2^(n2 k2)]``.
Pass A transforms every ``n2`` column (stride ``N1``), multiplies by ``W_N^(n1 k2)`` and
stores ``n1``-major (``n1 N2 + k2``) into the scratch buffer; pass B transforms along ``n1``
(stride ``N2``) from the scratch buffer into the output, already in natural order. Both
passes are strided transforms over adjacent columns, so their loads and stores coalesce.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from typing import Tuple

from vkdispatch.base.buffer import Buffer
import vkdispatch.codegen as vc
from vkdispatch.errors import InvalidArgumentError
from vkdispatch.execution_pipeline.graphs import one_submission
from vkdispatch.fft.butterflies import runtime_twiddle
from vkdispatch.fft.config import MIN_STRIDED_LINES, DeviceLimits, FFTConfig, check_length
from vkdispatch.fft.grid import TARGET_INNER_BYTES, StridedGroups
from vkdispatch.fft.caller_hooks import (caller_side, line_position, real_layout_op,
                                         through_caller)
from vkdispatch.fft.io_manager import plain_extent
from vkdispatch.fft.memory_ops import read_op, write_op
from vkdispatch.shader import dispatch_target
from vkdispatch.shader.call_layout import check_extent
from vkdispatch.shader.mapping import map as make_map

# Pass A stores line n1 at n1 N2 + k2: its lines land N2 values apart, so a group of many
# adjacent lines scatters every store over as many runs. Groups of 64 bytes of lines (8
# complex64 lines, the group's other threads filling each 32-byte sector with neighbouring
# bins) took an H200 from 846 to 1890 GB/s at N = 16384 and from 1304 to 1932 at 65536
# against the strided passes' 256; only where the caller's inner lines already make runs of
# that length does pass A keep them. Where each line is one run (no inner axis), the group
# also stores its lines one after the other through shared memory, so they leave as one
# run: on an H100, pass A of N = 2^19 / 2^20 (lines of 1024, four a group: 32-byte
# sectors each) went from 0.55 to 0.90 of the copy's bandwidth.
SCATTERED_RUN_BYTES = 64

__all__ = ["fits_one_pass", "split_length", "plain_reader", "caller_hooks", "plain_extents",
           "check_extents", "FourStepFFT"]


@functools.lru_cache(maxsize=4096)
def fits_one_pass(n: int, compute_type, limits: DeviceLimits, stride: int = 1,
                  max_register_count: int | None = None) -> bool:
    """Whether one workgroup can hold a line of ``n`` (and, for a strided axis, enough
    adjacent lines to coalesce) with that register budget; raises for lengths with
    unsupported primes. Cached: eager calls ask on every call, before they reach the shader
    caches, and planning a line costs tens of microseconds."""
    check_length(n)
    try:
        lines = min(MIN_STRIDED_LINES, stride)
        config = FFTConfig((n, lines) if stride > 1 else (n,), 0, max_register_count,
                           compute_type=compute_type, limits=limits)
    except InvalidArgumentError:
        return False
    if stride == 1 or not config.uses_sdata:
        return True
    return (lines * config.sdata_row_size_padded * config.sdata_item_size
            <= limits.max_shared_memory
            and lines * config.batch_threads <= limits.max_workgroup_invocations)


def split_length(n: int, compute_type, limits: DeviceLimits) -> Tuple[int, int]:
    """``(N1, N2)`` with ``N1 N2 = n``, both single-pass lengths, as balanced as possible."""
    small = [d for d in range(2, math.isqrt(n) + 1) if n % d == 0]  # not range(n): n ~ 2^31
    splits = sorted({pair for d in small for pair in ((d, n // d), (n // d, d))},
                    key=lambda s: (abs(math.log(s[0] / s[1])), s))
    for n1, n2 in splits:
        if fits_one_pass(n1, compute_type, limits) and fits_one_pass(n2, compute_type, limits):
            return n1, n2
    raise InvalidArgumentError(f"FFT length {n} cannot be split into two lengths that each "
                               f"fit one workgroup of this device")


def _transposing_writer(n1: int, n2: int, inner: int, sign: int, scratch_type):
    """Pass A's output hook: twiddle by ``W_N^(n1 k2)``, store at ``n1 N2 + k2``.

    Pass A writes its lines in natural order at ``io_index = (outer N2 + k2) N1 inner +
    column``. ``k2`` is the op's ``fft_index`` only where pass A is one pass of length
    ``N2``: a pass A that is itself split hands this hook the ops of its own last pass,
    whose ``fft_index`` is a position in a shorter line, so ``k2`` comes from the index.
    """
    n, width = n1 * n2, n1 * inner

    def write(scratch):
        op = write_op()
        column = op.io_index % width
        k2 = op.fft_index if op.fft_size == n2 else (op.io_index // width) % n2
        first = column // inner if inner > 1 else column
        outer = op.io_index // (n * inner)
        twiddle = runtime_twiddle(op.register.var_type, first * k2, 1, n, sign)
        value = vc.mult_complex(op.register, twiddle)
        target = outer * (n * inner) + (first * n2 + k2) * inner
        if inner > 1:
            target = target + column % inner
        scratch[target] = vc.cast_to(scratch.var_type, value)

    return make_map(write, input_types=[vc.Buffer[scratch_type]])


@functools.lru_cache(maxsize=None)
def plain_reader(buffer_type):
    """An input hook reading the element at the op's index from one buffer (pass B's, from
    the scratch buffer). Cached: equal hooks give equal (cached) shaders."""
    def read(source):
        read_op().read_from_buffer(source)

    return make_map(read, input_types=[vc.Buffer[buffer_type]])


def _real_op(op, n: int, inverse: bool, reading: bool):
    """``op`` (flat index ``row n + position`` of a complex line) as the element of a real
    line of ``n`` in the RFFTBuffer layout."""
    return real_layout_op(op, n, inverse, reading, op.io_index // n,
                          (op.io_index % n).to_register())


def caller_hooks(n: int, inner: int, r2c: bool, inverse: bool, signal_range: Tuple[int, int],
                 input_map, output_map, input_type, output_type) -> tuple:
    """``(input_map, output_map, in_place)`` of a two-pass transform whose caller reads a
    signal range or real rows: hooks that run the caller's maps (or move its plain buffers'
    elements) on ops of the whole line, whose positions, lengths and signal range the passes'
    own ops do not carry. Without caller maps the transform is in place."""
    in_place = input_map is None and output_map is None
    read_map, read_types = caller_side(input_map, output_type if in_place else input_type)

    def read(*variables):
        op = read_op()
        whole = _real_op(op, n, inverse, True) if r2c else dataclasses.replace(
            op, fft_index=line_position(op, n, inner), fft_size=n)
        through_caller(read_map, dataclasses.replace(whole, signal_range=signal_range),
                       variables, "read_from_buffer")

    reader = make_map(read, input_types=read_types)
    if not r2c:
        return reader, output_map, in_place
    write_map, write_types = caller_side(output_map, output_type)

    def write(*variables):
        through_caller(write_map, _real_op(write_op(), n, inverse, False), variables,
                       "write_to_buffer")

    return reader, make_map(write, input_types=write_types), in_place


def plain_extents(buffer_shape: Tuple, input_map, output_map, input_type, output_type,
                  r2c: bool = False) -> dict:
    """``position -> (bytes, what)`` of the plain buffers a transform of ``buffer_shape``
    called with these maps indexes by the shape (see :func:`check_extents`)."""
    extents = {}
    if output_map is None:
        extents[0] = plain_extent(buffer_shape, output_type, r2c)
    if input_map is None and output_map is not None:
        extents[len(output_map.buffer_types)] = plain_extent(buffer_shape, input_type, r2c)
    return extents


def check_extents(extents: dict, args: tuple) -> None:
    """Raises naming both shapes where a plain buffer argument is too small for the plan."""
    for position, (needed, what) in extents.items():
        if position < len(args):  # missing arguments are the passes' errors to name
            check_extent(args[position], needed, what, f"buffer argument {position}")


class FourStepFFT:
    """A transform along one axis in two passes (see the module text). Called like a shader:
    ``plan(*output_side, *input_side, graph=g)``; the scratch buffer is allocated once per
    context. ``caller``: the caller's maps and types where ``input_map``/``output_map`` are
    :func:`caller_hooks` reaching them."""

    def __init__(self, factory, buffer_shape: Tuple, axis: int, inverse: bool,
                 normalize: bool, input_map, output_map, input_type, output_type,
                 compute_type, limits: DeviceLimits, name: str | None,
                 in_place: bool | None = None, r2c: bool = False, caller: tuple | None = None):
        self.buffer_shape = buffer_shape
        n = buffer_shape[axis]
        self.n1, self.n2 = split_length(n, compute_type, limits)
        outer, inner = math.prod(buffer_shape[:axis]), math.prod(buffer_shape[axis + 1:])
        self.scratch_type = compute_type
        self.scratch_size = math.prod(buffer_shape)
        sign = 1 if inverse else -1
        self.output_count = len(output_map.buffer_types) if output_map is not None else 1
        # In place: the output side's arguments are the input side's too.
        self.in_place = input_map is None and output_map is None if in_place is None \
            else in_place
        # The plain buffers the passes index by the shape, the caller's where ``caller`` hooks
        # (``(input_map, output_map, input_type, output_type)``) reach them.
        in_map, out_map, in_type, out_type = caller or (input_map, output_map, input_type,
                                                        output_type)
        self.extents = plain_extents(buffer_shape, in_map, out_map, in_type,
                                     out_type or compute_type, r2c)
        common = dict(inverse=inverse, normalize_inverse=normalize, compute_type=compute_type,
                      input_signal_range=None, limits=limits)
        scattered = inner * compute_type.item_size < TARGET_INNER_BYTES
        groups = StridedGroups(SCATTERED_RUN_BYTES, staged_stores=inner == 1) \
            if scattered else None
        self.pass_a = factory((outer, self.n2, self.n1 * inner), 1, input_map=input_map,
                              output_map=_transposing_writer(self.n1, self.n2, inner, sign,
                                                             self.scratch_type),
                              input_type=input_type if input_map is None else None,
                              output_type=None, name=name and f"{name}_a",
                              strided=groups,
                              **common)
        self.pass_b = factory((outer, self.n1, self.n2 * inner), 1,
                              input_map=plain_reader(self.scratch_type), output_map=output_map,
                              input_type=None,
                              output_type=output_type if output_map is None else None,
                              name=name and f"{name}_b", **common)

    def _scratch(self, context) -> Buffer:
        scratch = context.derived.get(self)
        if scratch is None:
            with context:
                scratch = Buffer((self.scratch_size,), self.scratch_type)
            context.derived[self] = scratch
        return scratch

    def __call__(self, *args, graph=None) -> None:
        target = graph if graph is not None else dispatch_target.default_target()
        scratch = self._scratch(target.context)
        check_extents(self.extents, args)
        outputs = args[:self.output_count]
        inputs = outputs if self.in_place else args[self.output_count:]
        with one_submission(target):
            self.pass_a(scratch, *inputs, graph=target)
            self.pass_b(*outputs, scratch, graph=target)

    def get_src(self, line_numbers: bool | None = None) -> tuple:
        return (self.pass_a.get_src(line_numbers), self.pass_b.get_src(line_numbers))

    def print_src(self, line_numbers: bool | None = None) -> None:
        for source in self.get_src(line_numbers):
            print(source)
