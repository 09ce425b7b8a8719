"""Fuzz test of command graphs and copies: random programs of shader calls and ``vd.copy``
recorded into a ``vd.CommandGraph`` (``Var`` arguments fixed or bound with ``bind_var``), their
values set with ``set_var`` (one for every instance, one per instance, or left unset), submitted
with ``submit(instance_count=..., queue_index=...)``, reset and recorded again, and run without a
graph; and ``vd.copy(dst, src, dst_offset=, src_offset=, count=, graph=)`` between buffers of
many element types, on both of its paths (the copy kernel and vkCmdCopyBuffer).

Each drawn call either succeeds, and then the buffers hold what a numpy model computes (the
program run instance by instance with each instance's values, on the replicas the queue index
names; a copy moves exactly the numpy slice), or raises a vkdispatch error that is also a
``TypeError``/``ValueError``/``IndexError`` and whose message names the argument at fault (see
fuzzing.py: each drawn argument is *valid*, *lenient* or *bad*). Objects of a closed context are
the one exception, documented as ``InvalidStateError``. A refused call leaves every buffer as it
was (a refused recording leaves the graph as it was: its next submit runs only the rest); after
a refused ``set_var`` or ``submit`` the same graph, given valid values, computes the model; and
a small known kernel still matches numpy on fresh data.

Faults are parameters, so each is drawn in every run; the ``slow`` variants draw all of them
together, many more times. The two shaders are defined once, here; buffers are small (1-130
elements, around the local size of 64).

The two defects the fuzzing found (set_var values a Var cannot hold, unhashable names) are
fixed; tests at the end pin them.
"""
# No `from __future__ import annotations`: the shaders below annotate with module names.
import math
from typing import Any, NamedTuple

import numpy as np
import pytest
from fuzzing import BASE, LONG, Expect, attempt, attempt_closed
from helpers import random_array
from hypothesis import event, given, settings
from hypothesis import strategies as st

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch import errors
from vkdispatch.codegen.abbreviations import Buff, Const, Var, f32, i32, v2
from vkdispatch.execution_pipeline import buffer_copy

LOCAL_SIZE = 64
SIZES = (1, 5, 63, 64, 65, 130)  # around the local size: the bounds guard is exercised
FLOATS, INTS = 3, 2              # buffers of each program


# -- shaders (built once) -------------------------------------------------------------------------

@vd.shader("x.size", local_size=(LOCAL_SIZE, 1, 1))
def axpb(x: Buff[f32], y: Buff[f32], k: Var[f32], b: Var[v2]):
    i = vc.global_invocation_id().x
    x[i] = x[i] * k + y[i] * b.x + b.y


@vd.shader("x.size", local_size=(LOCAL_SIZE, 1, 1))
def lcg(x: Buff[i32], k: Var[i32], c: Const[i32]):
    i = vc.global_invocation_id().x
    x[i] = x[i] * 5 + k + c


@pytest.fixture
def context_works(affine):
    """``context_works(rng)`` checks that the known kernel ``x * k + b`` still matches numpy on
    fresh data, recorded into a new graph as well as run at once."""
    return lambda rng: assert_context_works(affine, rng)


def assert_context_works(affine, rng) -> None:
    data = random_floats(rng, 97)
    k, b = (float(np.float32(v)) for v in rng.uniform(0.5, 2, 2))
    buffer = vd.asbuffer(data)
    affine(buffer, k, b)
    graph = vd.CommandGraph()
    affine(buffer, k, b, graph=graph)
    graph.submit()
    graph.destroy()
    expected = (data * np.float32(k) + np.float32(b)) * np.float32(k) + np.float32(b)
    np.testing.assert_allclose(buffer.read(0), expected, rtol=1e-5, atol=1e-4)


class Elsewhere(NamedTuple):
    other: Any        # an open context beside the test's
    closed: dict      # "f"/"i" -> a buffer (float32/int32, 130 elements) of a closed context


@pytest.fixture(scope="module")
def elsewhere(context):
    other = vd.create_context(device_ids=context.device_ids)
    gone = vd.create_context(device_ids=context.device_ids)
    with gone:
        closed = {"f": vd.Buffer((130,), vd.float32), "i": vd.Buffer((130,), vd.int32)}
    gone.close()
    yield Elsewhere(other, closed)
    other.close()


def random_floats(rng, n: int) -> np.ndarray:
    """Floats in [-4, -0.25] or [0.25, 4]: never zero, and chains stay in range."""
    return (rng.uniform(0.25, 4, n) * rng.choice([-1, 1], n)).astype(np.float32)


# -- programs and their numpy model ----------------------------------------------------------

class Step(NamedTuple):
    """``axpb``: buffers (x, y) of the float ones, args (k, b); ``lcg``: buffers (x,) of the int
    ones, args (k, c); ``copy``: kind "f"/"i", buffers (dst, src), args (dst_offset,
    src_offset, count). A Var arg is ("fixed", value) or ("bound", name)."""

    op: str
    kind: str
    buffers: tuple
    args: tuple


# Bound names are typed (a name bound to Vars of two types is the "mixed" fault): k and k2 for
# float32, b for vec2, n for int32.
F32_NAMES, V2_NAMES, I32_NAMES = ("k", "k2"), ("b",), ("n",)
ALL_NAMES = F32_NAMES + V2_NAMES + I32_NAMES
F32 = st.one_of(st.floats(0.25, 2, width=32), st.floats(-2, -0.25, width=32))
I32 = st.integers(-2**31, 2**31 - 1)


def _var(fixed, names):
    return st.one_of(fixed.map(lambda v: ("fixed", v)),
                     st.sampled_from(names).map(lambda name: ("bound", name)))


