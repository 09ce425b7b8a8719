"""Fuzz test of bad input: random elementwise programs called with random arguments, most of
them wrong, and random misuses of buffers (``vd.asbuffer``, ``Buffer.write``/``read``,
``vd.Buffer``).

Each draw either passes (the call must then compute what a numpy model says) or raises a
vkdispatch error that is also a ``TypeError``/``ValueError``/``IndexError`` and whose message
names the argument at fault. Then nothing must have changed: a failed call leaves its output
buffer and a failed write leaves its buffer as they were, the same shader still computes the
right answer for valid arguments, and a small known kernel still matches numpy on fresh data.

A drawn argument is *valid*, *lenient* or *bad* (see fuzzing.py): lenient values are ones a
library may accept or refuse, such as ``True`` or ``(1.5,)`` for a float, or a numpy array for a
buffer.

Programs are chains ``acc = x; acc = acc OP operand`` (or ``operand OP acc``) over the shader's
buffers ``xs``, ``ys``, the ``Const`` ``gain`` and the ``Var`` ``offset``; the argument fuzz
reuses two fixed programs (compiled shaders are cached per program) and is parametrized over the
kind of fault, so that every kind is drawn in every run; one test draws programs as well. The
``slow`` variants draw every kind together, many more times.

Two defects it found are pinned by the tests at the end: a launch expression failing with
another error than NameError/AttributeError/TypeError escaped as that bare error, and some
messages named no argument (a workgroup count beyond the device's, a launch expression that is
not Python, a ``Var`` bound on the default graph).
"""
import math
import operator
from decimal import Decimal
from fractions import Fraction
from functools import cache
from typing import Any, NamedTuple

import numpy as np
import pytest
from fuzzing import BASE, LONG, Expect, attempt
from helpers import random_array
from hypothesis import event, given, settings
from hypothesis import strategies as st

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch import errors
from vkdispatch.codegen.abbreviations import Buff, Const, Var, f32, i32

NAMES = ("out", "xs", "ys", "gain", "offset")
LOCAL_SIZE = 64
SIZES = (1, 63, 64, 65, 128, 250)  # around the local size; the bounds guard is exercised


@pytest.fixture
def context_works(affine):
    """``context_works(rng)`` checks that a small known kernel still computes ``x * k + b`` on
    fresh random data (a function, so that failing examples print short)."""
    return lambda rng: assert_context_works(affine, rng)


def assert_context_works(affine, rng) -> None:
    data = random_array(rng, (129,), np.float32)
    k, b = (np.float32(v) for v in rng.uniform(-3, 3, 2))
    buffer = vd.asbuffer(data)
    affine(buffer, float(k), float(b))
    np.testing.assert_allclose(buffer.read(0), data * k + b, rtol=1e-5, atol=1e-3)


# -- programs: the same chain applied to shader values and to numpy arrays ----------------------

FLOAT_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul}
INT_OPS = {**FLOAT_OPS, "&": operator.and_, "|": operator.or_, "^": operator.xor}
SCALARS = {"f32": (f32, np.float32), "i32": (i32, np.int32)}


class Program(NamedTuple):
    kind: str                                     # "f32" or "i32"
    steps: tuple[tuple[str, Any, bool], ...]      # (op, operand name or literal, reflected)


def program_strategy(kind: str):
    if kind == "f32":
        ops, literals = FLOAT_OPS, st.sampled_from([0.5, 1.5, -2.25, 3.0, -0.75, 2.0])
    else:
        ops = INT_OPS
        literals = st.one_of(st.integers(1, 9), st.integers(-9, -1),
                             st.sampled_from([0xFFFF, 0x55555555, 0x7FFFFFFF, -12345678]))
    operand = st.one_of(st.sampled_from(["xs", "ys", "gain", "offset"]), literals)
    step = st.tuples(st.sampled_from(sorted(ops)), operand, st.booleans())
    return st.builds(Program, st.just(kind), st.lists(step, min_size=1, max_size=4).map(tuple))


def run_program(program: Program, env: dict, literal=lambda value: value):
    acc = env["xs"]
    for op, operand, reflected in program.steps:
        value = env[operand] if isinstance(operand, str) else literal(operand)
        acc = INT_OPS[op](value, acc) if reflected else INT_OPS[op](acc, value)
    return acc


def magnitude_bound(program: Program, env: dict) -> np.ndarray:
    """Bounds every intermediate's magnitude (float64): a GPU may fuse or reorder, so float
    results are compared relative to it."""
    acc = np.abs(env["xs"].astype(np.float64))
    for op, operand, _ in program.steps:
        value = np.abs(np.float64(env[operand]) if operand in ("gain", "offset") else
                       env[operand].astype(np.float64) if isinstance(operand, str) else operand)
        acc = acc * value if op == "*" else acc + value
    return acc


