# cython: language_level=3, boundscheck=False, wraparound=False
"""The bridge between the native runtime (C++) and the vkdispatch Python package.

Native objects are owned by the ``cdef class`` wrappers below; C++ exceptions become the Python
classes that ``vkdispatch.base`` installs with :func:`set_error_classes`. Calls that may wait on
the GPU or copy large amounts of memory release the GIL.
"""
import threading
import weakref

from cpython.exc cimport PyErr_Occurred
from cpython.ref cimport Py_INCREF
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy
from libcpp cimport bool as cbool
from libcpp.memory cimport make_shared, shared_ptr, unique_ptr
from libcpp.string cimport string
from libcpp.utility cimport move, pair
from libcpp.vector cimport vector
cimport numpy as cnp

from c_device_info cimport array3, DeviceInfo, DeviceType, QueueFamilyInfo, rankDevices
from c_device_info cimport selectQueueFamilies
from c_errors cimport kInterrupted, setRaiseFunction
from c_log cimport LogLevel, log as native_log, setInterruptCheck, setLogLevel, setLogSink
from c_log cimport deliverDeferredLogs, setDeliveryCheck
from c_log cimport recordValidationError, takeValidationErrors
cimport c_compute as cp
cimport c_vkfft as vf
cimport c_runtime as rt

cnp.import_array()  # numpy's C API: reads into new arrays, kp's host views

# Python exception classes by native error kind (see error_translation.hpp), plus "validation".
_error_classes = {}
_log_handler = None


def set_error_classes(classes):
    """Installs the exception classes: a dict from kind name to class."""
    _error_classes.clear()
    _error_classes.update(classes)


cdef object _class_for(str name):
    return _error_classes.get(name, RuntimeError)


_KIND_NAMES = ("runtime", "vulkan", "out_of_memory", "device_lost", "invalid_argument",
               "index_out_of_range", "interrupted", "unavailable")


cdef int _raise(int kind, const string& message, const string& result_name) except -1:
    deliverDeferredLogs()  # what was logged before the failure, before the error
    if kind == kInterrupted:
        if PyErr_Occurred():
            return -1  # the KeyboardInterrupt raised by the signal check propagates
        raise KeyboardInterrupt()
    text = message.decode("utf-8", "replace")
    # What the validation layer reported inside the failed call explains this error: raised
    # with it, not by the next, unrelated call (_check_validation runs only after successes).
    cdef vector[string] validation = takeValidationErrors()
    if validation.size():
        text += "\nVulkan validation errors during this call:\n" + "\n".join(
            e.decode("utf-8", "replace") for e in validation)
    error = _class_for(_KIND_NAMES[kind])(text)
    if result_name.size():
        error.result = result_name.decode()
    raise error


cdef extern from "Python.h":
    # Declared without an exception value on purpose: the KeyboardInterrupt it sets must stay
    # pending (to be raised by _raise once the native wait unwinds), not be reported here.
    int check_signals_leaving_error_set "PyErr_CheckSignals"()
    unsigned long PyThread_get_thread_ident() nogil
    int PyGILState_Check() nogil


# Python runs signal handlers on the main thread only: elsewhere the check would always say no,
# and taking the GIL for it could deadlock a wait (a waiting submitter may hold a lock that a
# thread holding the GIL waits for).
cdef unsigned long _main_thread = threading.main_thread().ident


cdef cbool _interrupt_pending() noexcept nogil:
    if PyThread_get_thread_ident() != _main_thread:
        return False
    with gil:
        return check_signals_leaving_error_set() != 0


cdef void _log_sink(int level, const char* message, void* user) noexcept with gil:
    handler = _log_handler
    if handler is None:
        return
    try:
        handler(level, message.decode("utf-8", "replace"))
    except BaseException:
        pass  # a failing log handler must never abort the native operation that logged


# A thread without the GIL defers its messages (see log.hpp): taking the GIL inside a Vulkan
# call deadlocked a debug-mode process on an H200, the layer's printf callback waiting for the
# GIL on the submitting thread while the main thread, GIL held, waited in the layer for a lock
# that callback held. _check_validation delivers them after the next native call.
cdef cbool _holds_gil() noexcept nogil:
    return PyGILState_Check() != 0


setRaiseFunction(_raise)
setInterruptCheck(_interrupt_pending)
setLogSink(_log_sink, NULL)
setDeliveryCheck(_holds_gil)


def set_log_handler(handler):
    """Routes native log messages to ``handler(level: int, message: str)``."""
    global _log_handler
    _log_handler = handler


