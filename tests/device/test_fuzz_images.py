"""Fuzz test of the image API: ``vd.Image1D``/``Image2D``/``Image3D``/``Image2DArray``
constructors (shape, layers, dtype, channels, mip levels), ``image.write``/``image.read`` (data
of every kind, replica indices), samplers (``image.sample(...)`` and ``vd.Sampler(...)``: filters,
address mode, border colour, level-of-detail bias and range including NaN and infinities) and
the samplers' use by a shader, and whole-image copies with ``vd.copy`` (buffer -> image,
image -> buffer, image -> image, immediately or recorded into a graph).

Each drawn call either succeeds, and then its result is the numpy model's (the image reads back
what was written, texel for texel; a sampling shader returns what tests/image_model.py computes
for the sampler's filter, address mode, border colour and level of detail; a copy moves exactly
the texels numpy moves), or raises a vkdispatch error that is also a ``TypeError``/
``ValueError``/``IndexError`` and whose message names the argument at fault (see fuzzing.py:
each drawn argument is *valid*, *lenient* or *bad*). Objects of a closed context are the one
exception, documented as ``InvalidStateError``. Afterwards a refused call has left its target
as it was (the image, the copy's destination, the shader's output), and the context still works:
a fresh image round-trips and a known sampling kernel still matches numpy.

Every kind of fault is a parameter, so each is drawn in every run; the ``slow`` variants draw
all of them together, many more times. Shapes are small (1-9 texels an axis) and the three
sampling shaders are defined once, here.

The defects the fuzzing found are fixed; regression tests at the end pin them.
"""
# No `from __future__ import annotations`: the shaders below annotate with module names.
import math
import os
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
import pytest
from fuzzing import BASE, LONG, Expect, attempt, attempt_closed
from helpers import random_array
from hypothesis import event, given, settings
from hypothesis import strategies as st
from image_model import away_from_texel_edges, sample

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch import errors
from vkdispatch.codegen.abbreviations import Buff, Img2, f32, i32, iv4, u32, uv4, v2, v4

SCALARS = {"float32": (vd.float32, np.float32), "int32": (vd.int32, np.int32),
           "uint32": (vd.uint32, np.uint32)}
KINDS = ("1d", "2d", "3d", "2d_array")
DIMS = {"1d": 1, "2d": 2, "3d": 3, "2d_array": 2}
FACTORIES = {"1d": vd.Image1D, "2d": vd.Image2D, "3d": vd.Image3D, "2d_array": vd.Image2DArray}
SHAPE_NAMES = ("shape", "Shape")


# -- shaders (built once; compiled plans are cached per shader) ---------------------------------

@vd.shader("out.size")
def sample_f32(out: Buff[v4], tex: Img2[f32], coords: Buff[v2]):
    i = vc.global_invocation_id().x
    out[i] = tex.sample(coords[i])


@vd.shader("out.size")
def sample_i32(out: Buff[iv4], tex: Img2[i32], coords: Buff[v2]):
    i = vc.global_invocation_id().x
    out[i] = tex.sample(coords[i])


@vd.shader("out.size")
def sample_u32(out: Buff[uv4], tex: Img2[u32], coords: Buff[v2]):
    i = vc.global_invocation_id().x
    out[i] = tex.sample(coords[i])


SAMPLING = {"float32": (sample_f32, v4, np.float32), "int32": (sample_i32, iv4, np.int32),
            "uint32": (sample_u32, uv4, np.uint32)}


@pytest.fixture
def context_works(context):
    """``context_works(rng)`` checks that a fresh image round-trips and that the float sampling
    kernel reads its texels back at their centres (a function, so failing examples print
    short)."""
    return assert_context_works


def assert_context_works(rng) -> None:
    values = (rng.random((3, 5)) + 0.5).astype(np.float32)
    image = vd.Image2D((3, 5))
    image.write(values)
    np.testing.assert_array_equal(image.read(0), values)
    y, x = np.mgrid[0:3, 0:5]
    centres = np.stack([x.ravel(), y.ravel()], axis=1).astype(np.float32)
    out = vd.Buffer((15,), v4)
    sample_f32(out, image.sample(vd.Filter.NEAREST, vd.Filter.NEAREST), vd.asbuffer(centres))
    np.testing.assert_array_equal(out.read(0)[:, 0], values.ravel())


class Elsewhere(NamedTuple):
    """Another open context, and objects of a closed one."""

    other: Any                 # an open vd.Context beside the test's
    closed_image: vd.Image     # Image2D((3, 4)) float32, 1 channel, of a closed context
    closed_buffer: vd.Buffer   # 12 float32 of that closed context
    closed_sampler: vd.Sampler  # a sampler of closed_image, made before the context closed


@pytest.fixture(scope="module")
def elsewhere(context):
    other = vd.create_context(device_ids=context.device_ids)
    gone = vd.create_context(device_ids=context.device_ids)
    with gone:
        closed_image, closed_buffer = vd.Image2D((3, 4)), vd.Buffer((12,), vd.float32)
        closed_sampler = closed_image.sample()
    gone.close()
    yield Elsewhere(other, closed_image, closed_buffer, closed_sampler)
    other.close()


# -- image specs --------------------------------------------------------------------------------

class Spec(NamedTuple):
    """A valid image: ``extents`` is the numpy shape of one layer."""

    kind: str
    extents: tuple[int, ...]
    layers: int
    scalar: str
    channels: int
    mipmaps: bool

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.layers, *self.extents) if self.layers > 1 else self.extents

    @property
    def array_shape(self) -> tuple[int, ...]:
        return self.shape + ((self.channels,) if self.channels > 1 else ())

    @property
    def extent(self) -> tuple[int, int, int]:
        return tuple(reversed(self.extents)) + (1,) * (3 - len(self.extents))

    @property
    def np_type(self):
        return SCALARS[self.scalar][1]

    def make(self) -> vd.Image:
        factory, dtype = FACTORIES[self.kind], SCALARS[self.scalar][0]
        if self.kind == "1d":
            return factory(self.extents[0], dtype, self.channels, self.mipmaps)
        if self.kind == "2d_array":
            return factory(self.extents, self.layers, dtype, self.channels, self.mipmaps)
        return factory(self.extents, dtype, self.channels, self.mipmaps)


@st.composite
def specs(draw, kinds=KINDS, scalars=tuple(SCALARS), channels=(1, 2, 4)):
    # 3 channels are left to the constructor fuzz: some devices make no 3-channel images.
    kind = draw(st.sampled_from(kinds))
    extents = tuple(draw(st.lists(st.integers(1, 9), min_size=DIMS[kind],
                                  max_size=DIMS[kind])))
    layers = draw(st.integers(1, 4)) if kind == "2d_array" else 1
    return Spec(kind, extents, layers, draw(st.sampled_from(scalars)),
                draw(st.sampled_from(channels)), draw(st.booleans()))


def image_data(rng, spec: Spec) -> np.ndarray:
    """Random texels of the spec's type over its whole range (never all zeros)."""
    return random_array(rng, spec.array_shape, spec.np_type)


def assert_holds(image, expected: np.ndarray, what: str, replicas=None) -> None:
    for replica in range(image.context.queue_count) if replicas is None else replicas:
        np.testing.assert_array_equal(image.read(replica), expected, err_msg=what)


# -- constructors -------------------------------------------------------------------------------

CONSTRUCT_FAULTS = ("none", "keywords", "shape", "layers", "dtype", "channels", "mipmaps")

