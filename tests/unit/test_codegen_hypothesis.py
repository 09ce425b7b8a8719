"""Property test: random arithmetic expression trees over float32/int32/uint32 values and
Python literals trace, compile, and carry the dtype label that a small independent model of the
promotion rules predicts (reference 11.6 with the COMPAT fixes).

The model: literals are uint32 (ints >= 0), int32 (negative ints) or float32; ``+ - *``,
``min``/``max``/``clamp``, bitwise operators, ``//`` and ``%`` give the higher of
uint32 < int32 < float32; ``/``, ``sin``/``exp``/... and ``pow`` give float32; ``abs``,
unary minus and ``x ** k`` (k = 0..4) keep the type; ``x ** -k`` is float32; comparisons are
booleans; ``//``, ``%`` and bitwise operators need integers; booleans are not numbers.
Every traced expression is also checked to be typed by GLSL exactly as labelled.
"""
from __future__ import annotations

import operator
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vkdispatch.codegen as vc
from codegen_helpers import assert_glsl_type, trace
from vkdispatch.base import dtype as dt
from vkdispatch.codegen.abbreviations import Buff, Const, Var, f32, i32, u32
from vkdispatch.codegen.literals import boolean

F32, I32, U32, BOOL = dt.float32, dt.int32, dt.uint32, boolean
RANK = {U32: 0, I32: 1, F32: 2}
ERROR = "error"  # the model's prediction that tracing raises TypeError

VARIABLES = {"f": F32, "i": I32, "u": U32, "cf": F32, "vi": I32, "tid": U32}

ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
INTEGER_ONLY = {"//": operator.floordiv, "%": operator.mod, "&": operator.and_,
                "|": operator.or_, "^": operator.xor}
COMPARISONS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
               "==": operator.eq, "!=": operator.ne}
BINARY = {**ARITHMETIC, **INTEGER_ONLY, **COMPARISONS}
FLOATING_CALLS = {"sin": 1, "exp": 1, "sqrt": 1, "floor": 1, "fract": 1, "pow": 2, "atan2": 2,
                  "mod": 2}
KEEPING_CALLS = {"min": 2, "max": 2, "clamp": 3, "abs": 1}


# -- the model -------------------------------------------------------------------------------------

def literal_type(value):
    if isinstance(value, float):
        return F32
    return U32 if value >= 0 else I32


def promote(*types):
    return max(types, key=RANK.__getitem__)


def model(node):
    """The predicted dtype of ``node`` (or ERROR)."""
    kind = node[0]
    if kind == "var":
        return VARIABLES[node[1]]
    if kind == "lit":
        return literal_type(node[1])
    if kind == "unary":
        inner = model(node[2])
        return ERROR if inner in (ERROR, BOOL) else inner
    if kind == "pow":
        base = model(node[1])
        if base in (ERROR, BOOL):
            return ERROR
        exponent = node[2]
        if isinstance(exponent, int) and 0 <= exponent <= 4:
            return base
        return F32
    types = [model(child) for child in node[2:]]
    if ERROR in types:
        return ERROR
    if kind == "bin" and node[1] in ("==", "!=") and types == [BOOL, BOOL]:
        return BOOL
    if BOOL in types:
        return ERROR
    name = node[1]
    if kind == "bin":
        if name in COMPARISONS:
            return BOOL
        if name == "/":
            return F32
        if name in INTEGER_ONLY and F32 in types:
            return ERROR
        return promote(*types)
    if name in FLOATING_CALLS:
        return F32
    return promote(*types)


# -- building the same tree with the DSL ---------------------------------------------------------

def build(node, env):
    kind = node[0]
    if kind == "var":
        return env[node[1]]
    if kind == "lit":
        return node[1]
    if kind == "unary":
        value = build(node[2], env)
        return -value if node[1] == "-" else abs(value)
    if kind == "pow":
        return build(node[1], env) ** node[2]
    args = [build(child, env) for child in node[2:]]
    if kind == "bin":
        return BINARY[node[1]](*args)
    return getattr(vc, node[1])(*args)