@st.composite
def steps(draw, n: int, op: str | None = None):
    op = op or draw(st.sampled_from(["axpb", "axpb", "lcg", "copy"]))
    if op == "axpb":
        return Step("axpb", "f", (draw(st.integers(0, FLOATS - 1)),
                                  draw(st.integers(0, FLOATS - 1))),
                    (draw(_var(F32, F32_NAMES)), draw(_var(st.tuples(F32, F32), V2_NAMES))))
    if op == "lcg":
        return Step("lcg", "i", (draw(st.integers(0, INTS - 1)),),
                    (draw(_var(I32, I32_NAMES)), draw(I32)))
    kind = draw(st.sampled_from("fi"))
    count = draw(st.integers(1, n))
    src, dst = (draw(st.integers(0, (FLOATS if kind == "f" else INTS) - 1)) for _ in range(2))
    src_offset, dst_offset = (draw(st.integers(0, n - count)) for _ in range(2))
    if src == dst and abs(src_offset - dst_offset) < count:  # overlapping: another buffer
        dst = (src + 1) % (FLOATS if kind == "f" else INTS)
    return Step("copy", kind, (dst, src), (dst_offset, src_offset, count))


def bound_names(program) -> dict:
    """name -> "f32", "v2" or "i32" (or "mixed") for the names the program binds."""
    types: dict = {}
    for step in program:
        if step.op == "copy":
            continue
        slots = (("f32", "v2") if step.op == "axpb" else ("i32", None))
        for arg, slot in zip(step.args, slots):
            if slot is not None and arg[0] == "bound":
                types[arg[1]] = slot if types.get(arg[1], slot) == slot else "mixed"
    return types


class State(NamedTuple):
    f: list   # float buffers' values (float32), one array each
    i: list   # int buffers' values (int32)
    bound: list  # float buffers' magnitude bounds (float64): float results are compared to it

    def copy(self) -> "State":
        return State([a.copy() for a in self.f], [a.copy() for a in self.i],
                     [a.copy() for a in self.bound])


def value_of(arg, values: dict, instance: int, width: int):
    """A Var's value in ``instance``: fixed, set (one value, or one per instance) or unset
    (zeros)."""
    how, value = arg
    if how == "fixed":
        return np.asarray(value, np.float64).reshape(-1)
    if value not in values:
        return np.zeros(width)
    array = np.asarray(values[value], np.float64).reshape(-1)
    if array.size == width:
        return array
    return array.reshape(-1, width)[instance]


def run_model(program, state: State, values: dict, instances: int) -> State:
    """The program run ``instances`` times, instance by instance, on numpy arrays."""
    state = state.copy()
    with np.errstate(all="ignore"):
        for instance in range(instances):
            for step in program:
                apply_step(step, state, values, instance)
    return state


def apply_step(step: Step, state: State, values: dict, instance: int) -> None:
    if step.op == "axpb":
        x, y = step.buffers
        k = value_of(step.args[0], values, instance, 1)[0]
        b = value_of(step.args[1], values, instance, 2)
        k32, b32 = np.float32(k), b.astype(np.float32)
        xs, ys = state.f[x].astype(np.float64), state.f[y].astype(np.float64)
        state.bound[x] = state.bound[x] * abs(k32) + state.bound[y] * abs(b32[0]) + abs(b32[1])
        state.f[x] = (xs * k32 + ys * b32[0] + b32[1]).astype(np.float32)
    elif step.op == "lcg":
        (x,) = step.buffers
        k = int(value_of(step.args[0], values, instance, 1)[0])
        total = state.i[x].astype(np.int64) * 5 + k + step.args[1]
        state.i[x] = total.astype(np.int32)  # wraps as the GPU's int32 arithmetic does
    else:
        dst, src = step.buffers
        dst_offset, src_offset, count = step.args
        arrays = state.f if step.kind == "f" else state.i
        arrays[dst][dst_offset:dst_offset + count] = arrays[src][src_offset:src_offset + count]
        if step.kind == "f":
            state.bound[dst][dst_offset:dst_offset + count] = \
                state.bound[src][src_offset:src_offset + count]


def assert_state(buffers: dict, state: State, replica: int, what: str) -> None:
    for index, (buffer, expected) in enumerate(zip(buffers["i"], state.i)):
        np.testing.assert_array_equal(buffer.read(replica), expected,
                                      err_msg=f"{what}: int buffer {index}")
    for index, (buffer, expected, bound) in enumerate(zip(buffers["f"], state.f, state.bound)):
        got = buffer.read(replica)
        special = ~np.isfinite(expected)
        np.testing.assert_array_equal(got[special], expected[special],
                                      err_msg=f"{what}: float buffer {index} (inf, nan)")
        # A device may fuse or reorder: compare relative to the magnitudes involved.
        finite = ~special & np.isfinite(bound)
        scale = np.maximum(1.0, bound[finite])
        np.testing.assert_allclose(got[finite] / scale, expected[finite] / scale, rtol=0,
                                   atol=3e-6, err_msg=f"{what}: float buffer {index}")


def assert_replicas(buffers: dict, expected: State, start: State, queue_index: int,
                    queue_count: int, what: str) -> None:
    """The replicas ``queue_index`` names hold the model; the others are as they started."""
    if queue_index == -2:
        targets = set(range(queue_count))
    elif queue_index == -1:  # the least busy queue: one of them
        if queue_count == 1:
            targets = {0}
        else:
            changed = {q for q in range(queue_count) if not _holds(buffers, start, q)}
            assert len(changed) <= 1, f"{what}: submit_any ran on queues {changed}"
            targets = changed or {0}
    else:
        targets = {int(queue_index)}
    for replica in range(queue_count):
        assert_state(buffers, expected if replica in targets else start, replica,
                     f"{what} (replica {replica})")


def _holds(buffers: dict, state: State, replica: int) -> bool:
    return all(np.array_equal(b.read(replica), v, equal_nan=True)
               for b, v in zip(buffers["f"] + buffers["i"], state.f + state.i))


# -- graph cases ----------------------------------------------------------------------------------

GRAPH_FAULTS = ("none", "twice", "instance_count", "queue_index", "set_var name",
                "set_var value", "instance values", "mixed", "unset", "reset", "bind_var name",
                "bound elsewhere", "graph argument", "foreign", "closed context", "copy args",
                "destroyed buffer", "destroyed graph", "immediate")


class GraphCase(NamedTuple):
    n: int
    program: tuple
    fault: str
    label: Any
    target: int        # the step a recording fault applies to
    instances: int
    queue: int         # -2, -1 or a queue index (taken modulo the queue count)
    modes: tuple       # per name of ALL_NAMES: "single", "per instance" or "unset"
    seed: int


