"""How many registers each thread of a fused transform pair holds: a forward and an inverse
FFT of the same line in one shader (``vd.fft.convolve``, Rader's and Bluestein's lengths)."""
from __future__ import annotations

import math
from typing import Tuple

from vkdispatch.errors import InvalidArgumentError
from vkdispatch.fft.config import DeviceLimits
from vkdispatch.fft.multi_pass import fits_one_pass

__all__ = ["REGISTER_BUDGETS", "fused_register_budget"]

# Registers per thread of a fused line: the fused kernel holds a forward and an
# inverse transform, and on an H100 fewer registers (more threads per line, more stages)
# won over memory latency: N = 1024 took 0.34 ms with 4, 0.41 with 8, 0.52 with 16.
REGISTER_BUDGETS = (4, 8, 16)


def fused_register_budget(shape: Tuple, axis: int, compute_type, limits: DeviceLimits) -> int:
    """The smallest budget of :data:`REGISTER_BUDGETS` with which a line fits one workgroup
    (the largest on CPU drivers, where each extra stage's exchange is what costs); the same
    for the convolution and its transposed kernel layout."""
    n, stride = shape[axis], math.prod(shape[axis + 1:])
    for budget in REGISTER_BUDGETS[::-1] if limits.cpu else REGISTER_BUDGETS:
        if fits_one_pass(n, compute_type, limits, stride, budget):
            return budget
    raise InvalidArgumentError(
        f"convolution along an axis of length {n} needs the line in one workgroup; "
        f"{n} {compute_type.name} values do not fit this device's "
        f"{limits.max_shared_memory} bytes of shared memory and "
        f"{limits.max_workgroup_invocations} invocations")
