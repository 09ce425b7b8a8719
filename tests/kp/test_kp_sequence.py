"""kp.Sequence and the operations against numpy: Kompute's record/eval state machine, async
evaluation, timestamps, copies, and dependent dispatches in one sequence."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import random_array
from kp_programs import shader

import kp

ACCUMULATE = "y[i] = y[i] + x[i];"
STILL_RUNNING = "Kompute Sequence begin called when sequence still running"
ASYNC_RUNNING = ("Kompute Sequence evalAsync called when an eval async was called without "
                 "successful wait")


@pytest.fixture
def accumulate(mgr, rng):
    """Tensors x, y (random) and the algorithm y += x."""
    x, y = random_array(rng, 500, np.float32), random_array(rng, 500, np.float32)
    tx, ty = mgr.tensor(x), mgr.tensor(y)
    return x, y, tx, ty, mgr.algorithm([tx, ty], shader(ACCUMULATE, "float x", "float y"))


def test_eval_resubmits_the_recorded_buffer(mgr, accumulate):
    x, y, tx, ty, algorithm = accumulate
    mgr.sequence().eval(kp.OpSyncDevice([tx, ty]))
    sequence = mgr.sequence().record(kp.OpAlgoDispatch(algorithm))
    for _ in range(3):
        sequence.eval()
    mgr.sequence().eval(kp.OpSyncLocal([ty]))
    np.testing.assert_allclose(ty.data(), y + 3 * x, rtol=1e-5)


def test_record_after_eval_starts_a_new_buffer(mgr, accumulate):
    x, y, tx, ty, algorithm = accumulate
    sequence = mgr.sequence().record(kp.OpSyncDevice([tx, ty])).eval()
    sequence.record(kp.OpAlgoDispatch(algorithm)).record(kp.OpSyncLocal([ty])).eval()
    # Only the dispatch and the download ran the second time (the upload would have reset y).
    sequence.eval()
    np.testing.assert_allclose(ty.data(), y + 2 * x, rtol=1e-5)


def test_eval_of_an_op_discards_what_was_recorded(mgr, accumulate):
    x, y, tx, ty, algorithm = accumulate
    sequence = mgr.sequence().record(kp.OpSyncDevice([tx, ty])).record(kp.OpAlgoDispatch(algorithm))
    sequence.eval(kp.OpSyncDevice([tx, ty]))
    sequence.eval()  # only the upload again
    mgr.sequence().eval(kp.OpSyncLocal([ty]))
    np.testing.assert_array_equal(ty.data(), y)


def test_rerecord_records_the_operations_again(mgr, accumulate):
    x, y, tx, ty, algorithm = accumulate
    sequence = mgr.sequence()
    for op in (kp.OpSyncDevice([tx, ty]), kp.OpAlgoDispatch(algorithm), kp.OpSyncLocal([ty])):
        sequence.record(op)
    sequence.rerecord()
    assert sequence.is_recording()
    sequence.eval()
    np.testing.assert_allclose(ty.data(), y + x, rtol=1e-6)


def test_dependent_dispatches_in_one_sequence_see_each_others_results(mgr, rng):
    # Kompute records no barrier between two dispatches; this sequence orders them.
    n = 4096
    x = random_array(rng, n, np.float32)
    tx, ty, tz = mgr.tensor(x), mgr.tensor(np.zeros(n)), mgr.tensor(np.zeros(n))
    double = mgr.algorithm([tx, ty], shader("y[i] = x[i] * 2.0;", "float x", "float y",
                                            local_size=64), (n // 64, 1, 1))
    add = mgr.algorithm([ty, tz], shader("z[i] = y[i] + 1.0;", "float y", "float z",
                                         local_size=64), (n // 64, 1, 1))
    sequence = mgr.sequence().record(kp.OpSyncDevice([tx]))
    for _ in range(5):
        sequence.record(kp.OpAlgoDispatch(double)).record(kp.OpAlgoDispatch(add))
        sequence.record(kp.OpAlgoDispatch(double))
    sequence.record(kp.OpSyncLocal([tz])).eval()
    np.testing.assert_allclose(tz.data(), x * 2 + 1, rtol=1e-6)


def test_eval_async_then_await(mgr, accumulate):
    x, y, tx, ty, algorithm = accumulate
    mgr.sequence().eval(kp.OpSyncDevice([tx, ty]))
    sequence = mgr.sequence()
    sequence.eval_async(kp.OpAlgoDispatch(algorithm))
    assert sequence.is_running()
    with pytest.raises(RuntimeError, match=STILL_RUNNING):
        sequence.record(kp.OpSyncLocal([ty]))
    with pytest.raises(RuntimeError, match=ASYNC_RUNNING):
        sequence.eval()
    sequence.eval_await()
    assert not sequence.is_running()
    sequence.eval_await()  # nothing running: does nothing
    mgr.sequence().eval(kp.OpSyncLocal([ty]))
    np.testing.assert_allclose(ty.data(), y + x, rtol=1e-6)


def test_eval_async_without_an_op_waits_as_in_kompute(mgr, accumulate):
    x, y, tx, ty, algorithm = accumulate
    sequence = mgr.sequence().record(kp.OpSyncDevice([tx, ty]))
    sequence.record(kp.OpAlgoDispatch(algorithm)).record(kp.OpSyncLocal([ty]))
    assert sequence.eval_async() is sequence
    assert not sequence.is_running()
    np.testing.assert_allclose(ty.data(), y + x, rtol=1e-6)


def test_async_sequences_run_side_by_side(mgr, rng):
    runs = []
    for _ in range(4):
        x = random_array(rng, 256, np.float32)
        tx, ty = mgr.tensor(x, kp.host), mgr.tensor(np.zeros(256), kp.host)
        algorithm = mgr.algorithm([tx, ty], shader("y[i] = x[i] * x[i];", "float x", "float y"))
        runs.append((x, ty, mgr.sequence().eval_async(kp.OpAlgoDispatch(algorithm))))
    assert all(sequence.is_running() for _, _, sequence in runs)
    for x, ty, sequence in reversed(runs):
        sequence.eval_await()
        np.testing.assert_array_equal(ty.data(), x * x)


@pytest.mark.parametrize("timeout", [-1, 2**32, 1.5, "1"])
def test_eval_await_takes_a_uint32_of_nanoseconds(mgr, timeout):
    with pytest.raises(TypeError, match="timeout"):
        mgr.sequence().eval_await(timeout)


def test_eval_await_with_a_timeout_returns(mgr, accumulate):
    x, y, tx, ty, algorithm = accumulate
    sequence = mgr.sequence()
    sequence.eval_async(kp.OpSyncDevice([tx, ty]))
    sequence.eval_await(1_000_000_000)
    assert not sequence.is_running()


def test_clear_is_allowed_while_running(mgr, accumulate):
    x, y, tx, ty, algorithm = accumulate
    sequence = mgr.sequence()
    sequence.eval_async(kp.OpCopy([tx, ty]))
    sequence.clear()
    sequence.eval_await()
    # OpCopy's host copy ran not: the operation was dropped before the await.
    np.testing.assert_array_equal(ty.data(), y)


def test_timestamps_one_per_operation_plus_the_start(mgr, accumulate):
    x, y, tx, ty, algorithm = accumulate
    sequence = mgr.sequence(total_timestamps=8)
    assert len(sequence.get_timestamps()) == 1
    sequence.record(kp.OpSyncDevice([tx, ty])).record(kp.OpAlgoDispatch(algorithm))
    sequence.record(kp.OpAlgoDispatch(algorithm)).record(kp.OpSyncLocal([ty])).eval()
    stamps = sequence.get_timestamps()
    assert len(stamps) == 5 and all(isinstance(t, int) for t in stamps)
    assert stamps == sorted(stamps) and stamps[-1] > stamps[0]
    with pytest.raises(RuntimeError, match="Timestamp latching not enabled"):
        mgr.sequence().get_timestamps()


def test_more_operations_than_timestamps_is_an_error(mgr, accumulate):
    x, y, tx, ty, algorithm = accumulate
    sequence = mgr.sequence(total_timestamps=1).record(kp.OpSyncDevice([tx]))
    with pytest.raises(RuntimeError, match="more operations than"):
        sequence.record(kp.OpSyncDevice([tx]))


def test_a_destroyed_sequence_raises(mgr, accumulate):
    sequence = mgr.sequence()
    sequence.destroy()
    assert not sequence.is_init()
    with pytest.raises(RuntimeError, match="destroyed"):
        sequence.eval()
    sequence.destroy()


def test_op_copy_copies_on_the_device_and_the_host_views(mgr, rng):
    values = random_array(rng, 100, np.int32)
    source = mgr.tensor_t(values)
    targets = [mgr.tensor_t(np.zeros(100, np.int32)) for _ in range(2)]
    mgr.sequence().eval(kp.OpSyncDevice([source]))
    mgr.sequence().eval(kp.OpCopy([source, *targets]))
    for target in targets:
        np.testing.assert_array_equal(target.data(), values)  # the host copy, no sync needed
        target.data()[:] = 0
    mgr.sequence().eval(kp.OpSyncLocal(targets))
    for target in targets:
        np.testing.assert_array_equal(target.data(), values)  # and the device copy


def test_op_copy_refuses_other_types_and_sizes(mgr):
    floats, ints = mgr.tensor([1.0, 2.0, 3.0]), mgr.tensor_t(np.ones(3, np.int32))
    with pytest.raises(RuntimeError, match="different types from eFloat to eInt"):
        mgr.sequence().record(kp.OpCopy([floats, ints]))
    with pytest.raises(RuntimeError, match="different sizes from 3 to 4"):
        mgr.sequence().record(kp.OpCopy([floats, mgr.tensor(np.ones(4))]))


def test_op_mult(mgr, rng):
    a, b = random_array(rng, 77, np.float32), random_array(rng, 77, np.float32)
    ta, tb, out = mgr.tensor(a), mgr.tensor(b), mgr.tensor(np.zeros(77))
    algorithm = mgr.algorithm([ta], shader("", "float a"))
    sequence = mgr.sequence().record(kp.OpSyncDevice([ta, tb]))
    sequence.record(kp.OpMult([ta, tb, out], algorithm)).record(kp.OpSyncLocal([out])).eval()
    np.testing.assert_array_equal(out.data(), a * b)
    assert algorithm.get_mem_objects() == [ta, tb, out]


@pytest.mark.parametrize("make, message", [
    (lambda t, a: kp.OpSyncDevice([]), "OpSyncDevice called with less than 1 memory object"),
    (lambda t, a: kp.OpSyncLocal([]), "OpSyncLocal called with less than 1 memory object"),
    (lambda t, a: kp.OpCopy([t]), "OpCopy called with less than 2 memory objects"),
    (lambda t, a: kp.OpMult([t, t], a), "OpMult expected 3 mem objects but got 2"),
])
def test_operation_errors(mgr, make, message):
    tensor = mgr.tensor([1.0])
    with pytest.raises(RuntimeError, match=message):
        make(tensor, mgr.algorithm([tensor], shader("", "float a")))


def test_operations_check_their_arguments(mgr):
    with pytest.raises(TypeError, match=r"mem_objects\[0\] must be a kp.Tensor"):
        kp.OpSyncDevice([np.ones(3)])
    with pytest.raises(TypeError, match="algorithm must be a kp.Algorithm"):
        kp.OpAlgoDispatch(mgr.tensor([1.0]))
    with pytest.raises(TypeError, match="operation must be a kp.Op"):
        mgr.sequence().record(mgr.tensor([1.0]))


def test_old_operation_names(mgr, rng):
    values = random_array(rng, 10, np.float32)
    a, b = mgr.tensor(values), mgr.tensor(np.zeros(10))
    assert kp.OpTensorSyncDevice is kp.OpSyncDevice and kp.OpTensorCopy is kp.OpCopy
    mgr.sequence().record(kp.OpTensorSyncDevice([a])).record(kp.OpTensorCopy([a, b])).eval()
    b.data()[:] = 0
    mgr.sequence().eval(kp.OpTensorSyncLocal([b]))
    np.testing.assert_array_equal(b.data(), values)