INSTANCE_COUNTS = {"None": (None, 1, "ok"), "np.int64(2)": (np.int64(2), 2, "lenient"),
                   **{k: (v, None, "bad") for k, v in {
                       "0": 0, "-1": -1, "True": True, "False": False, "2.0": 2.0, "'2'": "2",
                       "[2]": [2], "2**32": 2**32, "2**64": 2**64, "nan": math.nan}.items()}}
QUEUE_INDICES = ("count", "count+3", "-3", "2.5", "'0'", "True", "None", "2**70", "np.int64")
# Values for set_var, per type of the name: (value, Expect kind, what the model uses).
# Values a Var cannot hold (a float32 beyond its range; for int32 fractions, NaN, floats at
# all, values beyond int32) were taken by set_var and refused at submit (a fixed defect): the
# test at the end covers them.
SET_VALUES = {
    "f32": {"nan": (math.nan, "ok"), "inf": (math.inf, "ok"), "-inf": (-math.inf, "ok"),
            "np.float32": (np.float32(1.5), "ok"), "np.float64": (np.float64(-0.75), "ok"),
            "int": (3, "ok"), "[x]": ([1.25], "ok"), "True": (True, "lenient"),
            "'1'": ("1", "bad"), "None": (None, "bad"), "1j": (1j, "bad"),
            "[1, None]": ([1.0, None], "bad"), "2**200": (2**200, "bad"),
            "{}": ({}, "bad"), "np.array(['1'])": (np.array(["1"]), "bad")},
    "v2": {"tuple": ((0.5, -1.5), "ok"), "array": (np.array([1.0, 2.0], np.float32), "ok"),
           "3 values": ([1.0, 2.0, 3.0], "bad"), "1 value": ([1.0], "bad"),
           "'ab'": ("ab", "bad"), "None": (None, "bad"), "complex": ([1j, 2.0], "bad")},
    "i32": {"int": (-123456, "ok"), "np.int32": (np.int32(2**31 - 1), "ok"),
            "np.int64": (np.int64(-2**31), "ok"), "[x]": ([7], "ok"),
            "True": (True, "lenient"), "'3'": ("3", "bad"), "None": (None, "bad"),
            "1j": (1j, "bad"), "[1, None]": ([1, None], "bad")},
}
BAD_BIND_NAMES = {"3": 3, "None": None, "b'k'": b"k", "('k',)": ("k",), "1.5": 1.5}
BAD_GRAPHS = {"'graph'": "graph", "3": 3, "object()": object(), "array": np.zeros(2),
              "vd.float32": vd.float32}
COPY_ARGS = ("negative dst_offset", "negative src_offset", "float count", "zero count",
             "count past src", "offset past dst", "np.int64 count", "overlap", "dtype",
             "not a buffer", "str offset", "None count")


@st.composite
def graph_cases(draw, fault: str | None = None):
    fault = fault or draw(st.sampled_from(GRAPH_FAULTS))
    n = draw(st.sampled_from(SIZES))
    program = draw(st.lists(steps(n), min_size=1, max_size=4))
    # Faults about bound names need one: the first step binds them.
    if fault in ("set_var value", "instance values", "unset", "reset"):
        first = draw(st.sampled_from(["axpb", "lcg"]))
        step = draw(steps(n, first))
        args = (("bound", "k"), ("bound", "b")) if first == "axpb" else \
            (("bound", "n"), step.args[1])
        program.insert(0, step._replace(args=args))
    if fault == "mixed":  # "k" bound to a float32 Var and to an int32 Var
        program.insert(0, draw(steps(n, "axpb"))._replace(args=(("bound", "k"), ("fixed",
                                                                                 (1.0, 0.5)))))
        program.insert(1, draw(steps(n, "lcg"))._replace(args=(("bound", "k"), draw(I32))))
    if fault in ("bind_var name", "bound elsewhere", "graph argument", "foreign",
                 "closed context", "copy args", "destroyed buffer"):
        ops = {"bind_var name": ["axpb", "lcg"], "bound elsewhere": ["axpb", "lcg"],
               "copy args": ["copy"]}.get(fault, ["axpb", "lcg", "copy"])
        program.append(draw(steps(n, draw(st.sampled_from(ops)))))
    labels = {"instance_count": sorted(INSTANCE_COUNTS), "queue_index": QUEUE_INDICES,
              "set_var name": ["'zz'", "3", "''", "'K'", "None"],
              "bind_var name": sorted(BAD_BIND_NAMES), "graph argument": sorted(BAD_GRAPHS),
              "copy args": COPY_ARGS, "foreign": ["buffer", "graph"],
              "closed context": [0, 1], "destroyed buffer": [0, 1],
              "set_var value": ["value"], "instance values": [-1, 1],
              "bound elsewhere": ["other graph", "Const", "Buff"]}
    label = draw(st.sampled_from(labels[fault])) if fault in labels else None
    if fault == "set_var value":
        name_type = bound_names(program)[program[0].args[0][1]]
        label = (name_type, draw(st.sampled_from(sorted(SET_VALUES[name_type]))))
    modes = tuple(draw(st.sampled_from(["single", "per instance", "unset"]))
                  for _ in ALL_NAMES)
    return GraphCase(n, tuple(program), fault, label, len(program) - 1,
                     draw(st.integers(1, 3)), draw(st.sampled_from([-2, -1, 0, 1, 2])),
                     modes, draw(st.integers(0, 2**32 - 1)))


