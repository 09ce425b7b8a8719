"""Memory kept for reuse: a buffer over 256 KiB dropped in a loop hands its memory to the next
one of its size, the data stays right, and ``vd.empty_cache()`` frees what is kept and never
memory in use."""
from __future__ import annotations

import numpy as np
import pytest

import vkdispatch as vd
from vkdispatch.errors import IndexOutOfRangeError, InvalidStateError

LARGE = 1 << 18  # float32 elements: 1 MiB, beyond what shared blocks take


def test_a_loop_of_equal_temporaries_reuses_memory(context, rng):
    _, reuses_before = context.kept_memory(0)
    rounds = 6
    for _ in range(rounds):
        data = rng.standard_normal(LARGE, dtype=np.float32)
        buffer = vd.asbuffer(data)
        np.testing.assert_array_equal(buffer.read(0), data)
        buffer.destroy()
    kept, reuses = context.kept_memory(0)
    assert kept >= 1
    assert reuses - reuses_before >= rounds - 1


def test_empty_cache_frees_kept_memory_never_memory_in_use(context, rng):
    data = rng.standard_normal(LARGE, dtype=np.float32)
    in_use = vd.asbuffer(data)
    dropped = vd.asbuffer(rng.standard_normal(2 * LARGE, dtype=np.float32))
    dropped.read(0)  # its upload done: destroy() keeps the memory now, not after that work
    dropped.destroy()
    assert context.kept_memory(0)[0] >= 1
    vd.empty_cache()
    assert all(context.kept_memory(q)[0] == 0 for q in range(context.queue_count))
    np.testing.assert_array_equal(in_use.read(0), data)
    again = rng.standard_normal(LARGE, dtype=np.float32)
    in_use.write(again)
    np.testing.assert_array_equal(in_use.read(0), again)
    _, reuses = context.kept_memory(0)
    fresh = vd.asbuffer(data)  # its size was kept before empty_cache(): now a new allocation
    assert context.kept_memory(0)[1] == reuses
    np.testing.assert_array_equal(fresh.read(0), data)
    fresh.destroy()
    in_use.destroy()


def test_kept_memory_names_a_bad_queue_index(context):
    with pytest.raises(IndexOutOfRangeError, match=r"queue_index.*got 99"):
        context.kept_memory(99)
    assert context.kept_memory(0)[0] >= 0  # the context is still usable


def test_empty_cache_of_a_closed_context_is_refused(context):
    other = vd.create_context()
    other.close()
    with pytest.raises(InvalidStateError):
        other.empty_cache()
    vd.empty_cache()  # the current context is untouched
