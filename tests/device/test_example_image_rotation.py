"""examples/image_rotation.py in the suite: its rotations equal an independent sampling model
(tests/image_model.py with a clamp-to-border sampler), a quarter turn of a square picture is
np.rot90, and the PNG it writes decodes back to the montage."""
from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest
from helpers import loaded_example
from image_model import sample

import vkdispatch as vd


@pytest.fixture(scope="module")
def example():
    with loaded_example("image_rotation.py") as module:
        yield module


def test_rotations_match_the_sampling_model(context, example):
    rows, cols, angles = 36, 52, (25.0, -140.0, 200.0)
    result = example.run(rows, cols, angles)
    centre = np.array([(cols - 1) / 2, (rows - 1) / 2])
    y, x = np.mgrid[0:rows, 0:cols]
    pixels = np.stack([x.ravel(), y.ravel()], axis=1) - centre
    for angle, rotated in zip(angles, result.rotated):
        turn = np.radians(angle)
        back = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
        coords = pixels @ back.T + centre
        expected = sample(result.picture, coords, vd.Filter.LINEAR,
                          vd.AddressMode.CLAMP_TO_BORDER,
                          vd.BorderColor.FLOAT_TRANSPARENT_BLACK)[:, 0]
        np.testing.assert_allclose(rotated.ravel(), expected, atol=example.TOLERANCE)
    assert result.max_error <= example.TOLERANCE


def test_a_quarter_turn_of_a_square_picture_is_rot90(context, example):
    result = example.run(40, 40, (90.0,))
    np.testing.assert_allclose(result.rotated[0], np.rot90(result.picture), atol=1e-4)


def test_png_decodes_to_the_montage(context, example, tmp_path):
    result = example.run(20, 30, (45.0,))
    path = tmp_path / "rotation.png"
    example.write_png(str(path), example.montage(result))
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    montage = example.montage(result)
    assert (height, width) == montage.shape
    start = data.index(b"IDAT") + 4
    length = struct.unpack(">I", data[start - 8:start - 4])[0]
    raw = np.frombuffer(zlib.decompress(data[start:start + length]), np.uint8)
    pixels = raw.reshape(height, width + 1)[:, 1:]
    np.testing.assert_array_equal(pixels, np.round(np.clip(montage, 0, 1) * 255))


def test_main_reports_and_succeeds(context, example, tmp_path, capsys):
    assert example.main(["--rows", "24", "--cols", "32", "--angles", "15", "-75",
                         "--output", str(tmp_path / "out.png")]) == 0
    assert "largest difference from the numpy bilinear model" in capsys.readouterr().out
    assert (tmp_path / "out.png").stat().st_size > 100


def test_rotations_match_scipy_where_installed(context, example):
    pytest.importorskip("scipy")
    result = example.run(30, 44, (33.0, -100.0))
    assert example.scipy_difference(result) <= example.TOLERANCE