def set_log_level(int level):
    """Native messages below ``level`` (0 verbose .. 3 error) are dropped before formatting."""
    setLogLevel(<LogLevel>level)


def log(int level, str message):
    native_log(<LogLevel>level, message.encode())


cdef int _check_validation() except -1:
    """Raises the ``validation`` class if the validation layer reported errors since last time.

    Called after every native operation, so the error surfaces at the call that caused it;
    delivers the log messages that other threads (or this one, without the GIL) deferred.
    """
    deliverDeferredLogs()
    cdef vector[string] errors = takeValidationErrors()
    if errors.size():
        raise _class_for("validation")(
            "Vulkan validation error:\n" + "\n".join(e.decode("utf-8", "replace") for e in errors))
    return 0


def inject_validation_error(str message):
    """Records a fake validation error (fault injection for tests of the reporting path)."""
    recordValidationError(message.encode())


cdef dict _device_dict(DeviceInfo d):
    return {
        "dev_index": d.index,
        "version_variant": d.version_variant,
        "version_major": d.version_major,
        "version_minor": d.version_minor,
        "version_patch": d.version_patch,
        "driver_version": d.driver_version,
        "vendor_id": d.vendor_id,
        "device_id": d.device_id,
        "device_type": <int>d.device_type,
        "device_name": d.device_name.decode("utf-8", "replace"),
        "shader_buffer_float32_atomics": int(d.shader_buffer_float32_atomics),
        "shader_buffer_float32_atomic_add": int(d.shader_buffer_float32_atomic_add),
        "float_64_support": int(d.float_64_support),
        "float_16_support": int(d.float_16_support),
        "int_64_support": int(d.int_64_support),
        "int_16_support": int(d.int_16_support),
        "storage_buffer_16_bit_access": int(d.storage_buffer_16_bit_access),
        "uniform_and_storage_buffer_16_bit_access":
            int(d.uniform_and_storage_buffer_16_bit_access),
        "storage_push_constant_16": int(d.storage_push_constant_16),
        "storage_input_output_16": int(d.storage_input_output_16),
        "max_workgroup_size": tuple(d.max_workgroup_size[i] for i in range(3)),
        "max_workgroup_invocations": d.max_workgroup_invocations,
        "max_workgroup_count": tuple(d.max_workgroup_count[i] for i in range(3)),
        "max_bound_descriptor_sets": d.max_bound_descriptor_sets,
        "max_push_constant_size": d.max_push_constant_size,
        "max_storage_buffer_range": d.max_storage_buffer_range,
        "max_uniform_buffer_range": d.max_uniform_buffer_range,
        "uniform_buffer_alignment": d.uniform_buffer_alignment,
        "sub_group_size": d.sub_group_size,
        "supported_stages": d.supported_stages,
        "supported_operations": d.supported_operations,
        "quad_operations_in_all_stages": int(d.quad_operations_in_all_stages),
        "max_compute_shared_memory_size": d.max_compute_shared_memory_size,
        "queue_properties": [(d.queue_families[i].queue_count, d.queue_families[i].flags)
                             for i in range(d.queue_families.size())],
        "scalar_block_layout": int(d.scalar_block_layout),
        "timeline_semaphores": int(d.timeline_semaphores),
        "uuid": bytes([d.uuid[i] for i in range(16)]) if d.has_uuid else None,
    }


cdef DeviceInfo _device_from(object info) except *:
    """Builds the fields the pure selection logic reads from a Python DeviceInfo-like object."""
    cdef DeviceInfo d
    cdef QueueFamilyInfo family
    d.index = info.dev_index
    d.device_type = <DeviceType>(<int>info.device_type)
    d.device_name = info.device_name.encode()
    d.timeline_semaphores = bool(info.timeline_semaphores)
    d.scalar_block_layout = bool(info.scalar_block_layout)
    for count, flags in info.queue_properties:
        family.queue_count = count
        family.flags = flags
        d.queue_families.push_back(family)
    return d


def rank_devices(list infos, bint use_cpu):
    """Positions in ``infos`` of the devices a default context may use, best first."""
    cdef vector[DeviceInfo] devices
    for info in infos:
        devices.push_back(_device_from(info))
    return list(rankDevices(devices, use_cpu))


def select_queue_families(info, int queue_count):
    """Queue family per queue for device ``info``; ``queue_count < 0`` picks the default."""
    return list(selectQueueFamilies(_device_from(info), queue_count))


def unsuitable_reason(info):
    """Why device ``info`` cannot host a context ("" when it can)."""
    return _device_from(info).unsuitable_reason().decode()


