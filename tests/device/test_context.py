"""The process context, devices and queues (docs/first_steps.rst; docs/api.rst), and the
warning that vkdispatch 0.1.0 did not give when initialize() or make_context() is called
again with other arguments.

The ``context`` fixture owns the process context: nothing here destroys or replaces it.
"""
from __future__ import annotations

import logging

import numpy as np
import pytest
from helpers import random_array

import vkdispatch as vd
from vkdispatch import _native, errors

# DeviceInfo's fields, in constructor order (vkdispatch.base.device_info.DEVICE_INFO_FIELDS).
DEVICE_FIELDS = [
    "dev_index", "version_variant", "version_major", "version_minor", "version_patch",
    "driver_version", "vendor_id", "device_id", "device_type", "device_name",
    "shader_buffer_float32_atomics", "shader_buffer_float32_atomic_add", "float_64_support",
    "float_16_support", "int_64_support", "int_16_support", "storage_buffer_16_bit_access",
    "uniform_and_storage_buffer_16_bit_access", "storage_push_constant_16",
    "storage_input_output_16", "max_workgroup_size", "max_workgroup_invocations",
    "max_workgroup_count", "max_bound_descriptor_sets", "max_push_constant_size",
    "max_storage_buffer_range", "max_uniform_buffer_range", "uniform_buffer_alignment",
    "sub_group_size", "supported_stages", "supported_operations",
    "quad_operations_in_all_stages", "max_compute_shared_memory_size", "queue_properties",
    "scalar_block_layout", "timeline_semaphores", "uuid",
]  # fmt: skip
FLAG_FIELDS = [
    "shader_buffer_float32_atomics", "shader_buffer_float32_atomic_add", "float_64_support",
    "float_16_support", "int_64_support", "int_16_support", "storage_buffer_16_bit_access",
    "uniform_and_storage_buffer_16_bit_access", "storage_push_constant_16",
    "storage_input_output_16", "quad_operations_in_all_stages", "scalar_block_layout",
    "timeline_semaphores",
]
COMPUTE, GRAPHICS = 0x2, 0x1


def _first_family(info, *tests) -> int:
    flags = [f for _, f in info.queue_properties]
    for test in tests:
        for index, f in enumerate(flags):
            if test(f):
                return index
    raise AssertionError(f"no matching queue family in {info.queue_properties}")


def compute_family(info) -> int:
    """vkdispatch 0.1.0's rule: flags exactly 6 or 14, else compute without graphics, else
    compute."""
    return _first_family(info, lambda f: f in (6, 14),
                         lambda f: f & COMPUTE and not f & GRAPHICS, lambda f: f & COMPUTE)


def graphics_family(info) -> int:
    """vkdispatch 0.1.0's rule: graphics|compute|transfer, else graphics and compute, else
    compute."""
    return _first_family(info, lambda f: f & ~0x8 == 7, lambda f: f & COMPUTE and f & GRAPHICS,
                         lambda f: f & COMPUTE)


def expected_families(info, count) -> list[int]:
    """vkdispatch 0.1.0's rule: even positions compute, odd graphics (NVIDIA: only position 1)."""
    compute, graphics = compute_family(info), graphics_family(info)
    nvidia = "NVIDIA" in info.device_name
    if count is None:
        count = 1 if compute == graphics else (3 if nvidia else 2)
    return [graphics if (i == 1 if nvidia else i % 2 == 1) else compute for i in range(count)]


def vkdispatch_records(caplog, level=logging.WARNING):
    return [r for r in caplog.records if r.name == "vkdispatch" and r.levelno == level]


def assert_roundtrip(rng):
    data = random_array(rng, (17, 2), np.float64)
    buffer = vd.Buffer((17,), vd.dvec2)
    buffer.write(data)
    np.testing.assert_array_equal(buffer.read(0), data)


# -- the context object --------------------------------------------------------------------


