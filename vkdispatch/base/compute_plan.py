"""ComputePlan: a compiled compute shader with its pipeline on every device of the context."""
from __future__ import annotations

from typing import Any, Callable

from vkdispatch.base.context import get_context
from vkdispatch.base.handle import Handle
from vkdispatch.base.shader_cache import compile_glsl
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["ComputePlan", "context_plan"]

_BINDING_CODES = (1, 3, 5)


class ComputePlan(Handle):
    """A GLSL compute shader compiled to a pipeline (any valid Vulkan compute shader works).

    Args:
        shader_source: GLSL 450 source with a ``main`` entry point.
        binding_type_list: descriptor type per binding of set 0: 1 storage buffer,
            3 uniform buffer, 5 combined image sampler.
        pc_size: bytes of push constants the shader declares (0 for none).
        shader_name: label used in compiler messages.

    Raises:
        ShaderBuildError: the GLSL does not compile (message has the log and numbered source).
        ValueError: a binding code or the push-constant size is invalid for the device.
    """

    def __init__(self, shader_source: str, binding_type_list: list, pc_size: int,
                 shader_name: str):
        if not isinstance(shader_source, str):
            raise InvalidTypeError(f"shader_source must be GLSL source text (str), got "
                                   f"{type(shader_source).__name__}")
        for position, code in enumerate(binding_type_list):
            if code not in _BINDING_CODES:
                raise InvalidArgumentError(f"binding_type_list[{position}] must be 1 (storage "
                                           f"buffer), 3 (uniform buffer) or 5 (sampler), "
                                           f"got {code!r}")
        if isinstance(pc_size, bool) or not isinstance(pc_size, int) or pc_size < 0:
            raise InvalidArgumentError(f"pc_size must be a non-negative int, got {pc_size!r}")
        self.context = get_context()
        self.shader_source = shader_source
        self.binding_list = list(binding_type_list)
        self.pc_size = pc_size
        self.name = shader_name
        module = self.context.native_module
        spirv = compile_glsl(module, shader_source, shader_name)
        self._native = module.NativeComputePlan(self.context.native, spirv, self.binding_list,
                                                pc_size, shader_name,
                                                self.context.pipeline_cache())
        self._register(self.context.handles)

    def pipeline_statistics(self, device_index: int = 0) -> dict[str, dict[str, Any]]:
        """What the driver of device ``device_index`` compiles this shader to, as it reports
        it (``VK_KHR_pipeline_executable_properties``): per program the driver made (one on
        most drivers; NVIDIA names it ``"CS"``), its statistics by the driver's own names, each
        a bool, int or float, e.g. NVIDIA's ``"Register Count"`` (per invocation) and
        ``"Shared Memory Size"`` (bytes per workgroup). Asks for a pipeline of its own, built
        and destroyed by the call; the plan's own pipeline is not touched.

        Raises:
            ValueError: the device's driver reports no statistics (lavapipe, for one).
            IndexError: the context has no device ``device_index``.
        """
        if isinstance(device_index, bool) or not isinstance(device_index, int):
            raise InvalidTypeError(f"device_index must be an int, got "
                                   f"{type(device_index).__name__}")
        if self.destroyed:
            raise self.unusable_error(f"the compute plan '{self.name}'")
        module = self.context.native_module
        spirv = compile_glsl(module, self.shader_source, self.name)
        statistics: dict[str, dict[str, Any]] = {}
        for executable, name, _description, value in module.pipeline_statistics(
                self.context.native, device_index, spirv, self.binding_list, self.pc_size,
                self.name):
            statistics.setdefault(executable, {})[name] = value
        return statistics

    def _release(self) -> None:
        self._native.close()


class _ContextPlansKey:
    """The key of the library's own kernels in ``Context.derived``."""


_CONTEXT_PLANS = _ContextPlansKey()


def context_plan(context, name: str, source: Callable[[], str], binding_type_list: list,
                 pc_size: int) -> ComputePlan:
    """The library kernel called ``name`` (unique per GLSL source) in ``context``: built from
    ``source()`` on its first use there (or after it was destroyed), then kept with the
    context."""
    plans = context.derived.setdefault(_CONTEXT_PLANS, {})
    plan = plans.get(name)
    if plan is None or plan.destroyed:
        with context:
            plan = plans[name] = ComputePlan(source(), binding_type_list, pc_size, name)
    return plan
