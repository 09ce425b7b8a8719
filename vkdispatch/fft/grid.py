"""Work distribution of an FFT shader: which invocations own which lines.

Contiguous axis: a workgroup holds ``lines_per_group`` whole lines, ``batch_threads`` threads
each (``local_size = (threads, lines, 1)``, or ``(lines, 1, 1)`` with one thread per line), so
a thread's loads at ``t + m N/r`` are consecutive across the threads of a line. Strided axis:
a workgroup holds ``inner_lines`` lines that are adjacent in memory, the lane ``local_id.x``
choosing the line (``local_size = (inner, threads, 1)``), so the threads of one ``t`` read
neighbouring addresses. The workgroup count is spread over x, y and z; the shader rebuilds the
linear group index and returns early from the padding groups (uniform across a group).
"""
from __future__ import annotations

import dataclasses

import vkdispatch.codegen as vc
from vkdispatch.errors import InvalidArgumentError
from vkdispatch.fft.config import FFTConfig

__all__ = ["FFTGridManager", "StridedGroups", "split_workgroups"]

TARGET_GROUP_THREADS = 128  # invocations per workgroup the line packing aims for
TARGET_INNER_BYTES = 256    # adjacent strided lines per group: a 256-byte run per load
# Lines owned by fewer threads than this are loaded and stored through shared memory by the
# whole group in address order (coalesced), instead of each thread reading its own run.
STAGED_BELOW_THREADS = 8
# Groups staging their stores hold at most this many invocations, down to one 32-byte sector
# of lines: on an H100, pass A of N = 2^17 / 2^18 (lines of 512, 32 threads each) ran at
# 0.66 of the copy's bandwidth with 8 lines a group (64 bytes) and at 0.91 with 4; without
# its twiddles at 0.97 either way, so the wider group was bound by the twiddles' sin / cos.
STAGED_GROUP_THREADS = TARGET_GROUP_THREADS
SECTOR_BYTES = 32
BANK_BYTES, BANKS = 4, 32  # shared memory's banks


@dataclasses.dataclass(frozen=True)
class StridedGroups:
    """How a strided pass groups its lines: ``run_bytes`` of adjacent lines per workgroup
    (fewer where its stores scatter them); ``staged_stores``: the group's lines leave through
    shared memory one line after the other, every value of a line before the next, for an
    output map that stores each line as one run (the four-step pass A's transposing store)."""
    run_bytes: int = TARGET_INNER_BYTES
    staged_stores: bool = False


