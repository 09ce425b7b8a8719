"""The context: the devices and queues that buffers live on and work runs on.

The process has one global context, created lazily by the first operation that needs it (or
explicitly by :func:`make_context`). :func:`create_context` makes further, independent ones;
``with ctx:`` makes one the current context of the running thread (or asyncio task). Objects
are made in the current context (:func:`get_context`) and keep using that context for their
whole life. Every buffer has one replica per queue of its context.
"""
from __future__ import annotations

import contextvars
import numbers
import os
import threading
import time
import weakref
from typing import Any, Sequence

from vkdispatch.base import backend as backends
from vkdispatch.base import profile
from vkdispatch.base.async_transfer import TransferWorkers
from vkdispatch.base.disk_cache import cache_directory, disk_cache_enabled
from vkdispatch.base.environment import checked_int, int_from_environment
from vkdispatch.base.handle import HandleRegistry, new_identity
from vkdispatch.base.init import get_devices, runtime
from vkdispatch.base.log import logger
from vkdispatch.base.signal import Signal
from vkdispatch.errors import (DummyBackendError, IndexOutOfRangeError, InvalidArgumentError,
                               InvalidStateError, NativeError)

__all__ = ["Context", "make_context", "create_context", "get_context", "get_context_handle",
           "is_context_initialized", "select_queue_families", "queue_wait_idle",
           "destroy_context", "stop_threads", "set_dummy_context_params"]


_MAX_IN_FLIGHT_LIMIT = 2**32 - 1
_SUBMIT_WINDOW_LIMIT = 1_000_000  # a second: longer windows only delay work
# Queues beyond a family's own share its hardware queues (each with its own timeline, pools and
# transfer ring): far more than the hardware has only costs memory and threads.
MAX_QUEUES_PER_DEVICE = 64


def _queue_option(value: int | None, name: str, minimum: int, maximum: int) -> int | None:
    """A queue setting a new context gets (``max_in_flight``, ``submit_window_us``): the
    argument, else ``$VKDISPATCH_<NAME>``, else None (the native default); checked either way."""
    if value is None:
        return int_from_environment(f"VKDISPATCH_{name.upper()}", minimum, maximum)
    return checked_int(value, name, minimum, maximum)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _selection():
    """The module with the pure device/queue selection logic (the native bridge)."""
    rt = runtime()
    return rt.native if rt.native is not None else backends.load_native()


