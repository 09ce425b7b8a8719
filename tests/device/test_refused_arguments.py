"""Arguments that used to be accepted and silently did something else (issue 31's list): each
is now refused with an error of our hierarchy that names the argument, and the context stays
usable (a small kernel still matches numpy afterwards)."""
from __future__ import annotations

import numpy as np
import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, f32
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError


def write_ones(b: Buff[f32]):
    b[vc.global_invocation_id().x] = 1.0


@vd.reduce.map_reduce(vd.reduce.SubgroupAdd, axes=[1, 1])
def twice_the_same_axis(values: Buff[f32]) -> f32:
    return values[vd.reduce.mapped_io_index()]


def cases():
    """(label, call(buffers), error type, message pattern)."""
    return [
        ("fft buffer_shape of floats",
         lambda b: vd.fft.fft(b["c"], buffer_shape=(4, 16.0)), InvalidTypeError,
         r"buffer_shape\[1\] must be an int, got 16.0"),
        ("fft buffer_shape of 4 axes",
         lambda b: vd.fft.fft(b["c"], buffer_shape=(1, 1, 4, 16)), InvalidArgumentError,
         r"buffer_shape must have 1, 2, or 3 dimensions"),
        ("convolve buffer_shape of floats",
         lambda b: vd.fft.convolve(b["c"], b["k"], buffer_shape=(4.0, 16)), InvalidTypeError,
         r"buffer_shape\[0\] must be an int"),
        ("vkfft axis twice",
         lambda b: vd.vkfft.fft(b["c"], axis=[0, -2]), InvalidArgumentError,
         r"axis: axis -2 is given twice \(as 0\)"),
        ("vkfft buffer_shape of floats",
         lambda b: vd.vkfft.fft(b["c"], buffer_shape=(4, 16.5)), InvalidTypeError,
         r"buffer_shape\[1\] must be an int"),
        ("reduce axes twice", lambda b: twice_the_same_axis(b["f"]), InvalidArgumentError,
         r"axes must name each axis once, got \[1, 1\]"),
        ("local_size float",
         lambda b: vd.shader(local_size=(2.5, 1, 1))(write_ones)(b["f"], exec_size=4),
         InvalidArgumentError, r"local_size must be a sequence of 3 ints, got \(2.5, 1, 1\)"),
        ("local_size bool",
         lambda b: vd.shader(local_size=(True, 1, 1))(write_ones)(b["f"], exec_size=4),
         InvalidArgumentError, r"local_size must be a sequence of 3 ints, got \(True, 1, 1\)"),
        ("bind_var int", lambda b: vd.CommandGraph().bind_var(123), InvalidTypeError,
         r"bind_var: name must be a str, got 123"),
        ("bind_var None", lambda b: vd.CommandGraph().bind_var(None), InvalidTypeError,
         r"bind_var: name must be a str, got None"),
        ("launch expression importing",
         lambda b: vd.shader("__import__('os').getpid() and 4")(write_ones)(b["f"]),
         InvalidArgumentError, r"exec_size=.*NameError: name '__import__' is not defined"),
        ("queue_counts a million",
         lambda b: vd.create_context(queue_counts=10 ** 6), InvalidArgumentError,
         r"queue_counts: each device takes 1 to 64 queues, got 1000000"),
        ("queue_counts negative",
         lambda b: vd.create_context(queue_counts=-1), InvalidArgumentError,
         r"queue_counts: each device takes 1 to 64 queues, got -1"),
        # Errors that were bare (AttributeError, IndexError, OverflowError) or misleading:
        ("fft of None", lambda b: vd.fft.fft(None), InvalidTypeError,
         r"buffer: the data to transform must be a vd.Buffer, got NoneType"),
        ("fft2 of None", lambda b: vd.fft.fft2(None), InvalidTypeError,
         r"buffer: the data to transform must be a vd.Buffer, got NoneType"),
        ("convolve2DR without a kernel",
         lambda b: vd.fft.convolve2DR(vd.RFFTBuffer((4, 16)), None), InvalidTypeError,
         r"kernel: convolve2DR needs the kernel's rfft2 in a vd.Buffer"),
        ("make_fft_shader of ()", lambda b: vd.fft.make_fft_shader(()), InvalidArgumentError,
         r"buffer_shape: the shape to transform needs 1-3 axes, got \(\)"),
        ("make_shader_function of None",
         lambda b: vd.make_shader_function(None), InvalidTypeError,
         r"description must be a ShaderDescription .* got NoneType"),
        ("instance_count 2**40", lambda b: recorded_graph(b).submit(instance_count=2 ** 40),
         InvalidArgumentError, r"instance_count must be a positive int of at most 4294967295"),
        ("submit of a destroyed graph", lambda b: destroyed_graph(b).submit(),
         InvalidArgumentError, r"this CommandGraph was destroyed"),
        ("sampler lod bias NaN",
         lambda b: vd.Image2D((4, 4)).sample(mip_lod_bias=float("nan")), InvalidArgumentError,
         r"mip_lod_bias must be finite, got nan"),
        ("sampler max_lod infinite",
         lambda b: vd.Image2D((4, 4)).sample(max_lod=float("inf")), InvalidArgumentError,
         r"max_lod must be finite, got inf"),
        ("launch function raising",
         lambda b: vd.shader(exec_size=lambda args: args.b.size // 0)(write_ones)(b["f"]),
         InvalidArgumentError, r"exec_size=.*the launch function failed: ZeroDivisionError"),
        ("reduce group_size beyond a workgroup", lambda b: huge_groups(b["f"]),
         InvalidArgumentError, r"group_size: one workgroup reduces a group, and the device "
                               r"runs at most \d+ invocations per workgroup; got "
                               r"group_size=1048576"),
    ]


@vd.reduce.map_reduce(vd.reduce.SubgroupAdd, group_size=2 ** 20)
def huge_groups(values: Buff[f32]) -> f32:
    return values[vd.reduce.mapped_io_index()]


def recorded_graph(buffers) -> vd.CommandGraph:
    graph = vd.CommandGraph()
    vd.shader("b.size")(write_ones)(buffers["f"], graph=graph)
    return graph


def destroyed_graph(buffers) -> vd.CommandGraph:
    graph = recorded_graph(buffers)
    graph.destroy()
    return graph


@pytest.mark.parametrize("label, call, error, message", cases(), ids=[c[0] for c in cases()])
def test_refused_with_the_argument_named_and_the_context_usable(context, rng, label, call,
                                                                error, message):
    buffers = {"c": vd.asbuffer((rng.standard_normal((4, 16))
                                 + 1j * rng.standard_normal((4, 16))).astype(np.complex64)),
               "k": vd.asbuffer(np.ones((4, 16), np.complex64)),
               "f": vd.asbuffer(rng.standard_normal((4, 16)).astype(np.float32))}
    with pytest.raises(error, match=message):
        call(buffers)
    data = rng.standard_normal((4, 16)).astype(np.complex64)
    buffers["c"].write(data)
    vd.fft.fft(buffers["c"])
    np.testing.assert_allclose(buffers["c"].read(0), np.fft.fft(data), rtol=1e-4, atol=1e-4)


def test_launch_expressions_keep_the_arithmetic_builtins(context, rng):
    @vd.shader("max(min(len(b.shape) * 0 + b.size, abs(-b.size)), 1)")
    def fill(b: Buff[f32]):
        b[vc.global_invocation_id().x] = 1.0

    target = vd.asbuffer(np.zeros(100, np.float32))
    fill(target)
    np.testing.assert_array_equal(target.read(0), np.ones(100, np.float32))
