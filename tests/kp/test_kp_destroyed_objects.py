"""Objects destroyed (or an algorithm rebuilt) after a sequence recorded them: the sequence
raises, naming what is gone, instead of running freed Vulkan objects, and recovers after
``clear()``; a destroy while a submission runs waits for it."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import random_array
from kp_programs import shader

import kp

AFFINE = shader("y[i] = x[i] * 3.0 + 1.0;", "float x", "float y")


def assert_affine(y, x) -> None:
    """``y`` is ``3x + 1`` in float32: against float64, within a few roundings of the terms
    (a GPU may fuse the multiply-add, rounding once where numpy's float32 rounds twice)."""
    np.testing.assert_allclose(y, x.astype(np.float64) * 3 + 1, rtol=1e-6, atol=1e-6)
SQUARE = shader("y[i] = x[i] * x[i];", "float x", "float y")


@pytest.fixture
def pipeline(mgr, rng):
    """x (random), y and a sequence that uploads x, runs y = 3x + 1 and downloads y, once run."""
    x = random_array(rng, 300, np.float32)
    tx, ty = mgr.tensor(x), mgr.tensor(np.zeros(300))
    algorithm = mgr.algorithm([tx, ty], AFFINE)
    sequence = (mgr.sequence().record(kp.OpSyncDevice([tx])).record(kp.OpAlgoDispatch(algorithm))
                .record(kp.OpSyncLocal([ty])).eval())
    assert_affine(ty.data(), x)
    return x, tx, ty, algorithm, sequence


def assert_squares_computed(mgr, sequence, x, tx, ty):
    """The sequence, cleared, runs a new algorithm over the same tensors correctly."""
    sequence.clear()
    square = mgr.algorithm([tx, ty], SQUARE)
    sequence.record(kp.OpSyncDevice([tx])).record(kp.OpAlgoDispatch(square))
    sequence.record(kp.OpSyncLocal([ty])).eval()
    np.testing.assert_allclose(ty.data(), x.astype(np.float64) ** 2, rtol=1e-6)


def test_eval_after_the_algorithm_was_destroyed_names_it(mgr, pipeline):
    x, tx, ty, algorithm, sequence = pipeline
    algorithm.destroy()
    for _ in range(2):  # refused every time, until cleared
        with pytest.raises(RuntimeError, match="OpAlgoDispatch recorded into them dispatches an "
                                               "algorithm that has been destroyed since"):
            sequence.eval()
    assert_squares_computed(mgr, sequence, x, tx, ty)


@pytest.mark.parametrize("gone, operation, index", [(0, "OpSyncDevice", 0),
                                                   (1, "OpAlgoDispatch", 1)])
def test_eval_after_a_tensor_was_destroyed_names_it(mgr, rng, pipeline, gone, operation, index):
    x, tx, ty, algorithm, sequence = pipeline
    [tx, ty][gone].destroy()
    with pytest.raises(RuntimeError, match=f"the {operation} recorded into them uses a tensor "
                                           f"\\(memory object {index}\\) that has been destroyed"):
        sequence.eval()
    with pytest.raises(RuntimeError, match="destroyed since"):
        sequence.eval_async()
    # eval(op) clears first: the live tensor is still usable on the same sequence.
    live = [tx, ty][1 - gone]
    live.data()[:] = random_array(rng, 300, np.float32)
    sequence.eval(kp.OpSyncLocal([live]))
    if gone == 1:
        np.testing.assert_array_equal(live.data(), x)
    else:
        assert_affine(live.data(), x)


def test_record_into_a_recording_that_used_a_destroyed_tensor_raises(mgr, rng):
    x = random_array(rng, 64, np.float32)
    tx, ty, tz = mgr.tensor(x), mgr.tensor(np.zeros(64)), mgr.tensor(np.zeros(64))
    sequence = mgr.sequence().record(kp.OpSyncDevice([tz]))
    tz.destroy()
    with pytest.raises(RuntimeError, match="OpSyncDevice recorded into them uses a tensor"):
        sequence.record(kp.OpSyncDevice([tx]))
    with pytest.raises(RuntimeError, match="destroyed since"):
        sequence.rerecord()
    sequence.clear()
    algorithm = mgr.algorithm([tx, ty], AFFINE)
    sequence.record(kp.OpSyncDevice([tx])).record(kp.OpAlgoDispatch(algorithm))
    sequence.record(kp.OpSyncLocal([ty])).eval()
    assert_affine(ty.data(), x)


def test_an_algorithm_rebuilt_by_op_mult_after_recording_is_refused(mgr, rng, pipeline):
    x, tx, ty, algorithm, sequence = pipeline
    factor = random_array(rng, 300, np.float32)
    tf, out = mgr.tensor(factor), mgr.tensor(np.zeros(300))
    multiply = kp.OpMult([tx, tf, out], algorithm)  # rebuilds the recorded algorithm
    with pytest.raises(RuntimeError, match="algorithm that has been rebuilt since"):
        sequence.eval()
    sequence.clear()
    sequence.record(kp.OpSyncDevice([tx, tf])).record(multiply).record(kp.OpSyncLocal([out]))
    sequence.eval()
    np.testing.assert_allclose(out.data(), x * factor, rtol=1e-6)


def test_eval_after_an_image_was_destroyed_names_it(mgr, rng):
    texels = random_array(rng, 12, np.float32)
    image, copy = mgr.image(texels, 4, 3, 1), mgr.tensor(np.zeros(12))
    sequence = mgr.sequence().record(kp.OpSyncDevice([image])).record(kp.OpCopy([image, copy]))
    sequence.record(kp.OpSyncLocal([copy])).eval()
    np.testing.assert_array_equal(copy.data(), texels)
    image.destroy()
    with pytest.raises(RuntimeError, match=r"uses an image \(memory object 0\)"):
        sequence.eval()


# Enough arithmetic that lavapipe is still running it when the host destroys (~0.1 s).
STEPS = 2000
SLOW = shader(f"float v = x[i]; for (int k = 0; k < {STEPS}; ++k) {{ v = v * 0.999 + 0.001; }} "
              "y[i] = v;", "float x", "float y", local_size=64)


def test_destroy_while_a_submission_runs_waits_for_it(mgr, rng):
    # Freed under a running command buffer, the input would be read after its memory went
    # (the validation layer reports it in debug mode; without it, garbage or a crash).
    n = 64 * 1024
    x = rng.uniform(-1, 1, n).astype(np.float32)
    tx, ty = mgr.tensor(x), mgr.tensor(np.zeros(n))
    algorithm = mgr.algorithm([tx, ty], SLOW, (n // 64, 1, 1))
    mgr.sequence().eval(kp.OpSyncDevice([tx]))
    sequence = mgr.sequence()
    sequence.eval_async(kp.OpAlgoDispatch(algorithm))
    tx.destroy()
    algorithm.destroy()
    sequence.eval_await()
    mgr.sequence().eval(kp.OpSyncLocal([ty]))
    expected = x.astype(np.float64)
    for _ in range(STEPS):
        expected = expected * 0.999 + 0.001
    np.testing.assert_allclose(ty.data(), expected, rtol=1e-3, atol=1e-4)
