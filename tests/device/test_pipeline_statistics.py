"""Device tests of ``pipeline_statistics()``: what the driver reports it compiled a shader to.
On NVIDIA drivers the shared memory reported must be what the shader declares (random sizes)
and the registers a plausible count; on drivers without VK_KHR_pipeline_executable_properties
(Mesa 22's lavapipe) the call names the device and the extension, and the context and the
shader keep working."""
from __future__ import annotations

import numpy as np
import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, f32
from vkdispatch.errors import IndexOutOfRangeError, InvalidArgumentError, InvalidTypeError


def _device_name() -> str:
    return vd.get_context().device_infos[0].device_name


def _staging_shader(floats: int):
    """A shader declaring ``floats`` floats of shared memory: each workgroup of 64 reverses
    the last 64 of its ``floats`` values through it."""
    @vd.shader(local_size=(64, 1, 1), workgroups=1)
    def staged(x: Buff[f32]):
        shared = vc.shared_buffer(vd.float32, floats, var_name="staged")
        i = vc.local_invocation_id().x
        shared[i + floats - 64] = x[i]
        vc.memory_barrier_shared()
        vc.barrier()
        x[i] = shared[floats - 1 - i]
    return staged


def _check_reverses(shader, rng) -> None:
    data = rng.standard_normal(64).astype(np.float32)
    buffer = vd.asbuffer(data)
    shader(buffer)
    np.testing.assert_array_equal(buffer.read(0), data[::-1])


def test_nvidia_reports_the_declared_shared_memory(context, rng):
    if "NVIDIA" not in _device_name():
        pytest.skip("the statistics' names are NVIDIA's")
    for floats in rng.integers(64, 12000, 3):
        shader = _staging_shader(int(floats))
        statistics = shader.pipeline_statistics()
        assert list(statistics) == ["CS"], statistics
        cs = statistics["CS"]
        assert cs["Shared Memory Size"] == 4 * floats, cs
        assert 1 <= cs["Register Count"] <= 255, cs
        _check_reverses(shader, rng)


def test_a_driver_without_statistics_is_named(context, rng):
    if "llvmpipe" not in _device_name():
        pytest.skip("Mesa 22's lavapipe is the driver known to report none")
    shader = _staging_shader(128)
    with pytest.raises(InvalidArgumentError,
                       match="VK_KHR_pipeline_executable_properties") as error:
        shader.pipeline_statistics()
    assert _device_name() in str(error.value)
    _check_reverses(shader, rng)


def test_a_device_index_outside_the_context_is_refused(context, rng):
    shader = _staging_shader(128)
    count = len(vd.get_context().device_infos)
    with pytest.raises(IndexOutOfRangeError, match=f"device_index: {count} "):
        shader.pipeline_statistics(count)
    with pytest.raises(InvalidTypeError, match="device_index must be an int"):
        shader.pipeline_statistics(0.0)
    _check_reverses(shader, rng)