@cache
def kernel_for(program: Program):
    scalar = SCALARS[program.kind][0]

    @vd.shader("out.size", local_size=(LOCAL_SIZE, 1, 1))
    def fuzz_kernel(out: Buff[scalar], xs: Buff[scalar], ys: Buff[scalar], gain: Const[scalar],
                    offset: Var[scalar]):
        i = vc.global_invocation_id().x
        out[i] = run_program(program, {"xs": xs[i], "ys": ys[i], "gain": gain, "offset": offset})

    return fuzz_kernel


def expected_output(program: Program, inputs: dict, count: int, before: np.ndarray):
    """What ``out`` holds after a call over the first ``count`` elements, and the float bound."""
    np_type = SCALARS[program.kind][1]
    env = {**inputs, "gain": np_type(inputs["gain"]), "offset": np_type(inputs["offset"])}
    with np.errstate(all="ignore"):
        result = run_program(program, env, np_type)
    expected = before.copy()
    expected[:count] = result[:count]
    return expected, magnitude_bound(program, env)


def assert_output(program: Program, actual, inputs: dict, count: int, before) -> None:
    expected, bound = expected_output(program, inputs, count, before)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(actual[count:], before[count:], err_msg="beyond exec_size")
    actual, expected = actual[:count], expected[:count]
    if program.kind == "i32":
        np.testing.assert_array_equal(actual, expected, err_msg=repr(program))
        return
    special = ~np.isfinite(expected)
    np.testing.assert_array_equal(actual[special], expected[special], err_msg=repr(program))
    scale = np.maximum(1.0, bound[:count][~special])
    np.testing.assert_allclose(actual[~special] / scale, expected[~special] / scale, rtol=1e-5,
                               atol=1e-5, err_msg=repr(program))


def random_inputs(kind: str, n: int, rng) -> dict:
    """Data of the program's type (floats in [-4, 4] keep chains in range; never zero)."""
    if kind == "f32":
        data = [(rng.uniform(0.05, 4, n) * rng.choice([-1, 1], n)).astype(np.float32)
                for _ in range(3)]
        gain, offset = (float(np.float32(v)) for v in rng.uniform(-4, 4, 2))
    else:
        data = [random_array(rng, (n,), np.int32) for _ in range(3)]
        gain, offset = (int(v) for v in random_array(rng, (2,), np.int32))
    return {"xs": data[0], "ys": data[1], "out": data[2], "gain": gain, "offset": offset}


# -- call arguments -------------------------------------------------------------------------------

class Value(NamedTuple):
    """A value for ``gain``/``offset``: what is passed and what the model uses instead."""

    passed: Any
    model: Any
    expect: str  # "ok", "lenient" or "bad"


class _ABuffer:
    """Stands for a vd.Buffer, made in the test (strategies create no device objects)."""

    def __repr__(self) -> str:
        return "<a vd.Buffer>"


A_BUFFER = _ABuffer()


def _values(valid_numbers, lenient: list, bad: list):
    # Each kind drawn first, about equally often: in a plain one_of, the infinite branch of
    # numbers would be drawn ten times as often as the short lists.
    kinds = {"ok": valid_numbers, "lenient": st.sampled_from(lenient),
             "bad": st.sampled_from(bad)}
    return st.sampled_from(sorted(kinds)).flatmap(kinds.get)


def _float32_values():
    number = st.one_of(st.floats(0.125, 4, width=32), st.floats(-4, -0.125, width=32))
    valid = st.one_of(
        number.map(lambda f: Value(f, f, "ok")),
        number.map(lambda f: Value(np.float32(f), f, "ok")),
        number.map(lambda f: Value(np.float64(f), f, "ok")),
        st.sampled_from([-4, -1, 1, 3]).map(lambda i: Value(i, i, "ok")),
        st.sampled_from([math.nan, math.inf, -math.inf]).map(lambda f: Value(f, f, "ok")),
        st.sampled_from([np.int8(-3), np.uint16(3)]).map(lambda i: Value(i, int(i), "ok")))
    lenient = [Value(True, 1, "lenient"), Value((1.5,), 1.5, "lenient"),
               Value([2.5], 2.5, "lenient"), Value(np.array([0.75]), 0.75, "lenient"),
               Value(np.array([[3.0]], np.float32), 3.0, "lenient"),
               Value(Fraction(1, 3), 1 / 3, "lenient"), Value(Decimal("1.25"), 1.25, "lenient")]
    bad = [Value(v, None, "bad") for v in
           ("two", None, 1j, [1.0, 2.0], (), 1e39, -1e39, 2**200, object(), {"k": 1.0},
            b"\x00\x00\x80?", np.array(["1.0"]), np.array([1j]), np.ones(3, np.float32),
            lambda *args: 1.0, A_BUFFER)]
    return _values(valid, lenient, bad)