cdef class NativeInstance:
    """The Vulkan instance and its enumerated physical devices."""
    cdef unique_ptr[rt.Instance] ptr

    def __cinit__(self, bint debug=False):
        cdef rt.InstanceOptions options
        options.debug = debug
        self.ptr.reset(new rt.Instance(options))
        _check_validation()

    @property
    def debug(self):
        return self.ptr.get().debug()

    def devices(self):
        cdef vector[DeviceInfo] devices = self.ptr.get().devices()
        return [_device_dict(devices[i]) for i in range(devices.size())]


include "closable.pxi"


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


cdef class NativeBuffer(Closable):
    """Device memory with one replica per queue of its context."""
    cdef NativeContext context
    cdef unique_ptr[rt.Buffer] ptr
    # CUDA mappings of the replicas, made by the first CUDA view of each (dlpack.pxi) and kept
    # until the buffer is freed: importing memory into CUDA costs far more than a view.
    cdef vector[rt.CudaView*] cuda_views
    cdef object __weakref__

    def __cinit__(self, NativeContext context, uint64_t size):
        cdef rt.Context* native_ctx = _open_context(context, self, "the buffer")
        self.context = context
        self.ptr.reset(new rt.Buffer(native_ctx[0], size))
        _check_validation()

    cdef int free(self) except -1:
        cdef rt.CudaView* view
        for view in self.cuda_views:
            del view  # unmapped before the memory goes
        self.cuda_views.clear()
        self.ptr.reset()
        return 0

    @property
    def size(self):
        self.check_open()
        return self.ptr.get().size()

    def host_visible(self, int queue_index):
        """Whether replica ``queue_index`` lies in host-visible coherent memory (a DLPack CPU
        view of it is possible)."""
        self.check_open()
        return self.ptr.get().hostVisible(queue_index)

    def copies_on_device(self, int src, int dst):
        """Whether replica ``src`` can be copied into ``dst`` without the host (one device)."""
        self.check_open()
        return rt.copiesOnDevice(self.ptr.get()[0], src, dst)

    def copy_replica_on_device(self, int src, NativeBuffer target, int dst,
                               uint64_t dst_offset=0):
        """Copies replica ``src`` into replica ``dst`` of ``target`` (a buffer of the same
        context) from byte ``dst_offset``, on the device; returns without waiting."""
        cdef list entered = []
        _enter_all([self, target], entered)
        try:
            with nogil:
                rt.copyReplicaOnDevice(self.ptr.get()[0], src, target.ptr.get()[0], dst,
                                       dst_offset)
        finally:
            _leave_all(entered)
        _check_validation()

    def copy_replica_through_host(self, int src, NativeBuffer target, int dst,
                                  uint64_t dst_offset=0):
        """Copies replica ``src`` into replica ``dst`` (of another queue) of ``target`` from
        byte ``dst_offset`` through pinned host staging memory; returns once the source was
        read and later work on queue ``dst`` will see the bytes."""
        cdef list entered = []
        _enter_all([self, target], entered)
        try:
            with nogil:
                self.context.transfers.get().copy(self.ptr.get()[0], src, target.ptr.get()[0],
                                                  dst, dst_offset)
        finally:
            _leave_all(entered)
        _check_validation()

    def write(self, const uint8_t[::1] data, uint64_t offset=0, int queue_index=-1):
        """Copies ``data`` (bytes) to ``offset`` of one replica, or every replica when -1."""
        cdef const void* src = &data[0] if data.shape[0] else NULL
        cdef uint64_t size = data.shape[0]
        self.enter()
        try:
            with nogil:
                self.context.transfers.get().write(self.ptr.get()[0], src, size, offset,
                                                   queue_index)
        finally:
            self.leave()
        _check_validation()

    def read_new(self, int type_number, tuple shape, int queue_index):
        """A new C-contiguous array of numpy type ``type_number`` and ``shape`` (the whole
        buffer's bytes) filled from replica ``queue_index``: ``read(0)`` without a memoryview,
        a byte array and a view on the way (about 1 us of a small read's host time)."""
        cdef int ndim = len(shape)
        cdef cnp.npy_intp dims[8]
        if ndim > 8:
            raise ValueError(f"shape: at most 8 dimensions, got {ndim}")
        for axis in range(ndim):
            dims[axis] = shape[axis]
        cdef cnp.ndarray array = cnp.PyArray_SimpleNew(ndim, dims, type_number)
        cdef uint64_t size = cnp.PyArray_NBYTES(array)
        if size != self.size:
            raise ValueError(f"shape: {shape} of type {type_number} holds {size} bytes, the "
                             f"buffer {self.size}")
        cdef void* dst = cnp.PyArray_DATA(array)
        self.enter()
        try:
            with nogil:
                self.context.transfers.get().read(self.ptr.get()[0], dst, size, 0, queue_index)
        finally:
            self.leave()
        _check_validation()
        return array

    def read_into(self, uint8_t[::1] out, uint64_t offset=0, int queue_index=0):
        """Fills ``out`` (bytes) from ``offset`` of replica ``queue_index``."""
        cdef void* dst = &out[0] if out.shape[0] else NULL
        cdef uint64_t size = out.shape[0]
        self.enter()
        try:
            with nogil:
                self.context.transfers.get().read(self.ptr.get()[0], dst, size, offset,
                                                  queue_index)
        finally:
            self.leave()
        _check_validation()


