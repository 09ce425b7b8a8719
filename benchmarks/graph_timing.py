"""Timing the way our benchmarks compare: recorded work as one graph replayed, and actions
that wait for their own work by the wall clock, each timed at the clocks a busy GPU runs at.

A GPU left idle lowers its clocks and raises them again only under sustained load. On an
H200, after a few seconds idle (a numpy reference, shaders compiling), a 256 MiB copy took
0.34 ms instead of 0.13 and our 25-point FFT 1.6 ms instead of 0.32, until about 0.3 s of
back-to-back work had passed (benchmarks/README.md, twenty-eighth session): a figure timed in
the first milliseconds after a pause measures the clocks, and unevenly, not the code. So the
first figure after a pause is taken only after RAMP_SECONDS of the same work back to back.
"""
from __future__ import annotations

import math
import statistics
import time

import vkdispatch as vd

IDLE_SECONDS = 0.25  # nothing timed for this long: the clocks may have gone down
RAMP_SECONDS = 0.5   # work back to back for this long brings them up (an H200: about 0.3 s)
_last_timed = -math.inf  # perf_counter() when the last timed run ended


def timed_seconds(run, warm_up=None) -> float:
    """Wall seconds of one ``run()`` (work that waits for itself to finish), after an untimed
    ``warm_up()`` (default: ``run()``; a shorter one where ``run`` is many calls), and after
    RAMP_SECONDS of ``warm_up()`` back to back if nothing was timed in the last IDLE_SECONDS."""
    global _last_timed
    warm_up = warm_up or run
    start = time.perf_counter()
    warm_up()
    if start - _last_timed > IDLE_SECONDS:
        while time.perf_counter() - start < RAMP_SECONDS:
            warm_up()
    start = time.perf_counter()
    run()
    _last_timed = time.perf_counter()
    return _last_timed - start


def graph_replay_seconds(graph: vd.CommandGraph, replays: int) -> float:
    """Seconds per replay of a recorded ``graph``: one submission replaying it ``replays``
    times, timed by ``timed_seconds`` (the timed submit reuses the recording)."""
    def run():
        graph.submit(instance_count=replays)
        vd.queue_wait_idle()
    return timed_seconds(run) / replays


def gpu_seconds(record, replays: int) -> float:
    """Seconds per replay of what ``record(graph)`` records (``graph_replay_seconds`` of a
    graph made for the measurement)."""
    graph = vd.CommandGraph()
    record(graph)
    try:
        return graph_replay_seconds(graph, replays)
    finally:
        graph.destroy()


def seconds(action) -> float:
    """Wall seconds of one call of ``action`` (which waits for the work it starts), at
    whatever clocks the GPU has (for figures about a first call, or one after idling)."""
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def median_seconds(action, repeats: int) -> float:
    """The median of ``repeats`` calls of ``action``, each timed by ``timed_seconds`` (the
    untimed calls also warm pipelines, staging memory and first uses)."""
    return statistics.median(timed_seconds(action) for _ in range(repeats))
