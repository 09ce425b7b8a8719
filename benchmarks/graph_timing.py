"""Timing the way our benchmarks compare: recorded work as one graph replayed, and actions
that wait for their own work by the wall clock."""
from __future__ import annotations

import statistics
import time

import vkdispatch as vd


def gpu_seconds(record, replays: int) -> float:
    """Seconds per replay of what ``record(graph)`` records: one graph submission replaying
    it ``replays`` times, after an untimed one (the timed submit reuses the recording)."""
    graph = vd.CommandGraph()
    record(graph)
    graph.submit(instance_count=replays)
    vd.queue_wait_idle()
    start = time.perf_counter()
    graph.submit(instance_count=replays)
    vd.queue_wait_idle()
    seconds = (time.perf_counter() - start) / replays
    graph.destroy()
    return seconds


def seconds(action) -> float:
    """Wall seconds of one call of ``action`` (which waits for the work it starts)."""
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def median_seconds(action, repeats: int) -> float:
    """The median of ``repeats`` timed calls of ``action``, after an untimed one (warm-up:
    pipelines, staging memory, first uses)."""
    action()
    return statistics.median(seconds(action) for _ in range(repeats))
