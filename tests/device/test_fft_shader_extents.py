"""A shader or plan made for one shape, called on a buffer too small for that shape, is refused
naming both shapes, and touches nothing; a large enough buffer (a trimmed layout) still works.

Before the check, ``make_fft_shader((1024,))`` applied to a buffer of 256 values read and wrote
past the buffer's end and returned garbage without an error.
"""
import numpy as np
import pytest

import vkdispatch as vd
from vkdispatch.codegen.abbreviations import Buff, c64
from vkdispatch.fft.multi_pass import FourStepFFT

pytestmark = pytest.mark.usefixtures("context")

RNG = np.random.default_rng(7)


def _complex(shape) -> np.ndarray:
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(np.complex64)


def _refused(call, buffer, data, *shapes) -> None:
    """``call()`` raises a ValueError naming every shape in ``shapes``; ``buffer`` keeps
    ``data`` and the context stays usable."""
    with pytest.raises(ValueError) as info:
        call()
    for shape in shapes:
        assert str(tuple(shape)) in str(info.value), str(info.value)
    np.testing.assert_array_equal(buffer.read(0), data)
    again = vd.asbuffer(data)
    vd.fft.fft(again)
    np.testing.assert_allclose(again.read(0), np.fft.fft(data), rtol=1e-4, atol=1e-3)


def test_a_shader_for_a_longer_line_is_refused():
    data = _complex(256)
    buffer = vd.asbuffer(data)
    shader = vd.fft.make_fft_shader((1024,))
    _refused(lambda: shader(buffer), buffer, data, (1024,), (256,))


def test_a_shader_for_more_rows_is_refused_and_fewer_rows_transform_only_those():
    shader = vd.fft.make_fft_shader((8, 64))
    data = _complex((4, 64))
    small = vd.asbuffer(data)
    _refused(lambda: shader(small), small, data, (8, 64), (4, 64))
    rows = _complex((16, 64))
    large = vd.asbuffer(rows)
    shader(large)  # a trimmed layout: the first 8 rows
    result = large.read(0)
    np.testing.assert_allclose(result[:8], np.fft.fft(rows[:8], axis=1), rtol=1e-4, atol=1e-3)
    np.testing.assert_array_equal(result[8:], rows[8:])


def _store(out: Buff[c64]):
    vd.fft.write_op().write_to_buffer(out)


def test_out_of_place_input_and_output_are_each_checked():
    shader = vd.fft.make_fft_shader((128,), output_map=vd.map(_store),
                                    input_type=vd.complex64)
    good, short = _complex(128), _complex(64)
    out, source, small = vd.asbuffer(_complex(128)), vd.asbuffer(good), vd.asbuffer(short)
    _refused(lambda: shader(out, small), small, short, (128,), (64,))
    shader(out, source)
    np.testing.assert_allclose(out.read(0), np.fft.fft(good), rtol=1e-4, atol=1e-3)


def test_a_convolution_shader_checks_its_signal_buffer():
    data = _complex(64)
    buffer, kernel = vd.asbuffer(data), vd.asbuffer(_complex(256))
    shader = vd.fft.make_convolution_shader((256,))
    _refused(lambda: shader(buffer, kernel), buffer, data, (256,), (64,))


def test_a_real_shader_checks_the_half_spectrum_rows():
    rows = RNG.standard_normal((4, 30)).astype(np.float32)
    buffer = vd.RFFTBuffer((4, 30))
    buffer.write_real(rows)
    before = buffer.read(0)
    for shape in [(4, 64), (4, 63)]:  # the packed even shader and the full complex one
        shader = vd.fft.make_fft_shader(shape, r2c=True)
        _refused(lambda: shader(buffer), buffer, before, shape, (4, 16))
    vd.fft.make_fft_shader((4, 30), r2c=True)(buffer)
    np.testing.assert_allclose(buffer.read(0), np.fft.rfft(rows, axis=1), rtol=1e-4, atol=1e-3)


def test_a_two_pass_plan_checks_the_user_shape():
    n = 2048
    while not isinstance(vd.fft.make_fft_shader((n,)), FourStepFFT):
        n *= 2
    plan = vd.fft.make_fft_shader((n,))
    data = _complex(n // 2)
    buffer = vd.asbuffer(data)
    _refused(lambda: plan(buffer), buffer, data, (n,), (n // 2,))


def test_a_transpose_shader_checks_the_kernel_and_the_transposed_buffer():
    shape = (4, 32)
    shader = vd.fft.make_transpose_shader(shape, axis=1)
    size = vd.fft.get_transposed_size(shape, axis=1)
    data = _complex(shape)
    kernel, out = vd.asbuffer(data), vd.Buffer((size,), vd.complex64)
    short = vd.asbuffer(data[:2])
    _refused(lambda: shader(out, short), short, data[:2], shape, (2, 32))
    small = vd.asbuffer(_complex(size // 2))
    before = small.read(0)
    _refused(lambda: shader(small, kernel), small, before, shape, (size // 2,))
    shader(out, kernel)
    assert np.isin(data.reshape(-1), out.read(0)).all()  # every value lands somewhere
