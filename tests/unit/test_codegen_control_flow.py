"""Control flow: the context managers, the legacy statement API, conditions, any/all
(docs/shaders.rst, "The DSL")."""
from __future__ import annotations

import inspect

import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch import errors
from codegen_helpers import assert_compiles, main_body, source_of, trace
from vkdispatch.codegen.abbreviations import Buff, Const, f32, i32, u32, v2
from vkdispatch.codegen.literals import boolean


def compiled(body, *annotations):
    description, result = trace(body, *annotations)
    assert_compiles(description)
    return description, result


def test_if_else_if_else_blocks_nest_and_indent():
    def body(out, n):
        tid = vc.global_invocation_id().x
        with vc.if_block(tid < n):
            out[tid] = 1.0
        with vc.else_if_block(tid < 2 * n):
            out[tid] = 2.0
        with vc.else_block():
            out[tid] = 0.0

    description, _ = compiled(body, Buff[f32], Const[u32])
    source = source_of(description)
    assert (
        "    if((gl_GlobalInvocationID.x < UBO.var0)) {\n"
        "        buf0.data[gl_GlobalInvocationID.x] = 1.0f;\n"
        "    }\n"
        "    else if((gl_GlobalInvocationID.x < (UBO.var0 << 1))) {\n"
        "        buf0.data[gl_GlobalInvocationID.x] = 2.0f;\n"
        "    }\n"
        "    else {\n"
        "        buf0.data[gl_GlobalInvocationID.x] = 0.0f;\n"
        "    }\n") in source


def test_while_block_and_nested_scopes():
    def body(out, n):
        i = vc.new_uint_register(0, var_name="i")
        with vc.while_block(i < n):
            with vc.scope_block(comment="inner"):
                out[i] = vc.to_float(i)
            i += 1
        with vc.scope_block(indent=False):
            out[0] = 1.0

    description, _ = compiled(body, Buff[f32], Const[u32])
    source = source_of(description)
    assert ("    while((i < UBO.var0)) {\n"
            "        { /* inner */\n"
            "            buf0.data[i] = float(i);\n"
            "        }\n"
            "        i += 1;\n"
            "    }\n"
            "    {\n"
            "    buf0.data[0] = 1.0f;\n"
            "    }\n") in source


def test_return_statement_forms():
    def body(out):
        with vc.if_block(vc.global_invocation_id().x > 3):
            vc.return_statement()

    description, _ = compiled(body, Buff[f32])
    assert main_body(description) == ["if((gl_GlobalInvocationID.x > 3)) {", "return;", "}"]


def test_return_with_a_value_is_spelled_verbatim_or_resolved():
    def body():
        vc.return_statement("x")
        vc.return_statement(3)

    description, _ = trace(body)
    assert main_body(description) == ["return x;", "return 3;"]


def test_python_bool_conditions_print_as_glsl_literals():
    def body(out):
        with vc.if_block(True):
            out[0] = 1.0
        with vc.while_block(False):
            out[1] = 1.0

    description, _ = compiled(body, Buff[f32])
    assert main_body(description)[0] == "if(true) {"
    assert main_body(description)[3] == "while(false) {"


def test_any_and_all_combine_conditions():
    def body(out, a, b):
        both = vc.all(a > 0, b > 0)
        either = vc.any(a > 0, b > 0, True)
        with vc.if_block(vc.all(both, either)):
            out[0] = 1.0
        return both, either

    description, (both, either) = compiled(body, Buff[f32], Const[f32], Const[i32])
    assert both.var_type is boolean and either.var_type is boolean
    assert both.name == "(((UBO.var0 > 0)) && ((UBO.var1 > 0)))"
    assert either.name == "(((UBO.var0 > 0)) || ((UBO.var1 > 0)) || (true))"


def test_a_numeric_scalar_condition_is_tested_against_zero():
    def body(out, n, f):
        with vc.if_block(n):
            out[0] = 1.0
        with vc.if_block(vc.any(f, n > 2)):
            out[1] = 1.0

    description, _ = compiled(body, Buff[f32], Const[i32], Const[f32])
    assert main_body(description)[0] == "if(bool(UBO.var0)) {"
    assert main_body(description)[3] == "if(((bool(UBO.var1)) || ((UBO.var0 > 2)))) {"


