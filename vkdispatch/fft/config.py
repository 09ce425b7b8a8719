"""The plan of one 1-D transform along one axis of a buffer: stages, threads and memory.

Every line of the axis is a Stockham (self-sorting) mixed-radix FFT: stage ``s`` of radix
``r`` with input stride ``L`` (the product of the earlier radices) runs ``N / r`` butterflies;
butterfly ``j`` reads positions ``j + m N/r``, twiddles them by ``W_{L r}^{m (j mod L)}``, and
writes output ``q`` to ``(j // L) L r + j mod L + q L``. After the last stage the line is in
natural order. A line belongs to ``threads`` cooperating invocations; thread ``t`` runs the
butterflies ``j = t + i threads`` (``i`` < the stage's ``instance_count``), holding
``register_count`` complex values; stages hand data over through shared memory (or, with one
thread per line, by renaming registers at trace time).
"""
from __future__ import annotations

import dataclasses
import math
import weakref
from typing import Tuple

from vkdispatch import dtypes as dt
from vkdispatch.base.context import get_context
from vkdispatch.base.device_info import is_cpu_device
from vkdispatch.errors import InvalidArgumentError
from vkdispatch.fft.prime_utils import (SUPPORTED_PRIMES, default_register_limit, pad_dim,
                                        prime_factors)

__all__ = ["DeviceLimits", "FFTStage", "FFTRegisterStageConfig", "FFTConfig", "plan_radices",
           "normalize_axis", "MIN_STRIDED_LINES", "check_length"]

_LIMITS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # context -> (key, limits)
# A strided transform coalesces only with several adjacent lines per workgroup.
MIN_STRIDED_LINES = 4
# Registers per thread of a contiguous line that fits shared memory only one component at a time
# (each exchange then takes two rounds): fewer threads with longer stages. On an H200 (graph
# replays of 256 MiB) complex64 N = 8192 ran at 1968 / 2306 / 2580 GB/s with 8 / 16 / 32
# registers, float64 N = 4096 (a forward + inverse pair) at 2527 / 2664 / 3392; where a line
# fits whole, 16 stayed best (complex64 4096: 3347 / 3538 / 3283, float64 1024: 3756 / 3877 /
# 3090).
SPLIT_EXCHANGE_REGISTERS = 32
# Shared-memory rows are padded by one element every 128 bytes, so strided stage writes
# spread over the banks instead of hitting one.
_BANK_ROW_BYTES = 128


@dataclasses.dataclass(frozen=True)
class DeviceLimits:
    """The device limits an FFT plan depends on (part of every shader cache key)."""

    max_workgroup_size: Tuple[int, int, int]
    max_workgroup_invocations: int
    max_workgroup_count: Tuple[int, int, int]
    max_shared_memory: int
    subgroup_size: int
    cpu: bool = False  # a CPU implementation (lavapipe) among the devices

    @classmethod
    def current(cls) -> "DeviceLimits":
        """The limits of the current context (the minimum over its devices), computed once
        per context (every FFT call asks)."""
        context = get_context()
        key = (context.max_workgroup_size, context.max_workgroup_invocations,
               context.max_workgroup_count, context.max_shared_memory, context.subgroup_size)
        cached = _LIMITS.get(context)
        if cached is None or cached[0] != key:  # limits change only with dummy parameters
            cached = _LIMITS[context] = (key, cls.of(context))
        return cached[1]

    @classmethod
    def of(cls, context) -> "DeviceLimits":
        cpu = any(is_cpu_device(info) for info in context.device_infos)
        return cls(tuple(context.max_workgroup_size), context.max_workgroup_invocations,
                   tuple(context.max_workgroup_count), context.max_shared_memory,
                   context.subgroup_size, cpu)


def normalize_axis(axis: int | None, ndim: int) -> int:
    """``axis`` as a non-negative index (None: the last axis; negative counts from the end)."""
    if axis is None:
        return ndim - 1
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise InvalidArgumentError(f"axis must be an int or None, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(f"axis {axis} is out of range for a {ndim}-D buffer "
                                   f"(expected {-ndim} <= axis < {ndim})")
    return axis % ndim


