"""The FFT planner and its generated source, without a device.

Every plan is made for explicit :class:`DeviceLimits` (an NVIDIA-like GPU, lavapipe, a tiny
GPU, one with scarce shared memory), and the autouse ``no_device`` fixture fails any test
that asks for a context. The tests check properties rather than tables: plans multiply back
to the length, the Stockham stages permute the line (and, simulated in numpy, compute the
DFT), launch geometry stays within the limits, and the traced shaders compile with the
in-process glslang.
"""
from __future__ import annotations

import bisect
import contextlib
import dataclasses
import functools
import math
import random
import re
import signal
from typing import NamedTuple

import numpy as np
import pytest

import vkdispatch.codegen as vc
from codegen_helpers import assert_compiles
from vkdispatch.base import context as base_context
from vkdispatch.base import dtype as dt
from vkdispatch.fft import config as config_module
from vkdispatch.fft import convolution as convolution_module
from vkdispatch.fft import fft_context, global_reads_iterator, global_writes_iterator
from vkdispatch.fft.config import MIN_STRIDED_LINES, DeviceLimits, FFTConfig, plan_radices
from vkdispatch.fft import shader_factories
from vkdispatch.fft.grid import (STAGED_BELOW_THREADS, FFTGridManager, StridedGroups,
                                 split_workgroups)
from vkdispatch.fft.layout import input_position, output_base, output_position
from vkdispatch.fft.multi_pass import FourStepFFT, fits_one_pass, split_length
from vkdispatch.fft.prime_utils import (PADDING_PRIMES, SUPPORTED_PRIMES, group_primes,
                                        pad_dim, prime_factors)
from vkdispatch.shader import shader_function as shader_function_module

NVIDIA = DeviceLimits(max_workgroup_size=(1024, 1024, 64), max_workgroup_invocations=1024,
                      max_workgroup_count=(2**31 - 1, 65535, 65535), max_shared_memory=49152,
                      subgroup_size=32, cpu=False)
LAVAPIPE = DeviceLimits(max_workgroup_size=(1024, 1024, 1024), max_workgroup_invocations=1024,
                        max_workgroup_count=(65535, 65535, 65535), max_shared_memory=32768,
                        subgroup_size=8, cpu=True)
TINY = DeviceLimits(max_workgroup_size=(256, 256, 64), max_workgroup_invocations=256,
                    max_workgroup_count=(65535, 65535, 65535), max_shared_memory=16384,
                    subgroup_size=16, cpu=False)
# 2 KiB of shared memory and 64 invocations: 512 complex64 values need the split exchange.
SCARCE = DeviceLimits(max_workgroup_size=(64, 64, 64), max_workgroup_invocations=64,
                      max_workgroup_count=(65535, 65535, 65535), max_shared_memory=2048,
                      subgroup_size=32, cpu=False)
# Few workgroups along x: launches spill into y and need the early return of padding groups.
FEW_GROUPS = dataclasses.replace(NVIDIA, max_workgroup_count=(5, 64, 64))
DEVICES = {"nvidia": NVIDIA, "lavapipe": LAVAPIPE, "tiny": TINY, "scarce": SCARCE,
           "few_groups": FEW_GROUPS}
PRECISIONS = {t.name: t for t in (dt.complex32, dt.complex64, dt.complex128)}
BUFFER_TYPES = {"complex32": vc.c32, "complex64": vc.c64, "complex128": vc.c128}


@pytest.fixture(autouse=True)
def no_device(monkeypatch):
    """Planning and tracing with explicit limits must never ask for a context."""
    def refuse(*_args, **_kwargs):
        raise AssertionError("the FFT planner asked for a device context")

    for module in (base_context, config_module, shader_function_module):
        monkeypatch.setattr(module, "get_context", refuse)


# -- helpers ------------------------------------------------------------------------------

def smooth_numbers(bound: int, primes) -> list[int]:
    """Every number <= ``bound`` whose prime factors all lie in ``primes``, sorted (built by
    multiplying up, independently of ``prime_factors``)."""
    numbers = {1}
    for prime in primes:
        for number in list(numbers):
            number *= prime
            while number <= bound:
                numbers.add(number)
                number *= prime
    return sorted(numbers)


