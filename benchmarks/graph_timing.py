"""Timing recorded work the way our benchmarks compare it: one graph, replayed."""
from __future__ import annotations

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