@dataclasses.dataclass(frozen=True)
class FFTStage:
    """One Stockham pass: ``butterflies`` radix-``radix`` sub-FFTs over the line."""

    radix: int
    primes: Tuple[int, ...]
    input_stride: int
    butterflies: int
    instance_count: int
    threads: int
    # A plane's column stage (see FFTConfig's plane_rows): its sub-transforms interleave that
    # many independent ones (the rows' frequencies), and its twiddles skip them.
    interleaved: int = 1

    @property
    def twiddle_period(self) -> int:
        """The ``L`` of the stage's twiddles ``W_{L r}^{m (k mod L)}``, where ``k`` counts
        butterflies in units of ``interleaved``: 1 means no twiddles."""
        return self.input_stride // self.interleaved

    @property
    def registers_used(self) -> int:
        return self.radix * self.instance_count

    @property
    def thread_count(self) -> int:
        """Threads that have at least one butterfly in this stage."""
        return min(self.threads, self.butterflies)

    def has_remainder(self) -> bool:
        """Whether the last instance runs only on some threads (needs a guard)."""
        return self.instance_count * self.threads != self.butterflies


FFTRegisterStageConfig = FFTStage  # vkdispatch 0.1.0's name


def plan_radices(n: int, max_radix: int) -> list[list[int]]:
    """The fewest stages (each a group of primes whose product is at most ``max_radix``, or
    a single prime above it); the largest radices first."""
    primes = sorted(prime_factors(n), reverse=True)
    if not primes:
        return []
    limit = max(max_radix, primes[0])  # a prime above the limit is a stage of its own
    stages = max(1, math.ceil(math.log(n) / math.log(limit) - 1e-9))
    while True:
        groups = _pack(primes, [1] * stages, [[] for _ in range(stages)], limit)
        if groups is not None:
            return sorted(groups, key=lambda g: -math.prod(g))
        stages += 1


def _pack(primes: list[int], products: list[int], groups: list[list[int]],
          limit: int) -> list[list[int]] | None:
    """Places ``primes`` (largest first) into the groups without exceeding ``limit`` by
    backtracking; None when they do not fit. Groups of equal product are interchangeable,
    so each prime tries each distinct product once."""
    if not primes:
        return [g for g in groups if g]
    prime, rest = primes[0], primes[1:]
    tried = set()
    for index, product in enumerate(products):
        if product * prime > limit or product in tried:
            continue
        tried.add(product)
        products[index] *= prime
        groups[index].append(prime)
        found = _pack(rest, products, groups, limit)
        if found is not None:
            return found
        products[index] //= prime
        groups[index].pop()
    return None


def check_length(n: int) -> None:
    """Raises ``ValueError`` naming ``n`` when a prime factor has no generated butterfly."""
    for prime in prime_factors(n):
        if prime not in SUPPORTED_PRIMES:
            raise InvalidArgumentError(
                f"A prime factor of {n} is {prime}, which exceeds the maximum prime supported "
                f"{SUPPORTED_PRIMES[-1]}: the generated stages handle lengths whose prime "
                f"factors are all in "
                f"{SUPPORTED_PRIMES} (vd.fft.pad_dim({n}) = {pad_dim(n)} is the next such "
                f"length)")