def draw_values(case: GraphCase, program, rng, instances: int) -> dict:
    """Random values for the bound names, as their modes say (never zeros)."""
    values = {}
    modes = dict(zip(ALL_NAMES, case.modes))
    types = bound_names(program)
    for name, kind in sorted(types.items()):
        mode = modes[name]
        if mode == "unset" and case.fault != "unset":
            continue
        if case.fault == "unset" and name == program[0].args[0][1]:
            continue  # the first step's name stays unset: it reads zeros
        count = instances if mode == "per instance" else 1
        if kind == "f32":
            value = random_floats(rng, count) / 2
        elif kind == "v2":
            value = (random_floats(rng, 2 * count) / 2).reshape(count, 2)
        elif kind == "mixed":  # integers both Vars hold exactly
            value = rng.integers(-1000, 1000, count).astype(np.int64)
        else:
            value = random_array(rng, (count,), np.int32)
        values[name] = value if count > 1 or kind == "v2" else value.reshape(-1)[0].item()
        if kind == "v2" and count == 1:
            values[name] = tuple(float(v) for v in value.reshape(-1))
    return values


def make_buffers(n: int, rng):
    hosts = {"f": [random_floats(rng, n) for _ in range(FLOATS)],
             "i": [random_array(rng, (n,), np.int32) for _ in range(INTS)]}
    buffers = {kind: [vd.asbuffer(h) for h in arrays] for kind, arrays in hosts.items()}
    start = State(hosts["f"], hosts["i"], [np.abs(h).astype(np.float64) for h in hosts["f"]])
    return buffers, start


def call_step(step: Step, buffers: dict, graph, override: dict | None = None):
    """Calls (records) one step; ``override`` replaces arguments by name."""
    override = override or {}
    target = {"graph": graph} if graph is not None else {}
    if "graph" in override:
        target = {"graph": override["graph"]}
    if step.op == "copy":
        dst, src = (buffers[step.kind][i] for i in step.buffers)
        dst_offset, src_offset, count = step.args
        named = {"dst": dst, "src": src, "dst_offset": dst_offset, "src_offset": src_offset,
                 "count": count}
        named.update({k: v for k, v in override.items() if k != "graph"})
        dst, src = named.pop("dst"), named.pop("src")
        vd.copy(dst, src, **named, **target)
        return
    if step.op == "axpb":
        x, y = (buffers["f"][i] for i in step.buffers)
        named = {"x": x, "y": y, "k": _arg(step.args[0], graph), "b": _arg(step.args[1], graph)}
        shader = axpb
    else:
        named = {"x": buffers["i"][step.buffers[0]], "k": _arg(step.args[0], graph),
                 "c": step.args[1]}
        shader = lcg
    named.update({k: v for k, v in override.items() if k != "graph"})
    shader(*named.values(), **target)


def _arg(arg, graph):
    how, value = arg
    if how == "fixed":
        return float(value) if isinstance(value, float) else value
    return graph.bind_var(value)


def recording_fault(case: GraphCase, step: Step, buffers: dict, graph, elsewhere, rng):
    """``(override, Expect)`` for the recording of ``step`` (the last), or None for a closed
    context (checked apart)."""
    fault, label = case.fault, case.label
    params = {"axpb": ("x", "y"), "lcg": ("x",), "copy": ("dst", "src")}[step.op]
    param = params[rng.integers(len(params))]
    quoted = param if step.op == "copy" else f"'{param}'"
    if fault == "bind_var name":
        return {"k": _LazyBind(graph, BAD_BIND_NAMES[label])}, Expect.bad("name")
    if fault == "bound elsewhere":
        if label == "other graph":  # a name is a name: the graph recording it binds it
            other = vd.CommandGraph()
            placeholder = other.bind_var("k" if step.op == "axpb" else "n")
            other.destroy()
            return {"k": placeholder}, Expect.ok()
        if label == "Const" and step.op == "lcg":
            return {"c": graph.bind_var("c")}, Expect.bad("'c'")
        return {"x": graph.bind_var("x")}, Expect.bad("'x'")
    if fault == "graph argument":
        return {"graph": BAD_GRAPHS[label]}, Expect.bad("graph")
    if fault == "foreign":
        if label == "graph":  # a graph of another context, with this context's buffers
            with elsewhere.other:
                foreign_graph = vd.CommandGraph()
            return {"graph": foreign_graph}, Expect.bad(*params) if step.op == "copy" else \
                Expect.bad(*(f"'{p}'" for p in params))
        index = step.buffers[params.index(param)]
        like = buffers[step.kind][index]
        with elsewhere.other:
            stranger = vd.Buffer(like.shape, like.var_type)
        return {param: stranger}, Expect.bad(quoted)
    if fault == "copy args":
        return copy_args_fault(label, step, buffers)
    return {}, Expect.ok()


class _LazyBind:
    """bind_var with a bad name, called when the argument is evaluated (inside the attempt)."""

    def __init__(self, graph, name):
        self.graph, self.name = graph, name


def copy_args_fault(label: str, step: Step, buffers: dict):
    dst_offset, src_offset, count = step.args
    dst, src = (buffers[step.kind][i] for i in step.buffers)
    n = dst.size
    if label == "negative dst_offset":
        return {"dst_offset": -1}, Expect.bad("dst_offset")
    if label == "negative src_offset":
        return {"src_offset": -count}, Expect.bad("src_offset")
    if label == "float count":
        return {"count": float(count)}, Expect.bad("count")
    if label == "zero count":
        return {"count": 0}, Expect.bad("count")
    if label == "count past src":
        return {"count": n - src_offset + 1}, Expect.bad("src", "count")
    if label == "offset past dst":
        return {"dst_offset": n - count + 1}, Expect.bad("dst", "dst_offset")
    if label == "np.int64 count":
        return {"count": np.int64(count)}, Expect.lenient("count")
    if label == "overlap":
        if n < 2:  # no two overlapping ranges differ: the same range onto itself
            return {"dst": src, "dst_offset": 0, "src_offset": 0, "count": 1}, \
                Expect.bad("overlap", "dst_offset")
        return {"dst": src, "dst_offset": 1, "src_offset": 0, "count": n - 1}, \
            Expect.bad("overlap", "dst_offset")
    if label == "dtype":
        other = buffers["i" if step.kind == "f" else "f"][0]
        return {"src": other}, Expect.bad("dst", "src")
    if label == "not a buffer":
        return {"src": np.zeros(n, np.float32)}, Expect.bad("src")
    if label == "str offset":
        return {"src_offset": "0"}, Expect.bad("src_offset")
    # "None count": the rest of src from src_offset, which dst may not hold from dst_offset
    rest = src.size - src_offset
    if dst_offset + rest > dst.size:
        return {"count": None}, Expect.bad("dst")
    if dst is src and src_offset < dst_offset + rest and dst_offset < src_offset + rest:
        return {"count": None}, Expect.bad("overlap", "dst_offset")
    return {"count": None}, Expect.ok()


