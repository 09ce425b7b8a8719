"""Coarsening (vkdispatch.codegen.coarsening): which shaders may run several logical
invocations per invocation, and the body that does it (interleaved statements, loads before
stores, one set of variables per logical invocation, the tail behind the bounds check), compiled
with glslang; the decorator's ``coarsen`` argument and the factor policy."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from codegen_helpers import LOCAL_SIZE, assert_compiles, trace
from vkdispatch.codegen.abbreviations import Buff, Const, f32, i32, v2
from vkdispatch.codegen.coarsening import MAX_FACTOR, coarsenable, coarsened_body, obstacle
from vkdispatch.errors import InvalidArgumentError
from vkdispatch.shader.coarsening_policy import coarsening_factor
from vkdispatch.shader.shader_function import make_shader_function


def axpy(y, x, a):
    i = vc.global_invocation_id().x
    y[i] = x[i] * a + y[i]


def coarse_lines(description, factor: int) -> list[str]:
    source = assert_compiles(description.make_source(*LOCAL_SIZE,
                                                     coarsened_body(description, factor)))
    return [line.strip() for line in source.split("\n")]


def fast_path(lines: list[str]) -> list[str]:
    """The statements of the branch where every logical invocation is in bounds."""
    start = next(i for i, line in enumerate(lines) if line.startswith("if (gl_Global"))
    end = lines.index("} else {", start)
    return lines[start + 1:end]


def test_loads_of_every_logical_invocation_come_before_their_stores():
    description, _ = trace(axpy, Buff[f32], Buff[f32], Const[f32])
    fast = fast_path(coarse_lines(description, 3))
    computed = [i for i, line in enumerate(fast) if line.startswith("float vkd_stored")]
    stores = [i for i, line in enumerate(fast) if line.startswith("buf0.data[")]
    assert len(computed) == len(stores) == 3
    assert max(computed) < min(stores)
    assert fast[stores[0]] == "buf0.data[vkd_id0.x] = vkd_stored0_0;"
    assert "buf1.data[vkd_id2.x]" in fast[computed[2]]  # the third logical invocation's load
    assert fast[:3] == [f"uvec3 vkd_id{j} = uvec3(gl_GlobalInvocationID.x + {j}u * vkd_stride, "
                        "gl_GlobalInvocationID.yz);" for j in range(3)]


def test_each_logical_invocation_has_its_own_variables_and_blocks():
    def body(out, x):
        i = vc.global_invocation_id().x
        x_value = vc.new_register(vd.vec2, x[i], var_name="x")
        with vc.if_block(x_value.x > 0.0):
            out[i] = x_value
        with vc.else_block():
            out[i] = -x_value
        x_value.y = 1.0  # a component store to a register: no split, renamed

    description, _ = trace(body, Buff[v2], Buff[v2])
    fast = fast_path(coarse_lines(description, 2))
    assert "vec2 x_0 = vec2(buf1.data[vkd_id0.x]);" in fast
    assert "vec2 x_1 = vec2(buf1.data[vkd_id1.x]);" in fast
    assert fast.count("if((x_0.x > 0.0f)) {") == 1 and fast.count("if((x_1.x > 0.0f)) {") == 1
    assert "x_1.y = 1.0f;" in fast


def test_the_tail_runs_the_plain_body_behind_the_bounds_check():
    description, _ = trace(axpy, Buff[f32], Buff[f32], Const[f32])
    lines = coarse_lines(description, 4)
    tail = lines[lines.index("} else {") + 1:]
    assert tail[:3] == [
        "for (uint vkd_j = 0u; vkd_j < 4u; ++vkd_j) {",
        "uvec3 vkd_id = uvec3(gl_GlobalInvocationID.x + vkd_j * vkd_stride, "
        "gl_GlobalInvocationID.yz);",
        "if (any(lessThanEqual(UBO.exec_count.xyz, vkd_id))) { break; }"]
    assert tail[3] == "buf0.data[vkd_id.x] = ((buf1.data[vkd_id.x] * UBO.var0) + " \
                      "buf0.data[vkd_id.x]);"
    assert "if (gl_GlobalInvocationID.x + 3u * vkd_stride < UBO.exec_count.x && " \
           "all(lessThan(gl_GlobalInvocationID.yz, UBO.exec_count.yz))) {" in lines


def _shared(buffer):
    shared = vc.shared_buffer(vd.float32, 64)
    shared[vc.local_invocation_id().x] = buffer[vc.global_invocation_id().x]


@pytest.mark.parametrize("body, annotations, flags, reason", [
    (_shared, (Buff[f32],), vc.ShaderFlags.NONE, "it uses shared memory"),
    (lambda b: vc.barrier(), (Buff[f32],), vc.ShaderFlags.NONE, "it uses 'barrier'"),
    (lambda b: b.__setitem__(vc.local_invocation_id().x, 1.0), (Buff[f32],),
     vc.ShaderFlags.NONE, "it uses 'gl_LocalInvocationID'"),
    (lambda b: b.__setitem__(vc.workgroup_id().x, 1.0), (Buff[f32],), vc.ShaderFlags.NONE,
     "it uses 'gl_WorkGroupID'"),
    (lambda b: b.__setitem__(0, vc.subgroup_add(b[0])), (Buff[f32],), vc.ShaderFlags.NONE,
     "it uses 'subgroupAdd'"),
    (lambda b: vc.return_statement(), (Buff[f32],), vc.ShaderFlags.NONE, "it uses 'return'"),
    (lambda b: vc.printf("%f", b[0]), (Buff[f32],), vc.ShaderFlags.NONE,
     "it uses 'debugPrintfEXT'"),
    (axpy, (Buff[f32], Buff[f32], Const[f32]), vc.ShaderFlags.NO_EXEC_BOUNDS,
     "it has no bounds check"),
])
def test_shaders_whose_invocations_cooperate_are_not_coarsened(body, annotations, flags, reason):
    description, _ = trace(body, *annotations, flags=flags)
    assert not coarsenable(description)
    assert obstacle(description).startswith(reason)
    assert coarsening_factor(None, description, [H200]) == 1
    with pytest.raises(ValueError, match=f"coarsen=2: shader 'test' cannot run several .*"
                                         f"{reason}"):
        make_shader_function(description, coarsen=2)


def test_atomics_and_buffer_reads_of_other_indices_are_coarsened():
    def body(counts, x):
        vc.atomic_add(counts[0], x[vc.global_invocation_id().x])

    description, _ = trace(body, Buff[i32], Buff[i32])
    assert coarsenable(description)
    assert_compiles(description.make_source(*LOCAL_SIZE, coarsened_body(description, 2)))


def device(name: str, kind: int = 2):
    """What coarsening_factor reads of a DeviceInfo (kind 2: discrete GPU, 4: CPU)."""
    return SimpleNamespace(device_name=name, device_type=kind)


H100, H200, OTHER_GPU, CPU = (device("NVIDIA H100 80GB HBM3"), device("NVIDIA H200"),
                              device("AMD Radeon RX 7900 XTX"), device("llvmpipe", 4))


def test_the_factor_follows_the_shader_then_the_environment_then_the_device(monkeypatch):
    description, _ = trace(axpy, Buff[f32], Buff[f32], Const[f32])
    monkeypatch.delenv("VKDISPATCH_COARSEN", raising=False)
    assert [coarsening_factor(None, description, [d]) for d in (H100, H200, OTHER_GPU, CPU)] \
        == [2, 4, 4, 1]
    assert coarsening_factor(None, description, [H200, H100]) == 2  # the smallest
    assert coarsening_factor(False, description, [H200]) == 1
    assert coarsening_factor(1, description, [H200]) == 1
    assert coarsening_factor(True, description, [H200]) == 4  # True: the default, not 1
    assert coarsening_factor(3, description, [CPU]) == 3
    monkeypatch.setenv("VKDISPATCH_COARSEN", "5")
    assert coarsening_factor(None, description, [CPU]) == 5
    assert coarsening_factor(False, description, [CPU]) == 1
    monkeypatch.setenv("VKDISPATCH_COARSEN", "many")
    with pytest.raises(ValueError, match="VKDISPATCH_COARSEN must be an int between 1 and 64, "
                                         "got 'many'"):
        coarsening_factor(None, description, [H100])
    monkeypatch.setenv("VKDISPATCH_COARSEN", str(MAX_FACTOR))
    assert coarsening_factor(None, description, [H100]) == MAX_FACTOR
    monkeypatch.setenv("VKDISPATCH_COARSEN", "10000")
    with pytest.raises(ValueError, match="VKDISPATCH_COARSEN must be an int between 1 and 64, "
                                         "got 10000"):
        coarsening_factor(None, description, [H100])


def test_coarsen_argument_is_checked():
    def annotated(y: Buff[f32], x: Buff[f32], a: Const[f32]):
        axpy(y, x, a)

    for wrong in (0, 2.0, "2"):
        with pytest.raises(TypeError, match="coarsen must be None, a bool or an int >= 1"):
            vd.shader("y.size", coarsen=wrong)(annotated)
    assert vd.shader("y.size", coarsen=3)(annotated)._coarsen == 3


def test_factors_above_the_maximum_are_refused_at_decoration():
    """Each logical invocation is a copy of the body: at coarsen=10000 the build did not finish
    within 5 minutes."""
    def annotated(y: Buff[f32], x: Buff[f32], a: Const[f32]):
        axpy(y, x, a)

    assert MAX_FACTOR == 64  # the limit docs/shaders.rst states
    assert vd.shader("y.size", coarsen=MAX_FACTOR)(annotated)._coarsen == MAX_FACTOR
    for factor in (MAX_FACTOR + 1, 10000):
        with pytest.raises(InvalidArgumentError,
                           match=f"coarsen={factor} is above the maximum of 64"):
            vd.shader("y.size", coarsen=factor)(annotated)
    description, _ = trace(axpy, Buff[f32], Buff[f32], Const[f32])
    with pytest.raises(ValueError, match="coarsen: the factor must be between 1 and 64, got 65"):
        coarsened_body(description, MAX_FACTOR + 1)
