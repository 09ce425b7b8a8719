"""The copy kernel shared by ``vd.copy`` and the replica copies of one device: a grid-stride
loop of 16-byte words where the offsets and the size allow, else 4-byte words. NVIDIA's
vkCmdCopyBuffer on a compute queue moved 0.85 TB/s on an H100 where this kernel, like torch's
copy_, reaches about 3 TB/s; on CPU devices (lavapipe) vkCmdCopyBuffer is a memcpy and wins.
Bindings: 0 the destination, 1 the source; push constants: destination offset, source offset
and count, in words.
"""
from __future__ import annotations

import struct

from vkdispatch.base.compute_plan import ComputePlan, context_plan
from vkdispatch.base.context import Context
from vkdispatch.base.device_info import is_cpu_device
from vkdispatch.base.grid_stride import LOCAL_SIZE, workgroups

__all__ = ["word_bytes", "copy_plan", "copy_push_constants"]

_WORD_TYPES = {16: "uvec4", 4: "uint"}  # bytes per word -> GLSL type
_KERNEL = """#version 450
layout(local_size_x = {local_size}) in;
layout(set = 0, binding = 0) writeonly buffer Dst {{ {word} dst[]; }};
layout(set = 0, binding = 1) readonly buffer Src {{ {word} src[]; }};
layout(push_constant) uniform Range {{ uint dst_offset; uint src_offset; uint count; }} range;
void main() {{
    uint stride = gl_NumWorkGroups.x * {local_size}u;
    for (uint i = gl_GlobalInvocationID.x; i < range.count; i += stride)
        dst[range.dst_offset + i] = src[range.src_offset + i];
}}
"""


def word_bytes(context: Context, buffer_bytes: tuple[int, ...],
               byte_ranges: tuple[int, ...]) -> int | None:
    """The word size the copy kernel can use for buffers of ``buffer_bytes`` and these byte
    offsets and size, or None where vkCmdCopyBuffer serves better (CPU devices) or must serve
    (no whole words, or a buffer beyond what a storage binding or a 32-bit word index
    reaches)."""
    if any(is_cpu_device(info) for info in context.device_infos):
        return None
    limit = min(min(info.max_storage_buffer_range for info in context.device_infos), 2**32 - 1)
    if max(buffer_bytes) > limit:
        return None
    for word in _WORD_TYPES:
        if all(value % word == 0 for value in byte_ranges):
            return word
    return None


def copy_plan(context: Context, word: int) -> ComputePlan:
    """The copy kernel moving ``word``-byte words (see :func:`word_bytes`)."""
    glsl_type = _WORD_TYPES[word]
    return context_plan(context, f"vd_copy_{glsl_type}",
                        lambda: _KERNEL.format(local_size=LOCAL_SIZE, word=glsl_type), [1, 1], 12)


def copy_push_constants(word: int, dst_byte: int, src_byte: int, size: int) -> bytes:
    return struct.pack("<3I", dst_byte // word, src_byte // word, size // word)
