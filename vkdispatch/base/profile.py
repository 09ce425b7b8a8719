"""``vd.profile()``: where the GPU time of a block of code goes, per command.

While the block runs, every command submitted to the context's queues (shader calls, each
pass of an FFT, VkFFT plans, reductions, ``vd.copy``, buffer commands; eager or replayed from a
graph) is recorded between two GPU timestamps. At the end of the block the profile waits for
that work and holds one event per command and instance::

    with vd.profile() as prof:
        for _ in range(10):
            vd.fft.convolve(signal, kernel)
    print(prof)                  # a table per name: count, total, mean, min, max, share
    prof.save("trace.json")      # Chrome trace events: open in Perfetto or chrome://tracing

Not recorded (yet): host-side spans (recording, submitting, waiting), the staging copies of
``write``/``read`` on GPUs, and ``kp`` sequences. Timestamps are the device's clock: events of
different devices are not aligned with each other.
"""
from __future__ import annotations

import contextlib
import json
import os
from typing import Iterator, NamedTuple

from vkdispatch.base.context import get_context
from vkdispatch.errors import InvalidStateError

__all__ = ["ProfileEvent", "Profile", "profile"]


class ProfileEvent(NamedTuple):
    """One command's run: ``start_us`` counts from the profile's first timestamp."""

    name: str
    queue: int
    start_us: float
    duration_us: float


class Profile:
    """The events of one ``vd.profile()`` block (empty until the block ends).

    Attributes:
        events: :class:`ProfileEvent` records, ordered by queue and start time.
    """

    def __init__(self) -> None:
        self.events: list[ProfileEvent] = []

    def _set(self, raw: list) -> None:
        origin = min((start for _name, _queue, start, _end in raw), default=0)
        events = [ProfileEvent(name, queue, (start - origin) / 1e3, max(end - start, 0) / 1e3)
                  for name, queue, start, end in raw]
        self.events = sorted(events, key=lambda e: (e.queue, e.start_us))

    def summary(self) -> list[dict]:
        """Per name: count, total/mean/min/max microseconds and share of the busy time,
        sorted by total time (largest first)."""
        groups: dict[str, list[float]] = {}
        for event in self.events:
            groups.setdefault(event.name, []).append(event.duration_us)
        busy = sum(sum(times) for times in groups.values()) or 1.0
        rows = [{"name": name, "count": len(times), "total_us": sum(times),
                 "mean_us": sum(times) / len(times), "min_us": min(times),
                 "max_us": max(times), "share": sum(times) / busy}
                for name, times in groups.items()]
        return sorted(rows, key=lambda row: -row["total_us"])

    def __str__(self) -> str:
        if not self.events:
            return "vd.profile: no GPU commands recorded"
        rows = self.summary()
        width = max(len("name"), *(len(row["name"]) for row in rows))
        lines = [f"{'name':<{width}}  {'count':>6}  {'total us':>10}  {'mean us':>9}  "
                 f"{'min us':>9}  {'max us':>9}  {'share':>6}"]
        for row in rows:
            lines.append(f"{row['name']:<{width}}  {row['count']:>6}  {row['total_us']:>10.1f}"
                         f"  {row['mean_us']:>9.2f}  {row['min_us']:>9.2f}  "
                         f"{row['max_us']:>9.2f}  {row['share']:>6.1%}")
        return "\n".join(lines)

    def trace(self) -> dict:
        """The events in the Chrome trace event format: one complete ("X") event per command,
        one track (thread) per queue."""
        queues = sorted({event.queue for event in self.events})
        metadata = [{"name": "thread_name", "ph": "M", "pid": 0, "tid": queue,
                     "args": {"name": f"queue {queue}"}} for queue in queues]
        metadata.append({"name": "process_name", "ph": "M", "pid": 0,
                         "args": {"name": "vkdispatch GPU"}})
        return {"traceEvents": metadata + [
            {"name": event.name, "ph": "X", "pid": 0, "tid": event.queue,
             "ts": event.start_us, "dur": event.duration_us, "cat": "gpu"}
            for event in self.events], "displayTimeUnit": "ns"}

    def save(self, path: str | os.PathLike) -> None:
        """Writes :meth:`trace` as JSON to ``path`` (open it in https://ui.perfetto.dev)."""
        with open(path, "w", encoding="utf-8") as file:
            json.dump(self.trace(), file)


@contextlib.contextmanager
def profile() -> Iterator[Profile]:
    """Records the GPU time of every command submitted to the current context inside the
    block; the yielded :class:`Profile` holds the events once the block ends (which waits for
    the work submitted in it).

    Raises:
        InvalidStateError: another profile of the context is recording.
    """
    native = get_context().native
    if not native.start_profiling():
        raise InvalidStateError("vd.profile(): a profile of this context is recording already "
                                "(profiles do not nest)")
    result = Profile()
    try:
        yield result
    finally:
        result._set(native.stop_profiling())
