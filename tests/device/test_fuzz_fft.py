"""Fuzz test of the public ``vd.fft`` entry points: ``fft``, ``ifft``, ``fft2``, ``ifft2``,
``fft3``, ``ifft3``, ``rfft``, ``irfft``, ``rfft2``, ``irfft2``, ``rfft3``, ``irfft3``,
``convolve``, ``convolve2D`` and ``convolve2DR``, called on random shapes and data with random
arguments, most of them wrong (and lengths with prime factors above 13, which must match numpy
too): buffers of another dtype,
of too few dimensions, destroyed, or not buffers at all (numpy arrays, lists, None, strings,
numbers); axes out of range or of the wrong type; ``buffer_shape`` larger than the buffer, of
zeros, floats, strings or sets; flags (``normalize``, ``inverse``) that are not flags;
graphs, names, precisions (``compute_type``, ``output_type``, ``input_type``,
``kernel_type``), ``input_signal_range`` values and kernels of every wrong kind; out-of-place
transforms through a copying ``input_map``/``output_map`` with a wrong source; too few or too
many buffers; and valid calls on NaN, infinite, huge, tiny and mixed-scale data.

Each draw either passes, and then every buffer holds what numpy (``np.fft``, in float64) says:
the transformed part within a float32 (float16 for complex32) tolerance scaled to its data
(``eps * C * log2 N`` times the largest finite magnitude of each independently transformed
block), NaN and infinities wherever numpy has them in complex results (in real results:
within, and only within, the blocks numpy finds them in), everything else unchanged; or it
raises an error of vkdispatch's hierarchy (also a ``TypeError``/``ValueError``/``IndexError``)
whose message names the argument at fault, and leaves every buffer as it was (a graph it was
recorded into submits nothing). A drawn argument is *valid*, *lenient* or *bad* (see
fuzzing.py). Afterwards the context still works: a small known FFT matches numpy.

A call whose fault is in an option can first run the valid call (``warm``): its plan and its
recording are then cached, and the faulty call must still be judged on its own.

The tests are parametrized over the kind of fault, so that every kind is drawn in every run;
the ``slow`` variant draws every kind together, many more times. The ``test_fixed_defect_*``
tests at the end pin the defects this fuzzing found (all fixed), one minimal reproduction
each.
"""
from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
import pytest
from fuzzing import BASE, LONG, Expect, attempt
from helpers import random_array
from hypothesis import event, given, settings
from hypothesis import strategies as st

import vkdispatch as vd
from vkdispatch import errors
from vkdispatch.fft import shader_factories
from vkdispatch.codegen.abbreviations import Buff, c64

EPS32, EPS16 = 2.0**-24, 2.0**-11
C = 8                          # as test_fft_transforms.py; convolutions (two transforms): 2 C
SMOOTH_1D = (1, 2, 3, 5, 7, 8, 11, 12, 13, 16, 30, 64)  # prime factors <= 13: supported
SMOOTH = (1, 2, 3, 4, 5, 6, 7, 8, 13, 16)
ROUGH = (17, 19, 34, 37, 74)   # a prime factor above 13 (direct butterflies up to 31, then
                               # Rader's algorithm for 37, Bluestein's for 74): like numpy
ELEMENTS = 1024                # at most, per buffer: keeps a draw (and its compile) fast


# -- the entry points ---------------------------------------------------------------------------

class Entry(NamedTuple):
    family: str                # "complex", "real" (an RFFTBuffer), "conv", "real_conv"
    ndims: tuple[int, ...]     # buffer dimensions it takes
    transforms: str            # its axes: "axis" (the axis option), "last", "last2", "all"
    inverse: bool
    options: frozenset         # what the fuzz passes: keywords, "types", "compute", "maps",
                               # "varargs" (takes *buffers), "kernel"


def _entry(family, ndims, transforms, inverse, *options) -> Entry:
    return Entry(family, ndims, transforms, inverse, frozenset(options))


ENTRIES = {
    "fft": _entry("complex", (1, 2, 3), "axis", False, "axis", "inverse", "normalize_inverse",
                  "buffer_shape", "name", "input_signal_range", "types", "maps", "varargs"),
    "ifft": _entry("complex", (1, 2, 3), "axis", True, "axis", "normalize", "name", "types"),
    "fft2": _entry("complex", (2, 3), "last2", False, "types", "maps", "varargs"),
    "ifft2": _entry("complex", (2, 3), "last2", True, "normalize", "types", "maps", "varargs"),
    "fft3": _entry("complex", (3,), "all", False, "types", "maps", "varargs"),
    "ifft3": _entry("complex", (3,), "all", True, "normalize", "types", "maps", "varargs"),
    "rfft": _entry("real", (1, 2, 3), "last", False, "name", "compute"),
    "irfft": _entry("real", (1, 2, 3), "last", True, "name", "normalize", "compute"),
    "rfft2": _entry("real", (2, 3), "last2", False, "compute"),
    "irfft2": _entry("real", (2, 3), "last2", True, "normalize", "compute"),
    "rfft3": _entry("real", (3,), "all", False, "compute"),
    "irfft3": _entry("real", (3,), "all", True, "normalize", "compute"),
    "convolve": _entry("conv", (1, 2, 3), "axis", False, "axis", "normalize", "buffer_shape",
                       "name", "input_signal_range", "types", "varargs", "kernel"),
    "convolve2D": _entry("conv", (2, 3), "last2", False, "normalize", "buffer_shape", "types",
                         "kernel"),
    "convolve2DR": _entry("real_conv", (2, 3), "last2", False, "normalize", "compute",
                          "kernel"),
}
FLAGS = ("inverse", "normalize", "normalize_inverse")


def transformed_axes(entry: Entry, ndim: int, axis: int) -> tuple[int, ...]:
    """The axes an entry transforms (``axis``: the normalised axis option)."""
    return {"axis": (axis,), "last": (ndim - 1,), "last2": (ndim - 2, ndim - 1),
            "all": tuple(range(ndim))}[entry.transforms]


# -- maps for out-of-place transforms (module level: equal maps share cached shaders) ----------

def _load_copy(src: Buff[c64]):
    vd.fft.read_op().read_from_buffer(src)


def _store_copy(dst: Buff[c64]):
    vd.fft.write_op().write_to_buffer(dst)


load_copy, store_copy = vd.map(_load_copy), vd.map(_store_copy)


# -- faults ---------------------------------------------------------------------------------------

class Fault(NamedTuple):
    kind: str
    label: str = "valid"
    param: Any = None          # the option at fault, the (position, length) of a rough axis...


# Each kind's labels and whether such a value is "ok", "lenient" or "bad" (None: it depends on
# the device or the draw, decided when the call is built).
DATA = ("huge", "tiny", "mixed", "nan", "inf", "-inf", "nan and inf")
DTYPES = {"complex128": None, "complex32": None, "float32": "bad", "float64": "bad",
          "int32": "bad", "uint32": "bad", "vec2": "bad", "float16": "bad"}
REAL_DTYPES = {"complex128": None, "plain Buffer": "bad"}
NOT_BUFFERS = ("numpy", "list", "None", "str", "float", "int", "bool", "dtype")
AXES = {"np.int64": "lenient", "np.int32": "lenient", "0-d array": "lenient", "ndim": "bad",
        "-ndim-1": "bad", "17": "bad", "-100": "bad", "2**70": "bad", "-2**70": "bad",
        "float": "bad", "np.float64": "bad", "bool": "bad", "str": "bad", "list": "bad",
        "tuple": "bad", "repeated": "bad", "complex": "bad"}
