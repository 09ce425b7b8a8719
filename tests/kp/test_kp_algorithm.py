"""kp.Algorithm against numpy: bindings, workgroups, and constants typed as Kompute types them."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from helpers import random_array
from kp_programs import buffers, run, shader

import kp
from kp.native import native
from vkdispatch.errors import InvalidArgumentError

GLSL_TYPES = {np.float32: "float", np.int32: "int", np.uint32: "uint", np.float64: "double"}


def test_array_multiply(mgr, rng):
    a, b = random_array(rng, 1000, np.float32), random_array(rng, 1000, np.float32)
    ta, tb, out = mgr.tensor(a), mgr.tensor(b), mgr.tensor(np.zeros(1000))
    algorithm = mgr.algorithm([ta, tb, out], shader("o[i] = a[i] * b[i];",
                                                    "float a", "float b", "float o"))
    run(mgr, algorithm, [out])
    np.testing.assert_array_equal(out.data(), a * b)


def test_tensors_of_different_types_in_one_algorithm(mgr, rng):
    a = random_array(rng, 300, np.int32) // 4
    b = random_array(rng, 300, np.uint32) // 4
    c = random_array(rng, 300, np.float64)
    tensors = [mgr.tensor_t(a), mgr.tensor_t(b), mgr.tensor_t(c), mgr.tensor_t(np.zeros(300))]
    algorithm = mgr.algorithm(tensors, shader("o[i] = double(a[i]) * double(b[i]) + c[i];",
                                              "int a", "uint b", "double c", "double o"))
    run(mgr, algorithm, [tensors[3]])
    np.testing.assert_allclose(tensors[3].data(), a.astype(np.float64) * b + c, rtol=1e-15)


WORKGROUPS = "n[0] = gl_NumWorkGroups.x; n[1] = gl_NumWorkGroups.y; n[2] = gl_NumWorkGroups.z;"


@pytest.mark.parametrize("workgroup, expected", [
    ((0, 0, 0), (7, 1, 1)), ([4, 0, 2], (4, 1, 2)), ((3, 5, 0), (3, 5, 1)), ([0, 9, 9], (7, 1, 1)),
])
def test_workgroup_counts_and_the_default_rule(mgr, workgroup, expected):
    counts = mgr.tensor_t(np.zeros(7, np.uint32))
    algorithm = mgr.algorithm([counts], shader(WORKGROUPS, "uint n"), workgroup)
    run(mgr, algorithm, [counts])
    assert tuple(counts.data()[:3]) == expected


CONSTANTS = "s_out[0] = s; p_out[0] = p;"


def constants_shader(spec_type, push_type) -> bytes:
    s, p = GLSL_TYPES[spec_type], GLSL_TYPES[push_type]
    head = (f"layout(constant_id = 0) const {s} s = {s}(0);\n"
            f"layout(push_constant) uniform Push {{ {p} p; }};")
    return shader(CONSTANTS, f"{s} s_out", f"{p} p_out", head=head)


def read_constants(mgr, spec_type, push_type, spec_consts, push_consts):
    outputs = [mgr.tensor_t(np.zeros(1, spec_type)), mgr.tensor_t(np.zeros(1, push_type))]
    algorithm = mgr.algorithm(outputs, constants_shader(spec_type, push_type), (1, 1, 1),
                              spec_consts, push_consts)
    run(mgr, algorithm, outputs)
    return outputs[0].data()[0], outputs[1].data()[0]


@pytest.mark.parametrize("spec_type, push_type",
                         list(itertools.product(GLSL_TYPES, GLSL_TYPES)))
def test_arrays_keep_their_dtype(mgr, rng, spec_type, push_type):
    if spec_type is push_type is np.float64:
        pytest.skip("two float64 arrays take the float overload (next test)")
    spec = random_array(rng, 1, spec_type) // 2
    push = random_array(rng, 1, push_type) // 2
    assert read_constants(mgr, spec_type, push_type, spec, push) == (spec[0], push[0])


@pytest.mark.parametrize("spec, push", [
    ([2], [3]), ([2.5], [-1.25]), (np.array([2.5]), [7]), (np.array([2.5]), np.array([-3.0])),
    ((4,), np.array([5], np.uint32)),
])
def test_lists_and_float64_arrays_become_float32(mgr, spec, push):
    got = read_constants(mgr, np.float32, np.float32, spec, push)
    assert got == (np.float32(np.asarray(spec)[0]), np.float32(np.asarray(push)[0]))


def test_an_omitted_argument_counts_as_a_list(mgr):
    # Kompute's quirk: the int array goes through the float overload, so the shader's int reads
    # the bits of 5.0f; an empty int array for the push constants keeps the int.
    out = mgr.tensor_t(np.zeros(1, np.int32))
    source = shader("o[0] = s;", "int o", head="layout(constant_id = 0) const int s = 0;")
    for push, expected in (((), np.float32(5).view(np.int32)), (np.array([], np.int32), 5)):
        run(mgr, mgr.algorithm([out], source, (1, 1, 1), np.array([5], np.int32), push), [out])
        assert out.data()[0] == expected


def test_missing_specialization_constants_keep_the_shader_defaults(mgr):
    out = mgr.tensor(np.zeros(2))
    head = ("layout(constant_id = 0) const float a = 1.5;\n"
            "layout(constant_id = 1) const float b = 2.5;")
    run(mgr, mgr.algorithm([out], shader("o[0] = a; o[1] = b;", "float o", head=head),
                           (1, 1, 1), [8.0]), [out])
    np.testing.assert_array_equal(out.data(), [8.0, 2.5])


@pytest.mark.parametrize("values", [np.array([5]), np.array([1.0], np.float16)])
def test_arrays_of_other_dtypes_are_refused(mgr, values):
    out = mgr.tensor([0.0])
    with pytest.raises(RuntimeError, match="Kompute Python no valid dtype supported"):
        mgr.algorithm([out], shader("", "float o"), (1, 1, 1), values, np.array([], np.int32))


PUSH_ADD = "o[i] = a[i] + p.x * float(i) + p.y;"
PUSH_HEAD = "layout(push_constant) uniform Push { vec2 p; };"


def test_push_constants_per_dispatch_and_their_reuse(mgr, rng):
    a = random_array(rng, 64, np.float32)
    ta, out = mgr.tensor(a), mgr.tensor(np.zeros(64))
    algorithm = mgr.algorithm([ta, out], shader(PUSH_ADD, "float a", "float o", head=PUSH_HEAD),
                              push_consts=[1.0, 2.0])
    index = np.arange(64, dtype=np.float32)
    for push in ([1.0, 2.0], [0.5, -3.0], None):  # None: the last values recorded
        run(mgr, algorithm, [out], push)
        x, y = [0.5, -3.0] if push is None else push
        np.testing.assert_allclose(out.data(), a + np.float32(x) * index + np.float32(y),
                                   rtol=1e-6)


def test_push_constants_of_the_wrong_size_are_refused_at_record(mgr):
    out = mgr.tensor(np.zeros(4))
    algorithm = mgr.algorithm([out, mgr.tensor(np.zeros(4))],
                              shader(PUSH_ADD, "float a", "float o", head=PUSH_HEAD),
                              push_consts=[1.0, 2.0])
    with pytest.raises(RuntimeError, match="push constant total memory size provided is 4 but "
                                           "expected 8 bytes"):
        mgr.sequence().record(kp.OpAlgoDispatch(algorithm, [1.0]))


MIXED_HEAD = """layout(push_constant) uniform Push {
    vec2 offset; float weights[3]; mat2 turn; int count;
};"""
MIXED_BODY = ("o[i] = a[i] + offset.x + weights[2] + turn[1][1] + float(count);")


@pytest.mark.parametrize("head, body, enough", [
    (PUSH_HEAD, PUSH_ADD, 2),
    (MIXED_HEAD, MIXED_BODY, 16),  # a vector, an array, a matrix and an int: laid out by glslang
])
def test_fewer_push_constants_than_the_shader_declares_are_refused(mgr, rng, head, body,
                                                                    enough):
    """A shader reading bytes nobody pushed: refused when the algorithm is made, naming
    push_consts and both sizes; as many as declared (or more) run."""
    spirv = shader(body, "float a", "float o", head=head)
    tensors = [mgr.tensor(random_array(rng, 8, np.float32)), mgr.tensor(np.zeros(8))]
    with pytest.raises(ValueError, match=r"push_consts: the shader declares \d+ bytes of push "
                                         r"constants, got 4 \(the shader would read bytes "
                                         r"nobody set\)") as refused:
        mgr.algorithm(tensors, spirv, push_consts=[1.0])
    assert isinstance(refused.value, InvalidArgumentError)
    declared = int(str(refused.value).split("declares ")[1].split(" ")[0])
    assert 4 < declared <= 4 * enough
    with pytest.raises(ValueError, match=rf"declares {declared} bytes of push constants, got "
                                         rf"{declared - 4} "):
        mgr.algorithm(tensors, spirv, push_consts=[0.0] * (declared // 4 - 1))
    mgr.algorithm(tensors, spirv, push_consts=[0.0] * (declared // 4))
    mgr.algorithm(tensors, spirv, push_consts=[0.0] * enough)


def test_fewer_tensors_than_the_shader_uses_are_refused(mgr, rng):
    """A shader using bindings 0-2 given one tensor would read and write buffers nobody bound:
    refused when the algorithm is made, naming tensors and the first binding left unbound; a
    binding declared but never used needs no tensor, and three tensors compute numpy's sum."""
    spirv = shader("c[i] = a[i] + b[i];", "float a", "float b", "float c")
    a, b = random_array(rng, 16, np.float32), random_array(rng, 16, np.float32)
    tensors = [mgr.tensor(a), mgr.tensor(b), mgr.tensor(np.zeros(16, np.float32))]
    for given in (1, 2):
        with pytest.raises(InvalidArgumentError, match=rf"tensors: the shader uses binding "
                                                       rf"{given} of descriptor set 0, but "
                                                       rf"{given} tensors or images were given"):
            mgr.algorithm(tensors[:given], spirv)
    run(mgr, mgr.algorithm(tensors, spirv), [tensors[2]])
    np.testing.assert_array_equal(tensors[2].data(), a + b)
    source = f"""#version 450
layout(local_size_x = 1) in;
{buffers("float a", "float b", "float never")}
void main() {{ uint i = gl_GlobalInvocationID.x; b[i] = a[i] * 2.0; }}"""
    ok, unused, log = native.compile_glsl(source, "unused", 0)  # 0: binding 2 stays declared
    assert ok, log
    run(mgr, mgr.algorithm(tensors[:2], unused), [tensors[1]])
    np.testing.assert_array_equal(tensors[1].data(), a * 2)