# label -> (corrupt one axis of the shape (or build a new one), Expect). The axis is drawn.
# "beyond the device" stops at 2**16; extents of 2**32 or more (a fixed defect) are tested at
# the end.
SHAPE_FAULTS = {
    "numpy ints": (lambda ext, a: tuple(np.int64(e) for e in ext), Expect.ok()),
    "zero": (lambda ext, a: _replace(ext, a, 0), Expect.bad(*SHAPE_NAMES)),
    "negative": (lambda ext, a: _replace(ext, a, -3), Expect.bad(*SHAPE_NAMES)),
    "float": (lambda ext, a: _replace(ext, a, 2.5), Expect.bad(*SHAPE_NAMES)),
    "integral float": (lambda ext, a: _replace(ext, a, 4.0), Expect.bad(*SHAPE_NAMES)),
    "nan": (lambda ext, a: _replace(ext, a, math.nan), Expect.bad(*SHAPE_NAMES)),
    "None axis": (lambda ext, a: _replace(ext, a, None), Expect.bad(*SHAPE_NAMES)),
    "str axis": (lambda ext, a: _replace(ext, a, "4"), Expect.bad(*SHAPE_NAMES)),
    "bool axis": (lambda ext, a: _replace(ext, a, True), Expect.bad(*SHAPE_NAMES)),
    "None": (lambda ext, a: None, Expect.bad(*SHAPE_NAMES)),
    "list": (lambda ext, a: list(ext), Expect.bad(*SHAPE_NAMES)),
    "array": (lambda ext, a: np.array(ext), Expect.bad(*SHAPE_NAMES)),
    "fewer axes": (lambda ext, a: ext[:-1], Expect.bad(*SHAPE_NAMES)),
    "more axes": (lambda ext, a: ext + (2,), Expect.bad(*SHAPE_NAMES)),
    "four axes": (lambda ext, a: (1, 2, 1, 2), Expect.bad(*SHAPE_NAMES)),
    # Beyond every device's image limits; a device that allows it must round-trip it.
    "beyond the device": (lambda ext, a: _replace(ext, a, 2**16),
                          Expect.lenient("extent", *SHAPE_NAMES)),
}
LAYER_FAULTS = {
    "numpy int": (np.int64(2), Expect.lenient("layers")),
    "one": (1, Expect.ok()),
    "zero": (0, Expect.bad("layers")), "negative": (-1, Expect.bad("layers")),
    "bool": (True, Expect.bad("layers")), "float": (2.0, Expect.bad("layers")),
    "None": (None, Expect.bad("layers")), "str": ("2", Expect.bad("layers")),
    "beyond the device": (4096, Expect.lenient("layers", "layer(s)")),  # 2048 on most
}
DTYPE_FAULTS = {name: (value, Expect.bad("dtype", "Dtype")) for name, value in {
    "float64": vd.float64, "float16": vd.float16, "int16": vd.int16, "uint16": vd.uint16,
    "int64": vd.int64, "vec2": vd.vec2, "ivec4": vd.ivec4, "complex64": vd.complex64,
    "np.float32": np.float32, "'float32'": "float32", "None": None, "float": float,
    "3": 3}.items()}
CHANNEL_FAULTS = {
    "3": (3, Expect.lenient("channels", "format")),  # some devices make no 3-channel images
    "np.int64(2)": (np.int64(2), Expect.lenient("channels")),
    **{name: (value, Expect.bad("channels")) for name, value in {
        "0": 0, "5": 5, "-1": -1, "True": True, "2.0": 2.0, "'2'": "2", "None": None,
        "[2]": [2]}.items()}}
# A flag: any value is read for its truth (a library may insist on a bool, naming it).
MIPMAP_FAULTS = {name: (value, Expect.lenient("enable_mipmaps")) for name, value in {
    "1": 1, "0": 0, "None": None, "'yes'": "yes", "''": "", "np.True_": np.True_,
    "2": 2, "[]": []}.items()}


def _replace(extents: tuple, axis: int, value) -> tuple:
    axis %= len(extents)
    return extents[:axis] + (value,) + extents[axis + 1:]


class ConstructCase(NamedTuple):
    spec: Spec
    fault: str
    label: str | None
    axis: int
    seed: int


def construct_cases(fault: str | None = None):
    tables = {"shape": SHAPE_FAULTS, "layers": LAYER_FAULTS, "dtype": DTYPE_FAULTS,
              "channels": CHANNEL_FAULTS, "mipmaps": MIPMAP_FAULTS}

    def for_fault(kind: str):
        kinds = ("2d_array",) if kind == "layers" else KINDS
        label = st.sampled_from(sorted(tables[kind])) if kind in tables else st.none()
        return st.builds(ConstructCase, specs(kinds), st.just(kind), label,
                         st.integers(0, 2), st.integers(0, 2**32 - 1))

    if fault is not None:
        return for_fault(fault)
    return st.sampled_from(CONSTRUCT_FAULTS).flatmap(for_fault)


def check_constructor(case: ConstructCase, context, context_works) -> None:
    spec, fault, label = case.spec, case.fault, case.label
    rng = np.random.default_rng(case.seed)
    event(f"fault: {fault}")
    shape: Any = spec.extents[0] if spec.kind == "1d" else spec.extents
    layers, dtype = spec.layers, SCALARS[spec.scalar][0]
    channels, mipmaps = spec.channels, spec.mipmaps
    expect = Expect.ok()
    if fault == "shape":
        make, expect = SHAPE_FAULTS[label]
        shape = make(spec.extents, case.axis)
        if spec.kind == "1d" and label in ("numpy ints", "beyond the device"):
            shape = shape[0]  # an Image1D takes its length
        elif spec.kind == "1d" and label not in ("None", "list", "array", "fewer axes",
                                                 "more axes", "four axes"):
            shape = shape[0]  # the bad value itself, not a tuple holding it
    elif fault == "layers":
        layers, expect = LAYER_FAULTS[label]
    elif fault == "dtype":
        dtype, expect = DTYPE_FAULTS[label]
    elif fault == "channels":
        channels, expect = CHANNEL_FAULTS[label]
    elif fault == "mipmaps":
        mipmaps, expect = MIPMAP_FAULTS[label]
    factory = FACTORIES[spec.kind]
    leading = [shape, layers] if spec.kind == "2d_array" else [shape]
    rest = {"dtype": dtype, "channels": channels, "enable_mipmaps": mipmaps}
    if fault == "keywords":
        named = dict(zip(["shape", "layers"], leading), **rest)
        call = lambda: factory(**named)  # noqa: E731
    else:
        call = lambda: factory(*leading, *rest.values())  # noqa: E731
    what = f"{factory.__name__}({leading}, {rest}) [{fault}: {label}]"
    live_before = len(context.handles)
    passed, image = attempt(call, expect, what)
    if not passed:
        # Nothing half-made is left registered (a leaked native image).
        assert len(context.handles) <= live_before, what
        context_works(rng)
        return
    # What the accepted values mean: ints, and the flag's truth.
    extents = tuple(int(e) for e in (shape if isinstance(shape, tuple) else (shape,)))
    model = Spec(spec.kind, extents, int(layers), spec.scalar, int(channels), bool(mipmaps))
    assert image.shape == model.shape and image.array_shape == model.array_shape, what
    assert image.extent == model.extent and image.layers == model.layers, what
    assert image.mip_levels == (max(model.extent).bit_length() if model.mipmaps else 1), what
    assert image.dtype is dtype and image.channels == model.channels, what
    assert image.mem_size == math.prod(model.array_shape) * 4, what
    data = image_data(rng, model)
    image.write(data)
    assert_holds(image, data, what)
    image.destroy()
    context_works(rng)


@pytest.mark.parametrize("fault", CONSTRUCT_FAULTS)  # each kind in every run
@settings(BASE, max_examples=20)
@given(data=st.data())
def test_fuzz_image_constructors_raise_named_errors_or_round_trip(context, context_works, fault,
                                                                 data):
    check_constructor(data.draw(construct_cases(fault), "case"), context, context_works)