BUFFER_SHAPES = {"prefix": "ok", "prefix list": "ok", "prefix np.int64": "ok",
                 "prefix array": "ok", "int": "ok", "()": "lenient", "larger": "bad",
                 "one more row": "bad", "2**31": "bad", "2**70": "bad", "0": "bad",
                 "negative": "bad", "float": "bad", "floats": "bad", "str": "bad",
                 "None inside": "bad", "4-d": "bad", "nan": "bad", "set": "bad",
                 "dict": "bad"}
FLAG_VALUES = {"True": "ok", "False": "ok", "0": "lenient", "1": "lenient",
               "np.True_": "lenient", "np.False_": "lenient", "'no'": "bad", "'False'": "bad",
               "''": "bad", "2.5": "bad", "[True]": "bad", "object": "bad", "array": "bad"}
GRAPHS = {"graph": "ok", "positional": "ok", "str": "bad", "int": "bad", "object": "bad",
          "dtype": "bad", "destroyed": "bad", "buffer": "bad"}
NAMES = {"identifier": "ok", "''": "lenient", "spaces": "lenient", "newline": "lenient",
         "comment end": "lenient", "quote": "lenient", "unicode": "lenient", "long": "lenient",
         "int": "bad", "float": "bad", "list": "bad", "bytes": "bad"}
COMPUTE_TYPES = {"complex64": "ok", "complex128": None, "complex32": None, "float32": "bad",
                 "vec2": "bad", "float64": "bad", "'complex64'": "bad", "np.complex64": "bad",
                 "int": "bad"}
IO_TYPES = {"same": "ok", "complex128": "bad", "float32": "bad", "'complex64'": "bad",
            "np.complex64": "bad", "int": "bad"}
SIGNAL_RANGES = {"inside": "ok", "open start": "ok", "open end": "ok", "all None": "ok",
                 "empty": "ok", "np.int64": "lenient", "integral floats": "lenient",
                 "reversed": "bad", "negative": "bad", "past the end": "bad", "list": "bad",
                 "triple": "bad", "int": "bad", "str": "bad", "str element": "bad",
                 "fraction": "bad", "nan": "bad", "inf": "bad", "object": "bad"}
KERNELS = {"complex128": None, "larger": "ok", "plain Buffer": "ok", "alias": "lenient",
           "kernel_num=2": "lenient", "kernel_num=np.int64": "lenient", "numpy": "bad",
           "None": "bad", "float": "bad", "list": "bad", "str": "bad", "float32 buffer": "bad",
           "vec2 buffer": "bad", "too small": "bad", "destroyed": "bad", "kernel_num=0": "bad",
           "kernel_num=-1": "bad", "kernel_num=1.0": "bad", "kernel_num=True": "bad",
           "kernel_num='1'": "bad", "kernel_num=None": "bad"}
OUT_OF_PLACE = {"input_map": "ok", "output_map": "ok", "alias": "ok", "float32 view": "lenient",
                "src numpy": "bad", "src None": "bad", "src complex128": "bad",
                "src missing": "bad", "src destroyed": "bad", "dst numpy": "bad",
                "dst float32": "bad", "input_type": "bad", "plain function": "bad"}
BUFFER_COUNTS = {"none": "bad", "two": "bad", "kernel missing": "bad", "three": "bad"}

FAULT_KINDS = ("none", "data", "length", "dtype", "not_buffer", "destroyed", "ndim", "axis",
               "buffer_shape", "flags", "graph", "name", "types", "signal_range", "kernel",
               "out_of_place", "buffer_count")
# Faults in an option: the valid call may run first, caching its plan and its recording.
WARMABLE = {"axis", "buffer_shape", "flags", "graph", "name", "types", "signal_range", "kernel"}


def _applies(kind: str, entry: Entry) -> bool:
    options = entry.options
    return {"ndim": entry.ndims != (1, 2, 3), "axis": "axis" in options,
            "buffer_shape": "buffer_shape" in options,
            "flags": bool(options & {"inverse", "normalize", "normalize_inverse"}),
            "name": "name" in options, "types": bool(options & {"types", "compute"}),
            "signal_range": "input_signal_range" in options, "kernel": "kernel" in options,
            "out_of_place": "maps" in options,
            "buffer_count": "varargs" in options}.get(kind, True)


def _labels(table, exclude=()):
    return st.sampled_from([label for label in table if label not in exclude])


def _fault(kind: str, labels, param=st.none()):
    return st.builds(Fault, st.just(kind), labels, param)


def fault_strategy(kind: str, name: str, ndim: int):
    entry = ENTRIES[name]
    real = entry.family in ("real", "real_conv")
    if kind == "none":
        return st.just(Fault("none"))
    if kind == "data":
        return _fault("data", st.sampled_from(DATA))
    if kind == "length":  # a rough length at any axis: Rader's or Bluestein's algorithm
        return _fault("length", st.just("rough"),
                      st.tuples(st.integers(0, ndim - 1), st.sampled_from(ROUGH)))
    if kind == "dtype":
        return _fault("dtype", _labels(REAL_DTYPES if real else DTYPES))
    if kind == "not_buffer":
        return _fault("not_buffer", st.sampled_from(NOT_BUFFERS))
    if kind == "destroyed":
        return st.just(Fault("destroyed", "destroyed"))
    if kind == "ndim":
        return _fault("ndim", st.just("fewer dimensions"), st.integers(1, min(entry.ndims) - 1))
    if kind == "axis":
        return _fault("axis", _labels(AXES))
    if kind == "buffer_shape":
        return _fault("buffer_shape", _labels(BUFFER_SHAPES))
    if kind == "flags":
        flags = [flag for flag in FLAGS if flag in entry.options]
        return _fault("flags", _labels(FLAG_VALUES), st.sampled_from(flags))
    if kind == "graph":
        multi_axis = name in ("fft2", "ifft2", "fft3", "ifft3")  # they take it by position
        return _fault("graph", _labels(GRAPHS, () if multi_axis else ("positional",)))
    if kind == "name":
        return _fault("name", _labels(NAMES))
    if kind == "types":
        params = ["compute_type"]
        if "types" in entry.options:
            params += ["output_type", "input_type"]
        if entry.family == "conv":
            params.append("kernel_type")
        return st.sampled_from(params).flatmap(lambda param: _fault(
            "types", _labels(COMPUTE_TYPES if param == "compute_type" else IO_TYPES),
            st.just(param)))
    if kind == "signal_range":
        return _fault("signal_range", _labels(SIGNAL_RANGES))
    if kind == "kernel":
        exclude = {"convolve": ("plain Buffer",), "convolve2D": ("plain Buffer",),
                   "convolve2DR": ("complex128", "alias")}[name]
        exclude += tuple(label for label in KERNELS
                         if label.startswith("kernel_num=") and name != "convolve")
        return _fault("kernel", _labels(KERNELS, exclude))
    if kind == "out_of_place":
        return _fault("out_of_place",
                      _labels(OUT_OF_PLACE, () if name == "fft" else ("output_map",)))
    assert kind == "buffer_count"
    exclude = ("two",) if name == "convolve" else ("kernel missing", "three")
    return _fault("buffer_count", _labels(BUFFER_COUNTS, exclude))


# -- cases ----------------------------------------------------------------------------------------

class Case(NamedTuple):
    entry: str
    shape: tuple[int, ...]     # the buffer's shape (the real shape for RFFTBuffers)
    axis: Any                  # the axis keyword of the valid call (None: not passed)
    flags: tuple               # the valid call's (flag, bool) keywords
    inner_only: bool           # convolutions: one kernel for every outer batch
    via_graph: bool            # record into a CommandGraph, submitted after the call
    fault: Fault
    warm: bool                 # run the valid call first
    seed: int


def _shape(draw, ndim: int) -> tuple[int, ...]:
    pool, budget, shape = SMOOTH_1D if ndim == 1 else SMOOTH, ELEMENTS, []
    for _ in range(ndim):
        n = draw(st.sampled_from([n for n in pool if n <= budget]))
        shape.append(n)
        budget //= n
    return tuple(shape)