def _int32_values():
    number = st.one_of(st.integers(1, 2**31 - 1), st.integers(-2**31, -1))
    valid = st.one_of(
        number.map(lambda i: Value(i, i, "ok")),
        number.map(lambda i: Value(np.int32(i), i, "ok")),
        number.map(lambda i: Value(np.int64(i), i, "ok")),
        st.integers(1, 60000).map(lambda i: Value(np.uint16(i), i, "ok")))
    lenient = [Value(True, 1, "lenient"), Value((7,), 7, "lenient"),
               Value(np.array([-9], np.int8), -9, "lenient"), Value(2.0, 2, "lenient"),
               Value(np.float32(5.0), 5, "lenient")]
    bad = [Value(v, None, "bad") for v in
           (1.5, math.nan, math.inf, 2**31, -2**31 - 1, 2**64, np.uint32(4_000_000_000),
            np.int64(2**40), "3", None, 1j, [1, 2], object(), np.array([1.5]),
            lambda *args: 1, A_BUFFER)]
    return _values(valid, lenient, bad)


VALUES = {"f32": _float32_values(), "i32": _int32_values()}

# Buffers for Buff[f32]/Buff[i32] of another scalar type (refused: their bits would be read as
# the declared type) and views of the same scalars grouped otherwise (accepted).
OTHER_DTYPES = {"f32": [(vd.int32, np.int32), (vd.int16, np.int16), (vd.float64, np.float64),
                        (vd.float16, np.float16)],
                "i32": [(vd.float32, np.float32), (vd.uint32, np.uint32), (vd.int64, np.int64),
                        (vd.int16, np.int16), (vd.float64, np.float64)]}
VIEWS = {"f32": [(vd.vec2, 2), (vd.complex64, 2), (vd.vec4, 4)],
         "i32": [(vd.ivec2, 2), (vd.ivec4, 4)]}
NOT_BUFFERS = [None, "xs", 1.0, np.float32(2), (1.0, 2.0), vd.float32]


class Fault(NamedTuple):
    kind: str
    param: str | None = None
    value: Any = None


class Launch(NamedTuple):
    """An ``exec_size``/``workgroups`` value; ``count``: the elements it covers when it is valid
    (None: it must be refused)."""

    value: Any
    count: int | None


def exec_sizes(n: int):
    k = st.integers(1, n)
    valid = st.one_of(
        k.map(lambda c: Launch(c, c)), k.map(lambda c: Launch((c,), c)),
        st.tuples(k, st.integers(1, 3)).map(lambda t: Launch(t, t[0])),
        k.map(lambda c: Launch(np.int64(c), c)), k.map(lambda c: Launch(str(c), c)),
        k.map(lambda c: Launch(lambda args, c=c: c, c)),
        st.sampled_from([Launch(None, n), Launch("out.size", n),
                         Launch(lambda args: args.out.shape, n)]))
    too_large = [Launch(v, None) for v in
                 (2**40, 2**100, (1, 2**20), np.uint64(2**64 - 1), "out.size * 2**40")]
    bad = [Launch(v, None) for v in
           (0, -1, -2**70, (0,), (n, 0), (n, -2), 2.5, math.nan, math.inf, np.float64(n),
            True, 1j, "nonsense_name", "out.nosuch", "out.size / 2", [n], (),
            (1, 2, 3, 4), (n, "a"), (n, None), lambda args: "zz", lambda args: None)]
    bad.append(Launch("out.size +", None))
    return st.sampled_from(["valid", "bad"]).flatmap(
        lambda which: valid if which == "valid" else st.sampled_from(too_large + bad))


def workgroup_counts(n: int):
    bad = [Launch(v, None) for v in (0, -1, 2.5, "nonsense_name", [1], (1, 0), math.nan)]
    bad += [Launch(v, None) for v in (2**32, (1, 2**32), 2**40, "(1,")]  # past any device
    if n % LOCAL_SIZE:      # whole workgroups past the end of the buffer: only refusals
        return st.sampled_from(bad)
    groups = n // LOCAL_SIZE
    valid = [Launch(groups, n), Launch((groups,), n), Launch((groups, 1), n)]
    return st.sampled_from(valid + bad)


def _fault(kind: str, param=st.none(), value=st.none()):
    return st.builds(Fault, st.just(kind), param, value)


FAULT_KINDS = ("none", "keywords", "value", "dtype", "numpy", "list", "not_buffer", "destroyed",
               "alias", "longer", "view", "missing", "extra", "unknown", "duplicate",
               "exec_size", "workgroups", "graph", "bind_var")


