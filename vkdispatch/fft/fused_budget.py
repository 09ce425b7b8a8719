"""How many registers each thread of a fused transform pair holds: a forward and an inverse
FFT of the same line in one shader (``vd.fft.convolve``, Rader's and Bluestein's lengths)."""
from __future__ import annotations

import math
from typing import Tuple

from vkdispatch.errors import InvalidArgumentError
from vkdispatch.fft.config import DeviceLimits
from vkdispatch.fft.multi_pass import fits_one_pass

__all__ = ["REGISTER_BUDGETS", "CONVOLUTION_BUDGETS", "CONVOLUTION_WHOLE_LINE_BYTES",
           "fused_register_budget"]

# Registers per thread of a fused pair inside Rader's and Bluestein's shaders, as measured when
# they were built (an H100 then ran the fused convolution of N = 1024 in 0.34 ms with 4
# registers, 0.41 with 8, 0.52 with 16).
REGISTER_BUDGETS = (4, 8, 16)
# ``vd.fft.convolve``'s fused line, since the inverse runs as the adjoint of the forward stages:
# on an H200 (graph replays of 256 MiB) 16 registers beat 8 and 4 at every length, N = 1024 /
# 2048 / 4096 taking 0.227 / 0.227 / 0.328 ms with 16, 0.228 / 0.297 / 0.372 with 8 and
# 0.282 / 0.374 / 0.478 with 4, and convolve2D of 512^2 .. 4096^2 5-24% less time than with 4.
# A larger budget needs fewer threads, so it fits wherever a smaller one does.
CONVOLUTION_BUDGETS = (16,)
# Bytes of shared memory a contiguous line of ``vd.fft.convolve``'s fused shader may take as
# complex values; a longer line exchanges one component at a time (half the footprint, two
# rounds per exchange). On an H200 the convolution of N = 4096 (34 KiB a padded line) took
# 0.332 ms whole and 0.304 ms split, with 16 or 32 registers; the FFT alone of 4096 went the
# other way (3558 GB/s whole, 3380 split), so only the convolution prefers it.
CONVOLUTION_WHOLE_LINE_BYTES = 24 * 1024


def fused_register_budget(shape: Tuple, axis: int, compute_type, limits: DeviceLimits,
                          budgets: Tuple[int, ...] = REGISTER_BUDGETS) -> int:
    """The smallest of ``budgets`` with which a line fits one workgroup (the largest on CPU
    drivers, where each extra stage's exchange is what costs)."""
    n, stride = shape[axis], math.prod(shape[axis + 1:])
    for budget in budgets[::-1] if limits.cpu else budgets:
        if fits_one_pass(n, compute_type, limits, stride, budget):
            return budget
    raise InvalidArgumentError(
        f"convolution along an axis of length {n} needs the line in one workgroup; "
        f"{n} {compute_type.name} values do not fit this device's "
        f"{limits.max_shared_memory} bytes of shared memory and "
        f"{limits.max_workgroup_invocations} invocations")