def test_make_context_repeat_call_returns_same_object_without_warning(context, caplog):
    with caplog.at_level(logging.WARNING, logger="vkdispatch"):
        assert vd.make_context() is context
        assert vd.get_context() is context
    assert vkdispatch_records(caplog) == []
    assert vd.is_context_initialized()
    assert vd.get_context_handle() == context._handle
    assert isinstance(vd.get_context_handle(), int)


@pytest.mark.parametrize("kwargs", [{"use_cpu": True}, {"queue_counts": 1, "multi_queue": True},
                                    {"device_ids": [0], "multi_device": True},
                                    {"device_count": 1}], ids=lambda k: ",".join(k))
def test_make_context_repeat_call_with_arguments_warns_naming_them(context, caplog, rng, kwargs):
    before = (list(context.device_ids), [list(f) for f in context.queue_families])
    with caplog.at_level(logging.WARNING, logger="vkdispatch"):
        assert vd.make_context(**kwargs) is context
    records = vkdispatch_records(caplog)
    assert len(records) == 1
    message = records[0].getMessage()
    assert "ignored" in message
    for name in kwargs:
        assert name in message
    assert (context.device_ids, context.queue_families) == before
    assert_roundtrip(rng)


def test_context_attributes_describe_its_devices_and_queues(context):
    devices = vd.get_devices()
    assert len(context.device_ids) >= 1
    assert all(0 <= i < len(devices) for i in context.device_ids)
    assert context.device_infos == [devices[i] for i in context.device_ids]
    assert context.mapped_device_ids == [devices[i].dev_index for i in context.device_ids]
    assert len(context.queue_families) == len(context.device_ids)
    assert context.queue_count == sum(len(f) for f in context.queue_families) >= 1
    for info, families in zip(context.device_infos, context.queue_families):
        for family in families:
            assert 0 <= family < len(info.queue_properties)
            assert info.queue_properties[family][1] & COMPUTE


def test_context_limits_are_min_over_devices_and_max_alignment(context):
    infos = context.device_infos
    assert context.subgroup_size == min(i.sub_group_size for i in infos)
    assert context.max_workgroup_size == tuple(min(i.max_workgroup_size[a] for i in infos)
                                               for a in range(3))
    assert context.max_workgroup_count == tuple(min(i.max_workgroup_count[a] for i in infos)
                                                for a in range(3))
    assert context.max_workgroup_invocations == min(i.max_workgroup_invocations for i in infos)
    assert context.max_shared_memory == min(i.max_compute_shared_memory_size for i in infos)
    assert context.uniform_buffer_alignment == max(i.uniform_buffer_alignment for i in infos)
    assert context.subgroup_enabled == all(i.supported_stages & 0x20 for i in infos)
    assert context.subgroup_arithmetic == all(i.supported_operations & 0x4 for i in infos)


# -- select_queue_families -----------------------------------------------------------------


def test_select_queue_families_default_follows_reference_rule(context):
    for index in context.device_ids:
        info = vd.get_devices()[index]
        families = vd.select_queue_families(index)
        assert families == expected_families(info, None)
        assert all(info.queue_properties[f][1] & COMPUTE for f in families)
        assert vd.select_queue_families(index, None) == families


def test_context_with_multi_queue_and_no_count_takes_the_default_families(context, rng):
    device = context.device_ids[0]
    ctx = vd.create_context(device_ids=[device], multi_queue=True)
    try:
        assert ctx.queue_families == [vd.select_queue_families(device)]
        with ctx:
            assert_roundtrip(rng)
    finally:
        ctx.close()


@pytest.mark.parametrize("count", [1, 2, 3, 5])
def test_select_queue_families_explicit_count_gives_that_many_even_beyond_hardware(context, rng,
                                                                                  count):
    # More queues than a family has are allowed: they share its hardware queues
    # (tests/device/test_multi_queue.py runs such contexts).
    device = context.device_ids[0]
    info = vd.get_devices()[device]
    assert vd.select_queue_families(device, count) == expected_families(info, count)
    assert_roundtrip(rng)


