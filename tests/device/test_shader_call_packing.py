"""The bytes a shader call packs for its uniform block (Const values, buffer shapes, launch
limits) and its push constants (Var values) equal numpy's little-endian encoding of the same
values in block order, whichever packing path the values take (plain Python scalars take the
direct struct.pack path; numpy scalars and bools the checked one)."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, Var, f32, f64, i32, u32

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
NP_TYPES = {"float32": np.float32, "float64": np.float64, "int32": np.int32,
            "uint32": np.uint32}


@vd.shader("out.size", local_size=(64, 1, 1))
def mixed(out: Buff[f32], a: Const[f32], b: Const[i32], c: Const[u32], d: Const[f64],
          e: Var[f32], f: Var[i32], g: Var[u32]):
    i = vc.global_invocation_id().x
    out[i] = a + vc.to_float(b) + vc.to_float(c) + vc.to_float(d) + e + vc.to_float(f) \
        + vc.to_float(g)


def _expected(structure, values_by_member) -> bytes:
    """numpy's bytes of each member's value(s), back to back in block order."""
    chunks = []
    for element in structure:
        np_type = NP_TYPES[(element.dtype.scalar or element.dtype).name]
        chunks.append(np.asarray(values_by_member[element.name], dtype=np_type)
                      .astype(np.dtype(np_type).newbyteorder("<")).tobytes())
    return b"".join(chunks)


scalars = st.tuples(
    st.floats(-2.0**100, 2.0**100, width=32), st.integers(-2**31, 2**31 - 1),
    st.integers(0, 2**32 - 1), st.floats(-1e300, 1e300, allow_nan=False),
    st.floats(-2.0**100, 2.0**100, width=32), st.integers(-2**31, 2**31 - 1),
    st.integers(0, 2**32 - 1))


@SETTINGS
@given(values=scalars, as_numpy=st.booleans(), size=st.integers(1, 5000))
def test_packed_blocks_equal_numpy_encoding(context, values, as_numpy, size):
    out = vd.Buffer((size,), vd.float32)
    mixed.build()
    description = mixed.shader_description
    names = ["a", "b", "c", "d", "e", "f", "g"]
    types = [np.float32, np.int32, np.uint32, np.float64, np.float32, np.int32, np.uint32]
    args = [t(v) if as_numpy else v for t, v in zip(types, values)]
    blocks, _buffers, uniform, pc = mixed.layout.prepare((out, *args), None, None,
                                                         context.max_workgroup_count)
    assert blocks == (-(-size // (64 * mixed.bounds.factor)), 1, 1)  # factor: coarsening
    member_of = {info.name: info.shader_name for info in description.shader_arg_infos}
    by_member = {member_of[n]: v for n, v in zip(names, values)}
    by_member[description.exec_count_name] = (size, 1, 1, 0)
    shape_member = description.shader_arg_infos[0].shader_shape_name
    if shape_member:
        by_member[shape_member] = out.shader_shape
    assert uniform == _expected(description.uniform_structure, by_member)
    assert pc == _expected(description.pc_structure, by_member)
    out.destroy()


def test_kernels_with_equal_parameter_shapes_pack_their_own_types(context, rng):
    """Two kernels whose packers have the same generated text (and share its compiled code)
    still pack with their own block formats: a float Const and an int Const."""
    @vd.shader("out.size")
    def add_float(out: Buff[f32], src: Buff[f32], amount: Const[f32]):
        i = vc.global_invocation_id().x
        out[i] = src[i] + amount

    @vd.shader("out.size")
    def add_int(out: Buff[i32], src: Buff[i32], amount: Const[i32]):
        i = vc.global_invocation_id().x
        out[i] = src[i] + amount

    floats = rng.standard_normal(300).astype(np.float32)
    ints = rng.integers(-1000, 1000, 300).astype(np.int32)
    out_f, out_i = vd.Buffer((300,), vd.float32), vd.Buffer((300,), vd.int32)
    src_f, src_i = vd.asbuffer(floats), vd.asbuffer(ints)
    for _ in range(2):
        amount_f, amount_i = float(rng.uniform(-5, 5)), int(rng.integers(-10**6, 10**6))
        add_float(out_f, src_f, amount_f)
        add_int(out_i, src_i, amount_i)
        np.testing.assert_allclose(out_f.read(0), floats + np.float32(amount_f), rtol=1e-6)
        np.testing.assert_array_equal(out_i.read(0), ints + np.int32(amount_i))