def test_get_mem_objects_returns_the_same_objects(mgr):
    tensors = [mgr.tensor([1.0]), mgr.tensor_t(np.ones(1, np.int32))]
    algorithm = mgr.algorithm(tensors, shader("", "float a", "int b"))
    got = algorithm.get_mem_objects()
    assert all(g is t for g, t in zip(got, tensors, strict=True))
    assert [t is g for t, g in zip(algorithm.get_tensors(), got)] == [True, True]


def test_without_tensors_or_spirv_nothing_is_built(mgr):
    assert not mgr.algorithm([], shader("", "float a")).is_init()
    empty = mgr.algorithm([mgr.tensor([1.0])], b"")
    assert not empty.is_init()
    with pytest.raises(RuntimeError, match="not initialised"):
        mgr.sequence().record(kp.OpAlgoDispatch(empty))


def test_a_destroyed_algorithm_cannot_be_dispatched(mgr):
    algorithm = mgr.algorithm([mgr.tensor([1.0])], shader("a[i] = 1.0;", "float a"))
    assert algorithm.is_init()
    algorithm.destroy()
    assert not algorithm.is_init()
    with pytest.raises(RuntimeError, match="not initialised"):
        mgr.sequence().eval(kp.OpAlgoDispatch(algorithm))


@pytest.mark.parametrize("kwargs, message", [
    ({"spirv": bytearray(b"1234")}, "spirv must be bytes.*bytearray"),
    ({"workgroup": (1, 1)}, "workgroup must have 3 entries"),
    ({"workgroup": (1, -1, 1)}, r"workgroup\[1\] must be an int in 0"),
    ({"workgroup": (1, 1.5, 1)}, r"workgroup\[1\] must be an int, got float"),
    ({"tensors": "abc"}, "tensors must be a list of kp.Tensor"),
    ({"tensors": [np.ones(3)]}, r"tensors\[0\] must be a kp.Tensor"),
])
def test_argument_type_errors(mgr, kwargs, message):
    arguments = {"tensors": [mgr.tensor([1.0])], "spirv": shader("", "float a")} | kwargs
    with pytest.raises(TypeError, match=message):
        mgr.algorithm(**arguments)


