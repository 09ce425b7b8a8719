"""examples/template_matching.py in the suite: on a small image it finds every template, and
its correlation maps (vd.fft.convolve2DR) equal direct float64 sums of image x template."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import loaded_example

import vkdispatch as vd


@pytest.fixture(scope="module")
def example():
    with loaded_example("template_matching.py") as module:
        yield module


@pytest.fixture(scope="module")
def result(context, example):
    return example.run(size=256, templates=12, noise=0.5, seed=0, repeats=1)


def direct_correlation(image: np.ndarray, kernel: np.ndarray, y: int, x: int) -> float:
    """sum_ij image[(y + i) % H, (x + j) % W] * kernel[i, j] in float64, without an FFT."""
    height, width = image.shape
    side = kernel.shape[0]
    rows = (y + np.arange(side)) % height
    cols = (x + np.arange(kernel.shape[1])) % width
    return float(np.sum(image[np.ix_(rows, cols)].astype(np.float64) * kernel))


def test_finds_every_template(example, result):
    assert len(result.templates) == 12
    assert result.hits.all(), (result.true, result.found)
    # rotated copies are templates of their own, and none looks like another
    assert sum(" rot" in template.name for template in result.templates) == 8
    patterns = [template.pattern for template in result.templates]
    assert all(not np.array_equal(a, b) for i, a in enumerate(patterns)
               for b in patterns[i + 1:])
    assert example.similarities(result.templates).max() <= example.MAX_SIMILARITY


def test_peaks_are_the_correlation_at_the_true_positions(result):
    scale = max(float(np.abs(result.correlation).max()), 1.0)
    for index, (template, (y, x)) in enumerate(zip(result.templates, result.true)):
        expected = direct_correlation(result.image, template.kernel, y, x)
        assert result.correlation[index, y, x] == pytest.approx(expected, abs=2e-4 * scale)
        fy, fx = result.found[index]
        assert result.scores[index] == result.correlation[index, fy, fx]
        assert result.scores[index] == result.correlation[index].max()
        assert result.scores[index] >= expected - 2e-4 * scale


def test_whole_map_is_the_circular_cross_correlation(result):
    rng = np.random.default_rng(1)
    size = result.image.shape[0]
    scale = max(float(np.abs(result.correlation).max()), 1.0)
    for index in (0, 5, 11):
        kernel = result.templates[index].kernel
        # the corners wrap around the image edges
        points = [(0, 0), (size - 1, size - 1), (size - 5, 3)]
        points += [tuple(p) for p in rng.integers(0, size, size=(5, 2))]
        for y, x in points:
            expected = direct_correlation(result.image, kernel, y, x)
            assert result.correlation[index, y, x] == pytest.approx(expected, abs=2e-4 * scale)


def test_command_line(context, example, capsys):
    assert example.main(["--no-plot", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "found 12 of 12 templates" in out
    assert "A rot180" in out and "correlation on the device" in out


def test_exit_status_1_when_a_template_is_missed(context, example, monkeypatch, capsys):
    device_peaks = example.device_peaks

    def wrong_peaks(work):
        found, scores = device_peaks(work)
        found[-1] = (found[-1] + 10) % work.real_shape[-1]
        return found, scores

    monkeypatch.setattr(example, "device_peaks", wrong_peaks)
    assert example.main(["--no-plot"]) == 1
    assert "<- missed" in capsys.readouterr().out


def test_unsupported_size_is_a_usage_error(context, example, capsys):
    with pytest.raises(SystemExit) as exit_info:
        example.main(["--no-plot", "--size", "257"])
    assert exit_info.value.code == 2
    assert "next one is" in capsys.readouterr().err


def test_device_peak_search_matches_the_host_one(context, example, rng):
    """vd.reduce's maximum and first position of it, per map, equal numpy's argmax."""
    maps = rng.standard_normal((5, 24, 30)).astype(np.float32)
    maps[2, 7, 29] = 50.0  # a peak in the last column of a row (next to the row padding)
    work = vd.asrfftbuffer(maps)
    found, scores = example.device_peaks(work)
    expected_found, expected_scores = example.find_peaks(maps)
    np.testing.assert_array_equal(found, expected_found)
    np.testing.assert_array_equal(scores, expected_scores)