@pytest.mark.parametrize("device_index", [-1, "len", 99], ids=repr)
def test_select_queue_families_bad_device_index_raises_index_error(context, rng, device_index):
    if device_index == "len":
        device_index = len(vd.get_devices())
    with pytest.raises(IndexError, match="device_index") as caught:
        vd.select_queue_families(device_index)
    assert isinstance(caught.value, errors.IndexOutOfRangeError)
    assert str(len(vd.get_devices()) - 1) in str(caught.value)
    assert_roundtrip(rng)


@pytest.mark.parametrize("queue_count", [0, -3, 1.0, "2"], ids=repr)
def test_select_queue_families_bad_queue_count_raises_value_error(context, rng, queue_count):
    with pytest.raises(ValueError, match="queue_count") as caught:
        vd.select_queue_families(0, queue_count)
    assert isinstance(caught.value, errors.InvalidArgumentError)
    assert_roundtrip(rng)


# -- queue_wait_idle and signals -----------------------------------------------------------


def test_queue_wait_idle_all_and_each_queue_returns_after_work(context, rng):
    data = random_array(rng, (1 << 16,), np.float32)
    buffer = vd.Buffer(data.shape, vd.float32)
    buffer.write(data)
    vd.queue_wait_idle()
    vd.queue_wait_idle(None, context)
    for queue in range(context.queue_count):
        vd.queue_wait_idle(queue)
    np.testing.assert_array_equal(buffer.read(0), data)


@pytest.mark.parametrize("where", ["count", "count+1", "minus-one"])
def test_queue_wait_idle_out_of_range_raises_index_error(context, rng, where):
    count = context.queue_count
    index = {"count": count, "count+1": count + 1, "minus-one": -1}[where]
    with pytest.raises(IndexError, match=f"^queue_index must be between 0 and {count - 1} "
                                         rf"\(inclusive\) or None for all queues, got {index}$"
                       ) as caught:
        vd.queue_wait_idle(index)
    assert isinstance(caught.value, errors.IndexOutOfRangeError)
    assert isinstance(caught.value, ValueError)
    assert_roundtrip(rng)


@pytest.mark.parametrize("index", [0.5, "0", True], ids=repr)
def test_queue_wait_idle_non_integer_index_raises_value_error(context, rng, index):
    with pytest.raises(ValueError, match="queue_index.*integer") as caught:
        vd.queue_wait_idle(index)
    assert isinstance(caught.value, errors.InvalidArgumentError)
    assert_roundtrip(rng)


def test_context_signal_waits_and_reports_completion(context, rng):
    buffer = vd.Buffer((1 << 15,), vd.vec2)
    data = random_array(rng, (1 << 15, 2), np.float32)
    buffer.write(data)
    for queue in range(context.queue_count):
        signal = context.signal(queue)
        assert isinstance(signal, vd.Signal)
        assert signal.queue_index == queue and isinstance(signal.value, int)
        signal.wait()
        assert signal.try_wait() is True
    np.testing.assert_array_equal(buffer.read(0), data)
    with pytest.raises(IndexError, match="queue_index"):
        context.signal(context.queue_count)


# -- devices -------------------------------------------------------------------------------


def test_get_devices_returns_same_list_with_sorted_index(context):
    devices = vd.get_devices()
    assert devices is vd.get_devices()
    assert len(devices) >= 1
    for position, info in enumerate(devices):
        assert isinstance(info, vd.DeviceInfo)
        assert info.sorted_index == position


def test_device_info_has_every_reference_field_with_sensible_types(context):
    for info in vd.get_devices():
        missing = [name for name in DEVICE_FIELDS if not hasattr(info, name)]
        assert missing == []
        assert isinstance(info.device_name, str) and info.device_name
        assert info.device_type in range(5)
        for name in ("max_workgroup_size", "max_workgroup_count"):
            value = getattr(info, name)
            assert isinstance(value, tuple) and len(value) == 3
            assert all(isinstance(v, int) and v >= 1 for v in value)
        for name in FLAG_FIELDS:
            assert getattr(info, name) in (0, 1), name
        assert isinstance(info.queue_properties, list) and info.queue_properties
        for pair in info.queue_properties:
            assert len(pair) == 2 and all(isinstance(v, int) for v in pair)
            assert pair[0] >= 1
        assert info.uuid is None or (isinstance(info.uuid, bytes) and len(info.uuid) == 16)
        assert info.max_workgroup_invocations >= 1 and info.sub_group_size >= 1
        assert info.max_compute_shared_memory_size >= 1024
        assert info.version_major >= 1


