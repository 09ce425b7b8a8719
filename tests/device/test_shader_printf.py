"""Device tests of shader printing: in debug mode (``VKDISPATCH_DEBUG=1``, validation layer
with debug printf) ``vc.printf``/``vc.print`` output reaches the ``vkdispatch`` logger, one
record ``"shader printf: [<shader> at <file>:<line>] <text>"`` per printed line, naming the
shader and the line of the printf call."""
from __future__ import annotations

import collections
import json
import logging
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from conftest import DEBUG

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, f32, i32, m2, u32, v2, v3

pytestmark = pytest.mark.skipif(not DEBUG, reason="shader printf needs VKDISPATCH_DEBUG=1")

PREFIX = "shader printf: "
DROPPED = "shader printf: lines were dropped"


def _printed(caplog) -> str:
    return "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("vkdispatch"))


ORIGIN = re.compile(r"\[(\w+) at ([\w.<>]+):(\d+)\] ")


def _printed_lines(messages) -> list[str]:
    """What follows "shader printf: " in each message that is a printed line, in arrival order
    (the truncation notice left out)."""
    return [m[len(PREFIX):] for m in messages if m.startswith(PREFIX) and not m.startswith(DROPPED)]


def _text(line: str) -> str:
    """A printed line without the origin it starts with (which every line must have)."""
    origin = ORIGIN.match(line)
    assert origin, f"no '[shader at file:line] ' origin: {line!r}"
    return line[origin.end():]


def _lines(caplog) -> list[str]:
    """The text of every printed line, without its origin, in arrival order."""
    return [_text(line) for line in _printed_lines(
        r.getMessage() for r in caplog.records if r.name.startswith("vkdispatch"))]


def _line_of(snippet: str, source: str | None = None) -> int:
    """The number of the one line of ``source`` (this file by default) that starts with
    ``snippet`` (after its indentation)."""
    lines = (Path(__file__).read_text() if source is None else source).splitlines()
    found = [number for number, line in enumerate(lines, 1) if line.lstrip().startswith(snippet)]
    assert len(found) == 1, (snippet, found)
    return found[0]


def _dropped_notices(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage().startswith(DROPPED)]


def test_printf_reaches_vkdispatch_logger(context, rng, caplog):
    caplog.set_level(logging.INFO, logger="vkdispatch")

    @vd.shader("out.size", local_size=(64, 1, 1))
    def noisy(out: Buff[f32], x: Buff[i32]):
        i = vc.global_invocation_id().x
        out[i] = vc.to_float(x[i]) * 2
        with vc.if_block(i < 3):
            vc.printf("probe-%u has %d", i, x[i])

    x = rng.integers(-1000, 1000, 200, dtype=np.int32)
    out = vd.Buffer((200,), vd.float32)
    noisy(out, vd.asbuffer(x))
    np.testing.assert_array_equal(out.read(0), x * 2.0)   # the dispatch itself is unaffected
    context.wait_idle()
    assert sorted(_lines(caplog)) == [f"probe-{i} has {x[i]}" for i in range(3)]


def test_print_vars_expands_vectors(context, rng, caplog):
    caplog.set_level(logging.INFO, logger="vkdispatch")

    @vd.shader(1)
    def show(v: Buff[v2]):
        vc.print("vector-probe", v[0], "end")

    values = rng.integers(1, 9, 2).astype(np.float32)
    buffer = vd.Buffer((1,), vd.vec2)
    buffer.write(values.reshape(1, 2))
    show(buffer)
    buffer.read(0)
    context.wait_idle()
    match = re.search(r"vector-probe \(([-\d.]+), ([-\d.]+)\) end", _printed(caplog))
    assert match, _printed(caplog)
    np.testing.assert_allclose([float(match.group(1)), float(match.group(2))], values)


def _say_from_helper(value):
    vc.printf("helper got %d", value)  # the line printed lines name; the shader is the caller


