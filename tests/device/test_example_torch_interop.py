"""examples/torch_interop.py in the suite: each way into vkdispatch and back (a view of a buffer,
an import, the host round trip) gives numpy's convolution, and the zero-copy way really shares
the buffer's memory. With numpy's DLPack views on devices whose memory the host maps (lavapipe
in CI); with torch where it is installed and the device allows a view."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import loaded_example

import vkdispatch as vd


@pytest.fixture(scope="module")
def example():
    with loaded_example("torch_interop.py") as module:
        yield module


def numpy_views_or_skip(context):
    if vd.asbuffer(np.zeros(1, np.float32)).__dlpack_device__()[0] != 1:
        pytest.skip("this device's buffers have no host view")


@pytest.mark.parametrize("batch,length", [(3, 64), (5, 30)])
def test_every_way_matches_numpy(example, context, batch, length):
    numpy_views_or_skip(context)
    results = example.run(example.Library("numpy"), batch, length, repeats=1, seed=batch)
    assert len(results) == 3
    for name, (ms, error) in results.items():
        assert error < 1e-5, name
        assert ms > 0


def test_the_zero_copy_way_works_in_the_buffers_memory(example, context, rng):
    numpy_views_or_skip(context)
    lib = example.Library("numpy")
    signals = example.random_complex(rng, (4, 32))
    kernel = example.random_complex(rng, 32)
    spectrum = example.kernel_spectrum(lib, kernel)
    buffer = vd.Buffer((4, 32), vd.complex64)
    view = example.zero_copy(lib, buffer, signals, spectrum)
    expected = example.reference(signals, kernel)
    np.testing.assert_allclose(buffer.read(0), expected, rtol=0, atol=1e-5)
    view[0, 0] = 7 + 1j  # through the view, into the buffer
    assert buffer.read(0)[0, 0] == np.complex64(7 + 1j)
    del view
    buffer.destroy()
    spectrum.destroy()


def test_with_torch(example, context):
    pytest.importorskip("torch", reason="torch is not installed")
    lib = example.Library("torch")
    results = example.run(lib, 4, 64, repeats=1)
    for name, (_, error) in results.items():
        assert error < 1e-5, name
