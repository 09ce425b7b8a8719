"""Argument kinds (docs/shaders.rst, "Parameters") and the generated GLSL layout: bindings,
the uniform block, the push-constant block and variable names.

Includes two shaders whose bodies and blocks reproduce the GLSL that vkdispatch 0.1.0
generated for them, and a check that the uniform/push-constant member order agrees with the
offsets glslang assigns (the host packs members back to back).
"""
from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import threading

import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from codegen_helpers import (LOCAL_SIZE, assert_compiles, header_lines, main_body, native,
                             source_of, trace)
from vkdispatch.base import dtype as dt
from vkdispatch.codegen.abbreviations import (Buff, Const, Img1, Img2, Img3, Var, c128, f16,
                                              f32, f64, i16, i32, i64, iv3, m4, u16, u32, u64,
                                              v2, v3)
from vkdispatch.codegen.builder import ShaderArgumentType
from vkdispatch.shader.aliasing import BufferAliasing
from vkdispatch.dtypes import scalar_of

GUARD = "if(any(lessThanEqual(UBO.exec_count.xyz, gl_GlobalInvocationID))) { return; }"


# -- two shaders as vkdispatch 0.1.0 generated them ----------------------------------------------

@vd.shader("values.size", local_size=LOCAL_SIZE)
def shift(values: Buff[f32], offset: Const[f32]):
    i = vc.global_invocation_id().x
    values[i] = values[i] + offset


@vd.shader(exec_size=lambda args: args.a.size, local_size=LOCAL_SIZE)
def k2(a: Buff[v2], b: Buff[i32], s: Var[f32], c: Const[iv3]):
    tid = vc.global_invocation_id().x
    r = a[tid].to_register("r")
    r[:] = r * s
    with vc.if_block(tid < 10):
        a[tid] = r
    with vc.else_block():
        b[tid] = b[tid] + c.x
    old = vc.atomic_add(b[0], 1)  # noqa: F841


def test_reference_example_shift_is_reproduced():
    source = assert_compiles(shift)
    assert source == (
        "#version 450\n"
        "#extension GL_EXT_scalar_block_layout : require\n"
        "\n"
        "layout(set = 0, binding = 0, scalar) uniform UniformObjectBuffer {\n"
        "    uvec4 exec_count;\n"
        "    float var0;\n"
        "} UBO;\n"
        "layout(set = 0, binding = 1, scalar) buffer Buffer1 { float data[]; } buf0;\n"
        "\n"
        "layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;\n"
        "void main() {\n"
        f"    {GUARD}\n"
        "    buf0.data[gl_GlobalInvocationID.x] = (buf0.data[gl_GlobalInvocationID.x] + "
        "UBO.var0);\n"
        "}\n")
    description = shift.shader_description
    assert description.pc_size == 0
    assert description.binding_type_list == [3, 1]
    assert description.binding_access == [(True, False), (True, True)]


def test_reference_example_k2_is_reproduced():
    source = assert_compiles(k2)
    assert (
        "layout(set = 0, binding = 0, scalar) uniform UniformObjectBuffer {\n"
        "    uvec4 exec_count;\n"
        "    ivec3 var1;\n"
        "} UBO;\n"
        "layout(set = 0, binding = 1, scalar) buffer Buffer1 { vec2 data[]; } buf0;\n"
        "layout(set = 0, binding = 2, scalar) buffer Buffer2 { int data[]; } buf1;\n"
        "\n"
        "layout(push_constant, scalar) uniform PushConstant {\n"
        "    float var0;\n"
        "} PC;\n") in source
    body = source[source.index("void main() {"):]
    assert body == (
        "void main() {\n"
        f"    {GUARD}\n"
        "    vec2 r = buf0.data[gl_GlobalInvocationID.x];\n"
        "    r = (r * PC.var0);\n"
        "    if((gl_GlobalInvocationID.x < 10)) {\n"
        "        buf0.data[gl_GlobalInvocationID.x] = r;\n"
        "    }\n"
        "    else {\n"
        "        buf1.data[gl_GlobalInvocationID.x] = (buf1.data[gl_GlobalInvocationID.x] + "
        "UBO.var1.x);\n"
        "    }\n"
        "    int var2 = atomicAdd(buf1.data[0], int(1));\n"
        "}\n")
    assert k2.shader_description.pc_size == 4
    assert k2.shader_description.binding_access == [(True, False), (True, True), (True, True)]


