"""printf, print and comments (docs/shaders.rst, "Printing from shaders"). Each printf's format
starts with its
origin, ``[shader at file:line] ``."""
from __future__ import annotations

from pathlib import Path

import pytest
from codegen_helpers import assert_compiles, header_lines, main_body, source_of, trace

import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, c64, f32, i32, m2, u32, v2
from vkdispatch.errors import InvalidArgumentError

EXTENSION = "#extension GL_EXT_debug_printf : require"


def at(snippet: str, shader: str = "body") -> str:
    """The origin prefix of the printf on the one line of this file that starts with
    ``snippet`` (``body``: the function traced in a manual shader context)."""
    lines = Path(__file__).read_text().splitlines()
    found = [n for n, line in enumerate(lines, 1) if line.lstrip().startswith(snippet)]
    assert len(found) == 1, (snippet, found)
    return f"[{shader} at {Path(__file__).name}:{found[0]}] "


def test_printf_inserts_values_and_raw_strings():
    def body(out, n):
        tid = vc.global_invocation_id().x
        vc.printf("tid=%u n=%d v=%f raw=%d", tid, n, out[tid], "int(3)")

    description, _ = trace(body, Buff[f32], Const[i32])
    origin = at('vc.printf("tid=')
    assert main_body(description) == [
        f'debugPrintfEXT("{origin}tid=%u n=%d v=%f raw=%d", gl_GlobalInvocationID.x, UBO.var0, '
        'buf0.data[gl_GlobalInvocationID.x], int(3));']
    assert EXTENSION in header_lines(description)
    assert_compiles(description)


def test_printf_escapes_what_glsl_would_interpret_and_keeps_backslash_n_a_newline():
    def body():
        vc.printf('say "hi"\n')
        vc.printf("C:\\temp\tback\\slash\\n\x7f")

    description, _ = trace(body)
    say, path = at("vc.printf('say"), at('vc.printf("C:')
    assert main_body(description) == [
        f'debugPrintfEXT("{say}say \\"hi\\"\\n");',
        f'debugPrintfEXT("{path}C:\\\\temp\\011back\\\\slash\\n\\177");']
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


def _print_from_helper(value):
    vc.printf("helper %d", value)


def test_printf_origin_names_the_decorated_shader_and_the_line_of_each_call():
    import vkdispatch as vd

    @vd.shader(exec_size=1)
    def named_kernel(out: Buff[f32], n: Const[i32]):
        vc.printf("n=%d", n)
        _print_from_helper(n)  # the helper's line, the shader's name

    lines = main_body(named_kernel.shader_description)
    assert [line.split('"')[1] for line in lines] == [
        at('vc.printf("n=%d"', "named_kernel") + "n=%d",
        at('vc.printf("helper %d"', "named_kernel") + "helper %d"]


@pytest.mark.parametrize("extra, prefixed", [(0, True), (1, False)])
def test_printf_origin_is_left_out_where_it_would_pass_the_longest_string(extra, prefixed):
    origin = at("description, _ = trace(lambda: vc.printf(text), name", "<lambda>")
    text = "y" * (1024 - len(origin) + extra)
    description, _ = trace(lambda: vc.printf(text), name="long")
    literal = main_body(description)[0].split('"')[1]
    assert literal == (origin + text if prefixed else text)
    assert_compiles(description)


def test_printf_origin_spells_a_file_name_a_format_cannot_hold_in_ascii(tmp_path):
    name = "we%ird \u00e9\\x.py"
    namespace = {"vc": vc}
    exec(compile("def body():\n    vc.printf('%d', 5)\n", str(tmp_path / name), "exec"),
         namespace)
    description, _ = trace(namespace["body"])
    # "%" doubled (it prints as one), the non-ASCII and the backslash as "?"
    assert main_body(description) == ['debugPrintfEXT("[body at we%%ird ??x.py:2] %d", 5);']
    assert_compiles(description)


def test_print_expands_vectors_complex_and_matrices():
    def body(out, r, z, m):
        vc.print("val", r, vc.global_invocation_id().x, z, "100%")
        vc.print(m, out[0] < 1.0, separator=", ")

    description, _ = trace(body, Buff[f32], Const[v2], Const[c64], Const[m2])
    lines = main_body(description)
    val, matrix = at('vc.print("val"'), at("vc.print(m,")
    assert lines[0] == (f'debugPrintfEXT("{val}val (%f, %f) %u (%f, %f) 100%%", UBO.var0[0], '
                        'UBO.var0[1], gl_GlobalInvocationID.x, UBO.var1[0], UBO.var1[1]);')
    assert lines[1].startswith(f'debugPrintfEXT("{matrix}\\n[%f, %f]\\n[%f, %f]\\n, %d", '
                               'UBO.var2[0][0], UBO.var2[1][0], UBO.var2[0][1], '
                               'UBO.var2[1][1], ')
    assert_compiles(description)


def test_no_printf_flag_removes_only_the_extension_line():
    description, _ = trace(lambda: vc.printf("x"), flags=vc.ShaderFlags.NO_PRINTF)
    assert EXTENSION not in header_lines(description)
    origin = at("description, _ = trace(lambda: vc.printf(\"x\"), flags", "<lambda>")
    assert main_body(description) == [f'debugPrintfEXT("{origin}x");']


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