def test_a_vector_condition_raises():
    with pytest.raises(TypeError, match="condition must be a boolean or a scalar"):
        trace(lambda v: vc.if_block(v), Const[v2])


def test_a_non_shader_condition_raises():
    with pytest.raises(TypeError, match="condition must be a shader value or a Python bool"):
        trace(lambda: vc.if_block("x < 3"))


def test_empty_any_raises():
    with pytest.raises(ValueError, match="at least one condition"):
        trace(lambda: vc.any())


def test_python_control_flow_over_python_values_unrolls():
    def body(out):
        for k in range(3):
            if k % 2 == 0:
                out[k] = float(k)

    description, _ = compiled(body, Buff[f32])
    assert main_body(description) == ["buf0.data[0] = 0.0f;", "buf0.data[2] = 2.0f;"]


def test_statements_after_an_exception_in_a_block_are_not_emitted():
    def body(out):
        with vc.if_block(True):
            out[0] = 1.0
            raise KeyError("stop")

    with pytest.raises(KeyError, match="stop"):
        trace(body, Buff[f32])


# -- legacy statement API ----------------------------------------------------------------------

def test_legacy_if_else_chain_with_end():
    def body(out, n):
        tid = vc.global_invocation_id().x
        vc.if_statement(tid < n)
        out[tid] = 1.0
        vc.else_if_statement(tid < 2 * n)
        out[tid] = 2.0
        vc.else_if_any(tid == 7, tid == 9)
        out[tid] = 3.0
        vc.else_if_all(tid > 1, tid < 5)
        out[tid] = 4.0
        vc.else_statement()
        out[tid] = 0.0
        vc.end()

    description, _ = compiled(body, Buff[f32], Const[u32])
    lines = main_body(description)
    assert lines[0] == "if((gl_GlobalInvocationID.x < UBO.var0)) {"
    assert lines[2] == "} else if((gl_GlobalInvocationID.x < (UBO.var0 << 1))) {"
    assert lines[4] == ("} else if((((gl_GlobalInvocationID.x == 7)) || "
                        "((gl_GlobalInvocationID.x == 9)))) {")
    assert lines[6].startswith("} else if((((gl_GlobalInvocationID.x > 1)) && ")
    assert lines[8:] == ["} else {", "buf0.data[gl_GlobalInvocationID.x] = 0.0f;", "}"]


def test_legacy_if_any_if_all_while_scope_and_logical_helpers():
    def body(out, a, b):
        vc.if_any(a > 0, b > 0)
        out[0] = 1.0
        vc.end()
        vc.if_all(a > 0, b > 0)
        out[1] = 1.0
        vc.end()
        i = vc.new_int_register(0, var_name="i")
        vc.while_statement(vc.logical_and(i < 4, vc.logical_or(a > 0, b > 0)))
        i += 1
        vc.end()
        vc.new_scope(comment="block")
        out[2] = 2.0
        vc.end()

    description, _ = compiled(body, Buff[f32], Const[f32], Const[f32])
    lines = main_body(description)
    assert lines[0] == "if((((UBO.var0 > 0)) || ((UBO.var1 > 0)))) {"
    assert lines[3] == "if((((UBO.var0 > 0)) && ((UBO.var1 > 0)))) {"
    assert lines[7].startswith("while((((i < 4)) && ((((UBO.var0 > 0)) || ((UBO.var1 > 0))")
    assert lines[10:] == ["{ /* block */", "buf0.data[2] = 2.0f;", "}"]


def test_legacy_one_line_if_with_a_command():
    def body(out):
        vc.if_statement(vc.global_invocation_id().x > 10, "return;")
        out[0] = 1.0

    description, _ = compiled(body, Buff[f32])
    assert main_body(description)[0] == "if((gl_GlobalInvocationID.x > 10)) return;"


# -- misuse raises while tracing, at the user's line --------------------------------------------

