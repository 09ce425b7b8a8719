# Contexts (included by wrapper.pyx after closable.pxi): a NativeContext owns the devices, queues
# and transfer engine of one context and closes the objects made in it (_open_context) first.
import weakref

from cpython.ref cimport Py_INCREF


cdef class NativeContext(Closable):
    """Devices, queues and the transfer engine of one context."""
    cdef NativeInstance instance
    cdef unique_ptr[rt.Context] ptr
    cdef unique_ptr[rt.TransferEngine] transfers
    cdef object compute_objects  # WeakSet of buffers, plans, sets, lists, caches: closed first

    def __cinit__(self, NativeInstance instance, list device_indices, list queue_families,
                  uint64_t chunk_bytes=16 << 20, int chunk_count=3, int copy_threads=0,
                  bint map_directly=True, uint32_t max_in_flight=rt.kDefaultMaxInFlight,
                  submit_window_us=None):
        cdef vector[int] devices = device_indices
        cdef vector[vector[int]] families = queue_families
        cdef rt.TransferOptions options
        options.chunk_bytes = chunk_bytes
        options.chunk_count = chunk_count
        options.copy_threads = copy_threads
        options.map_directly = map_directly
        self.instance = instance
        self.what = "the context"
        self.compute_objects = weakref.WeakSet()
        self.ptr.reset(new rt.Context(instance.ptr.get()[0], devices, families))
        self.ptr.get().setMaxInFlight(max_in_flight)
        if submit_window_us is not None:
            self.submit_window_us = submit_window_us
        self.transfers.reset(new rt.TransferEngine(self.ptr.get()[0], options))
        _check_validation()

    def __dealloc__(self):
        # Cython would destroy the members in declaration order, the context before the
        # transfer engine that waits on its queues (a context never closed, or whose close()
        # Ctrl-C cut short at exit): the engine goes first, as in close().
        self.transfers.reset()
        self.ptr.reset()

    @property
    def queue_count(self):
        self.check_open()
        return self.ptr.get().queueCount()

    @property
    def max_in_flight(self):
        """Submissions a queue lets be unfinished at once; one more waits for the oldest."""
        self.check_open()
        return self.ptr.get().maxInFlight()

    @property
    def submit_window_us(self):
        """How long each queue's open batch of calls waits for more before one submission
        sends it (0: every call is submitted at once)."""
        self.check_open()
        return self.ptr.get().submitWindow().count()

    @submit_window_us.setter
    def submit_window_us(self, int64_t window):
        self.check_open()
        self.ptr.get().setSubmitWindow(rt.microseconds(window))

    def start_profiling(self):
        """Records GPU timestamps around every command submitted from now on (profiler.hpp);
        False, changing nothing, when a profile is recording already."""
        self.check_open()
        cdef shared_ptr[rt.Profiler] profiler = make_shared[rt.Profiler](self.ptr.get()[0])
        cdef shared_ptr[rt.Profiler] previous = self.ptr.get().setProfiler(profiler)
        if previous.get() != NULL:
            self.ptr.get().setProfiler(previous)
            return False
        return True

    def stop_profiling(self, bint calibrated=True):
        """Stops recording, waits for the work submitted so far and returns its events,
        ``(name, queue, start_ns, end_ns)`` tuples in each device's clock, and per queue the
        alignment of its clock with the host's steady clock (profiler.hpp: ClockAlignment):
        ``(device ns, host ns, "calibrated"/"measured"/"none", error ns)``, measured unless
        ``calibrated`` and the device calibrates its timestamps."""
        self.check_open()
        cdef shared_ptr[rt.Profiler] profiler = self.ptr.get().setProfiler(
            shared_ptr[rt.Profiler]())
        cdef vector[rt.ProfileEvent] events
        cdef rt.ClockAlignment moment
        cdef int queue
        if profiler.get() == NULL:
            return [], []
        moments = []
        self.enter()  # another thread may close the context while the GIL is free
        try:
            with nogil:
                self.ptr.get().waitIdle(-1)
            events = profiler.get().take()
            for queue in range(self.ptr.get().queueCount()):
                with nogil:
                    moment = profiler.get().align(queue, calibrated)
                moments.append((moment.device_ns, moment.host_ns, moment.name().decode(),
                                moment.error_ns))
        finally:
            self.leave()
        _check_validation()
        return [(event.name.decode(), event.queue, event.start_ns, event.end_ns)
                for event in events], moments

    def wait_idle(self, int queue_index=-1):
        """Waits for all work submitted to one queue, or to every queue when -1."""
        self.enter()
        try:
            with nogil:
                self.ptr.get().waitIdle(queue_index)
        finally:
            self.leave()
        _check_validation()

    def empty_cache(self):
        """Frees the memory each device keeps for reuse (never memory in use); how many
        allocations that was."""
        cdef size_t freed
        self.enter()
        try:
            with nogil:
                freed = self.ptr.get().emptyCache()
        finally:
            self.leave()
        return freed

    def kept_memory(self, int queue_index):
        """``(allocations kept for reuse, requests they served so far)`` of the memory pool of
        the device owning a queue (for tests)."""
        self.check_open()
        cdef rt.MemoryPool* pool = &self.ptr.get().deviceOfQueue(queue_index).memoryPool()
        return pool.keptCount(), pool.reuseCount()

    def submitted_value(self, int queue_index):
        """Timeline value of the latest submission to a queue (0 before any)."""
        self.check_open()
        return self.ptr.get().queue(queue_index, b"queue_index").lastSubmitted()

    def completed(self, int queue_index, uint64_t value):
        """Whether the work up to ``value`` has finished; asking sends it if it still waits in
        the queue's open batch (whoever asks wants it to run)."""
        self.check_open()
        cdef rt.Queue* queue = &self.ptr.get().queue(queue_index, b"queue_index")
        queue.flushThrough(value)
        return queue.completed(value)

    def wait(self, int queue_index, uint64_t value):
        self.check_open()
        cdef rt.Queue* queue = &self.ptr.get().queue(queue_index, b"queue_index")
        self.enter()
        try:
            with nogil:
                queue.wait(value)
        finally:
            self.leave()
        _check_validation()

    def queue_device_index(self, int queue_index):
        """Position in the context's device list of the device that owns a queue."""
        self.check_open()
        return self.ptr.get().deviceIndexOfQueue(queue_index)

    def close(self):
        """Frees the context now (after its queues finish) instead of at garbage collection, or
        once the calls on it or its objects in other threads return.

        Objects still open (buffers, plans, descriptor sets, command lists, pipeline caches)
        are closed first, so no native object outlives its device.
        """
        if not self.closed:
            for obj in list(self.compute_objects):
                obj.close()
            self.compute_objects.clear()
        Closable.close(self)

    def abandon(self):
        """Marks the context closed and leaves its native objects to the end of the process,
        which stops its queued work, instead of waiting for that work (at interpreter exit)."""
        self.closed = True
        self.transfers.release()
        self.ptr.release()
        Py_INCREF(self.instance)  # the instance must outlive the device it leaves running

    cdef int free(self) except -1:
        with nogil:  # waits for the queues, whose threads may need the GIL to log meanwhile
            self.transfers.reset()
            self.ptr.reset()
        return 0


DEFAULT_MAX_IN_FLIGHT = rt.kDefaultMaxInFlight


cdef rt.Context* _open_context(NativeContext ctx, Closable owner, str what) except NULL:
    """The native context of ``ctx``, which will close ``owner`` (``what``, for errors) before
    itself."""
    ctx.check_open()
    owner.parent = ctx
    owner.what = what
    ctx.compute_objects.add(owner)
    return ctx.ptr.get()
