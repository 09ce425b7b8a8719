"""The plan cache of vd.vkfft and the one path every transform takes: describe the transform
(FFTConfig), fetch or build its plan, record it into a graph.

Plans are cached per context, keyed by everything that shapes the kernels (never by buffers:
buffers are bound when a run is recorded, and the native plan keeps the applications of the
buffers it ran on most recently).
"""
from __future__ import annotations

import dataclasses
import threading
from typing import Optional, Tuple

from vkdispatch import dtypes as dt
from vkdispatch.base.buffer import Buffer
from vkdispatch.base.context import get_context
from vkdispatch.execution_pipeline.command_graph import CommandGraph
from vkdispatch.execution_pipeline.graphs import graph_or_global
from vkdispatch.vkfft.vkfft_plan import VkFFTPlan

__all__ = ["FFTConfig", "get_fft_plan", "execute_fft_plan", "sanitize_input_tuple",
           "clear_plan_cache"]


class _PlanCacheKey:
    """The key of the plan cache in ``Context.derived``."""


_PLANS = _PlanCacheKey()
_lock = threading.Lock()


def sanitize_input_tuple(value) -> Optional[tuple]:
    """``value`` as a tuple (nested sequences too), or None: lists and tuples share entries."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return tuple(sanitize_input_tuple(v) if isinstance(v, (list, tuple)) else v
                     for v in value)
    return value


@dataclasses.dataclass(frozen=True)
class FFTConfig:
    """What a transform needs of its plan (buffer_handle and single_kernel_multiple_batches are
    kept for compatibility and not part of the plan)."""

    buffer_handle: int
    shape: Tuple[int, ...]
    do_r2c: bool = False
    axes: Tuple[int, ...] = None
    normalize: bool = False
    padding: Tuple[Tuple[int, int], ...] = None
    pad_freq_domain: bool = False
    kernel_count: int = 0
    input_shape: Tuple[int, ...] = None
    input_type: type = None
    kernel_convolution: bool = False
    conjugate_convolution: bool = False
    convolution_features: int = 1
    num_batches: int = 1
    single_kernel_multiple_batches: bool = False
    keep_shader_code: bool = False
    fourier_type: type = dt.complex64
    runs: int = 1


def get_fft_plan(shape, do_r2c=False, axes=None, normalize=False, padding=None,
                 pad_frequency_domain=False, kernel_count=0, input_shape=None, input_type=None,
                 kernel_convolution=False, conjugate_convolution=False, convolution_features=1,
                 num_batches=1, keep_shader_code=False, fourier_type=dt.complex64,
                 runs=1) -> VkFFTPlan:
    """The current context's plan for these parameters, built on first use."""
    key = (sanitize_input_tuple(shape), bool(do_r2c), sanitize_input_tuple(axes),
           bool(normalize), sanitize_input_tuple(padding), bool(pad_frequency_domain),
           kernel_count, sanitize_input_tuple(input_shape), input_type,
           bool(kernel_convolution), int(conjugate_convolution), convolution_features,
           num_batches, bool(keep_shader_code), fourier_type, runs)
    context = get_context()
    with _lock:
        plans = context.derived.setdefault(_PLANS, {})
        plan = plans.get(key)
    if plan is None or plan.destroyed:
        plan = VkFFTPlan(shape, do_r2c=do_r2c, axes=axes, normalize=normalize, padding=padding,
                         pad_frequency_domain=pad_frequency_domain, kernel_count=kernel_count,
                         input_shape=input_shape, input_type=input_type,
                         kernel_convolution=kernel_convolution,
                         conjugate_convolution=int(conjugate_convolution),
                         convolution_features=convolution_features, num_batches=num_batches,
                         keep_shader_code=keep_shader_code, fourier_type=fourier_type,
                         runs=runs)
        with _lock:
            plans[key] = plan
    return plan


def clear_plan_cache() -> None:
    """Forgets the current context's cached plans (each is freed once no graph uses it)."""
    context = get_context()
    with _lock:
        context.derived.pop(_PLANS, None)


def execute_fft_plan(buffer: Buffer, inverse: bool, config: FFTConfig, kernel: Buffer = None,
                     input: Buffer = None, graph: CommandGraph = None) -> None:
    """Fetches the plan of ``config`` and records a run of it (submitted at once by an
    immediate graph)."""
    graph = graph_or_global(graph)
    plan = get_fft_plan(config.shape, do_r2c=config.do_r2c, axes=config.axes,
                        normalize=config.normalize, padding=config.padding,
                        pad_frequency_domain=config.pad_freq_domain,
                        kernel_count=config.kernel_count, input_shape=config.input_shape,
                        input_type=config.input_type,
                        kernel_convolution=config.kernel_convolution,
                        conjugate_convolution=config.conjugate_convolution,
                        convolution_features=config.convolution_features,
                        num_batches=config.num_batches,
                        keep_shader_code=config.keep_shader_code,
                        fourier_type=config.fourier_type,
                        runs=config.runs)
    plan.record(graph, buffer, inverse, kernel, input)