def test_device_info_vulkan_device_reports_uuid_and_required_features(context):
    for info in context.device_infos:
        assert isinstance(info.uuid, bytes) and len(info.uuid) == 16
        assert info.timeline_semaphores == 1 and info.scalar_block_layout == 1
        assert any(flags & COMPUTE for _, flags in info.queue_properties)


def test_device_info_string_names_device_version_and_queues(context):
    for info in vd.get_devices():
        text = info.get_info_string(True)
        assert text.startswith(f"Device {info.sorted_index}: {info.device_name}")
        assert f"Vulkan Version: {info.version_major}.{info.version_minor}." in text
        assert "Queues:" in text and "Features:" in text and "Properties:" in text
        for family, (count, flags) in enumerate(info.queue_properties):
            if flags & (COMPUTE | GRAPHICS):
                assert f"{family} (count={count}, flags=0x{flags:x})" in text
        assert str(tuple(info.max_workgroup_size)) in text
        short = info.get_info_string()
        assert short == repr(info) and len(short) < len(text)


# -- initialize after the fact -------------------------------------------------------------


@pytest.mark.parametrize("backend", ["dummy", "DUMMY "])
def test_initialize_other_backend_after_vulkan_raises_runtime_error(context, rng, backend):
    with pytest.raises(RuntimeError, match="vulkan") as caught:
        vd.initialize(backend=backend)
    assert "dummy" in str(caught.value).lower()
    assert isinstance(caught.value, errors.VkDispatchError)
    assert vd.get_backend() == "vulkan" and vd.is_vulkan() and not vd.is_dummy()
    assert_roundtrip(rng)


def test_initialize_again_names_only_the_arguments_given(context, caplog, monkeypatch, rng):
    """A runtime made with debug_mode=True and a later plain initialize() warned that
    'debug_mode=False' was ignored, an argument the user never passed."""
    from vkdispatch.base import init
    current = init._RuntimeSlot.current
    monkeypatch.setitem(current.settings, "debug_mode", True)
    vd.initialize()
    vd.initialize(debug_mode=True)
    assert vkdispatch_records(caplog) == []
    monkeypatch.setitem(current.settings, "debug_mode", False)
    vd.initialize(debug_mode=True, log_level=current.settings.get("log_level"))
    messages = [r.getMessage() for r in vkdispatch_records(caplog)]
    assert len(messages) == 1 and "debug_mode=True" in messages[0], messages
    assert "log_level" not in messages[0] and "loader_debug_logs" not in messages[0]
    assert_roundtrip(rng)


def test_initialize_again_with_other_log_level_warns_and_keeps_level(context, caplog, rng):
    logger = logging.getLogger("vkdispatch")
    level = logger.level
    vd.initialize(backend="vulkan")  # same backend, default arguments: silent
    vd.initialize(log_level=vd.LogLevel.ERROR)
    records = vkdispatch_records(caplog)
    assert len(records) == 1
    message = records[0].getMessage()
    assert "ignored" in message and "log_level" in message
    assert logger.level == level
    assert vd.is_initialized()
    assert_roundtrip(rng)


def test_validation_error_raises_at_the_next_native_call_and_context_recovers(context, rng):
    data = random_array(rng, (64,), np.float32)
    buffer = vd.asbuffer(data)
    _native.inject_validation_error("VUID-test: injected by the test")
    with pytest.raises(errors.ValidationError, match="VUID-test: injected by the test"):
        buffer.read(0)
    np.testing.assert_array_equal(buffer.read(0), data)  # reported once; the context works
