"""Fuzz test of ``vd.vkfft``: complex transforms (``fft``, ``ifft``, ``fft2``/``ifft2``,
``fft3``/``ifft3``), real ones (``rfft``/``irfft`` and their 2-D/3-D forms, ``fft(r2c=True)``),
``VkFFTPlan`` built and recorded by hand, and ``transpose_kernel2D`` + ``convolve2D``, each called
with random arguments, most of them wrong: buffers of another dtype or kind (numpy arrays, lists,
None, strings, destroyed buffers), axes out of range, repeated or not ints, ``buffer_shape``
larger than the buffer or not a shape, input buffers of another shape or dtype, flags that are
not bools, graphs that are not graphs, bad plan counts and dtypes, kernels and paddings that do
not fit; and random data: normal, tiny (1e-20), huge (1e30), of a wide dynamic range, or with
NaN and infinities.

Each draw either passes, and then the buffer holds what numpy computes (in float64, or long
double for complex128 data: ``np.fft.fftn``/``ifftn``/``rfftn``/``irfftn``, a 2-D circular
convolution), every value within ``eps * C * log2(N)`` times the L2 norm of its batch (the values
that share the non-transformed indices): a batch whose input holds a NaN or an infinity must come
out all non-finite, every other batch finite and close, and what lies outside the transformed
region unchanged; or it raises a vkdispatch error that is also a ``TypeError``/``ValueError``/
``IndexError`` whose message names the argument at fault (see fuzzing.py). A refused call leaves
its buffer as it was, also when it was given a CommandGraph that is then submitted, and
afterwards a small known transform still matches numpy.

VkFFT plans are slow to build on lavapipe (10-300 ms each), so shapes, axes and options come
from small pools and buffers are pooled per shape (a plan keeps the applications of the buffers
it ran on). Each test is parametrized over what is wrong, so that every kind of fault is drawn in
every run; the ``slow`` variants draw any two faults together, many more times.

The defects this fuzzing found are fixed; regression tests at the end (FIXED) pin each. The
strategies still leave their inputs out where a comment says "left out while pinned": the
tests at the end cover them.
"""
from __future__ import annotations

import math
from functools import cache
from itertools import combinations
from typing import NamedTuple

import numpy as np
import pytest
from fuzzing import (BASE, LONG, Arg, Expect, Make, attempt, bad, choose, lenient, ok,
                     outcome, refused_naming)
from hypothesis import event, given, settings
from hypothesis import strategies as st

import vkdispatch as vd
from vkdispatch import _native, errors

C = 8  # as test_vkfft.py: errors within eps * C * log2(N) of each batch's L2 norm
EPS = {"complex64": 2.0**-24, "complex128": 2.0**-53}
VAR_TYPES = {"complex64": vd.complex64, "complex128": vd.complex128}
NP_TYPES = {"complex64": np.complex64, "complex128": np.complex128}
REAL_TYPES = {"complex64": np.float32, "complex128": np.float64}
# numpy's reference runs wider than the data: float64 for complex64, long double for complex128.
WIDE = {"complex64": np.complex128, "complex128": np.clongdouble}
REAL_WIDE = {"complex64": np.float64, "complex128": np.longdouble}
DATA_KINDS = ("normal", "tiny", "huge", "mixed", "nan", "inf")
SCALED = ("normal", "tiny", "huge", "mixed")
SCALES = {"normal": 100.0, "tiny": 1e-20, "huge": 1e30, "mixed": 1.0, "nan": 100.0, "inf": 100.0}


# -- what a drawn argument is ---------------------------------------------------------------------

def axis_args(ndim: int, name: str, full: bool, none_means_all: bool = False,
              need_last: str | None = None):
    """``axis``/``axes`` values for an ``ndim``-D shape; meaning: the sorted transformed axes.
    ``need_last``: "bad" (an axis set without the last axis must be refused) or "omit" (such
    sets are not drawn)."""
    tag = f"{name}:"  # our messages start "axis: ..."; "last axis" elsewhere names nothing
    valid, refused = [], []

    def add(passed, axes):
        axes = tuple(sorted(a % ndim for a in axes))
        if need_last and ndim - 1 not in axes:
            if need_last == "bad":
                refused.append(bad(passed, tag))
        else:
            valid.append(ok(passed, axes))

    add(None, range(ndim) if none_means_all else (ndim - 1,))
    for size in range(1, ndim + 1):
        for subset in combinations(range(ndim), size):
            add(tuple(subset), subset)
            add([a - ndim for a in reversed(subset)], subset)  # negative, unsorted
            if size == 1:
                add(subset[0], subset)
                add(subset[0] - ndim, subset)
            if subset == tuple(range(subset[0], subset[-1] + 1)):
                add(range(subset[0], subset[-1] + 1), subset)
    last = ndim - 1
    lenient_ = [lenient(np.int64(last), (last,), tag), lenient((np.int64(last),), (last,), tag),
                lenient({last}, (last,), tag), lenient(np.array([last]), (last,), tag)]
    refused += [bad(v, tag) for v in
                (ndim, -ndim - 1, 2**70, -2**70, (last, last), (last, -1), 1.0, float(last),
                 True, False, "0", (), [], [None], [[last]], 0.5, {"axis": 0})]
    return choose(full, valid, lenient_, refused)


def flag_args(name: str, full: bool):
    """A bool flag. Other values are lenient: the library may take their truth value (that is
    the model) or refuse them naming the flag."""
    values = (0, 1, np.bool_(True), np.bool_(False), None, "no", "", 2, 0.5, [])
    return choose(full, [ok(True, True), ok(False, False)],
                  [lenient(v, bool(v), name) for v in values])