@functools.lru_cache(maxsize=None)
def fewest_stages(n: int, max_radix: int) -> int:
    """Brute force: the fewest factors, each in ``2..max_radix``, whose product is ``n``."""
    if n == 1:
        return 0
    return 1 + min((fewest_stages(n // d, max_radix) for d in range(2, min(n, max_radix) + 1)
                    if n % d == 0), default=n)


def random_length(rng: random.Random, bound: int) -> int:
    """A random product of the supported primes, at most ``bound``."""
    n = 1
    while True:
        prime = rng.choice((2, 2, 2, 3, 3, 5, 7, 11, 13))
        if n * prime > bound or (n > 1 and rng.random() < 0.2):
            return n
        n *= prime


@contextlib.contextmanager
def deadline(seconds: float):
    """Raises ``TimeoutError`` inside the block once ``seconds`` have passed (for code that
    would otherwise never return)."""
    if not hasattr(signal, "setitimer"):
        pytest.skip("needs signal.setitimer")

    def expire(_signum, _frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def stockham_positions(stage) -> tuple[np.ndarray, np.ndarray]:
    """layout.py's input and output positions of every butterfly ``j`` (rows) and element
    ``m`` (columns) of ``stage``."""
    j = np.arange(stage.butterflies)
    base = output_base(stage, j)
    reads = [input_position(stage, j, m) for m in range(stage.radix)]
    writes = [output_position(stage, base, m) for m in range(stage.radix)]
    return np.stack(reads, axis=1), np.stack(writes, axis=1)


def stockham(x: np.ndarray, stages, inverse: bool = False) -> np.ndarray:
    """Runs the plan's stages in numpy, as config.py's module text describes them, with the
    positions of layout.py: butterfly ``j`` reads ``input_position``, twiddles input ``m``
    by ``W_{L r}^{m (j mod L)}``, takes a radix-``r`` DFT and writes ``output_position``."""
    sign = 1 if inverse else -1
    data = x.astype(np.complex128)
    for stage in stages:
        radix, stride = stage.radix, stage.input_stride
        reads, writes = stockham_positions(stage)
        j, m = np.arange(stage.butterflies)[:, None], np.arange(radix)[None, :]
        values = data[reads] * np.exp(sign * 2j * np.pi * m * (j % stride) / (stride * radix))
        dft = np.exp(sign * 2j * np.pi * np.outer(np.arange(radix), np.arange(radix)) / radix)
        result = np.empty_like(data)
        result[writes] = values @ dft
        data = result
    return data


def wanted_rows(config: FFTConfig) -> int:
    return min(MIN_STRIDED_LINES, config.fft_stride)


# -- the plans under test -----------------------------------------------------------------

class Case(NamedTuple):
    """One transform: a device, a buffer shape, the axis and the compute precision."""

    device: str
    shape: tuple
    axis: int
    precision: str

    @property
    def id(self) -> str:
        return f"{self.device}-{'x'.join(map(str, self.shape))}-ax{self.axis}-{self.precision}"

    @property
    def limits(self) -> DeviceLimits:
        return DEVICES[self.device]

    def config(self) -> FFTConfig:
        return _config(self)


@functools.lru_cache(maxsize=None)
def _config(case: Case) -> FFTConfig:
    return FFTConfig(case.shape, case.axis, compute_type=PRECISIONS[case.precision],
                     limits=case.limits)


def _random_cases(seed: int = 20240517, per_device: int = 14) -> list[Case]:
    """Contiguous, strided and middle axes of random lengths up to 4 lines per invocation
    (which always plans within the thread limit)."""
    rng = random.Random(seed)
    cases = []
    for name in ("nvidia", "lavapipe", "tiny"):
        bound = 4 * DEVICES[name].max_workgroup_invocations
        for _ in range(per_device):
            n = random_length(rng, bound)
            stride = rng.choice((2, 3, 4, 6, 8, 32, 100))
            shape, axis = rng.choice([((rng.choice((1, 3, 16)), n), rng.choice((-1, 1))),
                                      ((n, stride), rng.choice((0, -2))),
                                      ((rng.choice((2, 3)), n, stride), rng.choice((1, -2)))])
            cases.append(Case(name, shape, axis, rng.choice(sorted(PRECISIONS))))
    return cases


EDGE_CASES = [
    Case("nvidia", (1,), 0, "complex64"),               # nothing to transform
    Case("nvidia", (4, 1, 3), 1, "complex64"),          # length 1 on a strided axis
    Case("nvidia", (8192,), 0, "complex64"),            # a complex line does not fit: split
    Case("nvidia", (12288,), 0, "complex32"),           # fills shared memory exactly, unpadded
    Case("nvidia", (2, 2048, 3), 1, "complex128"),      # long strided lines
    Case("tiny", (4096,), 0, "complex64"),              # split at the thread limit
    Case("lavapipe", (4096, 4), 0, "complex64"),        # one strided line per group, unpadded
    Case("lavapipe", (3, 1001), -1, "complex128"),      # guarded remainders
    Case("scarce", (2, 512), 1, "complex64"),           # split exchange, contiguous
    Case("scarce", (512, 4), 0, "complex64"),           # split exchange, strided
    Case("scarce", (7, 256), 1, "complex128"),          # split exchange in double precision
    Case("few_groups", (1000, 64), 1, "complex64"),     # workgroups spill into y
]
CASES = _random_cases() + EDGE_CASES
case_parameters = pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])


# -- prime utilities ----------------------------------------------------------------------

def test_prime_factors_are_ascending_primes_that_multiply_back():
    for n in range(1, 3000):
        factors = prime_factors(n)
        assert math.prod(factors) == n
        assert factors == sorted(factors)
        assert all(all(p % d for d in range(2, math.isqrt(p) + 1)) for p in factors), n
    assert prime_factors(1) == []


@pytest.mark.parametrize("n", [0, -1, -12])
def test_prime_factors_rejects_non_positive(n):
    with pytest.raises(ValueError, match=str(n)):
        prime_factors(n)


def test_group_primes_is_an_order_preserving_greedy_grouping():
    rng = random.Random(7)
    for _ in range(300):
        primes = [rng.choice(SUPPORTED_PRIMES) for _ in range(rng.randrange(1, 9))]
        limit = rng.randrange(2, 65)
        groups = group_primes(primes, limit)
        assert [p for g in groups for p in g] == primes
        for group in groups:
            assert group and (math.prod(group) <= limit or len(group) == 1), (primes, limit)
        for group, following in zip(groups, groups[1:]):
            # a group closes only when its next prime would not fit
            assert math.prod(group) * following[0] > limit, (primes, limit, groups)


@pytest.mark.parametrize("max_register_count, primes, dims", [
    (None, (2, 3, 5, 7, 11, 13), 3000), (2, (2,), 300), (4, (2, 3), 1000),
    (8, (2, 3, 5, 7), 3000), (32, (2, 3, 5, 7, 11, 13), 3000),
])
def test_pad_dim_is_the_next_length_of_supported_primes(max_register_count, primes, dims):
    """Against the sorted list of all such lengths (pad_dim steps one by one, so the
    sparse cases use fewer dims)."""
    reference = smooth_numbers(2 * dims, primes)
    for dim in range(1, dims):
        expected = reference[bisect.bisect_left(reference, dim)]
        assert pad_dim(dim, max_register_count) == expected, dim


