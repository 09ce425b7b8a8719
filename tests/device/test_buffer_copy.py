"""vd.copy against numpy: offsets and counts, immediate and recorded in graphs between shader
calls that read and write the same buffers (the planner must order them), and clear errors.

Every test runs on both of vd.copy's paths: the copy kernel (what GPUs use) and the
vkCmdCopyBuffer command (what CPU devices use), whatever the device."""
from __future__ import annotations

import numpy as np
import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, f32
from vkdispatch.base import copy_kernel
from vkdispatch.base.device_info import is_cpu_device
from vkdispatch.execution_pipeline import buffer_copy


def _kernel_words(context, buffer_bytes, byte_ranges):
    """The kernel's word choice without the device policy (so lavapipe runs it too)."""
    return copy_kernel.kernel_word(byte_ranges)


@pytest.fixture(autouse=True, params=["kernel", "vkCmdCopyBuffer"])
def copy_path(request, monkeypatch):
    choice = _kernel_words if request.param == "kernel" else (lambda *args: None)
    monkeypatch.setattr(buffer_copy, "word_bytes", choice)
    return request.param


@pytest.fixture
def add_into(context):
    @vd.shader("y.size")
    def add_into(y: Buff[f32], x: Buff[f32]):
        i = vc.global_invocation_id().x
        y[i] = y[i] + x[i]

    return add_into


def random_floats(rng, n):
    return rng.standard_normal(n).astype(np.float32)


@pytest.mark.parametrize("trial", range(4))
def test_copy_immediate_moves_random_ranges_like_numpy(context, rng, trial):
    n_src, n_dst = rng.integers(8, 3000, 2)
    src_host, dst_host = random_floats(rng, n_src), random_floats(rng, n_dst)
    src, dst = vd.asbuffer(src_host), vd.asbuffer(dst_host)
    count = int(rng.integers(1, min(n_src, n_dst) + 1))
    src_offset = int(rng.integers(0, n_src - count + 1))
    dst_offset = int(rng.integers(0, n_dst - count + 1))
    vd.copy(dst, src, dst_offset=dst_offset, src_offset=src_offset, count=count)
    dst_host[dst_offset:dst_offset + count] = src_host[src_offset:src_offset + count]
    np.testing.assert_array_equal(dst.read(0), dst_host)
    np.testing.assert_array_equal(src.read(0), src_host)


def test_copy_default_count_is_the_rest_of_src_and_works_for_every_replica(context, rng):
    src_host = rng.integers(-2**31, 2**31, (40, 3), dtype=np.int64).astype(np.int32)
    src = vd.asbuffer(src_host)
    dst = vd.Buffer((50, 3), vd.int32)
    dst.write(np.zeros((50, 3), np.int32) + 7)
    vd.copy(dst, src, src_offset=10)  # 30 rows of 3 ints, flattened: 90 elements
    expected = np.full(150, 7, np.int32)
    expected[:110] = src_host.reshape(-1)[10:]
    for replica in dst.read():
        np.testing.assert_array_equal(replica.reshape(-1), expected)


def test_copy_of_vector_and_complex_elements_counts_whole_elements(context, rng):
    values = (rng.standard_normal(64) + 1j * rng.standard_normal(64)).astype(np.complex64)
    src, dst = vd.asbuffer(values), vd.Buffer(64, vd.complex64)
    dst.write(np.zeros(64, np.complex64))
    vd.copy(dst, src, dst_offset=5, src_offset=20, count=17)
    expected = np.zeros(64, np.complex64)
    expected[5:22] = values[20:37]
    np.testing.assert_array_equal(dst.read(0), expected)
    vecs = vd.Buffer(10, vd.vec4)
    vecs.write(random_floats(rng, 40).reshape(10, 4))
    copy = vd.Buffer(10, vd.vec4)
    copy.write(np.zeros((10, 4), np.float32))
    vd.copy(copy, vecs, dst_offset=1, src_offset=6, count=4)
    expected_vecs = np.zeros((10, 4), np.float32)
    expected_vecs[1:5] = vecs.read(0)[6:10]
    np.testing.assert_array_equal(copy.read(0), expected_vecs)


@pytest.mark.parametrize("count", [1, 2, 3, 1001, 4099])
def test_copy_of_sizes_not_whole_16_byte_words_copies_the_tail(context, rng, count):
    """complex64 values at 16-byte offsets: the 16-byte loop and a tail of 8 bytes, or floats
    with tails of 4 and 12 bytes; the values around the range stay as they were."""
    for np_type, n in ((np.complex64, count + 6), (np.float32, count + 12)):
        values, before = (np.asarray(rng.standard_normal(n) + 1j * rng.standard_normal(n)
                                     if np_type is np.complex64 else rng.standard_normal(n),
                                     np_type) for _ in range(2))
        src, dst = vd.asbuffer(values), vd.asbuffer(before)
        offset = 16 // values.itemsize
        vd.copy(dst, src, dst_offset=offset, src_offset=offset, count=count)
        before[offset:offset + count] = values[offset:offset + count]
        np.testing.assert_array_equal(dst.read(0), before)