class Context:
    """Devices and queues in use. Made by :func:`make_context` (the process's global context)
    or :func:`create_context` (another one), never constructed directly.

    ``with ctx:`` makes this the current context of the running thread (or asyncio task) until
    the block ends: objects created inside (buffers, graphs, plans) belong to it. Blocks nest;
    leaving one restores the previous current context. Other threads are not affected.

    Attributes:
        device_ids: indices into :func:`vkdispatch.get_devices` of the devices used.
        mapped_device_ids: the backend's own indices of those devices.
        device_infos: their :class:`~vkdispatch.DeviceInfo`.
        queue_families: per device, the queue family of each queue.
        queue_count: number of queues over all devices (= replicas per buffer).
        handles: the live objects (buffers, ...) owned by this context.
        derived: what higher layers compute once for this context (a shader's compiled plan),
            keyed weakly by the object it belongs to; emptied by :meth:`close`.

    Limits (``max_workgroup_size`` and friends) are the minimum over the devices, except
    ``uniform_buffer_alignment`` (the maximum). Thread safety: safe to share.
    """

    def __init__(self, device_ids: list[int], queue_families: list[list[int]],
                 max_in_flight: int | None = None, submit_window_us: int | None = None):
        rt = runtime()
        self._handle = new_identity()
        self.device_ids = list(device_ids)
        self.device_infos = [rt.devices[i] for i in self.device_ids]
        self.mapped_device_ids = [info.dev_index for info in self.device_infos]
        self.queue_families = [list(families) for families in queue_families]
        self.queue_count = sum(len(families) for families in self.queue_families)
        self.handles = HandleRegistry()
        self.derived: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.dummy = rt.native is None
        self._closed = False
        self._module = rt.native
        self._native = None
        self._pipeline_cache = None
        self.transfers = TransferWorkers(self.queue_count)  # for write_async / read_async
        if not self.dummy:
            options = {name: value for name, value in (("max_in_flight", max_in_flight),
                                                       ("submit_window_us", submit_window_us))
                       if value is not None}
            self._native = rt.native.NativeContext(rt.instance, self.mapped_device_ids,
                                                   self.queue_families, **options)
            self.pipeline_cache()  # load it now: the first new kernel should not wait for it
        self.refresh_limits_from_device_infos()
        _ContextSlot.live.add(self)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has run (the context and its objects are then unusable)."""
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise InvalidStateError(
                f"{self!r} was closed (Context.close() or destroy_context()); its buffers, "
                "plans and graphs can no longer be used. vd.get_context() makes a new global "
                "context, vd.create_context() another one.")

    @property
    def max_in_flight(self) -> int:
        """Submissions each queue lets be unfinished at once: one more (a shader call, a graph
        submit, a transfer chunk) waits until the oldest finishes (see :func:`make_context`)."""
        return self.native.max_in_flight

    @property
    def submit_window_us(self) -> int:
        """Microseconds a queue's batch of calls stays open before one submission sends it
        (see :func:`make_context`); 0 submits every call at once. Settable."""
        return self.native.submit_window_us

    @submit_window_us.setter
    def submit_window_us(self, value: int) -> None:
        self.native.submit_window_us = checked_int(value, "submit_window_us", 0,
                                                   _SUBMIT_WINDOW_LIMIT)

    @property
    def native(self):
        """The native context; raises InvalidStateError once closed, DummyBackendError under
        the dummy backend."""
        native = self._native
        if native is None:
            self._check_open()
            raise DummyBackendError(
                "The 'dummy' backend is codegen-only and does not support runtime GPU "
                "operations. Use backend='vulkan' for execution.")
        return native

    @property
    def native_module(self):
        """The native bridge module (raises like :attr:`native`)."""
        self.native  # noqa: B018 - raises for a closed context or the dummy backend
        return self._module

    def pipeline_cache(self):
        """The persistent VkPipelineCache of the devices (None when caching is disabled)."""
        if self._pipeline_cache is None and disk_cache_enabled():
            directory = cache_directory()
            tags = [(info.uuid or b"").hex() or "nouuid" for info in self.device_infos]
            paths = [os.path.join(directory, f"pipelines-{tag}.bin") for tag in tags]
            try:
                os.makedirs(directory, exist_ok=True)
            except OSError:
                return None
            self._pipeline_cache = self.native_module.NativePipelineCache(self.native, paths)
        return self._pipeline_cache

    def create_native_buffer(self, size: int):
        """Allocates ``size`` bytes on every queue (used by :class:`~vkdispatch.Buffer`)."""
        native = self.native
        return self._module.NativeBuffer(native, size)

    def create_native_image(self, view_type: int, format_value: int, width: int, height: int,
                            depth: int, layers: int, mip_levels: int = 1):
        """An image on every queue (used by :class:`~vkdispatch.Image`)."""
        return self._module.NativeImage(self.native, view_type, format_value, width, height,
                                        depth, layers, mip_levels)

    def create_native_sampler(self, *settings):
        """A sampler on every device (used by :class:`~vkdispatch.Sampler`)."""
        return self._module.NativeSampler(self.native, *settings)

    def refresh_limits_from_device_infos(self) -> None:
        """Recomputes the context-wide limits from ``device_infos``."""
        infos = self.device_infos
        self.subgroup_size = min(i.sub_group_size for i in infos)
        self.subgroup_enabled = all(i.subgroup_enabled for i in infos)
        self.subgroup_arithmetic = all(i.subgroup_arithmetic for i in infos)
        self.max_workgroup_size = tuple(min(i.max_workgroup_size[a] for i in infos)
                                        for a in range(3))
        self.max_workgroup_invocations = min(i.max_workgroup_invocations for i in infos)
        self.max_workgroup_count = tuple(min(i.max_workgroup_count[a] for i in infos)
                                         for a in range(3))
        self.uniform_buffer_alignment = max(i.uniform_buffer_alignment for i in infos)
        self.max_shared_memory = min(i.max_compute_shared_memory_size for i in infos)

    def is_apple(self) -> bool:
        """Whether any device of the context is an Apple GPU."""
        return any(info.is_apple() for info in self.device_infos)

    def check_queue_index(self, index: Any, argument: str = "index") -> int:
        """Validates a queue/replica index; returns it."""
        if not _is_int(index):
            if isinstance(index, bool) or not isinstance(index, numbers.Integral):
                raise InvalidArgumentError(f"{argument} must be an integer or None, got "
                                           f"{index!r}")
            index = int(index)  # a numpy integer, as indexing code often has
        if not 0 <= index < self.queue_count:
            raise IndexOutOfRangeError(f"{argument} must be between 0 and {self.queue_count - 1} "
                                       f"(inclusive) or None for all queues, got {index}")
        return index

    def signal(self, queue_index: int) -> Signal:
        """A signal that fires once everything submitted so far to ``queue_index`` finished."""
        self._check_open()
        self.check_queue_index(queue_index, "queue_index")
        if self._native is None:
            return Signal(None, queue_index, 0)
        return Signal(self._native, queue_index, self._native.submitted_value(queue_index))

    def wait_idle(self, queue_index: int | None = None) -> None:
        """Blocks until the work submitted to one queue (or all, for None) has finished."""
        self._check_open()
        if queue_index is not None:
            self.check_queue_index(queue_index, "queue_index")
        if self._native is not None:
            recording = profile.recording()
            start = time.perf_counter_ns() if recording is not None else 0
            self._native.wait_idle(-1 if queue_index is None else queue_index)
            if recording is not None:
                profile.host_span(recording, "wait", start)

    def empty_cache(self) -> int:
        """Frees the memory this context's devices keep for reuse (see :func:`empty_cache`);
        how many allocations that was."""
        self._check_open()
        return 0 if self._native is None else self._native.empty_cache()

    def kept_memory(self, queue_index: int = 0) -> tuple[int, int]:
        """``(allocations kept for reuse, requests they served so far)`` on the device owning
        queue ``queue_index`` (for tests and benchmarks)."""
        self._check_open()
        self.check_queue_index(queue_index, "queue_index")
        return (0, 0) if self._native is None else self._native.kept_memory(queue_index)

    def _mark_closed(self) -> bool:
        """Uninstalls the context if global and marks it closed; False if it already was."""
        with _ContextSlot.lock:
            if _ContextSlot.current is self:
                _ContextSlot.current = None
            if self._closed:
                return False
            self._closed = True
        return True

    def close(self) -> None:
        """Destroys every live handle, then the native context (after its queues finish).

        Idempotent. Closing the global context uninstalls it: the next :func:`get_context` or
        :func:`make_context` creates a new one. Closing another context affects only that one.
        The context and its objects raise :class:`~vkdispatch.errors.InvalidStateError` when
        used afterwards.
        """
        if not self._mark_closed():
            return
        self.transfers.close()  # background transfers finish before their buffers go
        self.derived.clear()
        for handle in self.handles.close():
            handle.destroy()
        if self._pipeline_cache is not None:
            self._pipeline_cache.save()
            self._pipeline_cache = None
        if self._native is not None:
            self._native.close()
            self._native = None

    def finishes_within(self, seconds: float) -> bool:
        """Whether every queue finishes the work submitted to it within ``seconds`` (polled,
        so Ctrl-C ends the wait)."""
        native = self._native
        if native is None or self._closed:
            return True
        deadline = time.monotonic() + seconds
        for queue in range(self.queue_count):
            while not native.completed(queue, native.submitted_value(queue)):
                if time.monotonic() >= deadline:
                    return False
                time.sleep(1e-3)
        return True

    def abandon(self) -> None:
        """At interpreter exit: marks the context closed and leaves its device and memory to
        the end of the process, which stops the work still queued, instead of waiting for
        that work (which nothing will read) as :meth:`close` does."""
        if not self._mark_closed():
            return
        if self._native is not None:
            self._native.abandon()
            self._native = None

    def __enter__(self) -> Context:
        self._check_open()
        pin = _Pinned(self)
        pin.token = _current.set(pin)
        return self

    def __exit__(self, *exc_info) -> None:
        pin = _current.get()
        if pin.current is not self or not isinstance(pin, _Pinned):
            raise InvalidStateError(f"'with' blocks of contexts must end in the reverse order "
                                    f"they began: leaving {self!r} while {pin.current!r} is "
                                    "current")
        _current.reset(pin.token)

    def __repr__(self) -> str:
        names = ", ".join(info.device_name for info in self.device_infos)
        state = ", closed" if self._closed else ""
        return (f"Context #{self._handle}(devices=[{names}], "
                f"queue_families={self.queue_families}{state})")


class _ContextSlot:
    """The process's global context, and every context alive (the ones left open close at
    exit, so their pipeline caches are saved and native objects freed before teardown)."""

    lock = threading.RLock()
    current: Context | None = None
    live: weakref.WeakSet[Context] = weakref.WeakSet()


class _Pinned:
    """The value of :data:`_current` inside ``with ctx:`` (``current`` is ``ctx``).

    Outside any ``with`` block the variable holds :class:`_ContextSlot` itself, whose
    ``current`` is the global context: so :func:`get_context` is one ``ContextVar.get``, one
    attribute read and one ``None`` check either way.
    """

    __slots__ = ("current", "token")

    def __init__(self, context: Context):
        self.current = context
        self.token: contextvars.Token | None = None


_current: contextvars.ContextVar = contextvars.ContextVar("vkdispatch_context",
                                                          default=_ContextSlot)


def select_queue_families(device_index: int, queue_count: int | None = None) -> list[int]:
    """Queue family indices for ``queue_count`` queues on device ``device_index``.

    The first queue uses a dedicated compute family when there is one. With ``queue_count``
    None: 2 queues (3 on NVIDIA), or 1 if the device has a single suitable family.
    """
    devices = get_devices()
    if not _is_int(device_index) or not 0 <= device_index < len(devices):
        raise IndexOutOfRangeError(f"device_index must be between 0 and {len(devices) - 1}, "
                                   f"got {device_index!r}")
    if queue_count is not None and (not _is_int(queue_count) or queue_count < 1):
        raise InvalidArgumentError(f"queue_count must be a positive integer or None, "
                                   f"got {queue_count!r}")
    count = -1 if queue_count is None else queue_count
    return _selection().select_queue_families(devices[device_index], count)


def _default_devices(device_count: int | None, use_cpu: bool, multi_device: bool) -> list[int]:
    devices = get_devices()
    selection = _selection()
    ranked = selection.rank_devices(devices, use_cpu)
    if not ranked and not use_cpu:
        ranked = selection.rank_devices(devices, True)
        if ranked:
            logger.info("no GPU found; using the CPU device '%s'", devices[ranked[0]].device_name)
    if not ranked:
        reasons = "; ".join(f"{d.device_name}: {selection.unsuitable_reason(d) or 'type'}"
                            for d in devices) or "no Vulkan devices at all"
        raise NativeError(f"no Vulkan device can run vkdispatch ({reasons}). Install a GPU "
                          "driver, or mesa-vulkan-drivers for the CPU device (lavapipe).")
    if device_count is None:
        if multi_device:
            return ranked
        device_count = 1
    if not _is_int(device_count) or not 1 <= device_count <= len(ranked):
        raise InvalidArgumentError(f"device_count must be between 1 and {len(ranked)} "
                                   f"(usable devices), got {device_count!r}")
    return ranked[:device_count]


def _default_families(device_ids: list[int], queue_counts, multi_queue: bool) -> list[list[int]]:
    if queue_counts is None:
        counts = [None if multi_queue else 1] * len(device_ids)
    elif _is_int(queue_counts):
        counts = [queue_counts] * len(device_ids)
    else:
        if not isinstance(queue_counts, (list, tuple)) or \
                not all(_is_int(count) for count in queue_counts):
            raise InvalidArgumentError(f"queue_counts must be an int or a list of ints (one "
                                       f"per device), got {queue_counts!r}")
        counts = list(queue_counts)
        if len(counts) != len(device_ids):
            raise InvalidArgumentError(f"queue_counts must have one entry per device "
                                       f"({len(device_ids)}), got {len(counts)}")
    for count in counts:
        if count is not None and not 1 <= count <= MAX_QUEUES_PER_DEVICE:  # None: the default
            raise InvalidArgumentError(f"queue_counts: each device takes 1 to "
                                       f"{MAX_QUEUES_PER_DEVICE} queues, got {queue_counts!r}")
    return [select_queue_families(dev, count) for dev, count in zip(device_ids, counts)]


def _normalize_device_ids(device_ids: Any) -> list[int]:
    if _is_int(device_ids):
        device_ids = [device_ids]
    device_ids = list(device_ids)
    count = len(get_devices())
    for dev in device_ids:
        if not _is_int(dev):
            raise InvalidArgumentError(f"device_ids must be a list of integers, got {dev!r}")
        if not 0 <= dev < count:
            raise IndexOutOfRangeError(f"device_ids: device {dev} does not exist "
                                       f"(valid: 0..{count - 1})")
    if len(set(device_ids)) != len(device_ids):
        raise InvalidArgumentError(f"device_ids must not repeat a device, got {device_ids}")
    return device_ids


def _new_context(device_ids, device_count, queue_counts, queue_families, use_cpu: bool,
                 multi_device: bool, multi_queue: bool, max_in_flight: int | None,
                 submit_window_us: int | None) -> Context:
    """Validates the arguments of make_context/create_context and makes the context."""
    runtime()
    max_in_flight = _queue_option(max_in_flight, "max_in_flight", 1, _MAX_IN_FLIGHT_LIMIT)
    submit_window_us = _queue_option(submit_window_us, "submit_window_us", 0,
                                     _SUBMIT_WINDOW_LIMIT)
    if device_ids is None:
        if queue_families is not None:
            raise InvalidArgumentError("queue_families needs device_ids: give the device of "
                                       "each list of queue families")
        device_ids = _default_devices(device_count, use_cpu, multi_device)
    device_ids = _normalize_device_ids(device_ids)
    if queue_families is None:
        queue_families = _default_families(device_ids, queue_counts, multi_queue)
    queue_families = [list(f) for f in queue_families]
    if len(queue_families) != len(device_ids):
        raise InvalidArgumentError(f"queue_families must have one list per device "
                                   f"({len(device_ids)}), got {len(queue_families)}")
    return Context(device_ids, queue_families, max_in_flight, submit_window_us)


def make_context(device_ids: int | Sequence[int] | None = None, device_count: int | None = None,
                 queue_counts: int | Sequence[int] | None = None,
                 queue_families: Sequence[Sequence[int]] | None = None, use_cpu: bool = False,
                 multi_device: bool = False, multi_queue: bool = False,
                 max_in_flight: int | None = None,
                 submit_window_us: int | None = None) -> Context:
    """Creates the process's global context, or returns the existing one.

    Args:
        device_ids: indices into :func:`vkdispatch.get_devices` (an int means one device).
            Default: the best ``device_count`` devices (discrete GPUs first; CPU devices only
            with ``use_cpu`` or when no GPU exists).
        device_count: how many devices to pick by default (1; all with ``multi_device``).
        queue_counts: queues per device (an int for all devices, or one per device).
        queue_families: per device, one queue family index per queue to create (needs
            ``device_ids``).
        use_cpu: allow CPU implementations such as lavapipe among the default devices.
        multi_device: use every suitable device.
        multi_queue: several queues per device (see :func:`select_queue_families`).
        max_in_flight: how many submissions each queue lets be unfinished at once (beyond
            vkdispatch 0.1.0); one more (a shader call, a graph submit, a transfer chunk)
            blocks until the oldest finishes, as a CUDA launch does when its queue is full,
            and Ctrl-C interrupts the wait. Default: ``$VKDISPATCH_MAX_IN_FLIGHT``, else 1024,
            which keeps a GPU fed with the smallest dispatches while bounding the memory that
            queued work holds and how long closing the context (at exit too, after Ctrl-C)
            waits for it. Any int from 1 to 4294967295.
        submit_window_us: how long, in microseconds, the calls made on a queue gather before
            one submission sends them to the device (beyond vkdispatch 0.1.0). A submission
            costs the host more than a small dispatch costs the GPU (about 7 us on an H200's
            driver against 2 us), so a script of small calls runs at the GPU's pace only when
            several travel together. Anything that waits (a read, ``vd.queue_wait_idle()``, a
            signal's ``wait`` or ``try_wait``) sends the open batch at once, so results and
            timings of a call followed by its wait are unchanged; calls that nothing waits
            for start at most about this long (plus the OS timer's slack) after they were
            made. Default: ``$VKDISPATCH_SUBMIT_WINDOW_US``, else 50; 0 submits every call at
            once. At most 1000000. Settable later as :attr:`Context.submit_window_us`.

    Raises:
        ValueError / IndexError: an argument is out of range (the message names it).

    Once a global context exists, later calls return it unchanged and log a warning if they
    asked for something else. After it was closed (:meth:`Context.close`,
    :func:`destroy_context`) the next call creates a new one.
    """
    asked = {k: v for k, v in dict(device_ids=device_ids, device_count=device_count,
                                   queue_counts=queue_counts, queue_families=queue_families,
                                   use_cpu=use_cpu, multi_device=multi_device,
                                   multi_queue=multi_queue, max_in_flight=max_in_flight,
                                   submit_window_us=submit_window_us).items()
             if v is not None and v is not False}
    with _ContextSlot.lock:
        if _ContextSlot.current is not None:
            if asked:
                logger.warning("a context already exists; make_context arguments were ignored: "
                               "%s", ", ".join(f"{k}={v!r}" for k, v in asked.items()))
            return _ContextSlot.current
        _ContextSlot.current = _new_context(device_ids, device_count, queue_counts,
                                            queue_families, use_cpu, multi_device, multi_queue,
                                            max_in_flight, submit_window_us)
        return _ContextSlot.current


def create_context(device_ids: int | Sequence[int] | None = None,
                   device_count: int | None = None,
                   queue_counts: int | Sequence[int] | None = None,
                   queue_families: Sequence[Sequence[int]] | None = None, use_cpu: bool = False,
                   multi_device: bool = False, multi_queue: bool = False,
                   max_in_flight: int | None = None,
                   submit_window_us: int | None = None) -> Context:
    """Creates a new context beside the global one (every call makes another).

    Takes the arguments of :func:`make_context`, with the same defaults and checks. The new
    context is not installed anywhere: use it with ``with ctx:`` (objects created inside the
    block belong to it) and end it with ``ctx.close()`` (or let the process exit). Several
    contexts may use the same device; each has its own queues, memory and compiled shaders.

    Raises:
        ValueError / IndexError: an argument is out of range (the message names it).
    """
    return _new_context(device_ids, device_count, queue_counts, queue_families, use_cpu,
                        multi_device, multi_queue, max_in_flight, submit_window_us)


def get_context() -> Context:
    """The current context: the one of the innermost ``with ctx:`` block of this thread (or
    asyncio task), else the process's global context, created with defaults on first use."""
    current = _current.get().current
    return current if current is not None else make_context()


def get_context_handle() -> int:
    """The ``_handle`` of :func:`get_context` (an int never reused in the process)."""
    return get_context()._handle


def is_context_initialized() -> bool:
    """Whether the process's global context exists (made and not closed)."""
    return _ContextSlot.current is not None


def queue_wait_idle(queue_index: int | None = None, context: Context | None = None) -> None:
    """Blocks until all work submitted so far to ``queue_index`` (or every queue) of
    ``context`` (default: :func:`get_context`) has finished."""
    (context or get_context()).wait_idle(queue_index)


def empty_cache() -> None:
    """Frees the memory kept for reuse on every device of the current context, as
    ``torch.cuda.empty_cache()`` does; never memory in use.

    Each device keeps up to four allocations of dropped buffers over 256 KiB and of images
    (their own, not shared with smaller buffers), together at most an eighth of their memory
    heap, and hands one to the next request of about its size (at most an eighth larger) and of
    the same memory type and exportability, with its CUDA import if it had one: a loop that
    makes and drops temporaries of one shape allocates once. A buffer dropped while work on it is still
    running is kept once that work ends. Kept memory is also freed when an allocation runs out
    of memory and when the context closes. Makes no context when there is none.
    """
    current = _current.get().current
    if current is not None and not current.closed:
        current.empty_cache()


def destroy_context() -> None:
    """Closes the global context, freeing its live objects; the next use creates a new one."""
    with _ContextSlot.lock:
        current, _ContextSlot.current = _ContextSlot.current, None
    if current is not None:
        current.close()


def open_contexts() -> list[Context]:
    """The contexts not closed yet: the global one first, then the others."""
    with _ContextSlot.lock:
        current = _ContextSlot.current
        others = [c for c in _ContextSlot.live if c is not current and not c.closed]
    return ([current] if current is not None else []) + others


def stop_threads() -> None:
    """Kept for API compatibility: the runtime has no worker threads to stop."""


_DUMMY_TRIPLETS = ("max_workgroup_size", "max_workgroup_count")


def set_dummy_context_params(subgroup_size: int | None = None, subgroup_enabled: bool | None = None,
                             max_workgroup_size=None, max_workgroup_invocations: int | None = None,
                             max_workgroup_count=None, max_shared_memory: int | None = None) -> None:
    """Overrides the fake device limits of the ``dummy`` backend (drives code generation)."""
    if runtime().backend != "dummy":
        raise InvalidStateError("set_dummy_context_params is only allowed with the 'dummy' backend")
    context = get_context()
    values = {"sub_group_size": subgroup_size, "max_workgroup_invocations":
              max_workgroup_invocations, "max_compute_shared_memory_size": max_shared_memory}
    names = {"sub_group_size": "subgroup_size",
             "max_compute_shared_memory_size": "max_shared_memory"}
    updates = {}
    for field, value in values.items():
        if value is not None:
            if not _is_int(value) or value <= 0:
                raise InvalidArgumentError(f"{names.get(field, field)} must be a positive "
                                           f"integer, got {value!r}")
            updates[field] = value
    for field, value in zip(_DUMMY_TRIPLETS, (max_workgroup_size, max_workgroup_count)):
        if value is not None:
            value = tuple(value)
            if len(value) != 3 or not all(_is_int(v) and v > 0 for v in value):
                raise InvalidArgumentError(f"{field} must contain exactly 3 positive integers, "
                                           f"got {value!r}")
            updates[field] = value
    if subgroup_enabled is not None:
        if not isinstance(subgroup_enabled, bool):
            raise InvalidArgumentError(f"subgroup_enabled must be a bool, got {subgroup_enabled!r}")
    for info in context.device_infos:
        for field, value in updates.items():
            setattr(info, field, value)
        if subgroup_enabled is not None:
            info.supported_stages = (info.supported_stages | 0x20 if subgroup_enabled
                                     else info.supported_stages & ~0x20)
            info.supported_operations = (info.supported_operations | 0x4 if subgroup_enabled
                                         else info.supported_operations & ~0x4)
        info.uniform_buffer_alignment = 0
    context.refresh_limits_from_device_infos()