def test_get_src_without_build_returns_the_same_source():
    try:
        source = shift.get_src(line_numbers=False, build=False)
    except (vd.BackendUnavailableError, RuntimeError) as error:  # get_src asks the context
        pytest.skip(f"no Vulkan context for get_src: {error}")
    assert source.code == source_of(shift) + "\n"
    assert source.local_size == LOCAL_SIZE


# -- argument kinds ----------------------------------------------------------------------------

@dataclasses.dataclass
class Params:
    scale: f32
    offset: v3
    count: i32


def test_argument_kinds_and_their_names_bindings_and_infos():
    def body(a, tex, p, s, b, m, tex3):
        a[0] = p.scale * s
        b[0] = p.count

    description, _ = trace(body, Buff[f32], Img2[f32], Params, Var[f32], Buff[i32], Const[m4],
                           Img3[f32])
    header = header_lines(description)
    assert "layout(set = 0, binding = 1, scalar) buffer Buffer1 { float data[]; } buf0;" in header
    assert "layout(set = 0, binding = 2) uniform sampler2D tex1;" in header
    assert "layout(set = 0, binding = 3, scalar) buffer Buffer3 { int data[]; } buf2;" in header
    assert "layout(set = 0, binding = 4) uniform sampler3D tex3;" in header
    assert description.binding_type_list == [3, 1, 5, 1, 5]
    infos = description.shader_arg_infos
    assert [i.arg_type for i in infos] == [
        ShaderArgumentType.BUFFER, ShaderArgumentType.IMAGE,
        ShaderArgumentType.CONSTANT_DATACLASS, ShaderArgumentType.VARIABLE,
        ShaderArgumentType.BUFFER, ShaderArgumentType.CONSTANT, ShaderArgumentType.IMAGE]
    assert [i.binding for i in infos] == [1, 2, None, None, 3, None, 4]
    assert infos[0].shader_name == "buf0.data" and infos[0].shader_shape_name == "buf0_shape"
    assert infos[1].shader_name == "tex1"
    assert infos[2].shader_name == {"scale": "var0", "offset": "var1", "count": "var2"}
    assert (infos[3].shader_name, infos[5].shader_name) == ("var3", "var4")
    assert [e.name for e in description.uniform_structure] == [
        "var4", "exec_count", "var1", "var0", "var2"]
    assert [e.name for e in description.pc_structure] == ["var3"]
    assert_compiles(description)


def test_buffers_the_body_never_writes_are_declared_readonly():
    """Read-only buffers are NonWritable; a buffer written by a store, an in-place update or
    an atomic is not (glslang refuses a write to a readonly buffer, so the build checks it)."""
    def body(x, y, z, w, unused):
        i = vc.global_invocation_id().x
        y[i] = x[i] * 2.0
        z[i] += x[i]
        vc.atomic_add(w[0], 1)

    description, _ = trace(body, Buff[f32], Buff[f32], Buff[f32], Buff[i32], Buff[f32])
    header = header_lines(description)
    declared = {line.split()[-1].rstrip(";"): line for line in header if "Buffer" in line}
    assert [name for name, line in declared.items() if " readonly buffer " in line] == [
        "buf0", "buf4"]
    assert_compiles(description)


