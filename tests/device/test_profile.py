"""vd.profile(): every command submitted inside the block (shader calls, FFT passes, VkFFT,
reductions, copies, a graph replayed there) is an event with its name and a positive duration
inside the block's wall-clock span, in order per queue, beside host spans (submit, wait,
read) placed on the GPU's time line (by calibrated timestamps where offered, else a measured
offset) so that each submission precedes its command and each wait follows it; nothing outside
the block; the table (with each shader's Python source line) and the Chrome trace (valid JSON
with the fields Perfetto reads); profiles do not nest.
"""
from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import random_array

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, f32

pytestmark = pytest.mark.usefixtures("context")


@vd.shader("x.size")
def scale(x: Buff[f32], k: Const[f32]):
    i = vc.global_invocation_id().x
    x[i] = x[i] * k


@vd.reduce.reduce(0)
def total(a: f32, b: f32) -> f32:
    return a + b


def scale_line() -> int:
    """The line where ``scale`` begins (its decorator: the first line of its code)."""
    return Path(__file__).read_text().splitlines().index('@vd.shader("x.size")') + 1


def names(prof) -> list[str]:
    """The names of the GPU events (not the host spans, queue -1)."""
    return [event.name for event in prof.events if event.queue >= 0]


def test_every_kind_of_command_is_an_event(rng):
    data = random_array(rng, (4096,), np.float32)
    buffer, copy = vd.asbuffer(data), vd.Buffer((4096,), vd.float32)
    signal = vd.asbuffer(random_array(rng, (8, 64), np.complex64))
    vkfft_signal = vd.asbuffer(random_array(rng, (8, 64), np.complex64))
    scale(buffer, 1.0)  # built before the block: outside it, so not an event
    start = time.perf_counter()
    with vd.profile() as prof:
        assert prof.events == []  # filled when the block ends
        for _ in range(3):
            scale(buffer, 2.0)
        vd.fft.fft(signal)
        vd.vkfft.fft(vkfft_signal)
        result = total(buffer)
        vd.copy(copy, buffer)
    span_us = (time.perf_counter() - start) * 1e6
    scale(buffer, 1.0)  # after the block: not an event either

    recorded = names(prof)
    assert recorded.count("scale") == 3
    assert any(name.startswith("fft_shader") for name in recorded), recorded
    assert "vkfft" in recorded
    assert len(recorded) >= 3 + 1 + 1 + 1 + 1  # the reduction and the copy: one or more each
    for event in prof.events:
        assert event.queue in (0, -1) and 0 <= event.duration_us <= span_us, event
        # the host spans sit on the GPU's time line within the offset's error (< 1 ms here)
        assert 0 <= event.start_us <= span_us + 1000, event
    host = [event.name for event in prof.events if event.queue == -1]
    assert host.count("submit") >= 3 and set(host) <= {"submit", "wait", "read"}, host
    scaled = [e for e in prof.events if e.name == "scale"]
    for earlier, later in zip(scaled, scaled[1:]):  # dependent calls on one buffer, in order
        assert later.start_us >= earlier.start_us + earlier.duration_us - 1e-3
    np.testing.assert_allclose(copy.read(0), data * 8, rtol=1e-6)
    np.testing.assert_allclose(float(np.asarray(result.read(0)).ravel()[0]),
                               float((data.astype(np.float64) * 8).sum()), rtol=1e-4)


def test_a_graph_replayed_in_the_block_is_profiled(rng):
    buffer = vd.asbuffer(random_array(rng, (1024,), np.float32))
    graph = vd.CommandGraph()
    scale(buffer, 0.5, graph=graph)
    scale(buffer, 3.0, graph=graph)
    with vd.profile() as prof:
        graph.submit(instance_count=4)
    assert names(prof) == ["scale"] * 8
    graph.destroy()


def test_replays_in_and_out_of_profiles_compute_right_and_each_is_an_event(rng):
    # Profiled replays run kept recordings with timestamps (one per replay in flight), read
    # before they run again; a replay outside a profile runs the plain recording again.
    data = random_array(rng, (2048,), np.float32)
    buffer = vd.asbuffer(data)
    graph = vd.CommandGraph()
    scale(buffer, 1.25, graph=graph)
    scale(buffer, 0.75, graph=graph)
    expected = data.astype(np.float64)
    for replays, profiled in ((40, True), (3, False), (25, True)):
        with vd.profile() if profiled else contextlib.nullcontext() as prof:
            for k in range(replays):
                graph.submit()
                if k % 10 == 9:  # some replays after a wait, some while others are in flight
                    vd.queue_wait_idle()
        expected *= (1.25 * 0.75) ** replays
        if profiled:
            runs = [e for e in prof.events if e.queue >= 0]
            assert [e.name for e in runs] == ["scale"] * 2 * replays
            for earlier, later in zip(runs, runs[1:]):  # dependent, in order, none twice
                assert later.start_us >= earlier.start_us + earlier.duration_us - 1e-3
    np.testing.assert_allclose(buffer.read(0), expected, rtol=1e-4)
    graph.destroy()


