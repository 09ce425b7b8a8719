"""vd.reduce's geometry as pure functions (no device): which axes are batches and which are
reduced, checked against a brute-force reading of the rule on every shape up to 3-D; how many
groups the first stage runs (no invocation loops longer than lavapipe allows, for every group
size and input size a buffer can have); how batches spread over dispatches."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from vkdispatch.base.buffer import MAX_BUFFER_ELEMENTS
from vkdispatch.reduce.geometry import (MAX_INVOCATION_ELEMENTS, MAX_LOOP_ITERATIONS,
                                        batch_blocks, first_stage_groups, partial_slots,
                                        reduction_geometry)
from vkdispatch.reduce.stage import UNROLL

SHAPES = [(7,), (4, 5), (3, 1, 6), (2, 3, 4), (1, 9, 1)]
LAVAPIPE_LOOP_LIMIT = 65535  # Mesa's LP_MAX_TGSI_LOOP_ITERATIONS, for all loops of a shader
GROUP_SIZES = [1 << k for k in range(11)]


def _expected(shape, axes):
    """Reduced axes must be a trailing block without gaps (after normalising negatives), each
    named once; the axes before the first reduced one are batches. The error's key word when
    the rule rejects ``axes``."""
    ndim = len(shape)
    normalized = sorted({a % ndim for a in axes})
    if len(normalized) != len(axes):
        return "once"
    if normalized != list(range(ndim - len(normalized), ndim)):
        return "contiguous"
    first = normalized[0]
    return math.prod(shape[:first]), math.prod(shape[first:])


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_every_axes_choice_matches_the_rule(shape):
    ndim = len(shape)
    choices = [c for r in range(1, ndim + 1)
               for c in itertools.combinations(range(-ndim, ndim), r)]
    for axes in choices:
        expected = _expected(shape, axes)
        if isinstance(expected, str):
            with pytest.raises(ValueError, match=expected):
                reduction_geometry(shape, list(axes))
        else:
            assert reduction_geometry(shape, list(axes)) == expected, axes


def test_axes_with_a_gap_raise_naming_the_allowed_and_the_given_axes():
    """[0, 2] of a (4, 8, 2) input summed all 64 elements, axis 1 included."""
    with pytest.raises(ValueError, match=r"trailing block.*\[2\], \[1, 2\], \[0, 1, 2\].*"
                                         r"got axes \[0, 2\]"):
        reduction_geometry((4, 8, 2), [0, 2])


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


def _loop_iterations(elements: int) -> int:
    """Iterations of a stage invocation's two loops over ``elements``: the unrolled one, then
    the tail, each also evaluating its condition once more to leave."""
    return elements // UNROLL + 1 + elements % UNROLL + 1


def _sizes(rng) -> list[int]:
    edges = [1, 2, 3, UNROLL, 1023, 2**16, 2**20, 2**24, 2**24 + 1, MAX_BUFFER_ELEMENTS]
    return edges + [int(n) for n in rng.integers(1, MAX_BUFFER_ELEMENTS, 200)]


@pytest.mark.parametrize("group", GROUP_SIZES)
def test_no_stage_loops_past_the_bound_for_any_buffer_size(group):
    """Both stages of every size up to MAX_BUFFER_ELEMENTS stay within MAX_LOOP_ITERATIONS
    (a quarter of lavapipe's cap): a 2^24 sum with group_size=8 lost 192 elements there."""
    assert MAX_LOOP_ITERATIONS * 4 <= LAVAPIPE_LOOP_LIMIT
    for size in _sizes(np.random.default_rng(group)):
        groups = first_stage_groups(size, group)
        first_stage = -(-size // (groups * group))  # elements per invocation
        second_stage = -(-groups // group)  # partials per invocation of the one fold group
        for elements in (first_stage, second_stage):
            assert elements <= MAX_INVOCATION_ELEMENTS, (size, groups)
            assert _loop_iterations(elements) <= MAX_LOOP_ITERATIONS, (size, groups)
        assert groups <= 65535  # Vulkan's least maxComputeWorkGroupCount[0]
        assert partial_slots(size, group) >= groups


@pytest.mark.parametrize("group", GROUP_SIZES)
def test_groups_and_slots_stay_those_of_0_1_0_where_the_loops_are_short(group):
    for size in _sizes(np.random.default_rng(group)):
        if size <= group * group * MAX_INVOCATION_ELEMENTS:
            assert first_stage_groups(size, group) == min(-(-size // (group * UNROLL)), group)
            assert partial_slots(size, group) == min(-(-size // group), group)


def test_sixteen_million_elements_in_groups_of_8_run_more_than_8_groups():
    groups = first_stage_groups(2**24, 8)
    assert groups > 8 and partial_slots(2**24, 8) == groups


@pytest.mark.parametrize("batches,rows,layers", [
    (1, 65535, 65535), (65535, 65535, 65535), (65536, 65535, 65535), (2 * 65535 + 3, 65535, 9),
    (1000, 7, 5), (36, 7, 5), (35, 7, 5), (7, 7, 1), (8, 7, 1), (2**30, 65535, 65535)])
def test_batch_blocks_cover_every_batch_once_within_the_limits(batches, rows, layers):
    blocks = batch_blocks(batches, rows, layers)
    assert all(0 < r <= rows and 0 < z <= layers for _, r, z in blocks)
    assert [first for first, _, _ in blocks] == \
        list(itertools.accumulate((r * z for _, r, z in blocks[:-1]), initial=0))
    assert sum(r * z for _, r, z in blocks) == batches
    if batches <= rows:
        assert blocks == [(0, batches, 1)]
    if rows * layers >= batches:
        assert len(blocks) <= 2