def test_aliased_variant_reaches_a_shared_buffer_through_one_binding():
    """For a call binding one buffer to parameters 0 and 2 (and another to 1 and 3, both read
    only: those need nothing), the variant declares parameter 0's binding, writable since
    parameter 2 writes, and names parameter 2 after it; the descriptor layout is unchanged."""
    def body(a, b, c, d):
        i = vc.global_invocation_id().x
        c[i] = a[i] + b[i] + d[i]

    description, _ = trace(body, Buff[f32], Buff[f32], Buff[f32], Buff[f32])
    aliasing = BufferAliasing(description, [info.binding for info in
                                            description.shader_arg_infos])
    shared, other = object(), object()
    aliases = aliasing.of((shared, other, shared, other))
    assert aliases == ((2, 0),)
    assert aliasing.of((shared, other, object(), object())) == ()
    source = description.make_source(64, 1, 1, None, dict(aliases))
    declarations = [line for line in source.splitlines() if "buffer Buffer" in line]
    assert declarations == [
        "layout(set = 0, binding = 1, scalar) buffer Buffer1 { float data[]; } buf0;",
        "layout(set = 0, binding = 2, scalar) readonly buffer Buffer2 { float data[]; } buf1;",
        "layout(set = 0, binding = 4, scalar) readonly buffer Buffer4 { float data[]; } buf3;"]
    assert "#define buf2 buf0" in source.splitlines()
    ok, _, log = native.compile_glsl(source, "aliased", 0)
    assert ok, log


def test_raw_text_naming_a_buffer_counts_as_its_access():
    """``str_to_dtype`` text naming a buffer marks it read, and written when settable (what the
    barriers between dispatches and the readonly declarations rely on); a name is matched
    whole (buf1 is not buf10)."""
    def body(*buffers):
        target = vc.str_to_dtype(f32, f"{buffers[0].name}.data[0]", settable=True)
        target[:] = vc.str_to_dtype(f32, f"{buffers[1].name}.data[1]")
        buffers[10][0] = 1.0

    description, _ = trace(body, *[Buff[f32]] * 11)
    access = description.binding_access[description.resource_binding_base:]
    assert access[:3] == [(True, True), (True, False), (False, False)]
    assert access[10] == (True, True)
    assert_compiles(description)


def test_register_and_argument_names_share_one_counter():
    def body(out, a, b):
        r = (a + b).to_register()
        out[0] = r
        return r

    description, r = trace(body, Buff[f32], Const[f32], Var[f32])
    assert r.name == "var2"


def test_decorated_shader_records_names_and_defaults():
    @vd.shader(local_size=LOCAL_SIZE)
    def with_defaults(out: Buff[f32], scale: Const[f32] = 2.0, bias: Var[f32] = None):
        out[0] = scale + bias

    names = with_defaults.shader_description.get_arg_names_and_defaults()
    assert names[1:] == [("scale", 2.0), ("bias", None)]
    assert names[0][0] == "out"
    assert_compiles(with_defaults)


def test_manual_context_arguments_without_defaults_are_required():
    import inspect

    description, _ = trace(lambda a: None, Buff[f32])
    assert description.shader_arg_infos[0].default_value is inspect.Parameter.empty


def test_manual_shader_context_like_the_reference():
    with vc.shader_context() as ctx:
        a, b = ctx.declare_input_arguments([Buff[f32], Const[f32]], ["a", "b"])
        a[vc.global_invocation_id().x] += b
        with pytest.raises(RuntimeError, match="already been declared"):
            ctx.declare_input_arguments([Buff[f32]])
    description = ctx.get_description("manual")
    assert ctx.get_description() is description
    assert description.name == "manual"
    function = vd.make_shader_function(description, local_size=LOCAL_SIZE, exec_count="a.size")
    assert main_body(function) == ["buf0.data[gl_GlobalInvocationID.x] += UBO.var0;"]
    assert_compiles(function)


# -- blocks: member order and offsets ------------------------------------------------------------

def _packed_offsets(structure):
    offsets, offset = [], 0
    for element in structure:
        offsets.append(offset)
        offset += element.dtype.item_size * element.count
    return offsets


def test_block_members_are_largest_first_and_stable_for_ties():
    def body(*args):
        pass

    description, _ = trace(body, Const[f32], Const[v3], Const[i32], Const[m4], Var[f32],
                           Var[v2], Var[u32])
    assert [e.name for e in description.uniform_structure] == [
        "var3", "exec_count", "var1", "var0", "var2"]
    assert [e.name for e in description.pc_structure] == ["var5", "var4", "var6"]
    assert description.pc_size == 16
    assert description.uniform_size == 64 + 16 + 12 + 4 + 4


