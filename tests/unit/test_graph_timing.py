"""benchmarks/graph_timing.py: the first figure after a pause is timed only after the work ran
back to back long enough to bring an idle GPU's clocks up; figures taken back to back are not
held up by it."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import graph_timing  # noqa: E402  (benchmarks/ is not a package)


@pytest.fixture
def timing(monkeypatch):
    monkeypatch.setattr(graph_timing, "RAMP_SECONDS", 0.05)
    monkeypatch.setattr(graph_timing, "IDLE_SECONDS", 0.2)
    monkeypatch.setattr(graph_timing, "_last_timed", float("-inf"))
    return graph_timing


def counting_run(seconds_each: float):
    calls = []

    def run():
        calls.append(time.perf_counter())
        time.sleep(seconds_each)
    return run, calls


def test_after_a_pause_the_work_runs_back_to_back_before_it_is_timed(timing):
    run, calls = counting_run(0.002)
    elapsed = timing.timed_seconds(run)
    assert calls[-1] - calls[0] >= timing.RAMP_SECONDS  # the timed call came after the ramp
    assert len(calls) > 3
    assert 0.002 <= elapsed < timing.RAMP_SECONDS  # only the last call was timed


def test_figures_taken_back_to_back_skip_the_ramp(timing):
    timing.timed_seconds(counting_run(0.002)[0])
    run, calls = counting_run(0.002)
    timing.timed_seconds(run)
    assert len(calls) == 2  # one untimed call, one timed


def test_a_pause_longer_than_the_idle_limit_ramps_again(timing):
    timing.timed_seconds(counting_run(0.002)[0])
    time.sleep(timing.IDLE_SECONDS + 0.05)
    run, calls = counting_run(0.002)
    timing.timed_seconds(run)
    assert len(calls) > 3


def test_median_seconds_times_each_repeat_after_an_untimed_call(timing):
    run, calls = counting_run(0.001)
    timing.timed_seconds(run)  # clocks up
    calls.clear()
    timing.median_seconds(run, 3)
    assert len(calls) == 6


def test_a_warm_up_of_its_own_runs_untimed_and_in_the_ramp(timing):
    warm, warm_calls = counting_run(0.002)
    run, calls = counting_run(0.002)
    timing.timed_seconds(run, warm_up=warm)
    assert len(calls) == 1 and len(warm_calls) > 3 and warm_calls[-1] < calls[0]
