"""The bound on unfinished submissions per queue (``max_in_flight``): where it comes from
(argument, ``VKDISPATCH_MAX_IN_FLIGHT``, default), how bad values are refused, and that threads
calling shaders under a small bound are held to it and get exact results."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from conftest import DEBUG
from helpers import spin_shader

import vkdispatch as vd
from vkdispatch.base.device_info import is_cpu_device
import vkdispatch.codegen as vc
from vkdispatch import _native
from vkdispatch.codegen.abbreviations import Buff, Const, u32
from vkdispatch.errors import InvalidArgumentError


def one_queue_context(context, **options) -> vd.Context:
    return vd.create_context(device_ids=[context.device_ids[0]], queue_counts=1, **options)


@pytest.mark.parametrize("environment, options, expected", [
    (None, {}, 1024), (None, {"max_in_flight": 5}, 5), ("7", {}, 7),
    ("7", {"max_in_flight": 9}, 9)])
def test_the_bound_comes_from_the_argument_then_the_environment_then_the_default(
        context, monkeypatch, environment, options, expected):
    if environment is None:
        monkeypatch.delenv("VKDISPATCH_MAX_IN_FLIGHT", raising=False)
    else:
        monkeypatch.setenv("VKDISPATCH_MAX_IN_FLIGHT", environment)
    ctx = one_queue_context(context, **options)
    try:
        assert ctx.max_in_flight == expected
    finally:
        ctx.close()
    assert _native.DEFAULT_MAX_IN_FLIGHT == 1024  # what the docs say


@pytest.mark.parametrize("value", [0, -3, 2**32, True, 2.0, "8"])
def test_bad_bounds_are_refused_naming_the_argument(context, value):
    with pytest.raises(InvalidArgumentError, match=rf"max_in_flight must be an int between 1 "
                                                   rf"and 4294967295, got {value!r}"):
        one_queue_context(context, max_in_flight=value)


@pytest.mark.parametrize("text", ["0", "many", "1.5"])
def test_a_bad_environment_bound_is_refused_naming_the_variable(context, monkeypatch, text):
    monkeypatch.setenv("VKDISPATCH_MAX_IN_FLIGHT", text)
    with pytest.raises(InvalidArgumentError, match="VKDISPATCH_MAX_IN_FLIGHT must be an int "
                                                   "between 1 and 4294967295"):
        one_queue_context(context)


@vd.shader("data.size")
def add(data: Buff[u32], amount: Const[u32]):
    i = vc.global_invocation_id().x
    data[i] = data[i] + amount


def test_threads_calling_shaders_under_a_small_bound_are_held_to_it_and_exact(context):
    bound, threads, calls, n = 3, 4, 30, 4096
    rng = np.random.default_rng(31)
    starts = rng.integers(0, 2**32, size=(threads, n), dtype=np.uint32)
    amounts = rng.integers(0, 2**32, size=(threads, calls), dtype=np.uint32)
    ctx = one_queue_context(context, max_in_flight=bound)
    try:
        with ctx:
            spin = spin_shader()
            buffers = [vd.asbuffer(start) for start in starts]
            add(buffers[0], 0)  # built before the queue is blocked
            # ~0.5 s on lavapipe, tens of ms on an H200: the calls queue behind it
            groups = 256 if is_cpu_device(ctx.device_infos[0]) else 16384
            gate = vd.Buffer((groups * 64,), vd.uint32)
            spin(gate, 20000 if groups == 256 else 65535, workgroups=groups)

        def in_flight_after_each_call(t: int) -> list[int]:
            """Calls ``add`` on buffer t; after each, how many submissions may be unfinished
            (0..bound, or bound + 1 for more than the bound)."""
            native, seen = ctx.native, []
            with ctx:
                for amount in amounts[t]:
                    add(buffers[t], int(amount))
                    submitted = native.submitted_value(0)
                    seen.append(next((k for k in range(bound + 1)
                                      if native.completed(0, max(submitted - k, 0))),
                                     bound + 1))
            return seen

        with ThreadPoolExecutor(threads) as pool:
            seen = [k for ks in pool.map(in_flight_after_each_call, range(threads)) for k in ks]
        assert max(seen) <= bound, f"{max(seen)} submissions unfinished, bound {bound}"
        if not DEBUG:  # (where the validation layer's printf waits for every submission)
            assert bound in seen  # the gate filled the queue: the bound held calls back
        for t in range(threads):
            expected = (starts[t].astype(np.uint64) + int(amounts[t].astype(np.uint64).sum()))
            np.testing.assert_array_equal(buffers[t].read(0), expected.astype(np.uint32))
    finally:
        ctx.close()