DEFAULT_MAX_IN_FLIGHT = rt.kDefaultMaxInFlight


def live_buffer_count():
    """Native buffers alive in this process (for leak tests)."""
    return rt.Buffer.liveCount()


cdef unique_ptr[rt.Compiler] _compiler


def compile_glsl(str source, str name="shader", int optimization=2):
    """Compiles a GLSL compute shader. Returns ``(ok, spirv: bytes, log: str)``."""
    global _compiler
    if not _compiler:
        _compiler.reset(new rt.Compiler())
    cdef string src = source.encode()
    cdef string label = name.encode()
    cdef rt.CompileResult result
    with nogil:
        result = _compiler.get().compileCompute(src, label, <rt.Optimization>optimization)
    cdef bytes spirv = b""
    if result.spirv.size():
        spirv = (<char*>result.spirv.data())[:result.spirv.size() * 4]
    return bool(result.ok), spirv, result.log.decode("utf-8", "replace")


def compiler_version():
    return rt.Compiler.version().decode()


# -- compute: pipeline caches, plans, descriptor sets, command lists --------------------------


cdef int _invalid(str message) except -1:
    raise _class_for("invalid_argument")(message)


cdef rt.Context* _open_context(NativeContext ctx, Closable owner, str what) except NULL:
    """The native context of ``ctx``, which will close ``owner`` (``what``, for errors) before
    itself."""
    ctx.check_open()
    owner.parent = ctx
    owner.what = what
    ctx.compute_objects.add(owner)
    return ctx.ptr.get()


cdef class NativePipelineCache(Closable):
    """One VkPipelineCache per device of a context, persisted in the files ``paths`` names."""
    cdef NativeContext context
    cdef unique_ptr[cp.PipelineCache] ptr
    cdef object __weakref__

    def __cinit__(self, NativeContext ctx, list paths):
        cdef rt.Context* native_ctx = _open_context(ctx, self, "the pipeline cache")
        cdef vector[string] files
        for path in paths:
            files.push_back(str(path).encode())
        self.context = ctx
        self.ptr.reset(new cp.PipelineCache(native_ctx[0], files))
        _check_validation()

    def loaded(self, int device_index):
        """Whether device ``device_index``'s file was loaded (exists and matches the device)."""
        self.check_open()
        return self.ptr.get().loaded(device_index)

    def save(self):
        """Writes every device's cache to its file (atomically: temporary file + rename)."""
        self.enter()
        try:
            with nogil:
                self.ptr.get().save()
        finally:
            self.leave()
        _check_validation()

    cdef int free(self) except -1:
        self.ptr.reset()
        return 0


