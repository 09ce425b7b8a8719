"""Buffer lifetimes: native allocations are released by destroy() and by garbage collection,
and creating/freeing many buffers does not leak host memory."""
from __future__ import annotations

import gc
import os

import numpy as np
import pytest
from helpers import random_array

import vkdispatch as vd
from vkdispatch import _native, errors

ELEMENTS = 256
PAGE = os.sysconf("SC_PAGE_SIZE")
RSS_BOUND = 32 << 20  # bytes a steady create/free loop may grow by (allocator slack)


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE


def churn(count: int, samples: list[np.ndarray]) -> int:
    """Creates, writes and destroys ``count`` buffers; verifies every 500th. Returns checks."""
    checked = 0
    for i in range(count):
        data = samples[i % len(samples)]
        buffer = vd.Buffer((ELEMENTS,), vd.float32)
        buffer.write(data)
        if i % 500 == 0:
            np.testing.assert_array_equal(buffer.read(0), data)
            checked += 1
        buffer.destroy()
    return checked


def test_buffer_create_free_10000_returns_live_count_and_bounds_rss(context, rng):
    samples = [random_array(rng, (ELEMENTS,), np.float32) for _ in range(7)]
    gc.collect()
    start_live = _native.live_buffer_count()
    churn(1000, samples)  # warm-up: allocator pools, staging, caches
    gc.collect()
    assert _native.live_buffer_count() == start_live
    start_rss = rss_bytes()
    assert churn(10_000, samples) == 20
    gc.collect()
    assert _native.live_buffer_count() == start_live
    growth = rss_bytes() - start_rss
    assert growth < RSS_BOUND, f"RSS grew by {growth / 2**20:.1f} MiB over 10,000 buffers"


def test_buffer_live_count_tracks_each_create_and_destroy(context, rng):
    start = _native.live_buffer_count()
    buffers = [vd.Buffer((ELEMENTS,), t) for t in (vd.float32, vd.vec4, vd.complex128)]
    assert _native.live_buffer_count() == start + 3
    for held, buffer in enumerate(buffers):
        buffer.destroy()
        assert _native.live_buffer_count() == start + 2 - held


def test_buffer_destroy_twice_is_a_no_op(context, rng):
    start = _native.live_buffer_count()
    data = random_array(rng, (ELEMENTS,), np.int32)
    buffer = vd.asbuffer(data)
    np.testing.assert_array_equal(buffer.read(0), data)
    assert not buffer.destroyed
    registered = len(context.handles)
    buffer.destroy()
    buffer.destroy()
    assert buffer.destroyed
    assert _native.live_buffer_count() == start
    assert len(context.handles) == registered - 1
    del buffer
    gc.collect()  # __del__ of a destroyed buffer must not free anything again
    assert _native.live_buffer_count() == start


@pytest.mark.parametrize("how", ["destroy", "_destroy"])
@pytest.mark.parametrize("use", ["read0", "read", "write"])
def test_buffer_destroyed_then_used_raises_and_others_survive(context, rng, use, how):
    """Also through ``_destroy()``, vkdispatch 0.1.0's hook, which scripts call directly."""
    start = _native.live_buffer_count()
    data = random_array(rng, (ELEMENTS,), np.float32)
    other_data = random_array(rng, (ELEMENTS,), np.float32)
    doomed, other = vd.asbuffer(data), vd.asbuffer(other_data)
    getattr(doomed, how)()
    assert doomed.destroyed
    assert _native.live_buffer_count() == start + 1
    getattr(doomed, how)()  # again: nothing more happens
    actions = {"read0": lambda: doomed.read(0), "read": doomed.read,
               "write": lambda: doomed.write(data)}
    with pytest.raises(ValueError, match="destroyed") as caught:
        actions[use]()
    assert isinstance(caught.value, errors.InvalidArgumentError)
    np.testing.assert_array_equal(other.read(0), other_data)


def test_buffer_dropped_without_destroy_is_freed_by_gc(context, rng):
    gc.collect()
    start = _native.live_buffer_count()
    registered = len(context.handles)
    data = random_array(rng, (ELEMENTS,), np.float32)
    buffers = [vd.Buffer((ELEMENTS,), vd.float32) for _ in range(100)]
    for buffer in buffers:
        buffer.write(data)
    assert _native.live_buffer_count() == start + 100
    assert len(context.handles) == registered + 100
    cycle = [buffers[0]]  # a reference cycle needs the cyclic collector, not refcounting
    cycle.append(cycle)
    del buffers, buffer, cycle
    gc.collect()
    assert _native.live_buffer_count() == start
    assert len(context.handles) == registered


def test_buffer_rfft_and_shorthand_buffers_are_freed_too(context, rng):
    gc.collect()
    start = _native.live_buffer_count()
    real = random_array(rng, (4, 10), np.float32)
    made = [vd.asrfftbuffer(real), vd.RFFTBuffer((8,)), vd.buffer_uv3(5), vd.buffer_c64((2, 2))]
    assert _native.live_buffer_count() == start + len(made)
    np.testing.assert_array_equal(made[0].read_real(0), real)
    made[0].destroy()
    assert _native.live_buffer_count() == start + len(made) - 1
    del made
    gc.collect()
    assert _native.live_buffer_count() == start
