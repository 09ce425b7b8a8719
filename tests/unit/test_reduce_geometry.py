"""vd.reduce's geometry as pure functions (no device): which axes are batches and which are
reduced, checked against a brute-force reading of the rule on every shape up to 3-D."""
from __future__ import annotations

import itertools
import math

import pytest

from vkdispatch.reduce.reduce_function import reduction_geometry

SHAPES = [(7,), (4, 5), (3, 1, 6), (2, 3, 4), (1, 9, 1)]


def _expected(shape, axes):
    """Reduced axes must be a trailing block (after normalising negatives); the axes before
    the first reduced one are batches. None when the rule rejects ``axes``."""
    ndim = len(shape)
    normalized = sorted({a % ndim for a in axes})
    if normalized[-1] != ndim - 1:
        return None
    first = normalized[0]
    return math.prod(shape[:first]), math.prod(shape[first:])


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_every_axes_choice_matches_the_rule(shape):
    ndim = len(shape)
    choices = [c for r in range(1, ndim + 1)
               for c in itertools.combinations(range(-ndim, ndim), r)]
    for axes in choices:
        expected = _expected(shape, axes)
        if expected is None:
            with pytest.raises(ValueError, match="contiguous"):
                reduction_geometry(shape, list(axes))
        else:
            assert reduction_geometry(shape, list(axes)) == expected, axes


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_no_axes_reduces_everything_in_one_batch(shape):
    assert reduction_geometry(shape, None) == (1, math.prod(shape))


@pytest.mark.parametrize("axes", [[3], [-4], ["a"], []], ids=str)
def test_axes_outside_the_shape_raise_naming_them(axes):
    with pytest.raises(ValueError, match="axes"):
        reduction_geometry((2, 3, 4), axes)


def test_an_int_axis_is_one_axis():
    assert reduction_geometry((10, 300), 1) == (10, 300)
    with pytest.raises(ValueError, match="contiguous"):
        reduction_geometry((10, 300), 0)