cdef class NativeComputePlan(Closable):
    """A compute pipeline (SPIR-V, bindings, push-constant size) on every device."""
    cdef NativeContext context
    cdef unique_ptr[cp.ComputePlan] ptr
    cdef object __weakref__
    cdef readonly str name

    def __cinit__(self, NativeContext ctx, bytes spirv not None, list bindings, int pc_size,
                  str name, NativePipelineCache cache=None):
        cdef rt.Context* native_ctx = _open_context(ctx, self, f"the compute plan '{name}'")
        cdef string label = name.encode()
        cdef vector[cp.BindingType] types
        cdef cp.PipelineCache* native_cache = NULL
        cdef uint32_t size
        if pc_size < 0:
            _invalid(f"pc_size: the push-constant size of '{name}' must be >= 0, got {pc_size}")
        size = pc_size
        for code in bindings:
            types.push_back(<cp.BindingType>(<int>code))
        cdef list entered = []
        cdef vector[uint32_t] words = cp.spirvFromBytes(<const uint8_t*><const char*>spirv,
                                                        len(spirv), label)
        self.context = ctx
        self.name = name
        _enter_all([self] if cache is None else [self, cache], entered)
        try:
            if cache is not None:
                native_cache = cache.ptr.get()
            with nogil:
                self.ptr.reset(new cp.ComputePlan(native_ctx[0], words, types, size, label,
                                                  native_cache))
        finally:
            _leave_all(entered)
        _check_validation()

    @property
    def pc_size(self):
        self.check_open()
        return self.ptr.get().pushConstantSize()

    cdef int free(self) except -1:
        self.ptr.reset()
        return 0

    def dispatch_on_replicas(self, int queue_index, list bindings, bytes push_constants,
                             uint32_t groups_x):
        """Runs the plan once on queue ``queue_index``, binding i bound to replica
        ``bindings[i][1]`` of NativeBuffer ``bindings[i][0]`` (replicas of any queues of its
        device); returns without waiting."""
        cdef vector[cp.ReplicaBinding] natives
        cdef cp.ReplicaBinding binding
        cdef NativeBuffer buffer
        cdef vector[uint8_t] pc = push_constants
        cdef list entered = []
        _enter_all([self] + [<NativeBuffer?>entry for entry, _ in bindings], entered)
        try:
            for entry, replica in bindings:
                buffer = entry
                binding.buffer = buffer.ptr.get()
                binding.replica = replica
                natives.push_back(binding)
            with nogil:
                cp.dispatchOnReplicas(self.ptr.get()[0], queue_index, natives, pc, groups_x)
        finally:
            _leave_all(entered)
        _check_validation()


cdef class NativeVkfftPlan(Closable):
    """A VkFFT transform of one geometry, built on every device of a context.

    ``size`` is in VkFFT's order (the contiguous axis first), padded to three entries with 1s;
    ``binaries`` (one ``bytes`` per device, or empty) are kernels an earlier plan of the same
    geometry saved, loaded instead of compiled; ``cache`` (optional) is the context's pipeline
    cache, which VkFFT's pipelines are created through.
    """
    cdef NativeContext context
    cdef NativePipelineCache cache  # kept alive while the plan may build applications
    cdef unique_ptr[vf.VkfftPlan] ptr
    cdef object __weakref__

    def __cinit__(self, NativeContext ctx, int dimensions, tuple size, tuple omitted,
                  uint64_t batches=1, bint double_precision=False, bint r2c=False,
                  bint normalize=False, tuple pad_left=(0, 0, 0), tuple pad_right=(0, 0, 0),
                  bint frequency_zeropadding=False, uint32_t kernel_count=0,
                  bint kernel_convolution=False, uint32_t conjugate_convolution=0,
                  uint32_t coordinate_features=1, uint64_t input_bytes=0,
                  bint keep_shader_code=False, uint32_t runs=1, list binaries=None,
                  NativePipelineCache cache=None):
        cdef rt.Context* native_ctx = _open_context(ctx, self, "the VkFFT plan")
        cdef cp.PipelineCache* native_cache = NULL
        cdef vf.VkfftGeometry g
        cdef list entered = []
        cdef vector[vector[uint32_t]] words
        cdef int d
        g.dimensions = dimensions
        for d in range(3):
            g.size[d] = size[d]
            g.omitted[d] = bool(omitted[d])
            g.pad_left[d] = pad_left[d]
            g.pad_right[d] = pad_right[d]
        g.batches = batches
        g.precision = vf.VkfftPrecision.Double if double_precision else vf.VkfftPrecision.Single
        g.r2c = r2c
        g.normalize = normalize
        g.frequency_zeropadding = frequency_zeropadding
        g.kernel_count = kernel_count
        g.kernel_convolution = kernel_convolution
        g.conjugate_convolution = conjugate_convolution
        g.coordinate_features = coordinate_features
        g.input_bytes = input_bytes
        g.keep_shader_code = keep_shader_code
        g.runs = runs
        for blob in binaries or ():
            words.push_back(_words_of(blob))
        self.context = ctx
        self.cache = cache
        _enter_all([self] if cache is None else [self, cache], entered)
        try:
            if cache is not None:
                native_cache = cache.ptr.get()
            with nogil:
                self.ptr.reset(new vf.VkfftPlan(native_ctx[0], g, words, native_cache))
        finally:
            _leave_all(entered)
        _check_validation()

    cdef int free(self) except -1:
        self.ptr.reset()
        return 0

    @property
    def buffer_bytes(self):
        """Bytes of the data buffer the transform works on (every run)."""
        self.check_open()
        return self.ptr.get().geometry().bufferBytes()

    @property
    def kernel_bytes(self):
        """Bytes of the kernel a convolution reads (every run; 0 for other plans)."""
        self.check_open()
        return self.ptr.get().geometry().kernelBytes()

    def binaries(self):
        """The kernels of each device (``bytes``), to pass to a later plan."""
        self.check_open()
        cdef vector[vector[uint32_t]] words = self.ptr.get().binaries()
        return [(<const char*>w.data())[:w.size() * 4] if w.size() else b"" for w in words]