@pytest.mark.slow
@LONG
@given(case=construct_cases())
def test_fuzz_image_constructors_long(context, context_works, case):
    check_constructor(case, context, context_works)


# -- write and read -----------------------------------------------------------------------------

def _write_data(label: str, spec: Spec, rng):
    """``(data, what the image then holds (None: refused), Expect)``."""
    np_type, shape = spec.np_type, spec.array_shape
    values = image_data(rng, spec)
    size = values.size
    floats = spec.scalar == "float32"
    narrow = {"float32": np.float16, "int32": np.int16, "uint32": np.uint16}[spec.scalar]
    if label == "exact":
        return values, values, Expect.ok()
    if label == "list":
        return values.tolist(), values, Expect.ok()
    if label in ("bytes", "bytearray", "memoryview"):
        raw = values.tobytes()
        data = {"bytes": raw, "bytearray": bytearray(raw), "memoryview": memoryview(raw)}[label]
        return data, values, Expect.ok()
    if label == "strided":  # every other element of a wider array
        wide = np.repeat(values[..., None], 2, axis=-1)[..., 0]
        return wide, values, Expect.ok()
    if label == "fortran":
        return np.asfortranarray(values), values, Expect.ok()
    if label == "reversed":  # a view with negative strides
        return values[::-1], values[::-1], Expect.ok()
    if label == "narrower type":  # values of a narrower type of the same kind: exact
        narrow_values = random_array(rng, shape, narrow)
        return narrow_values, narrow_values.astype(np_type), Expect.ok()
    if label == "nan and inf":
        if floats:
            flat = values.reshape(-1)
            flat[rng.integers(0, size, 3)] = [np.nan, np.inf, -np.inf]
        return values, values, Expect.ok()
    # Lenient: the right number of values in another layout, or converted without loss of
    # what a float32 can hold.
    if label == "flat":
        return values.reshape(-1), values, Expect.lenient("data")
    if label == "other shape":
        return values.reshape(-1)[::-1].reshape(1, -1), \
            values.reshape(-1)[::-1].reshape(shape), Expect.lenient("data")
    if label == "float64":  # rounded to float32 (into a float image), or integral values
        if floats:
            wide = rng.standard_normal(shape) * 1e3
            return wide, wide.astype(np.float32), Expect.lenient("data")
        small = rng.integers(1, 1000, shape).astype(np.float64)  # integral, in range
        return small, small.astype(np_type), Expect.lenient("data")
    if label == "bool":
        flags = rng.integers(0, 2, shape).astype(bool)
        return flags, flags.astype(np_type), Expect.lenient("data")
    if label == "scalar":  # one value: an image of one texel and one channel takes it
        if size == 1:
            return values.reshape(()).item(), values, Expect.lenient("data")
        return values.reshape(-1)[0].item(), None, Expect.bad("data")
    # Bad: wrong sizes, wrong kinds.
    # Bytes of the wrong size, ragged lists, and lossy writes into int32/uint32 images (two
    # defects, fixed) have their own tests below.
    bad = {"too many": lambda: np.resize(values, size + 1),
           "too few": lambda: values.reshape(-1)[:-1],
           "complex": lambda: values.astype(np.complex64),
           "objects": lambda: values.astype(object),
           "strings": lambda: values.astype(str),
           "None": lambda: None, "dict": lambda: {"data": 1.0},
           "datetimes": lambda: np.zeros(shape, "datetime64[s]")}
    return bad[label](), None, Expect.bad("data")


WRITE_LABELS = ("exact", "list", "bytes", "bytearray", "memoryview", "strided", "fortran",
                "reversed", "narrower type", "nan and inf", "flat", "other shape", "float64",
                "bool", "scalar", "too many", "too few", "complex", "objects", "strings",
                "None", "dict", "datetimes")


def _index(label: str, queue_count: int, what: str):
    """``(index, the replicas it names (None: bad), Expect)`` for write (``what`` "write":
    -1 is every replica) or read."""
    every = list(range(queue_count))
    valid = {"0": (0, [0]), "last": (queue_count - 1, [queue_count - 1]),
             "np.int64(0)": (np.int64(0), [0])}
    if what == "write":
        valid["-1"] = (-1, every)
    if label in valid:
        return (*valid[label], Expect.ok())
    if label == "None":  # "or None for all queues", the message says: a library may take it
        return None, every, Expect.lenient("device_index")
    value = {"-1": -1, "-2": -2, "count": queue_count, "count+5": queue_count + 5,
             "2**70": 2**70, "1.0": 1.0, "'0'": "0", "True": True, "[0]": [0],
             "nan": math.nan}[label]
    return value, None, Expect.bad("device_index")


INDEX_LABELS = ("0", "last", "np.int64(0)", "-1", "None", "-2", "count", "count+5", "2**70",
                "1.0", "'0'", "True", "[0]", "nan")
TRANSFER_OPS = ("write data", "write index", "read index", "target")
TARGETS = ("destroyed", "other context", "closed context")


class TransferCase(NamedTuple):
    op: str
    spec: Spec
    label: str
    seed: int


def transfer_cases(op: str | None = None):
    labels = {"write data": st.sampled_from(WRITE_LABELS),
              "write index": st.sampled_from(INDEX_LABELS),
              "read index": st.sampled_from(INDEX_LABELS + ("default",)),
              "target": st.sampled_from([f"{verb} {target}" for verb in ("write", "read")
                                         for target in TARGETS])}

    def for_op(kind: str):
        return st.builds(TransferCase, st.just(kind), specs(), labels[kind],
                         st.integers(0, 2**32 - 1))

    return for_op(op) if op is not None else st.sampled_from(TRANSFER_OPS).flatmap(for_op)


def check_transfer(case: TransferCase, context, elsewhere: Elsewhere, context_works) -> None:
    op, spec, label = case.op, case.spec, case.label
    rng = np.random.default_rng(case.seed)
    event(f"op: {op}")
    queues = context.queue_count
    if op == "target":
        check_transfer_target(label, spec, elsewhere, rng)
        context_works(rng)
        return
    image = spec.make()
    before = image_data(rng, spec)
    image.write(before)
    what = f"{op} [{label}] on {spec}"
    if op == "read index":
        if label == "default":
            index, replicas, expect = (), [0], Expect.ok()
        else:
            index, replicas, expect = _index(label, queues, "read")
            index = (index,)
        passed, result = attempt(lambda: image.read(*index), expect, what)
        if passed:
            expected = np.stack([before] * queues) if index == (None,) else before
            assert result.dtype == spec.np_type, what
            np.testing.assert_array_equal(result, expected, err_msg=what)
        assert_holds(image, before, what)  # reading changes nothing
    else:
        if op == "write data":
            data, written, expect = _write_data(label, spec, rng)
            index, replicas = -1, list(range(queues))
        else:
            data = written = image_data(rng, spec)
            index, replicas, expect = _index(label, queues, "write")
        passed, _ = attempt(lambda: image.write(data, index), expect, what)
        for replica in range(queues):
            holds = written if passed and replica in replicas else before
            assert_holds(image, holds, what, [replica])
    image.destroy()
    context_works(rng)


def check_transfer_target(label: str, spec: Spec, elsewhere: Elsewhere, rng) -> None:
    verb, target = label.split(" ", 1)
    what = f"{label} ({spec})"
    if target == "closed context":
        image = elsewhere.closed_image
        data = rng.random(image.array_shape).astype(np.float32)
        action = (lambda: image.write(data)) if verb == "write" else image.read
        attempt_closed(action, ("context",), what)
        return
    if target == "other context":  # an image of another open context works as anywhere
        with elsewhere.other:
            image = spec.make()
    else:
        image = spec.make()
        image.destroy()
    data = image_data(rng, spec)
    expect = Expect.ok() if target == "other context" else Expect.bad("image")
    if verb == "write":
        passed, _ = attempt(lambda: image.write(data), expect, what)
        if passed:
            assert_holds(image, data, what)
    else:
        passed, result = attempt(image.read, expect, what)
        if passed:
            assert result.shape == spec.array_shape and result.dtype == spec.np_type, what
    image.destroy()