def test_spirv_that_is_not_spirv_is_refused(mgr):
    with pytest.raises(ValueError, match="SPIR-V"):
        mgr.algorithm([mgr.tensor([1.0])], b"not spirv words!")


DOUBLE = "o[i] = a[i] * 2.0;"


def assert_still_computes(mgr, rng):
    """The manager works after a refused call: a new algorithm computes o = 2a."""
    a = random_array(rng, 64, np.float32)
    ta, out = mgr.tensor(a), mgr.tensor(np.zeros(64))
    run(mgr, mgr.algorithm([ta, out], shader(DOUBLE, "float a", "float o")), [out])
    np.testing.assert_array_equal(out.data(), a * 2)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_workgroup_counts_above_the_device_limit_are_refused(mgr, rng, axis):
    limit = mgr.get_device_properties()["max_work_group_count"]
    tensors = [mgr.tensor([1.0]), mgr.tensor([0.0])]
    workgroup = [1, 1, 1]
    workgroup[axis] = limit[axis] + 1
    name = "xyz"[axis]
    with pytest.raises(InvalidArgumentError,
                       match=f"workgroup: {name} = {limit[axis] + 1} exceeds the device's "
                             f"maxComputeWorkGroupCount\\[{axis}\\] = {limit[axis]}"):
        mgr.algorithm(tensors, shader(DOUBLE, "float a", "float o"), workgroup)
    at_limit = list(workgroup)
    at_limit[axis] = limit[axis]
    assert mgr.algorithm(tensors, shader(DOUBLE, "float a", "float o"), at_limit).is_init()
    assert_still_computes(mgr, rng)


