# Reference costs of plain Vulkan (included by wrapper.pyx), measured beside vkdispatch's own by
# benchmarks/ and the latency tests (src/bench/).


def raw_dependent_dispatch_us(NativeContext ctx, int count, bint barriers=True):
    """Reference cost (us) per dispatch of ``count`` dependent tiny dispatches recorded with
    plain Vulkan into one command buffer, submitted once and waited for (queue 0, which no other
    thread may use meanwhile); without ``barriers`` the dispatches race (the cost of a dispatch
    with no dependency, for comparison)."""
    cdef double result
    ctx.enter()
    try:
        with nogil:
            result = cp.rawDependentDispatchMicroseconds(ctx.ptr.get()[0], count, barriers)
    finally:
        ctx.leave()
    _check_validation()
    return result


def raw_back_to_back_us(NativeContext ctx, int dispatches, int per_submit=1):
    """Reference cost (us) per dispatch of ``dispatches`` dependent tiny dispatches submitted
    back to back with plain Vulkan, ``per_submit`` command buffers per vkQueueSubmit, each
    submission signalling a timeline semaphore, then one wait (queue 0, which no other thread
    may use meanwhile): with ``per_submit=1``, the driver's floor for a script that submits
    every call."""
    cdef double result
    ctx.enter()
    try:
        with nogil:
            result = cp.rawBackToBackMicroseconds(ctx.ptr.get()[0], dispatches, per_submit)
    finally:
        ctx.leave()
    _check_validation()
    return result


def raw_timeline_submit_wait_us(NativeContext ctx, int iterations):
    """``raw_submit_wait_us(poll=True)`` signalling a timeline semaphore instead of a fence and
    polling its counter (the runtime's kind of wait; see raw_submit.hpp)."""
    cdef double result
    ctx.enter()
    try:
        with nogil:
            result = cp.rawTimelineSubmitWaitMicroseconds(ctx.ptr.get()[0], iterations)
    finally:
        ctx.leave()
    _check_validation()
    return result


def raw_read_us(NativeContext ctx, int iterations, uint64_t nbytes, bint rerecord=False):
    """Reference latency (us) of a plain-Vulkan host read of ``nbytes`` of a device buffer on
    queue 0 (staging copy, fence polled, memcpy), its command buffer recorded once or, with
    ``rerecord``, before every read; the queue must not be used by other threads meanwhile."""
    cdef double result
    ctx.enter()
    try:
        with nogil:
            result = cp.rawReadMicroseconds(ctx.ptr.get()[0], iterations, nbytes, rerecord)
    finally:
        ctx.leave()
    _check_validation()
    return result


_RAW_ENTRIES = {"none": cp.RawEntry.None, "runtime": cp.RawEntry.Runtime,
                "full": cp.RawEntry.Full}


def queue_phases_us(NativeContext ctx, int iterations, str raw_entry=None):
    """Mean microseconds per phase of a tiny submission + wait on queue 0 (see
    queue_phases.hpp): ``{"record", "submit", "device", "wait"}``, for the runtime's queue or,
    with ``raw_entry``, plain Vulkan, its fill preceded by no barrier (``"none"``), the
    runtime's entry barrier (``"runtime"``) or a full one (``"full"``); the queue must not be
    used by other threads meanwhile."""
    if raw_entry is not None and raw_entry not in _RAW_ENTRIES:
        raise ValueError(f"raw_entry: expected None or one of {sorted(_RAW_ENTRIES)}, got "
                         f"{raw_entry!r}")
    cdef cp.QueuePhases phases
    cdef cp.RawEntry entry = _RAW_ENTRIES.get(raw_entry, cp.RawEntry.None)
    cdef bint raw = raw_entry is not None
    ctx.enter()
    try:
        with nogil:
            if raw:
                phases = cp.rawQueuePhases(ctx.ptr.get()[0], iterations, entry)
            else:
                phases = cp.runtimeQueuePhases(ctx.ptr.get()[0], iterations)
    finally:
        ctx.leave()
    _check_validation()
    return {"record": phases.record, "submit": phases.submit, "device": phases.device,
            "wait": phases.wait}


def raw_submit_wait_us(NativeContext ctx, int iterations, bint poll=False):
    """Reference latency (us) of a plain-Vulkan submit + fence wait (blocking, or polling when
    ``poll``) of a tiny dispatch on queue 0 (see raw_submit.hpp); the queue must not be used by
    other threads meanwhile."""
    cdef double result
    ctx.enter()
    try:
        with nogil:
            result = cp.rawSubmitWaitMicroseconds(ctx.ptr.get()[0], iterations, poll)
    finally:
        ctx.leave()
    _check_validation()
    return result