@pytest.mark.parametrize("op", TRANSFER_OPS)
@settings(BASE, max_examples=25)
@given(data=st.data())
def test_fuzz_image_write_and_read_raise_named_errors_or_round_trip(context, elsewhere,
                                                                   context_works, op, data):
    check_transfer(data.draw(transfer_cases(op), "case"), context, elsewhere, context_works)


@pytest.mark.slow
@LONG
@given(case=transfer_cases())
def test_fuzz_image_write_and_read_long(context, elsewhere, context_works, case):
    check_transfer(case, context, elsewhere, context_works)


# -- samplers and their use by shaders ------------------------------------------------------------

SETTINGS = ("mag_filter", "min_filter", "mip_filter", "address_mode", "mip_lod_bias", "min_lod",
            "max_lod", "border_color")
FLOAT_BORDERS = [b for b in vd.BorderColor if b.name.startswith("FLOAT")]
INT_BORDERS = [b for b in vd.BorderColor if b.name.startswith("INT")]
WRONG_ENUMS = {"int": 1, "str": "LINEAR", "None": None, "bool": True, "float": 0.0,
               "other enum": None}  # a member of another setting's enum: see OTHER_ENUM
OTHER_ENUM = {"mag_filter": vd.AddressMode.REPEAT, "min_filter": vd.BorderColor.INT_OPAQUE_BLACK,
              "mip_filter": vd.AddressMode.CLAMP_TO_EDGE, "address_mode": vd.Filter.LINEAR,
              "border_color": vd.Filter.NEAREST}
# Level-of-detail values: (value, what the sampler uses, kind). The bias stays within 2, the
# least maxSamplerLodBias Vulkan allows.
# A bias beyond the device's maxSamplerLodBias (a fixed defect) is tested at the end.
LOD_VALUES = {
    "0": (0, 0.0, "ok"), "0.0": (0.0, 0.0, "ok"), "0.5": (0.5, 0.5, "ok"),
    "-0.5": (-0.5, -0.5, "ok"), "1": (1, 1.0, "ok"), "2": (2.0, 2.0, "ok"),
    "-2": (-2, -2.0, "ok"), "1.25": (1.25, 1.25, "ok"),
    "np.float64(0.75)": (np.float64(0.75), 0.75, "ok"),
    "np.float32(0.5)": (np.float32(0.5), 0.5, "lenient"),
    "np.int64(1)": (np.int64(1), 1.0, "lenient"),
    "Fraction(1, 2)": (Fraction(1, 2), 0.5, "lenient"),
    **{name: (value, None, "bad") for name, value in {
        "nan": math.nan, "inf": math.inf, "-inf": -math.inf, "np.nan": np.float64("nan"),
        "'1'": "1", "None": None, "True": True, "False": False, "1j": 1j,
        "[0.0]": [0.0]}.items()}}
RANGE_VALUES = {**LOD_VALUES, "1000.0": (1000.0, 1000.0, "ok"), "-1000": (-1000, -1000.0, "ok"),
                "1e9": (1e9, 1e9, "ok"), "2**40": (2**40, float(2**40), "ok"),
                # beyond float32: accepted today as an infinite bound, which only clamps
                "1e39": (1e39, math.inf, "lenient"), "-1e39": (-1e39, -math.inf, "lenient")}
BINDINGS = ("sampler", "image", "destroyed image", "destroyed sampler", "3-D image",
            "2-D array image", "1-D image", "other scalar", "other context", "closed context",
            "None", "buffer")
SAMPLER_FAULTS = ("none", "filter", "address_mode", "border_color", "lod", "range", "image",
                  "integer filtering", "binding")


class SamplerCase(NamedTuple):
    spec: Spec
    fault: str
    settings: dict   # setting -> label (or member)
    via: str         # "sample" (image.sample) or "Sampler" (vd.Sampler)
    binding: str
    seed: int


def _valid_settings(draw, spec: Spec) -> dict:
    integer = spec.scalar != "float32"
    filters = st.sampled_from([vd.Filter.NEAREST] if integer else list(vd.Filter))
    lod = st.sampled_from([k for k, v in LOD_VALUES.items() if v[2] == "ok"])
    low, high = sorted(draw(st.lists(st.sampled_from(
        [k for k, v in RANGE_VALUES.items() if v[2] == "ok"]), min_size=2, max_size=2)),
        key=lambda k: RANGE_VALUES[k][1])
    return {"mag_filter": draw(filters), "min_filter": draw(filters),
            "mip_filter": draw(filters if spec.mipmaps else st.sampled_from(list(vd.Filter))),
            "address_mode": draw(st.sampled_from(list(vd.AddressMode))),
            "mip_lod_bias": draw(lod), "min_lod": low, "max_lod": high,
            "border_color": draw(st.sampled_from(INT_BORDERS if integer else FLOAT_BORDERS))}


@st.composite
def sampler_cases(draw, fault: str | None = None):
    fault = fault or draw(st.sampled_from(SAMPLER_FAULTS))
    scalars = ("int32", "uint32") if fault == "integer filtering" else tuple(SCALARS)
    spec = draw(specs(("2d",), scalars))
    chosen = _valid_settings(draw, spec)
    if fault == "filter":
        chosen[draw(st.sampled_from(SETTINGS[:3]))] = draw(st.sampled_from(sorted(WRONG_ENUMS)))
    elif fault == "address_mode":
        chosen["address_mode"] = draw(st.sampled_from(sorted(WRONG_ENUMS)))
    elif fault == "border_color":  # a wrong value, or the colour of the other kind of texel
        chosen["border_color"] = draw(st.sampled_from(sorted(WRONG_ENUMS) + ["other kind"]))
    elif fault == "lod":
        chosen[draw(st.sampled_from(SETTINGS[4:7]))] = draw(st.sampled_from(sorted(LOD_VALUES)))
    elif fault == "range":  # bounds in any order, huge ones included
        chosen["min_lod"], chosen["max_lod"] = draw(st.lists(
            st.sampled_from(sorted(RANGE_VALUES)), min_size=2, max_size=2))
    elif fault == "integer filtering":
        chosen.update({name: draw(st.sampled_from(list(vd.Filter))) for name in SETTINGS[:3]})
    binding = draw(st.sampled_from(BINDINGS)) if fault == "binding" else "sampler"
    image_fault = draw(st.sampled_from(["not an image", "a sampler", "a buffer", "None",
                                        "other context", "closed context"])) \
        if fault == "image" else "none"
    via = "Sampler" if fault == "image" else draw(st.sampled_from(["sample", "Sampler"]))
    return SamplerCase(spec, fault, {**chosen, "image": image_fault}, via, binding,
                       draw(st.integers(0, 2**32 - 1)))


def _setting(name: str, label, spec: Spec, image):
    """``(value passed, value meant, Expect)`` for one sampler setting."""
    if name in ("mip_lod_bias", "min_lod", "max_lod"):
        passed, meant, kind = (RANGE_VALUES if name != "mip_lod_bias" else LOD_VALUES)[label]
        return passed, meant, {"ok": Expect.ok(), "lenient": Expect.lenient(name),
                               "bad": Expect.bad(name)}[kind]
    if isinstance(label, str) and label in WRONG_ENUMS:
        wrong = OTHER_ENUM[name] if label == "other enum" else WRONG_ENUMS[label]
        return wrong, None, Expect.bad(name)
    if label == "other kind":  # an INT_ colour for float texels, or a FLOAT_ one for integers
        colour = (FLOAT_BORDERS if spec.scalar != "float32" else INT_BORDERS)[0]
        return colour, colour, Expect.lenient(name)
    if name == "address_mode" and label is vd.AddressMode.MIRROR_CLAMP_TO_EDGE:
        return label, label, Expect.lenient(name)  # an optional feature of Vulkan 1.1
    if name in SETTINGS[:3] and label is vd.Filter.LINEAR and not image._native.filters_linearly:
        if name != "mip_filter":
            return label, label, Expect.bad(name)
        if image.mip_levels > 1:
            return label, label, Expect.bad(name)
    return label, label, Expect.ok()


