"""The base CommandList with every command kind (vkdispatch.base.commands): results against
numpy, submission from many threads at once, and validation messages reported to the thread
whose call caused them."""
from __future__ import annotations

import struct
import threading

import numpy as np
import pytest

import vkdispatch as vd
from vkdispatch import errors
from vkdispatch.base import commands as cmd
from vkdispatch.base.command_list import CommandList
from vkdispatch.base.compute_plan import ComputePlan
from vkdispatch.base.descriptor_set import DescriptorSet
from vkdispatch.base.init import runtime

ATOMIC_ADD = """#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer C { uint counters[]; };
layout(push_constant) uniform PC { uint add; } pc;
void main() { atomicAdd(counters[gl_GlobalInvocationID.x], pc.add); }
"""

TRIPLE_PLUS_ONE = """#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer D { uint data[]; };
void main() { data[gl_GlobalInvocationID.x] = data[gl_GlobalInvocationID.x] * 3u + 1u; }
"""


def one_buffer_dispatch(source: str, name: str, buffer: vd.Buffer, pc_size: int, groups: int):
    plan = ComputePlan(source, [1], pc_size, name)
    descriptor_set = DescriptorSet(plan)
    descriptor_set.bind_buffer(buffer, 0)
    return cmd.Dispatch(plan, descriptor_set, (groups, 1, 1))


def random_words(rng, n):
    return rng.integers(0, 2**20, n, dtype=np.uint32)


