"""How many logical invocations each invocation of a shader runs on a context (coarsening, see
:mod:`vkdispatch.codegen.coarsening`): the shader's own choice (``@vd.shader(coarsen=...)``),
else the ``VKDISPATCH_COARSEN`` environment variable (a factor; 1 turns it off), else the
device's default, measured with ``benchmarks/elementwise.py``."""
from __future__ import annotations

import os

from vkdispatch.codegen.builder import ShaderDescription
from vkdispatch.codegen.coarsening import coarsenable, obstacle
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["check_coarsen", "coarsening_factor"]

_CPU_DEVICE = 4  # DeviceInfo.device_type of CPU implementations
# GPUs: on an H100 (2026-11-24, benchmarks/elementwise.py and a sweep of factors 1-8 and
# workgroups of 128-1024) two strided elements per invocation, loads first, reached torch's
# bandwidth for axpy and x*y+z from 2^24 elements up (one per invocation: 0.82-0.90x); four
# were 1% slower, eight 3-4%. CPU devices (lavapipe) vectorise invocations already: coarsening
# gained nothing there.
_GPU_FACTOR = 2
_CPU_FACTOR = 1
_ENVIRONMENT = "VKDISPATCH_COARSEN"


def check_coarsen(coarsen, description: ShaderDescription):
    """The decorator's ``coarsen`` argument checked: None (automatic), False/True, or a factor
    of at least 1 for a shader whose invocations allow it."""
    if coarsen is None or isinstance(coarsen, bool):
        return coarsen
    if not isinstance(coarsen, int) or coarsen < 1:
        raise InvalidTypeError(f"coarsen must be None, a bool or an int >= 1, got {coarsen!r}")
    if coarsen > 1 and not coarsenable(description):
        raise InvalidArgumentError(
            f"coarsen={coarsen}: shader '{description.name}' cannot run several invocations per "
            f"invocation ({obstacle(description)}); leave coarsen=None")
    return coarsen


def _environment_factor() -> int | None:
    value = os.environ.get(_ENVIRONMENT)
    if not value:
        return None
    try:
        factor = int(value)
    except ValueError:
        raise InvalidArgumentError(f"{_ENVIRONMENT} must be an int >= 1, got {value!r}") from None
    if factor < 1:
        raise InvalidArgumentError(f"{_ENVIRONMENT} must be an int >= 1, got {value!r}")
    return factor


def coarsening_factor(coarsen, description: ShaderDescription, device_types) -> int:
    """The factor a shader built for devices of ``device_types`` uses."""
    if coarsen is False or coarsen == 1 or not coarsenable(description):
        return 1
    if isinstance(coarsen, int) and not isinstance(coarsen, bool):
        return coarsen
    factor = _environment_factor()
    if factor is not None:
        return factor
    return min(_CPU_FACTOR if kind == _CPU_DEVICE else _GPU_FACTOR for kind in device_types)