def test_a_huge_workgroup_in_every_axis_is_refused_at_once(mgr, rng):
    # Dispatched, 70000^3 workgroups would keep lavapipe busy for minutes. The first axis
    # whose limit is below 70000 is named (y on NVIDIA, whose x limit is 2^31 - 1).
    limit = mgr.get_device_properties()["max_work_group_count"]
    axis = next(a for a in range(3) if limit[a] < 70000)
    with pytest.raises(ValueError, match=f"workgroup: {'xyz'[axis]} = 70000"):
        mgr.algorithm([mgr.tensor([1.0]), mgr.tensor([0.0])],
                      shader(DOUBLE, "float a", "float o"), (70000, 70000, 70000))
    assert_still_computes(mgr, rng)


def test_the_default_workgroup_of_too_large_a_tensor_is_refused(mgr):
    limit = mgr.get_device_properties()["max_work_group_count"][0]
    if limit >= 1 << 24:
        pytest.skip(f"a tensor of {limit + 1} elements is too large to test with")
    big = mgr.tensor(np.zeros(limit + 1, np.float32))
    with pytest.raises(ValueError, match=f"x = {limit + 1} \\(one workgroup per element of the "
                                         "first memory object, as x = 0 asks\\)"):
        mgr.algorithm([big, big], shader(DOUBLE, "float a", "float o"))


def _malformed(good: bytes) -> dict:
    words = len(good) // 4
    return {
        "header only": (good[:20], "is not valid SPIR-V"),
        "header and one word": (good[:24], "is not valid SPIR-V"),
        "cut in half": (good[:(words // 2) * 4], "is not valid SPIR-V"),
        "fewer words than a header": (good[:16], r"4 words \(16 bytes\) are no SPIR-V module"),
        "wrong magic number": (b"\x00\x01\x02\x03" + good[4:], "magic number"),
        "not whole words": (good[:21], "21 bytes"),
        "a scrambled body": (good[:20] + bytes(reversed(good[20:])), "is not valid SPIR-V"),
    }


@pytest.mark.parametrize("case", list(_malformed(b"\0" * 400)))
def test_malformed_spirv_is_refused_before_the_driver_sees_it(mgr, rng, case):
    # lavapipe crashed on most of these, or (under the validation layer) failed with "out of
    # host memory" while the layer's message surfaced at the next, unrelated call.
    bad, message = _malformed(shader(DOUBLE, "float a", "float o"))[case]
    with pytest.raises(InvalidArgumentError, match=f"spirv: .*{message}"):
        mgr.algorithm([mgr.tensor([1.0]), mgr.tensor([0.0])], bad)
    assert_still_computes(mgr, rng)


def test_a_validation_message_is_reported_by_the_call_that_failed(mgr, rng):
    # The layer reports from inside the failing call; before, only a successful call looked.
    native.inject_validation_error("VUID-test: reported during the failed call")
    with pytest.raises(InvalidArgumentError,
                       match="(?s)magic number.*VUID-test: reported during the failed call"):
        mgr.algorithm([mgr.tensor([1.0]), mgr.tensor([0.0])], b"\0" * 40)
    assert_still_computes(mgr, rng)  # the message was reported once, not by this next call