def test_pad_dim_of_a_long_line_is_prompt():
    with deadline(0.25):
        assert pad_dim(2**20 + 1, 2) == 2**21


@pytest.mark.parametrize("dim", [0, -1, -100])
def test_pad_dim_rejects_non_positive(dim):
    with pytest.raises(ValueError, match=rf"dim={dim}\)"):
        pad_dim(dim)


@pytest.mark.parametrize("args, name, shown", [
    (("a",), "dim", "'a' (str)"), ((12.0,), "dim", "12.0 (float)"), ((True,), "dim", "True"),
    ((12, 8.0), "max_register_count", "8.0 (float)"), ((12, "16"), "max_register_count", "'16'"),
])
def test_pad_dim_non_int_arguments_raise_type_error_naming_them(args, name, shown):
    """They used to raise Python's bare TypeError (or, for floats, return a length)."""
    message = rf"^pad_dim: {name} must be an int, got {re.escape(shown)}"
    with pytest.raises(TypeError, match=message):
        pad_dim(*args)


@pytest.mark.parametrize("count", [0, 1, -3])
def test_pad_dim_max_register_count_below_two_raises(count):
    """0 used to mean the default (16) silently."""
    with pytest.raises(ValueError, match=rf"max_register_count must be at least 2, got {count}"):
        pad_dim(12, count)


def test_pad_dim_takes_numpy_ints(rng):
    reference = smooth_numbers(4000, PADDING_PRIMES)
    for dim in rng.integers(1, 2000, 20):
        assert pad_dim(dim, np.int64(16)) == reference[bisect.bisect_left(reference, int(dim))]


# -- plan_radices -------------------------------------------------------------------------

@pytest.mark.parametrize("max_radix", [2, 4, 8, 11, 16])
def test_plan_radices_multiplies_back_within_the_limit_in_the_fewest_stages(max_radix):
    primes = [p for p in SUPPORTED_PRIMES if p <= max_radix]
    for n in smooth_numbers(5000, primes)[1:]:
        groups = plan_radices(n, max_radix)
        radices = [math.prod(g) for g in groups]
        assert math.prod(radices) == n
        assert max(radices) <= max_radix, (n, groups)
        assert radices == sorted(radices, reverse=True), (n, groups)  # largest first
        assert len(groups) == fewest_stages(n, max_radix), (n, groups)


def test_plan_radices_of_one_is_empty():
    assert plan_radices(1, 16) == []


@pytest.mark.parametrize("n, max_radix", [(144, 13), (756, 32)])
def test_plan_radices_fewest_stages_for_other_limits(n, max_radix):
    assert len(plan_radices(n, max_radix)) == fewest_stages(n, max_radix)


@pytest.mark.parametrize("plan", [
    lambda: plan_radices(22, 8),
    lambda: FFTConfig((22,), max_register_count=8, limits=NVIDIA).stages,
], ids=["plan_radices", "FFTConfig"])
def test_prime_above_the_register_limit_terminates(plan):
    with deadline(0.25):
        stages = plan()
    radices = [s.radix if hasattr(s, "radix") else math.prod(s) for s in stages]
    assert sorted(radices) == [2, 11]


def test_register_limit_of_one_raises_a_value_error():
    with pytest.raises(ValueError, match="max_register_count"):
        FFTConfig((8,), max_register_count=1, limits=NVIDIA)


# -- FFTConfig ----------------------------------------------------------------------------

