"""Device tests of shader error paths: each error is raised at the call that caused it, names
what was wrong, and leaves the context usable (a fresh dispatch still computes the right
answer afterwards)."""
from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.base.compute_plan import ComputePlan
from vkdispatch.codegen.abbreviations import Buff, Const, Var, f32, i32, u32

N = 700


@pytest.fixture(scope="module")
def healthy(context):
    """A small known-good shader; calling ``check(rng)`` proves the context still works."""

    @vd.shader("out.size", local_size=(64, 1, 1))
    def triple_plus(out: Buff[f32], x: Buff[f32], k: Const[f32]):
        i = vc.global_invocation_id().x
        out[i] = x[i] * 3 + k

    def check(rng) -> None:
        x = rng.standard_normal(N).astype(np.float32)
        k = float(rng.uniform(-5, 5))
        out = vd.Buffer((N,), vd.float32)
        triple_plus(out, vd.asbuffer(x), k)
        np.testing.assert_allclose(out.read(0), x * 3 + np.float32(k), rtol=1e-6, atol=1e-6)

    return check


@pytest.fixture
def copy_shader(context):
    @vd.shader("out.size", local_size=(64, 1, 1))
    def copy_scaled(out: Buff[f32], src: Buff[f32], k: Const[f32], v: Var[f32]):
        i = vc.global_invocation_id().x
        out[i] = src[i] * k + v

    return copy_scaled


def _line_of(marker: str) -> int:
    """The line number in this file of the line holding ``marker``."""
    with open(__file__, encoding="utf-8") as source:
        for number, line in enumerate(source, 1):
            if marker in line and "_line_of" not in line:
                return number
    raise AssertionError(f"marker {marker!r} not found")


def _buffers(rng):
    return vd.Buffer((N,), vd.float32), vd.asbuffer(rng.standard_normal(N).astype(np.float32))


def test_invalid_injected_glsl_raises_shader_build_error_with_log_and_source(context, rng,
                                                                             healthy):
    @vd.shader("out.size")
    def broken(out: Buff[f32]):
        i = vc.global_invocation_id().x
        out[i] = vc.str_to_dtype(vd.float32, "undefined_symbol_xyz + 1.0")

    out = vd.Buffer((N,), vd.float32)
    with pytest.raises(vd.ShaderBuildError, match="^Failed to build shader 'broken':") as info:
        broken(out)
    message = str(info.value)
    assert "broken" in message
    # The compiler's message points at a line; the numbered source shows that line.
    reported = re.search(r"(\d+): error: .*undefined_symbol_xyz", message)
    assert reported, message
    numbered = re.search(rf"^\s*{reported.group(1)}: .*undefined_symbol_xyz", message,
                         re.MULTILINE)
    assert numbered, message
    assert re.search(r"^\s*\d+: void main\(\) \{$", message, re.MULTILINE)
    assert "undefined_symbol_xyz" in info.value.compiler_log
    assert not broken.ready
    with pytest.raises(vd.ShaderBuildError,                        # not sticky, not cached ok
                       match="(?s)^Failed to build shader 'broken':.*undefined_symbol_xyz"):
        broken(out)
    healthy(rng)


def test_invalid_hand_written_glsl_raises_shader_build_error(context, rng, healthy):
    source = ("#version 450\nlayout(local_size_x = 1) in;\n"
              "void main() {\n    int x = missing_function(3);\n}\n")
    with pytest.raises(vd.ShaderBuildError,
                       match="(?s)^Failed to build shader 'hand_broken':.*missing_function"
                       ) as info:
        ComputePlan(source, [], 0, "hand_broken")
    message = str(info.value)
    assert re.search(r"^\s*4:\s+int x = missing_function\(3\);$", message, re.MULTILINE)
    healthy(rng)


def test_an_annotation_naming_something_undefined_is_refused_naming_the_parameter(
        context, rng, healthy):
    # This module's annotations are strings (from __future__ import annotations): evaluated
    # when decorated, where a bare NameError said nothing of the parameter.
    def kernel(out: Buff[f32], scale: Const[undefined_type]):  # noqa: F821
        pass

    with pytest.raises(vd.errors.InvalidTypeError,
                       match=r"argument 'scale' of 'kernel': its annotation cannot be evaluated "
                             r"\(name 'undefined_type' is not defined\)"):
        vd.shader("out.size")(kernel)
    with pytest.raises(vd.errors.InvalidTypeError, match="argument 'scale' of 'kernel'"):
        vd.map(kernel)
    healthy(rng)


