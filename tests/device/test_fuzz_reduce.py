"""Fuzz test of ``vd.reduce``: reductions made by ``@vd.reduce.map_reduce(op)`` (the element
loader, and a two-buffer dot product) and by ``@vd.reduce.reduce(identity)`` (a combine
function), with every predefined op (``SubgroupAdd``/``Mul``/``Min``/``Max``/``And``/``Or``/
``Xor``) over float32, int32 and uint32 buffers of 1-3 dimensions, called with random
arguments, most of them wrong: inputs that are not buffers (numpy arrays, lists, None, strings),
of another dtype, destroyed, missing or extra; ``axes`` that are not a trailing block, out of
range, repeated or not ints; a ``group_size`` of 0, negative, not a power of two, below the
subgroup or beyond the workgroup size, or not an int; ``out=`` buffers too small, of another
dtype, destroyed, or the input itself; graphs that are not graphs; unknown keywords; and
decorators given what is not a ReduceOp, an identity that is no value of the type or a mapping
of another type. The data are random and never zero: the full range of the integer types and
their extremes, floats normal, tiny (1e-20), huge (1e30), of eight decades side by side, all
negative, or with NaN and infinities of either sign. Each draw runs in one dispatch (the last
group folds the partials) or, forced, two.

Each draw either passes, and then every batch's result equals numpy's (``np.sum``, ``np.prod``,
``np.min``, ``np.max``, ``np.bitwise_and/or/xor.reduce``): integers exactly, wrapping modulo
2^32 as the GPU does; float sums within the error bound of test_reduce.py (``eps * C * (k +
log2 n) * sum|x|``), products within ``eps * C * n`` relative, extrema exactly; non-finite
results where numpy's float64 result is non-finite (the same NaN or signed infinity; a min/max
over NaN may also skip the NaN, as GLSL's min/max leave it undefined); or it raises a vkdispatch
error that is also a ``TypeError``/``ValueError``/``IndexError`` whose message names the
argument at fault (see fuzzing.py). Either way the input is left as it was, a refused call
leaves its ``out=`` buffer unchanged (also after the graph it was given is submitted), a result
kept from the previous call of the same reduction is never overwritten, and afterwards a small
known sum still matches numpy.

Reductions compile their stages on first use (tens of ms on lavapipe), so they come from a pool
keyed by op, type, axes and group size. Each test is parametrized over what is wrong, so that
every kind of fault is drawn in every run; the ``slow`` variant draws any two faults together,
many more times.

The defects this fuzzing found are fixed; regression tests at the end pin each. The strategies
still leave their inputs out where a comment says "left out while pinned": the tests at the
end cover them.
"""
from __future__ import annotations

import contextlib
import math
from typing import NamedTuple

import numpy as np
import pytest
from fuzzing import (BASE, LONG, Arg, Expect, Make, attempt, bad, choose, lenient, ok,
                     outcome, refused_naming)
from hypothesis import event, given, settings
from hypothesis import strategies as st

import vkdispatch as vd
from vkdispatch import errors
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, f32, i32, u32
from vkdispatch.reduce import reduce_function

C = 4  # as test_reduce.py
EPS32 = 2.0**-24
TYPES = {"float32": (f32, np.float32), "int32": (i32, np.int32), "uint32": (u32, np.uint32)}
OPS = {"add": (vd.reduce.SubgroupAdd, np.add, lambda a, b: a + b, 0),
       "mul": (vd.reduce.SubgroupMul, np.multiply, lambda a, b: a * b, 1),
       "min": (vd.reduce.SubgroupMin, np.minimum, lambda a, b: vc.min(a, b), "inf"),
       "max": (vd.reduce.SubgroupMax, np.maximum, lambda a, b: vc.max(a, b), "-inf"),
       "and": (vd.reduce.SubgroupAnd, np.bitwise_and, lambda a, b: a & b, -1),
       "or": (vd.reduce.SubgroupOr, np.bitwise_or, lambda a, b: a | b, 0),
       "xor": (vd.reduce.SubgroupXor, np.bitwise_xor, lambda a, b: a ^ b, 0)}