# -- strategies: every node holds at least one shader value ----------------------------------------

literals = st.one_of(st.integers(min_value=-9, max_value=9).filter(bool),
                     st.integers(min_value=1, max_value=64),
                     st.sampled_from([0.5, 1.5, -2.25, 3.0, 1e-3]))
leaves = st.sampled_from(sorted(VARIABLES)).map(lambda name: ("var", name))


def _extend(children):
    operand = st.one_of(children, literals.map(lambda value: ("lit", value)))

    def binary(op, left, right, swap):
        return ("bin", op, right, left) if swap else ("bin", op, left, right)

    def call(name, first, rest, swap):
        args = [first, *rest]
        if swap and len(args) > 1:
            args[0], args[1] = args[1], args[0]
        return ("call", name, *args)

    def calls(table):
        return st.sampled_from(sorted(table)).flatmap(lambda name: st.builds(
            call, st.just(name), children,
            st.lists(operand, min_size=table[name] - 1, max_size=table[name] - 1),
            st.booleans()))

    # Float results absorb everything above them, so integer-preserving nodes are favoured.
    binaries = st.builds(binary, st.sampled_from(sorted(BINARY)), children, operand,
                         st.booleans())
    return st.one_of(
        binaries, binaries, binaries, calls(KEEPING_CALLS), calls(KEEPING_CALLS),
        st.builds(lambda op, x: ("unary", op, x), st.sampled_from(["-", "abs"]), children),
        st.builds(lambda x, k: ("pow", x, k), children,
                  st.sampled_from([0, 1, 2, 3, 4, -1, -2, 5, 0.5, 2.5])),
        calls(FLOATING_CALLS))


expressions = st.recursive(leaves, _extend, max_leaves=8)


def trace_expression(node):
    def body(fb, ib, ub, cf, vi):
        tid = vc.global_invocation_id().x
        env = {"f": fb[tid], "i": ib[tid], "u": ub[tid], "cf": cf, "vi": vi, "tid": tid}
        result = build(node, env)
        outputs = {F32: fb, I32: ib, U32: ub}
        if result.var_type is BOOL:
            with vc.if_block(result):
                ub[tid] = 1
        else:
            outputs[result.var_type][tid] = result
        return result

    return trace(body, Buff[f32], Buff[i32], Buff[u32], Const[f32], Var[i32])


@settings(max_examples=int(os.environ.get("CODEGEN_HYPOTHESIS_EXAMPLES", "100")),
          deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions)
def test_random_expressions_trace_compile_and_match_the_promotion_model(node):
    expected = model(node)
    if expected == ERROR:
        with pytest.raises(TypeError):
            trace_expression(node)
        return
    description, result = trace_expression(node)
    assert result.var_type is expected, f"{node}: DSL says {result.var_type.name}, model says " \
                                        f"{expected.name}; text {result.name}"
    assert_glsl_type(description, result)


def test_the_model_agrees_with_hand_written_cases():
    assert model(("bin", "+", ("var", "u"), ("var", "i"))) is I32
    assert model(("bin", "+", ("var", "u"), ("lit", -1))) is I32
    assert model(("bin", "*", ("var", "i"), ("lit", 1.5))) is F32
    assert model(("bin", "/", ("var", "u"), ("var", "u"))) is F32
    assert model(("bin", "%", ("var", "f"), ("lit", 2))) == ERROR
    assert model(("bin", "+", ("bin", "<", ("var", "f"), ("lit", 1)), ("lit", 1))) == ERROR
    assert model(("call", "min", ("var", "u"), ("lit", 3))) is U32
    assert model(("pow", ("var", "i"), 2)) is I32
    assert model(("pow", ("var", "i"), -2)) is F32
