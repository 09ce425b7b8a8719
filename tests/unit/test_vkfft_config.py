"""VkFFTConfig without a device: the normalisation that makes it the plan cache's key, its
translation to VkFFT's terms, and VkFFTPlan taking exactly its arguments.

The plans built from configs are checked against numpy in tests/device/test_vkfft.py.
"""
from __future__ import annotations

import dataclasses
import inspect

import pytest

import vkdispatch as vd
from vkdispatch.vkfft.vkfft_config import VkFFTConfig


def test_vkfft_config_descriptions_of_one_transform_are_one_key():
    first = VkFFTConfig((3, 40), axes=(1,), normalize=True, padding=None)
    same = [VkFFTConfig([3, 40], axes=[1], normalize=1, padding=[None, (0, 0)]),
            VkFFTConfig((3, 40), axes=-1, normalize=True, padding=((0, 0), [0, 0]))]
    assert all(config == first and hash(config) == hash(first) for config in same)
    assert {first: "plan"}[same[0]] == "plan"
    assert VkFFTConfig((4, 6, 5), axes=[2, 0]).axes == (0, 2)
    assert VkFFTConfig((4, 6, 5)).axes == (0, 1, 2)  # None: every axis


def test_vkfft_config_fields_that_shape_kernels_tell_configs_apart():
    base = VkFFTConfig((2, 45), axes=[1])
    others = [VkFFTConfig((2, 45), axes=[1], normalize=True),
              VkFFTConfig((45, 2), axes=[1]),
              VkFFTConfig((2, 45), axes=[0, 1]),
              VkFFTConfig((2, 45), axes=[1], fourier_type=vd.complex128),
              VkFFTConfig((2, 45), axes=[1], keep_shader_code=True),
              VkFFTConfig((2, 45), axes=[1], runs=2)]
    assert all(other != base for other in others)
    assert len(set(others)) == len(others)


def test_vkfft_config_conjugate_convolution_bool_is_its_int():
    as_bool = VkFFTConfig((8, 8), kernel_count=1, conjugate_convolution=True)
    assert as_bool.conjugate_convolution == 1 and type(as_bool.conjugate_convolution) is int
    assert as_bool == VkFFTConfig((8, 8), kernel_count=1, conjugate_convolution=1)


def test_vkfft_config_single_kernel_multiple_batches_accepted_in_its_place_and_not_kept():
    names = [field.name for field in dataclasses.fields(VkFFTConfig)]
    assert "single_kernel_multiple_batches" not in names
    # vkdispatch 0.1.0's positional order: ..., num_batches, single_kernel_multiple_batches,
    # keep_shader_code.
    positional = VkFFTConfig((16,), False, None, False, None, False, 0, None, None, False, 0, 1,
                             3, True, True)
    assert positional.num_batches == 3 and positional.keep_shader_code
    assert positional == VkFFTConfig((16,), num_batches=3, keep_shader_code=True)


def test_vkfft_config_geometry_reverses_axes_and_batches_the_untransformed():
    config = VkFFTConfig((4, 6, 5), axes=[0, 2], padding=[(1, 3), None, (0, 2)])
    geometry = config.geometry()
    assert geometry["dimensions"] == 3
    assert geometry["size"] == (5, 6, 4)  # VkFFT's dimension 0 is the last Python axis
    assert geometry["omitted"] == (False, True, False)
    assert geometry["pad_left"] == (0, 0, 1) and geometry["pad_right"] == (2, 0, 3)
    assert geometry["double_precision"] is False and geometry["input_bytes"] == 0


def test_vkfft_config_geometry_leaves_out_axes_of_length_one():
    geometry = VkFFTConfig((1, 8, 1), axes=[1]).geometry()
    assert geometry["dimensions"] == 1 and geometry["size"] == (8, 1, 1)


def test_vkfft_config_geometry_renames_to_vkffts_fields():
    config = VkFFTConfig((8, 8), num_batches=2, pad_frequency_domain=True, convolution_features=0,
                         input_shape=(8, 8), input_type=vd.complex128,
                         fourier_type=vd.complex128)
    geometry = config.geometry()
    assert geometry["batches"] == 2 and geometry["frequency_zeropadding"] is True
    assert geometry["coordinate_features"] == 1  # VkFFT needs at least one
    assert geometry["double_precision"] is True and geometry["input_bytes"] == 64 * 16


@pytest.mark.parametrize("arguments, error, match", [
    (dict(shape=(2, 2, 2, 2)), ValueError, "Shape must be 1D, 2D, or 3D"),
    (dict(shape=(4, 16), axes=[2]), ValueError, "axes: axis 2 is out of range"),
    (dict(shape=(4, 16), do_r2c=True, axes=[0]), ValueError, "axes: a real transform runs"),
    (dict(shape=(1, 1)), ValueError, "transform is the identity"),
    (dict(shape=(8, 8), padding=[(5, 5), None]), ValueError, r"padding: \(5, 5\) for axis 0"),
    (dict(shape=(4, 16), num_batches=1.5), TypeError, "num_batches must be an int"),
    (dict(shape=(4, 16), fourier_type=vd.float32), TypeError, "fourier_type: VkFFT transforms"),
])
def test_vkfft_config_refuses_what_vkfft_cannot_plan_naming_the_argument(arguments, error, match):
    with pytest.raises(error, match=match):
        VkFFTConfig(**arguments)


def test_vkfft_plan_takes_exactly_the_configs_arguments():
    plan_parameters = list(inspect.signature(vd.vkfft.VkFFTPlan).parameters)
    config_parameters = list(inspect.signature(VkFFTConfig).parameters)
    assert plan_parameters == config_parameters
    assert plan_parameters[:3] == ["shape", "do_r2c", "axes"]
