"""FFT precision rules (docs/fft.rst; vkdispatch 0.1.0's): legal precisions, promotion, device
support over every device of the context, and compute-precision resolution with downward
fallback. Devices are fakes installed in place of ``get_context``, so no GPU is needed."""
from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest

import vkdispatch as vd
from vkdispatch.errors import InvalidArgumentError
from vkdispatch.fft import precision as fp

COMPLEX = [vd.complex32, vd.complex64, vd.complex128]
NOT_COMPLEX = [vd.float16, vd.float32, vd.float64, vd.vec2, vd.dvec2, vd.int32, None,
               "complex64", np.complex64]


def device(fp16=1, fp64=1, storage16=1, uniform_storage16=1):
    """A fake ``DeviceInfo`` holding only the fields the support rules read."""
    return SimpleNamespace(float_16_support=fp16, float_64_support=fp64,
                           storage_buffer_16_bit_access=storage16,
                           uniform_and_storage_buffer_16_bit_access=uniform_storage16)


@pytest.fixture
def devices(monkeypatch):
    """Call with fake devices to make them the current context's device set."""
    def install(*infos):
        context = SimpleNamespace(device_infos=list(infos))
        monkeypatch.setattr(fp, "get_context", lambda: context)
    install(device())
    return install


# -- legal precisions ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: d.name)
def test_is_complex_precision_complex_dtypes_true(dtype):
    assert fp.is_complex_precision(dtype) is True


@pytest.mark.parametrize("value", NOT_COMPLEX, ids=repr)
def test_is_complex_precision_other_values_false(value):
    assert fp.is_complex_precision(value) is False


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: d.name)
def test_validate_complex_precision_legal_returns_it(dtype):
    assert fp.validate_complex_precision(dtype, arg_name="output_type") is dtype


@pytest.mark.parametrize("value,shown", [(vd.float32, "float32"), (vd.vec2, "vec2"),
                                         (None, "None"), ("complex64", "'complex64'")])
def test_validate_complex_precision_illegal_raises_naming_argument_and_value(value, shown):
    message = (r"^input_type must be one of complex32, complex64, or complex128 "
               rf"\(got {shown}\)$")
    with pytest.raises(InvalidArgumentError, match=message):
        fp.validate_complex_precision(value, arg_name="input_type")


def test_validate_complex_precision_error_is_a_value_error():
    with pytest.raises(ValueError, match="kernel_type must be one of"):
        fp.validate_complex_precision(vd.float64, arg_name="kernel_type")


# -- promotion ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtypes", list(itertools.permutations(COMPLEX)),
                         ids=lambda ds: "-".join(d.name for d in ds))
def test_promote_complex_precisions_any_order_gives_complex128(dtypes):
    assert fp.promote_complex_precisions(dtypes) is vd.complex128


@pytest.mark.parametrize("dtypes,expected", [
    ([vd.complex32], vd.complex32),
    ([vd.complex32, vd.complex32], vd.complex32),
    ([vd.complex64, vd.complex32], vd.complex64),
    ([vd.complex32, vd.complex64], vd.complex64),
    ([vd.complex64], vd.complex64),
], ids=["c32", "c32-c32", "c64-c32", "c32-c64", "c64"])
def test_promote_complex_precisions_picks_highest_rank(dtypes, expected):
    assert fp.promote_complex_precisions(dtypes) is expected


def test_promote_complex_precisions_accepts_a_generator():
    assert fp.promote_complex_precisions(d for d in [vd.complex32, vd.complex64]) is vd.complex64


def test_promote_complex_precisions_empty_raises():
    with pytest.raises(InvalidArgumentError, match="at least one complex precision"):
        fp.promote_complex_precisions([])


def test_promote_complex_precisions_non_complex_member_raises():
    with pytest.raises(InvalidArgumentError, match=r"dtypes must be one of .*\(got float32\)"):
        fp.promote_complex_precisions([vd.complex64, vd.float32])


@pytest.mark.parametrize("io,expected", [
    ([vd.complex32], vd.complex64),
    ([vd.complex32, vd.complex32], vd.complex64),
    ([vd.complex64], vd.complex64),
    ([vd.complex32, vd.complex64], vd.complex64),
    ([vd.complex128], vd.complex128),
    ([vd.complex32, vd.complex128], vd.complex128),
], ids=["c32", "c32-c32", "c64", "c32-c64", "c128", "c32-c128"])
def test_default_compute_precision_promotes_with_complex64_floor(io, expected):
    assert fp.default_compute_precision(io) is expected


