"""vd.reduce against numpy on random data: every predefined ReduceOp over float32, int32,
uint32 (float64 where the device has it), custom ``@vd.reduce.reduce`` combines with and
without a mapping function, many sizes (1 .. 10^7), vector and complex element types, mapped
reductions (sum of squares, dot product, packed argmax), batched reductions over trailing axes,
``out=`` reuse and its errors, use inside a CommandGraph, source inspection and group sizes.
Tests taking ``passes`` run twice: partials of several groups folded by the last group in the
same dispatch (the single pass) and by a second dispatch.

Float sums are compared with a float64 numpy sum; the bound follows float error growth: each
invocation adds its grid-strided elements in sequence (``k = ceil(n / threads)`` of them), then
a balanced tree combines ``log2(threads)`` levels, so ``|error| <= eps * C * (k + log2(n)) *
sum(|x|)``. Integer sums and products wrap modulo 2^32, so they are exact and order-free.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.reduce import geometry, reduce_function
from vkdispatch.reduce.reduce_function import _default_group_size
from vkdispatch.codegen.abbreviations import Buff, c64, f16, f32, f64, i32, i64, u32, v2

EPS32, EPS64 = 2.0**-24, 2.0**-53


@pytest.fixture(params=["one dispatch", "two dispatches"])
def passes(request, monkeypatch):
    """Partials of several groups per batch folded in the same dispatch by the last group to
    finish (the single pass, the default up to SINGLE_PASS_GROUPS groups), or by a second
    dispatch (forced by lowering that limit to 0)."""
    if request.param == "two dispatches":
        monkeypatch.setattr(reduce_function, "SINGLE_PASS_GROUPS", 0)
    return request.param


C = 4


def default_group() -> int:
    """The group size reductions use by default on this device (what the bounds assume)."""
    return _default_group_size(vd.get_context())


def subgroup_size() -> int:
    """The device's subgroup size, of which group sizes must be a multiple (1 without
    subgroups)."""
    context = vd.get_context()
    return context.subgroup_size if context.subgroup_enabled else 1


def group_size_of(spec) -> int:
    """A group size valid on every device: "subgroup" and "2 subgroups" follow the device."""
    return {"subgroup": subgroup_size(), "2 subgroups": 2 * subgroup_size()}.get(spec, spec)


SIZES = [1, 2, 3, 31, 32, 33, 97, 1000, 1023, 1024, 1025, 4096, 65521, 2**17, 1_048_573]

OPS = {
    "add": (vd.reduce.SubgroupAdd, np.add),
    "mul": (vd.reduce.SubgroupMul, np.multiply),
    "min": (vd.reduce.SubgroupMin, np.minimum),
    "max": (vd.reduce.SubgroupMax, np.maximum),
    "and": (vd.reduce.SubgroupAnd, np.bitwise_and),
    "or": (vd.reduce.SubgroupOr, np.bitwise_or),
    "xor": (vd.reduce.SubgroupXor, np.bitwise_xor),
}
NP = {f32: np.float32, f64: np.float64, i32: np.int32, u32: np.uint32}


# -- helpers ----------------------------------------------------------------------------------

def loader(op, var_type):
    """``@map_reduce(op)`` over one buffer of ``var_type`` with the element loader map."""
    def load(x: Buff[var_type]) -> var_type:
        return x[vd.reduce.mapped_io_index()]

    load.__annotations__ = {"x": Buff[var_type], "return": var_type}
    return vd.reduce.map_reduce(op)(load)


def result(out, batches: int = 1):
    """The reduction results: flat positions ``[0, batches)`` of the output."""
    data = out.read(0)
    if batches == 1:
        return data[0]
    return data.reshape(-1)[:batches]


def float_bound(x: np.ndarray, eps: float, group: int | None = None) -> float:
    group = group or default_group()
    n = x.size
    per_thread = -(-n // (min(-(-n // group), group) * group))
    total = float(np.sum(np.abs(x, dtype=np.float64)))
    return eps * C * (per_thread + math.log2(max(n, 2))) * total


def assert_sum_close(actual, x: np.ndarray, eps: float = EPS32, axis=None,
                     group: int | None = None) -> None:
    expected = np.sum(x.astype(np.float64), axis=axis)
    assert np.all(np.isfinite(actual))
    if axis is None:
        limit = float_bound(x, eps, group)
    else:
        limit = max(float_bound(row, eps, group) for row in x.reshape(-1, x.shape[-1]))
    err = np.max(np.abs(np.asarray(actual, dtype=np.float64) - expected))
    assert err <= limit, f"|error| {err:.3g} exceeds {limit:.3g}"


def int_data(rng, n, np_dtype):
    info = np.iinfo(np_dtype)
    return rng.integers(info.min, info.max, size=n, dtype=np_dtype, endpoint=True)


def op_data(rng, name: str, n: int, np_dtype) -> np.ndarray:
    """Random non-zero data fit for ``name``: products near 1 (floats) so they stay finite."""
    if np.dtype(np_dtype).kind == "f":
        if name == "mul":
            return (1 + rng.uniform(-1, 1, n) / max(n, 1) ** 0.5).astype(np_dtype)
        return (rng.standard_normal(n) * 100).astype(np_dtype)
    data = int_data(rng, n, np_dtype)
    if name == "and":  # keep most bits set so the AND is not trivially 0
        data |= np_dtype(~np.array(1 << 7 | 1 << 20, dtype=np_dtype))
    if name == "mul":
        data |= np_dtype(1)  # odd factors: the wrapped product is not 0
    return data


def check_op(name, var_type, x, actual):
    np_dtype = NP[var_type]
    ufunc = OPS[name][1]
    if name == "add" and np.dtype(np_dtype).kind == "f":
        assert_sum_close(actual, x, EPS32 if var_type is f32 else EPS64)
    elif name == "mul" and np.dtype(np_dtype).kind == "f":
        expected = np.prod(x.astype(np.longdouble))
        eps = EPS32 if var_type is f32 else EPS64
        assert abs(float(actual) - float(expected)) <= eps * C * x.size * abs(float(expected))
    else:
        expected = ufunc.reduce(x, dtype=np_dtype)
        assert actual == expected and actual.dtype == np_dtype


# -- predefined ops ---------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 33, 1025, 100_003])
@pytest.mark.parametrize("var_type,name", [
    (f32, "add"), (f32, "mul"), (f32, "min"), (f32, "max"),
    (i32, "add"), (i32, "mul"), (i32, "min"), (i32, "max"),
    (i32, "and"), (i32, "or"), (i32, "xor"),
    (u32, "add"), (u32, "mul"), (u32, "min"), (u32, "max"),
    (u32, "and"), (u32, "or"), (u32, "xor"),
], ids=lambda p: getattr(p, "name", p))
def test_predefined_op_matches_numpy(context, rng, var_type, name, n, passes):
    x = op_data(rng, name, n, NP[var_type])
    actual = result(loader(OPS[name][0], var_type)(vd.asbuffer(x)))
    check_op(name, var_type, x, actual)


@pytest.mark.parametrize("name", ["add", "mul", "min", "max"])
def test_predefined_op_float64(context, rng, name):
    if not vd.get_context().device_infos[0].float_64_support:
        pytest.skip("no float64 on this device")
    x = op_data(rng, name, 5003, np.float64)
    actual = result(loader(OPS[name][0], f64)(vd.asbuffer(x)))
    check_op(name, f64, x, actual)


@pytest.mark.parametrize("var_type", [i32, u32])
def test_min_max_identities_use_the_type_extremes(context, var_type):
    """``inf`` identities become the integer type's extremes: a buffer holding only the
    extreme values reduces to them (a 32-bit float infinity would not round-trip)."""
    info = np.iinfo(NP[var_type])
    for values in ([info.max, info.max], [info.min, info.min, info.min]):
        x = np.array(values, dtype=NP[var_type])
        assert result(loader(vd.reduce.SubgroupMin, var_type)(vd.asbuffer(x))) == values[0]
        assert result(loader(vd.reduce.SubgroupMax, var_type)(vd.asbuffer(x))) == values[0]


def test_float_min_max_of_all_negative_and_all_positive(context, rng):
    neg = -rng.uniform(1e30, 3e38, 3000).astype(np.float32)
    pos = rng.uniform(1e30, 3e38, 3000).astype(np.float32)
    assert result(loader(vd.reduce.SubgroupMax, f32)(vd.asbuffer(neg))) == neg.max()
    assert result(loader(vd.reduce.SubgroupMin, f32)(vd.asbuffer(pos))) == pos.min()


# -- sizes ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fsum(context):
    return loader(vd.reduce.SubgroupAdd, f32)


@pytest.fixture(scope="module")
def isum(context):
    return loader(vd.reduce.SubgroupAdd, i32)


@pytest.mark.parametrize("n", SIZES)
def test_sum_sizes(fsum, isum, rng, n, passes):
    x = (rng.standard_normal(n) * 100).astype(np.float32)
    assert_sum_close(result(fsum(vd.asbuffer(x))), x)
    xi = int_data(rng, n, np.int32)
    assert result(isum(vd.asbuffer(xi))) == np.sum(xi, dtype=np.int32)


def test_sum_ten_million_float32(fsum, rng):
    n = 10_000_019
    x = rng.uniform(0.5, 1.5, n).astype(np.float32)
    actual = float(result(fsum(vd.asbuffer(x))))
    expected = float(np.sum(x, dtype=np.float64))
    assert abs(actual - expected) / expected < 2e-6


def test_sum_million_float32_relative_error(fsum, rng):
    x = rng.uniform(0.5, 1.5, 1_000_003).astype(np.float32)
    expected = float(np.sum(x, dtype=np.float64))
    assert abs(float(result(fsum(vd.asbuffer(x)))) - expected) / expected < 1e-6


# -- custom combines --------------------------------------------------------------------------

def test_custom_reduce_sum_and_max(context, rng):
    @vd.reduce.reduce(0)
    def total(a: f32, b: f32) -> f32:
        return a + b

    @vd.reduce.reduce(-3.0e38)
    def largest(a: f32, b: f32) -> f32:
        return vc.max(a, b)

    for n in (1, 2, 31, 1025, 70_001):
        x = (rng.standard_normal(n) * 100).astype(np.float32)
        buf = vd.asbuffer(x)
        assert_sum_close(result(total(buf)), x)
        assert result(largest(buf)) == x.max()


def test_custom_reduce_int_with_mapping_function(context, rng):
    @vd.map
    def doubled(x: Buff[i32]) -> i32:
        return x[vd.reduce.mapped_io_index()] * 2

    @vd.reduce.reduce(0, mapping_function=doubled)
    def total(a: i32, b: i32) -> i32:
        return a + b

    x = rng.integers(-1000, 1000, 5000, dtype=np.int32) | 1
    assert result(total(vd.asbuffer(x))) == 2 * x.sum()


def test_custom_reduce_mapping_of_two_buffers(context, rng):
    @vd.map
    def diff_sq(a: Buff[f32], b: Buff[f32]) -> f32:
        i = vd.reduce.mapped_io_index()
        d = a[i] - b[i]
        return d * d

    @vd.reduce.reduce(0, mapping_function=diff_sq)
    def total(a: f32, b: f32) -> f32:
        return a + b

    a, b = rng.standard_normal((2, 40_000)).astype(np.float32)
    assert_sum_close(result(total(vd.asbuffer(a), vd.asbuffer(b))), (a - b) ** 2)


def test_custom_reduce_requires_return_annotation(context):
    with pytest.raises(ValueError, match="annotated"):
        @vd.reduce.reduce(0)
        def total(a: f32, b: f32):
            return a + b


def test_custom_reduce_mapping_return_type_mismatch(context):
    @vd.map
    def as_int(x: Buff[i32]) -> i32:
        return x[vd.reduce.mapped_io_index()]

    with pytest.raises(ValueError):
        @vd.reduce.reduce(0, mapping_function=as_int)
        def total(a: f32, b: f32) -> f32:
            return a + b


@pytest.mark.parametrize("var_type,np_dtype", [(i64, np.int64), (f16, np.float16)],
                         ids=["int64", "float16"])
def test_predefined_add_on_extended_types(context, var_type, np_dtype):
    """16- and 64-bit element types finish without a subgroup collective (those need the
    extended-types extensions), and still reduce correctly."""
    x = np.arange(1, 101).astype(np_dtype)
    assert result(loader(vd.reduce.SubgroupAdd, var_type)(vd.asbuffer(x))) == x.sum()


def test_custom_reduce_float16_sum(context, rng):
    """Without a collective (pure ``@reduce``) float16 reductions build and run."""
    @vd.reduce.reduce(0)
    def total(a: f16, b: f16) -> f16:
        return a + b

    x = rng.integers(-4, 5, 3000).astype(np.float16)
    assert result(total(vd.asbuffer(x))) == x.astype(np.float64).sum()


# -- vector and complex types -----------------------------------------------------------------

def test_vec2_sum(context, rng):
    x = (rng.standard_normal((33_333, 2)) * 10).astype(np.float32)
    actual = result(loader(vd.reduce.SubgroupAdd, v2)(vd.asbuffer(x)))
    assert actual.shape == (2,)
    for k in range(2):
        assert_sum_close(actual[k], x[:, k])


def test_complex64_sum(context, rng):
    n = 20_011
    x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    actual = result(loader(vd.reduce.SubgroupAdd, c64)(vd.asbuffer(x)))
    assert actual.dtype == np.complex64
    assert_sum_close(actual.real, x.real)
    assert_sum_close(actual.imag, x.imag)


def test_custom_reduce_vec2_componentwise_max(context, rng):
    @vd.reduce.reduce(-3.0e38)
    def vmax(a: v2, b: v2) -> v2:
        return vc.max(a, b)

    x = (rng.standard_normal((5000, 2)) * 100).astype(np.float32)
    np.testing.assert_array_equal(result(vmax(vd.asbuffer(x))), x.max(axis=0))


def test_custom_reduce_complex_product(context, rng):
    @vd.reduce.reduce(1)
    def product(a: c64, b: c64) -> c64:
        return vc.mult_complex(a, b)

    x = np.exp(1j * rng.uniform(-0.01, 0.01, 3001)).astype(np.complex64)
    expected = np.prod(x.astype(np.complex128))
    actual = result(product(vd.asbuffer(x)))
    assert abs(actual - expected) <= EPS32 * C * x.size * abs(expected)


def test_complex_sum_batched(context, rng, passes):
    @vd.reduce.map_reduce(vd.reduce.SubgroupAdd, axes=[-1])
    def s(x: Buff[c64]) -> c64:
        return x[vd.reduce.mapped_io_index()]

    x = (rng.standard_normal((6, 2049)) + 1j * rng.standard_normal((6, 2049))).astype(np.complex64)
    actual = result(s(vd.asbuffer(x)), 6)
    assert_sum_close(actual.real, x.real, axis=1)
    assert_sum_close(actual.imag, x.imag, axis=1)


@pytest.mark.parametrize("extra_rows", [2, "a second layer and 3"])
@pytest.mark.parametrize("size", ["one group", "two groups"])
def test_more_batches_than_workgroup_rows_match_numpy(context, rng, extra_rows, size):
    """Batches beyond max_workgroup_count[1] failed with an error about exec_size, which the
    user never gave; they spread over workgroup z and a second dispatch (one group per batch,
    or partials folded by a second stage)."""
    limit = context.max_workgroup_count[1]
    batches = limit + 2 if extra_rows == 2 else 2 * limit + 3
    group = subgroup_size()
    length = 3 if size == "one group" else 4 * group + 5

    @vd.reduce.map_reduce(vd.reduce.SubgroupAdd, axes=[1], group_size=group)
    def s(x: Buff[i32]) -> i32:
        return x[vd.reduce.mapped_io_index()]

    x = rng.integers(-1000, 1000, (batches, length), dtype=np.int32)
    np.testing.assert_array_equal(result(s(vd.asbuffer(x)), batches), x.sum(axis=1))


# -- mapped reductions ------------------------------------------------------------------------

def test_sum_of_squares(context, rng):
    @vd.reduce.map_reduce(vd.reduce.SubgroupAdd)
    def energy(x: Buff[f32]) -> f32:
        i = vd.reduce.mapped_io_index()
        return x[i] * x[i]

    x = (rng.standard_normal(123_457) * 10).astype(np.float32)
    assert_sum_close(result(energy(vd.asbuffer(x))), x.astype(np.float64) ** 2)


def test_dot_product(context, rng):
    @vd.reduce.map_reduce(vd.reduce.SubgroupAdd)
    def dot(a: Buff[f32], b: Buff[f32]) -> f32:
        i = vd.reduce.mapped_io_index()
        return a[i] * b[i]

    a, b = rng.standard_normal((2, 77_777)).astype(np.float32)
    assert_sum_close(result(dot(vd.asbuffer(a), vd.asbuffer(b))),
                     a.astype(np.float64) * b.astype(np.float64))


def test_argmax_by_packing(context, rng):
    @vd.reduce.map_reduce(vd.reduce.SubgroupMax)
    def packed(x: Buff[i32]) -> i32:
        i = vd.reduce.mapped_io_index()
        return x[i] * 65536 + vc.to_dtype(i32, i)

    n = 60_000
    x = rng.integers(0, 1000, n, dtype=np.int32)
    value = int(result(packed(vd.asbuffer(x))))
    top = x.max()
    assert value >> 16 == top
    assert value & 0xFFFF == np.flatnonzero(x == top).max()


# -- axes -------------------------------------------------------------------------------------

def batched_sum(axes, group_size=None):
    @vd.reduce.map_reduce(vd.reduce.SubgroupAdd, axes=axes, group_size=group_size)
    def s(x: Buff[f32]) -> f32:
        return x[vd.reduce.mapped_io_index()]

    return s


def test_axes_last_of_2d(context, rng):
    x = (rng.standard_normal((10, 3000)) * 100).astype(np.float32)
    reduction = batched_sum([1])
    out = reduction(vd.asbuffer(x))
    group = reduction.group_size
    groups = min(-(-3000 // group), group)
    assert out.read(0).shape == (groups + 1, 10)
    assert_sum_close(result(out, 10), x, axis=1)


@pytest.mark.parametrize("shape,axes,batches", [
    ((4, 5, 600), [1, 2], 4),
    ((4, 5, 600), [2], 20),
    ((4, 5, 600), [-1], 20),
    ((4, 5, 600), [-2, -1], 4),
    ((4, 5, 600), [0, 1, 2], 1),
    ((3, 7, 11), [1, 2], 3),
])
def test_axes_3d(context, rng, shape, axes, batches, passes):
    x = (rng.standard_normal(shape) * 100).astype(np.float32)
    out = batched_sum(axes)(vd.asbuffer(x))
    rows = x.reshape(batches, -1)
    assert_sum_close(result(out, batches), rows, axis=1)


@pytest.mark.parametrize("batches", [1, 2, 7, 64, 333, 1000])
def test_batch_counts(context, rng, batches, passes):
    x = (rng.standard_normal((batches, 257)) * 100).astype(np.float32)
    assert_sum_close(result(batched_sum([1])(vd.asbuffer(x)), batches), x, axis=1)


def test_batched_int_max(context, rng):
    @vd.reduce.map_reduce(vd.reduce.SubgroupMax, axes=[1])
    def m(x: Buff[i32]) -> i32:
        return x[vd.reduce.mapped_io_index()]

    x = int_data(rng, (50, 1999), np.int32)
    np.testing.assert_array_equal(result(m(vd.asbuffer(x)), 50), x.max(axis=1))


@pytest.mark.parametrize("shape,axes", [((10, 3000), [0]), ((4, 5, 6), [0, 1]),
                                        ((4, 5, 6), [1]), ((4, 5, 6), [-2]),
                                        ((4, 8, 2), [0, 2]), ((4, 5, 6), [-3, -1])])
def test_non_trailing_axes_rejected(context, shape, axes):
    x = vd.Buffer(shape, f32)
    with pytest.raises(ValueError, match="contiguous"):
        batched_sum(axes)(x)


def test_axes_with_a_gap_rejected_and_the_context_stays_usable(context, rng):
    """axes=[0, 2] of a (4, 8, 2) buffer summed all 64 elements, axis 1 included."""
    x = (rng.standard_normal((4, 8, 2)) * 100).astype(np.float32)
    with pytest.raises(ValueError, match=r"axes.*\[1, 2\].*got axes \[0, 2\]"):
        batched_sum([0, 2])(vd.asbuffer(x))
    assert_sum_close(result(batched_sum([1, 2])(vd.asbuffer(x)), 4), x.reshape(4, -1), axis=1)


@pytest.mark.parametrize("axes", [[2], [-3], [5]])
def test_out_of_range_axes_rejected(context, axes):
    with pytest.raises(ValueError):
        batched_sum(axes)(vd.Buffer((10, 30), f32))


# -- out= and keywords ------------------------------------------------------------------------

def test_out_buffer_reuse(context, rng, passes):
    s = batched_sum([1])
    x = (rng.standard_normal((8, 5000)) * 100).astype(np.float32)
    buf = vd.asbuffer(x)
    first = s(buf)
    expected = result(first, 8)
    again = s(buf, out=first)
    assert again is first
    np.testing.assert_array_equal(result(again, 8), expected)
    y = (rng.standard_normal((8, 5000)) * 100).astype(np.float32)
    buf.write(y)
    assert s(buf, out=first) is first
    assert_sum_close(result(first, 8), y, axis=1)
    bigger = vd.Buffer((100, 100), f32)
    assert s(buf, out=bigger) is bigger
    assert_sum_close(bigger.read(0).reshape(-1)[:8], y, axis=1)


def test_out_wrong_dtype(context):
    s = batched_sum(None)
    with pytest.raises(TypeError):
        s(vd.Buffer((100,), f32), out=vd.Buffer((10,), i32))


def test_out_too_small(context):
    s = batched_sum([1])
    with pytest.raises(ValueError):  # needs (1 + 1) * 8 elements
        s(vd.Buffer((8, 100), f32), out=vd.Buffer((15,), f32))


def test_input_of_another_dtype_names_the_input_and_both_dtypes(context, rng):
    """The error named an internal 'param1' and a shader name full of module paths."""
    s = batched_sum(None)
    with pytest.raises(TypeError, match=r"argument 'x' of shader 'reduction_stage_\w+_"
                                        r"float32_\[Buffer\[float32\]\]_\d+' is declared "
                                        r"Buff\[float32\] but got a buffer of int32"):
        s(vd.asbuffer(rng.integers(-9, 9, 100, dtype=np.int32)))
    y = rng.standard_normal(100).astype(np.float32)
    assert_sum_close(s(vd.asbuffer(y)).read(0)[0], y)


def test_unknown_keyword_rejected(context):
    s = batched_sum(None)
    with pytest.raises(TypeError, match="outt"):
        s(vd.Buffer((100,), f32), outt=None)


# -- command graphs ---------------------------------------------------------------------------

def test_inside_command_graph_submitted_twice(context, rng, passes):
    @vd.shader("x.size")
    def scale(x: Buff[f32]):
        i = vc.global_invocation_id().x
        x[i] = x[i] * 2.0

    @vd.shader(1)
    def consume(dst: Buff[f32], src: Buff[f32]):
        dst[0] = src[0] + 1.0

    s = batched_sum(None)
    x = rng.uniform(0.5, 1.5, 10_000).astype(np.float32)
    buf = vd.asbuffer(x)
    dst = vd.Buffer((1,), f32)
    graph = vd.CommandGraph()
    try:
        scale(buf, graph=graph)
        out = s(buf, graph=graph)
        consume(dst, out, graph=graph)
        for k in (1, 2):
            graph.submit()
            expected = float(np.sum(x.astype(np.float64))) * 2**k
            got = float(dst.read(0)[0]) - 1.0
            assert abs(got - expected) <= 1e-5 * expected
            assert abs(float(result(out)) - expected) <= 1e-5 * expected
    finally:
        graph.destroy()


# -- sources and group sizes ------------------------------------------------------------------

def test_get_src_and_print_src(context, capsys):
    s = batched_sum(None, group_size=64)
    sources = s.get_src()
    assert isinstance(sources, list) and len(sources) == 2
    assert all(str(src) for src in sources)
    s.print_src()
    printed = capsys.readouterr().out
    assert "stage 1" in printed and "stage 2" in printed
    assert str(sources[0]) in printed and str(sources[1]) in printed


@pytest.mark.parametrize("group_size", ["subgroup", "2 subgroups", 64, 256, 1024])
@pytest.mark.parametrize("name", ["add", "max"])
def test_group_sizes_agree(context, rng, group_size, name, passes):
    op = OPS[name][0]
    group_size = group_size_of(group_size)

    @vd.reduce.map_reduce(op, axes=[1], group_size=group_size)
    def f(x: Buff[f32]) -> f32:
        return x[vd.reduce.mapped_io_index()]

    x = (rng.standard_normal((3, 70_001)) * 100).astype(np.float32)
    actual = result(f(vd.asbuffer(x)), 3)
    if name == "add":
        assert_sum_close(actual, x, axis=1, group=group_size)
    else:
        np.testing.assert_array_equal(actual, x.max(axis=1))


@pytest.mark.parametrize("group_size", ["subgroup", 64, 256])
def test_group_sizes_custom_combine(context, rng, group_size):
    @vd.reduce.reduce(0, group_size=group_size_of(group_size))
    def total(a: i32, b: i32) -> i32:
        return a + b

    x = int_data(rng, 12_345, np.int32)
    assert result(total(vd.asbuffer(x))) == np.sum(x, dtype=np.int32)


@pytest.mark.parametrize("group_size", [48, 100, 3, 0])
def test_non_power_of_two_group_size_rejected(context, group_size):
    s = batched_sum(None, group_size=group_size)
    with pytest.raises(ValueError):
        s(vd.Buffer((100,), f32))


def test_group_size_below_the_subgroup_size_rejected_naming_both(context, rng):
    """group_size=4 ran on lavapipe, whose subgroups have 8 invocations: the docs (and
    0.1.0) require a multiple of the subgroup size."""
    subgroup = subgroup_size()
    if subgroup == 1:
        pytest.skip("the device has no subgroups: every power of two is a multiple")
    s = batched_sum(None, group_size=subgroup // 2)
    with pytest.raises(ValueError, match=rf"group_size.*subgroup size, {subgroup}; got "
                                         rf"group_size={subgroup // 2}"):
        s(vd.Buffer((100,), f32))
    x = (rng.standard_normal(1000) * 100).astype(np.float32)
    assert_sum_close(result(batched_sum(None, group_size=subgroup)(vd.asbuffer(x))), x,
                     group=subgroup)


def test_sum_of_2_24_elements_in_groups_of_one_subgroup_is_exact(context, rng):
    """lavapipe leaves a shader's loops after 65535 iterations: with group_size=8 each
    invocation looped 65536 times over 2^24 elements and the sum of ones came out 16777024.
    Integers wrap modulo 2^32, so the sum is exact whatever the order."""
    @vd.reduce.map_reduce(vd.reduce.SubgroupAdd, group_size=subgroup_size())
    def total(x: Buff[i32]) -> i32:
        return x[vd.reduce.mapped_io_index()]

    x = int_data(rng, 2**24, np.int32)
    assert result(total(vd.asbuffer(x))) == np.sum(x, dtype=np.int32)


@pytest.mark.parametrize("batches", [1, 3])
def test_more_groups_than_the_group_size_match_numpy(context, rng, monkeypatch, batches):
    """Where the loop bound needs more first-stage groups than the group size (2^24
    elements in groups of 8), the output grows to hold their partials and the second stage
    folds several per invocation; shown here on few elements with a lowered bound."""
    monkeypatch.setattr(geometry, "MAX_INVOCATION_ELEMENTS", 5)
    group = subgroup_size()
    x = (rng.standard_normal((batches, 10_007)) * 100).astype(np.float32)
    groups = geometry.first_stage_groups(x.shape[1], group)
    assert groups > group
    out = batched_sum([1], group_size=group)(vd.asbuffer(x))
    assert out.size == (groups + 1) * batches
    assert_sum_close(result(out, batches), x, axis=1, group=group)


@pytest.mark.parametrize("identity", [1.5, "zero", None], ids=str)
def test_identity_that_is_no_value_of_the_type_raises_naming_it(context, rng, identity):
    @vd.reduce.reduce(identity)
    def total(a: i32, b: i32) -> i32:
        return a + b

    with pytest.raises(ValueError, match="identity"):
        total(vd.asbuffer(rng.integers(1, 100, 64).astype(np.int32)))


@pytest.mark.slow
def test_float32_sum_of_1e8_positive_values_within_1e5_of_float64(context, rng):
    """A float32 sum of 10^8 values (400 MB) within 1e-5 of float64: no long serial sums."""
    limit = min(info.max_storage_buffer_range for info in context.device_infos)
    if limit < 4 * 10**8:
        pytest.skip(f"the device binds at most {limit} bytes per storage buffer")
    x = rng.random(10**8, dtype=np.float32)
    got = result(loader(vd.reduce.SubgroupAdd, f32)(vd.asbuffer(x)))
    expected = x.sum(dtype=np.float64)
    assert abs(got - expected) / expected < 1e-5


def test_reduction_into_a_graph_of_another_context(context, fsum, rng):
    """The output is made in the input's context (the graph's), not in the current one."""
    other = vd.create_context(device_ids=[context.device_ids[0]], queue_counts=2)
    try:
        x = rng.random(5000).astype(np.float32)
        with other:
            buffer = vd.Buffer((5000,), vd.float32)
            graph = vd.CommandGraph()
        buffer.write(x)
        out = fsum(buffer, graph=graph)
        assert out.context is other
        graph.submit()
        for q in range(2):
            assert_sum_close(out.read(q)[0], x)
        graph.destroy()
    finally:
        other.close()