@st.composite
def cases(draw, kind: str | None = None):
    kind = kind or draw(st.sampled_from(FAULT_KINDS))
    name = draw(st.sampled_from([e for e in ENTRIES if _applies(kind, ENTRIES[e])]))
    entry = ENTRIES[name]
    ndim = draw(st.sampled_from(entry.ndims))
    shape = _shape(draw, ndim)
    axis = draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1))) \
        if "axis" in entry.options else None
    flags = []
    for flag in FLAGS:
        value = draw(st.sampled_from([None, False, True])) if flag in entry.options else None
        if value is not None:
            flags.append((flag, value))
    inner_only = draw(st.booleans()) if entry.family == "conv" else False
    fault = draw(fault_strategy(kind, name, ndim))
    warm = draw(st.booleans()) if kind in WARMABLE else False
    via_graph = draw(st.booleans()) if kind != "graph" else False
    return Case(name, shape, axis, tuple(flags), inner_only, via_graph, fault, warm,
                draw(st.integers(0, 2**32 - 1)))


# -- data and buffers -------------------------------------------------------------------------

def _supported(precision) -> bool:
    return vd.fft.precision.supports_complex_precision(precision)


def random_data(rng, shape, real: bool, special: str | None, scale: float) -> np.ndarray:
    """Random float64/complex128 data (never zeros), with the drawn special values."""
    data = rng.standard_normal(shape) if real else random_array(rng, shape, np.complex128) / 100
    data = data * scale
    if special == "huge":      # far above float32's unit, far enough below its overflow
        data = data * 1e24
    elif special == "tiny":    # far below 1, far enough above float32's subnormals
        data = data * 1e-22
    elif special == "mixed":   # magnitudes spread over 12 decades
        data = data * 10.0 ** rng.uniform(-6, 6, shape)
    elif special is not None:
        flat = data.reshape(-1)
        values = {"nan": [np.nan], "inf": [np.inf], "-inf": [-np.inf],
                  "nan and inf": [np.nan, np.inf, -np.inf]}[special]
        for _ in range(int(rng.integers(1, 4))):
            value, index = rng.choice(values), int(rng.integers(flat.size))
            if real:
                flat[index] = value
            elif rng.integers(2):  # in the real or in the imaginary part
                flat[index] = complex(value, flat[index].imag)
            else:
                flat[index] = complex(flat[index].real, value)
    return data


def complex_buffer(data: np.ndarray, var_type) -> vd.Buffer:
    if var_type is vd.complex32:  # numpy has no complex32: written as float16 pairs
        buffer = vd.Buffer(data.shape, vd.complex32)
        buffer.write(np.stack([data.real, data.imag], -1).astype(np.float16))
        return buffer
    return vd.asbuffer(data.astype(np.complex128 if var_type is vd.complex128 else
                                   np.complex64))


def other_buffer(shape, var_type, rng) -> vd.Buffer:
    """A buffer of a non-complex type holding random values."""
    buffer = vd.Buffer(shape, var_type)
    host = buffer.read(0)
    buffer.write(random_array(rng, host.shape, host.dtype))
    return buffer


def destroyed(buffer: vd.Buffer) -> vd.Buffer:
    buffer.destroy()
    return buffer


def _input_data(source, how: str) -> np.ndarray:
    """What a call reads from ``source``, flat, in float64/complex128."""
    values = _read(source, how)
    if how == "raw" and values.dtype == np.float32:  # a float32 view of complex values
        values = values.view(np.complex64)
    return values.reshape(-1).astype(np.float64 if how == "real" else np.complex128)


# -- the numpy model ------------------------------------------------------------------------------

class Model(NamedTuple):
    """What an accepted call computes."""

    axis: int | None           # normalised, of ``shape``
    inverse: bool
    normalize: bool
    shape: tuple               # the transformed shape (buffer_shape, or the buffer's)
    signal_range: tuple | None
    inner_only: bool


def _masked(y, signal_range, axis):
    if signal_range is None:
        return y
    start, end = signal_range
    n = y.shape[axis]
    start, end = (0 if start is None else start), (n if end is None else end)
    keep = np.zeros(n, bool)
    keep[start:end] = True
    view = [1] * y.ndim
    view[axis] = n
    return np.where(keep.reshape(view), y, 0)


def _inverse(y, axes, normalize):
    for a in axes:
        y = np.fft.ifft(y, axis=a) * (1 if normalize else y.shape[a])
    return y