def test_default_compute_precision_empty_raises():
    with pytest.raises(InvalidArgumentError, match="at least one complex precision"):
        fp.default_compute_precision([])


# -- device support -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: d.name)
def test_supports_complex_precision_full_device_supports_all(devices, dtype):
    assert fp.supports_complex_precision(dtype) is True


def test_supports_complex_precision_complex64_needs_no_feature(devices):
    devices(device(fp16=0, fp64=0, storage16=0, uniform_storage16=0))
    assert fp.supports_complex_precision(vd.complex64) is True


@pytest.mark.parametrize("fp16,storage16,uniform_storage16,expected", [
    (1, 1, 1, True),
    (1, 1, 0, True),
    (1, 0, 1, True),
    (1, 0, 0, False),
    (0, 1, 1, False),
    (0, 0, 0, False),
])
def test_supports_complex_precision_complex32_needs_fp16_and_16_bit_storage(
        devices, fp16, storage16, uniform_storage16, expected):
    devices(device(fp16=fp16, storage16=storage16, uniform_storage16=uniform_storage16))
    assert fp.supports_complex_precision(vd.complex32) is expected


def test_supports_complex_precision_complex32_ignores_fp64(devices):
    devices(device(fp64=0))
    assert fp.supports_complex_precision(vd.complex32) is True


@pytest.mark.parametrize("fp64,expected", [(1, True), (0, False)])
def test_supports_complex_precision_complex128_needs_fp64(devices, fp64, expected):
    devices(device(fp64=fp64, fp16=0, storage16=0, uniform_storage16=0))
    assert fp.supports_complex_precision(vd.complex128) is expected


@pytest.mark.parametrize("dtype,lacking", [
    (vd.complex128, device(fp64=0)),
    (vd.complex32, device(fp16=0)),
    (vd.complex32, device(storage16=0, uniform_storage16=0)),
], ids=["c128-no-fp64", "c32-no-fp16", "c32-no-16-bit-storage"])
@pytest.mark.parametrize("position", [0, 1, 2])
def test_supports_complex_precision_one_lacking_device_of_several_fails(
        devices, dtype, lacking, position):
    infos = [device(), device()]
    infos.insert(position, lacking)
    devices(*infos)
    assert fp.supports_complex_precision(dtype) is False


def test_supports_complex_precision_several_capable_devices_pass(devices):
    devices(device(), device(storage16=0), device(uniform_storage16=0))
    assert all(fp.supports_complex_precision(dtype) for dtype in COMPLEX)


@pytest.mark.parametrize("value", [vd.float32, vd.vec2, None], ids=repr)
def test_supports_complex_precision_non_complex_raises(devices, value):
    with pytest.raises(InvalidArgumentError, match="dtype must be one of complex32"):
        fp.supports_complex_precision(value)


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: d.name)
def test_ensure_supported_complex_precision_supported_returns_it(devices, dtype):
    assert fp.ensure_supported_complex_precision(dtype, role="Output") is dtype


@pytest.mark.parametrize("role", ["Input", "Output", "Kernel", "Compute"])
@pytest.mark.parametrize("dtype,lacking,feature", [
    (vd.complex128, device(fp64=0), "fp64 arithmetic"),
    (vd.complex32, device(fp16=0), "fp16 arithmetic"),
    (vd.complex32, device(storage16=0, uniform_storage16=0), "16-bit storage"),
], ids=["c128-no-fp64", "c32-no-fp16", "c32-no-16-bit-storage"])
def test_ensure_supported_complex_precision_unsupported_raises_naming_role(
        devices, role, dtype, lacking, feature):
    devices(device(), lacking)
    message = f"^{role} precision '{dtype.name}' is not supported on the active device set"
    with pytest.raises(InvalidArgumentError, match=message) as raised:
        fp.ensure_supported_complex_precision(dtype, role=role)
    assert feature in str(raised.value)