cdef vector[uint32_t] _words_of(bytes blob) except *:
    if len(blob) % 4:
        _invalid(f"binaries: a saved VkFFT binary is whole 32-bit words, got {len(blob)} bytes")
    cdef vector[uint32_t] words
    words.resize(len(blob) // 4)
    if len(blob):
        memcpy(words.data(), <const char*>blob, len(blob))
    return words


def vkfft_result_name(int result):
    """The name of a VkFFTResult code."""
    return vf.vkfftResultName(result).decode()


def vkfft_version():
    """VkFFT's version, major * 10000 + minor * 100 + patch."""
    return vf.vkfftVersion()


def live_compute_plan_count():
    """Native compute plans alive in this process (for leak tests)."""
    return cp.ComputePlan.liveCount()


def live_descriptor_set_count():
    """Native descriptor sets alive in this process (for leak tests)."""
    return cp.DescriptorSet.liveCount()


include "dlpack.pxi"
include "image.pxi"


cdef class NativeDescriptorSet(Closable):
    """The buffers one dispatch of a plan uses, one descriptor set per queue."""
    cdef NativeComputePlan plan
    cdef unique_ptr[cp.DescriptorSet] ptr
    cdef object __weakref__
    cdef dict bound  # binding -> NativeBuffer: keeps bound buffers alive as long as the set
    cdef dict images  # binding -> (NativeImage, NativeSampler), kept alive likewise

    def __cinit__(self, NativeComputePlan plan):
        plan.check_open()
        _open_context(plan.context, self, f"a descriptor set of '{plan.name}'")
        self.plan = plan
        self.bound = {}
        self.images = {}
        self.ptr.reset(new cp.DescriptorSet(plan.ptr.get()[0]))
        _check_validation()

    cdef int check_bound(self, int rebinding=-1) except -1:
        """Raises unless the set, its plan and its bound buffers (but ``rebinding``) are open."""
        self.check_open()
        self.plan.check_open()
        for binding, buffer in self.bound.items():
            if binding != rebinding and (<NativeBuffer>buffer).closed:
                raise _class_for("closed")(
                    f"binding {binding} of '{self.plan.name}': the bound buffer was closed")
        for binding, (image, sampler) in self.images.items():
            if binding != rebinding and ((<NativeImage>image).closed or
                                         (<NativeSampler>sampler).closed):
                raise _class_for("closed")(
                    f"binding {binding} of '{self.plan.name}': the bound image or sampler was "
                    "closed")
        return 0

    cdef list users(self):
        """The set, its plan and what is bound: what a submission using it enters."""
        cdef list objects = [self, self.plan]
        objects.extend(self.bound.values())
        for pair in self.images.values():
            objects.extend(pair)
        return objects

    def bind_buffer(self, int binding, NativeBuffer buffer, int64_t offset=0, int64_t range=0,
                    bint uniform=False, bint read=True, bint write=True):
        """Points ``binding`` at ``range`` bytes (0 = to the end) of ``buffer`` from ``offset``."""
        self.check_bound(binding)
        if buffer.closed:
            raise _class_for("closed")(f"binding {binding}: the buffer was closed")
        if offset < 0:
            _invalid(f"binding {binding} of '{self.plan.name}': offset must be >= 0, "
                     f"got {offset}")
        if range < 0:
            _invalid(f"binding {binding} of '{self.plan.name}': range must be >= 0 "
                     f"(0 = to the end of the buffer), got {range}")
        self.ptr.get().bindBuffer(binding, buffer.ptr.get()[0], offset, range, uniform, read,
                                  write)
        self.bound[binding] = buffer
        self.images.pop(binding, None)
        _check_validation()

    def bind_image(self, int binding, NativeImage image not None,
                   NativeSampler sampler not None):
        """Points sampler ``binding`` at ``image``, sampled with ``sampler``."""
        self.check_bound(binding)
        image.check_open()
        sampler.check_open()
        self.ptr.get().bindImage(binding, image.ptr.get()[0], sampler.ptr.get()[0])
        self.images[binding] = (image, sampler)
        self.bound.pop(binding, None)
        _check_validation()

    cdef int free(self) except -1:
        self.ptr.reset()
        self.bound.clear()
        self.images.clear()
        return 0


cdef inline void _keep(list kept, object obj):
    """Appends ``obj`` unless it is already the last entry (consecutive repeats kept once)."""
    cdef Py_ssize_t count = len(kept)
    if count == 0 or kept[count - 1] is not obj:  # no negative index: wraparound is off
        kept.append(obj)


cdef class NativeCommandList(Closable):
    """Recorded commands (dispatches, buffer copies, fills and updates, barriers), submitted with
    per-instance push constants to one or all queues.

    Every method may be called from any thread. None waits for the native list's lock while
    holding the GIL: a submission holding the lock may need the GIL to log.
    """
    cdef NativeContext context
    cdef unique_ptr[cp.CommandList] ptr
    cdef object __weakref__
    cdef list plans  # what the recorded commands borrow stays alive until reset()
    cdef list sets
    cdef list buffers  # and images

    def __cinit__(self, NativeContext ctx):
        cdef rt.Context* native_ctx = _open_context(ctx, self, "the command list")
        self.context = ctx
        self._forget()
        self.ptr.reset(new cp.CommandList(native_ctx[0]))
        _check_validation()

    cdef _forget(self):
        self.plans = []
        self.sets = []
        self.buffers = []

    cdef int _append(self, cp.Command* command) except -1:
        """Hands ``command`` (just made with new) to the native list, which owns it from here."""
        cdef unique_ptr[cp.Command] owned
        owned.reset(command)
        if not self.ptr.get().tryRecord(owned):  # busy: wait without the GIL
            self.enter()
            try:
                with nogil:
                    self.ptr.get().record(move(owned))
            finally:
                self.leave()
        _check_validation()
        return 0

    cdef rt.Buffer* _buffer(self, NativeBuffer buffer, str what) except NULL:
        if buffer is None or buffer.closed:
            raise _class_for("closed")(f"{what}: the buffer was closed")
        self.buffers.append(buffer)
        return buffer.ptr.get()

    def record_dispatch(self, NativeComputePlan plan, NativeDescriptorSet descriptor_set,
                        int64_t x, int64_t y, int64_t z):
        """Appends a dispatch of (x, y, z) workgroups of ``plan`` with ``descriptor_set``."""
        cdef array3 blocks
        self.check_open()
        plan.check_open()
        descriptor_set.check_bound()
        if not (0 < x <= 0xFFFFFFFF and 0 < y <= 0xFFFFFFFF and 0 < z <= 0xFFFFFFFF):
            for axis, value in (("x", x), ("y", y), ("z", z)):
                if value <= 0 or value > 0xFFFFFFFF:
                    _invalid(f"blocks: {axis} = {value} workgroups; expected 1 .. 2**32-1 (and "
                             f"at most the device's maxComputeWorkGroupCount)")
        blocks[0] = x
        blocks[1] = y
        blocks[2] = z
        self._append(new cp.DispatchCommand(plan.ptr.get()[0], descriptor_set.ptr.get()[0],
                                            blocks))
        _keep(self.plans, plan)
        _keep(self.sets, descriptor_set)

    def record_copy(self, NativeBuffer dst, NativeBuffer src, uint64_t dst_offset,
                    uint64_t src_offset, uint64_t size):
        """Appends a copy of ``size`` bytes from ``src_offset`` of ``src`` to ``dst_offset`` of
        ``dst`` (on every queue, replica to replica)."""
        self.check_open()
        cdef rt.Buffer* target = self._buffer(dst, "dst")
        cdef rt.Buffer* source = self._buffer(src, "src")
        self._append(new cp.CopyBufferCommand(self.context.ptr.get()[0], target[0], source[0],
                                              dst_offset, src_offset, size))

    def record_image_copy(self, dst, src, uint64_t dst_offset=0, uint64_t src_offset=0):
        """Appends a copy of a whole image: ``dst`` and ``src`` are NativeImages or
        NativeBuffers (one an image at least); a buffer end holds the packed texels from its
        byte offset."""
        self.check_open()
        cdef cp.ImageCopyEnd target = self._image_copy_end(dst, dst_offset, "dst")
        cdef cp.ImageCopyEnd source = self._image_copy_end(src, src_offset, "src")
        self._append(new cp.ImageCopyCommand(self.context.ptr.get()[0], target, source))

    cdef cp.ImageCopyEnd _image_copy_end(self, end, uint64_t offset, str what) except *:
        cdef cp.ImageCopyEnd out
        cdef NativeImage image
        out.image = NULL
        out.buffer = NULL
        out.offset = offset
        if isinstance(end, NativeImage):
            image = end
            image.check_open()
            self.buffers.append(image)
            out.image = image.ptr.get()
        else:
            out.buffer = self._buffer(end, what)
        return out

    def record_fill(self, NativeBuffer buffer, uint64_t offset, uint64_t size, uint32_t value):
        """Appends a fill of ``size`` bytes from ``offset`` with the 32-bit word ``value``."""
        self.check_open()
        cdef rt.Buffer* target = self._buffer(buffer, "buffer")
        self._append(new cp.FillBufferCommand(self.context.ptr.get()[0], target[0], offset, size,
                                              value))

    def record_update(self, NativeBuffer buffer, uint64_t offset, const uint8_t[::1] data):
        """Appends a write of ``data`` (a copy is kept in the command) to ``offset``."""
        self.check_open()
        cdef rt.Buffer* target = self._buffer(buffer, "buffer")
        cdef const uint8_t* src = &data[0] if data.shape[0] else NULL
        self._append(new cp.UpdateBufferCommand(self.context.ptr.get()[0], target[0], offset,
                                                src, data.shape[0]))

    def record_vkfft(self, NativeVkfftPlan plan, NativeBuffer buffer, int direction,
                     NativeBuffer input=None, NativeBuffer kernel=None):
        """Appends ``plan`` run on ``buffer`` (direction -1 forward, 1 inverse), reading
        ``input`` instead when the plan has an input buffer, and multiplying by ``kernel`` when it
        convolves."""
        cdef list entered = []
        self.check_open()
        cdef rt.Buffer* target = self._buffer(buffer, "buffer")
        cdef rt.Buffer* source = self._buffer(input, "input") if input is not None else NULL
        cdef rt.Buffer* weights = self._buffer(kernel, "kernel") if kernel is not None else NULL
        cdef vf.VkfftCommand* command
        # The list too: another thread may close it (or its context) while the GIL is free.
        _enter_all([self, plan, buffer] + [b for b in (input, kernel) if b is not None],
                   entered)
        try:
            with nogil:  # the first use of a plan on new buffers builds VkFFT applications
                command = new vf.VkfftCommand(plan.ptr.get()[0], target[0], direction, source,
                                              weights)
            self._append(command)
        finally:
            _leave_all(entered)

    def record_barrier(self):
        """Appends a barrier ordering all earlier commands before all later ones."""
        self.check_open()
        self._append(new cp.BarrierCommand(self.context.ptr.get()[0]))

    @property
    def instance_size(self):
        """Bytes of push-constant data one instance needs (sum over the recorded commands)."""
        self.check_open()
        return self.ptr.get().instanceSize()

    @property
    def command_count(self):
        self.check_open()
        return self.ptr.get().commandCount()

    def reset(self):
        """Forgets the recorded commands (submitted work is unaffected)."""
        self.enter()
        try:
            with nogil:
                self.ptr.get().reset()
        finally:
            self.leave()
        self._forget()
        _check_validation()

    def submit(self, bytes push_constants=b"", int instance_count=1, int queue_index=-2,
               NativeBuffer uniform_buffer=None, bytes uniform_data=b""):
        """Runs the recorded commands ``instance_count`` times; returns the timeline value.

        ``queue_index``: -2 every queue, -1 the least busy queue, >= 0 that queue. The uniform
        data, if any, is copied into ``uniform_buffer`` on the device before the commands.
        """
        if push_constants is None:
            push_constants = b""
        if uniform_data is None:
            uniform_data = b""
        cdef const uint8_t* pc = <const uint8_t*><const char*>push_constants
        cdef size_t pc_size = len(push_constants)
        cdef const uint8_t* uniform = <const uint8_t*><const char*>uniform_data
        cdef size_t uniform_size = len(uniform_data)
        cdef rt.Buffer* uniform_target = NULL
        cdef uint64_t value
        cdef NativeDescriptorSet descriptor_set
        cdef list entered = []
        if instance_count < 1:
            _invalid(f"instance_count: expected at least 1, got {instance_count}")
        self.enter()
        entered.append(self)
        try:
            for descriptor_set in self.sets:
                descriptor_set.check_bound()
                _enter_all(descriptor_set.users(), entered)
            _enter_all(self.plans, entered)
            _enter_all(self.buffers, entered)
            if uniform_buffer is not None:
                uniform_buffer.enter()
                entered.append(uniform_buffer)
                uniform_target = uniform_buffer.ptr.get()
            with nogil:
                value = self.ptr.get().submit(pc, pc_size, <uint32_t>instance_count,
                                              queue_index, uniform_target, uniform,
                                              uniform_size)
        finally:
            _leave_all(entered)
        _check_validation()
        return value

    cdef int free(self) except -1:
        self.ptr.reset()
        self._forget()
        return 0


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


include "kompute.pxi"
