"""How a CommandGraph holding replica steps runs (``vd.copy_replica`` / ``vd.all_reduce``
recorded with ``graph=``): in segments. The entries between two steps form one native command
list, submitted to every queue; between two segments the step runs, its copies and kernels
ordered on each queue after the segment before it and ahead of the segment after it (the
steps order their own work against the queues, see :mod:`vkdispatch.base.replicas`)."""
from __future__ import annotations

from vkdispatch.base.replicas import ReplicaStep

__all__ = ["split"]


def split(entries: list) -> tuple[list[list], list[ReplicaStep]]:
    """The entries between the steps (one list more than there are steps) and the steps."""
    segments: list[list] = [[]]
    steps: list[ReplicaStep] = []
    for entry in entries:
        if type(entry) is ReplicaStep:
            steps.append(entry)
            segments.append([])
        else:
            segments[-1].append(entry)
    return segments, steps