def buffer_shape_args(shape: tuple, full: bool):
    """``buffer_shape`` for a complex buffer of ``shape``; meaning: the shape transformed (from
    the start of the buffer)."""
    n = math.prod(shape)
    valid = [ok(None, shape), ok(shape, shape), ok((n,), (n,))]
    if shape[0] > 1:
        valid.append(ok((shape[0] - 1,) + shape[1:], (shape[0] - 1,) + shape[1:]))
    if n > 1:
        valid.append(ok((n - 1,), (n - 1,)))
    if n % 2 == 0 and n > 2:
        valid.append(ok((2, n // 2), (2, n // 2)))
    lenient_ = [lenient((), (1,), "buffer_shape"), lenient(list(shape), shape, "buffer_shape"),
                lenient(tuple(np.int64(e) for e in shape), shape, "buffer_shape"),
                lenient(np.int64(n), (n,), "buffer_shape"),
                lenient(np.array(shape), shape, "buffer_shape")]
    refused = [bad(v, "buffer_shape") for v in
               ((n + 1,), (2 * shape[0],) + shape[1:], 0, -1, (0,) + shape[1:], (shape[0], -2),
                2.5, "8", (1, 1, 1, n), True, (True,), 2**40, (shape[0], 8.0), [None],
                Make("object"))]
    return choose(full, valid, lenient_, refused)


def graph_args(full: bool):
    valid = [ok(Make("no graph")), ok(Make("CommandGraph")), ok(Make("global graph"))]
    refused = [bad(v, "graph") for v in (3, "graph", Make("object"), vd.float32)]
    refused.append(bad(Make("destroyed CommandGraph"), "graph", "CommandGraph"))
    return choose(full, valid, (), refused)


# -- data ---------------------------------------------------------------------------------------

def with_kind(rng, x: np.ndarray, kind: str) -> np.ndarray:
    """``x`` (random normal, never zero) scaled for ``kind``, with one or two NaN or infinities
    (in the real part, the imaginary part or both) for "nan" and "inf"."""
    x = x * SCALES[kind]
    if kind == "mixed":  # eight decades of magnitudes side by side
        x = x * 10.0 ** rng.integers(-2, 6, x.shape)
    if kind in ("nan", "inf"):
        flat = x.reshape(-1)
        for _ in range(int(rng.integers(1, 3))):
            i = int(rng.integers(flat.size))
            special = math.nan if kind == "nan" else float(rng.choice([math.inf, -math.inf]))
            if np.iscomplexobj(flat):
                part = int(rng.integers(3))
                flat[i] = complex(special if part != 1 else flat[i].real,
                                  special if part != 0 else flat[i].imag)
            else:
                flat[i] = special
    return x


def complex_data(rng, shape, dtype: str, kind: str = "normal") -> np.ndarray:
    x = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return with_kind(rng, x, kind).astype(NP_TYPES[dtype])


def real_data(rng, shape, dtype: str, kind: str = "normal") -> np.ndarray:
    return with_kind(rng, rng.standard_normal(shape), kind).astype(REAL_TYPES[dtype])


def batches(a: np.ndarray, axes) -> np.ndarray:
    """``a`` as rows: one per index of the non-transformed axes."""
    rest = [d for d in range(a.ndim) if d not in axes]
    count = math.prod(a.shape[d] for d in rest)
    return np.transpose(a, rest + list(axes)).reshape(count, -1)


def assert_transformed(actual, expected, source, axes, n: int, eps: float, what: str,
                       c: float = C, mask=None) -> None:
    """Per batch: non-finite input, all non-finite output; else finite and within ``eps * c *
    log2(n)`` of the batch's expected L2 norm. ``mask``: where the result is defined (default
    everywhere)."""
    assert np.shape(actual) == np.shape(expected), what
    act, exp = batches(np.asarray(actual), axes), batches(np.asarray(expected), axes)
    keep = np.ones(act.shape, bool) if mask is None else \
        batches(np.broadcast_to(mask, np.shape(actual)), axes)
    tainted = ~np.isfinite(batches(np.asarray(source), axes)).all(axis=1)
    assert not np.isfinite(act[tainted][keep[tainted]]).any(), \
        f"{what}: a batch with NaN/inf input has finite outputs:\n{act[tainted]}"
    act, exp, keep = act[~tainted], exp[~tainted], keep[~tainted]
    if not act.size:
        return
    assert np.isfinite(act[keep]).all(), f"{what}: non-finite output from finite input:\n{act}"
    # Relative to the batch's L2 norm: an FFT's error grows as eps * log2(N) * ||X||, and one
    # value may be far below the norm (data of a wide dynamic range).
    norm = np.sqrt(np.sum(np.where(keep, np.abs(exp) ** 2, 0), axis=1, keepdims=True))
    error = float(np.max(np.where(keep, np.abs(act.astype(exp.dtype) - exp), 0) / norm))
    limit = eps * c * max(1.0, math.log2(max(n, 2)))
    assert error <= limit, f"{what}: error {error:.3g} (in eps: {error / eps:.1f}) > {limit:.3g}"


def complex_transform(x, axes, inverse: bool, normalize: bool, wide):
    """numpy's transform of ``x`` over ``axes`` (VkFFT's unnormalised inverse: ``N * ifftn``)."""
    x = np.asarray(x).astype(wide)
    if not inverse:
        return np.fft.fftn(x, axes=axes)
    n = math.prod(x.shape[a] for a in axes)
    return np.fft.ifftn(x, axes=axes) * (1 if normalize else n)


def has_fp64() -> bool:
    return all(info.float_64_support for info in vd.get_context().device_infos)


def resolve_dtype(dtype: str) -> str:
    """complex128 where the device has 64-bit floats (else the draw runs as complex64)."""
    if dtype == "complex128" and not has_fp64():
        event("complex128 drawn without float64: complex64")
        return "complex64"
    return dtype


# -- pooled device objects -------------------------------------------------------------------------

@cache
def pooled(shape: tuple, dtype: str, role: str = "main") -> vd.Buffer:
    """One buffer per shape, dtype and role, reused by every draw: a plan builds a VkFFT
    application (pipelines) for each new buffer it runs on."""
    return vd.Buffer(shape, VAR_TYPES[dtype])


@cache
def pooled_rfft(real_shape: tuple, dtype: str) -> vd.RFFTBuffer:
    return vd.RFFTBuffer(real_shape, VAR_TYPES[dtype])


def make_graph(arg: Arg):
    """``(graph argument, graph to submit after the call or None)``."""
    what = arg.passed.what if isinstance(arg.passed, Make) else None
    if what == "no graph":
        return None, None
    if what == "global graph":
        return vd.global_graph(), None
    if what == "CommandGraph":
        graph = vd.CommandGraph()
        return graph, graph
    if what == "destroyed CommandGraph":
        graph = vd.CommandGraph()
        graph.destroy()
        return graph, None
    if what == "object":
        return object(), None
    return arg.passed, None


def plain_value(arg: Arg):
    """The passed value, made where it is a Make("object")."""
    return object() if isinstance(arg.passed, Make) and arg.passed.what == "object" else \
        arg.passed


def readable(value) -> bool:
    return isinstance(value, vd.Buffer) and not value.destroyed


def wrong_buffer(what: str, shape: tuple, dtype: str, rng):
    """A buffer argument that is not a complex Buffer of ``dtype``, and what it holds (None
    where nothing can change)."""
    n = math.prod(shape)
    if what == "float32 buffer":
        data = real_data(rng, shape, "complex64")
        return vd.asbuffer(data), data
    if what == "int32 buffer":
        data = rng.integers(-2**31, 2**31, shape, dtype=np.int32)
        return vd.asbuffer(data), data
    if what == "vec2 buffer":  # the bytes of complex64, but not a complex dtype
        buffer = vd.Buffer(shape, vd.vec2)
        data = real_data(rng, shape + (2,), "complex64")
        buffer.write(data)
        return buffer, data
    if what == "complex numpy array":
        return complex_data(rng, shape, dtype), None
    if what == "list":
        return complex_data(rng, (n,), dtype).tolist(), None
    if what.startswith("destroyed"):
        buffer = vd.asbuffer(complex_data(rng, shape, dtype))
        buffer.destroy()
        return buffer, None
    raise AssertionError(what)


def run_and_check(call, expect: Expect, what: str, graph, watched: list, verify) -> None:
    """Runs ``call`` (then submits ``graph``); accepted, ``verify()`` checks the result;
    refused, every ``(buffer, before)`` of ``watched`` must hold what it held, also after the
    graph is submitted (a refused call records nothing)."""
    def action():
        call()
        if graph is not None:
            graph.submit()

    try:
        passed, _ = attempt(action, expect, what)
        if passed:
            verify()
            return
        if graph is not None:
            graph.submit()
        for buffer, before in watched:
            if readable(buffer) and before is not None:
                np.testing.assert_array_equal(buffer.read(0), before,
                                              err_msg=f"{what}: a refused call changed it")
    finally:
        if graph is not None:
            graph.destroy()


@pytest.fixture
def context_works(context):
    """``context_works(rng)``: a small known transform still matches numpy."""
    probe = pooled((4, 8), "complex64", "probe")

    def check(rng) -> None:
        x = complex_data(rng, (4, 8), "complex64")
        probe.write(x)
        vd.vkfft.fft(probe)
        assert_transformed(probe.read(0), np.fft.fft(x.astype(np.complex128)), x, (1,), 8,
                           EPS["complex64"], "the context after the call")

    return check


# -- complex transforms: fft, ifft, fft2, ifft2, fft3, ifft3 ------------------------------------

FFT_SHAPES = ((16,), (12,), (5,), (4, 8), (3, 10), (1, 8), (2, 3, 6))
FFT_FIELDS = {"fft": ("buffer", "buffer_shape", "axis", "input_buffer", "inverse", "normalize",
                      "graph"),
              "ifft": ("buffer", "axis", "normalize", "graph"),
              "fft2": ("buffer", "graph"), "ifft2": ("buffer", "graph"),
              "fft3": ("buffer", "graph"), "ifft3": ("buffer", "graph")}
FFT_KINDS = ("valid", "data", "buffer", "buffer_shape", "axis", "input_buffer", "inverse",
             "normalize", "graph", "dims")
MIN_DIMS = {"fft2": 2, "ifft2": 2, "fft3": 3, "ifft3": 3}


def fft_buffer_args(fn: str, full: bool):
    bads = [bad(Make(w), "buffer") for w in ("float32 buffer", "int32 buffer", "vec2 buffer",
                                             "complex numpy array", "destroyed buffer")]
    if fn not in MIN_DIMS:  # fft2 and the others: pinned at the end (AttributeError)
        bads += [bad(Make("list"), "buffer")]
        bads += [bad(v, "buffer") for v in (None, "buffer", 3.0, vd.complex64)]
    # An RFFTBuffer is a complex Buffer: a complex transform of its Fourier values.
    return choose(full, [ok(Make("buffer")), ok(Make("RFFTBuffer"))], (), bads)


def input_args(full: bool, r2c: bool = False):
    if r2c:  # a real transform runs in place only
        valid = [ok(Make("no input"))]
        refused = [bad(Make(w), "input_buffer") for w in ("input", "same buffer")]
        return choose(full, valid, (), refused)
    # Left out while pinned (see the end): a destroyed input (the error names "input" or
    # "src").
    refused = [bad(Make(w), "input_buffer") for w in
               ("bigger input", "smaller input", "other dtype input", "float32 input",
                "numpy input")]
    refused += [bad(v, "input_buffer") for v in ("input", 1.0)]
    return choose(full, [ok(Make("no input")), ok(Make("input"))],
                  [lenient(Make("same buffer"), None, "input_buffer")], refused)


class FftCase(NamedTuple):
    fn: str
    dtype: str
    shape: tuple
    args: dict  # field -> Arg
    data: str
    seed: int


def faulty_fields(draw, kind: str, fields) -> set:
    if kind == "any":  # the slow variant: up to two faults together
        return draw(st.sets(st.sampled_from(sorted(fields)), max_size=2))
    return {kind} & set(fields)


@st.composite
def fft_cases(draw, kind: str):
    fns = [fn for fn, fields in FFT_FIELDS.items()
           if kind in ("valid", "data", "any") or kind in fields or
           (kind == "dims" and fn in MIN_DIMS)]
    fn = draw(st.sampled_from(fns))
    shapes = [s for s in FFT_SHAPES
              if kind in ("dims", "any") or len(s) >= MIN_DIMS.get(fn, 1)]
    if fn in ("ifft3",) and kind not in ("dims", "any"):
        shapes = [s for s in shapes if len(s) == 3]
    shape = draw(st.sampled_from(shapes))
    dtype = draw(st.sampled_from(sorted(NP_TYPES)))
    faulty = faulty_fields(draw, kind, FFT_FIELDS[fn])
    args = {}
    for field in FFT_FIELDS[fn]:
        full = field in faulty
        if field == "buffer":
            args[field] = draw(fft_buffer_args(fn, full))
        elif field == "buffer_shape":
            args[field] = draw(buffer_shape_args(shape, full))
        elif field == "axis":
            meaning = args.get("buffer_shape", ok(None, shape)).meaning or shape
            args[field] = draw(axis_args(len(meaning), "axis", full))
        elif field == "input_buffer":
            args[field] = draw(input_args(full))
        elif field in ("inverse", "normalize"):
            name = "normalize_inverse" if fn == "fft" and field == "normalize" else field
            args[field] = draw(flag_args(name, full))
        elif field == "graph":
            args[field] = draw(graph_args(full))
    data = draw(st.sampled_from(DATA_KINDS)) if kind in ("data", "any") else "normal"
    return FftCase(fn, dtype, shape, leave_out_pinned(shape, args), data,
                   draw(st.integers(0, 2**32 - 1)))


def leave_out_pinned(shape: tuple, args: dict) -> dict:
    """Without the input buffer where the call meets a pinned defect (see the end): an inverse
    (or identity) transform from an input buffer copies the input into the buffer first, which
    overwrites the buffer beyond a smaller buffer_shape, and for the buffer itself fails with
    an error about the copy's arguments."""
    used = args.get("buffer_shape", ok(None, shape)).meaning
    axes = args.get("axis", ok(None)).meaning
    source = args.get("input_buffer", ok(None)).passed
    if source not in (Make("input"), Make("same buffer")) or used is None or axes is None:
        return args
    if not (args["inverse"].meaning or all(used[a] == 1 for a in axes)):
        return args
    if source == Make("same buffer") or math.prod(used) < math.prod(shape):
        args = {**args, "input_buffer": ok(Make("no input"))}
    return args


def fft_main_buffer(arg: Arg, shape: tuple, dtype: str, data: np.ndarray, rng):
    """The ``buffer`` argument and what it holds."""
    what = arg.passed.what if isinstance(arg.passed, Make) else None
    if what == "buffer":
        buffer = pooled(shape, dtype)
    elif what == "RFFTBuffer":
        real_last = 2 * (shape[-1] - 1) if shape[-1] > 1 else 1
        buffer = pooled_rfft(shape[:-1] + (real_last,), dtype)
        assert buffer.shape == shape
    elif what is not None:
        return wrong_buffer(what, shape, dtype, rng)
    else:
        return arg.passed, None
    buffer.write(data)
    return buffer, data


def fft_input(arg: Arg, buffer, shape: tuple, dtype: str, rng, kind: str):
    """The ``input_buffer`` argument, what it holds, and what a transform reads from it."""
    what = arg.passed.what if isinstance(arg.passed, Make) else None
    if what is None:
        return arg.passed, None
    if what == "no input":
        return None, None
    if what == "same buffer":
        return buffer, None
    if what == "input":
        data = complex_data(rng, shape, dtype, kind)
        source = pooled(shape, dtype, "input")
        source.write(data)
        return source, data
    if what in ("bigger input", "smaller input"):
        data = complex_data(rng, (math.prod(shape) + (3 if what == "bigger input" else -1),),
                            dtype)
        return vd.asbuffer(data), data
    if what == "other dtype input":
        other = "complex64" if dtype == "complex128" else "complex128"
        data = complex_data(rng, shape, other)
        return vd.asbuffer(data), data
    if what == "float32 input":
        data = real_data(rng, shape, "complex64")
        return vd.asbuffer(data), data
    if what == "numpy input":
        return complex_data(rng, shape, dtype), None
    if what == "destroyed input":
        doomed = vd.asbuffer(complex_data(rng, shape, dtype))
        doomed.destroy()
        return doomed, None
    raise AssertionError(what)


def check_fft_case(case: FftCase, context_works) -> None:
    event(f"fn: {case.fn}")
    dtype = resolve_dtype(case.dtype)
    rng = np.random.default_rng(case.seed)
    args, shape, fn = case.args, case.shape, case.fn
    expect = Expect.ok()
    for arg in args.values():
        expect = expect & arg.expect
    if len(shape) < MIN_DIMS.get(fn, 1) or (fn == "ifft3" and len(shape) != 3):
        expect = expect & Expect.bad("Buffer must have")
    has_input = args.get("input_buffer", ok(Make("no input"))).passed == Make("input")
    before = complex_data(rng, shape, dtype, "normal" if has_input else case.data)
    buffer, held = fft_main_buffer(args["buffer"], shape, dtype, before, rng)
    source, source_data = fft_input(args.get("input_buffer", ok(Make("no input"))), buffer,
                                    shape, dtype, rng, case.data)
    graph, to_submit = make_graph(args["graph"])
    kwargs: dict = {"graph": graph}
    if fn == "fft":
        kwargs.update(buffer_shape=plain_value(args["buffer_shape"]), axis=args["axis"].passed,
                      input_buffer=source, inverse=args["inverse"].passed,
                      normalize_inverse=args["normalize"].passed)
    elif fn == "ifft":
        kwargs.update(axis=args["axis"].passed, normalize=args["normalize"].passed)
    function = getattr(vd.vkfft, fn)
    what = f"vd.vkfft.{fn}{case}"

    def verify() -> None:
        transformed = args.get("buffer_shape", ok(None, shape)).meaning or shape
        ndim = len(transformed)
        axes = {"fft2": (ndim - 2, ndim - 1), "ifft2": (ndim - 2, ndim - 1),
                "fft3": (0, 1, 2), "ifft3": (0, 1, 2)}.get(fn) or args["axis"].meaning
        inverse = fn.startswith("i") or (fn == "fft" and args["inverse"].meaning)
        normalize = args["normalize"].meaning if "normalize" in args else True
        count = math.prod(transformed)
        origin = source_data if has_input else before
        x = origin.reshape(-1)[:count].reshape(transformed)
        expected = complex_transform(x, axes, inverse, normalize, WIDE[dtype])
        actual = buffer.read(0).reshape(-1)
        assert_transformed(actual[:count].reshape(transformed), expected, x, axes,
                           math.prod(transformed[a] for a in axes), EPS[dtype], what)
        np.testing.assert_array_equal(actual[count:], before.reshape(-1)[count:],
                                      err_msg=f"{what}: beyond buffer_shape")
        if has_input:
            np.testing.assert_array_equal(source.read(0), source_data,
                                          err_msg=f"{what}: the input buffer changed")

    with np.errstate(all="ignore"):
        run_and_check(lambda: function(buffer, **kwargs), expect, what, to_submit,
                      [(buffer, held), (source, source_data)], verify)
    context_works(rng)


@pytest.mark.parametrize("kind", FFT_KINDS)  # each kind of fault in every run
@settings(BASE, max_examples=8)
@given(data=st.data())
def test_fuzz_complex_transforms_raise_named_errors_or_match_numpy(context_works, kind, data):
    check_fft_case(data.draw(fft_cases(kind), "case"), context_works)


@pytest.mark.slow
@LONG
@given(case=fft_cases("any"))
def test_fuzz_complex_transforms_long(context_works, case):
    check_fft_case(case, context_works)


# -- real transforms: rfft, irfft, rfft2, irfft2, rfft3, irfft3, fft(r2c=True) -------------------

REAL_SHAPES = ((16,), (15,), (4, 10), (3, 9), (2, 4, 6))
REAL_FIELDS = {"rfft": ("buffer", "axis", "graph"),
               "irfft": ("buffer", "axis", "normalize", "graph"),
               "rfft2": ("buffer", "graph"), "irfft2": ("buffer", "graph"),
               "rfft3": ("buffer", "graph"), "irfft3": ("buffer", "graph"),
               "fft(r2c)": ("buffer", "buffer_shape", "axis", "input_buffer", "inverse",
                            "normalize", "graph")}
REAL_KINDS = ("valid", "data", "buffer", "buffer_shape", "axis", "input_buffer", "inverse",
              "normalize", "graph", "dims")
REAL_DIMS = {"rfft2": (2, 3), "irfft2": (2, 3), "rfft3": (3, 3), "irfft3": (3, 3)}


def fourier_shape(real_shape: tuple) -> tuple:
    return real_shape[:-1] + (real_shape[-1] // 2 + 1,)


def real_buffer_args(fn: str, full: bool):
    names = ("buffer",)
    valid = [ok(Make("RFFTBuffer"))]
    refused = [bad(Make(w), *names) for w in ("float32 buffer", "complex numpy array",
                                              "destroyed RFFTBuffer")]
    refused += [bad(v, *names) for v in (None, "buffer", 2.0)]
    if fn == "fft(r2c)":  # any complex buffer holding the padded layout
        valid.append(ok(Make("buffer")))
    else:
        refused.append(bad(Make("buffer"), "RFFTBuffer"))
    return choose(full, valid, (), refused)


def r2c_shape_args(real_shape: tuple, full: bool):
    """``buffer_shape`` of ``fft(r2c=True)``: the real shape; meaning: the real shape used."""
    valid = [ok(real_shape, real_shape)]
    if len(real_shape) > 1 and real_shape[0] > 1:
        valid.append(ok((real_shape[0] - 1,) + real_shape[1:], (real_shape[0] - 1,) +
                        real_shape[1:]))
    # Without buffer_shape the buffer's own (Fourier) shape is read as the real shape.
    lenient_ = [lenient(None, fourier_shape(real_shape), "buffer_shape"),
                lenient(list(real_shape), real_shape, "buffer_shape"),
                lenient(np.array(real_shape), real_shape, "buffer_shape")]
    # Left out while pinned (see the end): a shape larger than the buffer, a last axis of 1.
    refused = [bad(v, "buffer_shape") for v in
               (0, -1, 2.5, "8", (1, 1, 1, real_shape[-1]), real_shape[:-1] + (8.0,), True,
                Make("object"))]
    return choose(full, valid, lenient_, refused)


class RealCase(NamedTuple):
    fn: str
    dtype: str
    real_shape: tuple
    args: dict
    data: str
    seed: int


@st.composite
def real_cases(draw, kind: str):
    fns = [fn for fn, fields in REAL_FIELDS.items()
           if kind in ("valid", "data", "any") or kind in fields or
           (kind == "dims" and fn in REAL_DIMS)]
    fn = draw(st.sampled_from(fns))
    low, high = REAL_DIMS.get(fn, (1, 3))
    shapes = [s for s in REAL_SHAPES if kind in ("dims", "any") or low <= len(s) <= high]
    real_shape = draw(st.sampled_from(shapes))
    dtype = draw(st.sampled_from(sorted(NP_TYPES)))
    faulty = faulty_fields(draw, kind, REAL_FIELDS[fn])
    args = {}
    for field in REAL_FIELDS[fn]:
        full = field in faulty
        if field == "buffer":
            args[field] = draw(real_buffer_args(fn, full))
        elif field == "buffer_shape":
            args[field] = draw(r2c_shape_args(real_shape, full))
        elif field == "axis":
            meaning = args.get("buffer_shape", ok(None, real_shape)).meaning or real_shape
            # fft(r2c) without the last axis is pinned at the end (its message names "axes").
            need_last = "omit" if fn == "fft(r2c)" else "bad"
            args[field] = draw(axis_args(len(meaning), "axis", full, need_last=need_last))
        elif field == "input_buffer":
            args[field] = draw(input_args(full, r2c=True))
        elif field in ("inverse", "normalize"):
            name = "normalize_inverse" if fn == "fft(r2c)" and field == "normalize" else field
            args[field] = draw(flag_args(name, full))
        elif field == "graph":
            args[field] = draw(graph_args(full))
    data = draw(st.sampled_from(DATA_KINDS)) if kind in ("data", "any") else "normal"
    return RealCase(fn, dtype, real_shape, args, data, draw(st.integers(0, 2**32 - 1)))


def layout_floats(buffer_floats: int, used: tuple, inverse: bool, axes, dtype: str, kind: str,
                  rng):
    """The scalars a real transform's buffer holds before the call, for the real shape
    ``used``: rows padded to ``2 * (used[-1] // 2 + 1)`` scalars (real data, the padding random
    junk the transform must ignore; or, inverse, a Hermitian spectrum: the rfftn of real data),
    random junk after them. Returns (scalars, the transform's input as numpy sees it)."""
    real_type = REAL_TYPES[dtype]
    half = used[-1] // 2 + 1
    rows = math.prod(used[:-1])
    scalars = real_data(rng, (buffer_floats,), dtype)
    if inverse:
        # Scaled before the transform: a spectrum scaled per value would not be Hermitian
        # (numpy and VkFFT may then read different halves of it). NaN/inf go in after.
        signal = with_kind(rng, rng.standard_normal(used), kind if kind in SCALED else "normal")
        spectrum = np.fft.rfftn(signal, axes=axes).astype(NP_TYPES[dtype])
        for _ in range(int(rng.integers(1, 3)) if kind not in SCALED else 0):
            # In the real part of a batch's zero-frequency bin: elsewhere a NaN or infinity
            # need not reach every output (a complex-to-real transform, numpy's too, discards
            # the imaginary parts of self-conjugate bins, and a factor i swaps parts without
            # multiplying), here it adds to every one.
            at = tuple(0 if d in axes else int(rng.integers(used[d])) for d in range(len(used)))
            special = math.nan if kind == "nan" else float(rng.choice([math.inf, -math.inf]))
            spectrum[at] = complex(special, spectrum[at].imag)
        scalars[:rows * 2 * half] = spectrum.view(real_type).reshape(-1)
        return scalars, spectrum
    x = real_data(rng, used, dtype, kind)
    padded = scalars[:rows * 2 * half].reshape(used[:-1] + (2 * half,))
    padded[..., :used[-1]] = x
    return scalars, x


def real_main_buffer(arg: Arg, real_shape: tuple, dtype: str, rng):
    what = arg.passed.what if isinstance(arg.passed, Make) else None
    if what == "RFFTBuffer":
        return pooled_rfft(real_shape, dtype)
    if what == "buffer":
        return pooled(fourier_shape(real_shape), dtype)
    if what == "destroyed RFFTBuffer":
        doomed = vd.RFFTBuffer(real_shape, VAR_TYPES[dtype])
        doomed.destroy()
        return doomed
    if what is not None:
        return wrong_buffer(what, fourier_shape(real_shape), dtype, rng)[0]
    return arg.passed


def check_real_case(case: RealCase, context_works) -> None:
    event(f"fn: {case.fn}")
    dtype = resolve_dtype(case.dtype)
    rng = np.random.default_rng(case.seed)
    args, fn, real_shape = case.args, case.fn, case.real_shape
    expect = Expect.ok()
    for arg in args.values():
        expect = expect & arg.expect
    low, high = REAL_DIMS.get(fn, (1, 3))
    used = args.get("buffer_shape", ok(None, real_shape)).meaning or real_shape
    ndim = len(used)
    if not low <= len(real_shape) <= high:
        expect = expect & Expect.bad("Buffer must have")
        axes = None
    else:
        axes = {"rfft2": (ndim - 2, ndim - 1), "irfft2": (ndim - 2, ndim - 1),
                "rfft3": (0, 1, 2), "irfft3": (0, 1, 2)}.get(fn) or args["axis"].meaning
    inverse = fn.startswith("i") or (fn == "fft(r2c)" and args["inverse"].meaning)
    data_kind = case.data
    if axes is not None and data_kind in ("mixed", "nan", "inf") and \
            math.prod(used[d] for d in range(ndim) if d not in axes) % 2 == 0:
        # Pinned (see the end): VkFFT transforms two real batches as one complex one, so each
        # of such a pair gets the other's rounding errors and NaN/inf.
        event("left out: batches of other magnitudes or NaN paired in a real transform")
        data_kind = "normal"
    buffer = real_main_buffer(args["buffer"], real_shape, dtype, rng)
    held = source = None
    if readable(buffer):
        if buffer.var_type is VAR_TYPES[dtype] and axes is not None:
            scalars, source = layout_floats(2 * buffer.size, used, bool(inverse), axes, dtype,
                                            data_kind, rng)
            held = scalars.view(NP_TYPES[dtype]).reshape(buffer.shape)
        elif buffer.var_type is VAR_TYPES[dtype]:  # a refused axis: any data
            held = complex_data(rng, buffer.shape, dtype)
        else:  # a float32 buffer
            held = real_data(rng, buffer.shape, "complex64")
        buffer.write(held)
    input_arg = args.get("input_buffer", ok(Make("no input")))
    source_buffer, source_data = fft_input(input_arg, buffer, fourier_shape(real_shape), dtype,
                                           rng, "normal")
    graph, to_submit = make_graph(args["graph"])
    kwargs: dict = {"graph": graph}
    if fn == "fft(r2c)":
        kwargs.update(buffer_shape=plain_value(args["buffer_shape"]), axis=args["axis"].passed,
                      input_buffer=source_buffer, inverse=args["inverse"].passed,
                      normalize_inverse=args["normalize"].passed, r2c=True)
        function = vd.vkfft.fft
    else:
        if "axis" in args:
            kwargs["axis"] = args["axis"].passed
        if "normalize" in args:
            kwargs["normalize"] = args["normalize"].passed
        function = getattr(vd.vkfft, fn)
    what = f"vd.vkfft.{fn}{case}"

    def verify() -> None:
        real_type = REAL_TYPES[dtype]
        half = used[-1] // 2 + 1
        count = math.prod(used[:-1]) * 2 * half
        after = np.ascontiguousarray(buffer.read(0)).view(real_type).reshape(-1)
        was = held.view(real_type).reshape(-1)
        n = math.prod(used[a] for a in axes)
        wide = WIDE[dtype]
        if inverse:
            normalize = args["normalize"].meaning if "normalize" in args else True
            spectrum = source.astype(wide)
            expected = np.fft.irfftn(spectrum, s=[used[a] for a in axes], axes=axes)
            expected = expected * (1 if normalize else n)
            actual = after[:count].reshape(used[:-1] + (2 * half,))[..., :used[-1]]
        else:
            expected = np.fft.rfftn(source.astype(REAL_WIDE[dtype]), axes=axes)
            actual = after[:count].view(NP_TYPES[dtype]).reshape(used[:-1] + (half,))
        assert_transformed(actual, expected, source, axes, n, EPS[dtype], what)
        np.testing.assert_array_equal(after[count:], was[count:],
                                      err_msg=f"{what}: beyond the real shape")

    with np.errstate(all="ignore"):
        run_and_check(lambda: function(buffer, **kwargs), expect, what, to_submit,
                      [(buffer, held), (source_buffer, source_data)], verify)
    context_works(rng)


@pytest.mark.parametrize("kind", REAL_KINDS)
@settings(BASE, max_examples=8)
@given(data=st.data())
def test_fuzz_real_transforms_raise_named_errors_or_match_numpy(context_works, kind, data):
    check_real_case(data.draw(real_cases(kind), "case"), context_works)


@pytest.mark.slow
@LONG
@given(case=real_cases("any"))
def test_fuzz_real_transforms_long(context_works, case):
    check_real_case(case, context_works)


# -- VkFFTPlan: built and recorded by hand --------------------------------------------------------

PLAN_SHAPES = ((16,), (4, 8), (3, 10))
PLAN_FIELDS = ("shape", "axes", "normalize", "num_batches", "fourier_type", "padding", "options",
               "buffer", "inverse", "graph")
PLAN_KINDS = ("valid", "data") + PLAN_FIELDS[:-1]
# The plan's other arguments (convolution and layout options): out of range or of the wrong
# type, each refused naming itself; valid, they are left at their defaults (the transform the
# model computes).
PLAN_OPTIONS = [("kernel_count", -1), ("kernel_count", 1.5), ("runs", 0), ("runs", 2**32),
                ("runs", "2"), ("conjugate_convolution", 3), ("conjugate_convolution", -1),
                ("convolution_features", -1), ("convolution_features", None),
                ("input_shape", (0,)), ("input_shape", (2, 2, 2, 2)), ("input_shape", (4, 2.5))]


def plan_shape_args(full: bool):
    valid = [ok(s, s) for s in PLAN_SHAPES] + [ok(16, (16,))]
    lenient_ = [lenient([4, 8], (4, 8), "shape"), lenient((np.int64(4), 8), (4, 8), "shape")]
    # Left out while pinned (see the end): None, a numpy integer, lengths VkFFT cannot plan.
    refused = [bad(v, "shape") for v in
               ((), 0, -1, (4, 0), (2, 2, 2, 2), (4, 8.0), "ab", (True, 8), (4, -8))]
    refused.append(bad((1,), "shape", "axes"))  # only length 1: nothing to transform
    return choose(full, valid, lenient_, refused)


def plan_buffer_args(full: bool):
    valid = [ok(Make("exact buffer")), ok(Make("bigger buffer"))]
    # A buffer of floats with the plan's bytes: record() checks sizes, not dtypes.
    lenient_ = [lenient(Make("float buffer"), None, "buffer")]
    # Left out while pinned (see the end): None.
    refused = [bad(Make(w), "buffer") for w in ("smaller buffer", "complex numpy array",
                                                "destroyed buffer")]
    refused.append(bad("buffer", "buffer"))
    return choose(full, valid, lenient_, refused)


class PlanCase(NamedTuple):
    args: dict
    data: str
    seed: int


@st.composite
def plan_cases(draw, kind: str):
    faulty = faulty_fields(draw, kind, PLAN_FIELDS)
    args = {"shape": draw(plan_shape_args("shape" in faulty))}
    meaning = args["shape"].meaning
    ndim = len(meaning) if meaning else 1
    args["axes"] = draw(axis_args(ndim, "axes", "axes" in faulty, none_means_all=True))
    args["normalize"] = draw(flag_args("normalize", "normalize" in faulty))
    args["num_batches"] = draw(choose(
        "num_batches" in faulty, [ok(1, 1), ok(2, 2)], [lenient(np.int64(2), 2, "num_batches")],
        [bad(v, "num_batches") for v in (0, -1, 1.5, True, "2", None, 2**64)]), "num_batches")
    args["fourier_type"] = draw(choose(
        "fourier_type" in faulty, [ok(vd.complex64, "complex64"),
                                   ok(vd.complex128, "complex128")], (),
        [bad(v, "fourier_type") for v in (vd.float32, "complex64", np.complex64, None,
                                          vd.complex32, vd.vec2)]), "fourier_type")
    # Valid paddings change what is transformed (and build a plan each): only refused ones.
    args["padding"] = draw(choose("padding" in faulty, [ok(None)], (), [
        bad(v, "padding") for v in (5, "ab", [(1, 2)] * 4, [(3, 1)] * ndim, [(0, 99)] * ndim,
                                    [(1.5, 2)] * ndim, [(2, 2)] * ndim, [(1,)] * ndim)]))
    args["options"] = draw(choose("options" in faulty, [ok({})], (), [
        bad({name: value}, name) for name, value in PLAN_OPTIONS]))
    args["buffer"] = draw(plan_buffer_args("buffer" in faulty))
    args["inverse"] = draw(flag_args("inverse", "inverse" in faulty))
    # Left out while pinned (see the end): a graph that is not a CommandGraph.
    args["graph"] = draw(st.sampled_from([ok(Make("global graph")), ok(Make("CommandGraph"))]))
    data = draw(st.sampled_from(DATA_KINDS)) if kind in ("data", "any") else "normal"
    return PlanCase(args, data, draw(st.integers(0, 2**32 - 1)))


def check_plan_case(case: PlanCase, context_works) -> None:
    args = case.args
    rng = np.random.default_rng(case.seed)
    expect = Expect.ok()
    for arg in args.values():
        expect = expect & arg.expect
    dtype = resolve_dtype(args["fourier_type"].meaning or "complex64")
    fourier_type = VAR_TYPES[dtype] if args["fourier_type"].meaning else \
        args["fourier_type"].passed
    shape = args["shape"].meaning or (16,)
    batches_ = args["num_batches"].meaning or 1
    n = batches_ * math.prod(shape)
    what_buffer = args["buffer"].passed
    what_buffer = what_buffer.what if isinstance(what_buffer, Make) else None
    held = None
    if what_buffer in ("exact buffer", "bigger buffer", "smaller buffer"):
        size = n + {"exact buffer": 0, "bigger buffer": 5, "smaller buffer": -1}[what_buffer]
        buffer = pooled((size,), dtype) if what_buffer != "smaller buffer" else \
            vd.Buffer((size,), VAR_TYPES[dtype])
        held = complex_data(rng, (size,), dtype, case.data)
        buffer.write(held)
    elif what_buffer == "float buffer":  # the same bytes as floats of the plan's precision
        real_type = REAL_TYPES[dtype]
        held = complex_data(rng, (n,), dtype, case.data).view(real_type)
        buffer = vd.asbuffer(held)
    elif what_buffer is not None:
        buffer = wrong_buffer(what_buffer, (n,), dtype, rng)[0]
    else:
        buffer = args["buffer"].passed
    graph, to_submit = make_graph(args["graph"])
    graph = graph if graph is not None else vd.global_graph()
    plans = []
    what = f"VkFFTPlan{case}"

    def call() -> None:
        plan = vd.vkfft.VkFFTPlan(args["shape"].passed, axes=args["axes"].passed,
                                  normalize=args["normalize"].passed,
                                  num_batches=args["num_batches"].passed,
                                  fourier_type=fourier_type, padding=args["padding"].passed,
                                  **args["options"].passed)
        plans.append(plan)
        plan.record(graph, buffer, inverse=args["inverse"].passed)

    def verify() -> None:
        complex_type = NP_TYPES[dtype]
        after = np.ascontiguousarray(buffer.read(0)).view(complex_type).reshape(-1)
        was = np.ascontiguousarray(held).view(complex_type).reshape(-1)
        axes = tuple(a + 1 for a in args["axes"].meaning)  # after the batch axis
        x = was[:n].reshape((batches_,) + shape)
        expected = complex_transform(x, axes, bool(args["inverse"].meaning),
                                     bool(args["normalize"].meaning), WIDE[dtype])
        assert_transformed(after[:n].reshape(x.shape), expected, x, axes,
                           math.prod(x.shape[a] for a in axes), EPS[dtype], what)
        np.testing.assert_array_equal(after[n:], was[n:], err_msg=f"{what}: beyond the plan")

    try:
        with np.errstate(all="ignore"):
            run_and_check(call, expect, what, to_submit, [(buffer, held)], verify)
    finally:
        for plan in plans:
            plan.destroy()
    context_works(rng)


@pytest.mark.parametrize("kind", PLAN_KINDS)
@settings(BASE, max_examples=8)
@given(data=st.data())
def test_fuzz_vkfft_plans_raise_named_errors_or_match_numpy(context_works, kind, data):
    check_plan_case(data.draw(plan_cases(kind), "case"), context_works)


@pytest.mark.slow
@LONG
@given(case=plan_cases("any"))
def test_fuzz_vkfft_plans_long(context_works, case):
    check_plan_case(case, context_works)


# -- convolution: transpose_kernel2D, then convolve2D ----------------------------------------------

CONV_SHAPES = ((4, 6), (2, 4, 6))
NEWER_VKFFT = _native.vkfft_version() >= 10300  # built with VKDISPATCH_VKFFT_INCLUDE
CONV_FIELDS = ("buffer", "kernel", "kernel_shape", "normalize", "conjugate_kernel", "padding",
               "graph")
CONV_KINDS = ("valid", "data") + CONV_FIELDS


def conv_padding_args(full: bool, slow: bool):
    valid = [ok(None, None)]
    if slow:  # each padding is a plan of its own (~0.2 s to build on lavapipe)
        valid += [ok(((0, 0), (0, 0)), None), ok(((1, 3), None), ((1, 3), (0, 0)))]
    refused = [bad(v, "padding") for v in
               (5, "ab", ((5, 2), None), ((0, 0), (0, 13)), ((5, 5), None), ((1.5, 3), None),
                ((0, 3), (5,)), (None,), ((0, 1), (0, 1), (0, 1)), ((True, 2), None))]
    return choose(full, valid, (), refused)


def conv_kernel_args(full: bool):
    refused = [bad(Make(w), "kernel") for w in
               ("other shape kernel", "other dtype kernel", "float32 kernel", "numpy kernel")]
    # Left out while pinned (see the end): a destroyed kernel.
    refused.append(bad(None, "kernel"))
    return choose(full, [ok(Make("kernel"))], (), refused)


def conv_buffer_args(full: bool):
    refused = [bad(Make(w), "buffer") for w in
               ("1-D buffer", "float32 buffer", "complex numpy array", "destroyed buffer")]
    refused.append(bad("buffer", "buffer"))
    return choose(full, [ok(Make("buffer"))], (), refused)


def kernel_shape_args(shape: tuple, full: bool):
    """transpose_kernel2D's ``shape``. Left out while pinned (see the end): an int, a shape
    larger than the kernel, lengths that are floats."""
    refused = [bad(v, "shape") for v in ((0, 6), (1, 1, 4, 6), "ab", (6,), (4, -6))]
    return choose(full, [ok(None), ok(shape)], [lenient(list(shape), None, "shape")], refused)


class ConvCase(NamedTuple):
    dtype: str
    shape: tuple
    args: dict
    data: str
    seed: int


@st.composite
def conv_cases(draw, kind: str, slow: bool = False):
    faulty = faulty_fields(draw, kind, CONV_FIELDS)
    shape = draw(st.sampled_from(CONV_SHAPES))
    # complex128 convolutions build plans of their own: slow variant only.
    dtype = draw(st.sampled_from(sorted(NP_TYPES))) if slow else "complex64"
    args = {"buffer": draw(conv_buffer_args("buffer" in faulty)),
            "kernel": draw(conv_kernel_args("kernel" in faulty)),
            "kernel_shape": draw(kernel_shape_args(shape, "kernel_shape" in faulty)),
            "normalize": draw(flag_args("normalize", "normalize" in faulty)),
            "conjugate_kernel": draw(flag_args("conjugate_kernel",
                                               "conjugate_kernel" in faulty)),
            "padding": draw(conv_padding_args("padding" in faulty, slow)),
            "graph": draw(graph_args("graph" in faulty))}
    if NEWER_VKFFT:  # VkFFT 1.3 builds refuse these (vkfft_application.cpp)
        for name in ("conjugate_kernel", "padding"):
            if args[name].expect.model and args[name].meaning:
                args[name] = bad(args[name].passed, name)
    data = draw(st.sampled_from(DATA_KINDS)) if kind in ("data", "any") else "normal"
    return ConvCase(dtype, shape, args, data, draw(st.integers(0, 2**32 - 1)))


def conv_kernel(arg: Arg, shape: tuple, dtype: str, rng):
    """(kernel argument, the spatial kernel it holds)."""
    what = arg.passed.what if isinstance(arg.passed, Make) else None
    k = complex_data(rng, shape, dtype)
    if what == "kernel":
        buffer = pooled(shape, dtype, "kernel")
        buffer.write(k)
        return buffer, k
    if what == "other shape kernel":
        other = shape[:-1] + (shape[-1] + 2,)
        return vd.asbuffer(complex_data(rng, other, dtype)), None
    if what == "other dtype kernel":
        return vd.asbuffer(complex_data(rng, shape, "complex64" if dtype == "complex128" else
                                        "complex128")), None
    if what == "float32 kernel":
        return vd.asbuffer(real_data(rng, shape, "complex64")), None
    if what == "numpy kernel":
        return k, None
    if what == "destroyed kernel":
        doomed = vd.asbuffer(k)
        doomed.destroy()
        return doomed, None
    return arg.passed, None


def conv_reference(x, k, conjugate: bool, scale: float, wide) -> np.ndarray:
    spectrum = np.fft.fft2(k.astype(wide))
    if conjugate:
        spectrum = np.conj(spectrum)
    return np.fft.ifft2(np.fft.fft2(x.astype(wide)) * spectrum) * scale


def check_conv_case(case: ConvCase, context_works) -> None:
    args, shape = case.args, case.shape
    dtype = resolve_dtype(case.dtype)
    rng = np.random.default_rng(case.seed)
    expect = Expect.ok()
    for arg in args.values():
        expect = expect & arg.expect
    x = complex_data(rng, shape, dtype, case.data)
    what_buffer = args["buffer"].passed
    what_buffer = what_buffer.what if isinstance(what_buffer, Make) else None
    held = None
    if what_buffer == "buffer":
        buffer, held = pooled(shape, dtype, "conv"), x
        buffer.write(x)
    elif what_buffer == "1-D buffer":
        held = complex_data(rng, (shape[-1],), dtype)
        buffer = vd.asbuffer(held)
    elif what_buffer is not None:
        buffer, held = wrong_buffer(what_buffer, shape, dtype, rng)
    else:
        buffer = args["buffer"].passed
    kernel, k = conv_kernel(args["kernel"], shape, dtype, rng)
    graph, to_submit = make_graph(args["graph"])
    what = f"convolve2D{case}"

    def call() -> None:
        # transpose_kernel2D takes no graph of ours here: it must run before the convolution
        # whatever the graph argument drawn for convolve2D.
        vd.vkfft.transpose_kernel2D(kernel, shape=plain_value(args["kernel_shape"]))
        vd.vkfft.convolve2D(buffer, kernel, normalize=args["normalize"].passed,
                            conjugate_kernel=args["conjugate_kernel"].passed,
                            padding=args["padding"].passed, graph=graph)

    def verify() -> None:
        height, width = shape[-2:]
        scale = 1 if args["normalize"].meaning else height * width
        source = x
        padding = args["padding"].meaning
        outside = np.ones((height, width), bool)
        if padding is not None:
            (top, bottom), (left, right) = padding
            outside[top:bottom, :] = False
            outside[:, left:right] = False
            source = np.where(outside, x, 0)  # the block reads as zeros
        expected = conv_reference(source, k, bool(args["conjugate_kernel"].meaning), scale,
                                  WIDE[dtype])
        images = (1, 2) if len(shape) == 3 else (0, 1)
        # Compared where the result is defined: outside the padding block.
        assert_transformed(buffer.read(0), expected, source, images, height * width,
                           EPS[dtype], what, c=2 * C, mask=outside)

    with np.errstate(all="ignore"):
        run_and_check(call, expect, what, to_submit, [(buffer, held)], verify)
    context_works(rng)


@pytest.mark.parametrize("kind", CONV_KINDS)
@settings(BASE, max_examples=6)
@given(data=st.data())
def test_fuzz_convolutions_raise_named_errors_or_match_numpy(context_works, kind, data):
    check_conv_case(data.draw(conv_cases(kind), "case"), context_works)


@pytest.mark.slow
@LONG
@given(case=conv_cases("any", slow=True))
def test_fuzz_convolutions_long(context_works, case):
    check_conv_case(case, context_works)


# -- defects this fuzzing found, fixed: regression tests -------------------------------------
# Each asserts what the fuzz tests above expect.

def _non_buffer_of_fft2() -> None:
    refused_naming(lambda: vd.vkfft.fft2(None), "buffer")


def _inverse_from_itself() -> None:
    buffer = vd.asbuffer(np.ones(16, np.complex64))
    refused_naming(lambda: vd.vkfft.fft(buffer, input_buffer=buffer, inverse=True),
                   "input_buffer")


def _destroyed_input() -> None:
    doomed = vd.Buffer((16,), vd.complex64)
    doomed.destroy()
    refused_naming(lambda: vd.vkfft.fft(vd.Buffer((16,), vd.complex64), input_buffer=doomed),
                   "input_buffer")


def _inverse_from_input_past_buffer_shape() -> None:
    destination = vd.asbuffer(np.full(16, 7, np.complex64))
    source = vd.asbuffer(np.arange(1, 17).astype(np.complex64))
    vd.vkfft.fft(destination, input_buffer=source, buffer_shape=(15,), inverse=True)
    assert destination.read(0)[15] == 7, "the element past buffer_shape was overwritten"


def _destroyed_kernel() -> None:
    kernel = vd.Buffer((4, 6), vd.complex64)
    kernel.destroy()
    refused_naming(lambda: vd.vkfft.transpose_kernel2D(kernel), "kernel")


def _float_kernel_shape_after_a_cached_plan() -> None:
    kernel = vd.Buffer((4, 6), vd.complex64)
    vd.vkfft.transpose_kernel2D(kernel)  # caches the (4, 6) plan; a cold cache refuses below
    refused_naming(lambda: vd.vkfft.transpose_kernel2D(kernel, shape=(4, 6.0)), "shape")


def _int_kernel_shape() -> None:
    refused_naming(lambda: vd.vkfft.transpose_kernel2D(vd.Buffer((4, 6), vd.complex64), shape=6),
                   "shape")


def _kernel_shape_beyond_the_kernel() -> None:
    kernel = vd.Buffer((4, 6), vd.complex64)
    refused_naming(lambda: vd.vkfft.transpose_kernel2D(kernel, shape=(8, 6)), "kernel")


def _r2c_buffer_shape_beyond_the_buffer() -> None:
    buffer = vd.Buffer((4, 9), vd.complex64)
    refused_naming(lambda: vd.vkfft.fft(buffer, buffer_shape=(40, 16), r2c=True), "buffer_shape")


def _r2c_buffer_shape_of_last_length_one() -> None:
    buffer = vd.Buffer((4, 9), vd.complex64)
    refused_naming(lambda: vd.vkfft.fft(buffer, buffer_shape=(4, 1), r2c=True), "buffer_shape")


def _r2c_axis_without_the_last() -> None:
    buffer = vd.Buffer((4, 9), vd.complex64)
    refused_naming(lambda: vd.vkfft.fft(buffer, buffer_shape=(4, 16), r2c=True, axis=0), "axis:")


def _plan_shape_none() -> None:
    refused_naming(lambda: vd.vkfft.VkFFTPlan(None), "shape")


def _plan_shape_numpy_int() -> None:
    """A numpy integer is a length like an int (it raised a bare TypeError)."""
    passed, plan = outcome(lambda: vd.vkfft.VkFFTPlan(np.int64(8)), "shape")
    assert passed and plan.shape == (8,), "VkFFTPlan(np.int64(8)) is the plan of (8,)"
    plan.destroy()


def _plan_shape_of_2_32_points(capfd) -> None:
    refused_naming(lambda: vd.vkfft.VkFFTPlan((2**20, 2**12)), "shape")
    assert "void main" not in capfd.readouterr().out, "the kernel source was printed"


def _plan_length_vkfft_cannot_plan() -> None:
    refused_naming(lambda: vd.vkfft.VkFFTPlan((2**40,)), "shape")


def _record_into_none() -> None:
    plan = vd.vkfft.VkFFTPlan((16,))
    try:
        refused_naming(lambda: plan.record(None, vd.Buffer((16,), vd.complex64)), "graph")
        refused_naming(lambda: plan.record("graph", vd.Buffer((16,), vd.complex64)), "graph")
    finally:
        plan.destroy()


def _record_of_none() -> None:
    plan = vd.vkfft.VkFFTPlan((16,))
    try:
        refused_naming(lambda: plan.record(vd.global_graph(), None), "buffer")
    finally:
        plan.destroy()


def _real_batches_paired() -> None:
    x = np.array([[1e6, -2e6, 3e6, 5e5, 1e6, 2e6, -1e6, 4e6],
                  [1.0, 2.0, -1.0, 0.5, 3.0, -2.0, 1.5, 0.25]], np.float32)
    buffer = vd.asrfftbuffer(x)
    vd.vkfft.rfft(buffer)
    expected = np.fft.rfft(x[1].astype(np.float64))
    error = np.linalg.norm(buffer.read_fourier(0)[1] - expected) / np.linalg.norm(expected)
    assert error < 1e-6, f"row 1 relative error {error:.3g} (alone: about 1e-8)"


def _real_batches_share_nan() -> None:
    x = np.random.default_rng(0).standard_normal((2, 8)).astype(np.float32)
    x[0, 3] = np.nan
    buffer = vd.asrfftbuffer(x)
    vd.vkfft.rfft(buffer)
    assert np.isfinite(buffer.read_fourier(0)[1]).all(), "row 0's NaN reached row 1"


FIXED = {  # name: (check, what was wrong): regression tests of the defects found
    "record of None": (_record_of_none, "AttributeError: no attribute 'mem_size'"),
    "record into None": (_record_into_none, "AttributeError: no attribute 'record_command'"),
    "VkFFTPlan of a length VkFFT cannot plan": (_plan_length_vkfft_cannot_plan, "the "
                                                "ValueError names no argument"),
    "VkFFTPlan of 2^32 points": (_plan_shape_of_2_32_points, "NativeError (a RuntimeError) from "
                                 "glslang ('numeric literal too big'), the kernel printed to "
                                 "stdout"),
    "VkFFTPlan(np.int64(8))": (_plan_shape_numpy_int, "bare TypeError: 'numpy.int64' object is "
                               "not iterable"),
    "VkFFTPlan(None)": (_plan_shape_none, "bare TypeError: 'NoneType' object is not iterable"),
    "r2c axis without the last": (_r2c_axis_without_the_last, "the error names 'axes', not "
                                  "axis"),
    "r2c buffer_shape of last length 1": (_r2c_buffer_shape_of_last_length_one, "the error names "
                                          "'shape', not buffer_shape"),
    "r2c buffer_shape beyond the buffer": (_r2c_buffer_shape_beyond_the_buffer, "the error names "
                                           "'buffer' and 'the transform of shape'"),
    "real batches paired: NaN": (_real_batches_share_nan, "two real batches run as one complex "
                                 "transform: a NaN in one reaches the other"),
    "real batches paired: precision": (_real_batches_paired, "two real batches run as one "
                                       "complex transform: the smaller one gets the larger "
                                       "one's rounding errors (3.6e-2 relative)"),
    "fft2 of a non-buffer": (_non_buffer_of_fft2, "AttributeError ('NoneType' object has no "
                             "attribute 'shape'): fft2/ifft2/fft3/ifft3 read buffer.shape first"),
    "inverse from the buffer itself": (_inverse_from_itself, "refused naming copy()'s "
                                       "dst_offset/src_offset/count, not input_buffer"),
    "destroyed input buffer": (_destroyed_input, "the error names 'input' (forward) or 'src' "
                               "(inverse), not input_buffer"),
    "inverse from an input past buffer_shape": (
        _inverse_from_input_past_buffer_shape, "the whole input is copied into the buffer: the "
        "buffer past buffer_shape is overwritten (the forward transform leaves it alone)"),
    "destroyed kernel": (_destroyed_kernel, "transpose_kernel2D's error names 'buffer', not "
                         "kernel"),
    "float kernel shape": (_float_kernel_shape_after_a_cached_plan, "accepted once a plan of "
                           "equal int lengths is cached (the cache key compares equal), refused "
                           "on a cold cache"),
    "int kernel shape": (_int_kernel_shape, "bare TypeError: 'int' object is not iterable"),
    "kernel shape beyond the kernel": (_kernel_shape_beyond_the_kernel, "the error names "
                                       "'buffer' and 'the transform of shape', not kernel"),
}


@pytest.mark.parametrize("name", FIXED)
def test_fixed_defect(context, rng, context_works, capfd, name):
    check = FIXED[name][0]
    try:
        check(capfd) if check is _plan_shape_of_2_32_points else check()
    finally:
        capfd.readouterr()  # the 2^32-point plan printed its kernel
        context_works(rng)
