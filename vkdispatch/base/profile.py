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

Host spans go on a track of their own (queue -1 in ``events``): each submission of recorded
commands ("submit"), each wait for the queues ("wait") and each buffer read ("read"), placed
on the GPU's time line when the block ends: by the driver's calibrated timestamps where the
device offers them (VK_KHR/EXT_calibrated_timestamps: both clocks sampled together, to within
the driver's deviation), else by a measured offset (a timestamp submitted and waited for:
accurate to half that round trip, tens of microseconds). ``prof.clock_alignment`` says which,
as do ``repr(prof)`` and the saved trace's metadata. The table sums GPU time only.

The staging copies of ``write``/``read`` on discrete GPUs are events too ("staging copy",
"buffer update"). Not recorded (yet): ``kp`` sequences. Events of different devices are each
on their own device's clock.
"""
from __future__ import annotations

import contextlib
import json
import os
import time
from typing import Iterator, NamedTuple

from vkdispatch.errors import InvalidArgumentError, InvalidStateError

HOST = -1  # the queue of host spans in events

__all__ = ["ProfileEvent", "ClockAlignment", "Profile", "profile", "note_source"]

_SOURCES: dict[str, set] = {}  # shader name -> "file.py:line" of the Python functions


def note_source(name: str, function) -> None:
    """Remembers where the Python function of shader ``name`` is defined, for the table."""
    code = getattr(function, "__code__", None)
    if code is not None:
        location = f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}"
        _SOURCES.setdefault(name, set()).add(location)


def _source_of(name: str) -> str:
    return ", ".join(sorted(_SOURCES.get(name, ())))


class ProfileEvent(NamedTuple):
    """One command's run on ``queue`` (or a host span, queue -1): ``start_us`` counts from
    the profile's first event."""

    name: str
    queue: int
    start_us: float
    duration_us: float


class ClockAlignment(NamedTuple):
    """How host spans were placed on the GPU's time line (that of queue 0): ``method``
    "calibrated" (the driver's calibrated timestamps), "measured" (a timestamp submitted and
    waited for) or "none" (the queue writes no timestamps: host spans keep their own clock),
    and ``error_us``, how far off they may be."""

    method: str
    error_us: float


CLOCKS = ("auto", "measured")  # vd.profile(clock=...)


