"""Buffers passed to shader calls are not kept alive by the graphs' descriptor-set caches: once
the user drops them (and the GPU is done), their memory goes back."""
from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
from helpers import random_array

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch import _native
from vkdispatch.codegen.abbreviations import Buff, Const, f32

ELEMENTS = 512
ROUNDS = 60


@vd.shader("buf.size", local_size=(64, 1, 1))
def scale(buf: Buff[f32], factor: Const[f32]):
    i = vc.global_invocation_id().x
    buf[i] = buf[i] * factor


def _settle() -> None:
    gc.collect()
    vd.queue_wait_idle()


@pytest.mark.parametrize("mode", ["immediate", "graph"])
def test_dropped_buffers_are_freed_after_calls(context, rng, mode):
    data = random_array(rng, (ELEMENTS,), np.float32)
    graph = vd.CommandGraph() if mode == "graph" else None
    _settle()
    start_buffers = _native.live_buffer_count()
    start_sets = _native.live_descriptor_set_count()
    refs = []
    for round_index in range(ROUNDS):
        buf = vd.asbuffer(data)
        factor = float(round_index % 7 + 1)
        if graph is None:
            scale(buf, factor)
        else:
            scale(buf, factor, graph=graph)
            graph.submit()
            graph.reset()
        if round_index % 10 == 0:
            np.testing.assert_allclose(buf.read(0), data * factor, rtol=1e-6)
        refs.append(weakref.ref(buf))
        del buf
    _settle()
    assert all(ref() is None for ref in refs), "a cache kept a dropped Buffer alive"
    assert _native.live_buffer_count() <= start_buffers + 1  # + a graph's uniform buffer
    # The last recording keeps its set until the next one replaces it.
    assert _native.live_descriptor_set_count() <= start_sets + 1
    if graph is not None:
        graph.destroy()


def test_cached_set_of_a_dropped_buffer_is_never_reused(context, rng):
    """A new buffer may get a dead one's id(): it must get its own descriptor set."""
    for _ in range(20):
        data = random_array(rng, (ELEMENTS,), np.float32)
        buf = vd.asbuffer(data)
        scale(buf, 3.0)
        np.testing.assert_allclose(buf.read(0), data * 3.0, rtol=1e-6)
        del buf
        gc.collect()
