"""Which complex precision an FFT stores and computes in ("mixed precision").

An FFT touches up to four complex types: the input, output and kernel buffers, and the compute
type of its registers, shared memory and twiddles. The legal ones are exactly ``complex32``,
``complex64`` and ``complex128``, ranked in that order. A precision is usable only when every
device of the current context supports it, since one shader is compiled for all of them.

The functions are pure apart from reading ``get_context().device_infos`` and are thread-safe.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from vkdispatch.base.context import get_context
from vkdispatch.dtypes import complex32, complex64, complex128, dtype
from vkdispatch.errors import InvalidArgumentError

__all__ = [
    "is_complex_precision", "validate_complex_precision", "promote_complex_precisions",
    "default_compute_precision", "supports_complex_precision",
    "ensure_supported_complex_precision", "resolve_compute_precision",
]  # fmt: skip

_RANK = {complex32: 0, complex64: 1, complex128: 2}
"""Rank of each legal precision; promotion picks the highest."""

_REQUIREMENTS = {
    complex32: "fp16 arithmetic and 16-bit storage buffer access",
    complex128: "fp64 arithmetic",
}
"""What each device must offer for a precision, quoted in the unsupported-precision error."""


_HIGHEST_FIRST = sorted(_RANK, key=_RANK.__getitem__, reverse=True)


def is_complex_precision(value: Any) -> bool:
    """Whether ``value`` is one of the three dtypes an FFT can store or compute in."""
    try:
        return value in _RANK  # dtypes are classes: equality is identity
    except TypeError:  # an unhashable value is no dtype
        return False


def validate_complex_precision(value: Any, *, arg_name: str) -> type[dtype]:
    """Returns ``value`` if it is a legal FFT precision.

    Raises:
        InvalidArgumentError: ``value`` is anything else (a real dtype, a vector, None...);
            the message names ``arg_name``.
    """
    if not is_complex_precision(value):
        shown = getattr(value, "name", repr(value))
        raise InvalidArgumentError(
            f"{arg_name} must be one of complex32, complex64, or complex128 (got {shown})")
    return value


def promote_complex_precisions(dtypes: Iterable[type[dtype]]) -> type[dtype]:
    """The highest-ranked of ``dtypes`` (complex32 < complex64 < complex128), so that no
    operand loses precision when converted to it.

    Raises:
        InvalidArgumentError: ``dtypes`` is empty or holds a non-FFT precision.
    """
    candidates = [validate_complex_precision(d, arg_name="dtypes") for d in dtypes]
    if not candidates:
        raise InvalidArgumentError(
            "dtypes must hold at least one complex precision to promote (got none)")
    return max(candidates, key=_RANK.__getitem__)


def default_compute_precision(io_precisions: Iterable[type[dtype]]) -> type[dtype]:
    """The promoted I/O precision, but never below complex64: fp16 accumulation over the
    log2(N) butterfly passes loses too much accuracy, so complex32 data computes in fp32."""
    promoted = promote_complex_precisions(io_precisions)
    return promoted if _RANK[promoted] >= _RANK[complex64] else complex64


def _device_supports(device: Any, precision: type[dtype]) -> bool:
    """Whether one device (a ``DeviceInfo``) can load, store and compute ``precision``."""
    if precision is complex32:
        # fp16 arithmetic is not enough: the buffers are read and written as 16-bit values.
        return device.float_16_support == 1 and (
            device.storage_buffer_16_bit_access == 1
            or device.uniform_and_storage_buffer_16_bit_access == 1)
    if precision is complex128:
        return device.float_64_support == 1
    return True


def supports_complex_precision(precision: type[dtype]) -> bool:
    """Whether every device of the current context supports ``precision`` (complex64 always
    does).

    Raises:
        InvalidArgumentError: ``precision`` is not a legal FFT precision.
    """
    validate_complex_precision(precision, arg_name="dtype")
    if precision is complex64:  # every call of a complex64 FFT asks, several times
        return True
    return all(_device_supports(device, precision) for device in get_context().device_infos)


def ensure_supported_complex_precision(precision: type[dtype], *, role: str) -> type[dtype]:
    """Returns ``precision`` if every device of the current context supports it.

    Args:
        role: which operand the precision is for, capitalised ("Input", "Output", "Kernel",
            "Compute"); it starts the error message.

    Raises:
        InvalidArgumentError: a device lacks support; the message names the role, the
            precision and the missing device features.
    """
    if not supports_complex_precision(precision):
        raise InvalidArgumentError(
            f"{role} precision '{precision.name}' is not supported on the active device set: "
            f"every device needs {_REQUIREMENTS[precision]}; use complex64 instead")
    return precision


def _highest_supported(ceiling: type[dtype]) -> type[dtype]:
    """The highest supported precision not above ``ceiling``: falling back only downward
    keeps an automatic choice from silently costing more memory or bandwidth than asked."""
    for precision in _HIGHEST_FIRST:
        if _RANK[precision] <= _RANK[ceiling] and supports_complex_precision(precision):
            return precision
    raise InvalidArgumentError(
        f"no complex precision up to {ceiling.name} is supported by every device of the "
        "active device set; choose devices that support complex64")


def resolve_compute_precision(io_precisions: Sequence[type[dtype]],
                              compute_precision: type[dtype] | None) -> type[dtype]:
    """The precision an FFT computes in.

    An explicit ``compute_precision`` wins, once validated and support-checked. Otherwise the
    I/O precisions are promoted with a floor of complex64 (complex64 alone when every operand
    is mapped and ``io_precisions`` is empty), then lowered to the highest precision every
    device supports, e.g. complex128 I/O on a device without fp64 computes in complex64.

    Raises:
        InvalidArgumentError: a precision is not legal, the explicit one is unsupported
            (role "Compute"), or no precision at or below the target is supported.
    """
    if compute_precision is not None:
        validate_complex_precision(compute_precision, arg_name="compute_type")
        return ensure_supported_complex_precision(compute_precision, role="Compute")
    if not io_precisions:
        return _highest_supported(complex64)
    return _highest_supported(default_compute_precision(io_precisions))