def faults(kind: str, n: int, only: str | None = None):
    """A fault of kind ``only``, or of each kind about equally often (values and launch sizes
    more often)."""
    buffer_params = st.sampled_from(["out", "xs", "ys"])
    inputs = st.sampled_from(["xs", "ys"])
    views = [view for view in VIEWS[kind] if n % view[1] == 0]
    unknown = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True).filter(
        lambda name: name not in NAMES + ("graph", "exec_size", "workgroups"))
    strategies = {
        "none": st.just(Fault("none")),
        "keywords": _fault("keywords", value=st.integers(1, len(NAMES))),
        "value": _fault("value", st.sampled_from(["gain", "offset"]), VALUES[kind]),
        "dtype": _fault("dtype", buffer_params, st.sampled_from(OTHER_DTYPES[kind])),
        "numpy": _fault("numpy", buffer_params),
        "list": _fault("list", buffer_params),
        "not_buffer": _fault("not_buffer", buffer_params, st.sampled_from(NOT_BUFFERS)),
        "destroyed": _fault("destroyed", buffer_params),
        "alias": _fault("alias", inputs),
        "longer": _fault("longer", inputs, st.integers(1, 100)),
        "view": _fault("view", inputs, st.sampled_from(views)) if views else
                _fault("alias", inputs),
        "missing": _fault("missing", value=st.integers(1, len(NAMES))),
        "extra": _fault("extra", value=st.lists(st.sampled_from([1.0, 0, None, "x"]),
                                                min_size=1, max_size=3)),
        "unknown": _fault("unknown", unknown, st.sampled_from([1.0, None, "v"])),
        "duplicate": _fault("duplicate", st.sampled_from(NAMES)),
        "exec_size": _fault("exec_size", value=exec_sizes(n)),
        "workgroups": _fault("workgroups", value=workgroup_counts(n)),
        "graph": _fault("graph", value=st.sampled_from(["graph", 3, object(), vd.float32])),
        "bind_var": _fault("bind_var", st.sampled_from(["gain", "offset"])),
    }
    assert tuple(strategies) == FAULT_KINDS
    if only is not None:
        return strategies[only]
    return st.sampled_from(FAULT_KINDS + ("value",) * 3 + ("exec_size",)).flatmap(
        strategies.get)


class CallCase(NamedTuple):
    program: Program
    n: int
    fault: Fault
    via_graph: bool  # record into a CommandGraph (submitted after the call) instead
    seed: int


@st.composite
def call_cases(draw, programs, fault_kind: str | None = None):
    program = draw(programs)
    n = draw(st.sampled_from(SIZES))
    return CallCase(program, n, draw(faults(program.kind, n, fault_kind)), draw(st.booleans()),
                    draw(st.integers(0, 2**32 - 1)))


POOL = (Program("f32", (("*", "gain", False), ("+", "ys", False), ("-", "offset", True))),
        Program("i32", (("^", "ys", False), ("*", "gain", False), ("+", "offset", False),
                        ("&", 0x7FFF0FFF, True))))


class Call(NamedTuple):
    args: list
    kwargs: dict
    inputs: dict      # what the model computes with
    count: int        # how many elements the call covers
    expect: Expect
    bound_var: Any = None  # (name, value) to set on the graph before submitting


def _other_dtype_buffer(types, data: np.ndarray):
    """A buffer of another scalar type holding ``data`` converted, and what a library that
    converted it back would compute with."""
    var_type, np_type = types
    with np.errstate(all="ignore"):
        converted = data.astype(np_type)
    buffer = vd.Buffer((data.size,), var_type)
    buffer.write(converted)
    with np.errstate(all="ignore"):
        return buffer, converted.astype(data.dtype)


