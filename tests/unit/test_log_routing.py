"""Native log messages reach the logger of the layer that claimed their prefix (kp's go to
"kp"), and the native threshold lets through what the most verbose routed logger shows."""
from __future__ import annotations

import logging

import pytest

from vkdispatch.base.log import LogLevel, NativeRouting


class FakeNative:
    def __init__(self) -> None:
        self.handler = None
        self.levels: list[int] = []

    def set_log_handler(self, handler) -> None:
        self.handler = handler

    def set_log_level(self, level: int) -> None:
        self.levels.append(level)


@pytest.fixture
def routed():
    """A routing attached to a fake runtime, ``kp::`` claimed for a logger of the test's own."""
    vkdispatch_level = logging.getLogger("vkdispatch").level
    claimed = logging.getLogger("test_log_routing.kp")
    routing, native = NativeRouting(), FakeNative()
    routing.attach(native)
    routing.claim("kp::", claimed)
    yield routing, native, claimed
    logging.getLogger("vkdispatch").setLevel(vkdispatch_level)
    claimed.setLevel(logging.NOTSET)


def test_claimed_messages_go_to_the_claiming_logger(routed, caplog):
    routing, native, claimed = routed
    with caplog.at_level(logging.DEBUG, logger=claimed.name), \
            caplog.at_level(logging.DEBUG, logger="vkdispatch"):
        native.handler(LogLevel.INFO.value, "kp::Manager: a message of the Kompute layer")
        native.handler(LogLevel.WARNING.value, "validation: a message of vkdispatch's core")
        native.handler(LogLevel.INFO.value, "akp:: not at the start")
    assert [(r.name, r.levelno) for r in caplog.records] == [
        (claimed.name, logging.INFO), ("vkdispatch", logging.WARNING),
        ("vkdispatch", logging.INFO)]


def test_native_threshold_follows_the_most_verbose_routed_logger(routed):
    routing, native, claimed = routed
    logging.getLogger("vkdispatch").setLevel(logging.ERROR)
    claimed.setLevel(logging.WARNING)
    routing.refresh()
    assert native.levels[-1] == LogLevel.WARNING.value
    claimed.setLevel(logging.DEBUG)
    routing.refresh()
    assert native.levels[-1] == LogLevel.VERBOSE.value
    claimed.setLevel(logging.CRITICAL)
    routing.refresh()
    assert native.levels[-1] == LogLevel.ERROR.value