def _else_first(out: Buff[f32]):
    with vc.else_block():  # misuse
        out[0] = 1.0


def _else_after_a_statement(out: Buff[f32]):
    with vc.if_block(out[0] > 0):
        out[0] = 1.0
    out[1] = 2.0
    with vc.else_block():  # misuse
        out[0] = 3.0


def _two_else_blocks(out: Buff[f32]):
    with vc.if_block(out[0] > 0):
        out[0] = 1.0
    with vc.else_block():
        out[0] = 2.0
    with vc.else_block():  # misuse
        out[0] = 3.0


def _else_if_after_a_loop(out: Buff[f32]):
    with vc.while_block(out[0] > 0):
        out[0] = out[0] - 1.0
    with vc.else_if_block(out[1] > 0):  # misuse
        out[0] = 3.0


def _two_else_statements(out: Buff[f32]):
    vc.if_statement(out[0] > 0)
    out[0] = 1.0
    vc.else_statement()
    out[0] = 2.0
    vc.else_statement()  # misuse
    vc.end()


def _else_statement_in_a_loop(out: Buff[f32]):
    vc.while_statement(out[0] > 0)
    vc.else_statement()  # misuse
    vc.end()


def _stray_end(out: Buff[f32]):
    out[0] = 1.0
    vc.end()  # misuse


def _end_twice(out: Buff[f32]):
    vc.new_scope()
    out[0] = 1.0
    vc.end()
    vc.end()  # misuse


MISUSES = {
    "else first": (_else_first, "vc.else_block must directly follow an if"),
    "else after a statement": (_else_after_a_statement, "vc.else_block must directly follow"),
    "two else blocks": (_two_else_blocks, "vc.else_block must directly follow"),
    "else-if after a loop": (_else_if_after_a_loop, "vc.else_if_block must directly follow"),
    "two else statements": (_two_else_statements, "there is an open else block"),
    "else statement in a loop": (_else_statement_in_a_loop, "there is an open while block"),
    "stray end": (_stray_end, "vc.end\\(\\) has no block to close"),
    "end twice": (_end_twice, "vc.end\\(\\) has no block to close"),
}


def _misuse_line(function) -> str:
    lines, first = inspect.getsourcelines(function)
    offset = next(i for i, line in enumerate(lines) if "# misuse" in line)
    return f"{__file__}:{first + offset}"


@pytest.mark.parametrize("case", MISUSES)
def test_misused_control_flow_raises_at_the_users_line(case):
    """Before, each reached glslang as a syntax error without the user's line (and an else
    with nothing before it bound to the generated bounds guard)."""
    function, message = MISUSES[case]
    with pytest.raises(RuntimeError, match=message) as caught:
        vd.shader(exec_size=8)(function)
    assert isinstance(caught.value, errors.InvalidStateError)
    assert _misuse_line(function) in str(caught.value)


def test_a_block_never_closed_names_the_line_that_opened_it():
    def body(out: Buff[f32]):
        vc.if_statement(out[0] > 0)  # misuse
        out[0] = 1.0

    with pytest.raises(errors.InvalidStateError, match="the if block opened at .* is never "
                                                       "closed") as caught:
        vd.shader(exec_size=8)(body)
    assert _misuse_line(body) in str(caught.value)
    with pytest.raises(errors.InvalidStateError, match="the scope block"):
        trace(lambda out: vc.new_scope(), Buff[f32])


def test_correct_chains_still_trace_after_a_misuse():
    with pytest.raises(errors.InvalidStateError):
        trace(_stray_end, Buff[f32])

    def body(out: Buff[f32]):
        with vc.if_block(out[0] > 0):
            out[0] = 1.0
        with vc.else_if_block(out[1] > 0):
            out[0] = 2.0
        with vc.else_block():
            out[0] = 3.0
        vc.if_statement(out[0] > 1)
        vc.else_statement()
        vc.end()

    description, _ = compiled(body, Buff[f32])
    assert main_body(description)[-3:] == ["if((buf0.data[0] > 1)) {", "} else {", "}"]
