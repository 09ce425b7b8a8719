"""Shared fixtures: device selection, seeded RNGs, a kp.Manager, and debug-mode validation
checking.

Set ``VKDISPATCH_DEBUG=1`` to run the suite with the Khronos validation layer: any validation
error then raises inside the call that caused it, and any ERROR record of the ``vkdispatch``
logger fails the test that emitted it.

Without a usable Vulkan device the tests that need one are skipped, unless
``VKDISPATCH_REQUIRE_DEVICE=1`` (set by the Makefile's test targets): they then fail.
"""
from __future__ import annotations

import dataclasses
import logging
import os
import zlib

import numpy as np
import pytest
from helpers import device_missing

import kp
import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.base.device_info import is_cpu_device
from vkdispatch.codegen.abbreviations import Buff, Const, f32
from vkdispatch.fft.config import DeviceLimits

DEBUG = os.environ.get("VKDISPATCH_DEBUG", "") not in ("", "0")


class _ErrorRecords(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def _fail_on_logged_errors():
    """A test fails if the library (vkdispatch or its kp layer) logged an error (e.g. a
    validation message) during it."""
    handler = _ErrorRecords()
    loggers = [logging.getLogger("vkdispatch"), logging.getLogger("kp")]
    for logger in loggers:
        logger.addHandler(handler)
    yield handler
    for logger in loggers:
        logger.removeHandler(handler)
    messages = [f"{r.name}: {r.getMessage()}" for r in handler.records
                if not getattr(r, "expected", False)]
    assert not messages, "logged errors:\n" + "\n".join(messages)


@pytest.fixture(scope="session")
def context():
    """The process context on the best device (lavapipe when there is no GPU)."""
    try:
        vd.initialize(debug_mode=DEBUG)
        ctx = vd.make_context()
    except vd.BackendUnavailableError as error:
        device_missing(f"Vulkan unavailable: {error}")
    except RuntimeError as error:
        device_missing(f"no usable Vulkan device: {error}")
    return ctx


@pytest.fixture(scope="module", params=[2, 3, "every GPU"])
def multi(request, context):
    """A context of 2, then 3, queues on the test device (on lavapipe they share its one
    hardware queue, each with its own replicas and timeline), then one of two queues on each
    GPU of the host (skipped where it has fewer than two): replicas on one device and on
    different devices side by side."""
    if request.param == "every GPU":
        gpus = [i for i, info in enumerate(vd.get_devices()) if not is_cpu_device(info)]
        if len(gpus) < 2:
            pytest.skip(f"needs two or more GPUs, this host has {len(gpus)}")
        ctx = vd.create_context(device_ids=gpus, queue_counts=2)
    else:
        ctx = vd.create_context(device_ids=[context.device_ids[0]], queue_counts=request.param)
    yield ctx
    ctx.close()


@pytest.fixture(scope="session")
def affine(context):
    """A shader ``x = x * k + b`` over a float32 buffer, with ``k`` and ``b`` as Const values."""
    @vd.shader("x.size")
    def affine(x: Buff[f32], k: Const[f32], b: Const[f32]):
        i = vc.global_invocation_id().x
        x[i] = x[i] * k + b

    return affine


@pytest.fixture
def mgr():
    """A Manager on Vulkan device 0 (lavapipe in CI), destroyed after the test."""
    try:
        manager = kp.Manager()
    except RuntimeError as error:
        device_missing(f"no Vulkan device for kp.Manager: {error}")
    yield manager
    manager.destroy()


@pytest.fixture
def gpu_plans(context, monkeypatch):
    """FFT plans made as for a GPU: with ``cpu=False`` groups of short contiguous lines stage
    their global loads and stores through shared memory, a path that CPU drivers skip."""
    real = DeviceLimits.current
    monkeypatch.setattr(DeviceLimits, "current",
                        classmethod(lambda cls: dataclasses.replace(real(), cpu=False)))


@pytest.fixture
def rng(request) -> np.random.Generator:
    """A generator seeded from the test's name, so failures reproduce."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "context" in item.fixturenames:
            item.add_marker(pytest.mark.gpu)