def check_graph(case: GraphCase, context, elsewhere: Elsewhere, context_works) -> None:
    fault = case.fault
    rng = np.random.default_rng(case.seed)
    event(f"fault: {fault}")
    queues = context.queue_count
    buffers, start = make_buffers(case.n, rng)
    program = list(case.program)
    if fault == "immediate":
        check_immediate(case, program, buffers, start, queues, rng)
        context_works(rng)
        return
    graph = vd.CommandGraph()
    try:
        run_graph_case(case, program, graph, buffers, start, queues, elsewhere, rng)
    finally:
        graph.destroy()
    context_works(rng)


def run_graph_case(case: GraphCase, program: list, graph, buffers, start: State, queues: int,
                   elsewhere: Elsewhere, rng) -> None:
    fault, label = case.fault, case.label
    # 1. Record; a recording fault applies to the last step, which is dropped if refused.
    recorded = []
    for index, step in enumerate(program):
        if index == case.target and fault == "closed context":
            check_closed_recording(step, buffers, graph, elsewhere, label)
            continue
        override, expect = ({}, Expect.ok())
        if index == case.target:
            override, expect = recording_fault(case, step, buffers, graph, elsewhere, rng)
        what = f"record {step} [{fault}: {label}]"
        passed, _ = attempt(lambda: call_step(step, buffers, graph, _resolve(override)),
                            expect, what)
        if passed:
            recorded.append(_as_recorded(step, override, buffers))
    instances = case.instances
    if fault == "instance_count" and INSTANCE_COUNTS[label][1] is not None:
        instances = INSTANCE_COUNTS[label][1]  # what an accepted value means: values fit it
    queue_index = case.queue if case.queue < 0 else case.queue % queues
    values = draw_values(case, recorded, rng, instances)
    names = bound_names(recorded)
    for name, value in values.items():
        if name in names:
            graph.set_var(name, value)
    values = {k: v for k, v in values.items() if k in names}
    submit = {"instance_count": instances, "queue_index": queue_index}
    expect = Expect.ok()
    what = f"{fault} [{label}] n={case.n}, {instances} instance(s), queue {queue_index}"
    before_set: dict = {}
    # 2. Faults of set_var and submit.
    if fault == "instance_count":
        value, _, kind = INSTANCE_COUNTS[label]
        submit["instance_count"] = value
        expect = {"ok": Expect.ok(), "lenient": Expect.lenient("instance_count"),
                  "bad": Expect.bad("instance_count")}[kind]
    elif fault == "queue_index":
        submit["queue_index"] = {"count": queues, "count+3": queues + 3, "-3": -3, "2.5": 2.5,
                                 "'0'": "0", "True": True, "None": None, "2**70": 2**70,
                                 "np.int64": np.int64(queues - 1)}[label]
        expect = Expect.ok() if label == "np.int64" else Expect.bad("queue_index")
        if label == "np.int64":
            queue_index = queues - 1
    elif fault == "set_var name":
        bad_name = {"'zz'": "zz", "3": 3, "''": "", "'K'": "K", "None": None}[label]
        attempt(lambda: graph.set_var(bad_name, 1.0), Expect.bad(f"'{bad_name}'"),
                f"set_var({bad_name!r})")  # refused, it changed nothing: the submit runs
    elif fault == "set_var value":
        name = program[0].args[0][1]
        kind, which = label
        value, how = SET_VALUES[kind][which]
        expect = {"ok": Expect.ok(), "lenient": Expect.lenient(f"'{name}'"),
                  "bad": Expect.bad(f"'{name}'")}[how]
        before_set = {name: values.get(name)}
        if expect.model:
            values[name] = value
        submit["_set"] = (name, value)
    elif fault == "instance values":  # values for one instance too many or too few
        name = program[0].args[0][1]
        width = 2 if names[name] == "v2" else 1
        count = instances + 1 if label > 0 else instances - 1 if instances > 2 else instances + 2
        wrong = random_floats(rng, width * count) / 2
        if names[name] == "i32":
            wrong = rng.integers(-1000, 1000, width * count)
        expect = Expect.bad(f"'{name}'")
        before_set = {name: values.get(name)}
        submit["_set"] = (name, wrong)
    elif fault == "reset":
        graph.reset()
        name = next(iter(names))
        attempt(lambda: graph.set_var(name, 1.0), Expect.bad(f"'{name}'"),
                "set_var after reset")
        graph.submit()  # nothing recorded: nothing runs
        for replica in range(queues):
            assert_state(buffers, start, replica, f"{what}: a reset graph ran")
        for step in recorded:  # recorded again: the same program
            call_step(step, buffers, graph)
        for name, value in values.items():
            graph.set_var(name, value)
    elif fault == "destroyed buffer":
        step = recorded[-1] if recorded else program[-1]
        doomed = buffers[step.kind][step.buffers[label % len(step.buffers)]]
        doomed.destroy()
        expect = Expect.bad("destroyed")
    elif fault == "destroyed graph":
        graph.destroy()
        expect = Expect.bad("CommandGraph")
    setter = submit.pop("_set", None)

    def run():
        if setter is not None:
            graph.set_var(*setter)
        graph.submit(**submit)
        if fault == "twice":
            graph.submit(**submit)

    passed, _ = attempt(run, expect, f"submit {what}")
    runs = 2 if fault == "twice" else 1
    if passed:
        expected = start
        for _ in range(runs):
            expected = run_model(recorded, expected, values, instances)
        live = {k: [b for b in v if not b.destroyed] for k, v in buffers.items()}
        assert_replicas(live, expected, start, queue_index, queues, what)
        return
    live = {k: [b for b in v if not b.destroyed] for k, v in buffers.items()}
    kept = _live_state(start, buffers)
    for replica in range(queues):
        assert_state(live, kept, replica, f"{what}: a refused submit ran")
    if fault in ("destroyed buffer", "destroyed graph"):
        return
    # 3. The same graph, given valid values, computes the model.
    for name, value in before_set.items():
        if value is not None:
            graph.set_var(name, value)
        else:
            graph.set_var(name, 0 if names[name] != "v2" else (0.0, 0.0))
            values[name] = 0 if names[name] != "v2" else (0.0, 0.0)
    graph.submit(instance_count=instances, queue_index=queue_index
                 if fault != "queue_index" else -2)
    expected = run_model(recorded, start, values, instances)
    assert_replicas(buffers, expected, start, queue_index if fault != "queue_index" else -2,
                    queues, f"{what}: after the refusal")