def model_result(entry: Entry, model: Model, data: np.ndarray, kernel):
    """``(expected, axes)`` of the transformed part: ``data`` (flat, complex128 or float64,
    the whole input buffer) read as ``model.shape``."""
    shape = model.shape
    size = math.prod(shape)
    axes = transformed_axes(entry, len(shape), model.axis)
    with np.errstate(all="ignore"):
        if entry.family == "complex":
            y = _masked(data[:size].reshape(shape), model.signal_range, model.axis)
            if model.inverse:
                return _inverse(y, axes, model.normalize), axes
            return np.fft.fftn(y, axes=axes), axes
        if entry.family == "real":
            lengths = [shape[a] for a in axes]
            if not model.inverse:
                return np.fft.rfftn(data.reshape(shape), axes=axes), axes
            fourier = shape[:-1] + (shape[-1] // 2 + 1,)
            y = np.fft.irfftn(data.reshape(fourier), s=lengths, axes=axes)
            return y * (1 if model.normalize else math.prod(lengths)), axes
        if entry.family == "real_conv":
            fourier = shape[:-1] + (shape[-1] // 2 + 1,)
            spectrum = np.fft.rfftn(data.reshape(shape), axes=axes)
            spectrum = spectrum * np.conj(kernel[:math.prod(fourier)].reshape(fourier))
            y = np.fft.irfftn(spectrum, s=[shape[a] for a in axes], axes=axes)
            return y * (1 if model.normalize else math.prod(shape[a] for a in axes)), axes
        y = _masked(data[:size].reshape(shape), model.signal_range, model.axis)
        inner = shape[axes[0]:] if model.inner_only else shape
        k = kernel[:math.prod(inner)].reshape(inner)
        return _inverse(np.fft.fftn(y, axes=axes) * np.conj(k), axes, model.normalize), axes


class Output(NamedTuple):
    """A buffer an accepted call writes, and what it must then hold."""

    buffer: vd.Buffer
    read: str                  # "raw" (read), "real" (read_real) or "fourier" (read_fourier)
    expected: np.ndarray
    scale: np.ndarray          # tolerated error per element / (eps * c * log2 N); 0: exact
    tainted: np.ndarray        # in a block where numpy has non-finite values
    count: int                 # N: the points transformed together


def _read(buffer, how: str) -> np.ndarray:
    return {"raw": buffer.read, "real": lambda i: buffer.read_real(i),
            "fourier": lambda i: buffer.read_fourier(i)}[how](0)


def make_output(entry: Entry, model: Model, buffer, how: str, before: np.ndarray, data,
                kernel) -> Output:
    """The expected content of ``buffer`` (``before``: its content now, as read by ``how``)."""
    result, axes = model_result(entry, model, data, kernel)
    finite = np.isfinite(result)
    block = np.where(finite, np.abs(result), 0).max(axis=axes, keepdims=True)
    tainted = (~finite).any(axis=axes, keepdims=True)
    expected = before.astype(np.complex128 if np.iscomplexobj(before) else np.float64)
    scale, tainted_all = np.zeros(expected.shape), np.zeros(expected.shape, bool)
    # The whole buffer of a real transform is its shape; other transforms write a prefix
    # (buffer_shape) and leave the rest unchanged.
    size = expected.size if entry.family in ("real", "real_conv") else result.size
    expected.reshape(-1)[:size] = result.reshape(-1)
    scale.reshape(-1)[:size] = np.broadcast_to(block, result.shape).reshape(-1)
    tainted_all.reshape(-1)[:size] = np.broadcast_to(tainted, result.shape).reshape(-1)
    tainted_all |= ~np.isfinite(expected)  # data left as it was
    return Output(buffer, how, expected, scale, tainted_all,
                  math.prod(model.shape[a] for a in axes))


def assert_output(output: Output, eps: float, c: float, what: str) -> None:
    actual = _read(output.buffer, output.read)
    expected = output.expected
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    actual = actual.astype(expected.dtype)
    # NaN and infinities never reach a block numpy finds finite. In a complex output every
    # element of a block holding one gets it through a weight of modulus 1: non-finite in
    # any implementation, as in numpy. A real output keeps one part of complex values, and
    # which parts a non-finite value reaches depends on the products with exact 0 and 1
    # twiddles an implementation skips: there, only the finite values of both are compared.
    finite, actual_finite = np.isfinite(expected), np.isfinite(actual)
    spread = np.argwhere(~actual_finite & ~output.tainted)
    assert not spread.size, f"{what}: non-finite where numpy is finite, at {spread[:5].tolist()}"
    if np.iscomplexobj(expected):
        lost = np.argwhere(~finite & actual_finite)
        assert not lost.size, f"{what}: finite where numpy is not, at {lost[:5].tolist()}"
    finite &= actual_finite
    exact = finite & (output.scale == 0)  # unchanged elements, and transforms of zeros
    np.testing.assert_array_equal(actual[exact], expected[exact], err_msg=what)
    loose = finite & ~exact
    limit = eps * c * math.log2(max(output.count, 2)) * output.scale[loose]
    error = np.abs(actual[loose] - expected[loose])
    worst = np.argmax(error / limit) if error.size else None
    assert np.all(error <= limit), (
        f"{what}: error {error[worst]:.3g} > {limit[worst]:.3g} "
        f"({error[worst] / limit[worst]:.1f}x the tolerance)")


# -- building a call ---------------------------------------------------------------------------

_ABSENT = object()


class Trial:
    """One drawn call: its arguments, what it must do, and the buffers it may change."""

    def __init__(self, case: Case, rng: np.random.Generator):
        self.case, self.rng = case, rng
        self.entry = ENTRIES[case.entry]
        self.fn = getattr(vd.fft, case.entry)
        self.args: list = []
        self.kwargs: dict = {}
        self.expect = Expect.ok()
        self.buffers: dict[str, vd.Buffer] = {}  # every live buffer of the call
        self.outputs: list[Output] = []
        self.base = None                          # the valid call: (args, kwargs)
        self.eps = EPS32
        self.graph = None                         # a graph to submit after the call
        self.transform_shape = case.shape         # buffer_shape, as the model reads it
        self.owned_graphs: list = []

    def new_graph(self):
        graph = vd.CommandGraph()
        self.owned_graphs.append(graph)
        return graph

    def close(self) -> None:
        for graph in self.owned_graphs:
            graph.destroy()


def _verdict(value: str, *names: str) -> Expect:
    """The Expect of a value classified "ok", "lenient" or "bad"."""
    return {"ok": Expect.ok(), "lenient": Expect.lenient(*names),
            "bad": Expect.bad(*names)}[value]


def _precision_verdict(label: str) -> str:
    """Complex precisions beyond complex64 need device support (else refused naming it)."""
    return "ok" if _supported(getattr(vd, label)) else "bad"


def build(case: Case, rng) -> Trial:
    trial = Trial(case, rng)
    entry, fault = trial.entry, case.fault
    kind, label = fault.kind, fault.label

    # -- shape faults change the buffer itself
    shape = list(case.shape)
    if kind == "length":
        position, length = fault.param
        shape[position] = length
    if kind == "ndim":
        shape = shape[len(shape) - fault.param:]
    shape = tuple(shape)
    ndim = len(shape)
    axis = case.axis
    normal_axis = ndim - 1 if axis is None or not -ndim <= axis < ndim else axis % ndim

    flags = dict(case.flags)
    inverse = flags.get("inverse", entry.inverse)
    normalize = flags.get("normalize", flags.get("normalize_inverse", True))
    inner_only = case.inner_only and kind != "buffer_shape"  # a prefix takes whole kernels
    model = Model(normal_axis, inverse, normalize, shape, None, inner_only)

    # -- data: float16 data (complex32) must not overflow, so it is of unit scale
    half = label == "complex32" and kind in ("dtype", "types")
    if half:
        trial.eps = EPS16
    special = label if kind == "data" else None
    family = entry.family
    # How the input is read and the output written: complex values, or an RFFTBuffer's real
    # samples or half spectrum.
    in_how, out_how = {"complex": ("raw", "raw"), "conv": ("raw", "raw"),
                       "real_conv": ("real", "real"),
                       "real": ("fourier", "real") if inverse else ("real", "fourier")}[family]
    fourier = shape[:-1] + (shape[-1] // 2 + 1,)
    data = random_data(rng, fourier if in_how == "fourier" else shape, in_how == "real",
                       special, 1.0 if half else 100.0)

    # -- the main buffer
    if family in ("complex", "conv"):
        var_type = vd.complex64
        if kind == "dtype":
            var_type = getattr(vd, label)
            trial.expect = Expect.bad("output_type", "buffer") if DTYPES[label] else \
                _verdict(_precision_verdict(label), label)
        if var_type not in (vd.complex64, vd.complex128, vd.complex32):
            buffer = other_buffer(shape, var_type, rng)
        elif var_type is not vd.complex64 and not _supported(var_type):
            buffer = vd.Buffer(shape, var_type)  # it may exist; the FFT must refuse it
        else:
            buffer = complex_buffer(data, var_type)
    elif kind == "dtype" and label == "plain Buffer":
        buffer = vd.asbuffer(random_array(rng, fourier, np.complex64))
        trial.expect = Expect.bad("Buffer")
    else:
        fourier_type = vd.complex128 if kind == "dtype" else vd.complex64
        if kind == "dtype":
            trial.expect = _verdict(_precision_verdict(label), label)
        if not _supported(fourier_type):
            buffer = vd.RFFTBuffer(shape)
        else:
            buffer = vd.RFFTBuffer(shape, fourier_type)
            if in_how == "real":
                buffer.write_real(data)
            else:
                host = np.complex128 if fourier_type is vd.complex128 else np.complex64
                buffer.write_fourier(data.astype(host))
    trial.buffers["buffer"] = buffer

    # -- the kernel of a convolution: a spectrum shaped like the signal (or its inner axes)
    kernel = None
    if entry.family == "conv":
        inner_axis = transformed_axes(entry, ndim, normal_axis)[0]
        kernel_shape = shape[inner_axis:] if inner_only else shape
        kernel = vd.asbuffer(random_array(rng, kernel_shape, np.complex64))
        trial.buffers["kernel"] = kernel
    elif entry.family == "real_conv":
        kernel = vd.RFFTBuffer(shape)
        kernel.write_fourier(random_array(rng, fourier, np.complex64))
        trial.buffers["kernel"] = kernel

    # -- the valid call
    trial.args = [buffer] + ([kernel] if kernel is not None else [])
    if axis is not None:
        trial.kwargs["axis"] = axis
    trial.kwargs.update(flags)
    if inner_only:
        trial.kwargs["kernel_inner_only"] = True
    if case.via_graph:
        trial.graph = trial.kwargs["graph"] = trial.new_graph()
    trial.base = (list(trial.args), {k: v for k, v in trial.kwargs.items() if k != "graph"})

    # -- the fault
    target, source = buffer, buffer  # the buffer written, the buffer read
    if kind == "ndim":
        trial.expect = Expect.bad("buffer", "Buffer")
    elif kind == "not_buffer":
        host = data.astype(np.complex64)
        trial.args[0] = {"numpy": host, "list": host.tolist(), "None": None, "str": "buffer",
                         "float": 1.5, "int": 3, "bool": True, "dtype": vd.complex64}[label]
        trial.expect = Expect.bad("buffer", "Buffer")
    elif kind == "destroyed":
        trial.args[0] = destroyed(trial.buffers.pop("buffer"))
        trial.expect = Expect.bad("destroyed")
    elif kind == "axis":
        model = _axis_fault(trial, label, axis, ndim, model)
    elif kind == "buffer_shape":
        model = _buffer_shape_fault(trial, label, buffer.size, model)
    elif kind == "flags":
        model = _flag_fault(trial, label, fault.param, model)
    elif kind == "graph":
        _graph_fault(trial, label)
    elif kind == "name":
        trial.kwargs["name"] = {
            "identifier": "fuzzed_fft", "''": "", "spaces": "a b c", "newline": "a\nb",
            "comment end": "*/ x /*", "quote": 'q"\'', "unicode": "名前", "long": "n" * 300,
            "int": 3, "float": 1.5, "list": ["x"], "bytes": b"x"}[label]
        trial.expect = _verdict(NAMES[label], "name")
    elif kind == "types":
        _types_fault(trial, label, fault.param)
    elif kind == "signal_range":
        model = _signal_range_fault(trial, label, model)
    elif kind == "kernel":
        kernel = _kernel_fault(trial, label, buffer, kernel)
    elif kind == "out_of_place":
        target, source = _out_of_place_fault(trial, label, buffer, shape)
    elif kind == "buffer_count":
        _buffer_count_fault(trial, label, shape)

    # -- what an accepted call leaves in the buffer it writes
    if trial.expect.model and target is not None:
        kernel_data = None
        if kernel is not None:
            kernel_data = (kernel.read_fourier(0) if isinstance(kernel, vd.RFFTBuffer)
                           else kernel.read(0)).reshape(-1).astype(np.complex128)
        trial.outputs.append(make_output(entry, model, target, out_how, _read(target, out_how),
                                         _input_data(source, in_how), kernel_data))
    return trial


def _axis_fault(trial: Trial, label: str, axis, ndim: int, model: Model) -> Model:
    # A float, bool or numpy value equal to the valid call's axis: a cached plan of that call
    # must not let it through.
    raw = axis if axis is not None else ndim - 1
    value = {"np.int64": np.int64(raw), "np.int32": np.int32(raw), "0-d array": np.array(raw),
             "ndim": ndim, "-ndim-1": -ndim - 1, "17": 17, "-100": -100, "2**70": 2**70,
             "-2**70": -2**70, "float": float(raw), "np.float64": np.float64(raw),
             "bool": bool(raw) if raw in (0, 1) else True, "str": str(raw), "list": [raw],
             "tuple": (raw,), "repeated": (raw, raw), "complex": complex(raw)}[label]
    trial.kwargs["axis"] = value
    trial.expect = _verdict(AXES[label], "axis")
    return model._replace(axis=raw % ndim)


def _buffer_shape_fault(trial: Trial, label: str, size: int, model: Model) -> Model:
    trial.kwargs.pop("axis", None)  # the last axis of whatever shape is given
    rng, name = trial.rng, trial.case.entry
    low = 2 if name == "convolve2D" else 1
    prefix, budget = [], size
    for _ in range(int(rng.integers(low, 4))):  # smooth lengths, at most ``size`` elements
        n = int(rng.choice([n for n in SMOOTH if n <= budget]))
        prefix.append(n)
        budget //= n
    prefix = tuple(prefix)
    value = {"prefix": prefix, "prefix list": list(prefix),
             "prefix np.int64": tuple(np.int64(n) for n in prefix),
             "prefix array": np.array(prefix), "int": size, "()": (), "larger": (2 * size,),
             "one more row": (size // trial.case.shape[-1] + 1, trial.case.shape[-1]),
             "2**31": (2**31,), "2**70": (2**70, 1), "0": 0, "negative": (-size,),
             "float": float(size), "floats": (1.0, float(size)), "str": str(size),
             "None inside": (None, size), "4-d": (1, 1, 1, size), "nan": (math.nan,),
             "set": {1, size}, "dict": {size: 1}}[label]
    trial.kwargs["buffer_shape"] = value
    verdict = BUFFER_SHAPES[label]
    shape = {"int": (size,), "()": (1,)}.get(label, prefix)
    if name == "convolve2D" and len(shape) < 2:  # 2-D convolutions need 2 or 3 axes
        verdict = "bad"
    trial.expect = _verdict(verdict, "buffer_shape")
    trial.transform_shape = shape
    return model._replace(shape=shape, axis=len(shape) - 1)


def _flag_fault(trial: Trial, label: str, flag: str, model: Model) -> Model:
    value = {"True": True, "False": False, "0": 0, "1": 1, "np.True_": np.True_,
             "np.False_": np.False_, "'no'": "no", "'False'": "False", "''": "", "2.5": 2.5,
             "[True]": [True], "object": object(), "array": np.array([True, False])}[label]
    trial.kwargs[flag] = value
    trial.expect = _verdict(FLAG_VALUES[label], flag)
    if FLAG_VALUES[label] == "bad":
        return model
    meaning = bool(value)
    return model._replace(inverse=meaning) if flag == "inverse" else \
        model._replace(normalize=meaning)


def _graph_fault(trial: Trial, label: str) -> None:
    trial.expect = _verdict(GRAPHS[label], "graph", "CommandGraph")
    if label in ("graph", "positional"):
        graph = trial.graph = trial.new_graph()
        if label == "graph":
            trial.kwargs["graph"] = graph
        else:
            trial.args.append(graph)
        return
    if label == "destroyed":
        value = vd.CommandGraph()
        value.destroy()
    elif label == "buffer":
        value = vd.Buffer((4,), vd.complex64)
    else:
        value = {"str": "graph", "int": 3, "object": object(), "dtype": vd.complex64}[label]
    trial.kwargs["graph"] = value


def _types_fault(trial: Trial, label: str, param: str) -> None:
    role = param.split("_")[0].capitalize() + " precision"  # unsupported: "Compute precision"
    if param == "compute_type":
        value = {"complex64": vd.complex64, "complex128": vd.complex128,
                 "complex32": vd.complex32, "float32": vd.float32, "vec2": vd.vec2,
                 "float64": vd.float64, "'complex64'": "complex64",
                 "np.complex64": np.complex64, "int": 3}[label]
        verdict = COMPUTE_TYPES[label] or _precision_verdict(label)
    else:
        value = {"same": vd.complex64, "complex128": vd.complex128, "float32": vd.float32,
                 "'complex64'": "complex64", "np.complex64": np.complex64, "int": 3}[label]
        verdict = IO_TYPES[label]
    trial.kwargs[param] = value
    trial.expect = _verdict(verdict, param, role)


def _signal_range_fault(trial: Trial, label: str, model: Model) -> Model:
    n = model.shape[model.axis]
    rng = trial.rng
    start = int(rng.integers(0, n + 1))
    end = int(rng.integers(start, n + 1))
    value, meaning = {
        "inside": ((start, end),) * 2, "open start": ((None, end),) * 2,
        "open end": ((start, None),) * 2, "all None": ((None, None),) * 2,
        "empty": ((start, start),) * 2,
        "np.int64": ((np.int64(start), np.int64(end)), (start, end)),
        "integral floats": ((float(start), float(end)), (start, end)),
        "reversed": ((min(1, n), 0), None), "negative": ((-1, end), None),
        "past the end": ((start, n + 1), None), "list": ([start, end], None),
        "triple": ((start, end, 1), None), "int": (end, None), "str": (f"{start}:{end}", None),
        "str element": ((str(start), end), None), "fraction": ((start, end - 0.5), None),
        "nan": ((math.nan, end), None), "inf": ((start, math.inf), None),
        "object": ((object(), end), None)}[label]
    trial.kwargs["input_signal_range"] = value
    trial.expect = _verdict(SIGNAL_RANGES[label], "input_signal_range")
    return model._replace(signal_range=meaning)


def _kernel_fault(trial: Trial, label: str, buffer, kernel):
    """Replaces the kernel (or sets ``kernel_num``); returns the kernel the model reads."""
    rng = trial.rng
    not_buffer_names = ("'kernel'", "kernel:", "kernel buffer", "the kernel ", "kernel must")
    verdict = KERNELS[label]
    names: tuple = ("kernel",)
    replacement = _ABSENT
    if label == "complex128":
        verdict = _precision_verdict(label)
        names = ("kernel", "complex128")
        replacement = vd.asbuffer(kernel.read(0).astype(np.complex128))
    elif label == "larger":
        flat = kernel.read(0).reshape(-1)
        extra = random_array(rng, (int(rng.integers(1, 9)),), flat.dtype)
        replacement = vd.asbuffer(np.concatenate([flat, extra]))
    elif label == "plain Buffer":  # convolve2DR: the spectrum in a plain complex buffer
        replacement = vd.asbuffer(kernel.read_fourier(0))
    elif label == "alias":          # the signal is its own kernel (its values, as a spectrum)
        replacement = buffer
    elif label.startswith("kernel_num="):
        trial.kwargs["kernel_num"] = {"kernel_num=2": 2, "kernel_num=np.int64": np.int64(1),
                                      "kernel_num=0": 0, "kernel_num=-1": -1,
                                      "kernel_num=1.0": 1.0, "kernel_num=True": True,
                                      "kernel_num='1'": "1", "kernel_num=None": None}[label]
        names = ("kernel_num",)
    elif label in ("numpy", "None", "float", "list", "str"):
        host = kernel.read(0)
        replacement = {"numpy": host, "None": None, "float": 1.5, "list": host.tolist(),
                       "str": "kernel"}[label]
        names = not_buffer_names
    elif label in ("float32 buffer", "vec2 buffer"):
        var_type = vd.float32 if label == "float32 buffer" else vd.vec2
        replacement = other_buffer(kernel.shape, var_type, rng)
    elif label == "too small":  # one element short
        if kernel.size > 1:
            replacement = vd.asbuffer(kernel.read(0).reshape(-1)[:-1])
        else:                   # nothing is shorter than one element: the call is valid
            verdict = "ok"
    elif label == "destroyed":
        replacement = destroyed(vd.asbuffer(kernel.read(0)))  # the valid call keeps its own
        names = ("destroyed",)
    if replacement is not _ABSENT:
        trial.args[1] = replacement
        if isinstance(replacement, vd.Buffer) and replacement is not buffer and \
                label != "destroyed":
            trial.buffers["kernel"] = replacement
        kernel = replacement
    trial.expect = _verdict(verdict, *names)
    if label in ("numpy", "None", "float", "list", "str", "float32 buffer", "vec2 buffer",
                 "destroyed"):
        return None
    return kernel


def _out_of_place_fault(trial: Trial, label: str, buffer, shape):
    """``fn(dst, src, input_map=load_copy)``: the transform of ``src`` into ``dst``."""
    rng = trial.rng
    dst = vd.asbuffer(random_array(rng, shape, np.complex64))
    src = buffer
    trial.buffers.update(dst=dst, src=src)
    del trial.buffers["buffer"]
    trial.kwargs["input_map"] = load_copy
    trial.args = [dst, src]
    target, source = dst, src
    expect = _verdict(OUT_OF_PLACE[label], "'param1'", "src")
    if label == "output_map":
        del trial.kwargs["input_map"]
        trial.kwargs["output_map"] = store_copy
    elif label == "alias":
        trial.args = [src, src]
        del trial.buffers["dst"]
        target = source = src
    elif label == "float32 view":
        view = vd.Buffer(shape[:-1] + (2 * shape[-1],), vd.float32)
        view.write(src.read(0).view(np.float32))
        trial.buffers["src"] = trial.args[1] = source = view
    elif label in ("src numpy", "src None"):
        trial.args[1] = src.read(0) if label == "src numpy" else None
    elif label == "src complex128":
        trial.args[1] = trial.buffers["src"] = vd.asbuffer(src.read(0).astype(np.complex128))
    elif label == "src missing":
        trial.args = [dst]
        expect = Expect.bad("'param1'", "input buffer")
    elif label == "src destroyed":
        trial.args[1] = destroyed(trial.buffers.pop("src"))
        expect = Expect.bad("destroyed")
    elif label == "dst numpy":
        trial.args[0] = dst.read(0)
        expect = Expect.bad("buffer")
    elif label == "dst float32":
        trial.args[0] = trial.buffers["dst"] = other_buffer(shape, vd.float32, rng)
        expect = Expect.bad("output_type")
    elif label == "input_type":
        trial.kwargs["input_type"] = vd.complex64
        expect = Expect.bad("input_type")
    elif label == "plain function":
        trial.kwargs["input_map"] = _load_copy
        expect = Expect.bad("input_map")
    trial.expect = expect
    return target, source


def _buffer_count_fault(trial: Trial, label: str, shape) -> None:
    other = vd.asbuffer(random_array(trial.rng, shape, np.complex64))
    if label == "none":
        trial.args = []
        trial.expect = Expect.bad("buffer")
    elif label == "two":
        trial.args.append(other)
        trial.buffers["other"] = other
        trial.expect = Expect.bad("buffer")
    elif label == "kernel missing":
        trial.args = trial.args[:1]
        trial.expect = Expect.bad("kernel")
    else:
        trial.args.append(other)
        trial.buffers["other"] = other
        trial.expect = Expect.bad("buffer", "arguments")


# -- running a case -----------------------------------------------------------------------------

def assert_context_works(rng) -> None:
    """A small known FFT on fresh data still matches numpy."""
    x = random_array(rng, (3, 30), np.complex64)
    buffer = vd.asbuffer(x)
    vd.fft.fft(buffer)
    expected = np.fft.fft(x.astype(np.complex128))
    error = np.max(np.abs(buffer.read(0) - expected)) / np.max(np.abs(expected))
    assert error <= EPS32 * C * math.log2(30), f"the context no longer works: error {error}"


def _snapshot(trial: Trial) -> dict:
    return {name: buffer.read(0) for name, buffer in trial.buffers.items()}


def _assert_unchanged(trial: Trial, before: dict, why: str) -> None:
    for name, buffer in trial.buffers.items():
        np.testing.assert_array_equal(buffer.read(0), before[name], err_msg=f"{name}: {why}")


def run_case(case: Case) -> None:
    event(f"fault: {case.fault.kind}")
    rng = np.random.default_rng(case.seed)
    trial = build(case, rng)
    try:
        what = f"{case.entry}, {case.fault}"
        if case.warm:  # the valid call first: its plan and recording are then cached
            before = _snapshot(trial)
            args, kwargs = trial.base
            trial.fn(*args, **kwargs)
            for name, buffer in trial.buffers.items():
                buffer.write(before[name])
        before = _snapshot(trial)
        passed, _ = attempt(lambda: trial.fn(*trial.args, **trial.kwargs), trial.expect, what)
        if trial.graph is not None:
            if passed:
                _assert_unchanged(trial, before, "recorded into a graph, but it ran")
            trial.graph.submit()
        if not passed:
            _assert_unchanged(trial, before, "a refused call changed it")
            return
        c = 2 * C if trial.entry.family in ("conv", "real_conv") else C
        written = {id(output.buffer) for output in trial.outputs}
        for output in trial.outputs:
            assert_output(output, trial.eps, c, what)
        for name, buffer in trial.buffers.items():  # inputs, kernels: untouched
            if id(buffer) not in written:
                np.testing.assert_array_equal(buffer.read(0), before[name],
                                              err_msg=f"{what}: {name} changed")
    finally:
        trial.close()
        assert_context_works(rng)


@pytest.mark.parametrize("fault_kind", FAULT_KINDS)  # each kind in every run
@settings(BASE, max_examples=12)
@given(data=st.data())
def test_fuzz_fft_calls_raise_named_errors_or_match_numpy(context, fault_kind, data):
    run_case(data.draw(cases(fault_kind), "case"))


@pytest.mark.slow
@LONG
@given(case=cases())
def test_fuzz_fft_calls_long(context, case):
    run_case(case)


# -- the defects this fuzzing found, one minimal reproduction each ------------------------------
# Each asserts the contract above (an error of our hierarchy naming the argument, or numpy's
# result). Where several values showed a defect, the test tries them all and lists the ones
# that fail.

def _complex(rng, shape) -> np.ndarray:
    return random_array(rng, shape, np.complex64)


def _refusal_problem(call, name: str) -> str | None:
    """None if ``call()`` raises an error of our hierarchy naming ``name``; else what it did."""
    try:
        call()
    except Exception as error:  # which errors are right is what is checked here
        if not isinstance(error, errors.VkDispatchError):
            return f"bare {type(error).__name__}: {error}"
        if name not in str(error):
            return f"{type(error).__name__} not naming {name}: {error}"
        return None
    return "accepted"


def _assert_all_refused(calls: dict, name: str) -> None:
    problems = {label: _refusal_problem(call, name) for label, call in calls.items()}
    problems = {label: problem for label, problem in problems.items() if problem}
    assert not problems, "\n".join(f"{label}: {problem}" for label, problem in problems.items())


def test_a_refused_multi_pass_call_records_nothing_into_a_graph(context, rng, monkeypatch):
    """A multi-pass operation refused at a later pass (the plan of a length of 37 along its
    second axis, refused here for the test) left its earlier passes recorded in the graph, and
    submitting it changed the buffer (a fixed defect; eager calls were right: nothing ran)."""
    def refused(buffer_shape, axis, *_args):
        raise errors.InvalidArgumentError(f"length {buffer_shape[axis]} refused (test)")

    monkeypatch.setattr(shader_factories, "BluesteinFFT", refused)
    monkeypatch.setattr(shader_factories, "RaderFFT", refused)
    vd.fft.cache_clear()  # no plan of an earlier draw
    changed, n = [], 37
    for transform, shape in (("fft2", (2, 4, n)), ("fft3", (2, 4, n)),
                             ("rfft2", (2, n, 4)), ("convolve2D", (2, 4, n))):
        x = _complex(rng, shape)
        buffer = vd.asrfftbuffer(x.real.copy()) if transform == "rfft2" else vd.asbuffer(x)
        before = buffer.read(0)
        extra = (vd.asbuffer(_complex(rng, shape)),) if transform == "convolve2D" else ()
        graph = vd.CommandGraph()
        try:
            with pytest.raises(errors.VkDispatchError, match=str(n)):
                getattr(vd.fft, transform)(buffer, *extra, graph=graph)
            graph.submit()
            if not np.array_equal(buffer.read(0), before):
                changed.append(transform)
        finally:
            graph.destroy()
    assert not changed, f"a refused call recorded into a graph changed the buffer: {changed}"
    assert_context_works(rng)


def test_fixed_defect_cached_plan_accepts_equal_values(context, rng):
    """``axis=1.0`` (or ``True``, ``1+0j``, ``np.float64(1)``) and ``kernel_num=1.0`` (or
    ``True``) are refused, until a call with the int cached its plan: equal, equally hashed
    option values then share the cache entry (and the recorded repeat) and skip the checks."""
    vd.fft.cache_clear()  # no plan of an earlier test
    signal, kernel = vd.asbuffer(_complex(rng, (5, 8))), vd.asbuffer(_complex(rng, (5, 8)))
    values = (1.0, True, 1 + 0j, np.float64(1.0))
    fresh = {f"axis={v!r}": lambda v=v: vd.fft.fft(signal, axis=v) for v in values}
    _assert_all_refused(fresh, "axis")  # refused while nothing is cached
    vd.fft.fft(signal, axis=1)
    vd.fft.convolve(signal, kernel)
    calls = {f"axis={v!r} after axis=1": lambda v=v: vd.fft.fft(signal, axis=v) for v in values}
    calls.update({f"kernel_num={v!r} after kernel_num=1":
                  lambda v=v: vd.fft.convolve(signal, kernel, kernel_num=v) for v in (1.0, True)})
    problems = {label: _refusal_problem(call, label.split("=")[0]) for label, call in
                calls.items()}
    assert not any(problems.values()), problems
    assert_context_works(rng)


def test_fixed_defect_flags_are_not_checked(context, rng):
    """Any object is taken for its truth value (``normalize="False"`` normalises); an array
    raises numpy's bare ValueError."""
    buffer = vd.asbuffer(_complex(rng, (3, 16)))
    calls = {}
    for value in ("no", "False", "", 2.5, [True], np.array([True, False])):
        calls[f"ifft(normalize={value!r})"] = lambda v=value: vd.fft.ifft(buffer, normalize=v)
        calls[f"fft(inverse={value!r})"] = lambda v=value: vd.fft.fft(buffer, inverse=v)
    normalize = {k: c for k, c in calls.items() if "normalize" in k}
    inverse = {k: c for k, c in calls.items() if "inverse" in k}
    problems = {**{k: _refusal_problem(c, "normalize") for k, c in normalize.items()},
                **{k: _refusal_problem(c, "inverse") for k, c in inverse.items()}}
    problems = {k: p for k, p in problems.items() if p}
    assert not problems, "\n".join(f"{k}: {p}" for k, p in problems.items())
    assert_context_works(rng)


def test_fixed_defect_signal_range_elements_are_not_checked(context, rng):
    """Elements go through ``int()``: a fraction is truncated, a digit string accepted; NaN,
    infinity and other objects raise bare ValueError/OverflowError/TypeError."""
    buffer = vd.asbuffer(_complex(rng, (3, 16)))
    values = ((0, 2.5), ("1", 4), (math.nan, 4), (0, math.inf), (object(), 4))
    _assert_all_refused({repr(v): lambda v=v: vd.fft.fft(buffer, input_signal_range=v)
                         for v in values}, "input_signal_range")
    assert_context_works(rng)


def test_fixed_defect_name_is_not_checked(context, rng):
    """A name that is not a str raises a bare TypeError (from the native side, or
    ``unhashable type: 'list'``)."""
    buffer = vd.asbuffer(_complex(rng, (3, 16)))
    _assert_all_refused({repr(v): lambda v=v: vd.fft.fft(buffer, name=v)
                         for v in (3, 1.5, ["x"], b"x")}, "name")
    assert_context_works(rng)


def test_fixed_defect_kernel_that_is_not_a_buffer_is_reported_as_kernel_type(context, rng):
    """``convolve(x, kernel)`` with a numpy array (None, a number...) as the kernel says
    ``kernel_type must be one of ... (got None)``: an argument the call did not pass, and a
    value it did not pass."""
    x = _complex(rng, (4, 16))
    messages = {}
    for transform in ("convolve", "convolve2D"):
        for kernel in (x, None, 1.5):
            with pytest.raises(errors.VkDispatchError) as info:
                getattr(vd.fft, transform)(vd.asbuffer(x), kernel)
            message = str(info.value)
            if message.startswith("kernel_type") or type(kernel).__name__ not in message:
                messages[f"{transform}(x, {type(kernel).__name__})"] = message
    assert not messages, messages
    assert_context_works(rng)


def test_fixed_defect_multi_axis_transforms_ignore_extra_buffers(context, rng):
    """``fft(a, b)`` without maps is refused ("exactly one buffer"); ``fft2(a, b)`` (and
    ``ifft2``, ``fft3``, ``ifft3``) transforms ``a`` and ignores ``b``."""
    a, b = vd.asbuffer(_complex(rng, (2, 4, 8))), vd.asbuffer(_complex(rng, (2, 4, 8)))
    _assert_all_refused({t: lambda t=t: getattr(vd.fft, t)(a, b)
                         for t in ("fft2", "ifft2", "fft3", "ifft3")}, "buffer")
    assert_context_works(rng)


def test_fixed_defect_buffer_shape_takes_any_iterable(context, rng):
    """A set (its order is not the caller's) or a dict is iterated into a shape."""
    buffer = vd.asbuffer(_complex(rng, (64,)))
    _assert_all_refused({repr(v): lambda v=v: vd.fft.fft(buffer, buffer_shape=v)
                         for v in ({16, 4}, {16: 4})}, "buffer_shape")
    assert_context_works(rng)


def _convolve2D_problem(rng, buffer_shape, shape) -> str | None:
    """What is wrong with ``convolve2D`` of a ``shape`` buffer given ``buffer_shape`` (a valid
    call: it must match numpy), or None."""
    x, k = _complex(rng, shape), _complex(rng, shape)
    buffer = vd.asbuffer(x)
    try:
        vd.fft.convolve2D(buffer, vd.asbuffer(k), buffer_shape=buffer_shape)
    except errors.VkDispatchError as error:
        return f"refused: {error}"
    y = x.reshape(buffer_shape).astype(np.complex128)
    expected = np.fft.ifft2(np.fft.fft2(y) * np.conj(k.reshape(buffer_shape)))
    error = np.abs(buffer.read(0) - expected.reshape(shape)).max() / np.abs(expected).max()
    return f"relative error {error:.3g}" if error > 1e-4 else None


def test_fixed_defect_convolve2D_takes_its_axes_from_the_buffer_not_buffer_shape(context, rng):
    """The axes come from the buffer's dimensions: a 3-D buffer_shape on a 2-D buffer is
    convolved along the wrong axes (no error); a 2-D one on a 3-D buffer, and a 1-D one, are
    refused with a message about ``axis``, an argument convolve2D does not take."""
    problems = {"(2, 2, 16) on a (4, 16) buffer": _convolve2D_problem(rng, (2, 2, 16), (4, 16)),
                "(8, 16) on a (2, 4, 16) buffer": _convolve2D_problem(rng, (8, 16), (2, 4, 16))}
    buffer, kernel = vd.asbuffer(_complex(rng, (4, 16))), vd.asbuffer(_complex(rng, (4, 16)))
    problems["(64,)"] = _refusal_problem(
        lambda: vd.fft.convolve2D(buffer, kernel, buffer_shape=(64,)), "buffer_shape")
    problems = {label: problem for label, problem in problems.items() if problem}
    assert not problems, problems
    assert_context_works(rng)


def test_fixed_defect_convolve2D_of_a_non_buffer_raises_attribute_error(context, rng):
    kernel = vd.asbuffer(_complex(rng, (4, 16)))
    _assert_all_refused({repr(v): lambda v=v: vd.fft.convolve2D(v, kernel)
                         for v in (None, [1.0], "buffer", 1.5)}, "buffer")
    assert_context_works(rng)


def test_fixed_defect_input_type_that_is_not_a_dtype_raises_attribute_error(context, rng):
    """``input_type`` is compared with the output type before it is validated, and the
    message then reads ``.name`` of a str, a numpy type or an int."""
    buffer = vd.asbuffer(_complex(rng, (4, 16)))
    _assert_all_refused({f"{t}(input_type={v!r})": lambda t=t, v=v: getattr(vd.fft, t)(
        buffer, input_type=v) for t in ("fft", "fft2") for v in ("complex64", np.complex64, 3)},
        "input_type")
    assert_context_works(rng)


def test_fixed_defect_signal_as_its_own_kernel_is_silently_wrong(context, rng):
    """The signal buffer passed as the kernel too is neither refused nor right where the
    kernel is read after parts of the buffer were written: ``convolve2D(x, x)`` (its first
    pass, an FFT of ``x`` in place, changes the kernel before the fused pass reads it) and
    ``convolve(x, x, kernel_inner_only=True)`` (every line reads the kernel from line 0,
    which its own line overwrites). ``convolve(x, x)`` (each line its own kernel) is right."""
    def conv(x, kernel, axes):
        y = x.astype(np.complex128)
        return np.fft.ifftn(np.fft.fftn(y, axes=axes) * np.conj(kernel), axes=axes)

    x2, x1 = _complex(rng, (4, 16)), _complex(rng, (64, 8))
    cases = {"convolve2D(x, x)": (x2, lambda b: vd.fft.convolve2D(b, b), conv(x2, x2, (0, 1))),
             "convolve(x, x, kernel_inner_only=True)": (
                 x1, lambda b: vd.fft.convolve(b, b, kernel_inner_only=True),
                 conv(x1, x1[0], (1,)))}
    problems = {}
    for label, (x, call, expected) in cases.items():
        buffer = vd.asbuffer(x)
        try:
            call(buffer)
        except errors.VkDispatchError as error:
            if "kernel" not in str(error):
                problems[label] = f"refused, not naming the kernel: {error}"
            continue
        error = np.abs(buffer.read(0) - expected).max() / np.abs(expected).max()
        if error > 1e-4:
            problems[label] = f"accepted, relative error {error:.3g}"
    assert not problems, problems
    assert_context_works(rng)


def test_fixed_defect_inverse_real_transforms_fail_to_build_in_complex32(context, rng):
    """``compute_type=vd.complex32`` (on a device with fp16) works for every complex transform,
    convolution and forward real transform, but ``irfft``, ``irfft2``, ``irfft3`` and
    ``convolve2DR`` fail while generating the shader ("Cannot set variable of type
    'complex32' to value of type 'complex64'"): a library error naming no argument."""
    if not _supported(vd.complex32):
        pytest.skip("the device lacks float16 storage/arithmetic")
    failures = {}
    for name, shape in (("irfft", (3, 8)), ("irfft2", (3, 8)), ("irfft3", (2, 3, 4)),
                        ("convolve2DR", (3, 8))):
        real = rng.standard_normal(shape).astype(np.float32)
        buffer = vd.asrfftbuffer(real)
        if name == "irfft":  # the inverse of numpy's rfft, to compare with
            buffer.write_fourier(np.fft.rfft(real).astype(np.complex64))
        args = (buffer, vd.RFFTBuffer(shape)) if name == "convolve2DR" else (buffer,)
        try:
            getattr(vd.fft, name)(*args, compute_type=vd.complex32)
        except Exception as error:  # any error of a valid call is the defect
            failures[name] = f"{type(error).__name__}: {error}"
        else:
            if name == "irfft":
                np.testing.assert_allclose(buffer.read_real(0), real, atol=0.05)
    assert not failures, failures
    assert_context_works(rng)


def test_fixed_defect_a_destroyed_buffer_is_named_as_passed(context, rng):
    """A destroyed signal or kernel was reported as the generated shader's 'param0'/'param1'."""
    signal, kernel = vd.asbuffer(_complex(rng, (4, 16))), vd.asbuffer(_complex(rng, (4, 16)))
    kernel.destroy()
    with pytest.raises(errors.InvalidArgumentError,
                       match="^buffer argument 1 was destroyed"):
        vd.fft.convolve(signal, kernel)
    signal.destroy()
    for transform in (vd.fft.fft, vd.fft.fft2):
        with pytest.raises(errors.InvalidArgumentError, match="^buffer was destroyed"):
            transform(signal)
    assert_context_works(rng)