def test_printed_lines_name_the_shader_and_the_line_of_each_printf(context, rng, caplog):
    caplog.set_level(logging.INFO, logger="vkdispatch")

    @vd.shader(1)
    def origin_probe(x: Buff[i32], v: Const[v2]):
        vc.printf("direct %d", x[0])
        _say_from_helper(x[1])
        vc.print("vector", v)

    x = rng.integers(-10**6, 10**6, 2, dtype=np.int32)
    v = rng.integers(-50, 50, 2).astype(np.float32)
    origin_probe(vd.asbuffer(x), v)
    context.wait_idle()
    here = Path(__file__).name

    def at(snippet: str) -> str:
        return f"[origin_probe at {here}:{_line_of(snippet)}] "

    vector = f"({v[0]:f}, {v[1]:f})"
    assert sorted(_printed_lines(r.getMessage() for r in caplog.records)) == sorted([
        at('vc.printf("direct %d"') + f"direct {x[0]}",
        at('vc.printf("helper got %d"') + f"helper got {x[1]}",
        at('vc.print("vector", v)') + f"vector {vector}"])


# Every conversion the shader printf knows except %a (Python's % has none), with flags, widths
# and precisions; Python's % formatting of the same values is the reference.
MIXED = "i=%u d=%+d w=[%-7d] x=%x X=%08X o=%o f=%f e=%.3e g=%g G=%G p=%10.4f v=%v3f|"


def _mixed_reference(i, d, u, f, v) -> str:
    vector = ", ".join("%f" % float(c) for c in v)
    return (MIXED.replace("%v3f", "%s")
            % (i, d, d, u, u, u, float(f[0]), float(f[1]), float(f[2]), float(f[3]),
               float(f[4]), vector))


def test_printf_lines_equal_python_formatting_of_random_values(context, rng, caplog):
    caplog.set_level(logging.INFO, logger="vkdispatch")
    count = 96

    @vd.shader("d.size", local_size=(32, 1, 1))
    def report(d: Buff[i32], u: Buff[u32], f: Buff[f32], v: Buff[v3]):
        i = vc.global_invocation_id().x
        vc.printf(MIXED, i, d[i], d[i], u[i], u[i], u[i], f[5 * i], f[5 * i + 1], f[5 * i + 2],
                  f[5 * i + 3], f[5 * i + 4], v[i])

    d = rng.integers(-2**31, 2**31, count, dtype=np.int64).astype(np.int32)
    u = rng.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)
    f = (rng.standard_normal(5 * count) * 10.0 ** rng.integers(-6, 7, 5 * count)).astype(np.float32)
    v = rng.standard_normal((count, 3)).astype(np.float32)
    v_buffer = vd.Buffer((count,), vd.vec3)
    v_buffer.write(v)
    report(vd.asbuffer(d), vd.asbuffer(u), vd.asbuffer(f), v_buffer)
    context.wait_idle()
    expected = [_mixed_reference(i, d[i], u[i], f[5 * i:5 * i + 5], v[i]) for i in range(count)]
    assert sorted(_lines(caplog)) == sorted(expected)


def test_printf_text_prints_as_written_backslashes_quotes_and_tabs_included(context, rng, caplog):
    caplog.set_level(logging.INFO, logger="vkdispatch")
    text = 'C:\\temp "quoted"\tback\\slash 100%% \\\\ %d'

    @vd.shader(1)
    def show(x: Buff[i32], m: Const[m2]):
        vc.printf(text, x[0])
        vc.printf("two\\nlines %d", x[1])      # 0.1.0's newline: backslash, n
        vc.print("matrix", m, "end")

    x = rng.integers(-10**6, 10**6, 2, dtype=np.int32)
    matrix = rng.integers(-9, 9, (2, 2)).astype(np.float32)
    show(vd.asbuffer(x), matrix)
    context.wait_idle()
    rows = "".join("\n[" + ", ".join("%f" % c for c in row) + "]" for row in matrix.T)
    assert _lines(caplog) == [text % x[0], f"two\nlines {x[1]}", f"matrix {rows}\n end"]