class Profile:
    """The events of one ``vd.profile()`` block (empty until the block ends).

    Attributes:
        events: :class:`ProfileEvent` records, ordered by queue and start time.
        clock_alignment: the :class:`ClockAlignment` the host spans were placed by (None until
            the block ends).
    """

    def __init__(self) -> None:
        self.events: list[ProfileEvent] = []
        self.clock_alignment: ClockAlignment | None = None
        self._host: list[tuple] = []  # (name, start ns, end ns) on the host's monotonic clock

    def _set(self, raw: list, moments: list) -> None:
        """Takes the native events and, per queue, ``(device ns, host ns, method, error ns)``
        (Context.stop_profiling)."""
        gpu, host, method, error = moments[0] if moments else (0, 0, "none", 0)
        self.clock_alignment = ClockAlignment(method, error / 1e3)
        shift = gpu - host if method != "none" else 0  # host ns -> device ns of queue 0
        raw = raw + [(name, HOST, start + shift, end + shift)
                     for name, start, end in self._host]
        origin = min((start for _name, _queue, start, _end in raw), default=0)
        events = [ProfileEvent(name, queue, (start - origin) / 1e3, max(end - start, 0) / 1e3)
                  for name, queue, start, end in raw]
        self.events = sorted(events, key=lambda e: (e.queue, e.start_us))

    def summary(self) -> list[dict]:
        """Per name: where its Python function is (``source``, "file.py:line" for
        ``@vd.shader`` functions, else empty), count, total/mean/min/max microseconds and
        share of the busy time, sorted by total time (largest first)."""
        groups: dict[str, list[float]] = {}
        for event in self.events:
            if event.queue != HOST:
                groups.setdefault(event.name, []).append(event.duration_us)
        busy = sum(sum(times) for times in groups.values()) or 1.0
        rows = [{"name": name, "source": _source_of(name), "count": len(times),
                 "total_us": sum(times),
                 "mean_us": sum(times) / len(times), "min_us": min(times),
                 "max_us": max(times), "share": sum(times) / busy}
                for name, times in groups.items()]
        return sorted(rows, key=lambda row: -row["total_us"])

    def __repr__(self) -> str:
        if self.clock_alignment is None:
            return "<vd.Profile: recording>"
        alignment = self.clock_alignment
        gpu = sum(event.queue != HOST for event in self.events)
        return (f"<vd.Profile: {gpu} GPU events, {len(self.events) - gpu} host spans aligned "
                f"by {alignment.method} clocks (error {alignment.error_us:.3f} us)>")

    def __str__(self) -> str:
        if not any(event.queue != HOST for event in self.events):
            return "vd.profile: no GPU commands recorded"
        rows = self.summary()
        width = max(len("name"), *(len(row["name"]) for row in rows))
        lines = [f"{'name':<{width}}  {'count':>6}  {'total us':>10}  {'mean us':>9}  "
                 f"{'min us':>9}  {'max us':>9}  {'share':>6}  source"]
        for row in rows:
            lines.append(f"{row['name']:<{width}}  {row['count']:>6}  {row['total_us']:>10.1f}"
                         f"  {row['mean_us']:>9.2f}  {row['min_us']:>9.2f}  "
                         f"{row['max_us']:>9.2f}  {row['share']:>6.1%}  {row['source']}")
        return "\n".join(lines)

    def trace(self) -> dict:
        """The events in the Chrome trace event format: one complete ("X") event per command,
        one track (thread) per queue; ``metadata`` says how the host spans were aligned."""
        queues = sorted({event.queue for event in self.events})
        alignment = self.clock_alignment or ClockAlignment("none", 0.0)
        metadata = [{"name": "thread_name", "ph": "M", "pid": 0, "tid": queue,
                     "args": {"name": "host" if queue == HOST else f"queue {queue}"}}
                    for queue in queues]
        metadata.append({"name": "process_name", "ph": "M", "pid": 0,
                         "args": {"name": "vkdispatch GPU"}})
        return {"traceEvents": metadata + [
            {"name": event.name, "ph": "X", "pid": 0, "tid": event.queue,
             "ts": event.start_us, "dur": event.duration_us,
             "cat": "host" if event.queue == HOST else "gpu",
             "args": {"source": _source_of(event.name)}}
            for event in self.events], "displayTimeUnit": "ns",
            "metadata": {"vkdispatch_clock_alignment": alignment.method,
                         "vkdispatch_clock_alignment_error_us": alignment.error_us}}

    def save(self, path: str | os.PathLike) -> None:
        """Writes :meth:`trace` as JSON to ``path`` (open it in https://ui.perfetto.dev)."""
        with open(path, "w", encoding="utf-8") as file:
            json.dump(self.trace(), file)


class _Recording:
    """The profile recording now (one per process: profiles do not nest), for host spans."""

    active: Profile | None = None


def recording() -> Profile | None:
    """The profile recording host spans now, or None (a single attribute read: call sites
    pay nothing more when no profile records)."""
    return _Recording.active


def host_span(profile_: Profile, name: str, start_ns: int) -> None:
    """Adds the host span ``name`` from ``start_ns`` (``time.perf_counter_ns()``) to now."""
    profile_._host.append((name, start_ns, time.perf_counter_ns()))


@contextlib.contextmanager
def profile(clock: str = "auto") -> Iterator[Profile]:
    """Records the GPU time of every command submitted to the current context inside the
    block; the yielded :class:`Profile` holds the events once the block ends (which waits for
    the work submitted in it).

    Args:
        clock: how host spans are placed on the GPU's time line: "auto" (the driver's
            calibrated timestamps where the device offers them, else "measured") or
            "measured" (a timestamp submitted and waited for when the block ends).

    Raises:
        InvalidArgumentError: an unknown ``clock``.
        InvalidStateError: another profile of the context is recording.
    """
    from vkdispatch.base.context import get_context  # the context imports this module

    if clock not in CLOCKS:
        raise InvalidArgumentError(f"vd.profile(clock={clock!r}): expected one of "
                                   f"{', '.join(map(repr, CLOCKS))}")
    native = get_context().native
    if _Recording.active is not None or not native.start_profiling():
        raise InvalidStateError("vd.profile(): a profile is recording already (profiles do "
                                "not nest)")
    result = _Recording.active = Profile()
    try:
        yield result
    finally:
        _Recording.active = None
        result._set(*native.stop_profiling(calibrated=clock == "auto"))
