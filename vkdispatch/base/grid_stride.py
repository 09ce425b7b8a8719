"""Launch geometry of the hand-written grid-stride kernels (the copy kernel of ``vd.copy``, the
combining kernel of ``vd.all_reduce``): each invocation loops over elements ``i``, ``i +
stride``, ... with ``stride = gl_NumWorkGroups.x * LOCAL_SIZE``, so any count fits one launch.
With Vulkan's least maxComputeWorkGroupCount[0] (65535) an invocation loops at most 257 times
for counts below 2^32, far below the 65535 loop iterations after which lavapipe leaves a
shader's loops."""
from __future__ import annotations

from vkdispatch.base.context import Context

__all__ = ["LOCAL_SIZE", "workgroups"]

LOCAL_SIZE = 256


def workgroups(context: Context, count: int) -> tuple[int, int, int]:
    """One invocation per element, at most the device's workgroup count along x (the loop
    covers the rest)."""
    return (min(-(-count // LOCAL_SIZE), context.max_workgroup_count[0]), 1, 1)