def test_every_command_kind_in_one_list_matches_numpy(context, rng):
    n = 256
    a_host, c_host = random_words(rng, n), random_words(rng, n)
    a, b, c = vd.asbuffer(a_host), vd.Buffer(n, vd.uint32), vd.asbuffer(c_host)
    update = random_words(rng, 9)
    commands = CommandList()
    commands.record(cmd.BufferCopy(b, a, 4 * n))                            # b = a
    commands.record(one_buffer_dispatch(TRIPLE_PLUS_ONE, "triple", b, 0, n // 64))
    commands.record(cmd.BufferFill(c, 0x1234, 4 * 32, offset=4 * 8))        # c[8:40] = 0x1234
    commands.record(cmd.Barrier())
    commands.record(cmd.BufferUpdate(c, update.tobytes(), offset=4 * 30))  # c[30:39] = update
    commands.record(cmd.BufferCopy(a, b, 4 * 10, dst_offset=4 * 5))        # a[5:15] = b[:10]
    commands.submit(instance_count=1)
    b_host = a_host * 3 + 1
    a_expected = a_host.copy()
    a_expected[5:15] = b_host[:10]
    c_host[8:40] = 0x1234
    c_host[30:39] = update
    np.testing.assert_array_equal(b.read(0), b_host)
    np.testing.assert_array_equal(a.read(0), a_expected)
    np.testing.assert_array_equal(c.read(0), c_host)


def test_record_rejects_non_commands_and_destroyed_or_foreign_handles(context, rng):
    commands = CommandList()
    with pytest.raises(TypeError, match="command must be one of"):
        commands.record((1, 2, 3))
    buffer = vd.asbuffer(random_words(rng, 16))
    other = vd.Buffer(16, vd.uint32)
    other.destroy()
    with pytest.raises(ValueError, match="BufferCopy command: a Buffer it uses was destroyed"):
        commands.record(cmd.BufferCopy(buffer, other, 64))
    with pytest.raises(ValueError, match="src: 80 bytes"):
        commands.record(cmd.BufferCopy(buffer, buffer, 80, src_offset=0, dst_offset=0))
    assert commands._native.command_count == 0  # nothing half-recorded


@pytest.mark.parametrize("make, error, message", [
    (lambda b: cmd.BufferFill(b, 2**40, 64), ValueError,
     r"^BufferFill: value must be a 32-bit word in \[0, 4294967295\], got 1099511627776"),
    (lambda b: cmd.BufferFill(b, -1, 64), ValueError,
     r"got -1; the word of a negative int32 v is v & 0xFFFFFFFF$"),
    (lambda b: cmd.BufferFill(b, 1.5, 64), TypeError,
     r"^BufferFill: value must be an int \(the 32-bit word written\), got 1\.5 \(float\)"),
    (lambda b: cmd.BufferFill(b, True, 64), TypeError, r"value must be an int .*got True"),
    (lambda b: cmd.BufferFill(b, 1, -4), ValueError,
     r"^BufferFill: size must be a byte count in \[0, 2\*\*64 - 1\], got -4$"),
    (lambda b: cmd.BufferFill(b, 1, 8.0), TypeError,
     r"^BufferFill: size must be an int \(bytes\), got 8\.0 \(float\)$"),
    (lambda b: cmd.BufferFill(np.zeros(4), 1, 16), TypeError,
     r"^BufferFill: buffer must be a vd\.Buffer, got ndarray$"),
    (lambda b: cmd.BufferCopy(b, b, 16, src_offset=-16), ValueError,
     r"^BufferCopy: src_offset must be a byte count"),
    (lambda b: cmd.BufferUpdate(b, "abcd"), TypeError, r"^BufferUpdate: data must be bytes"),
    (lambda b: cmd.BufferUpdate(b, b"abcd", offset=2**64), ValueError,
     r"^BufferUpdate: offset must be a byte count"),
], ids=["fill-2**40", "fill-negative", "fill-float", "fill-bool", "size-negative", "size-float",
        "not-a-buffer", "copy-offset", "update-str", "update-offset"])
def test_commands_with_bad_fields_raise_when_made_naming_the_field(context, rng, make, error,
                                                                  message):
    """These used to raise Cython's bare OverflowError/TypeError when recorded, or truncate a
    float value silently."""
    buffer = vd.asbuffer(random_words(rng, 16))
    with pytest.raises(error, match=message) as info:
        make(buffer)
    assert isinstance(info.value, errors.VkDispatchError)
    word = int(rng.integers(2**31, 2**32))  # the top bit set: read back as a negative int32
    ints, update = vd.Buffer(16, vd.int32), random_words(rng, 4)
    commands = CommandList()
    commands.record(cmd.BufferFill(ints, np.uint32(word), 64, offset=0))
    commands.record(cmd.BufferUpdate(buffer, update, offset=8))  # any object exposing bytes
    commands.submit(instance_count=1)
    np.testing.assert_array_equal(ints.read(0), np.full(16, word, np.uint32).view(np.int32))
    np.testing.assert_array_equal(buffer.read(0)[2:6], update)


def test_one_command_list_submitted_from_eight_threads_counts_exactly(context, rng):
    # Issue 9's defect: instance counts varying per call made concurrent submissions re-record
    # the kept command buffer under each other (wrong totals, crashes).
    counters = vd.asbuffer(np.zeros(64, np.uint32))
    commands = CommandList()
    commands.record(one_buffer_dispatch(ATOMIC_ADD, "atomic_add", counters, 4, 1))
    seeds = rng.integers(0, 2**31, 8)
    totals = [0] * 8
    failures = []

    def submitter(index):
        local = np.random.default_rng(seeds[index])
        try:
            for _ in range(60):
                adds = local.integers(1, 8, local.integers(1, 4)).astype(np.uint32)
                commands.submit(adds.tobytes(), queue_index=0, instance_count=len(adds))
                totals[index] += int(adds.sum())
        except BaseException as error:  # reported below: a thread must not die silently
            failures.append(error)

    threads = [threading.Thread(target=submitter, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    vd.queue_wait_idle()
    np.testing.assert_array_equal(counters.read(0), np.full(64, sum(totals), np.uint32))


def test_validation_message_reaches_only_the_thread_whose_call_caused_it(context, rng):
    native = runtime().native
    data = random_words(rng, 32)
    buffer = vd.asbuffer(data)
    other_thread = {}

    def other():
        try:
            other_thread["read"] = buffer.read(0)  # must not see the message of the main thread
        except BaseException as error:
            other_thread["error"] = error

    native.inject_validation_error("VUID-test: caused by the main thread")
    worker = threading.Thread(target=other)
    worker.start()
    worker.join()
    assert "error" not in other_thread
    np.testing.assert_array_equal(other_thread["read"], data)
    with pytest.raises(errors.ValidationError, match="caused by the main thread"):
        buffer.read(0)
    np.testing.assert_array_equal(buffer.read(0), data)


def test_push_constant_data_size_is_checked_before_anything_runs(context, rng):
    counters = vd.asbuffer(np.zeros(64, np.uint32))
    commands = CommandList()
    commands.record(one_buffer_dispatch(ATOMIC_ADD, "atomic_add", counters, 4, 1))
    with pytest.raises(ValueError, match="instance size"):
        commands.submit(struct.pack("<I", 1) * 3, instance_count=2)
    commands.submit(struct.pack("<II", 2, 5))
    np.testing.assert_array_equal(counters.read(0), np.full(64, 7, np.uint32))