FLOAT_OPS = ("add", "mul", "min", "max")
SHAPES = ((1,), (7,), (300,), (5000,), (4, 257), (2, 1, 9), (3, 5, 70), (6, 33))
FLOAT_DATA = ("normal", "tiny", "huge", "mixed", "negative", "nan", "inf", "infs")
INT_DATA = ("normal", "extremes", "small", "negative")
STYLES = ("map_reduce", "reduce", "dot")


# -- what a drawn argument is ---------------------------------------------------------------------

def made(arg: Arg) -> str | None:
    return arg.passed.what if isinstance(arg.passed, Make) else None


def axes_args(shape: tuple, full: bool):
    """``axes`` for an input of ``shape``; meaning: the first reduced axis (the axes before it
    are batches)."""
    ndim = len(shape)
    valid = [ok(None, 0)]
    for first in range(ndim):
        block = list(range(first, ndim))
        valid += [ok(block, first), ok([a - ndim for a in reversed(block)], first),
                  ok(tuple(block), first), ok(range(first, ndim), first)]
    valid += [ok(ndim - 1, ndim - 1), ok(-1, ndim - 1)]
    lenient_ = [lenient({ndim - 1}, ndim - 1, "axes"),
                lenient((np.int64(ndim - 1),), ndim - 1, "axes"),
                lenient(np.array([ndim - 1]), ndim - 1, "axes")]
    # Left out while pinned (see the end): a numpy integer or a float, not in a sequence.
    refused = [bad(v, "axes") for v in
               ([ndim], [-ndim - 1], ndim, 2**70, [ndim - 1, -1], ["1"], "1", [1.0], True,
                [True], [], (), [None], [[ndim - 1]])]
    if ndim >= 2:  # not a trailing block
        refused += [bad([0], "axes"), bad([ndim - 2], "axes")]
    if ndim == 3:
        refused.append(bad([0, 2], "axes"))
    return choose(full, valid, lenient_, refused)


def group_size_args(full: bool):
    """Labels resolved for the device (``resolve_group_size``)."""
    valid = [ok(None), ok("subgroup"), ok(64), ok(256), ok("largest")]
    refused = [bad(v, "group_size") for v in
               (0, -8, "half subgroup", 48, 96, "twice the largest", 2**20, 2**70, 8.0, "8",
                True, [64], 64.0)]
    return choose(full, valid, [lenient(np.int64(64), 64, "group_size")], refused)


def resolve_group_size(value):
    context = vd.get_context()
    subgroup = context.subgroup_size if context.subgroup_enabled else 1
    largest = 1 << (min(context.max_workgroup_invocations, 1024).bit_length() - 1)
    special = {"subgroup": max(subgroup, 1), "half subgroup": subgroup // 2 or -1,
               "largest": largest, "twice the largest": 2 * context.max_workgroup_invocations}
    return special.get(value, value) if isinstance(value, str) else value


def input_args(full: bool):
    # Left out while pinned (see the end): a vec2 view of the floats (half of them reduced).
    # The input is named after the mapping function's parameter: 'x' here, 'buffer' for the
    # element loader of @vd.reduce.reduce.
    names = ("'x'", "'buffer'", "input")
    refused = [bad(Make(w), *names) for w in
               ("numpy input", "list input", "destroyed input", "other dtype input")]
    refused += [bad(v, *names) for v in (None, "x", 3.0)]
    return choose(full, [ok(Make("buffer"))], (), refused)


def second_args(full: bool):
    """The dot product's second buffer ``y``. A shorter one is not drawn: a mapping function
    indexes its buffers as it likes (examples/template_matching reduces over a map reading a
    smaller table), so only it knows what it reads, and the library cannot check it."""
    refused = [bad(Make(w), "'y'") for w in ("numpy second", "other dtype second",
                                            "destroyed second")]
    refused.append(bad(None, "'y'"))
    return choose(full, [ok(Make("buffer"))], [lenient(Make("longer second"), None, "'y'")],
                  refused)


def out_args(full: bool):
    valid = [ok(Make("no out")), ok(Make("big out")), ok(Make("2-D out"))]
    lenient_ = [lenient(Make("the input"), None, "out")]
    refused = [bad(Make(w), "out") for w in ("small out", "other dtype out", "numpy out",
                                             "destroyed out")]
    refused.append(bad("out", "out"))
    return choose(full, valid, lenient_, refused)


