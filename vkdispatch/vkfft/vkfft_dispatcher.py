"""The plan cache of vd.vkfft and the one path every transform takes: describe the transform
(VkFFTConfig), fetch or build its plan, record it into a graph.

Plans are cached per context, keyed by their VkFFTConfig, which holds everything that shapes the
kernels and never a buffer: buffers are bound when a run is recorded, and the native plan keeps
the applications of the buffers it ran on most recently.
"""
from __future__ import annotations

import threading

from vkdispatch.base.buffer import Buffer
from vkdispatch.base.context import get_context
from vkdispatch.execution_pipeline.command_graph import CommandGraph
from vkdispatch.execution_pipeline.graphs import graph_or_global
from vkdispatch.vkfft.vkfft_config import VkFFTConfig
from vkdispatch.vkfft.vkfft_plan import VkFFTPlan

__all__ = ["get_fft_plan", "execute_fft_plan", "clear_plan_cache"]


class _PlanCacheKey:
    """The key of the plan cache in ``Context.derived``."""


_PLANS = _PlanCacheKey()
_lock = threading.Lock()


def get_fft_plan(config: VkFFTConfig) -> VkFFTPlan:
    """The current context's plan of ``config``, built on first use."""
    context = get_context()
    with _lock:
        plans = context.derived.setdefault(_PLANS, {})
        plan = plans.get(config)
    if plan is None or plan.destroyed:
        plan = VkFFTPlan.from_config(config)
        with _lock:
            plans[config] = plan
    return plan


def clear_plan_cache() -> None:
    """Forgets the current context's cached plans (each is freed once no graph uses it)."""
    context = get_context()
    with _lock:
        context.derived.pop(_PLANS, None)


def execute_fft_plan(buffer: Buffer, inverse: bool, config: VkFFTConfig, kernel: Buffer = None,
                     input: Buffer = None, graph: CommandGraph = None) -> None:
    """Fetches the plan of ``config`` and records a run of it (submitted at once by an
    immediate graph)."""
    graph = graph_or_global(graph)
    get_fft_plan(config).record(graph, buffer, inverse, kernel, input)