def split_workgroups(total: int, max_count: tuple) -> tuple[int, int, int]:
    """``(x, y, z)`` covering ``total`` groups within the per-dimension limits (the product
    may exceed ``total``; the shader skips the excess)."""
    x = min(total, max_count[0])
    y = min(-(-total // x), max_count[1])
    z = -(-total // (x * y))
    if z > max_count[2]:
        raise InvalidArgumentError(f"{total} workgroups exceed the device's workgroup count "
                                   f"limits {tuple(max_count)}")
    return (x, y, z)


class FFTGridManager:
    """Launch geometry of one FFT shader and the per-invocation variables it declares.

    Attributes: ``local_size``, ``workgroups`` (3-tuples), ``group_count`` (linear groups
    needed), ``lines_per_group`` (contiguous) / ``inner_lines`` (strided), and after
    :meth:`declare`: ``tid``, ``batch_offset`` (element offset of the line, in the buffer's
    logical shape), ``line`` (the line's index, contiguous axes only), ``line_valid`` (None
    when every line slot is real), ``group`` (the linear group index) and ``sdata``.

    ``staged``: global loads and stores of a contiguous group go through shared memory in
    address order (short lines, where each thread's own run would not coalesce).
    ``staged_stores`` (strided groups, see :class:`StridedGroups`): the stores go through
    shared memory line by line, each line a row of ``row_pitch`` values there.
    """

    def __init__(self, config: FFTConfig, force_sdata: bool = False,
                 declare_variables: bool = True, strided: StridedGroups | None = None):
        self.config = config
        self.force_sdata = force_sdata
        strided = strided or StridedGroups()
        self.inner_run_bytes = strided.run_bytes
        self.contiguous = config.fft_stride == 1
        self.threads = config.batch_threads
        self.split = config.exchange_split
        # CPU drivers emulate shared memory with scalar gathers: staging only costs there.
        staging = config.N > 1 and not config.limits.cpu
        self.staged = self.contiguous and self.threads < STAGED_BELOW_THREADS \
            and config.line_count > 1 and staging
        self.staged_stores = strided.staged_stores and not self.contiguous and staging \
            and not self.split
        self.uses_sdata = config.uses_sdata or force_sdata or self.staged or self.staged_stores
        row = config.sdata_row_size_padded + 1
        if self.staged_stores:  # room for the widest row pitch (see _row_pitch)
            row = max(row, config.N + self._bank_period)
        self._line_bytes = row * config.sdata_item_size if self.uses_sdata else 0
        if self.contiguous:
            self._plan_contiguous()
        else:
            self._plan_strided()
        self.workgroups = split_workgroups(self.group_count, config.limits.max_workgroup_count)
        self.exec_size = tuple(w * s for w, s in zip(self.workgroups, self.local_size))
        self.tid = self.batch_offset = self.line_valid = self.sdata = None
        self.lane = self.line = self.group = self.inner = None
        if declare_variables:
            self.declare()

    # -- geometry ---------------------------------------------------------------------------

    def _group_limit(self, lanes_axis_limit: int) -> int:
        limits = self.config.limits
        count = min(lanes_axis_limit, limits.max_workgroup_invocations // self.threads)
        if self._line_bytes:
            count = min(count, limits.max_shared_memory // self._line_bytes)
        return max(1, count)

    def _plan_contiguous(self) -> None:
        limits, lines = self.config.limits, self.config.line_count
        axis_limit = limits.max_workgroup_size[1 if self.threads > 1 else 0]
        wanted = max(1, TARGET_GROUP_THREADS // self.threads)
        self.lines_per_group = min(wanted, self._group_limit(axis_limit), lines)
        self.inner_lines = 1
        self.group_count = -(-lines // self.lines_per_group)
        self.partial = lines % self.lines_per_group != 0
        self.staged = self.staged and self.lines_per_group > 1
        self.row_pitch = self._line_pitch()
        self.local_size = ((self.threads, self.lines_per_group, 1) if self.threads > 1
                           else (self.lines_per_group, 1, 1))

    def _plan_strided(self) -> None:
        config = self.config
        limits, stride = config.limits, config.fft_stride
        item = config.compute_type.item_size
        wanted = max(1, self.inner_run_bytes // item)
        if self.staged_stores:
            wanted = min(wanted, max(SECTOR_BYTES // item, STAGED_GROUP_THREADS // self.threads))
        cap = min(wanted, self._group_limit(limits.max_workgroup_size[0]), stride)
        # A divisor of the stride keeps every group full and its runs aligned.
        self.inner_lines = max(d for d in range(1, cap + 1) if stride % d == 0)
        if self.inner_lines * 2 <= cap:  # a poor divisor: partial groups cost less
            self.inner_lines = cap
        self.lines_per_group = 1
        self.inner_groups = -(-stride // self.inner_lines)
        self.group_count = config.batch_outer_count * self.inner_groups
        self.partial = stride % self.inner_lines != 0
        self.local_size = (self.inner_lines, self.threads, 1)
        self.row_pitch = self._row_pitch() if self.staged_stores else None

    @property
    def _bank_period(self) -> int:
        """Values of the compute type that one pass over the banks holds."""
        return max(1, BANK_BYTES * BANKS // self.config.sdata_item_size)

    def _line_pitch(self) -> int:
        """The row pitch of a contiguous group's lines in shared memory. One line's threads
        touch consecutive positions and the lines of a group follow in the lanes, so a pitch
        of ``threads`` modulo the banks' period puts every lane of a pass over the banks on a
        bank of its own (with one thread a line, any odd pitch does). An odd pitch at 2-8
        threads a line puts two lanes on a bank: on an H200, N = 32 / 64 / 48 ran at 0.91 /
        0.89 / 0.76 of the copy with it and at 0.98 / 0.97 / 0.88 with this pitch."""
        padded = self.config.sdata_row_size_padded
        if self.lines_per_group == 1:
            return padded
        if self.threads == 1:
            return padded | 1
        return self._spread_pitch(padded, self.threads, self.lines_per_group) or padded | 1

    def _row_pitch(self) -> int:
        """The row pitch of staged stores: at least N values, and a subgroup's registers
        (``inner_lines`` lanes, each with the same register of ``subgroup / inner_lines``
        threads: consecutive positions) spread over the banks evenly. Reading a row is
        conflict-free at any pitch (consecutive values)."""
        n = self.config.N
        positions = max(1, self.config.limits.subgroup_size // self.inner_lines)
        return self._spread_pitch(n, positions, self.inner_lines) or n

    def _spread_pitch(self, least: int, lanes: int, rows: int) -> int | None:
        """The least pitch of at least ``least`` values that is ``lanes`` modulo the banks'
        period, so each row's lanes start on the banks after the previous row's; None when
        ``rows`` rows of it would not fit the shared memory."""
        pitch = least + (lanes - least) % self._bank_period
        room = self.config.limits.max_shared_memory // self.config.sdata_item_size
        return pitch if pitch * rows <= room else None

    @property
    def group_lines(self) -> int:
        """Lines one workgroup holds."""
        return self.lines_per_group if self.contiguous else self.inner_lines

    @property
    def sdata_size(self) -> int:
        """Shared-memory elements of the whole group."""
        if not self.uses_sdata:
            return 0
        if self.contiguous:
            return self.row_pitch * self.lines_per_group
        rows = self.config.sdata_row_size_padded
        if self.staged_stores:
            rows = max(rows, self.row_pitch)
        return rows * self.inner_lines

    # -- shader variables -------------------------------------------------------------------

    def declare(self) -> None:
        """Declares the group index, the thread's line and its offsets in the shader."""
        group = self.group = self._linear_group()
        local = vc.local_invocation_id()
        if self.contiguous:
            slot = local.y if self.threads > 1 else local.x
            self.tid = local.x.to_register("fft_tid") if self.threads > 1 else 0
            line = (group * self.lines_per_group + slot).to_register("fft_line")
            self.batch_offset = (line * self.config.N).to_register("fft_batch_offset")
            self.lane = slot
            self.line = line
            line_count = self.config.line_count
            self.line_valid = line < line_count if self.partial else None
        else:
            self.tid = local.y.to_register("fft_tid") if self.threads > 1 else 0
            outer = (group // self.inner_groups).to_register("fft_outer")
            inner = ((group % self.inner_groups) * self.inner_lines + local.x)
            inner = inner.to_register("fft_inner")
            self.batch_offset = (outer * self.config.batch_outer_stride + inner).to_register(
                "fft_batch_offset")
            self.lane = local.x
            self.inner = inner
            self.line_valid = inner < self.config.fft_stride if self.partial else None
        if self.uses_sdata:
            element = self.config.compute_type
            if self.split:
                element = element.child_type
            self.sdata = vc.shared_buffer(element, self.sdata_size, "sdata")

    def _linear_group(self):
        wg, count = vc.workgroup_id(), vc.num_workgroups()
        x, y, z = self.workgroups
        if y == 1 and z == 1:
            return wg.x.to_register("fft_group")
        group = (wg.x + count.x * (wg.y + count.y * wg.z)).to_register("fft_group")
        if x * y * z != self.group_count:
            vc.if_statement(group >= self.group_count, "return;")
        return group

    def sdata_index(self, position, slot=None):
        """Index in ``sdata`` of line position ``position`` (an int or a uint value) of the
        thread's line, or of line ``slot`` of a contiguous group: lines of a contiguous group
        are padded rows; adjacent strided lines interleave, so neighbouring lanes touch
        neighbouring words."""
        padded = self._pad(position)
        if self.contiguous:
            if self.lines_per_group == 1:
                return padded
            slot = self.lane if slot is None else slot
            return slot * self.row_pitch + padded
        if self.inner_lines == 1:
            return padded
        return padded * self.inner_lines + self.lane

    def row_index(self, position, slot=None):
        """Index in ``sdata`` of line position ``position`` of line ``slot`` (by default the
        thread's own) of a strided group staging its stores: lines are rows of
        ``row_pitch``."""
        slot = self.lane if slot is None else slot
        return slot * self.row_pitch + position

    def transposed_index(self, register: int, register_count: int, inner_only: bool = False):
        """Where register ``register`` of this invocation sits in the transposed
        (consumption-order) layout: ``l + P R w + r P`` for invocation ``l`` of ``P`` in
        group ``w``; with ``inner_only`` one kernel serves every outer batch: groups repeat
        per outer batch (strided) or one line's threads cover it (contiguous)."""
        invocations = self.local_size[0] * self.local_size[1] * self.local_size[2]
        if inner_only and self.contiguous:
            return self.tid + register * self.threads if register else self.tid
        local = vc.local_invocation_index()
        group = self.group % self.inner_groups if inner_only else self.group
        index = local + group * (invocations * register_count)
        return index + register * invocations if register else index

    def _pad(self, position):
        config = self.config
        if config.sdata_row_size_padded == config.sdata_row_size:
            return position
        return position + position // config.pad_period
