"""Submission windows (``submit_window_us``): calls gather in a queue's open batch, which one
submission sends when the window passes or when anything waits. Where the window comes from
(argument, ``VKDISPATCH_SUBMIT_WINDOW_US``, default), how bad values are refused, and that
reads and signals send the batch at once and see every call, in order. (That the queue's
thread sends a batch nothing waits for is tested natively, test_submit_window.cpp.)"""
from __future__ import annotations

import time

import numpy as np
import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, u32
from vkdispatch.errors import InvalidArgumentError

LONG_WINDOW_US = 1_000_000  # the longest allowed: a test that needed it to pass would take 1 s


def one_queue_context(context, **options) -> vd.Context:
    return vd.create_context(device_ids=[context.device_ids[0]], queue_counts=1, **options)


@vd.shader("data.size")
def add(data: Buff[u32], amount: Const[u32]):
    i = vc.global_invocation_id().x
    data[i] = data[i] + amount


@vd.shader("data.size")
def times_three(data: Buff[u32]):
    i = vc.global_invocation_id().x
    data[i] = data[i] * 3


@pytest.mark.parametrize("environment, options, expected", [
    (None, {}, 50), (None, {"submit_window_us": 0}, 0), ("200", {}, 200),
    ("200", {"submit_window_us": 7}, 7)])
def test_the_window_comes_from_the_argument_then_the_environment_then_the_default(
        context, monkeypatch, environment, options, expected):
    if environment is None:
        monkeypatch.delenv("VKDISPATCH_SUBMIT_WINDOW_US", raising=False)
    else:
        monkeypatch.setenv("VKDISPATCH_SUBMIT_WINDOW_US", environment)
    ctx = one_queue_context(context, **options)
    try:
        assert ctx.submit_window_us == expected
        ctx.submit_window_us = 3
        assert ctx.submit_window_us == 3
    finally:
        ctx.close()


@pytest.mark.parametrize("value", [-1, 1_000_001, True, 2.5, "8"])
def test_bad_windows_are_refused_naming_the_argument(context, value):
    message = rf"submit_window_us must be an int between 0 and 1000000, got {value!r}"
    with pytest.raises(InvalidArgumentError, match=message):
        one_queue_context(context, submit_window_us=value)
    ctx = one_queue_context(context)
    try:
        with pytest.raises(InvalidArgumentError, match=message):
            ctx.submit_window_us = value
        assert ctx.submit_window_us == 50
    finally:
        ctx.close()


@pytest.mark.parametrize("text", ["-1", "soon", "0.5"])
def test_a_bad_environment_window_is_refused_naming_the_variable(context, monkeypatch, text):
    monkeypatch.setenv("VKDISPATCH_SUBMIT_WINDOW_US", text)
    with pytest.raises(InvalidArgumentError, match="VKDISPATCH_SUBMIT_WINDOW_US must be an int "
                                                   "between 0 and 1000000"):
        one_queue_context(context)


def run_calls(start: np.ndarray, amounts: np.ndarray) -> tuple[vd.Buffer, np.ndarray]:
    """Alternates ``times_three`` and ``add`` on a buffer of ``start`` (the order matters);
    returns the buffer and numpy's result."""
    data = vd.asbuffer(start)
    expected = start.astype(np.uint64)
    for amount in amounts:
        times_three(data)
        add(data, int(amount))
        expected = (expected * 3 + int(amount)) % 2**32
    return data, expected.astype(np.uint32)


@pytest.mark.parametrize("window", [0, 50, LONG_WINDOW_US])
def test_a_read_sends_the_open_batch_and_sees_every_call_in_order(context, window):
    rng = np.random.default_rng(window)
    start = rng.integers(0, 2**32, size=1000, dtype=np.uint32)
    amounts = rng.integers(0, 2**32, size=25, dtype=np.uint32)
    ctx = one_queue_context(context, submit_window_us=window)
    try:
        with ctx:
            times_three(vd.Buffer((4,), vd.uint32))  # built before the clock starts
            vd.queue_wait_idle(context=ctx)
            began = time.perf_counter()
            data, expected = run_calls(start, amounts)
            got = data.read(0)
            elapsed = time.perf_counter() - began
        np.testing.assert_array_equal(got, expected)
        # The read did not wait for the window to pass (a CPU device takes ~0.1 s for these).
        assert elapsed < 0.5, f"the read took {elapsed:.3f} s with a {window} us window"
    finally:
        ctx.close()


def test_a_signal_asked_about_sends_the_open_batch(context):
    rng = np.random.default_rng(3)
    start = rng.integers(0, 2**32, size=500, dtype=np.uint32)
    ctx = one_queue_context(context, submit_window_us=LONG_WINDOW_US)
    try:
        with ctx:
            data, expected = run_calls(start, rng.integers(0, 2**32, size=3, dtype=np.uint32))
            signal = ctx.signal(0)
            deadline = time.perf_counter() + 0.5
            while not signal.try_wait():
                assert time.perf_counter() < deadline, "try_wait() left the batch unsent"
            np.testing.assert_array_equal(data.read(0), expected)
    finally:
        ctx.close()