def _resolve(override: dict) -> dict:
    """Evaluates the lazy bind_var calls (inside the attempt, where their errors count)."""
    return {k: (v.graph.bind_var(v.name) if isinstance(v, _LazyBind) else v)
            for k, v in override.items()}


def _as_recorded(step: Step, override: dict, buffers: dict) -> Step:
    """The step a successful recording with ``override`` recorded."""
    if step.op == "copy":
        dst_offset, src_offset, count = step.args
        dst_offset = int(override.get("dst_offset", dst_offset))
        src_offset = int(override.get("src_offset", src_offset))
        if "count" in override:
            count = override["count"]
            src_buffer = buffers[step.kind][step.buffers[1]]
            count = src_buffer.size - src_offset if count is None else int(count)
        return step._replace(args=(dst_offset, src_offset, count))
    if "k" in override:  # a placeholder made by another graph: bound by name in this one
        return step._replace(args=(("bound", override["k"].name),) + step.args[1:])
    return step


def _live_state(start: State, buffers: dict) -> State:
    """``start`` without the destroyed buffers."""
    f = [v for v, b in zip(start.f, buffers["f"]) if not b.destroyed]
    bound = [v for v, b in zip(start.bound, buffers["f"]) if not b.destroyed]
    i = [v for v, b in zip(start.i, buffers["i"]) if not b.destroyed]
    return State(f, i, bound)


def check_closed_recording(step: Step, buffers: dict, graph, elsewhere: Elsewhere,
                           which: int) -> None:
    """A buffer of a closed context in a call recorded into the graph: refused, naming it."""
    params = {"axpb": ("x", "y"), "lcg": ("x",), "copy": ("dst", "src")}[step.op]
    param = params[which % len(params)]
    kind = step.kind
    closed = elsewhere.closed[kind]
    name = param if step.op == "copy" else f"'{param}'"
    attempt_closed(lambda: call_step(step, buffers, graph, {param: closed}), (name,),
                   f"record {step} with a closed-context {param}")


def check_immediate(case: GraphCase, program: list, buffers: dict, start: State, queues: int,
                    rng) -> None:
    """The program run at once, without a graph: bound Vars are refused (naming the argument)
    on the default graph; the other steps run as the model says."""
    state = start.copy()
    values: dict = {}
    for step in program:
        bound = [arg for arg in step.args[:2] if step.op != "copy" and isinstance(arg, tuple)
                 and arg[0] == "bound"]
        what = f"immediate {step}"
        if bound:  # either bound argument may be named
            parameters = [f"'{p}'" for p, arg in zip(("k", "b"), step.args)
                          if isinstance(arg, tuple) and arg[0] == "bound"]
            default = vd.default_graph()
            attempt(lambda: call_step(step, buffers, default), Expect.bad(*parameters), what)
            continue
        call_step(step, buffers, None)
        apply_step(step, state, values, 0)
        assert_state(buffers, state, 0, what)
    for replica in range(queues):
        assert_state(buffers, state, replica, f"immediate program (replica {replica})")


@pytest.mark.parametrize("fault", GRAPH_FAULTS)  # each kind in every run
@settings(BASE, max_examples=20)
@given(data=st.data())
def test_fuzz_graphs_raise_named_errors_or_compute_the_model(context, elsewhere, context_works,
                                                            fault, data):
    check_graph(data.draw(graph_cases(fault), "case"), context, elsewhere, context_works)


@pytest.mark.slow
@LONG
@given(case=graph_cases())
def test_fuzz_graphs_long(context, elsewhere, context_works, case):
    check_graph(case, context, elsewhere, context_works)


# -- vd.copy between buffers ----------------------------------------------------------------------

# name -> (var_type, numpy scalar, element shape)
COPY_TYPES = {"float32": (vd.float32, np.float32, ()), "int32": (vd.int32, np.int32, ()),
              "uint32": (vd.uint32, np.uint32, ()), "float16": (vd.float16, np.float16, ()),
              "int16": (vd.int16, np.int16, ()), "uint16": (vd.uint16, np.uint16, ()),
              "float64": (vd.float64, np.float64, ()), "int64": (vd.int64, np.int64, ()),
              "complex64": (vd.complex64, np.complex64, ()),
              "vec2": (vd.vec2, np.float32, (2,)), "vec4": (vd.vec4, np.float32, (4,)),
              "ivec2": (vd.ivec2, np.int32, (2,)), "uvec4": (vd.uvec4, np.uint32, (4,))}
COPY_FAULTS = ("none", "defaults", "offsets", "count", "dtype", "same buffer", "not a buffer",
               "destroyed", "other context", "closed context", "graph")
COPY_LABELS = {
    "offsets": ("negative", "float", "np.int64", "None", "bool", "str", "past the end",
                "2**70", "2**64 - 1"),
    "count": ("zero", "negative", "float", "np.int64", "str", "past src", "past dst", "2**64",
              "nan"),
    "defaults": ("no count", "no offsets", "nothing", "rest past dst", "src_offset at the end"),
    "dtype": tuple(COPY_TYPES),
    "same buffer": ("disjoint", "overlapping", "identical"),
    "not a buffer": ("None", "array", "list", "str", "int", "bound name"),
    "destroyed": ("dst", "src"), "other context": ("dst", "src"),
    "closed context": ("dst", "src"),
    "graph": ("str", "int", "object", "array", "destroyed graph"),
}
PATHS = {
    # The copy kernel wherever the ranges are whole words (what GPUs use; lavapipe gets it too).
    "kernel": lambda context, sizes, ranges: next(
        (word for word in (16, 4) if all(v % word == 0 for v in ranges)), None),
    "vkCmdCopyBuffer": lambda *args: None,  # what CPU devices use
}


