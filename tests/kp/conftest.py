"""Fixtures of the ``kp`` (Kompute-compatible) suites: a Manager on device 0."""
from __future__ import annotations

import pytest
from helpers import device_missing

import kp


@pytest.fixture
def mgr():
    """A Manager on Vulkan device 0 (lavapipe in CI), destroyed after the test."""
    try:
        manager = kp.Manager()
    except RuntimeError as error:
        device_missing(f"no Vulkan device for kp.Manager: {error}")
    yield manager
    manager.destroy()
