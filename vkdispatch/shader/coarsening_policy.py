"""How many logical invocations each invocation of a shader runs on a context (coarsening, see
:mod:`vkdispatch.codegen.coarsening`): the shader's own choice (``@vd.shader(coarsen=...)``),
else the ``VKDISPATCH_COARSEN`` environment variable (a factor; 1 turns it off), else the
device's default, measured with ``benchmarks/elementwise.py``. Factors above
:data:`~vkdispatch.codegen.coarsening.MAX_FACTOR` are refused (they take minutes to compile)."""
from __future__ import annotations

from vkdispatch.base.device_info import is_cpu_device
from vkdispatch.base.environment import int_from_environment
from vkdispatch.codegen.builder import ShaderDescription
from vkdispatch.codegen.coarsening import MAX_FACTOR, coarsenable, obstacle
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["check_coarsen", "coarsening_factor", "COARSENED_LOCAL_SIZE"]

# Measured with benchmarks/elementwise.py and a sweep of factors 1-16 and workgroups of
# 128-1024 (2026-11-24): on the H100 two strided elements per invocation, loads first, reached
# torch's bandwidth from 2^24 elements up (one per invocation: 0.82-0.90x; four: 1-1.5% below
# two); the H200, with more bandwidth to cover, wanted four (axpy 0.99x torch, two: 0.95x).
# Other GPUs take four. CPU devices (lavapipe) vectorise invocations already: off there.
_MEASURED_FACTORS = {"H100": 2, "H200": 4}
_GPU_FACTOR = 4
_CPU_FACTOR = 1
# Workgroup size of coarsened shaders that ask for none: on the H200, 256 invocations per
# workgroup beat the device maximum (1024) by 7% at factor two (2% at four).
COARSENED_LOCAL_SIZE = 256
_ENVIRONMENT = "VKDISPATCH_COARSEN"


def check_coarsen(coarsen, description: ShaderDescription):
    """The decorator's ``coarsen`` argument checked: None or True (automatic), False (off), or
    a factor from 1 to MAX_FACTOR for a shader whose invocations allow it."""
    if coarsen is None or isinstance(coarsen, bool):
        return coarsen
    if not isinstance(coarsen, int) or coarsen < 1:
        raise InvalidTypeError(f"coarsen must be None, a bool or an int >= 1, got {coarsen!r}")
    if coarsen > MAX_FACTOR:
        raise InvalidArgumentError(
            f"coarsen={coarsen} is above the maximum of {MAX_FACTOR}: each logical invocation "
            f"is a copy of the shader's body, and such factors take minutes to compile")
    if coarsen > 1 and not coarsenable(description):
        raise InvalidArgumentError(
            f"coarsen={coarsen}: shader '{description.name}' cannot run several invocations per "
            f"invocation ({obstacle(description)}); leave coarsen=None")
    return coarsen


def _device_factor(info) -> int:
    if is_cpu_device(info):
        return _CPU_FACTOR
    return next((factor for name, factor in _MEASURED_FACTORS.items()
                 if name in info.device_name), _GPU_FACTOR)


def coarsening_factor(coarsen, description: ShaderDescription, device_infos) -> int:
    """The factor a shader built for the devices ``device_infos`` uses."""
    if coarsen is False or not coarsenable(description):
        return 1
    if isinstance(coarsen, int) and not isinstance(coarsen, bool):
        return coarsen  # 1: off
    factor = int_from_environment(_ENVIRONMENT, 1, MAX_FACTOR)
    if factor is not None:
        return factor
    return min(_device_factor(info) for info in device_infos)