def test_the_table_and_the_trace(rng, tmp_path):
    buffer = vd.asbuffer(random_array(rng, (2048,), np.float32))
    with vd.profile() as prof:
        for _ in range(5):
            scale(buffer, 1.5)
        vd.fft.fft(vd.asbuffer(random_array(rng, (4, 128), np.complex64)))
    rows = {row["name"]: row for row in prof.summary()}
    assert set(rows) == set(names(prof))  # GPU time only: no host spans in the table
    assert rows["scale"]["count"] == 5
    line = scale_line()
    # (other modules of the suite may define shaders named "scale": all their lines are shown)
    assert f"test_profile.py:{line}" in rows["scale"]["source"].split(", ")
    assert rows["scale"]["min_us"] <= rows["scale"]["mean_us"] <= rows["scale"]["max_us"]
    assert abs(sum(row["share"] for row in rows.values()) - 1) < 1e-9
    table = str(prof)
    assert table.splitlines()[0].split()[:3] == ["name", "count", "total"]
    assert any(row.split()[:2] == ["scale", "5"] and f"test_profile.py:{line}" in row
               for row in table.splitlines())

    path = tmp_path / "trace.json"
    prof.save(path)
    trace = json.loads(path.read_text())
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(complete) == len(prof.events)
    for event in complete:
        assert {"name", "ts", "dur", "pid", "tid", "cat"} <= set(event)
        assert event["dur"] >= 0 and event["cat"] == ("host" if event["tid"] == -1 else "gpu")
    tracks = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"]
              if e["name"] == "thread_name"}
    assert tracks == {-1: "host", 0: "queue 0"}


def test_profiles_do_not_nest_and_an_empty_one_says_so(rng):
    # (made outside the block: on a GPU its upload is a command of its own, "buffer update")
    buffer = vd.asbuffer(random_array(rng, (64,), np.float32))
    with vd.profile() as outer:
        with pytest.raises(vd.errors.InvalidStateError, match="recording already"):
            with vd.profile():
                pass
        scale(buffer, 2.0)
    assert names(outer) == ["scale"]
    with vd.profile() as empty:
        pass
    assert names(empty) == [] and "no GPU commands" in str(empty)


def test_one_track_per_queue(multi, rng):
    with multi:
        buffer = vd.asbuffer(random_array(rng, (256,), np.float32))
        graph = vd.CommandGraph()
        scale(buffer, 2.0, graph=graph)
        with vd.profile() as prof:
            graph.submit()  # to every queue
        graph.destroy()
    queues = list(range(multi.queue_count))
    assert sorted(e.queue for e in prof.events if e.queue >= 0) == queues
    tracks = {e["tid"]: e["args"]["name"] for e in prof.trace()["traceEvents"]
              if e["name"] == "thread_name"}
    assert tracks == {-1: "host", **{q: f"queue {q}" for q in queues}}


def on_lavapipe() -> bool:
    return vd.get_context().device_infos[0].device_name.startswith("llvmpipe")


@pytest.mark.parametrize("clock", ["auto", "measured"])
def test_host_spans_frame_the_gpu_work_they_submit_and_wait_for(rng, clock, tmp_path):
    buffer = vd.asbuffer(random_array(rng, (4096,), np.float32))
    scale(buffer, 1.0)  # built outside the block
    vd.queue_wait_idle()
    with vd.profile(clock=clock) as prof:
        for _ in range(6):
            scale(buffer, 1.5)
            vd.queue_wait_idle()
    alignment = prof.clock_alignment
    if clock == "measured":
        assert alignment.method == "measured"
    elif on_lavapipe():  # Mesa's lavapipe offers VK_EXT_calibrated_timestamps
        assert alignment.method == "calibrated"
    assert alignment.method in ("calibrated", "measured") and alignment.error_us >= 0
    if alignment.method == "measured":
        assert alignment.error_us > 0  # half of a real round trip
    slack = alignment.error_us + 1e-3  # (+ the rounding of nanoseconds to microseconds)
    submits, waits = ([e for e in prof.events if e.name == name] for name in ("submit", "wait"))
    runs = [e for e in prof.events if e.name == "scale"]
    assert len(submits) == len(runs) == len(waits) == 6
    for submit, run, wait in zip(submits, runs, waits):
        assert submit.start_us <= run.start_us + slack, (submit, run, alignment)
        assert run.start_us + run.duration_us <= wait.start_us + wait.duration_us + slack, \
            (run, wait, alignment)
    assert f"by {alignment.method} clocks" in repr(prof)
    prof.save(tmp_path / "trace.json")
    metadata = json.loads((tmp_path / "trace.json").read_text())["metadata"]
    assert metadata == {"vkdispatch_clock_alignment": alignment.method,
                        "vkdispatch_clock_alignment_error_us": alignment.error_us}


def test_an_unknown_clock_is_refused():
    with pytest.raises(vd.errors.InvalidArgumentError, match="clock='gpu'.*'auto', 'measured'"):
        with vd.profile(clock="gpu"):
            pass
