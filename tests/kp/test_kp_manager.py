"""kp.Manager: devices and queues, several managers, destroy and ownership, device properties."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import random_array
from kp_programs import run, shader

import kp
import vkdispatch as vd

PROPERTY_TYPES = {"device_name": str, "max_work_group_count": tuple,
                  "max_work_group_invocations": int, "max_work_group_size": tuple,
                  "timestamps_supported": bool}


def test_device_properties(mgr):
    properties = mgr.get_device_properties()
    assert {k: type(v) for k, v in properties.items()} == PROPERTY_TYPES
    assert len(properties["max_work_group_size"]) == 3
    assert properties["max_work_group_invocations"] >= 128  # Vulkan's required minimum
    devices = mgr.list_devices()
    assert devices[0] == properties  # the manager is on device 0
    names = sorted(d.device_name for d in vd.get_devices())  # the same devices seen by vkdispatch
    assert sorted(d["device_name"] for d in devices) == names


def test_device_and_queue_family_errors(mgr):
    count = len(mgr.list_devices())
    with pytest.raises(RuntimeError, match="There is no such physical index or device"):
        kp.Manager(count)
    with pytest.raises(RuntimeError, match="Given family queue index does not exists. Index "
                                           "given: 99"):
        kp.Manager(0, [99])
    with pytest.raises(TypeError, match="device must be an int"):
        kp.Manager("0")
    with pytest.raises(TypeError, match="desired_extensions must be a list"):
        kp.Manager(0, [], "VK_KHR_shader_float16_int8")


def test_queues_by_family_and_sequence_indices(mgr, rng):
    manager = kp.Manager(0, [0], ["VK_EXT_not_a_real_extension"])  # unknown names are ignored
    values = random_array(rng, 32, np.float32)
    a, b = manager.tensor(values), manager.tensor(np.zeros(32))
    manager.sequence(0).record(kp.OpSyncDevice([a])).record(kp.OpCopy([a, b]))
    with pytest.raises(RuntimeError, match="queue index 1 does not exist"):
        manager.sequence(1)
    manager.destroy()


def test_several_managers_at_once(rng):
    managers = [kp.Manager() for _ in range(3)]
    results = []
    for manager in managers:
        x = random_array(rng, 128, np.float32)
        tx, ty = manager.tensor(x), manager.tensor(np.zeros(128))
        run(manager, manager.algorithm([tx, ty], shader("y[i] = x[i] * 3.0;", "float x",
                                                        "float y")), [ty])
        results.append((x, ty))
    managers[1].destroy()
    for (x, ty), manager in zip(results, managers):
        if manager is not managers[1]:
            np.testing.assert_array_equal(ty.data(), x * 3)
    assert not results[1][1].is_init()


def test_many_managers_one_after_another(rng):
    # With no other Manager of the device alive, each makes its Vulkan instance and device anew;
    # NVIDIA's driver could not be loaded again after about 30 instances had come and gone
    # (until the core kept the drivers loaded).
    for _ in range(40):
        manager = kp.Manager()
        values = random_array(rng, 8, np.float32)
        tensor = manager.tensor(values)
        manager.sequence().eval(kp.OpSyncDevice([tensor]))
        np.testing.assert_array_equal(tensor.data(), values)
        manager.destroy()


def test_managers_of_one_device_share_it_and_each_others_objects(rng):
    # As CUDA's primary context: Kompute's TestManagerParallelExecution records the tensors and
    # algorithm of one manager into the sequences of another.
    mgr, other = kp.Manager(), kp.Manager(0, [0])
    x = random_array(rng, 256, np.float32)
    tx, ty = mgr.tensor(x), mgr.tensor(random_array(rng, 256, np.float32))
    twice = shader("y[i] = x[i] * 2.0 - 0.75;", "float x", "float y")  # exact in float32
    run(other, mgr.algorithm([tx, ty], twice), [ty])
    np.testing.assert_array_equal(ty.data(), x * 2 - 0.75)
    mgr.destroy()  # other keeps the device; mgr's objects go, as in Kompute
    assert not ty.is_init()
    with pytest.raises(RuntimeError, match="Kompute Tensor was destroyed"):
        other.sequence().eval(kp.OpSyncDevice([tx]))
    y = random_array(rng, 256, np.float32)
    tz, tw = other.tensor(y), other.tensor(np.zeros(256))
    run(other, other.algorithm([tz, tw], twice), [tw])
    np.testing.assert_array_equal(tw.data(), y * 2 - 0.75)
    other.destroy()


def test_more_queues_of_a_family_than_the_device_shares_are_refused():
    # The shared device has at most 4 queues of each compute family.
    with pytest.raises(RuntimeError, match=r"Kompute Manager asked for 5 queue\(s\) of family 0, "
                                           r"but the device has [1-4] "):
        kp.Manager(0, [0] * 5)


def test_destroy_frees_everything_the_manager_made():
    manager = kp.Manager()
    tensor = manager.tensor([1.0, 2.0])
    algorithm = manager.algorithm([tensor], shader("a[i] = 1.0;", "float a"))
    sequence = manager.sequence().record(kp.OpAlgoDispatch(algorithm))
    manager.destroy()
    assert not (tensor.is_init() or algorithm.is_init() or sequence.is_init())
    assert tensor.size() == 0
    manager.destroy()  # a second call does nothing
    with pytest.raises(RuntimeError, match="Kompute Tensor device is null"):
        manager.tensor([1.0])
    with pytest.raises(RuntimeError, match="Kompute Sequence device is null"):
        manager.sequence()


def test_a_manager_collected_destroys_its_objects():
    def make():
        manager = kp.Manager()
        return manager.tensor([1.0]), manager.sequence()

    tensor, sequence = make()
    assert not tensor.is_init() and not sequence.is_init()


def test_objects_released_early_are_skipped_by_destroy(mgr):
    tensors = [mgr.tensor([float(i)]) for i in range(4)]
    del tensors[1:3]
    kept = tensors[0].data()
    mgr.destroy()
    assert not tensors[0].is_init() and kept[0] == 0.0