def _buffer_fault(fault: Fault, args: dict, inputs: dict, before: np.ndarray):
    """Replaces a buffer argument; returns its Expect (and updates the model's inputs)."""
    param, kind = fault.param, fault.kind
    data = before if param == "out" else inputs[param]
    named = f"'{param}'"
    if kind == "dtype":
        args[param], meant = _other_dtype_buffer(fault.value, data)
        if param == "out":
            return Expect.bad(named)
        inputs[param] = meant
        return Expect.lenient(named)
    if kind in ("numpy", "list"):
        args[param] = data.copy() if kind == "numpy" else data.tolist()
        return Expect.bad(named) if param == "out" else Expect.lenient(named)
    if kind == "not_buffer":
        args[param] = fault.value
        return Expect.bad(named)
    if kind == "destroyed":
        doomed = vd.asbuffer(data)
        doomed.destroy()
        args[param] = doomed
        return Expect.bad(named)
    if kind == "alias":
        args[param] = args["out"]
        inputs[param] = before
        return Expect.ok()
    if kind == "longer":
        longer = np.concatenate([data, data[:1].repeat(fault.value)])
        args[param] = vd.asbuffer(longer)
        return Expect.ok()
    var_type, width = fault.value  # "view": the same scalars as vectors or complex numbers
    view = vd.Buffer((data.size // width,), var_type)
    view.write(data.view(np.complex64) if var_type is vd.complex64 else
               data.reshape(-1, width))
    args[param] = view
    return Expect.ok()


def make_call(case: CallCase, args: dict, inputs: dict, before, graph) -> Call:
    """The call's arguments after applying the fault."""
    fault, n = case.fault, case.n
    kind, param = fault.kind, fault.param
    kwargs: dict = {} if graph is None else {"graph": graph}
    count, expect, bound_var = n, Expect.ok(), None
    names = list(NAMES)
    if kind == "value":
        value: Value = fault.value
        args[param] = vd.Buffer((4,), vd.float32) if value.passed is A_BUFFER else value.passed
        inputs[param] = value.model
        expect = {"ok": Expect.ok(), "lenient": Expect.lenient(f"'{param}'"),
                  "bad": Expect.bad(f"'{param}'")}[value.expect]
    elif kind in ("dtype", "numpy", "list", "not_buffer", "destroyed", "alias", "longer",
                  "view"):
        expect = _buffer_fault(fault, args, inputs, before)
    elif kind == "keywords":
        names = names[:len(NAMES) - fault.value]
        kwargs.update({name: args[name] for name in NAMES[len(names):]})
    elif kind == "missing":
        names = names[:len(NAMES) - fault.value]
        expect = Expect.bad(f"'{NAMES[len(names)]}'")
    elif kind == "extra":
        positional = [args[name] for name in NAMES] + list(fault.value)
        return Call(positional, kwargs, inputs, n, Expect.bad(f"{len(positional)} were given"))
    elif kind == "unknown":
        kwargs[fault.param] = fault.value
        expect = Expect.bad(f"'{fault.param}'")
    elif kind == "duplicate":
        kwargs[param] = args[param]
        expect = Expect.bad(f"'{param}'")
    elif kind in ("exec_size", "workgroups"):
        launch: Launch = fault.value
        if launch.value is not None:
            kwargs[kind] = launch.value
        if launch.count is not None:
            count = launch.count
        else:
            expect = Expect.bad(kind)
    elif kind == "graph":
        kwargs["graph"] = fault.value
        expect = Expect.bad("'graph'")
    elif kind == "bind_var":
        if param == "gain":
            args[param] = (vd.default_graph() if graph is None else graph).bind_var("g")
            expect = Expect.bad("'gain'")
        elif graph is None:
            args[param] = vd.default_graph().bind_var("o")
            expect = Expect.bad("'offset'")
        else:
            bound_var = ("o", args[param])
            args[param] = graph.bind_var("o")
    positional = [args[name] for name in names]
    return Call(positional, kwargs, inputs, count, expect, bound_var)


def check_call(case: CallCase, context_works) -> None:
    program, n = case.program, case.n
    event(f"fault: {case.fault.kind}")
    kernel = kernel_for(program)
    rng = np.random.default_rng(case.seed)
    data = random_inputs(program.kind, n, rng)
    before = data.pop("out")
    out = vd.asbuffer(before)
    args = {"out": out, "xs": vd.asbuffer(data["xs"]), "ys": vd.asbuffer(data["ys"]),
            "gain": data["gain"], "offset": data["offset"]}
    graph = vd.CommandGraph() if case.via_graph else None
    try:
        call = make_call(case, dict(args), dict(data), before, graph)

        def run():
            kernel(*call.args, **call.kwargs)
            if graph is not None:
                if call.bound_var is not None:
                    graph.set_var(*call.bound_var)
                graph.submit()

        passed, _ = attempt(run, call.expect, repr(case.fault))
        if passed:
            assert_output(program, out.read(0), call.inputs, call.count, before)
        else:
            np.testing.assert_array_equal(out.read(0), before, err_msg="a refused call ran")
            if graph is not None:  # the refused call recorded nothing
                graph.submit()
                np.testing.assert_array_equal(out.read(0), before, err_msg="it was recorded")
    finally:
        if graph is not None:
            graph.destroy()
    kernel(*(args[name] for name in NAMES))  # the same shader, valid arguments
    assert_output(program, out.read(0), data, n, before)
    context_works(rng)


@pytest.mark.parametrize("fault_kind", FAULT_KINDS)  # each kind in every run
@settings(BASE, max_examples=10)
@given(data=st.data())
def test_fuzz_shader_calls_with_bad_arguments_raise_named_errors_or_match_numpy(context_works,
                                                                                fault_kind, data):
    check_call(data.draw(call_cases(st.sampled_from(POOL), fault_kind), "case"), context_works)


@settings(BASE, max_examples=30)
@given(case=call_cases(st.one_of(program_strategy("f32"), program_strategy("i32"))))
def test_fuzz_random_programs_with_random_arguments(context_works, case):
    check_call(case, context_works)


@pytest.mark.slow
@LONG
@given(case=call_cases(st.one_of(st.sampled_from(POOL), program_strategy("f32"),
                                 program_strategy("i32"))))
def test_fuzz_shader_calls_long(context_works, case):
    check_call(case, context_works)


# -- buffers ----------------------------------------------------------------------------------

def _shape(rng, max_dims: int = 3) -> tuple[int, ...]:
    return tuple(int(e) for e in rng.integers(1, 9, size=rng.integers(1, max_dims + 1)))


ASBUFFER_DTYPES = (np.float32, np.float64, np.float16, np.int16, np.uint16, np.int32,
                   np.uint32, np.int64, np.uint64, np.complex64, np.complex128)


def _asbuffer_input(label: str, rng):
    """``(object, Expect)`` for ``vd.asbuffer``."""
    if label in ASBUFFER_DTYPES:
        return random_array(rng, _shape(rng), label), Expect.ok()
    array = random_array(rng, _shape(rng, 2) + (2,), np.float32)
    valid = {"strided": lambda: array[..., ::2], "reversed": lambda: array[::-1],
             "transposed": lambda: array[..., 0].T, "fortran": lambda: np.asfortranarray(array),
             "nested list": lambda: array[..., 0].tolist(),
             "int list": lambda: [int(v) for v in rng.integers(-9, 9, 5)],
             "0-d": lambda: np.float32(rng.uniform(1, 2)),
             "0-d array": lambda: np.array(rng.uniform(1, 2), np.float32)}
    if label in valid:
        return valid[label](), Expect.ok()
    bad = {"bool": (np.ones(3, bool), "bool"), "int8": (np.arange(1, 4, dtype=np.int8), "int8"),
           "uint8": (np.arange(1, 4, dtype=np.uint8), "uint8"),
           "strings": (np.array(["a", "b"]), "<U1"), "objects": (np.array([1.0, None]), "object"),
           "4-d": (np.ones((1, 2, 1, 2), np.float32), "4 dimensions"),
           "empty": (np.ones((3, 0), np.float32), "shape[1]"),
           "huge": (np.broadcast_to(np.float32(1), (2**31,)), "2^30"),
           "None": (None, "NoneType"), "float": (3.5, "float"), "str": ("abc", "str"),
           "dict": ({"a": 1}, "dict"), "bytes": (b"abcd", "bytes"),
           "ragged": ([[1.0], [2.0, 3.0]], "array"), "big ints": ([2**70, 1], "object")}
    value, name = bad[label]
    return value, Expect.bad(name)


ASBUFFER_LABELS = ASBUFFER_DTYPES + (
    "strided", "reversed", "transposed", "fortran", "nested list", "int list", "0-d",
    "0-d array", "bool", "int8", "uint8", "strings", "objects", "4-d", "empty", "huge", "None",
    "float", "str", "dict", "bytes", "ragged", "big ints")


def check_asbuffer(label, rng) -> None:
    value, expect = _asbuffer_input(label, rng)
    passed, buffer = attempt(lambda: vd.asbuffer(value), expect, f"asbuffer({label})")
    if passed:
        expected = np.asarray(value)
        result = buffer.read(0)
        assert result.dtype == expected.dtype
        np.testing.assert_array_equal(result, expected.reshape(result.shape))
        assert result.shape == (expected.shape or (1,))


def _index(label: str, queue_count: int):
    """``(index, Expect)`` for ``read``/``write``."""
    valid = {"None": None, "0": 0, "last": queue_count - 1}
    if label in valid:
        return valid[label], Expect.ok()
    if label == "np.int64(0)":  # refused today, while shapes and exec_size take numpy integers
        return np.int64(0), Expect.lenient("index")
    value = {"-1": -1, "count": queue_count, "count+5": queue_count + 5, "2**70": 2**70,
             "1.0": 1.0, "'0'": "0", "True": True, "[0]": [0], "nan": math.nan}[label]
    return value, Expect.bad("index")


INDEX_LABELS = ("None", "0", "last", "np.int64(0)", "-1", "count", "count+5", "2**70", "1.0",
                "'0'", "True", "[0]", "nan")
WRITE_TYPES = {"float32": (vd.float32, np.float32), "int32": (vd.int32, np.int32)}


VALID_WRITES = ("exact", "flat", "2-d", "strided", "fortran", "list", "memoryview",
                "bytes prefix", "int16")
BAD_WRITES = ("too many", "too few", "complex", "objects", "strings", "strided memoryview",
              "bytes too long", "None", "ragged")
WRITE_LABELS = {"float32": VALID_WRITES + BAD_WRITES + ("nan", "float64"),
                "int32": VALID_WRITES + BAD_WRITES + ("fractional floats", "integral floats",
                                                      "int64 out of range")}


def _write_data(label: str, np_type, shape, rng):
    """``(data, the values it writes, how many, Expect)``; a refused write writes nothing."""
    size = math.prod(shape)
    values = random_array(rng, shape, np_type)
    flat = values.reshape(-1)
    if label == "nan":
        flat[0] = np.nan
    prefix = max(1, size // 2)
    make = {  # lazily: only the drawn one
        "exact": lambda: values, "nan": lambda: values, "flat": lambda: flat,
        "2-d": lambda: values.reshape(1, -1), "strided": lambda: np.repeat(flat, 2)[::2],
        "fortran": lambda: np.asfortranarray(values.reshape(1, -1)),
        "list": flat.tolist, "memoryview": lambda: memoryview(flat),
        "bytes prefix": lambda: flat[:prefix].tobytes(),
        "int16": lambda: rng.integers(-999, 999, shape).astype(np.int16),
        "too many": lambda: np.resize(values, size + 1), "too few": lambda: flat[:-1],
        "complex": lambda: values.astype(np.complex64),
        "objects": lambda: values.astype(object), "strings": lambda: values.astype(str),
        "strided memoryview": lambda: memoryview(np.repeat(flat, 2))[::2],
        "bytes too long": lambda: np.resize(values, size + 3).tobytes(),
        "None": lambda: None, "ragged": lambda: [[1], [2, 3]],
        "float64": lambda: values.astype(np.float64),               # into float32
        "fractional floats": lambda: values + 0.5,                  # into int32
        "integral floats": lambda: values.astype(np.float64),
        "int64 out of range": lambda: values.astype(np.int64) + 2**40}[label]
    data = make()
    if label == "strided memoryview" and data.c_contiguous:  # one element: contiguous
        expect = Expect.ok()
    elif label in BAD_WRITES or label in ("fractional floats", "int64 out of range"):
        expect = Expect.bad("list" if label == "ragged" else "data")  # ragged: its type only
    else:
        expect = Expect.lenient("data") if label == "integral floats" else Expect.ok()
    written = data.astype(np_type) if label == "int16" else values
    return data, written, prefix if label == "bytes prefix" else size, expect


def check_write(type_name: str, data_label: str, index_label: str, context, rng) -> None:
    var_type, np_type = WRITE_TYPES[type_name]
    shape = _shape(rng)
    data, written, count, data_expect = _write_data(data_label, np_type, shape, rng)
    index, index_expect = _index(index_label, context.queue_count)
    before = random_array(rng, shape, np_type)
    buffer = vd.Buffer(shape, var_type)
    buffer.write(before)
    what = f"write({data_label}, index={index_label}) into {type_name}{shape}"
    passed, _ = attempt(lambda: buffer.write(data, index), data_expect & index_expect, what)
    expected = before.copy().reshape(-1)
    if passed:
        expected[:count] = written.reshape(-1)[:count]
    replicas = range(context.queue_count) if index is None or not passed else [int(index)]
    for replica in replicas:
        np.testing.assert_array_equal(buffer.read(replica).reshape(-1), expected, err_msg=what)


OUT_LABELS = ("none", "exact", "wrong shape", "wrong dtype", "strided", "read-only", "list")


def check_read(out_label: str, index_label: str, context, rng) -> None:
    data = random_array(rng, _shape(rng), np.float32)
    buffer = vd.asbuffer(data)
    index, expect = _index(index_label, context.queue_count)
    stacked = index is None
    expected = np.stack([data] * context.queue_count) if stacked else data
    outs = {"none": None, "exact": np.empty_like(expected),
            "wrong shape": np.empty(expected.size + 1, np.float32),
            "wrong dtype": np.empty(expected.shape, np.float64),
            "strided": np.empty(expected.shape + (2,), np.float32)[..., 0],
            "read-only": np.empty_like(expected), "list": [0.0] * expected.size}
    outs["read-only"].flags.writeable = False
    out = outs[out_label]
    if out_label not in ("none", "exact") and not (out_label == "strided" and
                                                   out.flags.c_contiguous):  # one element
        expect = expect & Expect.bad("out")
    what = f"read(index={index_label}, out={out_label})"
    passed, result = attempt(lambda: buffer.read(index, out=out), expect, what)
    if passed:
        assert result.dtype == np.float32
        np.testing.assert_array_equal(result, expected, err_msg=what)
        assert out is None or result is out


SHAPES = {"int": (5, True), "tuple": ((3, 2), True), "3-d": ((2, 3, 2), True),
          "list": ([4, 2], True), "np.int64": (np.int64(6), True), "()": ((), True),
          "0": (0, False), "-3": (-3, False), "2.5": (2.5, False), "nan": (math.nan, False),
          "None": (None, False), "'3'": ("3", False), "(True,)": ((True,), False),
          "(2, 0)": ((2, 0), False), "4-d": ((1, 2, 1, 2), False), "2**31": (2**31, False),
          "(2**16, 2**16)": ((2**16, 2**16), False), "(3.0,)": ((3.0,), False)}
VAR_TYPES = {"float32": (vd.float32, True), "int32": (vd.int32, True), "vec2": (vd.vec2, True),
             "uint16": (vd.uint16, True), "complex64": (vd.complex64, True),
             "np.float32": (np.float32, False), "'float32'": ("float32", False),
             "None": (None, False), "3": (3, False), "float": (float, False)}


def check_new_buffer(shape_label: str, type_label: str, rng) -> None:
    shape, shape_ok = SHAPES[shape_label]
    var_type, type_ok = VAR_TYPES[type_label]
    expect = (Expect.ok() if shape_ok else Expect.bad("shape")) & \
        (Expect.ok() if type_ok else Expect.bad("var_type"))
    what = f"vd.Buffer({shape_label}, {type_label})"
    passed, buffer = attempt(lambda: vd.Buffer(shape, var_type), expect, what)
    if passed:
        host_shape = buffer.shape + tuple(var_type.true_numpy_shape)
        np_type = {"complex64": np.complex64, "int32": np.int32,
                   "uint16": np.uint16}.get(type_label, np.float32)
        data = random_array(rng, host_shape, np_type)
        buffer.write(data)
        np.testing.assert_array_equal(buffer.read(0), data, err_msg=what)


class BufferOp(NamedTuple):
    kind: str
    labels: tuple
    seed: int


BUFFER_OPS = ("asbuffer", "write", "read", "new")


def buffer_ops(only: str | None = None):
    seeds = st.integers(0, 2**32 - 1)
    indices = st.sampled_from(INDEX_LABELS)
    strategies = dict(zip(BUFFER_OPS, (
        st.builds(BufferOp, st.just("asbuffer"), st.tuples(st.sampled_from(ASBUFFER_LABELS)),
                  seeds),
        st.builds(BufferOp, st.just("write"),
                  st.sampled_from(sorted(WRITE_LABELS)).flatmap(
                      lambda name: st.tuples(st.just(name), st.sampled_from(WRITE_LABELS[name]),
                                             indices)), seeds),
        st.builds(BufferOp, st.just("read"), st.tuples(st.sampled_from(OUT_LABELS), indices),
                  seeds),
        st.builds(BufferOp, st.just("new"),
                  st.tuples(st.sampled_from(sorted(SHAPES)), st.sampled_from(sorted(VAR_TYPES))),
                  seeds))))
    if only is not None:
        return strategies[only]
    return st.sampled_from(BUFFER_OPS).flatmap(strategies.get)


def check_buffer_op(op: BufferOp, context, context_works) -> None:
    rng = np.random.default_rng(op.seed)
    if op.kind == "asbuffer":
        check_asbuffer(*op.labels, rng)
    elif op.kind == "write":
        check_write(*op.labels, context, rng)
    elif op.kind == "read":
        check_read(*op.labels, context, rng)
    else:
        check_new_buffer(*op.labels, rng)
    context_works(rng)


@pytest.mark.parametrize("kind", BUFFER_OPS)
@settings(BASE, max_examples=40)
@given(data=st.data())
def test_fuzz_buffer_operations_with_bad_arguments_raise_named_errors_or_round_trip(
        context, context_works, kind, data):
    check_buffer_op(data.draw(buffer_ops(kind), "op"), context, context_works)


@pytest.mark.slow
@LONG
@given(op=buffer_ops())
def test_fuzz_buffer_operations_long(context, context_works, op):
    check_buffer_op(op, context, context_works)


# -- the model itself, and the known defects ----------------------------------------------------

def test_the_program_model_on_a_hand_written_chain():
    program = Program("f32", (("*", "gain", False), ("-", 1.5, True)))
    env = {"xs": np.array([2.0, -1.0], np.float32), "ys": np.ones(2, np.float32),
           "gain": 3.0, "offset": 0.0}
    expected, bound = expected_output(program, env, 2, np.zeros(2, np.float32))
    np.testing.assert_array_equal(expected, [1.5 - 6.0, 1.5 + 3.0])
    np.testing.assert_array_equal(bound, [7.5, 4.5])


@pytest.fixture
def f32_call(context, rng):
    """A valid call of the first pooled program, as ``(kernel, args)``."""
    data = random_inputs("f32", 100, rng)
    args = [vd.asbuffer(data["out"]), vd.asbuffer(data["xs"]), vd.asbuffer(data["ys"]),
            data["gain"], data["offset"]]
    return kernel_for(POOL[0]), args


@pytest.mark.parametrize("expression", ["(out.shape[0], out.shape[1])", "out.size // 0",
                                        "{'n': 1}['m']", "int('many')"])
def test_failing_launch_expression_raises_invalid_argument_naming_exec_size(f32_call, rng,
                                                                            context_works,
                                                                            expression):
    kernel, args = f32_call
    with pytest.raises(errors.InvalidArgumentError, match="exec_size"):
        kernel(*args, exec_size=expression)
    context_works(rng)


@pytest.mark.parametrize("override, name", [
    ({"exec_size": 2**40}, "exec_size"), ({"exec_size": (1, 70000)}, "exec_size"),
    ({"workgroups": 2**32}, "workgroups"), ({"exec_size": "out.size +"}, "exec_size"),
    ({"workgroups": "(1,"}, "workgroups"), ({"offset": "bind"}, "'offset'")], ids=str)
def test_error_beyond_device_limits_or_binding_names_the_argument(f32_call, context_works, rng,
                                                                 override, name):
    kernel, args = f32_call
    if override.get("offset") == "bind":
        args[4] = vd.default_graph().bind_var("o")
        override = {}
    with pytest.raises(errors.InvalidArgumentError) as info:
        kernel(*args, **override)
    assert name in str(info.value), str(info.value)
    context_works(rng)
