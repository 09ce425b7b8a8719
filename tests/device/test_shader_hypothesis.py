"""Property test on the device: random arithmetic expression trees are traced into a
``@vd.shader`` whose body is ``out[i] = <expr of x[i], y[i], c>``, run over random input
buffers, and compared element-wise with a numpy model evaluating the same tree on the host.

Only operations that numpy evaluates the same way are generated:

* float32: ``+ - *``, ``vc.min``/``vc.max``/``vc.abs``, unary minus, small exactly
  representable literals, and division by literals with ``|d| >= 0.5`` (never by a value, so
  no inf/NaN). Inputs lie in [-4, 4] and the depth is at most 4, so nothing overflows. A GPU may
  fuse ``a * b + c`` or compute ``x / d`` as ``x * (1 / d)`` (2.5 ulp in Vulkan), so each
  element is compared after dividing by ``max(1, bound)``, where ``bound`` is the same tree
  evaluated on magnitudes (``|a| + |b|`` for ``a ± b``, ``|a| * |b|`` for ``a * b``, ...): the
  rounding error of any evaluation order is a few ulp of that bound.
* int32: ``+ - * & | ^``, ``vc.min``/``vc.max``, unary minus over full-range inputs, compared
  exactly with numpy int32 (both wrap modulo 2**32). Non-negative int literals are uint32 in
  the DSL and promote to int32 with an int32 operand, so they are kept below 2**31.

Every node holds at least one shader value (``x``, ``y`` or the uniform ``c``); binary nodes
put a literal on the left (``1.5 - x``, the reflected operators) as often as on the right.
"""

import operator

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, f32, i32

N = 1000  # not a multiple of the local size: the bounds guard of the last workgroup is used
MAX_DEPTH = 4
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

FLOAT_BINARY = {"+": operator.add, "-": operator.sub, "*": operator.mul}
INT_BINARY = {**FLOAT_BINARY, "&": operator.and_, "|": operator.or_, "^": operator.xor}
FLOAT_LITERALS = [0.5, 1.5, -2.25, 3.0, 0.75, -1.0, 2.0, 0.125]
DIVISORS = [0.5, -0.5, 2.0, 3.0, -1.5, 4.0, 7.0]
INT_LITERALS = st.one_of(st.integers(-9, 9),
                         st.sampled_from([255, 0xFFFF, 0x7FFFFFFF, 0x55555555, 1 << 30,
                                          -(1 << 31), -12345678]))


# -- strategies: ("var", name) | ("lit", v) | ("bin", op, a, b) | ("call", fn, a, b)
#    | ("unary", "-"|"abs", a) | ("div", a, d) ------------------------------------------------------

def operand_pairs(children, literals):
    """``(left, right)`` of a binary node: value op value, value op literal and literal op value
    about equally often, so the reflected operators (``1.5 - x`` is ``x.__rsub__(1.5)``) are
    exercised as much as the plain ones."""
    literal_nodes = literals.map(lambda value: ("lit", value))
    return st.one_of(st.tuples(children, children), st.tuples(children, literal_nodes),
                     st.tuples(literal_nodes, children))


def _expressions(binary_ops, literals, calls, unary, with_division):
    leaves = st.sampled_from(["x", "y", "c"]).map(lambda name: ("var", name))

    def level(children):
        pairs = operand_pairs(children, literals)
        options = [
            st.builds(lambda op, pair: ("bin", op, *pair), st.sampled_from(sorted(binary_ops)),
                      pairs),
            st.builds(lambda fn, pair: ("call", fn, *pair), st.sampled_from(calls), pairs),
            st.builds(lambda op, a: ("unary", op, a), st.sampled_from(unary), children),
        ]
        if with_division:
            options.append(st.builds(lambda a, d: ("div", a, d), children,
                                     st.sampled_from(DIVISORS)))
        return st.one_of(leaves, *options)

    strategy = leaves
    for _ in range(MAX_DEPTH):
        strategy = level(strategy)
    return strategy


float_expressions = _expressions(FLOAT_BINARY, st.sampled_from(FLOAT_LITERALS),
                                 ["min", "max"], ["-", "abs"], with_division=True)
int_expressions = _expressions(INT_BINARY, INT_LITERALS, ["min", "max"], ["-"],
                               with_division=False)


