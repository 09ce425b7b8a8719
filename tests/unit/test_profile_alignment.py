"""How a Profile places host spans among GPU events from the native alignment of the clocks
(device ns, host ns, method, error ns), with no device: shifted by the offset the alignment
gives, left on the host clock where the queue has no timestamps, and the method shown in
``clock_alignment``, ``repr`` and the trace's metadata."""
from __future__ import annotations

import numpy as np
import pytest

from vkdispatch.base.profile import HOST, ClockAlignment, Profile


def profile_of(offset_ns: int, method: str, error_ns: int, rng) -> tuple[Profile, dict]:
    """A profile of one GPU event and a host span submitted before it, at random times, on a
    device clock ``offset_ns`` ahead of the host's; returns it and the expected start of each
    event (us, from the earliest)."""
    host_start = int(rng.integers(10**9, 10**12))
    gap_ns, submit_ns, run_ns = (int(v) for v in rng.integers(1_000, 90_000, 3))
    prof = Profile()
    prof._host.append(("submit", host_start, host_start + submit_ns))
    gpu_start = host_start + offset_ns + gap_ns
    moment = (host_start + offset_ns + 5, host_start + 5, method, error_ns)
    prof._set([("kernel", 0, gpu_start, gpu_start + run_ns)], [moment])
    return prof, {"submit": 0.0, "kernel": gap_ns / 1e3}


@pytest.mark.parametrize("method", ["calibrated", "measured"])
def test_host_spans_shift_by_the_offset_of_the_alignment(method):
    rng = np.random.default_rng(5)
    offset = int(rng.integers(-10**12, 10**12))
    prof, expected = profile_of(offset, method, 25_000, rng)
    assert {e.name: e.start_us for e in prof.events} == pytest.approx(expected)
    assert [e.queue for e in prof.events] == [HOST, 0]
    assert prof.clock_alignment == ClockAlignment(method, 25.0)
    assert repr(prof) == (f"<vd.Profile: 1 GPU events, 1 host spans aligned by {method} clocks "
                          f"(error 25.000 us)>")
    assert prof.trace()["metadata"] == {"vkdispatch_clock_alignment": method,
                                        "vkdispatch_clock_alignment_error_us": 25.0}


def test_without_timestamps_host_spans_keep_the_host_clock():
    prof = Profile()
    prof._host.append(("wait", 2_000, 9_000))
    # a queue without timestamps aligns nothing, whatever numbers come with "none"
    prof._set([("kernel", 0, 5_000, 6_000)], [(10**9, 7, "none", 0)])
    assert [(e.name, e.start_us) for e in prof.events] == [("wait", 0.0), ("kernel", 3.0)]
    assert prof.clock_alignment == ClockAlignment("none", 0.0)


def test_a_profile_still_recording_says_so():
    assert repr(Profile()) == "<vd.Profile: recording>"
    assert Profile().clock_alignment is None