@pytest.mark.parametrize("count", [4096, 8192])
def test_printf_of_thousands_of_invocations_delivers_every_line_or_warns(context, rng, caplog,
                                                                         count):
    caplog.set_level(logging.INFO, logger="vkdispatch")

    @vd.shader("x.size", local_size=(64, 1, 1))
    def every(x: Buff[i32]):
        i = vc.global_invocation_id().x
        vc.printf("line %u of %d", i, x[i])

    x = rng.integers(-10**9, 10**9, count, dtype=np.int32)
    every(vd.asbuffer(x))
    context.wait_idle()
    lines = collections.Counter(_lines(caplog))
    expected = collections.Counter(f"line {i} of {x[i]}" for i in range(count))
    notices = _dropped_notices(caplog)
    if count <= 4096:  # fits the default buffer (256 KiB, 40 bytes a line)
        assert lines == expected and not notices
        return
    assert 4096 <= lines.total() < count and lines <= expected
    assert len(notices) == 1 and notices[0].levelno == logging.WARNING
    assert "VKDISPATCH_PRINTF_BUFFER_SIZE" in notices[0].getMessage()


BUFFER_SIZE_CHILD = '''
import json, logging, os, sys
import numpy as np
import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, i32

messages = []
handler = logging.Handler()
handler.emit = lambda record: messages.append(record.getMessage())
logging.getLogger("vkdispatch").addHandler(handler)
os.environ["VKDISPATCH_PRINTF_BUFFER_SIZE"] = "lots"
try:
    vd.initialize(debug_mode=True)
    refused = None
except vd.errors.InvalidArgumentError as error:
    refused = str(error)
os.environ["VKDISPATCH_PRINTF_BUFFER_SIZE"] = sys.argv[1]
vd.initialize(debug_mode=True, log_level=vd.LogLevel.INFO)

@vd.shader("x.size", local_size=(64, 1, 1))
def lines(x: Buff[i32]):
    i = vc.global_invocation_id().x
    vc.printf("child %u %d", i, x[i])

lines(vd.asbuffer(np.arange(int(sys.argv[2]), dtype=np.int32)))
vd.make_context().wait_idle()
print("@@REPORT@@" + json.dumps({"refused": refused, "messages": messages,
                                 "settings_path": os.environ.get("VK_LAYER_SETTINGS_PATH")}))
'''


@pytest.mark.parametrize("variable, user_file, count, complete", [
    ("2048", None, 200, False),
    ("1048576", None, 20000, True),
    ("1048576", 2048, 200, False),   # the user's own layer settings file is left in charge
])
def test_printf_buffer_size_variable_sets_the_layer_buffer(context, tmp_path, variable, user_file,
                                                           count, complete):
    environment = {k: v for k, v in os.environ.items() if k != "VK_LAYER_SETTINGS_PATH"}
    # The child imports the vkdispatch under test, not one installed elsewhere.
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(Path(vd.__file__).parent.parent)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    environment["XDG_DATA_HOME"] = str(tmp_path)  # no vkconfig settings of this machine's user
    if user_file is not None:
        settings = tmp_path / "user_settings.txt"
        settings.write_text(f"khronos_validation.printf_buffer_size = {user_file}\n")
        environment["VK_LAYER_SETTINGS_PATH"] = str(settings)
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(BUFFER_SIZE_CHILD), variable,
                           str(count)], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, env=environment)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout.split("@@REPORT@@", 1)[1])
    assert "VKDISPATCH_PRINTF_BUFFER_SIZE must be a number of bytes from 128 to 1048576, got " \
           "'lots'" in report["refused"]
    lines = _printed_lines(report["messages"])
    # (a script run by "python -c" is the file "<string>")
    origin = f"[lines at <string>:{_line_of('vc.printf(', BUFFER_SIZE_CHILD)}] "
    assert set(lines) <= {f"{origin}child {i} {i}" for i in range(count)}
    dropped = [m for m in report["messages"] if m.startswith(DROPPED)]
    if complete:
        assert len(lines) == count and not dropped
    else:
        assert 0 < len(lines) < count // 2 and len(dropped) == 1
    in_charge = [m for m in report["messages"] if "khronos_validation.printf_buffer_size" in m]
    assert len(in_charge) == (user_file is not None)
    # The temporary settings go with the instance; a user's own stay where they were.
    assert report["settings_path"] == environment.get("VK_LAYER_SETTINGS_PATH")
