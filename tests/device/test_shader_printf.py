"""Device tests of shader printing: in debug mode (``VKDISPATCH_DEBUG=1``, validation layer
with debug printf) ``vc.printf``/``vc.print`` output reaches the ``vkdispatch`` logger."""
from __future__ import annotations

import logging
import re

import numpy as np
import pytest
from conftest import DEBUG

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, f32, i32, v2

pytestmark = pytest.mark.skipif(not DEBUG, reason="shader printf needs VKDISPATCH_DEBUG=1")

def _printed(caplog) -> str:
    return "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("vkdispatch"))


def test_printf_reaches_vkdispatch_logger(context, rng, caplog):
    caplog.set_level(logging.INFO, logger="vkdispatch")

    @vd.shader("out.size", local_size=(64, 1, 1))
    def noisy(out: Buff[f32], x: Buff[i32]):
        i = vc.global_invocation_id().x
        out[i] = vc.to_float(x[i]) * 2
        with vc.if_block(i < 3):
            vc.printf("probe-%u has %d", i, x[i])

    x = rng.integers(-1000, 1000, 200, dtype=np.int32)
    out = vd.Buffer((200,), vd.float32)
    noisy(out, vd.asbuffer(x))
    np.testing.assert_array_equal(out.read(0), x * 2.0)   # the dispatch itself is unaffected
    context.wait_idle()
    messages = _printed(caplog)
    for i in range(3):
        assert f"probe-{i} has {x[i]}" in messages, messages
    assert "probe-3 " not in messages


def test_print_vars_expands_vectors(context, rng, caplog):
    caplog.set_level(logging.INFO, logger="vkdispatch")

    @vd.shader(1)
    def show(v: Buff[v2]):
        vc.print("vector-probe", v[0], "end")

    values = rng.integers(1, 9, 2).astype(np.float32)
    buffer = vd.Buffer((1,), vd.vec2)
    buffer.write(values.reshape(1, 2))
    show(buffer)
    buffer.read(0)
    context.wait_idle()
    match = re.search(r"vector-probe \(([-\d.]+), ([-\d.]+)\) end", _printed(caplog))
    assert match, _printed(caplog)
    np.testing.assert_allclose([float(match.group(1)), float(match.group(2))], values)