def sampling_model(values: np.ndarray, coords: np.ndarray, meant: dict, spec: Spec):
    """What the sampling shader returns, or None where the model does not say (levels above 0
    of a mipmapped image, or near the tie between levels 0 and 1): the level of detail is the bias clamped to [min_lod, max_lod] (the
    shader asks for level 0); at or below 0 the texture is magnified (mag_filter), above it
    minified (min_filter), which reads level 0 unless the image has more."""
    lod = np.float32(min(max(np.float32(meant["mip_lod_bias"]), np.float32(meant["min_lod"])),
                         np.float32(meant["max_lod"])))
    # Level 0 for certain only below a tie: at a level of detail of 0.5 nearest-mip rounding
    # may pick either level (an H200 picks level 1), and devices compute it with as few as 4
    # fractional bits (mipLodPrecisionBits).
    if spec.mipmaps and lod > 0 and not (lod < 0.5 - 2**-4 and
                                         meant["mip_filter"] is vd.Filter.NEAREST):
        return None
    filter_ = meant["mag_filter"] if lod <= 0 else meant["min_filter"]
    return sample(values, coords, filter_, meant["address_mode"], meant["border_color"]), filter_


def check_sampler(case: SamplerCase, context, elsewhere: Elsewhere, context_works) -> None:
    spec, fault = case.spec, case.fault
    rng = np.random.default_rng(case.seed)
    event(f"fault: {fault}")
    image = spec.make()
    values = image_data(rng, spec) if spec.scalar != "float32" else \
        (rng.random(spec.array_shape) + 0.5).astype(np.float32)  # never zero, range 1
    if spec.scalar != "float32":  # values the float64 model holds exactly, as the GPU does
        values = (values // 2**8).astype(spec.np_type)
    image.write(values)
    passed_settings, meant, expect = {}, {}, Expect.ok()
    for name in SETTINGS:
        passed_settings[name], meant[name], one = _setting(name, case.settings[name], spec, image)
        expect = expect & one
    low, high = meant["min_lod"], meant["max_lod"]
    if low is not None and high is not None and low > high:
        expect = expect & Expect.bad("min_lod", "max_lod")
    target: Any = image
    image_fault = case.settings["image"]
    if image_fault == "closed context":
        attempt_closed(lambda: vd.Sampler(elsewhere.closed_image), ("image", "context"),
                       "vd.Sampler(image of a closed context)")
        image.destroy()
        context_works(rng)
        return
    if image_fault != "none":
        if image_fault == "other context":
            with elsewhere.other:
                target = spec.make()
            target.write(values)
        else:
            target = {"not an image": np.ones((3, 3), np.float32), "a sampler": image.sample(
                vd.Filter.NEAREST, vd.Filter.NEAREST, vd.Filter.NEAREST),
                "a buffer": vd.Buffer((4,), vd.float32), "None": None}[image_fault]
            expect = expect & Expect.bad("image")
    what = f"{case.via}({image_fault}, {case.settings}) on {spec}"
    if case.via == "sample":
        make = lambda: target.sample(**passed_settings)  # noqa: E731
    else:
        make = lambda: vd.Sampler(target, **passed_settings)  # noqa: E731
    passed, sampler = attempt(make, expect, what)
    if passed:
        assert sampler.image is target and sampler.context is target.context, what
        if image_fault == "none":
            check_sampling(case, image, sampler, values, meant, rng, elsewhere, what)
    assert_holds(image, values, what)  # making a sampler changes no texel
    image.destroy()
    context_works(rng)


def check_sampling(case: SamplerCase, image, sampler, values, meant, rng, elsewhere,
                   what: str) -> None:
    """Samples with ``sampler`` (or, for a binding fault, with something else in its place)
    and compares with the model."""
    spec = case.spec
    shader, vector, np_out = SAMPLING[spec.scalar]
    rows, cols = spec.extents
    n = 64
    coords = np.stack([rng.uniform(-1.5, cols + 0.5, n), rng.uniform(-1.5, rows + 0.5, n)], 1)
    if case.settings["border_color"] == "other kind":  # where no border shows: inside
        coords = np.stack([rng.uniform(0, cols - 1, n), rng.uniform(0, rows - 1, n)], 1)
    coords = away_from_texel_edges(coords).astype(np.float32)  # nearest filtering may round
    out = vd.Buffer((n,), vector)
    sentinel = random_array(rng, (n, 4), np_out)
    out.write(sentinel)
    argument, expect = sampler, Expect.ok()
    binding = case.binding
    if binding != "sampler":
        argument, expect = binding_argument(binding, image, sampler, spec, elsewhere, rng)
    if binding == "closed context":
        attempt_closed(lambda: shader(out, argument, vd.asbuffer(coords)), ("'tex'",), what)
        np.testing.assert_array_equal(out.read(0), sentinel, err_msg=what)
        return
    passed, _ = attempt(lambda: shader(out, argument, vd.asbuffer(coords)), expect,
                        f"{what}, bound as {binding}")
    got = out.read(0)
    if not passed:
        np.testing.assert_array_equal(got, sentinel, err_msg=f"{what}: a refused call ran")
        return
    model = sampling_model(values, coords.astype(np.float64), meant, spec)
    if model is None:
        event("sampled a level above 0: not modelled")
        return
    expected, filter_ = model
    if meant["address_mode"] is vd.AddressMode.CLAMP_TO_BORDER and spec.channels < 4:
        # Which border components a format without them returns varies (lavapipe substitutes
        # (0, 0, 1) as for texels): only the image's own channels are compared there.
        got, expected = got[:, :spec.channels], expected[:, :spec.channels]
    if spec.scalar != "float32":
        np.testing.assert_array_equal(got, expected.astype(np_out), err_msg=what)
        return
    # Linear filtering weighs texels with >= 4 bits of subtexel precision; nearest is exact.
    tolerance = 0 if filter_ is vd.Filter.NEAREST else 1 / 16
    np.testing.assert_allclose(got, expected, atol=tolerance, rtol=1e-6, err_msg=what)


def binding_argument(binding: str, image, sampler, spec: Spec, elsewhere: Elsewhere, rng):
    """What is passed as ``tex`` in place of the sampler, and the Expect of the call."""
    refused = Expect.bad("'tex'")
    if binding == "image":
        return image, refused
    if binding == "destroyed image":
        doomed = spec.make()
        doomed_sampler = doomed.sample(vd.Filter.NEAREST, vd.Filter.NEAREST, vd.Filter.NEAREST)
        doomed.destroy()
        return doomed_sampler, refused
    if binding == "destroyed sampler":
        spare = image.sample(vd.Filter.NEAREST, vd.Filter.NEAREST, vd.Filter.NEAREST)
        spare.destroy()
        return spare, refused
    if binding in ("3-D image", "2-D array image", "1-D image"):
        other = {"3-D image": lambda: vd.Image3D((2, 3, 4)),
                 "2-D array image": lambda: vd.Image2DArray((3, 4), 2),
                 "1-D image": lambda: vd.Image1D(5, vd.float32)}[binding]()
        return other.sample(), refused
    if binding == "other scalar":
        scalar = "int32" if spec.scalar == "float32" else "float32"
        other = Spec("2d", spec.extents, 1, scalar, 1, False).make()
        return other.sample(vd.Filter.NEAREST, vd.Filter.NEAREST), refused
    if binding == "other context":
        with elsewhere.other:
            other = spec.make()
        return other.sample(vd.Filter.NEAREST, vd.Filter.NEAREST, vd.Filter.NEAREST), refused
    if binding == "closed context":  # made before its context closed
        return elsewhere.closed_sampler, refused
    return {"None": None, "buffer": vd.Buffer((4,), vd.float32)}[binding], refused


@pytest.mark.parametrize("fault", SAMPLER_FAULTS)
@settings(BASE, max_examples=20)
@given(data=st.data())
def test_fuzz_samplers_raise_named_errors_or_sample_like_the_model(context, elsewhere,
                                                                  context_works, fault, data):
    check_sampler(data.draw(sampler_cases(fault), "case"), context, elsewhere, context_works)


@pytest.mark.slow
@LONG
@given(case=sampler_cases())
def test_fuzz_samplers_long(context, elsewhere, context_works, case):
    check_sampler(case, context, elsewhere, context_works)


# -- image copies ---------------------------------------------------------------------------------

COPY_FAULTS = ("none", "offset", "count", "buffer type", "buffer size", "image shape",
               "same image", "not an image", "destroyed", "other context", "closed context",
               "graph")
BUFFER_DIRECTIONS = ("buffer -> image", "image -> buffer")
DIRECTIONS = BUFFER_DIRECTIONS + ("image -> image",)
# Buffer elements holding the image's scalars: (var_type, scalars per element).
VECTORS = {"float32": [(vd.float32, 1), (vd.vec2, 2), (vd.vec4, 4)],
           "int32": [(vd.int32, 1), (vd.ivec2, 2), (vd.ivec4, 4)],
           "uint32": [(vd.uint32, 1), (vd.uvec2, 2), (vd.uvec4, 4)]}
OTHER_SCALARS = {"float32": (vd.int32, vd.float64, vd.float16),
                 "int32": (vd.float32, vd.uint32, vd.int64),
                 "uint32": (vd.int32, vd.float32, vd.uint16)}
NUMPY_OF = {vd.float32: np.float32, vd.int32: np.int32, vd.uint32: np.uint32,
            vd.float64: np.float64, vd.float16: np.float16, vd.int64: np.int64,
            vd.uint16: np.uint16}
OFFSET_LABELS = ("next element", "previous element", "next texel", "negative", "float",
                 "np.int64", "past the end", "2**70", "None", "bool", "image end")
COUNT_LABELS = ("None", "exact", "one less", "one more", "zero", "negative", "float",
                "np.int64", "str", "2**70")
# An image -> image copy's counts of the wrong value (a fixed defect) have their own test.
IMAGE_COUNT_LABELS = ("None", "negative", "float", "str")
SHAPE_LABELS = ("wider", "more layers", "more channels", "other scalar", "other kind",
                "mipmapped")
STRANGERS = ("None", "array", "list", "str", "sampler")


class CopyCase(NamedTuple):
    spec: Spec
    direction: str
    fault: str
    label: Any
    element: int      # which of VECTORS the buffer holds
    pad: int          # how many (texel and element) steps of buffer lie before the image's
    use_graph: bool   # record into a CommandGraph, then submit it
    seed: int


def copy_cases(fault: str | None = None):
    labels = {"offset": OFFSET_LABELS, "count": COUNT_LABELS, "buffer type": (0, 1, 2),
              "buffer size": ("one texel short", "one scalar short", "one texel more",
                              "larger"),
              "image shape": SHAPE_LABELS, "not an image": STRANGERS,
              "destroyed": ("dst", "src"), "other context": ("dst", "src"),
              "closed context": ("dst", "src"),
              "graph": ("str", "int", "object", "array", "destroyed graph")}
    directions = {"buffer type": BUFFER_DIRECTIONS, "buffer size": BUFFER_DIRECTIONS,
                  "same image": ("image -> image",)}

    @st.composite
    def for_fault(draw, kind: str):
        direction = draw(st.sampled_from(directions.get(kind, DIRECTIONS)))
        pool = IMAGE_COUNT_LABELS if kind == "count" and direction == "image -> image" else \
            labels.get(kind, (None,))
        use_graph = draw(st.booleans())
        return CopyCase(draw(specs()), direction, kind, draw(st.sampled_from(pool)),
                        draw(st.integers(0, 2)), draw(st.integers(0, 2)), use_graph,
                        draw(st.integers(0, 2**32 - 1)))

    if fault is not None:
        return for_fault(fault)
    return st.sampled_from(COPY_FAULTS).flatmap(for_fault)


def buffer_fit(channels: int, image_scalars: int, width: int, elements: int, offset: int,
               key: str, end: str) -> Expect:
    """Whether a buffer of ``elements`` elements of ``width`` scalars holds an image's
    ``image_scalars`` from element ``offset``: the texels start at a whole texel, and fit."""
    start = offset * width
    if start % channels:
        return Expect.bad(key)
    if start + image_scalars > elements * width:
        return Expect.bad(key, end)
    return Expect.ok()


def _filled_buffer(var_type, width: int, scalars: int, np_type, rng):
    scalars = max(scalars + -scalars % width, width)
    host = random_array(rng, (scalars,), np_type)
    buffer = vd.Buffer((scalars // width,), var_type)
    buffer.write(host.reshape(-1, width) if width > 1 else host)
    return buffer


def _other_spec(label: str, spec: Spec) -> Spec:
    """An image spec differing from ``spec`` as ``label`` says."""
    kind, extents, layers = spec.kind, spec.extents, spec.layers
    if label == "wider":
        return spec._replace(extents=extents[:-1] + (extents[-1] + 1,), mipmaps=False)
    if label == "more layers":
        return Spec("2d_array", ((1,) + extents)[-2:], layers + 1, spec.scalar, spec.channels,
                    False)
    if label == "more channels":  # never 3: NVIDIA offers no 3-channel 32-bit images
        return spec._replace(channels={1: 2, 2: 4, 4: 1}[spec.channels], mipmaps=False)
    if label == "other scalar":
        return spec._replace(scalar={"float32": "int32", "int32": "uint32",
                                     "uint32": "float32"}[spec.scalar], mipmaps=False)
    if label == "mipmapped":
        return spec._replace(mipmaps=not spec.mipmaps)
    # "other kind", of the same extent where there is one: 1-D n ~ 2-D (1, n) ~ 3-D (1, r, c)
    if kind == "1d":
        return Spec("2d", (1, extents[0]), 1, spec.scalar, spec.channels, False)
    if kind == "2d":
        return Spec("3d", (1, *extents), 1, spec.scalar, spec.channels, False)
    if kind == "3d":
        return Spec("2d", extents[1:], 1, spec.scalar, spec.channels, False)
    return Spec("3d", (layers, *extents), 1, spec.scalar, spec.channels, False)


def _closed_copy(label: str, direction: str, elsewhere: Elsewhere):
    """A copy with one end (``label``) of a closed context, the other a live match."""
    closed = {"image": elsewhere.closed_image, "buffer": elsewhere.closed_buffer}
    live = {"image": lambda: vd.Image2D((3, 4)), "buffer": lambda: vd.Buffer((12,), vd.float32)}
    kinds = {"buffer -> image": ("image", "buffer"), "image -> buffer": ("buffer", "image"),
             "image -> image": ("image", "image")}[direction]
    if label == "dst":
        return lambda: vd.copy(closed[kinds[0]], live[kinds[1]]())
    return lambda: vd.copy(live[kinds[0]](), closed[kinds[1]])


def check_copy(case: CopyCase, context, elsewhere: Elsewhere, context_works) -> None:
    spec, fault, label, direction = case.spec, case.fault, case.label, case.direction
    rng = np.random.default_rng(case.seed)
    event(f"fault: {fault}")
    if fault == "closed context":
        attempt_closed(_closed_copy(label, direction, elsewhere), (label,),
                       f"copy {direction} with a closed-context {label}")
        context_works(rng)
        return
    image = spec.make()
    image.write(image_data(rng, spec))
    var_type, width = VECTORS[spec.scalar][case.element]
    step = math.lcm(spec.channels, width)  # scalars of whole texels and whole elements
    pad = case.pad * step
    image_scalars = math.prod(spec.array_shape)
    buffer = _filled_buffer(var_type, width, 2 * pad + image_scalars, spec.np_type, rng)
    offset = pad // width
    second = spec._replace(mipmaps=False).make()
    second.write(image_data(rng, spec))
    graph = vd.CommandGraph() if case.use_graph else None
    made = [image, second, buffer]
    key = {"buffer -> image": "src_offset", "image -> buffer": "dst_offset"}.get(direction)
    buffer_end = {"src_offset": "src", "dst_offset": "dst"}.get(key)
    ends = {"buffer -> image": {"dst": image, "src": buffer},
            "image -> buffer": {"dst": buffer, "src": image},
            "image -> image": {"dst": image, "src": second}}[direction]
    image_end = "src" if direction == "image -> buffer" else \
        "src" if direction == "image -> image" else "dst"  # the end faults replace
    kwargs: dict = {key: offset} if key else {}
    if graph is not None:
        kwargs["graph"] = graph
    expect, scalar_offset = Expect.ok(), pad
    if fault == "offset":
        kwargs, expect, scalar_offset = _offset_fault(label, spec, buffer, width, key,
                                                      buffer_end, kwargs, offset)
    elif fault == "count":
        kwargs["count"], expect = _count_fault(label, image_scalars, width, key)
    elif fault == "buffer type":
        other_type = OTHER_SCALARS[spec.scalar][label]
        wrong = _filled_buffer(other_type, 1, 2 * pad + image_scalars, NUMPY_OF[other_type],
                               rng)
        ends[buffer_end], kwargs[key], expect = wrong, 0, Expect.bad(buffer_end)
        made.append(wrong)
    elif fault == "buffer size":
        delta = {"one texel short": -spec.channels, "one scalar short": -1,
                 "one texel more": spec.channels, "larger": 7}[label]
        scalar_type = VECTORS[spec.scalar][0][0]
        sized = _filled_buffer(scalar_type, 1, image_scalars + delta, spec.np_type, rng)
        ends[buffer_end], kwargs[key], scalar_offset = sized, 0, 0
        expect = buffer_fit(spec.channels, image_scalars, 1, sized.size, 0, key, buffer_end)
        made.append(sized)
    elif fault == "image shape":
        other = _other_spec(label, spec)
        replacement = other.make()
        replacement.write(image_data(rng, other))
        made.append(replacement)
        ends[image_end] = replacement
        expect = _shape_expect(other, spec, direction, buffer, width, offset, key, buffer_end)
    elif fault == "same image":
        ends["src"], expect = image, Expect.bad("dst", "src")
    elif fault == "not an image":
        ends[image_end] = {"None": None, "array": image.read(0), "list": image.read(0).tolist(),
                           "str": "image", "sampler": image.sample(
                               vd.Filter.NEAREST, vd.Filter.NEAREST, vd.Filter.NEAREST)}[label]
        expect = Expect.bad(image_end)
    elif fault in ("destroyed", "other context"):
        like = ends[label]
        with elsewhere.other if fault == "other context" else _no_context():
            stand_in = vd.Buffer(like.shape, like.var_type) if isinstance(like, vd.Buffer) \
                else spec._replace(mipmaps=False).make()
        if fault == "destroyed":
            stand_in.destroy()
            expect = Expect.bad(label)
        else:
            expect = Expect.bad("dst", "src")  # "dst and src must belong to the graph's ..."
        ends[label] = stand_in
    elif fault == "graph":
        if label == "destroyed graph":
            doomed = vd.CommandGraph()
            doomed.destroy()
            kwargs["graph"], expect = doomed, Expect.bad("CommandGraph")
        else:
            kwargs["graph"] = {"str": "graph", "int": 3, "object": object(),
                               "array": np.zeros(2)}[label]
            expect = Expect.bad("graph")
    dst, src = ends["dst"], ends["src"]
    if isinstance(dst, vd.Image) and not dst.destroyed and dst.mip_levels > 1:
        # Its levels are remade by blits: refused (naming dst) on queues without graphics.
        expect = expect & Expect.lenient("dst")
    dst_before, src_before = _contents(dst), _contents(src)
    submitted = kwargs.get("graph")
    submitted = submitted if isinstance(submitted, vd.CommandGraph) and \
        not submitted.destroyed else None
    what = f"copy {direction} [{fault}: {label}] {spec}, {_short(kwargs)}"

    def run():
        vd.copy(dst, src, **kwargs)
        if submitted is not None:
            submitted.submit()

    passed, _ = attempt(run, expect, what)
    if passed:
        assert_copied(dst, src, dst_before, scalar_offset, what)
    elif dst_before is not None:
        if submitted is not None:  # the refused copy recorded nothing
            submitted.submit()
        np.testing.assert_array_equal(_contents(dst), dst_before, err_msg=f"{what}: it ran")
    if src_before is not None:
        np.testing.assert_array_equal(_contents(src), src_before, err_msg=f"{what}: src")
    if graph is not None:
        graph.destroy()
    for handle in made:
        handle.destroy()
    context_works(rng)


class _no_context:  # noqa: N801  (a stand-in for `with other:` that changes nothing)
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _short(kwargs: dict) -> dict:
    return {k: (type(v).__name__ if k == "graph" else v) for k, v in kwargs.items()}


def _contents(end):
    """What a copy end holds (replica 0; a buffer's scalars flattened), or None where it
    cannot be read (not ours, destroyed, or of another context)."""
    if isinstance(end, (vd.Image, vd.Buffer)) and not end.destroyed and \
            end.context is vd.get_context():
        values = end.read(0)
        return values.reshape(-1) if isinstance(end, vd.Buffer) else values
    return None


def assert_copied(dst, src, dst_before, scalar_offset: int, what: str) -> None:
    """The whole image moved: into the buffer's scalars from ``scalar_offset``, out of them,
    or bit for bit into the other image (of the same texel size: another scalar type keeps the
    bits)."""
    got = dst.read(0).reshape(-1)
    if isinstance(dst, vd.Buffer):
        texels = src.read(0).reshape(-1)
        expected = dst_before.copy()
        expected[scalar_offset:scalar_offset + texels.size] = texels
    elif isinstance(src, vd.Buffer):
        scalars = src.read(0).reshape(-1)
        expected = scalars[scalar_offset:scalar_offset + got.size]
    else:
        got, expected = got.view(np.uint32), src.read(0).reshape(-1).view(np.uint32)
    np.testing.assert_array_equal(got, expected, err_msg=what)


def _offset_fault(label: str, spec: Spec, buffer, width: int, key, buffer_end, kwargs: dict,
                  offset: int):
    """``(kwargs, Expect, scalar offset)`` for an offset other than the setup's."""
    kwargs = dict(kwargs)
    if key is None:  # image -> image: no offset applies to an image end
        name = "dst_offset" if len(label) % 2 else "src_offset"
        kwargs[name] = {"negative": -1, "float": 1.0, "np.int64": np.int64(1), "None": None,
                        "bool": True, "2**70": 2**70}.get(label, 1)
        return kwargs, Expect.bad(name), 0
    if label == "image end":
        image_key = "dst_offset" if key == "src_offset" else "src_offset"
        kwargs[image_key] = 1
        return kwargs, Expect.bad(image_key), 0
    texel_elements = max(spec.channels // width, 1)
    value = {"next element": offset + 1, "previous element": offset - 1,
             "next texel": offset + texel_elements, "negative": -1, "float": float(offset),
             "np.int64": np.int64(offset), "past the end": buffer.size, "2**70": 2**70,
             "None": None, "bool": True}[label]
    kwargs[key] = value
    if label in ("float", "None", "bool") or value < 0:
        return kwargs, Expect.bad(key), 0
    fit = buffer_fit(spec.channels, math.prod(spec.array_shape), width, buffer.size,
                     int(value), key, buffer_end)
    if label == "np.int64":  # refused today (image shapes take numpy integers)
        fit = fit & Expect.lenient(key)
    return kwargs, fit, int(value) * width


def _count_fault(label: str, image_scalars: int, width: int, key):
    """``(count, Expect)``: the count must be the buffer elements the image spans."""
    if label == "None":
        return None, Expect.ok()
    whole = image_scalars % width == 0
    exact = image_scalars // width
    value = {"exact": exact, "one less": exact - 1, "one more": exact + 1, "zero": 0,
             "negative": -1, "float": float(exact), "np.int64": np.int64(exact),
             "str": str(exact), "2**70": 2**70}[label]
    if label == "exact" and whole:
        return value, Expect.ok()
    if label == "np.int64" and whole:
        return value, Expect.lenient("count")
    return value, Expect.bad("count")


def _shape_expect(other: Spec, spec: Spec, direction: str, buffer, width: int, offset: int,
                  key, buffer_end) -> Expect:
    """Whether a copy with ``other``'s image in place of ``spec``'s suits the other end."""
    if direction == "image -> image":  # replaced src: the same extent, layers, texel size
        if (other.extent, other.layers, other.channels) != \
                (spec.extent, spec.layers, spec.channels):
            return Expect.bad("dst", "src")
        if (other.kind, other.scalar) != (spec.kind, spec.scalar):
            return Expect.lenient("dst", "src")  # other kind or scalar: the bits move
        return Expect.ok()
    if other.scalar != spec.scalar:
        return Expect.bad(buffer_end)
    return buffer_fit(other.channels, math.prod(other.array_shape), width, buffer.size, offset,
                      key, buffer_end)


@pytest.mark.parametrize("fault", COPY_FAULTS)
@settings(BASE, max_examples=20)
@given(data=st.data())
def test_fuzz_image_copies_raise_named_errors_or_move_the_texels(context, elsewhere,
                                                                context_works, fault, data):
    check_copy(data.draw(copy_cases(fault), "case"), context, elsewhere, context_works)


@pytest.mark.slow
@LONG
@given(case=copy_cases())
def test_fuzz_image_copies_long(context, elsewhere, context_works, case):
    check_copy(case, context, elsewhere, context_works)


# -- defects the fuzzing found, fixed: regression tests -------------------------------------


# Fixed: an extent of 2**32 or more escaped as a bare OverflowError.
@pytest.mark.parametrize("make", [lambda: vd.Image1D(2**32, vd.float32),
                                  lambda: vd.Image2D((2**33, 1)),
                                  lambda: vd.Image3D((1, 1, 2**70))],
                         ids=["1d 2**32", "2d 2**33", "3d 2**70"])
def test_extent_beyond_32_bits_is_refused_naming_the_shape(context, rng, make):
    with pytest.raises(errors.InvalidArgumentError, match="shape|extent"):
        make()
    assert_context_works(rng)


# Fixed: with mip levels, an extent beyond the device was refused naming mip_levels
# (computed from the shape), not the shape or extent.
def test_extent_beyond_the_device_with_mip_levels_names_the_extent(context, rng):
    with pytest.raises(errors.InvalidArgumentError) as info:
        vd.Image1D(2**16, vd.float32, enable_mipmaps=True)  # "mip_levels: 17 levels; ..."
    if not any(name in str(info.value) for name in ("shape", "extent")):
        pytest.fail(f"names neither shape nor extent: {info.value}")
    assert_context_works(rng)


# Fixed: vd.Sampler(destroyed image) raised the native InvalidStateError 'the image was
# closed' (a RuntimeError), unlike image.sample().
def test_sampler_of_a_destroyed_image_is_refused_like_image_sample(context, rng):
    image = vd.Image2D((3, 4))
    image.destroy()
    with pytest.raises(errors.InvalidArgumentError, match="image"):
        vd.Sampler(image)
    assert_context_works(rng)


@pytest.mark.parametrize("scalar, data", [
    (vd.int32, np.full((2, 3), 2.7)),              # stored as 2
    (vd.int32, np.full((2, 3), np.nan)),           # stored as -2**31
    (vd.int32, np.full((2, 3), 2**40, np.int64)),  # stored as 0
    (vd.uint32, np.full((2, 3), -1, np.int64)),    # stored as 2**32 - 1
], ids=["fraction into int32", "nan into int32", "2**40 into int32", "-1 into uint32"])
def test_lossy_writes_into_integer_images_are_refused(context, rng, scalar, data):
    """Fixed: Image.write converted these into integer texels silently (Buffer.write refused
    them)."""
    image = vd.Image2D((2, 3), scalar)
    before = np.arange(1, 7, dtype=SCALARS[scalar.name][1]).reshape(2, 3)
    image.write(before)
    with np.errstate(all="ignore"), pytest.raises(ValueError, match="data"):
        image.write(data)
    np.testing.assert_array_equal(image.read(0), before)
    assert_context_works(rng)


@pytest.mark.parametrize("data", [bytes(23), bytes(25), [[1.0], [2.0, 3.0]]],
                         ids=["bytes short", "bytes long", "ragged list"])
def test_refused_image_data_messages_name_data(context, rng, data):
    image = vd.Image2D((2, 3))  # 24 bytes
    with pytest.raises(ValueError) as info:
        image.write(data)  # named no argument: "Image buffer sizes must match! 23 != 24"
    if "data" not in str(info.value):
        pytest.fail(f"the message does not name data: {info.value}")
    assert_context_works(rng)


# Fixed: a mip_lod_bias beyond the device's maxSamplerLodBias, or beyond float32, reached
# vkCreateSampler unchecked (VUID-VkSamplerCreateInfo-mipLodBias-01069).
@pytest.mark.parametrize("bias", [1e9, 1e39], ids=["1e9", "1e39 (inf as float32)"])
def test_lod_bias_beyond_the_device_is_refused_naming_it(context, rng, bias):
    image = vd.Image2D((3, 4))
    with pytest.raises(errors.InvalidArgumentError, match="mip_lod_bias"):
        image.sample(mip_lod_bias=bias)
    assert_context_works(rng)


@pytest.mark.parametrize("count", [7, 0, 2**70])  # fixed: any int was accepted
def test_image_to_image_copy_refuses_a_count_that_is_not_the_image(context, rng, count):
    dst, src = vd.Image2D((3, 5)), vd.Image2D((3, 5))
    src.write(rng.random((3, 5)).astype(np.float32))
    before = rng.random((3, 5)).astype(np.float32)
    dst.write(before)
    with pytest.raises(errors.InvalidArgumentError, match="count"):
        vd.copy(dst, src, count=count)
    np.testing.assert_array_equal(dst.read(0), before)
    assert_context_works(rng)


def test_self_copy_into_a_graph_is_refused_when_recorded(context, rng):
    """Fixed: it was accepted, and the graph's every submit then failed."""
    image = vd.Image2D((2, 2))
    graph = vd.CommandGraph()
    try:
        with pytest.raises(errors.InvalidArgumentError, match="dst"):
            vd.copy(image, image, graph=graph)
        graph.submit()  # nothing was recorded: the graph still works
    finally:
        graph.destroy()
    assert_context_works(rng)
