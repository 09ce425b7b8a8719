"""Operations called from a script, one after another: what the second call of the same
operation still does on the host (counted, not timed), and that it computes what the same
operation replayed from a graph computes.

* An operation of several dispatches (``fft2``, ``convolve2D``, a two-pass FFT, a two-stage
  reduction) is one queue submission, and nothing of it runs when it fails half-way.
* The FFT planner does not plan a line again for a call it has seen.
* A reduction's output is reused once the caller dropped the previous one, never while the
  caller holds it.
* A shader call repeating the previous one skips the descriptor-set lookup and the
  recording, and any change (buffers, sizes, scalars) still reaches the device.
* An operation repeated with the same buffers and options (fft2, convolve2D, a reduction,
  vd.vkfft.fft) resubmits its recording without tracing its dispatches again; any change
  takes the full path.
"""
from __future__ import annotations

import weakref

import numpy as np
import pytest
from test_fft_transforms import EPS32, assert_fft_close, crandom

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.base.command_list import CommandList
from vkdispatch.base.descriptor_cache import DescriptorSetCache
from vkdispatch.codegen.abbreviations import Buff, Const, c64, f32
from vkdispatch.fft import config as fft_config
from vkdispatch.fft import convolution as fft_convolution
from vkdispatch.fft import functions as fft_functions
from vkdispatch.fft.multi_pass import FourStepFFT
from vkdispatch.shader import launch
from vkdispatch.shader.shader_function import ShaderFunction
from vkdispatch.vkfft.vkfft_plan import VkFFTPlan


@pytest.fixture
def submissions(context, monkeypatch):
    """Counts native submissions (every queue submission passes through one)."""
    count = [0]
    original = CommandList._submit_unchecked

    def counting(self, *args):
        count[0] += 1
        return original(self, *args)

    monkeypatch.setattr(CommandList, "_submit_unchecked", counting)
    return count


