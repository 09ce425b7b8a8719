"""``buffer_<code>(shape)`` allocators: ``vd.buffer_f32(n)`` is ``vd.Buffer(n, vd.float32)``."""
from __future__ import annotations

from vkdispatch import dtypes as dt
from vkdispatch.base.buffer import Buffer

_CODES = {
    "u32": dt.uint32, "uv2": dt.uvec2, "uv3": dt.uvec3, "uv4": dt.uvec4,
    "i32": dt.int32, "iv2": dt.ivec2, "iv3": dt.ivec3, "iv4": dt.ivec4,
    "f32": dt.float32, "v2": dt.vec2, "v3": dt.vec3, "v4": dt.vec4, "c64": dt.complex64,
    "u16": dt.uint16, "uhv2": dt.uhvec2, "uhv3": dt.uhvec3, "uhv4": dt.uhvec4,
    "i16": dt.int16, "ihv2": dt.ihvec2, "ihv3": dt.ihvec3, "ihv4": dt.ihvec4,
    "f16": dt.float16, "hv2": dt.hvec2, "hv3": dt.hvec3, "hv4": dt.hvec4,
    "f64": dt.float64, "dv2": dt.dvec2, "dv3": dt.dvec3, "dv4": dt.dvec4,
}  # fmt: skip


def _make_allocator(code: str, var_type: type[dt.dtype]):
    def allocate(shape) -> Buffer:
        return Buffer(shape, var_type)

    allocate.__name__ = allocate.__qualname__ = f"buffer_{code}"
    allocate.__doc__ = f"A new :class:`Buffer` of ``shape`` with element type ``{var_type.name}``."
    return allocate


__all__ = [f"buffer_{code}" for code in _CODES]
globals().update({f"buffer_{code}": _make_allocator(code, t) for code, t in _CODES.items()})