def test_wide_components_come_first_so_back_to_back_packing_stays_aligned():
    description, _ = trace(lambda *a: None, Const[v3], Const[f64], Const[f16], Const[c128],
                           Var[v3], Var[u64], Var[i16])
    for structure in (description.uniform_structure, description.pc_structure):
        for element, offset in zip(structure, _packed_offsets(structure)):
            assert offset % scalar_of(element.dtype).item_size == 0, (element, offset)
    assert_compiles(description)


@pytest.mark.skipif(shutil.which("spirv-dis") is None, reason="needs spirv-dis")
def test_host_packing_offsets_equal_the_offsets_glslang_assigns():
    description, _ = trace(lambda *a: None, Const[v3], Const[f64], Const[f16], Const[i32],
                           Const[c128], Const[m4], Var[v3], Var[u64], Var[i16], Var[f32])
    ok, spirv, log = native.compile_glsl(source_of(description), "offsets", 0)
    assert ok, log
    text = subprocess.run(["spirv-dis", "-"], input=spirv, capture_output=True,
                          check=True).stdout.decode()
    for block, structure in (("UniformObjectBuffer", description.uniform_structure),
                             ("PushConstant", description.pc_structure)):
        found = {int(m.group(1)): int(m.group(2)) for m in re.finditer(
            rf"OpMemberDecorate %{block} (\d+) Offset (\d+)", text)}
        assert [found[i] for i in range(len(structure))] == _packed_offsets(structure)


# -- NO_EXEC_BOUNDS and bindings without a uniform block ---------------------------------------

def test_no_exec_bounds_drops_the_guard_and_the_uniform_block():
    description, _ = trace(lambda a, n: a.__setitem__(0, n), Buff[f32], Var[f32],
                           flags=vc.ShaderFlags.NO_EXEC_BOUNDS)
    source = assert_compiles(description)
    assert "UniformObjectBuffer" not in source and "lessThanEqual" not in source
    assert "layout(set = 0, binding = 0, scalar) buffer Buffer0 { float data[]; } buf0;" in source
    assert description.exec_count_name is None
    assert description.resource_binding_base == 0
    assert description.binding_type_list == [1]
    assert description.shader_arg_infos[0].binding == 0
    assert description.binding_access == [(True, True)]


def test_no_exec_bounds_with_a_constant_keeps_the_uniform_block():
    description, _ = trace(lambda a, n: a.__setitem__(0, n), Buff[f32], Const[f32],
                           flags=vc.ShaderFlags.NO_EXEC_BOUNDS)
    assert [e.name for e in description.uniform_structure] == ["var0"]
    assert description.binding_type_list == [3, 1]
    assert_compiles(description)


def test_shader_flags_values():
    assert (vc.ShaderFlags.NONE, vc.ShaderFlags.NO_SUBGROUP_OPS, vc.ShaderFlags.NO_PRINTF,
            vc.ShaderFlags.NO_EXEC_BOUNDS) == (0, 1, 2, 4)
    assert vc.BindingType.STORAGE_BUFFER.value == 1
    assert vc.BindingType.UNIFORM_BUFFER.value == 3
    assert vc.BindingType.SAMPLER.value == 5


# -- extensions per type -----------------------------------------------------------------------

