"""CUDA graph capture: the CUDA backend records a CommandGraph's submissions into a CUDA graph.
This Vulkan build has no CUDA backend, so the names exist (code that imports them runs
unchanged) and using them raises InvalidStateError saying so."""
from __future__ import annotations

from typing import Any

from vkdispatch.errors import InvalidStateError

__all__ = ["CUDAGraphCapture", "cuda_graph_capture", "get_cuda_capture"]

_UNAVAILABLE = ("CUDA graph capture needs the CUDA backend, which this Vulkan build of "
                "vkdispatch does not include; submit a vd.CommandGraph instead (its recording is "
                "kept and replayed without re-recording)")


class CUDAGraphCapture:
    """A CUDA graph being captured (CUDA backend only)."""

    def __init__(self, *args: Any, **kwargs: Any):
        raise InvalidStateError(_UNAVAILABLE)


def cuda_graph_capture(*args: Any, **kwargs: Any):
    """Context manager capturing submissions into a CUDA graph (CUDA backend only)."""
    raise InvalidStateError(_UNAVAILABLE)


def get_cuda_capture() -> CUDAGraphCapture | None:
    """The capture in progress on this thread: never any in a Vulkan build."""
    return None