def test_ensure_supported_complex_precision_non_complex_raises(devices):
    with pytest.raises(InvalidArgumentError, match=r"must be one of .*\(got float64\)"):
        fp.ensure_supported_complex_precision(vd.float64, role="Input")


# -- compute precision resolution ---------------------------------------------------------

@pytest.mark.parametrize("compute", COMPLEX, ids=lambda d: d.name)
@pytest.mark.parametrize("io", [[], [vd.complex32], [vd.complex128, vd.complex64]],
                         ids=["none", "c32", "c128-c64"])
def test_resolve_compute_precision_explicit_supported_wins(devices, io, compute):
    assert fp.resolve_compute_precision(io, compute) is compute


@pytest.mark.parametrize("dtype,lacking", [
    (vd.complex128, device(fp64=0)),
    (vd.complex32, device(fp16=0)),
], ids=["c128-no-fp64", "c32-no-fp16"])
def test_resolve_compute_precision_explicit_unsupported_raises_naming_compute(
        devices, dtype, lacking):
    devices(lacking)
    message = f"^Compute precision '{dtype.name}' is not supported on the active device set"
    with pytest.raises(InvalidArgumentError, match=message):
        fp.resolve_compute_precision([vd.complex64], dtype)


def test_resolve_compute_precision_explicit_illegal_raises_naming_compute_type(devices):
    with pytest.raises(InvalidArgumentError, match=r"^compute_type must be one of .*float32"):
        fp.resolve_compute_precision([vd.complex64], vd.float32)


@pytest.mark.parametrize("infos", [[device()], [device(fp16=0, fp64=0)]],
                         ids=["full", "no-fp16-no-fp64"])
def test_resolve_compute_precision_all_mapped_gives_complex64(devices, infos):
    devices(*infos)
    assert fp.resolve_compute_precision([], None) is vd.complex64


@pytest.mark.parametrize("io,expected", [
    ([vd.complex32], vd.complex64),
    ([vd.complex32, vd.complex32, vd.complex32], vd.complex64),
    ([vd.complex64], vd.complex64),
    ([vd.complex128], vd.complex128),
    ([vd.complex32, vd.complex128], vd.complex128),
], ids=["c32", "c32x3", "c64", "c128", "c32-c128"])
def test_resolve_compute_precision_promotes_io_with_complex64_floor(devices, io, expected):
    assert fp.resolve_compute_precision(io, None) is expected


@pytest.mark.parametrize("infos", [[device(fp64=0)], [device(), device(fp64=0)]],
                         ids=["single", "one-of-two"])
def test_resolve_compute_precision_complex128_without_fp64_falls_back_to_complex64(
        devices, infos):
    devices(*infos)
    assert fp.resolve_compute_precision([vd.complex128, vd.complex32], None) is vd.complex64


def test_resolve_compute_precision_illegal_io_raises(devices):
    with pytest.raises(InvalidArgumentError, match=r"must be one of .*\(got vec2\)"):
        fp.resolve_compute_precision([vd.complex64, vd.vec2], None)


@pytest.fixture
def only_supported(monkeypatch, devices):
    """Call with the precisions to treat as supported (complex64 always is on real devices, so
    the lower fallback steps are reached only through this stand-in)."""
    def install(*supported):
        monkeypatch.setattr(fp, "supports_complex_precision", lambda d: d in supported)
    return install


@pytest.mark.parametrize("io", [[], [vd.complex64], [vd.complex128]],
                         ids=["none", "c64", "c128"])
def test_resolve_compute_precision_falls_back_to_complex32_last(only_supported, io):
    only_supported(vd.complex32)
    assert fp.resolve_compute_precision(io, None) is vd.complex32


def test_resolve_compute_precision_never_falls_back_upward(only_supported):
    only_supported(vd.complex32, vd.complex128)
    assert fp.resolve_compute_precision([vd.complex32], None) is vd.complex32
    assert fp.resolve_compute_precision([], None) is vd.complex32


@pytest.mark.parametrize("io,ceiling", [([], "complex64"), ([vd.complex128], "complex128")],
                         ids=["none", "c128"])
def test_resolve_compute_precision_nothing_supported_raises(only_supported, io, ceiling):
    only_supported()
    with pytest.raises(InvalidArgumentError, match=f"no complex precision up to {ceiling} "):
        fp.resolve_compute_precision(io, None)
