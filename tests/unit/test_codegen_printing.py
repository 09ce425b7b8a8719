"""printf, print and comments (reference 11.14, 11.15)."""
from __future__ import annotations

import pytest
from codegen_helpers import assert_compiles, header_lines, main_body, source_of, trace

import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, c64, f32, i32, m2, u32, v2
from vkdispatch.errors import InvalidArgumentError

EXTENSION = "#extension GL_EXT_debug_printf : require"


def test_printf_inserts_values_and_raw_strings():
    def body(out, n):
        tid = vc.global_invocation_id().x
        vc.printf("tid=%u n=%d v=%f raw=%d", tid, n, out[tid], "int(3)")

    description, _ = trace(body, Buff[f32], Const[i32])
    assert main_body(description) == [
        'debugPrintfEXT("tid=%u n=%d v=%f raw=%d", gl_GlobalInvocationID.x, UBO.var0, '
        'buf0.data[gl_GlobalInvocationID.x], int(3));']
    assert EXTENSION in header_lines(description)
    assert_compiles(description)


def test_printf_escapes_what_glsl_would_interpret_and_keeps_backslash_n_a_newline():
    def body():
        vc.printf('say "hi"\n')
        vc.printf("C:\\temp\tback\\slash\\n\x7f")

    description, _ = trace(body)
    assert main_body(description) == ['debugPrintfEXT("say \\"hi\\"\\n");',
                                      'debugPrintfEXT("C:\\\\temp\\011back\\\\slash\\n\\177");']
    assert_compiles(description)


@pytest.mark.parametrize("text, message", [
    ("caf\u00e9 %%d", r"non-ASCII character 'é' \(U\+00E9\) at position 3"),
    ("\U0001F600", r"non-ASCII character '😀' \(U\+1F600\) at position 0"),
    ("a\0b", r"NUL character at position 1"),
    ("x" * 1025, r"1025 characters long; a shader string holds at most 1024"),
    ('"' * 1025, r"1025 characters long"),
])
def test_printf_refuses_formats_a_shader_string_cannot_hold(text, message):
    with pytest.raises(InvalidArgumentError, match=r"printf: .*" + message):
        trace(lambda: vc.printf(text))
    with pytest.raises(InvalidArgumentError, match=message):
        trace(lambda: vc.print(text))


def test_printf_format_of_the_longest_length_builds():
    description, _ = trace(lambda: vc.printf("x" * 1020 + "\\n%d\\", 7))
    assert_compiles(description)


def test_print_expands_vectors_complex_and_matrices():
    def body(out, r, z, m):
        vc.print("val", r, vc.global_invocation_id().x, z, "100%")
        vc.print(m, out[0] < 1.0, separator=", ")

    description, _ = trace(body, Buff[f32], Const[v2], Const[c64], Const[m2])
    lines = main_body(description)
    assert lines[0] == ('debugPrintfEXT("val (%f, %f) %u (%f, %f) 100%%", UBO.var0[0], '
                        'UBO.var0[1], gl_GlobalInvocationID.x, UBO.var1[0], UBO.var1[1]);')
    assert lines[1].startswith('debugPrintfEXT("\\n[%f, %f]\\n[%f, %f]\\n, %d", '
                               'UBO.var2[0][0], UBO.var2[1][0], UBO.var2[0][1], '
                               'UBO.var2[1][1], ')
    assert_compiles(description)


def test_no_printf_flag_removes_only_the_extension_line():
    description, _ = trace(lambda: vc.printf("x"), flags=vc.ShaderFlags.NO_PRINTF)
    assert EXTENSION not in header_lines(description)
    assert main_body(description) == ['debugPrintfEXT("x");']


def test_printing_a_buffer_element_marks_the_buffer():
    def body(out, data):
        vc.printf("%f", data[0])
        out[0] = 1.0

    description, _ = trace(body, Buff[f32], Buff[f32])
    assert description.binding_access[2] == (True, False)


def test_single_line_comment_with_preceding_blank_line():
    def body():
        vc.comment("hello")
        vc.comment("tight", preceding_new_line=False)

    description, _ = trace(body)
    source = source_of(description)
    assert "\n    \n    /* hello */\n    /* tight */\n" in source
    assert_compiles(description)


def test_multi_line_comment_and_defused_terminator():
    def body(n):
        with vc.if_block(n > 0):
            vc.comment("first line\nsecond */ line", preceding_new_line=False)

    description, _ = trace(body, Const[u32])
    source = source_of(description)
    assert ("        /*\n         * first line\n         * second * / line\n         */\n"
            in source)
    assert_compiles(description)


def test_printf_format_is_checked_against_the_arguments():
    import pytest
    import vkdispatch as vd

    def traced(body):
        @vd.shader(exec_size=1)
        def shader(out: Buff[f32], n: Const[i32], r: Const[v2]):
            body(out, n, r)
        return shader

    cases = [
        (lambda out, n, r: vc.printf("name=%s", n), ValueError, r"'%s' is not a shader printf"),
        (lambda out, n, r: vc.printf("n=%n", n), ValueError, r"'%n' is not"),
        (lambda out, n, r: vc.printf("%d", out[0]), TypeError, r"'%d' does not fit .* float32"),
        (lambda out, n, r: vc.printf("%f", n), TypeError, r"'%f' does not fit .* int32"),
        (lambda out, n, r: vc.printf("%f", r), TypeError, r"'%f' does not fit .* vec2"),
        (lambda out, n, r: vc.printf("%d %d", n), ValueError, "2 conversion.* 1 argument"),
    ]
    for body, error, message in cases:
        with pytest.raises(error, match=message + r".*\[in shader 'shader' at .*test_codegen_"
                                                  r"printing.py:\d+\]"):
            traced(body)
    for body in (lambda out, n, r: vc.printf("%v2f %5.2f %x %%", r, out[0], n),
                 lambda out, n, r: vc.printf("%f raw=%d", n, "int(3)")):  # strings: unchecked
        traced(body)
