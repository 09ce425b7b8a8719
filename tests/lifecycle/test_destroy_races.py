"""Destroying an object, or closing its context, while another thread uses it: the other thread's
call either completes (with numpy's answer) or raises an error of ours, and never crashes; what
survives stays usable.

Each case runs an operation in a loop in one thread while the main thread destroys the buffer or
image (or closes the whole context) after a random delay, so the destroy lands before, during and
after the native calls. A few trials per case run by default; ``make test-slow`` runs many.
Without the native objects' use counts (bindings/closable.pxi) these crashed the process within
a few trials (a read's copy, a write's staging and a submission used freed memory).
"""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, c64, f32
from vkdispatch.errors import VkDispatchError

N = 1 << 14
FEW, MANY = 6, 150


@vd.shader("buf.size")
def add_one(buf: Buff[f32]):
    i = vc.global_invocation_id().x
    buf[i] = buf[i] + 1.0


@vd.reduce.map_reduce(vd.reduce.SubgroupAdd)
def total(x: Buff[f32]) -> f32:
    return x[vd.reduce.mapped_io_index()]


def _read(ctx, rng):
    data = rng.standard_normal(N).astype(np.float32)
    buffer = vd.asbuffer(data)
    return buffer, lambda: np.testing.assert_array_equal(buffer.read(0), data)


def _write(ctx, rng):
    data = rng.standard_normal(N).astype(np.float32)
    buffer = vd.Buffer((N,), vd.float32)
    return buffer, lambda: buffer.write(data)


def _shader(ctx, rng):
    buffer = vd.asbuffer(rng.standard_normal(N).astype(np.float32))
    return buffer, lambda: add_one(buffer)


def _graph(ctx, rng):
    buffer = vd.asbuffer(rng.standard_normal(N).astype(np.float32))
    graph = vd.CommandGraph()
    add_one(buffer, graph=graph)
    return buffer, lambda: graph.submit(instance_count=4)


def _copy(ctx, rng):
    data = rng.standard_normal(N).astype(np.float32)
    source, target = vd.asbuffer(data), vd.Buffer((N,), vd.float32)

    def copy():
        vd.copy(target, source)
        np.testing.assert_array_equal(target.read(0), data)
    return source, copy


def _fft(ctx, rng):
    data = (rng.standard_normal((8, 64)) + 1j * rng.standard_normal((8, 64))).astype(np.complex64)
    buffer = vd.asbuffer(data)
    return buffer, lambda: vd.fft.fft(buffer)


def _vkfft(ctx, rng):
    data = (rng.standard_normal((8, 64)) + 1j * rng.standard_normal((8, 64))).astype(np.complex64)
    buffer = vd.asbuffer(data)
    return buffer, lambda: vd.vkfft.fft(buffer)


def _reduce(ctx, rng):
    data = rng.standard_normal(N).astype(np.float32)
    buffer = vd.asbuffer(data)

    def reduce():
        result = total(buffer).read(0)[0]
        assert abs(result - data.sum(dtype=np.float64)) < 1e-3 * np.abs(data).sum()
    return buffer, reduce


def _image(ctx, rng):
    data = rng.standard_normal((32, 32)).astype(np.float32)
    image = vd.Image2D((32, 32))

    def round_trip():
        image.write(data)
        np.testing.assert_array_equal(image.read(0).reshape(32, 32), data)
    return image, round_trip


OPERATIONS = {"read": _read, "write": _write, "shader": _shader, "graph": _graph, "copy": _copy,
              "fft": _fft, "vkfft": _vkfft, "reduce": _reduce, "image": _image}


def _race(operation, destroy, delay: float) -> list[BaseException]:
    """Runs ``operation`` in a loop in a thread until it raises (at most 200 times) while this
    thread calls ``destroy`` after ``delay`` seconds; returns what the thread raised."""
    raised: list[BaseException] = []
    started = threading.Event()

    def user():
        started.set()
        try:
            for _ in range(200):
                operation()
        except BaseException as error:  # noqa: BLE001 - the assertion below sorts them
            raised.append(error)

    thread = threading.Thread(target=user)
    thread.start()
    started.wait()
    time.sleep(delay)
    destroy()
    thread.join(timeout=60)
    assert not thread.is_alive(), "the operation hung after the destroy"
    return raised


def _assert_ours(raised: list[BaseException]) -> None:
    for error in raised:
        if not isinstance(error, VkDispatchError):
            raise error  # a wrong answer (AssertionError) or a foreign error: the test fails


def _destroy_object(context, rng, name, trials):
    for trial in range(trials):
        obj, operation = OPERATIONS[name](context, rng)
        operation()  # once before the race: plans and shaders are made, not raced
        _assert_ours(_race(operation, obj.destroy, rng.uniform(0, 2e-3) * (trial % 4)))
        assert obj.destroyed
    buffer, operation = _read(context, rng)  # the context still works
    operation()


def _close_context(context, rng, name, trials):
    for trial in range(trials):
        ctx = vd.create_context(device_ids=context.device_ids)
        with ctx:
            obj, operation = OPERATIONS[name](ctx, rng)
            operation()

        def in_context():
            with ctx:
                operation()
        _assert_ours(_race(in_context, ctx.close, rng.uniform(0, 2e-3) * (trial % 4)))
        assert ctx.closed and obj.destroyed
    buffer, operation = _read(context, rng)
    operation()


@pytest.mark.parametrize("name", OPERATIONS)
def test_destroy_racing_an_operation_raises_ours_or_completes(context, rng, name):
    _destroy_object(context, rng, name, FEW)


@pytest.mark.parametrize("name", OPERATIONS)
def test_context_close_racing_an_operation_raises_ours_or_completes(context, rng, name):
    _close_context(context, rng, name, FEW)


@pytest.mark.slow
@pytest.mark.parametrize("name", OPERATIONS)
def test_destroy_racing_an_operation_many_times(context, rng, name):
    _destroy_object(context, rng, name, MANY)


@pytest.mark.slow
@pytest.mark.parametrize("name", OPERATIONS)
def test_context_close_racing_an_operation_many_times(context, rng, name):
    _close_context(context, rng, name, MANY)