def test_missing_argument_raises_naming_the_parameter(context, rng, healthy, copy_shader):
    out, src = _buffers(rng)
    with pytest.raises((TypeError, ValueError), match="'v'"):
        copy_shader(out, src, 2.0)
    with pytest.raises((TypeError, ValueError), match="'src'"):
        copy_shader(out, k=2.0, v=1.0)
    healthy(rng)


def test_unknown_keyword_raises_type_error_naming_it(context, rng, healthy, copy_shader):
    out, src = _buffers(rng)
    with pytest.raises(TypeError, match="'gain'"):
        copy_shader(out, src, 2.0, 1.0, gain=3.0)
    healthy(rng)


def test_argument_given_by_position_and_keyword_raises_type_error(context, rng, healthy,
                                                                  copy_shader):
    out, src = _buffers(rng)
    other = vd.Buffer((N,), vd.float32)
    with pytest.raises(TypeError, match="multiple values for argument 'k'"):
        copy_shader(out, src, 2.0, 1.0, k=3.0)
    with pytest.raises(TypeError, match="multiple values for argument 'out'"):
        copy_shader(out, src, k=2.0, v=1.0, out=other)
    healthy(rng)


def test_buffer_of_another_scalar_type_raises_type_error_naming_both(context, rng, healthy,
                                                                     copy_shader):
    out = vd.Buffer((N,), vd.float32)
    ints = vd.asbuffer(rng.integers(-100, 100, N).astype(np.int32))
    with pytest.raises(TypeError, match=r"'src'.*Buff\[float32\].*int32"):
        copy_shader(out, ints, 2.0, 1.0)
    graph = vd.CommandGraph()
    with pytest.raises(TypeError, match="'out'"):
        copy_shader(ints, out, 2.0, 1.0, graph=graph)
    healthy(rng)


def test_too_many_positional_arguments_raise_type_error(context, rng, healthy, copy_shader):
    out, src = _buffers(rng)
    with pytest.raises(TypeError, match="4 arguments"):
        copy_shader(out, src, 2.0, 1.0, 5.0)
    healthy(rng)


def test_non_buffer_for_buffer_parameter_raises_naming_it(context, rng, healthy, copy_shader):
    out, _src = _buffers(rng)
    with pytest.raises((TypeError, ValueError), match="'src'"):
        copy_shader(out, np.ones(N, np.float32), 2.0, 1.0)
    healthy(rng)


def test_callable_for_const_raises_value_error_naming_it(context, rng, healthy, copy_shader):
    out, src = _buffers(rng)
    graph = vd.CommandGraph()
    with pytest.raises(ValueError, match="'k'"):
        copy_shader(out, src, graph.bind_var("k"), 1.0, graph=graph)
    with pytest.raises(ValueError, match="'k'"):
        copy_shader(out, src, lambda *args: 2.0, 1.0)
    graph.destroy()
    healthy(rng)


@pytest.mark.parametrize("k, v, name, pattern", [
    (2.0 ** 200, 1.0, "k", "does not fit a float32"),
    ("two", 1.0, "k", "expected numbers"),
    (2.0, -1, "n", "does not fit a uint32"),
    (2.0, 2 ** 32, "n", "does not fit a uint32"),
    (2.0, 1.5, "n", "does not fit a uint32"),
    (2.0, 1j, "n", "complex value"),
])
def test_value_out_of_range_or_of_wrong_type_raises_naming_the_parameter(context, rng, healthy,
                                                                         k, v, name, pattern):
    @vd.shader("out.size", local_size=(64, 1, 1))
    def shift(out: Buff[f32], k: Const[f32], n: Var[vc.u32]):
        i = vc.global_invocation_id().x
        out[i] = k + vc.to_float(n)

    out = vd.Buffer((N,), vd.float32)
    with pytest.raises(ValueError, match=f"argument '{name}'.*{pattern}"):
        shift(out, k, v)
    shift(out, 0.5, 7)  # the same shader still works after the error
    np.testing.assert_array_equal(out.read(0), np.full(N, 7.5, np.float32))
    healthy(rng)