def graph_args(full: bool):
    refused = [bad(v, "graph") for v in (3, "graph", Make("object"))]
    refused.append(bad(Make("destroyed CommandGraph"), "graph", "CommandGraph"))
    return choose(full, [ok(Make("no graph")), ok(Make("CommandGraph"))], (), refused)


def keyword_args(full: bool):
    refused = [bad({name: value}, f"'{name}'") for name, value in
               (("foo", 1), ("outt", None), ("graph_", None), ("axes", [0]))]
    # Left out while pinned (see the end): extra positional inputs, a missing second input.
    refused.append(bad(Make("no inputs"), "input"))
    return choose(full, [ok({})], [lenient(Make("x by keyword"), None, "'x'")], refused)


DECORATOR_FAULTS = [bad(Make(w), *names) for w, names in (
    ("op 'add'", ("ReduceOp",)), ("op None", ("ReduceOp",)), ("op np.add", ("ReduceOp",)),
    ("op as a function", ("ReduceOp",)), ("identity 'zero'", ("identity",)),
    ("identity None", ("identity",)), ("identity 1j", ("identity",)),
    ("identity [0]", ("identity",)), ("identity True", ("identity",)),
    ("identity 'infinity'", ("identity",)), ("fractional identity", ("identity",)),
    ("mapping of another type", ("mapping function",)),
    ("combine without a return annotation", ("Return type",)))]


# -- reductions ---------------------------------------------------------------------------------

def loader(op: str, type_name: str, axes, group_size):
    var_type = TYPES[type_name][0]

    def load(x: Buff[var_type]) -> var_type:
        return x[vd.reduce.mapped_io_index()]

    load.__annotations__ = {"x": Buff[var_type], "return": var_type}
    return vd.reduce.map_reduce(OPS[op][0], axes=axes, group_size=group_size)(load)


def dot_product(op: str, type_name: str, axes, group_size):
    var_type = TYPES[type_name][0]

    def dot(x: Buff[var_type], y: Buff[var_type]) -> var_type:
        i = vd.reduce.mapped_io_index()
        return x[i] * y[i]

    dot.__annotations__ = {"x": Buff[var_type], "y": Buff[var_type], "return": var_type}
    return vd.reduce.map_reduce(OPS[op][0], axes=axes, group_size=group_size)(dot)


OP_IDENTITY = Make("the op's identity")


def combine(op: str, type_name: str, axes, group_size, identity=OP_IDENTITY,
            mapping_function=None, annotated: bool = True):
    var_type = TYPES[type_name][0]
    operation = OPS[op][2]

    def fold(a: var_type, b: var_type) -> var_type:
        return operation(a, b)

    fold.__annotations__ = {"a": var_type, "b": var_type} | \
        ({"return": var_type} if annotated else {})
    return vd.reduce.reduce(OPS[op][3] if identity is OP_IDENTITY else identity, axes=axes,
                            group_size=group_size, mapping_function=mapping_function)(fold)


_POOL: dict = {}


def pooled(style: str, op: str, type_name: str, axes, group_size):
    """The reduction of these arguments, made once (its stages compile on first use)."""
    key = (style, op, type_name, repr(axes), repr(group_size))
    if key not in _POOL:
        make = {"map_reduce": loader, "reduce": combine, "dot": dot_product}[style]
        _POOL[key] = make(op, type_name, axes, group_size)
    return _POOL[key]


def faulty_decorator(what: str, op: str, type_name: str):
    """A reduction made with ``what`` wrong (decorating may already raise)."""
    var_type = TYPES[type_name][0]
    if what.startswith("op "):
        value = {"op 'add'": "add", "op None": None, "op np.add": np.add,
                 "op as a function": OPS[op][2]}[what]
        return vd.reduce.map_reduce(value)(lambda x: x)
    if what.startswith("identity"):
        value = {"identity 'zero'": "zero", "identity None": None, "identity 1j": 1j,
                 "identity [0]": [0], "identity True": True,
                 "identity 'infinity'": "infinity"}[what]
        return combine(op, type_name, None, None, identity=value)
    if what == "fractional identity":  # no value of an integer type; a float sum's 0.5 is
        return combine(op, "int32", None, None, identity=0.5)
    if what == "mapping of another type":
        other = i32 if var_type is not i32 else f32

        def as_other(x: Buff[other]) -> other:
            return x[vd.reduce.mapped_io_index()]

        as_other.__annotations__ = {"x": Buff[other], "return": other}
        return combine(op, type_name, None, None, mapping_function=vd.map(as_other))
    if what == "combine without a return annotation":
        return combine(op, type_name, None, None, annotated=False)
    raise AssertionError(what)