# -- the same tree, built with the DSL and evaluated by numpy --------------------------------------

def build(node, env):
    """Applies the Python operators / vc functions to shader values (or numpy arrays)."""
    kind = node[0]
    if kind == "var":
        return env[node[1]]
    if kind == "lit":
        return env["literal"](node[1])
    if kind == "unary":
        value = build(node[2], env)
        return -value if node[1] == "-" else env["abs"](value)
    if kind == "div":
        return build(node[1], env) / env["literal"](node[2])
    left, right = build(node[2], env), build(node[3], env)
    if kind == "bin":
        return INT_BINARY[node[1]](left, right)
    return env[node[1]](left, right)


DSL = {"literal": lambda value: value, "abs": vc.abs, "min": vc.min, "max": vc.max}


def numpy_env(x, y, c, np_dtype):
    return {"x": x, "y": y, "c": np.full(x.shape, c, np_dtype),
            "literal": np.dtype(np_dtype).type, "abs": np.abs,
            "min": np.minimum, "max": np.maximum}


def magnitude_bound(node, env):
    """An upper bound of every intermediate's magnitude (float64), element-wise."""
    kind = node[0]
    if kind == "var":
        return np.abs(env[node[1]].astype(np.float64))
    if kind == "lit":
        return abs(node[1])
    if kind == "unary":
        return magnitude_bound(node[2], env)
    if kind == "div":
        return magnitude_bound(node[1], env) / abs(node[2])
    left, right = magnitude_bound(node[2], env), magnitude_bound(node[3], env)
    if kind == "call":
        return np.maximum(left, right)
    return left * right if node[1] == "*" else left + right


def run_on_device(node, var_type, x, y, c):
    @vd.shader("out.size", local_size=(64, 1, 1))
    def kernel(out: Buff[var_type], xs: Buff[var_type], ys: Buff[var_type],
               c: Const[var_type]):
        i = vc.global_invocation_id().x
        out[i] = build(node, {**DSL, "x": xs[i], "y": ys[i], "c": c})

    out = vd.Buffer((N,), var_type)
    kernel(out, vd.asbuffer(x), vd.asbuffer(y), c)
    return out.read(0)


# -- the properties ---------------------------------------------------------------------------------

@SETTINGS
@given(node=float_expressions, seed=st.integers(0, 2 ** 32 - 1),
       c=st.floats(-4, 4, width=32))
def test_random_float32_expressions_match_numpy(context, node, seed, c):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-4, 4, N).astype(np.float32)
    y = rng.uniform(-4, 4, N).astype(np.float32)
    actual = run_on_device(node, f32, x, y, c)
    env = numpy_env(x, y, c, np.float32)
    expected = build(node, env)
    assert expected.dtype == np.float32 and actual.shape == (N,)
    scale = np.maximum(1.0, magnitude_bound(node, env))
    np.testing.assert_allclose(actual / scale, expected / scale, rtol=1e-5, atol=1e-5,
                               err_msg=repr(node))


@SETTINGS
@given(node=int_expressions, seed=st.integers(0, 2 ** 32 - 1),
       c=st.integers(-(2 ** 31), 2 ** 31 - 1))
def test_random_int32_expressions_wrap_like_numpy(context, node, seed, c):
    rng = np.random.default_rng(seed)
    info = np.iinfo(np.int32)
    x = rng.integers(info.min, info.max, N, dtype=np.int32, endpoint=True)
    y = rng.integers(info.min, info.max, N, dtype=np.int32, endpoint=True)
    actual = run_on_device(node, i32, x, y, c)
    with np.errstate(over="ignore"):
        expected = build(node, numpy_env(x, y, c, np.int32))
    assert expected.dtype == np.int32 and actual.dtype == np.int32
    np.testing.assert_array_equal(actual, expected, err_msg=repr(node))


def test_the_numpy_model_on_a_hand_written_tree():
    node = ("bin", "-", ("call", "max", ("var", "x"), ("lit", 0.5)),
            ("div", ("unary", "abs", ("var", "c")), 2.0))
    x = np.array([-1.0, 3.0], np.float32)
    env = numpy_env(x, x, -3.0, np.float32)
    np.testing.assert_array_equal(build(node, env), [-1.0, 1.5])
    np.testing.assert_array_equal(magnitude_bound(node, env), [2.5, 4.5])