def _thread_fit(n: int, radices: list[int], threads: int, budget: int) -> tuple[bool, bool]:
    """Whether ``threads`` per line keep every stage within ``budget`` registers, and whether
    every stage splits evenly over them."""
    fits = all(r * -(-(n // r) // threads) <= budget for r in radices)
    return fits, all((n // r) % threads == 0 for r in radices)


@case_parameters
def test_config_stages_chain_into_the_line(case):
    config = case.config()
    assert config.N == case.shape[case.axis]
    stride = 1
    for stage in config.stages:
        assert math.prod(stage.primes) == stage.radix
        assert list(stage.primes) == sorted(stage.primes)
        assert set(stage.primes) <= set(SUPPORTED_PRIMES)
        assert stage.input_stride == stride  # the product of the earlier radices
        assert stage.butterflies * stage.radix == config.N
        stride *= stage.radix
    assert stride == config.N
    radices = [s.radix for s in config.stages]
    assert radices == sorted(radices, reverse=True)
    assert config.max_prime_radix == max(prime_factors(config.N), default=1)


@case_parameters
def test_config_threads_and_registers_cover_every_butterfly(case):
    config, limits = case.config(), case.limits
    threads = config.batch_threads
    for stage in config.stages:
        assert stage.threads == threads
        assert stage.instance_count * threads >= stage.butterflies
        assert (stage.instance_count - 1) * threads < stage.butterflies  # no idle instance
        assert stage.registers_used <= config.register_count
    assert config.thread_counts == tuple(min(threads, s.butterflies) for s in config.stages)
    assert config.register_count == max((s.registers_used for s in config.stages), default=1)
    assert config.register_count <= config.max_register_count
    assert config.max_register_count == (config_module.SPLIT_EXCHANGE_REGISTERS
                                         if config.exchange_split and config.fft_stride == 1
                                         else 16)
    axis_limit = limits.max_workgroup_size[1 if config.fft_stride > 1 else 0]
    assert 1 <= threads <= min(axis_limit, limits.max_workgroup_invocations)
    # The fewest threads, preferring those that split every stage evenly.
    n, radices = config.N, [s.radix for s in config.stages]
    fits, even = _thread_fit(n, radices, threads, config.max_register_count)
    assert fits
    for fewer in range(1, threads):
        fewer_fits, fewer_even = _thread_fit(n, radices, fewer, 16)
        assert not (fewer_fits and (fewer_even or not even)), (config, fewer)


@pytest.mark.parametrize("max_register_count", [4, 8, 12])
def test_config_respects_a_smaller_register_limit(max_register_count):
    rng = random.Random(max_register_count)
    primes = [p for p in SUPPORTED_PRIMES if p <= max_register_count]
    for n in rng.sample(smooth_numbers(2048, primes)[1:], 12):
        config = FFTConfig((n,), max_register_count=max_register_count, limits=NVIDIA)
        assert math.prod(s.radix for s in config.stages) == n
        assert all(s.radix <= max_register_count for s in config.stages), config
        assert config.register_count <= max_register_count, config


def test_config_of_length_one_has_no_stages():
    config = FFTConfig((5, 1), 1, limits=NVIDIA)
    assert (config.N, config.stages, config.register_count) == (1, (), 1)
    assert config.batch_threads == 1 and not config.uses_sdata
    assert config.sdata_allocation == 0 and not config.exchange_split


@pytest.mark.parametrize("shape, axis, expected", [
    ((64,), None, (0, 64, 1, 1)),
    ((3, 64), None, (1, 64, 1, 3)),
    ((3, 64), -1, (1, 64, 1, 3)),
    ((3, 64), -2, (0, 3, 64, 1)),
    ((2, 3, 4, 5), 1, (1, 3, 20, 2)),
    ((2, 3, 4, 5), -3, (1, 3, 20, 2)),
    ((2, 3, 4, 5), -1, (3, 5, 1, 24)),
    ((2, 3, 4, 5), 0, (0, 2, 60, 1)),
])
def test_config_line_geometry_from_shape_and_axis(shape, axis, expected):
    config = FFTConfig(shape, axis, limits=NVIDIA)
    assert (config.axis, config.N, config.fft_stride, config.batch_outer_count) == expected
    assert config.batch_inner_count == config.fft_stride
    assert config.batch_outer_stride == config.N * config.fft_stride
    assert config.line_count == math.prod(shape) // config.N


@pytest.mark.parametrize("axis", [2, -3, True, 1.0])
def test_config_rejects_a_bad_axis(axis):
    with pytest.raises(ValueError, match="axis"):
        FFTConfig((4, 8), axis, limits=NVIDIA)


@pytest.mark.parametrize("compute_type", [dt.float32, dt.float64, dt.vec2, dt.int32],
                         ids=lambda t: t.name)
def test_config_rejects_a_non_complex_compute_type(compute_type):
    with pytest.raises(ValueError, match=f"complex dtype, got '{compute_type.name}'"):
        FFTConfig((16,), compute_type=compute_type, limits=NVIDIA)


@pytest.mark.parametrize("n", [37, 74, 2 * 3 * 41, 43 * 29])
def test_config_rejects_unsupported_primes_naming_length_and_pad_dim(n):
    """The plan's own limit (vd.fft transforms such lengths by Rader's or Bluestein's
    algorithm)."""
    message = rf"prime factor of {n} is \d+.*pad_dim\({n}\) = {pad_dim(n)} "
    with pytest.raises(ValueError, match=message):
        FFTConfig((n,), limits=NVIDIA)


@pytest.mark.parametrize("device, n, precision, message", [
    ("tiny", 4096, "complex128", r"FFT length 4096 in complex128 needs 32768 bytes"),
    ("nvidia", 16384, "complex64", r"FFT length 16384 in complex64 needs 65536 bytes"),
    ("tiny", 8192, "complex64", r"plan for size 8192: it needs more than 256 threads"),
    ("scarce", 2048, "complex32", r"plan for size 2048: it needs more than 64 threads"),
])
def test_config_rejects_a_line_that_fits_no_workgroup(device, n, precision, message):
    with pytest.raises(ValueError, match=message):
        FFTConfig((n,), compute_type=PRECISIONS[precision], limits=DEVICES[device])


@case_parameters
def test_config_shared_memory_layout(case):
    """Split exchanges only when complex lines do not fit; the chosen row always fits."""
    config, limit = case.config(), case.limits.max_shared_memory
    item = config.compute_type.item_size
    assert config.uses_sdata == (config.batch_threads > 1)
    if not config.uses_sdata:
        assert not config.exchange_split and config.sdata_allocation == 0
        return
    assert config.sdata_item_size == (item // 2 if config.exchange_split else item)
    assert config.sdata_row_size_padded in (config.N, config.N + config.N // config.pad_period)
    assert config.sdata_allocation == config.sdata_row_size_padded
    assert config.sdata_row_size_padded * config.sdata_item_size <= limit
    if config.exchange_split:
        assert wanted_rows(config) * config.N * item > limit, config
    else:
        assert config.N * item <= limit, config
    if config.fft_stride == 1:
        assert config.exchange_split == (config.N * item > limit)


@pytest.mark.parametrize("n, precision", [(8192, "complex64"), (4096, "complex128")])
def test_split_lines_plan_longer_stages(n, precision):
    """A line that fits shared memory only one component at a time plans with more registers
    (fewer threads, longer stages); an explicit budget is kept."""
    default = FFTConfig((n,), compute_type=PRECISIONS[precision], limits=NVIDIA)
    explicit = FFTConfig((n,), max_register_count=16, compute_type=PRECISIONS[precision],
                         limits=NVIDIA)
    assert default.exchange_split and explicit.exchange_split
    assert default.max_register_count == config_module.SPLIT_EXCHANGE_REGISTERS
    assert explicit.max_register_count == 16
    assert len(default.stages) <= len(explicit.stages)
    assert default.batch_threads < explicit.batch_threads
    whole = FFTConfig((n // 2,), compute_type=PRECISIONS[precision], limits=NVIDIA)
    assert not whole.exchange_split and whole.max_register_count == 16


def test_split_above_bytes_splits_only_longer_contiguous_lines():
    """The fused convolution's preference: a contiguous line whose complex values exceed
    the bytes given exchanges one component at a time; shorter and strided lines do not."""
    def config(shape, axis):
        return FFTConfig(shape, axis, 16, limits=NVIDIA, split_above_bytes=24 * 1024)
    assert config((4096,), 0).exchange_split  # 32 KiB fits whole on this device
    assert not FFTConfig((4096,), 0, 16, limits=NVIDIA).exchange_split
    assert not config((2048,), 0).exchange_split
    assert not config((1024, 8), 0).exchange_split  # strided: 4 lines of 8 KiB


def test_fused_convolution_lines_take_the_split_preference():
    plan = convolution_module._fused_line((3, 4096), 1, dt.complex64, NVIDIA)
    assert FFTConfig((3, 4096), 1, limits=NVIDIA, **plan).exchange_split
    assert not FFTConfig((3, 4096), 1, plan["max_register_count"], limits=NVIDIA).exchange_split


def test_config_drops_padding_before_splitting():
    config = Case("lavapipe", (4096,), 0, "complex64").config()  # 4096 * 8 == 32768
    assert not config.exchange_split
    assert config.sdata_row_size_padded == 4096


# -- Stockham layout ----------------------------------------------------------------------

@case_parameters
def test_stockham_stage_positions_are_permutations(case):
    """Every stage reads each line position once and writes each once; the threads'
    instances run every butterfly exactly once."""
    config = case.config()
    everything = np.arange(config.N)
    for stage in config.stages:
        j = np.arange(stage.butterflies)[:, None]
        m = np.arange(stage.radix)[None, :]
        reads, writes = stockham_positions(stage)
        stride = stage.input_stride
        # the module text's formula, which output_base shortcuts for the first/last stage
        assert np.array_equal(writes, (j // stride) * stride * stage.radix + j % stride
                              + m * stride)
        assert np.array_equal(np.sort(reads, axis=None), everything), stage
        assert np.array_equal(np.sort(writes, axis=None), everything), stage
        tid = np.arange(stage.threads)[:, None]
        instance = np.arange(stage.instance_count)[None, :]
        runs = (tid + instance * stage.threads).ravel()
        assert np.array_equal(np.sort(runs[runs < stage.butterflies]),
                              np.arange(stage.butterflies))


@case_parameters
def test_stockham_simulation_of_the_plan_is_the_dft(case):
    config = case.config()
    rng = np.random.default_rng(config.N)
    x = rng.standard_normal(config.N) + 1j * rng.standard_normal(config.N)
    tolerance = 1e-10 * config.N
    np.testing.assert_allclose(stockham(x, config.stages), np.fft.fft(x), atol=tolerance)
    np.testing.assert_allclose(stockham(x, config.stages, inverse=True),
                               np.fft.ifft(x) * config.N, atol=tolerance)


# -- launch geometry ----------------------------------------------------------------------

@case_parameters
def test_grid_fits_the_device(case):
    config, limits = case.config(), case.limits
    grid = FFTGridManager(config, declare_variables=False)
    assert grid.tid is None and grid.sdata is None  # pure geometry
    assert all(1 <= s <= m for s, m in zip(grid.local_size, limits.max_workgroup_size))
    assert math.prod(grid.local_size) <= limits.max_workgroup_invocations
    assert all(1 <= w <= m for w, m in zip(grid.workgroups, limits.max_workgroup_count))
    assert math.prod(grid.workgroups) >= grid.group_count
    assert grid.exec_size == tuple(w * s for w, s in zip(grid.workgroups, grid.local_size))
    assert grid.sdata_size * config.sdata_item_size <= limits.max_shared_memory
    assert grid.uses_sdata == (grid.sdata_size > 0)
    assert grid.uses_sdata >= config.uses_sdata
    threads = config.batch_threads
    if grid.contiguous:
        assert grid.lines_per_group * threads <= limits.max_workgroup_invocations
        assert grid.lines_per_group <= config.line_count
        assert grid.group_count == -(-config.line_count // grid.lines_per_group)
        assert grid.local_size == ((threads, grid.lines_per_group, 1) if threads > 1
                                   else (grid.lines_per_group, 1, 1))
    else:
        stride, inner = config.fft_stride, grid.inner_lines
        assert 1 <= inner <= stride
        assert grid.local_size == (inner, threads, 1)
        assert grid.group_count == config.batch_outer_count * -(-stride // inner)
        assert grid.partial == (stride % inner != 0)
        if grid.partial:  # only when no divisor of the stride is at least half as many
            best = max(d for d in range(1, inner + 1) if stride % d == 0)
            assert 2 * best <= inner, (stride, inner)


@case_parameters
def test_grid_stages_only_short_contiguous_lines_on_gpus(case):
    config = case.config()
    grid = FFTGridManager(config, declare_variables=False)
    if grid.staged:
        assert not case.limits.cpu and grid.contiguous
        assert config.batch_threads < STAGED_BELOW_THREADS and grid.lines_per_group > 1
        assert grid.uses_sdata
    if case.limits.cpu:
        assert not grid.staged


def test_grid_stages_the_same_lines_on_a_gpu_but_not_on_the_cpu():
    gpu = FFTGridManager(FFTConfig((64, 16), limits=NVIDIA), declare_variables=False)
    cpu = FFTGridManager(FFTConfig((64, 16), limits=LAVAPIPE), declare_variables=False)
    assert gpu.staged and gpu.uses_sdata
    assert not cpu.staged and not cpu.uses_sdata
    long_lines = FFTGridManager(FFTConfig((8, 4096), limits=NVIDIA), declare_variables=False)
    one_line = FFTGridManager(FFTConfig((16,), limits=NVIDIA), declare_variables=False)
    assert not long_lines.staged and not one_line.staged


@case_parameters
def test_grid_shared_memory_slots_of_a_group_do_not_overlap(case):
    config = case.config()
    grid = FFTGridManager(config, declare_variables=False)
    if not grid.uses_sdata:
        return
    positions = np.arange(config.N)[None, :]
    if grid.contiguous:
        lanes = np.arange(grid.lines_per_group)[:, None]
        index = grid.sdata_index(positions, lanes)
    else:
        lanes = np.arange(grid.inner_lines)[:, None]
        grid.lane = lanes  # the lane is local_id.x in the shader
        index = grid.sdata_index(positions)
    index = np.broadcast_to(index, (lanes.size, config.N)).ravel()
    assert len(set(index.tolist())) == index.size
    assert 0 <= index.min() and index.max() < grid.sdata_size


STAGING = StridedGroups(64, staged_stores=True)


@pytest.mark.parametrize("shape, compute_type", [
    ((2, 512, 512), dt.complex64), ((1, 1024, 1024), dt.complex64),
    ((3, 128, 100), dt.complex64), ((2, 256, 64), dt.complex128), ((4, 60, 7), dt.complex64),
])
def test_grid_staged_store_rows_fit_and_spread_over_the_banks(shape, compute_type):
    """A strided group staging its stores keeps each line a row of ``row_pitch >= N`` values
    within its shared memory, and one subgroup's register writes there (``inner_lines``
    lanes, each with ``subgroup / inner_lines`` consecutive positions) touch no bank more
    often than a subgroup's values of that size must."""
    config = FFTConfig(shape, 1, compute_type=compute_type, limits=NVIDIA)
    grid = FFTGridManager(config, declare_variables=False, strided=STAGING)
    assert grid.staged_stores and grid.uses_sdata
    assert grid.row_pitch >= config.N
    assert grid.sdata_size >= grid.inner_lines * grid.row_pitch
    assert grid.sdata_size * config.sdata_item_size <= NVIDIA.max_shared_memory
    slots = np.arange(grid.inner_lines)[:, None]
    index = grid.row_index(np.arange(config.N)[None, :], slots)
    assert len(set(index.ravel().tolist())) == index.size  # the rows do not overlap
    lanes = min(grid.inner_lines, NVIDIA.subgroup_size)
    positions = NVIDIA.subgroup_size // lanes
    words = config.sdata_item_size // 4
    first = grid.row_index(np.arange(positions)[None, :], np.arange(lanes)[:, None])
    banks = (first.ravel()[:, None] * words + np.arange(words)[None, :]).ravel() % 32
    assert np.bincount(banks, minlength=32).max() == -(-banks.size // 32)


def _extra_bank_passes(indices: np.ndarray, item_size: int) -> int:
    """Shared-memory passes beyond the least for one access of a subgroup's lanes (element
    ``indices`` of ``item_size`` bytes each): the banks serve 128 bytes a pass, so the lanes
    go in phases of ``128 / item_size`` and a phase takes as many passes as its busiest bank
    has distinct words."""
    words = item_size // 4
    extra = 0
    for start in range(0, indices.size, 32 // words):
        phase = indices[start:start + 32 // words]
        addresses = np.unique((phase[:, None] * words + np.arange(words)).ravel())
        extra += np.bincount(addresses % 32, minlength=32).max() - -(-addresses.size // 32)
    return extra


def _exchange_bank_conflicts(grid: FFTGridManager, config: FFTConfig) -> int:
    """Extra passes of the first subgroup's exchange accesses (every stage's output stores
    and every later stage's input loads) at the grid's row pitch."""
    lanes = np.arange(NVIDIA.subgroup_size)
    slot, tid = lanes // grid.threads, lanes % grid.threads
    extra = 0
    for index, stage in enumerate(config.stages):
        for instance in range(stage.instance_count):
            j = tid + instance * stage.threads
            valid = j < stage.butterflies
            for m in range(stage.radix):
                accesses = [output_position(stage, output_base(stage, j), m)]
                if index > 0:
                    accesses.append(input_position(stage, j, m))
                for positions in accesses:
                    indices = grid.sdata_index(positions[valid], slot[valid])
                    extra += _extra_bank_passes(np.asarray(indices), config.sdata_item_size)
    return extra


@pytest.mark.parametrize("n, compute_type", [
    *[(n, dt.complex64) for n in (18, 20, 24, 25, 27, 32, 36, 48, 49, 64, 81, 100, 128)],
    *[(n, ct) for n in (20, 24, 48, 64) for ct in (dt.complex32, dt.complex128)],
])
def test_grid_line_pitch_spreads_short_lines_exchanges_over_the_banks(n, compute_type):
    """Lines of 2..16 threads, several a group: their exchanges through shared memory take
    fewer bank passes at the grid's row pitch than at an odd one (what one thread a line
    needs), none beyond the least for the power-of-two lengths in complex64, and the group's
    rows still fit the shared memory. (Odd thread counts in complex32 / complex128 gain
    less or nothing: their strided stores fall on other banks.)"""
    config = FFTConfig((4096, n), 1, compute_type=compute_type, limits=NVIDIA)
    grid = FFTGridManager(config, declare_variables=False)
    assert grid.lines_per_group > 1 and 1 < grid.threads <= 16
    assert grid.row_pitch >= config.sdata_row_size_padded
    assert grid.sdata_size * config.sdata_item_size <= NVIDIA.max_shared_memory
    conflicts = _exchange_bank_conflicts(grid, config)
    pitch = grid.row_pitch
    grid.row_pitch = config.sdata_row_size_padded | 1
    assert conflicts < _exchange_bank_conflicts(grid, config)
    if compute_type is dt.complex64 and n & (n - 1) == 0:
        assert conflicts == 0, f"row pitch {pitch}"


def test_grid_stages_stores_only_of_strided_groups_on_gpus():
    strided = ((2, 512, 512), 1)
    assert not FFTGridManager(FFTConfig(*strided, limits=NVIDIA),
                              declare_variables=False).staged_stores  # not asked
    assert not FFTGridManager(FFTConfig(*strided, limits=LAVAPIPE), declare_variables=False,
                              strided=STAGING).staged_stores
    assert not FFTGridManager(FFTConfig((8, 512), 1, limits=NVIDIA), declare_variables=False,
                              strided=STAGING).staged_stores  # contiguous lines


def test_grid_force_sdata_declares_shared_memory_for_a_single_thread():
    config = FFTConfig((16,), limits=LAVAPIPE)
    assert not FFTGridManager(config, declare_variables=False).uses_sdata
    forced = FFTGridManager(config, force_sdata=True, declare_variables=False)
    assert forced.uses_sdata and forced.sdata_size >= config.N


# -- split_workgroups ---------------------------------------------------------------------

def test_split_workgroups_covers_the_total_within_the_limits():
    rng = random.Random(3)
    for _ in range(500):
        limits = tuple(rng.choice((1, 2, 5, 64, 65535)) for _ in range(3))
        total = rng.randrange(1, math.prod(limits) + 1)
        x, y, z = split_workgroups(total, limits)
        assert all(1 <= c <= m for c, m in zip((x, y, z), limits)), (total, limits)
        assert x * y * z >= total
        assert x * y * (z - 1) < total  # no z-layer of padding groups only
        if total <= limits[0]:
            assert (x, y, z) == (total, 1, 1)


@pytest.mark.parametrize("limits", [(5, 64, 64), (65535, 65535, 65535), (1, 1, 1)])
def test_split_workgroups_raises_beyond_the_limits(limits):
    assert math.prod(split_workgroups(math.prod(limits), limits)) == math.prod(limits)
    total = math.prod(limits) + 1
    with pytest.raises(ValueError, match=rf"{total} workgroups exceed"):
        split_workgroups(total, limits)


# -- two-pass lengths ---------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _fits(n: int, precision: str, device: str) -> bool:
    return fits_one_pass(n, PRECISIONS[precision], DEVICES[device])


@pytest.mark.parametrize("device, n, precision", [
    ("nvidia", 2**14, "complex64"), ("nvidia", 2**16, "complex64"),
    ("nvidia", 3**10, "complex128"), ("nvidia", 2**10 * 3**5, "complex64"),
    ("tiny", 8192, "complex64"), ("tiny", 2**20, "complex32"), ("scarce", 2**12, "complex64"),
])
def test_split_length_factors_a_long_line_into_two_single_pass_lengths(device, n, precision):
    assert not _fits(n, precision, device)
    n1, n2 = split_length(n, PRECISIONS[precision], DEVICES[device])
    assert n1 * n2 == n and n1 > 1 and n2 > 1
    assert _fits(n1, precision, device) and _fits(n2, precision, device)
    balance = abs(math.log(n1 / n2))
    for d in range(2, n):  # no more balanced split fits
        if n % d == 0 and abs(math.log(d / (n // d))) < balance - 1e-12:
            assert not (_fits(d, precision, device) and _fits(n // d, precision, device))


def test_fits_one_pass_agrees_with_the_planner():
    assert _fits(4096, "complex64", "nvidia") and _fits(8192, "complex64", "nvidia")
    assert not _fits(16384, "complex64", "nvidia")  # shared memory
    assert _fits(4096, "complex64", "tiny") and not _fits(8192, "complex64", "tiny")
    # a strided axis also needs several adjacent lines in one group
    assert fits_one_pass(512, dt.complex64, SCARCE, stride=1)
    assert not fits_one_pass(512, dt.complex64, SCARCE, stride=8)
    with pytest.raises(ValueError, match="prime factor of 74"):
        fits_one_pass(74, dt.complex64, NVIDIA)


@pytest.mark.parametrize("shape, axis, pass_a_bytes, pass_b_bytes", [
    ((64, 2**14), 1, 64, 256),      # 1-D lines: pass A's lines land N2 values apart
    ((2, 2**16), 1, 64, 128),       # pass B's 256-value lines: 16 fill shared memory
    ((2, 2**18), 1, 32, 64),        # pass A's 512-value lines staged: 128 invocations
    ((4, 2**14, 4), 1, 64, 256),    # 4 inner lines: groups of 64 bytes, not staged
    ((2**14, 64), 0, 256, 256),     # 64 inner lines: its stores are 512-byte runs already
])
def test_four_step_pass_a_groups_fewer_lines_where_its_stores_scatter(shape, axis,
                                                                     pass_a_bytes,
                                                                     pass_b_bytes):
    plan = shader_factories._fft_shader(NVIDIA, shape, axis, False, True, False, None, None,
                                        dt.complex64, dt.complex64, dt.complex64,
                                        (0, shape[axis]), None)
    assert isinstance(plan, FourStepFFT)
    item = dt.complex64.item_size
    assert plan.pass_a.local_size[0] * item == pass_a_bytes
    assert plan.pass_b.local_size[0] * item == pass_b_bytes


def test_split_length_raises_when_no_split_fits():
    with pytest.raises(ValueError, match=f"FFT length {2**19} cannot be split"):
        split_length(2**19, dt.complex64, SCARCE)


# -- generated source ---------------------------------------------------------------------

class SourceCase(NamedTuple):
    name: str
    case: Case
    inverse: bool = False
    buffer: str | None = None  # buffer element type, default the compute type


SOURCE_CASES = [
    SourceCase("staged-c64", Case("nvidia", (8, 64), -1, "complex64")),
    SourceCase("cpu-unstaged-c64", Case("lavapipe", (8, 64), -1, "complex64")),
    SourceCase("strided-c64", Case("nvidia", (64, 8), 0, "complex64")),
    SourceCase("middle-axis-c128-inverse", Case("nvidia", (3, 60, 5), 1, "complex128"), True),
    SourceCase("single-thread-c32", Case("nvidia", (16,), 0, "complex32")),
    SourceCase("single-thread-cpu", Case("lavapipe", (5, 7), 1, "complex64")),
    SourceCase("staged-single-thread", Case("nvidia", (5, 7), 1, "complex64")),
    SourceCase("staged-partial-group", Case("nvidia", (300, 9), 1, "complex64")),
    SourceCase("shared-c32", Case("lavapipe", (4, 256), 1, "complex32")),
    SourceCase("c32-buffer-c64-compute", Case("nvidia", (4, 128), 1, "complex64"), False,
               "complex32"),
    SourceCase("split-exchange", Case("scarce", (2, 512), 1, "complex64")),
    SourceCase("split-exchange-strided", Case("scarce", (512, 4), 0, "complex64"), True),
    SourceCase("split-exchange-c128", Case("scarce", (7, 256), 1, "complex128")),
    SourceCase("length-one", Case("nvidia", (1,), 0, "complex64")),
    SourceCase("guarded-remainders", Case("nvidia", (1001,), 0, "complex64")),
    SourceCase("padding-groups", Case("few_groups", (1000, 64), 1, "complex64")),
]


@functools.lru_cache(maxsize=None)
def traced(source_case: SourceCase):
    """The FFTContext of an in-place transform of ``source_case`` traced with
    ``fft_context``; its callable holds the shader."""
    case = source_case.case
    buffer = BUFFER_TYPES[source_case.buffer or case.precision]
    with fft_context(case.shape, case.axis, compute_type=PRECISIONS[case.precision],
                     limits=case.limits) as ctx:
        (data,) = ctx.declare_shader_args([vc.Buffer[buffer]])
        for op in global_reads_iterator(ctx.registers):
            op.read_from_buffer(data)
        ctx.execute(source_case.inverse)
        for op in global_writes_iterator(ctx.registers):
            op.write_to_buffer(data)
    return ctx


source_parameters = pytest.mark.parametrize("source_case", SOURCE_CASES,
                                            ids=[s.name for s in SOURCE_CASES])


def _source(ctx) -> str:
    function = ctx.get_callable()
    return function.shader_description.make_source(*function.local_size)


@source_parameters
def test_traced_fft_compiles(source_case):
    ctx = traced(source_case)
    assert ctx.config.limits is source_case.case.limits
    assert ctx.get_callable().workgroups == ctx.grid.workgroups
    assert_compiles(_source(ctx), source_case.name)


@source_parameters
def test_traced_fft_source_without_building(source_case):
    """``get_src(build=False)`` renders with the grid's local size and needs no context."""
    ctx = traced(source_case)
    source = ctx.get_callable().get_src(line_numbers=False, build=False)
    assert source.local_size == ctx.grid.local_size
    assert source.code.rstrip("\n") == _source(ctx).rstrip("\n")
    x, y, z = ctx.grid.local_size
    assert (f"layout(local_size_x = {x}, local_size_y = {y}, local_size_z = {z}) in;"
            in source.code)


@source_parameters
def test_traced_fft_shared_memory_and_barriers(source_case):
    """Shared memory is declared exactly when the grid uses it, with the grid's size and the
    exchanged element type; a barrier separates every change of direction, no more."""
    ctx = traced(source_case)
    config, grid, source = ctx.config, ctx.grid, _source(ctx)
    declared = re.findall(r"^shared (\w+) (\w+)\[(\d+)\];$", source, re.M)
    barriers = source.count("barrier()")
    if not grid.uses_sdata:
        assert declared == [] and barriers == 0
        return
    element = config.compute_type.child_type if grid.split else config.compute_type
    assert declared == [(element.glsl_type, "sdata", str(grid.sdata_size))]
    rounds = (2 if grid.split else 1) * (len(config.stages) - 1) + (2 if grid.staged else 0)
    assert barriers == 2 * rounds - 1, (rounds, barriers)


@source_parameters
def test_traced_fft_registers_and_guards(source_case):
    """One register per planned slot; guards only where stages or groups have remainders."""
    ctx = traced(source_case)
    config, grid, source = ctx.config, ctx.grid, _source(ctx)
    registers = re.findall(r"^\s+\w+ fft_reg_(\d+) = ", source, re.M)
    assert sorted(map(int, registers)) == list(range(config.register_count))
    expected = set()
    if config.batch_threads > 1:
        expected = {s.butterflies - (s.instance_count - 1) * s.threads
                    for s in config.stages if s.has_remainder()}
    assert set(map(int, re.findall(r"\(fft_tid < (\d+)\)", source))) == expected
    padding = math.prod(grid.workgroups) != grid.group_count
    assert (f"if((fft_group >= {grid.group_count})) return;" in source) == padding
    if grid.staged:
        # The last group's missing lines are clamped, not guarded, in the staged loads (a
        # guard per load serialises them); the stores stay guarded.
        loads, stores = source.split("barrier()")[0], source.split("barrier()")[-1]
        line_guard = f" < {config.line_count}))"
        assert line_guard not in loads
        assert (line_guard in stores) == grid.partial
        assert ("min(" in loads) == grid.partial