@pytest.mark.parametrize("annotation, extension", [
    (f16, "GL_EXT_shader_explicit_arithmetic_types_float16"),
    (i16, "GL_EXT_shader_explicit_arithmetic_types_int16"),
    (u16, "GL_EXT_shader_explicit_arithmetic_types_int16"),
    (i64, "GL_ARB_gpu_shader_int64"), (u64, "GL_ARB_gpu_shader_int64"),
    (f64, "GL_ARB_gpu_shader_fp64"), (c128, "GL_ARB_gpu_shader_fp64"),
    (dt.hvec3, "GL_EXT_shader_explicit_arithmetic_types_float16"),
    (dt.complex32, "GL_EXT_shader_explicit_arithmetic_types_float16"),
])
@pytest.mark.parametrize("kind", [Buff, Const, Var])
def test_each_wide_or_narrow_type_brings_its_extension(annotation, extension, kind):
    def body(x):
        if kind is Buff:
            x[1] = x[0]

    description, _ = trace(body, kind[annotation])
    assert f"#extension {extension} : require" in header_lines(description)
    assert_compiles(description)


def test_extensions_are_sorted_after_the_fixed_ones():
    def body(a, b, c, d):
        vc.printf("%d", vc.subgroup_size())

    description, _ = trace(body, Buff[f64], Const[u16], Var[i64], Const[f16])
    assert [line for line in header_lines(description) if line.startswith("#extension")] == [
        "#extension GL_EXT_scalar_block_layout : require",
        "#extension GL_KHR_shader_subgroup_arithmetic : require",
        "#extension GL_EXT_debug_printf : require",
        "#extension GL_ARB_gpu_shader_fp64 : require",
        "#extension GL_ARB_gpu_shader_int64 : require",
        "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require",
        "#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require"]
    assert_compiles(description)


def test_a_type_used_only_in_a_cast_brings_its_extension():
    description, _ = trace(lambda out: out.__setitem__(0, vc.to_float(vc.to_float64(out[0]))),
                           Buff[f32])
    assert "#extension GL_ARB_gpu_shader_fp64 : require" in header_lines(description)
    assert_compiles(description)


def test_plain_shaders_have_only_the_scalar_layout_extension():
    description, _ = trace(lambda out: out.__setitem__(0, 1.0), Buff[f32])
    assert [line for line in header_lines(description) if line.startswith("#")] == [
        "#version 450", "#extension GL_EXT_scalar_block_layout : require"]


@pytest.mark.parametrize("image, sampler", [(Img1, "sampler1D"), (Img2, "sampler2D"),
                                            (Img3, "sampler3D")])
def test_image_declarations(image, sampler):
    description, _ = trace(lambda t: None, image[f32])
    assert f"layout(set = 0, binding = 1) uniform {sampler} tex0;" in header_lines(description)
    assert_compiles(description)


# -- builders, backends, threads -----------------------------------------------------------------

def test_get_builder_outside_tracing_raises():
    with pytest.raises(RuntimeError, match="No global ShaderBuilder is set"):
        vc.get_builder()


def test_codegen_backend_selection():
    assert vc.get_codegen_backend().name == "glsl"
    vc.set_codegen_backend("GLSL")
    assert isinstance(vc.get_codegen_backend(), vc.GLSLBackend)
    with pytest.raises(ValueError, match="Unknown codegen backend"):
        vc.set_codegen_backend("metal")
    vc.set_codegen_backend(None)
    assert vc.get_codegen_backend().name == "glsl"


def test_misspelled_abbreviations_module_is_an_alias():
    from vkdispatch.codegen import abbreviations, abreviations

    assert abreviations.Buff is abbreviations.Buff and abreviations.f32 is dt.float32


def test_print_line_numbers_setting():
    assert vc.get_shader_print_line_numbers() is False
    vc.set_shader_print_line_numbers(True)
    try:
        assert vc.get_shader_print_line_numbers() is True
    finally:
        vc.set_shader_print_line_numbers(False)


def test_two_threads_trace_independently():
    results = {}

    def work(key, annotation):
        def body(out):
            r = out[0].to_register()
            out[1] = r

        results[key] = trace(body, Buff[annotation])[0]

    threads = [threading.Thread(target=work, args=(k, t)) for k, t in
               (("f", f32), ("i", i32), ("u", u32))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert main_body(results["f"])[0] == "float var0 = buf0.data[0];"
    assert main_body(results["i"])[0] == "int var0 = buf0.data[0];"
    assert main_body(results["u"])[0] == "uint var0 = buf0.data[0];"