class CopyCase(NamedTuple):
    type_name: str
    n_dst: int
    n_src: int
    count: int         # a valid count ...
    dst_offset: int    # ... and offsets, in elements
    src_offset: int
    fault: str
    label: Any
    use_graph: bool
    path: str
    seed: int


@st.composite
def copy_cases(draw, fault: str | None = None):
    fault = fault or draw(st.sampled_from(COPY_FAULTS))
    n_dst, n_src = draw(st.integers(1, 130)), draw(st.integers(1, 130))
    if fault == "same buffer":
        n_src = n_dst = max(n_dst, 2)
    count = draw(st.integers(1, min(n_dst, n_src)))
    dst_offset = draw(st.integers(0, n_dst - count))
    src_offset = draw(st.integers(0, n_src - count))
    return CopyCase(draw(st.sampled_from(sorted(COPY_TYPES))), n_dst, n_src, count, dst_offset,
                    src_offset, fault,
                    draw(st.sampled_from(COPY_LABELS[fault])) if fault in COPY_LABELS else None,
                    draw(st.booleans()), draw(st.sampled_from(sorted(PATHS))),
                    draw(st.integers(0, 2**32 - 1)))


def filled(type_name: str, n: int, rng):
    var_type, np_type, shape = COPY_TYPES[type_name]
    host = random_array(rng, (n, *shape), np_type)
    buffer = vd.Buffer((n,), var_type)
    buffer.write(host)
    return buffer, host