def test_wrong_sized_const_value_raises_value_error(context, rng, healthy):
    @vd.shader("out.size")
    def with_vector(out: Buff[f32], v: Const[vd.vec3]):
        i = vc.global_invocation_id().x
        out[i] = v.x + v.y + v.z

    out = vd.Buffer((N,), vd.float32)
    with pytest.raises(ValueError, match="3"):
        with_vector(out, [1.0, 2.0])
    healthy(rng)


def test_graph_argument_that_is_not_a_graph_raises(context, rng, healthy, copy_shader):
    out, src = _buffers(rng)
    with pytest.raises((TypeError, ValueError),
                       match="^Expected a CommandGraph object for 'graph', got str$"):
        copy_shader(out, src, 2.0, 1.0, graph="not a graph")
    healthy(rng)


@pytest.mark.parametrize("size", [0, -5, (0,), (5, 0), (3, 2, 0)])
def test_exec_size_zero_raises_value_error(context, rng, healthy, copy_shader, size):
    out, src = _buffers(rng)
    with pytest.raises(ValueError, match="greater than 0"):
        copy_shader(out, src, 2.0, 1.0, exec_size=size)
    healthy(rng)


def test_workgroups_beyond_device_maximum_raise_value_error(context, rng, healthy, copy_shader):
    out, src = _buffers(rng)
    limits = context.max_workgroup_count
    for axis in range(3):
        counts = [1, 1, 1]
        counts[axis] = limits[axis] + 1
        with pytest.raises(ValueError, match=f"dimension {axis} exceeds maximum"):
            copy_shader(out, src, 2.0, 1.0, workgroups=tuple(counts))
    # exec_size that needs one workgroup too many (each running `factor` elements: coarsening)
    too_large = limits[0] * 64 * copy_shader.bounds.factor + 1
    with pytest.raises(ValueError, match="exceeds maximum"):
        copy_shader(out, src, 2.0, 1.0, exec_size=too_large)
    healthy(rng)


@pytest.mark.parametrize("size, message", [
    ([10, 10], r"^exec_size: Must provide a tuple of dimensions! .*, got \[10, 10\]$"),
    ((10.5,), r"^exec_size: All dimensions must be integers! got \(10\.5,\)$"),
    ((1, 2, 3, 4), r"^exec_size: Must provide a tuple of length 1, 2, or 3! got \(1, 2, 3, 4\)$"),
    (True, r"^exec_size: Must provide a tuple of dimensions! .*, got True$"),
], ids=["list", "float", "length", "bool"])
def test_malformed_launch_sizes_raise_value_error(context, rng, healthy, copy_shader, size,
                                                 message):
    out, src = _buffers(rng)
    with pytest.raises(ValueError, match=message):
        copy_shader(out, src, 2.0, 1.0, exec_size=size)
    healthy(rng)