def test_copy_within_one_buffer_of_disjoint_ranges(context, rng):
    host = random_floats(rng, 100)
    buffer = vd.asbuffer(host)
    vd.copy(buffer, buffer, dst_offset=60, src_offset=10, count=30)
    host[60:90] = host[10:40].copy()
    np.testing.assert_array_equal(buffer.read(0), host)


def test_copy_between_shader_calls_in_a_graph_sees_and_feeds_them(context, rng, affine, add_into):
    n = 1500
    a_host, b_host = random_floats(rng, n), random_floats(rng, n)
    a, b = vd.asbuffer(a_host), vd.asbuffer(b_host)
    graph = vd.CommandGraph()
    affine(a, 2.0, 1.0, graph=graph)          # writes a
    vd.copy(b, a, count=n // 2, graph=graph)  # reads a (RAW), writes half of b (WAR on b? none)
    add_into(a, b, graph=graph)               # reads b (RAW after the copy), writes a (WAR)
    vd.copy(b, a, dst_offset=n // 2, src_offset=0, count=n - n // 2, graph=graph)
    affine(b, -0.5, 3.0, graph=graph)         # reads/writes b after the copy wrote it
    for _ in range(3):
        graph.submit()
        a64, b64 = a_host.astype(np.float64), b_host.astype(np.float64)
        a64 = a64 * 2 + 1
        b64[:n // 2] = a64[:n // 2]
        a64 = a64 + b64
        b64[n // 2:] = a64[:n - n // 2]
        b64 = b64 * -0.5 + 3
        a_host, b_host = a64.astype(np.float32), b64.astype(np.float32)
        np.testing.assert_allclose(a.read(0), a_host, rtol=2e-6, atol=2e-6)
        np.testing.assert_allclose(b.read(0), b_host, rtol=2e-6, atol=2e-6)
        a_host, b_host = a.read(0), b.read(0)


def test_random_sequences_of_copies_and_shader_calls_match_numpy(context, rng, affine, add_into):
    n = 513
    hosts = [random_floats(rng, n) for _ in range(3)]
    buffers = [vd.asbuffer(h) for h in hosts]
    graph = vd.CommandGraph()
    expected = [h.astype(np.float64) for h in hosts]
    for _ in range(25):
        kind = rng.integers(3)
        i, j = rng.choice(3, 2, replace=False)
        if kind == 0:
            k, b = rng.uniform(-1.2, 1.2, 2).astype(np.float32)
            affine(buffers[i], k, b, graph=graph)
            expected[i] = expected[i] * k + b
        elif kind == 1:
            add_into(buffers[i], buffers[j], graph=graph)
            expected[i] = expected[i] + expected[j]
        else:
            count = int(rng.integers(1, n + 1))
            src_offset, dst_offset = rng.integers(0, n - count + 1, 2)
            vd.copy(buffers[i], buffers[j], dst_offset=int(dst_offset),
                    src_offset=int(src_offset), count=count, graph=graph)
            expected[i][dst_offset:dst_offset + count] = \
                expected[j][src_offset:src_offset + count]
        expected = [e.astype(np.float32).astype(np.float64) for e in expected]
    graph.submit()
    for buffer, values in zip(buffers, expected):
        np.testing.assert_allclose(buffer.read(0), values, rtol=1e-4, atol=1e-4)


def test_copy_recorded_in_a_global_graph_runs_on_its_submit(context, rng):
    src_host = random_floats(rng, 64)
    src, dst = vd.asbuffer(src_host), vd.asbuffer(np.zeros(64, np.float32))
    graph = vd.CommandGraph()
    vd.set_global_graph(graph)
    try:
        vd.copy(dst, src)
        np.testing.assert_array_equal(dst.read(0), np.zeros(64, np.float32))  # not yet run
        graph.submit()
    finally:
        vd.set_global_graph(None)
    np.testing.assert_array_equal(dst.read(0), src_host)


@pytest.mark.parametrize("kwargs,error,message", [
    (dict(count=0), ValueError, r"^count must be at least 1 element, got 0 \(src has 64 "),
    (dict(count=65), ValueError, "^src: 65 elements from src_offset=0 do not fit in src of 64 "),
    (dict(dst_offset=30, count=40), ValueError,
     "^dst: 40 elements from dst_offset=30 do not fit in dst of 64 "),
    (dict(src_offset=-1), ValueError, "^src_offset must be >= 0 elements, got -1$"),
    (dict(count=2.5), TypeError, r"^count must be an int \(elements\), got 2\.5$"),
    (dict(graph="graph"), TypeError, r"^graph must be a vd\.CommandGraph or None, got str$"),
], ids=["count-0", "count-65", "dst-overflow", "src_offset-negative", "count-float", "graph-str"])
def test_copy_bad_arguments_raise_naming_the_argument(context, rng, kwargs, error, message):
    src, dst = vd.asbuffer(random_floats(rng, 64)), vd.asbuffer(random_floats(rng, 64))
    before = dst.read(0)
    with pytest.raises(error, match=message):
        vd.copy(dst, src, **kwargs)
    np.testing.assert_array_equal(dst.read(0), before)  # nothing ran
    vd.copy(dst, src)  # the context stays usable
    np.testing.assert_array_equal(dst.read(0), src.read(0))


def test_copy_dtype_mismatch_and_overlap_raise(context, rng):
    floats, ints = vd.asbuffer(random_floats(rng, 16)), vd.Buffer(16, vd.int32)
    with pytest.raises(TypeError, match="int32.*float32"):
        vd.copy(ints, floats)
    with pytest.raises(TypeError, match="src must be a vd.Buffer"):
        vd.copy(floats, np.zeros(16, np.float32))
    with pytest.raises(ValueError, match="overlap"):
        vd.copy(floats, floats, dst_offset=4, src_offset=0, count=8)


@pytest.mark.parametrize("closed_end", ["dst", "src"])
def test_copy_with_a_buffer_of_a_closed_context_says_so_naming_it(context, rng, closed_end):
    """It used to say the buffers "must be buffers of the graph's context"."""
    other = vd.create_context(device_ids=context.device_ids)
    with other:
        stale = vd.Buffer(64, vd.float32)
    other.close()
    live = vd.asbuffer(random_floats(rng, 64))
    ends = {"dst": live, "src": live, closed_end: stale}
    with pytest.raises(vd.errors.InvalidStateError,
                       match=rf"^{closed_end} belongs to a context that was closed"):
        vd.copy(ends["dst"], ends["src"])
    dst = vd.Buffer(64, vd.float32)
    vd.copy(dst, live)  # the global context stays usable
    np.testing.assert_array_equal(dst.read(0), live.read(0))


def test_copy_of_a_destroyed_buffer_in_a_graph_raises_at_submit(context, rng):
    src, dst = vd.asbuffer(random_floats(rng, 16)), vd.asbuffer(random_floats(rng, 16))
    graph = vd.CommandGraph()
    vd.copy(dst, src, graph=graph)
    src.destroy()
    with pytest.raises(ValueError, match="destroyed"):
        graph.submit()


def test_copy_kernel_words_follow_alignment_and_device_kind(context, rng, monkeypatch):
    monkeypatch.undo()  # the real policy
    floats = vd.asbuffer(random_floats(rng, 64))
    is_cpu = any(is_cpu_device(info) for info in context.device_infos)
    sizes = (floats.mem_size, floats.mem_size)
    words = copy_kernel.word_bytes(context, sizes, (16, 32, 64))
    assert words == (None if is_cpu else 16)
    for info in context.device_infos:
        monkeypatch.setattr(info, "device_type", 2)  # as if a discrete GPU
    assert copy_kernel.word_bytes(context, sizes, (16, 32, 64)) == 16
    assert copy_kernel.word_bytes(context, sizes, (4, 32, 64)) == 4
    assert copy_kernel.word_bytes(context, sizes, (2, 32, 64)) is None
    assert copy_kernel.word_bytes(context, sizes, (16, 32, 60)) == 16  # a 12-byte tail
    assert copy_kernel.word_bytes(context, sizes, (16, 32, 62)) is None
    assert copy_kernel.word_bytes(context, (2**33, 64), (16, 32, 64)) is None  # beyond a binding


def test_copy_of_half_floats_at_odd_offsets_moves_exact_bits(context, rng):
    host = rng.standard_normal(101).astype(np.float16)
    src, dst = vd.asbuffer(host), vd.Buffer(101, vd.float16)
    dst.write(np.zeros(101, np.float16))
    vd.copy(dst, src, dst_offset=3, src_offset=50, count=33)  # 2-byte aligned: the command
    expected = np.zeros(101, np.float16)
    expected[3:36] = host[50:83]
    np.testing.assert_array_equal(dst.read(0).view(np.uint16), expected.view(np.uint16))


def test_copy_between_contexts_raises_naming_the_buffers(context, rng):
    other = vd.create_context(use_cpu=True)
    try:
        with other:
            foreign = vd.asbuffer(random_floats(rng, 16))
        local = vd.asbuffer(random_floats(rng, 16))
        before = local.read(0)
        with pytest.raises(ValueError, match=r"^src is a buffer of Context #\d+.*, but the "
                                             r"graph records for Context #"):
            vd.copy(local, foreign)
        np.testing.assert_array_equal(local.read(0), before)
    finally:
        other.close()