def _copy_fault(case: CopyCase, dst, src, kwargs: dict, elsewhere: Elsewhere, rng):
    """``(dst, src, kwargs, Expect, the range copied (dst_offset, src_offset, count) or
    None)``."""
    fault, label = case.fault, case.label
    moved = (case.dst_offset, case.src_offset, case.count)
    if fault == "defaults":
        if label == "no count":  # the rest of src, where dst holds it
            kwargs.pop("count")
            rest = case.n_src - case.src_offset
            moved = (case.dst_offset, case.src_offset, rest)
            fits = case.dst_offset + rest <= case.n_dst
            return dst, src, kwargs, Expect.ok() if fits else Expect.bad("dst"), moved
        if label == "no offsets":
            kwargs.pop("dst_offset")
            kwargs.pop("src_offset")
            return dst, src, kwargs, Expect.ok(), (0, 0, case.count)
        if label == "nothing":
            kwargs.clear()
            fits = case.n_src <= case.n_dst
            return dst, src, kwargs, Expect.ok() if fits else Expect.bad("dst"), \
                (0, 0, case.n_src)
        if label == "rest past dst":  # the rest of src from dst's last element
            kwargs.pop("count")
            kwargs["dst_offset"] = case.n_dst - 1
            if case.n_src - case.src_offset > 1:
                return dst, src, kwargs, Expect.bad("dst"), None
            return dst, src, kwargs, Expect.ok(), (case.n_dst - 1, case.src_offset, 1)
        kwargs["src_offset"] = case.n_src  # no element left: count 0, refused
        kwargs.pop("count")
        return dst, src, kwargs, Expect.bad("count", "src_offset"), None
    if fault == "offsets":
        key = "dst_offset" if rng.integers(2) else "src_offset"
        end = key[:3]
        size = case.n_dst if end == "dst" else case.n_src
        value = {"negative": -1, "float": float(kwargs[key]), "np.int64": np.int64(kwargs[key]),
                 "None": None, "bool": True, "str": "0", "past the end": size,
                 "2**70": 2**70, "2**64 - 1": 2**64 - 1}[label]
        kwargs[key] = value
        if label == "np.int64":  # refused today (shapes and exec_size take numpy integers)
            return dst, src, kwargs, Expect.lenient(key), moved
        return dst, src, kwargs, Expect.bad(key, end), None
    if fault == "count":
        value = {"zero": 0, "negative": -1, "float": float(case.count),
                 "np.int64": np.int64(case.count), "str": str(case.count),
                 "past src": case.n_src - case.src_offset + 1,
                 "past dst": case.n_dst - case.dst_offset + 1, "2**64": 2**64,
                 "nan": math.nan}[label]
        kwargs["count"] = value
        if label == "np.int64":
            return dst, src, kwargs, Expect.lenient("count"), moved
        if label == "past dst" and value <= case.n_src - case.src_offset:
            return dst, src, kwargs, Expect.bad("dst"), None
        return dst, src, kwargs, Expect.bad("count", "src"), None
    if fault == "dtype":
        other, _ = filled(label, case.n_src, rng)
        if COPY_TYPES[label][0] is dst.var_type:  # the same type: a valid copy
            return dst, other, kwargs, Expect.ok(), moved
        return dst, other, kwargs, Expect.bad("dst", "src"), None
    if fault == "same buffer":
        n = case.n_dst
        if label == "disjoint":
            count = max(1, n // 3)
            kwargs.update(dst_offset=n - count, src_offset=0, count=count)
            return dst, dst, kwargs, Expect.ok(), (n - count, 0, count)
        if label == "overlapping" and n >= 3:  # (with 2 elements, only identical ranges do)
            kwargs.update(dst_offset=1, src_offset=0, count=n - 1)
        else:
            kwargs.update(dst_offset=0, src_offset=0, count=n)
        return dst, dst, kwargs, Expect.bad("overlap", "dst_offset"), None
    if fault == "not a buffer":
        graph = vd.CommandGraph()
        stranger = {"None": None, "array": np.zeros(4, np.float32), "list": [1.0, 2.0],
                    "str": "buffer", "int": 3, "bound name": graph.bind_var("b")}[label]
        graph.destroy()
        if rng.integers(2):
            return stranger, src, kwargs, Expect.bad("dst"), None
        return dst, stranger, kwargs, Expect.bad("src"), None
    if fault in ("destroyed", "other context"):
        like = dst if label == "dst" else src
        with elsewhere.other if fault == "other context" else _Here():
            stand_in = vd.Buffer(like.shape, like.var_type)
        if fault == "destroyed":
            stand_in.destroy()
        if label == "dst":
            return stand_in, src, kwargs, Expect.bad("dst"), None
        return dst, stand_in, kwargs, Expect.bad("src"), None
    if fault == "graph":
        if label == "destroyed graph":
            doomed = vd.CommandGraph()
            doomed.destroy()
            kwargs["graph"] = doomed
            return dst, src, kwargs, Expect.bad("CommandGraph"), None
        kwargs["graph"] = {"str": "graph", "int": 3, "object": object(),
                           "array": np.zeros(2)}[label]
        return dst, src, kwargs, Expect.bad("graph"), None
    return dst, src, kwargs, Expect.ok(), moved


class _Here:
    """A ``with`` block that stays in the current context."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def check_copy(case: CopyCase, context, elsewhere: Elsewhere, monkeypatch, context_works):
    rng = np.random.default_rng(case.seed)
    event(f"fault: {case.fault}")
    monkeypatch.setattr(buffer_copy, "word_bytes", PATHS[case.path])
    if case.fault == "closed context":
        closed = elsewhere.closed["f"]
        live = vd.Buffer((130,), vd.float32)
        ends = (closed, live) if case.label == "dst" else (live, closed)
        attempt_closed(lambda: vd.copy(*ends), (case.label,), f"copy with a closed {case.label}")
        context_works(rng)
        return
    dst, dst_host = filled(case.type_name, case.n_dst, rng)
    src, src_host = filled(case.type_name, case.n_src, rng)
    kwargs = {"dst_offset": case.dst_offset, "src_offset": case.src_offset,
              "count": case.count}
    graph = vd.CommandGraph() if case.use_graph else None
    if graph is not None:
        kwargs["graph"] = graph
    dst, src, kwargs, expect, moved = _copy_fault(case, dst, src, dict(kwargs), elsewhere, rng)
    readable = lambda end: isinstance(end, vd.Buffer) and not end.destroyed and \
        end.context is context  # noqa: E731
    dst_before = dst.read() if readable(dst) else None
    src_before = src.read() if readable(src) else None
    what = (f"copy {case.type_name} [{case.fault}: {case.label}] n_dst={case.n_dst} "
            f"n_src={case.n_src} {({k: v for k, v in kwargs.items() if k != 'graph'})} "
            f"({case.path}{', graph' if graph is not None else ''})")
    submitted = kwargs.get("graph")
    submitted = submitted if isinstance(submitted, vd.CommandGraph) and \
        not submitted.destroyed else None

    def run():
        vd.copy(dst, src, **kwargs)
        if submitted is not None:
            submitted.submit()

    passed, _ = attempt(run, expect, what)
    if passed:
        dst_offset, src_offset, count = moved
        expected = dst_before.copy()
        # Every replica copies between its own replicas: numpy's slice, on each.
        expected[:, dst_offset:dst_offset + count] = \
            src_before[:, src_offset:src_offset + count]
        np.testing.assert_array_equal(dst.read(), expected, err_msg=what)
    elif dst_before is not None:
        if submitted is not None:  # the refused copy recorded nothing
            submitted.submit()
        np.testing.assert_array_equal(dst.read(), dst_before, err_msg=f"{what}: it ran")
    if src_before is not None and src is not dst:
        np.testing.assert_array_equal(src.read(), src_before, err_msg=f"{what}: src changed")
    if graph is not None:
        graph.destroy()
    context_works(rng)


@pytest.mark.parametrize("fault", COPY_FAULTS)
@settings(BASE, max_examples=20)
@given(data=st.data())
def test_fuzz_copies_raise_named_errors_or_move_the_numpy_slice(context, elsewhere, monkeypatch,
                                                               context_works, fault, data):
    check_copy(data.draw(copy_cases(fault), "case"), context, elsewhere, monkeypatch,
               context_works)


@pytest.mark.slow
@LONG
@given(case=copy_cases())
def test_fuzz_copies_long(context, elsewhere, monkeypatch, context_works, case):
    check_copy(case, context, elsewhere, monkeypatch, context_works)


# -- defects the fuzzing found, fixed --------------------------------------------------------


@pytest.mark.parametrize("name, value", [
    ("n", 2.5), ("n", 2.0), ("n", 2**31), ("n", math.nan), ("n", np.float32(3.0)),
    ("k", 1e39), ("k", np.float64(-1e300)), ("b", [1e39, 1.0])], ids=repr)
def test_set_var_values_its_var_cannot_hold_are_refused_naming_it(context, rng, name, value):
    """Fixed: set_var took them, and the submit refused them naming a generated member."""
    start_f, start_i = random_floats(rng, 70), random_array(rng, (70,), np.int32)
    x, y, ints = vd.asbuffer(start_f), vd.asbuffer(random_floats(rng, 70)), vd.asbuffer(start_i)
    graph = vd.CommandGraph()
    try:
        axpb(x, y, graph.bind_var("k"), graph.bind_var("b"), graph=graph)
        lcg(ints, graph.bind_var("n"), 3, graph=graph)
        parameter = {"n": "'k'", "k": "'k'", "b": "'b'"}[name]  # lcg's k takes n
        with pytest.raises(ValueError) as info:
            graph.set_var(name, value)
            graph.submit()
        if f"'{name}'" not in str(info.value) and parameter not in str(info.value):
            pytest.fail(f"names neither '{name}' nor {parameter}: {info.value}")
        np.testing.assert_array_equal(x.read(0), start_f)  # nothing ran
        np.testing.assert_array_equal(ints.read(0), start_i)
    finally:
        graph.destroy()


@pytest.mark.parametrize("name", [["k"], {"k": 1}], ids=["list", "dict"])
def test_set_var_with_an_unhashable_name_raises_our_error(context, name):
    """Fixed: a bare TypeError."""
    graph = vd.CommandGraph()
    try:
        with pytest.raises(errors.VkDispatchError, match="name|bound"):
            graph.set_var(name, 1.0)
    finally:
        graph.destroy()
