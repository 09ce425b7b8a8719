"""The copy kernel shared by ``vd.copy`` and the replica copies of one device: a grid-stride
loop of 16-byte words where the offsets allow, else 4-byte words. NVIDIA's vkCmdCopyBuffer on
a compute queue moved 0.85 TB/s on an H100 where this kernel, like torch's copy_, reaches
about 3 TB/s; on CPU devices (lavapipe) vkCmdCopyBuffer is a memcpy and wins.

A size that is not whole 16-byte words (an odd count of complex64 values) keeps the 16-byte
loop: its last one to three 4-byte words are the tail, copied by the first invocations
through 4-byte views of the same bindings. An H200 copied 256 MiB of odd complex64 counts in
4-byte words at 2.5 TB/s against 4.1 TB/s in 16-byte words (torch's copy_ of such counts:
2.7 TB/s).

Bindings: 0 the destination, 1 the source; push constants: destination offset, source
offset and count, in words, and the tail, in 4-byte words.
"""
from __future__ import annotations

import struct

from vkdispatch.base.compute_plan import ComputePlan, context_plan
from vkdispatch.base.context import Context
from vkdispatch.base.device_info import is_cpu_device
from vkdispatch.base.grid_stride import LOCAL_SIZE, workgroups

__all__ = ["kernel_word", "word_bytes", "copy_plan", "copy_workgroups", "copy_push_constants"]

_WORD_TYPES = {16: "uvec4", 4: "uint"}  # bytes per word -> GLSL type
_KERNEL = """#version 450
layout(local_size_x = {local_size}) in;
layout(set = 0, binding = 0) writeonly buffer Dst {{ {word} dst[]; }};
layout(set = 0, binding = 1) readonly buffer Src {{ {word} src[]; }};
layout(set = 0, binding = 0) writeonly buffer DstTail {{ uint dst_tail[]; }};
layout(set = 0, binding = 1) readonly buffer SrcTail {{ uint src_tail[]; }};
layout(push_constant) uniform Range {{
    uint dst_offset; uint src_offset; uint count; uint tail;
}} range;
void main() {{
    uint stride = gl_NumWorkGroups.x * {local_size}u;
    for (uint i = gl_GlobalInvocationID.x; i < range.count; i += stride)
        dst[range.dst_offset + i] = src[range.src_offset + i];
    uint t = gl_GlobalInvocationID.x;
    if (t < range.tail)
        dst_tail[(range.dst_offset + range.count) * {per_word}u + t] =
            src_tail[(range.src_offset + range.count) * {per_word}u + t];
}}
"""


def kernel_word(byte_ranges: tuple[int, ...]) -> int | None:
    """The copy kernel's word size for these byte offsets and size (the last value): 16 where
    the offsets are whole 16-byte words and the size whole 4-byte words, 4 where all are
    whole 4-byte words, else None."""
    *offsets, size = byte_ranges
    if size % 4:
        return None
    return next((word for word in _WORD_TYPES if all(value % word == 0 for value in offsets)),
                None)


def word_bytes(context: Context, buffer_bytes: tuple[int, ...],
               byte_ranges: tuple[int, ...]) -> int | None:
    """The word size the copy kernel can use for buffers of ``buffer_bytes`` and these byte
    offsets and size (:func:`kernel_word`), or None where vkCmdCopyBuffer serves better (CPU
    devices) or must serve (no whole words, or a buffer beyond what a storage binding or a
    32-bit word index reaches)."""
    if any(is_cpu_device(info) for info in context.device_infos):
        return None
    limit = min(min(info.max_storage_buffer_range for info in context.device_infos), 2**32 - 1)
    if max(buffer_bytes) > limit:
        return None
    return kernel_word(byte_ranges)


def copy_plan(context: Context, word: int) -> ComputePlan:
    """The copy kernel moving ``word``-byte words (see :func:`word_bytes`)."""
    glsl_type = _WORD_TYPES[word]
    return context_plan(context, f"vd_copy_{glsl_type}",
                        lambda: _KERNEL.format(local_size=LOCAL_SIZE, word=glsl_type,
                                               per_word=word // 4), [1, 1], 16)


def copy_workgroups(context: Context, word: int, size: int) -> tuple[int, int, int]:
    """The kernel's workgroups for ``size`` bytes: one invocation at least per word and for
    each 4-byte word of the tail."""
    return workgroups(context, max(size // word, size % word // 4))


def copy_push_constants(word: int, dst_byte: int, src_byte: int, size: int) -> bytes:
    return struct.pack("<4I", dst_byte // word, src_byte // word, size // word,
                       size % word // 4)