# -- data and the model --------------------------------------------------------------------------

def random_values(rng, shape, op: str, type_name: str, kind: str) -> np.ndarray:
    """Random data of the type, never zero, fit for ``op``: products of floats near 1 (so they
    stay finite), odd integer factors (so the wrapped product is not 0), most bits set for
    AND (so it is not trivially 0)."""
    np_type = TYPES[type_name][1]
    if np.dtype(np_type).kind == "f":
        if op == "mul":
            n = max(math.prod(shape), 1)
            x = (1 + rng.uniform(-1, 1, shape) / n**0.5) * rng.choice([-1, 1], shape)
            kind = kind if kind in ("nan", "inf", "infs", "negative") else "normal"
        else:
            x = rng.standard_normal(shape) * {"tiny": 1e-20, "huge": 1e30}.get(kind, 100.0)
            if kind == "mixed":
                x = x * 10.0 ** rng.integers(-2, 6, shape)
        if kind == "negative":
            x = -np.abs(x)
        x = x.astype(np_type)
        flat = x.reshape(-1)
        specials = {"nan": [math.nan], "inf": [math.inf, -math.inf],
                    "infs": [math.inf, -math.inf]}.get(kind, [])
        for k in range(int(rng.integers(1, 3)) if specials else 0):
            value = specials[k % 2] if kind == "infs" else rng.choice(specials)
            flat[int(rng.integers(flat.size))] = value
        return x
    info = np.iinfo(np_type)
    if kind == "extremes":
        pool = [info.max, info.max - 1, 1] + ([info.min, -1, info.min + 1] if info.min else
                                              [info.max // 2 + 1])
        x = rng.choice(np.array(pool, dtype=np.int64), shape).astype(np_type)
    elif kind == "small":
        x = rng.integers(1, 100, shape).astype(np_type)
    else:
        x = rng.integers(info.min, info.max, shape, dtype=np_type, endpoint=True)
        if kind == "negative" and info.min:
            x = (-np.abs(x.astype(np.int64)) - 1).clip(info.min).astype(np_type)
    if op == "and":
        x |= np_type(~np.array(1 << 7 | 1 << 20, dtype=np_type))
    if op == "mul":
        x |= np_type(1)
    x[x == 0] = 1
    return x


def assert_reduced(actual: np.ndarray, rows: np.ndarray, op: str, type_name: str,
                   group: int, what: str) -> None:
    """Each result against numpy's reduction of its row."""
    np_type = TYPES[type_name][1]
    assert actual.dtype == np_type, f"{what}: result dtype {actual.dtype}"
    if np.dtype(np_type).kind != "f":
        expected = OPS[op][1].reduce(rows, axis=1, dtype=np_type)
        np.testing.assert_array_equal(actual, expected, err_msg=what)
        return
    wide = rows.astype(np.float64)
    n = rows.shape[1]
    with np.errstate(all="ignore"):
        expected = {"add": np.sum, "mul": np.prod, "min": np.min, "max": np.max}[op](wide, axis=1)
    for row, got, want in zip(wide, actual.astype(np.float64), expected):
        if op in ("min", "max") and np.isnan(row).any():
            # GLSL's min/max are undefined for NaN: it may come out or be skipped (a row of
            # NaN alone then leaves the identity, +inf for min and -inf for max).
            finite = row[~np.isnan(row)]
            skipped = ((np.min if op == "min" else np.max)(finite) if finite.size else
                       (np.inf if op == "min" else -np.inf))
            assert np.isnan(got) or got == skipped, f"{what}: {got} for a row with NaN"
            event("min/max over NaN: " + ("NaN" if np.isnan(got) else "skipped"))
        elif not np.isfinite(want):
            assert np.isnan(got) if np.isnan(want) else got == want, \
                f"{what}: {got}, numpy {want}"
        elif op == "add":
            per_invocation = -(-n // group)
            limit = EPS32 * C * (per_invocation + math.log2(max(n, 2))) * np.abs(row).sum()
            assert abs(got - want) <= limit, f"{what}: {got} - {want} exceeds {limit:.3g}"
        elif op == "mul":
            limit = EPS32 * C * n * abs(want)
            assert abs(got - want) <= limit, f"{what}: {got} - {want} exceeds {limit:.3g}"
        else:
            assert got == want, f"{what}: {got}, numpy {want}"


# -- the cases ------------------------------------------------------------------------------------

FIELDS = ("input", "second", "axes", "group_size", "out", "graph", "keywords", "decorator")
KINDS = ("valid", "data") + FIELDS


class ReduceCase(NamedTuple):
    style: str
    op: str
    type_name: str
    shape: tuple
    args: dict  # field -> Arg
    data: str
    two_dispatches: bool
    seed: int


@st.composite
def reduce_cases(draw, kind: str):
    styles = {"second": ("dot",), "decorator": ("map_reduce", "reduce")}.get(kind, STYLES)
    style = draw(st.sampled_from(styles))
    type_name = draw(st.sampled_from(sorted(TYPES)))
    ops = ("add",) if style == "dot" else FLOAT_OPS if type_name == "float32" else tuple(OPS)
    op = draw(st.sampled_from(ops))
    shape = draw(st.sampled_from(SHAPES))
    if kind == "any":  # the slow variant: up to two faults together
        faulty = draw(st.sets(st.sampled_from(FIELDS), max_size=2))
    else:
        faulty = {kind}
    args = {"input": draw(input_args("input" in faulty)),
            "axes": draw(axes_args(shape, "axes" in faulty)),
            "group_size": draw(group_size_args("group_size" in faulty)),
            "out": draw(out_args("out" in faulty)),
            "graph": draw(graph_args("graph" in faulty)),
            "keywords": draw(keyword_args("keywords" in faulty))}
    if style == "dot":
        args["second"] = draw(second_args("second" in faulty))
    if "decorator" in faulty and style != "dot":
        args["decorator"] = draw(st.sampled_from(DECORATOR_FAULTS))
    kinds = FLOAT_DATA if type_name == "float32" else INT_DATA
    data = draw(st.sampled_from(kinds)) if kind in ("data", "any") else "normal"
    return ReduceCase(style, op, type_name, shape, args, data, draw(st.booleans()),
                      draw(st.integers(0, 2**32 - 1)))


@contextlib.contextmanager
def dispatches(two: bool):
    """Several groups' partials folded by a second dispatch (``two``: the single pass's limit
    lowered to 0, as test_reduce.py's ``passes`` fixture does) or, the default, by the last
    group in the same dispatch."""
    saved = reduce_function.SINGLE_PASS_GROUPS
    if two:
        reduce_function.SINGLE_PASS_GROUPS = 0
    try:
        yield
    finally:
        reduce_function.SINGLE_PASS_GROUPS = saved


def make_input(what: str | None, passed, type_name: str, x: np.ndarray, rng):
    """The first argument, and what it holds (None where nothing can change)."""
    if what == "buffer":
        return vd.asbuffer(x), x
    if what == "numpy input":
        return x.copy(), None
    if what == "list input":
        return x.tolist(), None
    if what == "destroyed input":
        doomed = vd.asbuffer(x)
        doomed.destroy()
        return doomed, None
    if what == "other dtype input":
        data = random_values(rng, x.shape, "add", other_type(type_name), "normal")
        return vd.asbuffer(data), data
    return passed, None


def other_type(type_name: str) -> str:
    return "int32" if type_name != "int32" else "float32"


def make_out(what: str | None, passed, type_name: str, buffer, rng):
    """The ``out=`` argument and what it holds (the needed size is at most a few hundred)."""
    if what == "numpy out":
        return np.zeros(8192, TYPES[type_name][1]), None
    if what == "the input":
        return buffer, None
    if what == "no out":
        return None, None
    if what is None:
        return passed, None
    shape = {"2-D out": (64, 128), "small out": (1,)}.get(what, (8192,))
    out_type = other_type(type_name) if what == "other dtype out" else type_name
    out = vd.Buffer(shape, TYPES[out_type][0])
    if what == "destroyed out":
        out.destroy()
        return out, None
    before = random_values(rng, shape, "add", out_type, "normal")
    out.write(before)
    return out, before


_KEPT: dict = {}  # reduction -> (the result buffer of its last call, what it held)


def check_reduce_case(case: ReduceCase, context_works) -> None:
    args, shape, op, type_name = case.args, case.shape, case.op, case.type_name
    event(f"style: {case.style}")
    rng = np.random.default_rng(case.seed)
    np_type = TYPES[type_name][1]
    expect = Expect.ok()
    for arg in args.values():
        expect = expect & arg.expect
    x = random_values(rng, shape, op if case.style != "dot" else "add", type_name, case.data)
    x_arg, x_held = make_input(made(args["input"]), args["input"].passed, type_name, x, rng)
    positional = [x_arg]
    y = y_arg = y_held = None
    if case.style == "dot":
        y = random_values(rng, shape, "mul", type_name, "normal")
        what = made(args["second"])
        if what == "buffer":
            y_arg, y_held = vd.asbuffer(y), y
        elif what == "longer second":
            longer = np.concatenate([y.reshape(-1), random_values(rng, (5,), "mul", type_name,
                                                                  "normal")])
            y_arg, y_held = vd.asbuffer(longer), longer
        elif what == "numpy second":
            y_arg = y.copy()
        elif what == "other dtype second":
            y_held = random_values(rng, shape, "add", other_type(type_name), "normal")
            y_arg = vd.asbuffer(y_held)
        elif what == "destroyed second":
            y_arg = vd.asbuffer(y)
            y_arg.destroy()
        else:
            y_arg = args["second"].passed
        positional.append(y_arg)
    out, out_held = make_out(made(args["out"]), args["out"].passed, type_name, x_arg, rng)
    graph = None
    graph_what = made(args["graph"])
    kwargs: dict = {}
    if graph_what == "CommandGraph":
        graph = vd.CommandGraph()
        kwargs["graph"] = graph
    elif graph_what == "destroyed CommandGraph":
        doomed = vd.CommandGraph()
        doomed.destroy()
        kwargs["graph"] = doomed
    elif graph_what == "object":
        kwargs["graph"] = object()
    elif graph_what is None:
        kwargs["graph"] = args["graph"].passed
    if out is not None or made(args["out"]) != "no out":
        kwargs["out"] = out
    keywords = args["keywords"]
    if made(keywords) == "no inputs":
        positional = []
    elif made(keywords) == "x by keyword":
        kwargs["x"] = positional.pop(0)
    else:
        kwargs.update(keywords.passed)
    group_size = resolve_group_size(args["group_size"].passed)
    decorator = args.get("decorator")
    axes = args["axes"].passed
    what = f"reduction{case}"

    def build():
        if decorator is not None:
            return faulty_decorator(made(decorator), op, type_name)
        return pooled(case.style, op, type_name, axes, group_size)

    function = None

    def action():
        nonlocal function
        function = build()
        result = function(*positional, **kwargs)
        if graph is not None:
            graph.submit()
        return result

    # The result the previous call of the same reduction returned (kept here): a later call
    # must not write it.
    kept = _KEPT.get(id(build())) if decorator is None else None
    try:
        with np.errstate(all="ignore"), dispatches(case.two_dispatches):
            passed, result = attempt(action, expect, what)
            if passed:
                assert out is None or result is out, f"{what}: the result is not out="
                first = args["axes"].meaning
                batches = math.prod(shape[:first])
                rows = x.reshape(batches, -1)
                if case.style == "dot":
                    rows = rows * y.reshape(batches, -1)  # wraps for ints, as the GPU does
                actual = result.read(0).reshape(-1)[:batches]
                assert_reduced(actual, rows.astype(np_type), op, type_name,
                               function.group_size, what)
                if decorator is None and out is None and graph is None:
                    _KEPT[id(function)] = (result, result.read(0))
            else:
                if graph is not None:
                    graph.submit()
                if isinstance(out, vd.Buffer) and not out.destroyed and out_held is not None:
                    np.testing.assert_array_equal(out.read(0), out_held,
                                                  err_msg=f"{what}: a refused call wrote out=")
            if kept is not None:
                np.testing.assert_array_equal(kept[0].read(0), kept[1],
                                              err_msg=f"{what}: a kept result was written")
            if made(args["out"]) != "the input":
                for buffer, held in ((x_arg, x_held), (y_arg, y_held)):
                    if isinstance(buffer, vd.Buffer) and held is not None:
                        np.testing.assert_array_equal(buffer.read(0), held,
                                                      err_msg=f"{what}: an input changed")
    finally:
        if graph is not None:
            graph.destroy()
    context_works(rng)


@pytest.fixture
def context_works(context):
    """``context_works(rng)``: a small known float sum still matches numpy."""
    total = pooled("map_reduce", "add", "float32", None, None)

    def check(rng) -> None:
        x = (rng.standard_normal(1000) * 100).astype(np.float32)
        result = total(vd.asbuffer(x)).read(0)[:1]
        assert_reduced(result, x.reshape(1, -1), "add", "float32", total.group_size,
                       "the context after the call")

    return check


@pytest.mark.parametrize("kind", KINDS)  # each kind of fault in every run
@settings(BASE, max_examples=20)
@given(data=st.data())
def test_fuzz_reductions_raise_named_errors_or_match_numpy(context_works, kind, data):
    check_reduce_case(data.draw(reduce_cases(kind), "case"), context_works)


@pytest.mark.slow
@LONG
@given(case=reduce_cases("any"))
def test_fuzz_reductions_long(context_works, case):
    check_reduce_case(case, context_works)


# -- defects this fuzzing found, fixed: regression tests -------------------------------------
# Each asserts what the fuzz tests above expect.

def _axes_numpy_int() -> None:
    """A numpy integer is an axis like an int (it raised a bare TypeError)."""
    data = np.arange(1, 121, dtype=np.float32).reshape(4, 30)
    out = loader("add", "float32", np.int64(1), None)(vd.asbuffer(data))
    np.testing.assert_array_equal(out.read(0).reshape(-1)[:4], data.sum(axis=1))


def _axes_float() -> None:
    refused_naming(lambda: loader("add", "float32", 1.0, None)(vd.Buffer((4, 30), f32)),
                   "axes")


def _vec2_view() -> None:
    data = np.arange(1, 21, dtype=np.float32)
    view = vd.Buffer((10,), vd.vec2)
    view.write(data.reshape(10, 2))
    passed, out = outcome(lambda: pooled("map_reduce", "add", "float32", None, None)(view),
                          "'x'")
    if passed:
        assert out.read(0)[0] == data.sum(), f"{out.read(0)[0]}: not the sum of all 20 floats"


def _extra_input() -> None:
    x = vd.asbuffer(np.ones(100, np.float32))
    refused_naming(lambda: pooled("map_reduce", "add", "float32", None, None)(x, x),
                   "1 argument", "(x)")


def _missing_second_input() -> None:
    x = vd.asbuffer(np.ones(100, np.float32))
    refused_naming(lambda: pooled("dot", "add", "float32", None, None)(x), "'y'")


def _out_is_the_input() -> None:
    x = vd.asbuffer(np.arange(1, 1001, dtype=np.float32))
    refused_naming(lambda: pooled("map_reduce", "add", "float32", None, None)(x, out=x), "out")


@pytest.mark.parametrize("check", [_axes_numpy_int, _axes_float, _extra_input,
                                   _missing_second_input, _vec2_view, _out_is_the_input],
                         ids=["axes numpy int", "axes float", "extra input", "missing input",
                              "vec2 view", "out is the input"])
def test_fixed_defect(context, rng, context_works, check):
    """axes of a numpy integer reduce along it; a float names axes (both were bare TypeErrors:
    'object is not iterable'); an extra or a missing input names the mapping function's
    arguments (the errors counted the stage shader's: 'takes 3 arguments (out, x, params)');
    a vec2 buffer reduced by a float32 map covers all its floats (it covered the first half:
    the count was the buffer's elements, not the floats the map reads); out= an input is
    refused (its partials overwrote the input being read)."""
    try:
        check()
    finally:
        context_works(rng)