def test_local_size_beyond_device_limits_raises_value_error(context, rng, healthy):
    max_size = context.max_workgroup_size
    too_wide = (max_size[0] + 1, 1, 1)
    too_many = (max_size[0], min(max_size[1], 2 * context.max_workgroup_invocations
                                 // max_size[0] + 2), 1)
    assert too_many[0] * too_many[1] > context.max_workgroup_invocations
    for local_size, pattern in ((too_wide, "local_size\\[0\\]"),
                                (too_many, "max_workgroup_invocations")):
        @vd.shader("out.size", local_size=local_size)
        def oversized(out: Buff[f32]):
            out[vc.global_invocation_id().x] = 1.0

        with pytest.raises(ValueError, match=pattern):
            oversized(vd.Buffer((N,), vd.float32))
    healthy(rng)


def test_push_constants_beyond_device_limit_raise_value_error(context, rng, healthy):
    limit = min(info.max_push_constant_size for info in context.device_infos)
    count = limit // 16 + 1                    # vec4 push constants: one more than fits
    annotations = [Buff[f32]] + [Var[vd.vec4]] * count

    def body(out, *vectors):
        out[vc.global_invocation_id().x] = vectors[0].x + vectors[-1].w

    too_many = vd.shader("out.size", arg_type_annotations=annotations)(body)
    with pytest.raises(ValueError, match=str(limit)):
        too_many(vd.Buffer((N,), vd.float32), *([np.ones(4, np.float32)] * count))
    healthy(rng)


def test_shared_memory_beyond_device_limit_raises_value_error(context, rng, healthy):
    floats = context.max_shared_memory // 4 + 16

    @vd.shader("x.size", local_size=(64, 1, 1))
    def oversized(x: Buff[f32]):
        tile = vc.shared_buffer(vd.float32, floats, var_name="tile")
        i = vc.global_invocation_id().x
        tile[i] = x[i]
        vc.barrier()
        x[i] = tile[i] + 1

    with pytest.raises(ValueError, match=f"shared memory; the device allows "
                                         f"{context.max_shared_memory}"):
        oversized(vd.asbuffer(rng.standard_normal(64).astype(np.float32)))
    healthy(rng)


def test_destroyed_buffer_argument_raises_and_later_calls_work(context, rng, healthy,
                                                                copy_shader):
    out, src = _buffers(rng)
    src.destroy()
    with pytest.raises(ValueError, match="argument 'src' .* is a destroyed buffer"):
        copy_shader(out, src, 2.0, 1.0)
    healthy(rng)


@pytest.mark.parametrize("position", [2, 3], ids=["Const", "Var"])
def test_none_for_a_value_parameter_raises_naming_it(context, rng, healthy, copy_shader,
                                                     position):
    out, src = _buffers(rng)
    args = [out, src, 2.0, 1.0]
    args[position] = None
    with pytest.raises(ValueError, match="'{}' .* is None".format("kv"[position - 2])):
        copy_shader(*args)
    healthy(rng)


@dataclasses.dataclass
class Affine:
    scale: f32
    shift: f32


@vd.shader("out.size", local_size=(64, 1, 1))
def affine(out: Buff[f32], src: Buff[f32], p: Affine):
    i = vc.global_invocation_id().x
    out[i] = src[i] * p.scale + p.shift


@pytest.mark.parametrize("field", ["scale", "shift"])
def test_none_in_a_dataclass_field_raises_naming_the_field(context, rng, healthy, field):
    """It used to be packed as 0, like a Const given None before that was refused."""
    out, src = _buffers(rng)
    before = out.read(0)
    values = {"scale": 2.0, "shift": 1.0, field: None}
    with pytest.raises(ValueError, match=rf"^argument 'p\.{field}' of shader 'affine' is None"):
        affine(out, src, Affine(**values))
    np.testing.assert_array_equal(out.read(0), before)  # nothing ran
    scale, shift = (float(v) for v in rng.uniform(-4, 4, 2))
    affine(out, src, Affine(scale, shift))
    np.testing.assert_allclose(out.read(0), src.read(0) * np.float32(scale) + np.float32(shift),
                               rtol=1e-6, atol=1e-6)
    healthy(rng)


def test_workgroups_and_exec_size_in_one_call_raise_like_the_decorator(context, rng, healthy,
                                                                       copy_shader):
    """exec_size used to win silently; either alone still replaces the decorator's size."""
    out, src = _buffers(rng)
    before = out.read(0)
    with pytest.raises(ValueError, match=r"^Cannot specify both 'workgroups' and 'exec_size' "
                                         r"in one call \(got workgroups=2, exec_size=100\)"):
        copy_shader(out, src, 2.0, 1.0, workgroups=2, exec_size=100)
    np.testing.assert_array_equal(out.read(0), before)  # nothing ran
    expected = before.copy()
    count = int(rng.integers(1, N // 2))
    copy_shader(out, src, 2.0, 1.0, exec_size=count)
    expected[:count] = src.read(0)[:count] * 2 + 1
    np.testing.assert_allclose(out.read(0), expected, rtol=1e-6)
    copy_shader(out, src, 3.0, 0.5, workgroups=2)  # 2 groups of 64 invocations
    expected[:128] = src.read(0)[:128] * 3 + 0.5
    np.testing.assert_allclose(out.read(0), expected, rtol=1e-6)
    healthy(rng)


def test_casts_of_literals_at_the_edges_give_numpys_conversions(context, rng, healthy):
    """Ints of the other signedness of the same width convert bit for bit, as numpy's astype
    does (out-of-range literals raise while tracing: tests/unit/test_codegen_errors.py)."""
    ints = [int(v) for v in rng.integers(-2**31, 0, 3)] + \
        [int(v) for v in rng.integers(2**31, 2**32, 3)] + [-1, -2**31, 2**32 - 1]
    floats = [float(v) for v in rng.uniform(-1e6, 1e6, 3)]

    @vd.shader(exec_size=1, local_size=(1, 1, 1))
    def edges(as_uint: Buff[u32], as_int: Buff[i32]):
        for k, value in enumerate(ints):
            as_uint[k] = vc.to_uint(value)
            as_int[k] = vc.to_int(value)
        for k, value in enumerate(floats, len(ints)):
            as_int[k] = vc.to_int(value)

    as_uint, as_int = vd.Buffer((len(ints),), vd.uint32), vd.Buffer((len(ints + floats),), vd.int32)
    edges(as_uint, as_int)
    np.testing.assert_array_equal(as_uint.read(0), np.array(ints, np.int64).astype(np.uint32))
    expected = np.concatenate([np.array(ints, np.int64).astype(np.int32),
                               np.trunc(np.array(floats, np.float32)).astype(np.int32)])
    np.testing.assert_array_equal(as_int.read(0), expected)
    healthy(rng)


@pytest.mark.parametrize("value", ["abc", None, {"a": 1}])
def test_set_var_refuses_a_non_number_when_set(context, rng, healthy, copy_shader, value):
    out, src = _buffers(rng)
    graph = vd.CommandGraph()
    copy_shader(out, src, 2.0, graph.bind_var("offset"), graph=graph)
    with pytest.raises(ValueError, match=r"set_var\('offset'\): expected numbers"):
        graph.set_var("offset", value)
    graph.set_var("offset", 1.5)
    graph.submit()
    np.testing.assert_allclose(out.read(0), src.read(0) * 2 + 1.5, rtol=1e-6)
    healthy(rng)


@pytest.mark.parametrize("value, instances, expected", [
    ([1.0, 2.0], 1, "takes 1 value\\(s\\) for instance_count=1, got 2"),
    ([1.0, 2.0], 3, "takes 1 value\\(s\\) or 3 \\(one per instance\\) for "
                    "instance_count=3, got 2")])
def test_var_count_errors_name_the_users_var_and_count_per_instance(context, rng, healthy,
                                                                   copy_shader, value,
                                                                   instances, expected):
    """They named the internal member ('Var 'var1'') and ignored the instance count."""
    out, src = _buffers(rng)
    graph = vd.CommandGraph()
    copy_shader(out, src, 2.0, graph.bind_var("offset"), graph=graph)
    graph.set_var("offset", value)
    with pytest.raises(ValueError, match=r"set_var\('offset'\): a float32 Var " + expected):
        graph.submit(instance_count=instances)
    graph.set_var("offset", [0.25, 0.5, 1.5])  # one per instance: the last one stays
    graph.submit(instance_count=3)
    np.testing.assert_allclose(out.read(0), src.read(0) * 2 + 1.5, rtol=1e-6)
    graph.destroy()
    healthy(rng)


def test_graph_with_destroyed_buffer_raises_at_submit_and_can_be_rerecorded(context, rng,
                                                                            healthy,
                                                                            copy_shader):
    out, src = _buffers(rng)
    doomed = vd.Buffer((N,), vd.float32)
    graph = vd.CommandGraph()
    copy_shader(doomed, src, 2.0, 1.0, graph=graph)
    doomed.destroy()
    with pytest.raises(ValueError, match="destroyed"):
        graph.submit()
    graph.reset()
    copy_shader(out, src, 2.0, 1.0, graph=graph)
    graph.submit()
    np.testing.assert_allclose(out.read(0), src.read(0) * 2 + 1, rtol=1e-6, atol=1e-6)
    graph.destroy()
    healthy(rng)


def test_set_var_of_unbound_name_raises_value_error(context, rng, healthy, copy_shader):
    out, src = _buffers(rng)
    graph = vd.CommandGraph()
    copy_shader(out, src, 2.0, graph.bind_var("v"), graph=graph)
    with pytest.raises(ValueError, match="'offset'"):
        graph.set_var("offset", 1.0)
    graph.set_var("v", 0.5)            # the graph itself is fine
    graph.submit()
    np.testing.assert_allclose(out.read(0), src.read(0) * 2 + 0.5, rtol=1e-6, atol=1e-6)
    graph.destroy()
    healthy(rng)


def test_bind_var_with_default_immediate_graph_raises_value_error(context, rng, healthy,
                                                                  copy_shader):
    out, src = _buffers(rng)
    with pytest.raises(ValueError, match="default cmd list"):
        copy_shader(out, src, 2.0, vd.default_graph().bind_var("v"))
    healthy(rng)


def test_python_if_on_shader_value_raises_with_file_and_line(context, rng, healthy):
    with pytest.raises(TypeError, match="cannot be cast to a python boolean") as info:
        @vd.shader("out.size")
        def python_if(out: Buff[f32], x: Buff[f32]):
            i = vc.global_invocation_id().x
            if x[i] > 0:  # MISUSE-python-if
                out[i] = 1.0

    assert f"{__file__}:{_line_of('MISUSE-python-if')}" in str(info.value)
    assert "python_if" in str(info.value)
    healthy(rng)


def test_float_literal_into_int_target_raises_type_error_with_line(context, rng, healthy):
    with pytest.raises(TypeError, match=r"^cannot assign the float 2\.5 to 'buf0\.data\[.*\]' "
                                        "of type int32;") as info:
        @vd.shader("out.size")
        def float_into_int(out: Buff[i32]):
            i = vc.global_invocation_id().x
            out[i] = 2.5  # MISUSE-float-literal

    assert f"{__file__}:{_line_of('MISUSE-float-literal')}" in str(info.value)
    healthy(rng)


def test_mismatched_assignment_type_raises_with_line(context, rng, healthy):
    with pytest.raises(TypeError, match="^Cannot set variable of type 'float32' to value of "
                                        "type 'int32'!") as info:
        @vd.shader("out.size")
        def int_into_float(out: Buff[f32], x: Buff[i32]):
            i = vc.global_invocation_id().x
            out[i] = x[i] * 2  # MISUSE-int-into-float

    assert f"{__file__}:{_line_of('MISUSE-int-into-float')}" in str(info.value)
    healthy(rng)


def test_unannotated_parameter_raises_value_error(context, rng, healthy):
    with pytest.raises(ValueError, match="'scale'"):
        @vd.shader("out.size")
        def unannotated(out: Buff[f32], scale):
            out[vc.global_invocation_id().x] = 1.0

    healthy(rng)


def test_failed_trace_leaves_no_active_builder(context, rng, healthy):
    with pytest.raises(TypeError, match=r"^cannot assign the float 0\.5 to .* of type int32"):
        @vd.shader("out.size")
        def bad(out: Buff[i32]):
            out[vc.global_invocation_id().x] = 0.5

    with pytest.raises(RuntimeError, match="^No global ShaderBuilder is set"):
        vc.get_builder()              # tracing state was cleaned up

    @vd.shader("out.size")            # and a new shader traces and runs
    def good(out: Buff[i32]):
        i = vc.global_invocation_id().x
        out[i] = vc.to_int(i) * 2

    out = vd.asbuffer(rng.integers(1, 100, N, dtype=np.int32))
    good(out)
    np.testing.assert_array_equal(out.read(0), np.arange(N) * 2)
    healthy(rng)


def test_malformed_launch_specs_and_sources_raise_naming_the_argument(context, rng, healthy):
    out = vd.Buffer((N,), vd.float32)

    def fill_with(**launch):
        @vd.shader(**launch)
        def fill(out: Buff[f32]):
            out[vc.global_invocation_id().x] = 1.0
        return fill

    with pytest.raises(ValueError, match=r"exec_size='nonsense'.*\(out\)"):
        fill_with(exec_size="nonsense")(out)
    with pytest.raises(ValueError, match="local_size must be"):
        fill_with(exec_size="out.size", local_size="a")(out)
    with pytest.raises(TypeError, match="shader_source"):
        ComputePlan(None, [1], 0, "none")
    healthy(rng)


def test_recording_into_a_destroyed_graph_raises(context, rng, healthy, copy_shader):
    out, src = _buffers(rng)
    graph = vd.CommandGraph()
    graph.destroy()
    with pytest.raises(ValueError, match="CommandGraph was destroyed"):
        copy_shader(out, src, 2.0, 1.0, graph=graph)
    with pytest.raises(ValueError, match="CommandGraph was destroyed"):
        vd.copy(out, src, graph=graph)
    healthy(rng)