def _divisors(n: int) -> list[int]:
    """The divisors of ``n`` in increasing order."""
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return small + [n // d for d in reversed(small) if d * d != n]


def _stages_for(n: int, radices: list[list[int]], threads: int,
                plane_rows: int = 1) -> tuple[FFTStage, ...]:
    stages, stride = [], 1
    for primes in radices:
        radix = math.prod(primes)
        butterflies = n // radix
        stages.append(FFTStage(radix, tuple(sorted(primes)), stride, butterflies,
                               -(-butterflies // threads), threads,
                               plane_rows if stride >= plane_rows else 1))
        stride *= radix
    return tuple(stages)


class FFTConfig:
    """Geometry and plan of the transform of every line along ``axis`` of ``buffer_shape``.

    Attributes (vkdispatch 0.1.0's names): ``N``, ``fft_stride`` (distance between samples of
    a line), ``batch_outer_stride``/``batch_outer_count`` (lines blocks before the axis),
    ``batch_inner_count`` (interleaved lines), ``stages``, ``register_count`` (complex
    registers per thread), ``batch_threads`` (threads per line), ``thread_counts``,
    ``max_prime_radix``, ``sdata_row_size``/``sdata_row_size_padded`` (one line in shared
    memory, unpadded/padded) and ``sdata_allocation``.

    ``plane_rows`` (R, dividing N = R C): each line is an R x C plane in row-major order, and
    the transform is its 2-D DFT instead, in one pass. The first stages transform the
    columns (radices multiplying to R: their butterflies read samples C apart, the first
    stage's Stockham inputs), the rest the rows; the row stages' twiddles leave out the
    factor ``W_N^(n2 k1)`` that couples the two in a 1-D transform (their butterfly index
    counts in units of R, see ``FFTStage.interleaved``). The result lies in natural order as
    position ``k1 + R k2`` for bin ``(k1, k2)``: the plane transposed, which its store undoes.
    """

    def __init__(self, buffer_shape: Tuple, axis: int | None = None,
                 max_register_count: int | None = None, compute_type=dt.complex64,
                 limits: DeviceLimits | None = None, split_above_bytes: int | None = None,
                 plane_rows: int | None = None):
        if not dt.is_complex(compute_type):
            raise InvalidArgumentError(f"compute_type must be a complex dtype, got "
                                       f"{getattr(compute_type, 'name', compute_type)!r}")
        shape = tuple(int(d) for d in buffer_shape)
        if not shape or any(d < 1 for d in shape):
            raise InvalidArgumentError(f"buffer_shape must be positive ints, got {buffer_shape!r}")
        self.buffer_shape = shape
        self.axis = normalize_axis(axis, len(shape))
        self.compute_type = compute_type
        self.limits = limits or DeviceLimits.current()
        self.split_above_bytes = split_above_bytes
        self.N = shape[self.axis]
        self.plane_rows = plane_rows or 1
        if self.N % self.plane_rows:
            raise InvalidArgumentError(f"plane_rows {plane_rows} must divide the line length "
                                       f"{self.N}")
        self.fft_stride = math.prod(shape[self.axis + 1:])
        self.batch_outer_stride = self.fft_stride * self.N
        self.batch_outer_count = math.prod(shape[:self.axis])
        self.batch_inner_count = self.fft_stride
        chosen_by_default = max_register_count is None
        if chosen_by_default:
            max_register_count = default_register_limit()
        if isinstance(max_register_count, bool) or not isinstance(max_register_count, int) \
                or max_register_count < 2:
            raise InvalidArgumentError(f"max_register_count must be an int of at least 2 (or "
                                       f"None for {default_register_limit()}), got "
                                       f"{max_register_count!r}")
        check_length(self.N)
        self._plan(max_register_count)
        if chosen_by_default and self.exchange_split and self.fft_stride == 1:
            self._plan(SPLIT_EXCHANGE_REGISTERS)

    # -- planning ---------------------------------------------------------------------------

    def _plan(self, max_register_count: int) -> None:
        """Stages, threads and the shared-memory layout for a register budget."""
        self.max_register_count = max_register_count
        radices = [group for length in self._sub_lengths() if length > 1
                   for group in plan_radices(length, min(max_register_count, length))]
        self.batch_threads = self._choose_threads(radices)
        self.stages = _stages_for(self.N, radices, self.batch_threads, self.plane_rows)
        self.register_count = max([s.registers_used for s in self.stages], default=1)
        self.thread_counts = tuple(s.thread_count for s in self.stages)
        self.max_prime_radix = max(prime_factors(self.N), default=1)
        self.sdata_row_size = self.N
        self.sdata_row_size_padded = self.N + self.N // self.pad_period
        self._fit_shared_memory()
        self.sdata_allocation = self.sdata_row_size_padded if self.uses_sdata else 0

    def _sub_lengths(self) -> tuple[int, ...]:
        """The lengths planned one after the other: a plane's columns, then its rows."""
        if self.plane_rows > 1:
            return (self.plane_rows, self.N // self.plane_rows)
        return (self.N,)

    def thread_limit(self) -> int:
        axis_limit = self.limits.max_workgroup_size[1 if self.fft_stride > 1 else 0]
        return max(1, min(axis_limit, self.limits.max_workgroup_invocations))

    def _choose_threads(self, radices: list[list[int]]) -> int:
        """The fewest threads per line keeping every stage within the register budget,
        preferring a count that splits every stage evenly (no guarded remainder).

        A stage of radix ``r`` and ``b`` butterflies holds ``r ceil(b / t)`` registers on
        ``t`` threads, which shrinks as ``t`` grows: the counts that fit are every ``t`` from
        the largest ``ceil(b / (budget // r))`` up to the device limit, and the even ones
        among them divide every stage's ``b``. Computed directly: the planner runs on every
        uncached plan, and trying each ``t`` cost milliseconds per plan."""
        if not radices:
            return 1
        budget = max(self.max_register_count, max(math.prod(g) for g in radices))
        limit = self.thread_limit()
        butterflies = [self.N // math.prod(g) for g in radices]
        fewest = max(-(-b // (budget // math.prod(g))) for b, g in zip(butterflies, radices))
        if fewest > limit:
            raise InvalidArgumentError(
                f"Unable to build an FFT plan for size {self.N}: it needs more than {limit} "
                f"threads per line (the device's workgroup limit along this axis)")
        common = math.gcd(*butterflies)
        even = [t for t in _divisors(common) if fewest <= t <= limit]
        return even[0] if even else fewest

    def _fit_shared_memory(self) -> None:
        """Chooses how a line sits in shared memory: complex values, or (``exchange_split``)
        one component at a time, which halves the footprint at the cost of a second round
        per exchange; padded if it fits. Strided axes aim for ``MIN_STRIDED_LINES`` lines per
        group (adjacent lines are what makes their loads coalesce). A contiguous line whose
        complex values would take more than ``split_above_bytes`` is split even where it fits
        whole. Raises when not even one unpadded line of one component fits."""
        self.exchange_split = False
        if not self.uses_sdata:
            return
        item, limit = self.compute_type.item_size, self.limits.max_shared_memory
        padded = self.sdata_row_size_padded
        wanted = min(MIN_STRIDED_LINES, self.fft_stride)
        splits = (False, True)
        if (self.split_above_bytes is not None and self.fft_stride == 1
                and self.N * item > self.split_above_bytes):
            splits = (True,)
        layouts = [(rows, split, size) for rows in (wanted, 1) for split in splits
                   for size in (padded, self.N)]
        for rows, split, size in layouts:
            if rows * size * (item // 2 if split else item) <= limit:
                self.exchange_split, self.sdata_row_size_padded = split, size
                return
        raise InvalidArgumentError(
            f"FFT length {self.N} in {self.compute_type.name} needs {self.N * item // 2} "
            f"bytes of shared memory for one line even one component at a time; the device "
            f"allows {limit} (max_compute_shared_memory_size), so the longest single-pass "
            f"length is {2 * limit // item}")

    @property
    def sdata_item_size(self) -> int:
        """Bytes of one shared-memory element (a complex value, or one component)."""
        item = self.compute_type.item_size
        return item // 2 if self.exchange_split else item

    @property
    def pad_period(self) -> int:
        """Line positions per padding element in shared memory."""
        return max(1, _BANK_ROW_BYTES // self.compute_type.item_size)

    @property
    def uses_sdata(self) -> bool:
        """Whether stages exchange data through shared memory (more than one thread)."""
        return self.batch_threads > 1

    @property
    def line_count(self) -> int:
        return self.batch_outer_count * self.batch_inner_count

    def angle_factor(self, inverse: bool) -> float:
        return 2 * math.pi if inverse else -2 * math.pi

    def __str__(self) -> str:
        if not hasattr(self, "stages"):  # a failed construction, shown in its traceback
            return f"FFTConfig(buffer_shape={getattr(self, 'buffer_shape', None)})"
        radices = [s.radix for s in self.stages]
        return (f"FFTConfig(N={self.N}, registers={self.register_count}, "
                f"stages={radices}, threads={self.batch_threads}, "
                f"thread_counts={list(self.thread_counts)})")

    __repr__ = __str__