def count_calls(monkeypatch, owner, name: str) -> list[int]:
    """A one-element list counting the calls of ``owner.name`` (patched for the test)."""
    count = [0]
    original = getattr(owner, name)

    def counting(*args, **kwargs):
        count[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return count


@vd.reduce.map_reduce(vd.reduce.SubgroupAdd)
def total(values: Buff[f32]) -> f32:
    return values[vd.reduce.mapped_io_index()]


def two_pass_length() -> int:
    """The shortest power of two that takes two passes on this device."""
    n = 2
    while not isinstance(vd.fft.make_fft_shader((n,)), FourStepFFT):
        n *= 2
    return n


def multi_dispatch_operations(rng):
    """(name, run(graph), inputs, numpy reference) of operations of several dispatches."""
    x2 = crandom(rng, (2, 32, 16))
    k2 = crandom(rng, (2, 32, 16))
    n = two_pass_length()
    x1 = crandom(rng, (n,))
    values = rng.standard_normal(2**18).astype(np.float32)  # two stages
    r = rng.standard_normal((2, 32, 16)).astype(np.float32)
    rk = rng.standard_normal((2, 32, 16)).astype(np.float32)
    rk_spectrum = vd.asrfftbuffer(rk)
    vd.fft.rfft2(rk_spectrum)
    return [
        ("fft2", lambda bufs, graph: vd.fft.fft2(bufs[0], graph=graph), [x2],
         np.fft.fft2(x2.astype(np.complex128))),
        ("convolve2D", lambda bufs, graph: vd.fft.convolve2D(bufs[0], bufs[1], graph=graph),
         [x2, k2], np.fft.ifft2(np.fft.fft2(x2.astype(np.complex128)) * np.conj(k2))),
        ("two-pass fft", lambda bufs, graph: vd.fft.fft(bufs[0], graph=graph), [x1],
         np.fft.fft(x1.astype(np.complex128))),
        ("reduction", lambda bufs, graph: bufs.append(total(bufs[0], graph=graph)), [values],
         values.astype(np.float64).sum()),
        ("convolve2DR", lambda bufs, graph: vd.fft.convolve2DR(bufs[0], rk_spectrum,
                                                               graph=graph), [r],
         np.fft.irfft2(np.fft.rfft2(r.astype(np.float64)) *
                       np.conj(np.fft.rfft2(rk.astype(np.float64))), s=(32, 16))),
    ]


def uploaded(name, inputs) -> list:
    upload = vd.asrfftbuffer if name == "convolve2DR" else vd.asbuffer
    return [upload(a) for a in inputs]


def result_of(name, bufs):
    if name == "reduction":
        return bufs[-1].read(0)[0]
    if name == "convolve2DR":
        return bufs[0].read_real(0)
    return bufs[0].read(0)


def check(name, actual, expected):
    if name == "reduction":
        np.testing.assert_allclose(actual, expected, rtol=1e-5)
    else:
        assert_fft_close(actual, expected, expected.shape[-1] * 16, EPS32)


def test_an_operation_of_several_dispatches_is_one_submission(rng, submissions):
    for name, run, inputs, expected in multi_dispatch_operations(rng):
        bufs = uploaded(name, inputs)
        run(bufs, None)  # first call: plans, builds, allocates
        result_of(name, bufs)
        bufs = uploaded(name, inputs)
        before = submissions[0]
        run(bufs, None)
        assert submissions[0] - before == 1, name
        check(name, result_of(name, bufs), expected)


def test_eager_calls_equal_graph_replays(rng):
    for name, run, inputs, expected in multi_dispatch_operations(rng):
        eager = uploaded(name, inputs)
        run(eager, None)
        replayed = uploaded(name, inputs)
        graph = vd.CommandGraph()
        run(replayed, graph)
        graph.submit()
        np.testing.assert_array_equal(result_of(name, eager), result_of(name, replayed), name)
        check(name, result_of(name, eager), expected)


def test_a_failing_operation_runs_none_of_its_dispatches(rng, context, monkeypatch):
    x = crandom(rng, (128, 512))  # a plane larger than a workgroup: fft2 takes two passes
    buf = vd.asbuffer(x)
    passes = [0]
    one_pass = fft_functions.fft

    def failing_second_pass(*args, **kwargs):
        passes[0] += 1
        if passes[0] == 2:
            raise RuntimeError("the second pass fails")
        one_pass(*args, **kwargs)

    monkeypatch.setattr(fft_functions, "fft", failing_second_pass)
    with pytest.raises(RuntimeError, match="second pass"):
        vd.fft.fft2(buf)
    monkeypatch.undo()
    np.testing.assert_array_equal(buf.read(0), x)  # the recorded first pass did not run
    vd.fft.fft2(buf)  # and the thread's immediate graph is usable
    assert_fft_close(buf.read(0), np.fft.fft2(x.astype(np.complex128)), 128 * 512, EPS32)


def test_a_repeated_call_does_not_plan_its_lines_again(rng, context, monkeypatch):
    x, k = crandom(rng, (8, 64)), crandom(rng, (8, 64))
    signal, kernel = vd.asbuffer(x), vd.asbuffer(k)
    vd.fft.convolve(signal, kernel)
    vd.fft.fft2(vd.asbuffer(crandom(rng, (2, 32, 16))))
    plans = [0]
    original = fft_config.FFTConfig.__init__

    def counting(self, *args, **kwargs):
        plans[0] += 1
        original(self, *args, **kwargs)

    monkeypatch.setattr(fft_config.FFTConfig, "__init__", counting)
    resolved_fft = count_calls(monkeypatch, fft_functions, "resolve_fft_types")
    resolved_convolution = count_calls(monkeypatch, fft_convolution, "resolve_convolution_types")
    signal.write(x)
    vd.fft.convolve(signal, kernel)
    vd.fft.fft2(vd.asbuffer(crandom(rng, (2, 32, 16))))
    assert plans[0] == 0
    # convolve and fft2's passes: checked on their first call
    assert resolved_fft[0] == resolved_convolution[0] == 0
    expected = np.fft.ifft(np.fft.fft(x.astype(np.complex128)) * np.conj(k))
    assert_fft_close(signal.read(0), expected, 64, EPS32)


def test_a_reduction_reuses_its_output_only_once_dropped(rng, context):
    a = rng.standard_normal(5000).astype(np.float32)
    b = rng.standard_normal(5000).astype(np.float32)
    first = total(vd.asbuffer(a))
    held = total(vd.asbuffer(b))
    assert held is not first
    np.testing.assert_allclose(first.read(0)[0], a.astype(np.float64).sum(), rtol=1e-5)
    np.testing.assert_allclose(held.read(0)[0], b.astype(np.float64).sum(), rtol=1e-5)

    dropped = weakref.ref(total(vd.asbuffer(a)))
    again = total(vd.asbuffer(b))
    assert again is dropped()  # the dropped output was taken again
    np.testing.assert_allclose(again.read(0)[0], b.astype(np.float64).sum(), rtol=1e-5)
    np.testing.assert_allclose(held.read(0)[0], b.astype(np.float64).sum(), rtol=1e-5)


def test_a_repeated_reduction_is_not_traced_again_and_sees_new_data(rng, context,
                                                                     monkeypatch):
    """A script reducing in a loop (each result read, then dropped) traces the stages once;
    new data in the input, another input and a held result still give numpy's sums."""
    traced = count_calls(monkeypatch, ShaderFunction, "__call__")
    data = rng.standard_normal(5000).astype(np.float32)
    x = vd.asbuffer(data)
    np.testing.assert_allclose(total(x).read(0)[0], data.astype(np.float64).sum(), rtol=1e-5)
    before = traced[0]
    for _ in range(3):
        data = rng.standard_normal(5000).astype(np.float32)
        x.write(data)
        np.testing.assert_allclose(total(x).read(0)[0], data.astype(np.float64).sum(),
                                   rtol=1e-5)
    assert traced[0] == before
    other = rng.standard_normal(5000).astype(np.float32)
    held = total(vd.asbuffer(other))  # another input (and this output is held)
    assert traced[0] > before
    np.testing.assert_allclose(total(x).read(0)[0], data.astype(np.float64).sum(), rtol=1e-5)
    np.testing.assert_allclose(held.read(0)[0], other.astype(np.float64).sum(), rtol=1e-5)


@vd.shader("y.size")
def axpy(y: Buff[f32], x: Buff[f32], a: Const[f32]):
    i = vc.global_invocation_id().x
    y[i] = a * x[i] + y[i]


def test_repeated_shader_calls_skip_the_lookups_yet_follow_every_change(rng, context,
                                                                        monkeypatch):
    """A call repeating the previous one (plan, launch, buffers) goes straight to its
    submission, with its uniform data where a Const scalar changed (every value in a loop of
    calls without a wait reaches its own dispatch); other buffers (also one at the address of
    a freed buffer) or another size with the same workgroups take the full path."""
    lookups = count_calls(monkeypatch, DescriptorSetCache, "lookup")
    hosts = {name: rng.standard_normal(1000).astype(np.float32) for name in "xyz"}
    x, y, z = (vd.asbuffer(hosts[name]) for name in "xyz")
    expected = {name: hosts[name].astype(np.float64) for name in "yz"}
    axpy(y, x, 0.5)
    expected["y"] += 0.5 * hosts["x"]
    before = lookups[0]
    for _ in range(3):
        axpy(y, x, 0.5)
        expected["y"] += 0.5 * hosts["x"]
    assert lookups[0] == before
    for scale in np.linspace(-2.0, 2.0, 9):  # other scalars (a Const: uniform data)
        axpy(y, x, float(scale))
        expected["y"] += float(np.float32(scale)) * hosts["x"]
    assert lookups[0] == before
    axpy(z, x, -2.0)  # another buffer
    expected["z"] += -2.0 * hosts["x"]
    assert lookups[0] == before + 1
    np.testing.assert_allclose(y.read(0), expected["y"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(z.read(0), expected["z"], rtol=1e-5, atol=1e-5)

    # The same plan and workgroups (16 of 64) over 1010 elements: new uniform data.
    longer = {name: rng.standard_normal(1010).astype(np.float32) for name in "xy"}
    lx, ly = vd.asbuffer(longer["x"]), vd.asbuffer(longer["y"])
    axpy(ly, lx, 1.0)
    np.testing.assert_allclose(ly.read(0), longer["y"] + longer["x"], rtol=1e-5, atol=1e-5)

    # A buffer freed and a new one made (perhaps at its address) after a call on it.
    for _ in range(5):
        fresh = rng.standard_normal(1000).astype(np.float32)
        target = vd.asbuffer(fresh)
        axpy(target, x, 1.0)
        np.testing.assert_allclose(target.read(0), fresh + hosts["x"], rtol=1e-5, atol=1e-5)
        del target


def test_launch_callables_given_per_call_reuse_one_parameters_type(rng, context, monkeypatch):
    """The type of the object a launch callable receives is made once per shader, not per
    call (making a class costs tens of microseconds)."""
    made = count_calls(monkeypatch, launch, "_parameters_type")

    @vd.shader("y.size")
    def scale(y: Buff[f32], a: Const[f32]):
        i = vc.global_invocation_id().x
        y[i] = a * y[i]

    host = rng.standard_normal(1000).astype(np.float32)
    y = vd.asbuffer(host)
    for _ in range(4):
        scale(y, 2.0, exec_size=lambda args: args.y.size // 2)
    assert made[0] == 1
    expected = host.astype(np.float64)
    expected[:500] *= 16
    np.testing.assert_allclose(y.read(0), expected, rtol=1e-6)



def test_a_repeated_operation_resubmits_its_recording_and_follows_every_change(rng, context,
                                                                            monkeypatch):
    """fft2, convolve2D, fft and convolve repeated with the same buffers and options trace
    none of their dispatches again; another option, other buffers, a shader call in between and a buffer
    made after one was freed take the full path. Every result matches numpy."""
    traced = count_calls(monkeypatch, ShaderFunction, "__call__")
    shape = (2, 32, 16)
    host = {name: crandom(rng, shape) for name in "xyk"}
    x, y, k = (vd.asbuffer(host[name]) for name in "xyk")
    want = {name: host[name].astype(np.complex128) for name in "xy"}

    def run(operation, buffer, name, reference, traces):
        before = traced[0]
        operation(buffer)
        want[name] = reference(want[name])
        assert traced[0] == before + traces, f"{operation.__name__}: {traced[0] - before}"
        assert_fft_close(buffer.read(0), want[name], 512 * 8, EPS32)

    run(vd.fft.fft2, x, "x", np.fft.fft2, 1)  # a 32 x 16 plane: one pass
    run(vd.fft.fft2, x, "x", np.fft.fft2, 0)  # the repeat
    run(vd.fft.ifft2, x, "x", np.fft.ifft2, 1)  # another option
    run(vd.fft.ifft2, x, "x", np.fft.ifft2, 0)
    run(vd.fft.ifft2, y, "y", np.fft.ifft2, 1)  # another buffer
    scale = vd.shader("data.size")(double_it)
    scale(y)  # a call in between
    want["y"] *= 2
    run(vd.fft.ifft2, y, "y", np.fft.ifft2, 1)
    for _ in range(3):  # freed, and a new buffer perhaps where it was
        fresh = crandom(rng, shape)
        z = vd.asbuffer(fresh)
        want["z"] = fresh.astype(np.complex128)
        run(vd.fft.fft2, z, "z", np.fft.fft2, 1)
        del z

    spectrum = np.fft.fft2(host["k"].astype(np.complex128))
    k.write(spectrum.astype(np.complex64))
    convolved = lambda a: np.fft.ifft2(np.fft.fft2(a) * spectrum.conj())  # noqa: E731
    run(lambda b: vd.fft.convolve2D(b, k), x, "x", convolved, 1)  # one pass: small planes
    run(lambda b: vd.fft.convolve2D(b, k), x, "x", convolved, 0)
    run(vd.fft.fft, x, "x", np.fft.fft, 1)
    run(vd.fft.fft, x, "x", np.fft.fft, 0)
    along_rows = lambda a: np.fft.ifft(np.fft.fft(a) * host["k"].conj())  # noqa: E731
    k.write(host["k"])
    run(lambda b: vd.fft.convolve(b, k), x, "x", along_rows, 1)
    run(lambda b: vd.fft.convolve(b, k), x, "x", along_rows, 0)


def double_it(data: Buff[c64]):
    i = vc.global_invocation_id().x
    data[i] = data[i] * 2.0


def test_a_repeated_vkfft_call_is_not_recorded_again(rng, context, monkeypatch):
    """vd.vkfft.fft repeated on the same buffer records its run once; another axis, inverse or
    buffer records again, and every result matches numpy."""
    recorded = count_calls(monkeypatch, VkFFTPlan, "record")
    host = crandom(rng, (8, 64))
    x = vd.asbuffer(host)
    want = host.astype(np.complex128)
    steps = [(dict(), np.fft.fft, 1), (dict(), np.fft.fft, 0), (dict(axis=0), None, 1),
             (dict(inverse=True), np.fft.ifft, 1), (dict(inverse=True), np.fft.ifft, 0)]
    for options, reference, records in steps:
        before = recorded[0]
        vd.vkfft.fft(x, **options)
        want = reference(want) if reference else np.fft.fft(want, axis=0)
        assert recorded[0] == before + records, options
        assert_fft_close(x.read(0), want, 512, EPS32)
