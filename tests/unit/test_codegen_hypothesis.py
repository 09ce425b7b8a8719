"""Property test: random arithmetic expression trees over float32/int32/uint32 values and
Python literals trace, compile, and carry the dtype label that a small independent model of the
promotion rules predicts (those of ``vkdispatch.base.dtype``, described below and in
docs/shaders.rst, "The DSL").

The model: literals are uint32 (ints >= 0), int32 (negative ints) or float32; ``+ - *``,
``min``/``max``/``clamp``, bitwise operators, ``//`` and ``%`` give the higher of
uint32 < int32 < float32; ``/``, ``sin``/``exp``/... and ``pow`` give float32; ``abs``,
unary minus and ``x ** k`` (k = 0..4) keep the type; ``x ** -k`` and ``k ** x`` are float32;
comparisons are booleans; ``//``, ``%`` and bitwise operators need integers; booleans are not
numbers. Literals appear on either side of binary operators about equally often.
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
    if kind == "rpow":  # literal ** value: pow() of floats
        exponent = model(node[2])
        return ERROR if exponent in (ERROR, BOOL) else F32
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
    if kind == "rpow":
        return node[1] ** build(node[2], env)
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
    literal_nodes = literals.map(lambda value: ("lit", value))
    operand = st.one_of(children, literal_nodes)
    # value op value, value op literal and literal op value about equally often: the literal
    # on the left goes through the reflected operators (__rsub__, __rfloordiv__, ...).
    pairs = st.one_of(st.tuples(children, children), st.tuples(children, literal_nodes),
                      st.tuples(literal_nodes, children))

    def calls(table):
        def arguments(name):
            count = table[name]
            if count == 1:
                return st.tuples(children)
            return st.builds(lambda pair, rest: (*pair, *rest), pairs,
                             st.lists(operand, min_size=count - 2, max_size=count - 2))

        return st.sampled_from(sorted(table)).flatmap(
            lambda name: arguments(name).map(lambda args: ("call", name, *args)))

    # Float results absorb everything above them, so integer-preserving nodes are favoured.
    # (st.one_of drops repeated equal branches, so a weight is spelled as distinct branches.)
    binaries = [st.builds(lambda op, pair: ("bin", op, *pair), st.sampled_from(sorted(group)),
                          pairs) for group in (ARITHMETIC, INTEGER_ONLY, COMPARISONS)]
    keeping = [calls({name: KEEPING_CALLS[name] for name in group})
               for group in (("min", "max"), ("clamp", "abs"))]
    return st.one_of(
        *binaries, *keeping,
        st.builds(lambda op, x: ("unary", op, x), st.sampled_from(["-", "abs"]), children),
        st.builds(lambda x, k: ("pow", x, k), children,
                  st.sampled_from([0, 1, 2, 3, 4, -1, -2, 5, 0.5, 2.5])),
        st.builds(lambda base, x: ("rpow", base, x), st.sampled_from([2, 3, 0.5, 1.5]),
                  children),
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
    assert model(("rpow", 3, ("var", "u"))) is F32
    assert model(("bin", "-", ("lit", 5), ("var", "u"))) is U32
    assert model(("bin", "//", ("lit", 7), ("var", "f"))) == ERROR
