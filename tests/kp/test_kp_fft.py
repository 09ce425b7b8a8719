"""kp.OpFFT against numpy.fft: forward and inverse, batched, 2-D and 3-D, strided axes, complex128,
recorded beside a dispatch and evaluated again, and the errors that name the argument."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import random_array
from kp_programs import shader

import kp

# (shape, axes) as numpy.fft.fftn takes them; None: every axis.
LAYOUTS = [
    ((64,), None),
    ((6, 40), [-1]),  # six lines of 40
    ((2, 3, 16), 2),  # batches of two leading axes
    ((12, 16), None),
    ((4, 6, 8), None),
    ((4, 6, 8), (0, -1)),  # the middle axis batched over in place
    ((16, 5), [0]),  # a strided axis
    ((3, 1, 10), None),  # an axis of length 1
]


def complex_tensor(mgr, values: np.ndarray, memory_type=None):
    """A tensor of ``values`` (complex64 or complex128) as interleaved float pairs."""
    pairs = values.reshape(-1).view(np.float32 if values.dtype == np.complex64 else np.float64)
    return mgr.tensor_t(pairs, memory_type=memory_type)


def complex_data(tensor, shape, dtype=np.complex64) -> np.ndarray:
    return tensor.data().view(dtype).reshape(shape)


def assert_close(got: np.ndarray, want: np.ndarray, tolerance: float) -> None:
    error = np.linalg.norm(got - want) / np.linalg.norm(want)
    assert error < tolerance, f"relative error {error:.3g} (tolerance {tolerance:.3g})"


def transformed(mgr, values, shape, axes, inverse):
    """``values`` after kp.OpFFT in a sequence that syncs both ways."""
    tensor = complex_tensor(mgr, values)
    (mgr.sequence()
        .record(kp.OpSyncDevice([tensor]))
        .record(kp.OpFFT([tensor], shape, inverse=inverse, axes=axes))
        .record(kp.OpSyncLocal([tensor]))
        .eval())
    return complex_data(tensor, shape, values.dtype)


@pytest.mark.parametrize("shape, axes", LAYOUTS)
def test_forward_and_inverse_match_numpy(mgr, rng, shape, axes):
    values = random_array(rng, shape, np.complex64)
    np_axes = (axes,) if isinstance(axes, int) else axes  # kp also takes a bare int
    assert_close(transformed(mgr, values, shape, axes, False), np.fft.fftn(values, axes=np_axes),
                 1e-5)
    assert_close(transformed(mgr, values, shape, axes, True), np.fft.ifftn(values, axes=np_axes),
                 1e-5)


def test_random_layouts_match_numpy_or_are_refused_by_name(mgr, rng):
    for _ in range(8):
        shape = tuple(int(n) for n in rng.choice([1, 2, 3, 4, 6, 8, 12], rng.integers(1, 5)))
        axes = sorted(rng.choice(len(shape), rng.integers(1, len(shape) + 1), replace=False))
        axes = [int(a) - len(shape) if rng.integers(2) else int(a) for a in axes]
        values = random_array(rng, shape, np.complex64)
        kept = [n for n in shape[min(a % len(shape) for a in axes):] if n > 1]
        case = f"shape {shape}, axes {axes}"
        if all(shape[a] == 1 for a in axes):
            with pytest.raises(ValueError, match="has length 1"):
                kp.OpFFT(complex_tensor(mgr, values), shape, axes=axes)
        elif len(kept) > 3:
            with pytest.raises(ValueError, match="at most 3 axes"):
                kp.OpFFT(complex_tensor(mgr, values), shape, axes=axes)
        else:
            inverse = bool(rng.integers(2))
            want = (np.fft.ifftn if inverse else np.fft.fftn)(values, axes=axes)
            got = transformed(mgr, values, shape, axes, inverse)
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max(),
                                       err_msg=case)


def test_complex128_tensors_keep_double_precision(mgr, rng):
    values = random_array(rng, (5, 24), np.complex128)
    got = transformed(mgr, values, (5, 24), [-1], False)
    assert got.dtype == np.complex128
    assert_close(got, np.fft.fft(values, axis=-1), 1e-12)  # single precision reaches ~1e-7


def test_after_a_dispatch_in_one_sequence_on_every_eval(mgr, rng):
    shape = (3, 32)
    tensor = complex_tensor(mgr, np.zeros(shape, np.complex64))
    double = mgr.algorithm([tensor], shader("x[i] = 2.0 * x[i] + 1.0;", "float x"))
    sequence = (mgr.sequence()
                .record(kp.OpSyncDevice([tensor]))
                .record(kp.OpAlgoDispatch(double))
                .record(kp.OpFFT(tensor, shape, axes=-1))
                .record(kp.OpSyncLocal([tensor])))
    for _ in range(3):
        values = random_array(rng, shape, np.complex64)
        tensor.data()[:] = values.view(np.float32).reshape(-1)
        sequence.eval()
        want = np.fft.fft(2 * values + (1 + 1j), axis=-1)
        assert_close(complex_data(tensor, shape), want, 1e-5)


def test_forward_then_inverse_restores_each_tensor_of_the_list(mgr, rng):
    a, b = random_array(rng, 48, np.complex64), random_array(rng, 48, np.complex64)
    ta, tb = complex_tensor(mgr, a), complex_tensor(mgr, b, kp.host)  # host: no sync needed
    (mgr.sequence()
        .record(kp.OpSyncDevice([ta]))
        .record(kp.OpFFT([ta, tb], 48))
        .record(kp.OpFFT([ta, tb], 48, inverse=True))
        .record(kp.OpSyncLocal([ta]))
        .eval())
    assert_close(complex_data(ta, 48), a, 1e-5)
    assert_close(complex_data(tb, 48), b, 1e-5)


def test_size_type_and_destroyed_tensors_are_refused_by_name(mgr, rng):
    good = complex_tensor(mgr, random_array(rng, 16, np.complex64))
    short = mgr.tensor(random_array(rng, 30, np.float32))
    with pytest.raises(ValueError, match=r"tensors\[1\] holds 30 values; shape \{16\} needs 32"):
        kp.OpFFT([good, short], 16)
    ints = mgr.tensor_t(random_array(rng, 32, np.int32))
    with pytest.raises(ValueError, match=r"tensors\[0\] is of type eInt; expected eFloat"):
        kp.OpFFT(ints, 16)
    with pytest.raises(ValueError, match=r"tensors\[0\] is an image"):
        kp.OpFFT(mgr.image(random_array(rng, 32, np.float32), 4, 4, 2), 16)
    gone = complex_tensor(mgr, random_array(rng, 16, np.complex64))
    gone.destroy()
    with pytest.raises(ValueError, match=r"tensors\[0\] has been destroyed"):
        kp.OpFFT(gone, 16)


def test_shapes_and_axes_are_checked(mgr, rng):
    tensor = complex_tensor(mgr, random_array(rng, (4, 8), np.complex64))
    with pytest.raises(ValueError, match=r"axes: axis 2 is out of range for a shape of 2 axes"):
        kp.OpFFT(tensor, (4, 8), axes=2)
    with pytest.raises(ValueError, match=r"axes: axis -1 is given twice \(as 1\)"):
        kp.OpFFT(tensor, (4, 8), axes=[1, -1])
    with pytest.raises(ValueError, match="axes: at least one axis, got none"):
        kp.OpFFT(tensor, (4, 8), axes=())
    with pytest.raises(ValueError, match=r"shape: every length must be >= 1, got \{4, 0\}"):
        kp.OpFFT(tensor, (4, 0))
    with pytest.raises(TypeError, match=r"OpFFT: shape\[1\] must be an int, got float"):
        kp.OpFFT(tensor, (4, 8.0))
    with pytest.raises(TypeError, match="OpFFT: inverse must be a bool, got str"):
        kp.OpFFT(tensor, (4, 8), inverse="yes")
    with pytest.raises(TypeError, match=r"OpFFT: tensors\[0\] must be a kp.Tensor"):
        kp.OpFFT([np.zeros(64, np.float32)], 32)


def test_a_sequence_refuses_to_run_an_fft_of_a_destroyed_tensor(mgr, rng):
    tensor = complex_tensor(mgr, random_array(rng, 16, np.complex64))
    sequence = mgr.sequence().record(kp.OpFFT(tensor, 16))
    tensor.destroy()
    with pytest.raises(RuntimeError, match="the OpFFT recorded into them uses a tensor"):
        sequence.eval()
