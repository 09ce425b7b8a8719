# Native objects of the Python module `kp` (included by wrapper.pyx): each holds a shared pointer
# to its C++ kp object. kp/ wraps them in Kompute's classes and checks the arguments; these only
# convert. Waits release the GIL.
#
# Kompute's objects are not thread-safe: destroying a tensor, algorithm, sequence or manager
# while another thread records or evaluates a sequence that uses it freed what that call used.
# So a destroy asked for while calls on objects of the device run without the GIL is deferred
# (the object reports itself destroyed at once) and done when the last of them returns; and a
# destroy keeps the GIL while it runs (waiting for the GPU work that uses the object), so that
# no call can start meanwhile: one that did read a sequence while it was being freed (a "made on
# another device" error, or worse, under load). The Managers of one device share it, and each
# other's objects, so they share one gate.
import weakref

from libc.stdint cimport int32_t
from libcpp.memory cimport shared_ptr

cimport c_kompute as kc


cdef uint8_t _NO_DATA = 0


cdef class _KpGate:
    """The calls on the objects of one device's managers now running without the GIL, and the
    destroys waiting for them (held by the managers and their objects; not a manager itself,
    which its objects must not keep alive: a collected manager destroys them)."""
    cdef int calls
    cdef list deferred
    cdef object __weakref__

    def __cinit__(self):
        self.deferred = []

    cdef int leave(self) except -1:
        """One call returned: the last one does the destroys deferred meanwhile (a manager's
        last, as it destroys the others too)."""
        self.calls -= 1
        if self.calls == 0 and self.deferred:
            pending, self.deferred = self.deferred, []
            for obj in sorted(pending, key=lambda o: isinstance(o, KpManager)):
                (<_KpObject>obj).destroy_now()
        return 0


# The gate of each device's managers, while one of them or of their objects holds it.
_kp_gates = weakref.WeakValueDictionary()


cdef _KpGate _kp_device_gate(uint32_t device):
    gate = _kp_gates.get(device)
    if gate is None:
        gate = _KpGate()
        _kp_gates[device] = gate
    return gate


cdef class _KpObject:
    """What every kp object has: its manager's gate, and whether its destroy waits for calls."""
    cdef _KpGate gate
    cdef bint destroying  # destroy() was asked for while calls ran: done when they return

    cdef int destroy_now(self) except -1:
        return 0

    def destroy(self):
        if self.gate is not None and self.gate.calls:
            self.destroying = True
            self.gate.deferred.append(self)
        else:
            self.destroy_now()


cdef class KpMemory(_KpObject):
    """A kp::Memory (tensor or image)."""
    cdef shared_ptr[kc.Memory] ptr
    cdef shared_ptr[void] host  # keeps the memory behind the views handed out valid

    def size(self):
        return self.ptr.get().size()

    def data_type(self):
        return kc.dataType(self.ptr.get()[0])

    def memory_type(self):
        return kc.memoryType(self.ptr.get()[0])

    def is_init(self):
        return not self.destroying and self.ptr.get().isInit()

    cdef int destroy_now(self) except -1:
        self.ptr.get().destroy()  # with the GIL: see the file comment
        return 0

    def host_view(self, object base, int type_number):
        """A flat numpy array over the host view, whose ``base`` is ``base``."""
        cdef cnp.npy_intp count = self.ptr.get().size()
        self.host = self.ptr.get().sharedRawData()
        array = cnp.PyArray_SimpleNewFromData(1, &count, type_number, self.host.get())
        cnp.set_array_base(array, base)
        return array


cdef class KpAlgorithm(_KpObject):
    """A kp::Algorithm."""
    cdef shared_ptr[kc.Algorithm] ptr

    def is_init(self):
        return not self.destroying and self.ptr.get().isInit()

    cdef int destroy_now(self) except -1:
        self.ptr.get().destroy()  # with the GIL: see the file comment
        return 0


cdef class KpOperation:
    """A kp::OpBase."""
    cdef shared_ptr[kc.OpBase] ptr


cdef class KpSequence(_KpObject):
    """A kp::Sequence."""
    cdef shared_ptr[kc.Sequence] ptr

    cdef int check_live(self) except -1:
        if self.destroying:
            raise RuntimeError("Kompute Sequence was destroyed: it cannot be used")
        return 0

    def record(self, KpOperation op not None):
        self.check_live()
        self.gate.calls += 1
        try:
            with nogil:
                self.ptr.get().record(op.ptr)
        finally:
            self.gate.leave()
        _check_validation()

    def eval(self):
        self.check_live()
        self.gate.calls += 1
        try:
            with nogil:
                self.ptr.get().eval()
        finally:
            self.gate.leave()
        _check_validation()

    def eval_op(self, KpOperation op not None):
        self.check_live()
        self.gate.calls += 1
        try:
            with nogil:
                self.ptr.get().eval(op.ptr)
        finally:
            self.gate.leave()
        _check_validation()

    def eval_async(self, KpOperation op=None):
        """Submits ``op`` alone (clearing what was recorded), or without one what was recorded."""
        self.check_live()
        self.gate.calls += 1
        try:
            if op is None:
                with nogil:
                    self.ptr.get().evalAsync()
            else:
                with nogil:
                    self.ptr.get().evalAsync(op.ptr)
        finally:
            self.gate.leave()
        _check_validation()

    def eval_await(self, uint64_t timeout_ns):
        self.check_live()
        self.gate.calls += 1
        try:
            with nogil:
                self.ptr.get().evalAwait(timeout_ns)
        finally:
            self.gate.leave()
        _check_validation()

    def begin(self):
        self.ptr.get().begin()

    def end(self):
        self.ptr.get().end()

    def clear(self):
        self.ptr.get().clear()

    def rerecord(self):
        self.check_live()
        self.gate.calls += 1
        try:
            with nogil:
                self.ptr.get().rerecord()
        finally:
            self.gate.leave()
        _check_validation()

    def timestamps(self):
        cdef vector[uint64_t] stamps
        self.check_live()
        self.gate.calls += 1
        try:
            with nogil:
                stamps = self.ptr.get().getTimestamps()
        finally:
            self.gate.leave()
        return list(stamps)

    def is_recording(self):
        return self.ptr.get().isRecording()

    def is_running(self):
        return self.ptr.get().isRunning()

    def is_init(self):
        return not self.destroying and self.ptr.get().isInit()

    cdef int destroy_now(self) except -1:
        self.ptr.get().destroy()  # with the GIL: see the file comment
        return 0


cdef vector[shared_ptr[kc.Memory]] _kp_memories(list objects) except *:
    cdef vector[shared_ptr[kc.Memory]] out
    cdef KpMemory memory
    for memory in objects:
        out.push_back(memory.ptr)
    return out


cdef kc.Constants _kp_constants(const uint8_t[::1] data, uint32_t count, int type_code):
    cdef kc.Constants out
    out.data = &data[0] if data.shape[0] else NULL
    out.count = count
    out.type = type_code
    return out


cdef KpOperation _kp_operation(shared_ptr[kc.OpBase] ptr):
    cdef KpOperation op = KpOperation.__new__(KpOperation)
    op.ptr = ptr
    return op


def kp_sync_device(list memories):
    return _kp_operation(kc.opSyncDevice(_kp_memories(memories)))


def kp_sync_local(list memories):
    return _kp_operation(kc.opSyncLocal(_kp_memories(memories)))


def kp_copy(list memories):
    return _kp_operation(kc.opCopy(_kp_memories(memories)))


def kp_mult(list memories, KpAlgorithm algorithm not None):
    return _kp_operation(kc.opMult(_kp_memories(memories), algorithm.ptr))


def kp_fft(list memories, vector[uint32_t] shape, bint inverse, vector[int32_t] axes):
    """VkFFT builds the plan (compiling its kernels: up to a second) without the GIL, while the
    gates of the tensors' managers hold their destroys back."""
    cdef vector[shared_ptr[kc.Memory]] natives = _kp_memories(memories)
    cdef shared_ptr[kc.OpBase] op
    cdef KpMemory memory
    cdef _KpGate gate
    gates = []
    for memory in memories:
        if memory.gate is not None and memory.gate not in gates:
            gates.append(memory.gate)
    for gate in gates:
        gate.calls += 1
    try:
        with nogil:
            op = kc.opFFT(natives, shape, inverse, axes)
    finally:
        for gate in gates:
            gate.leave()
    _check_validation()
    return _kp_operation(op)


def kp_algo_dispatch(KpAlgorithm algorithm not None, const uint8_t[::1] push, uint32_t count,
                     int type_code):
    return _kp_operation(kc.opAlgoDispatch(algorithm.ptr, _kp_constants(push, count, type_code)))


def kp_compile_source(str source):
    """GLSL compute source to SPIR-V bytes."""
    cdef string text = source.encode()
    cdef vector[uint32_t] words
    with nogil:
        words = kc.compileSource(text)
    if words.empty():
        return b""
    return (<char*>words.data())[:words.size() * 4]


cdef dict _kp_properties(kc.DeviceProperties p):
    return {
        "device_name": p.device_name.decode("utf-8", "replace"),
        "max_work_group_count": tuple(p.max_work_group_count[i] for i in range(3)),
        "max_work_group_invocations": p.max_work_group_invocations,
        "max_work_group_size": tuple(p.max_work_group_size[i] for i in range(3)),
        "timestamps_supported": p.timestamps_supported,
    }


cdef class KpManager(_KpObject):
    """A kp::Manager."""
    cdef shared_ptr[kc.Manager] ptr

    def __cinit__(self, uint32_t device, list families, list extensions):
        cdef vector[uint32_t] family_list = families
        cdef vector[string] extension_list = [name.encode() for name in extensions]
        self.gate = _kp_device_gate(device)
        with nogil:
            self.ptr = kc.makeManager(device, family_list, extension_list)
        _check_validation()

    cdef int destroy_now(self) except -1:
        self.ptr.get().destroy()  # with the GIL: see the file comment
        return 0

    def sequence(self, uint32_t queue_index, uint32_t total_timestamps):
        cdef KpSequence sequence = KpSequence.__new__(KpSequence)
        sequence.ptr = self.ptr.get().sequence(queue_index, total_timestamps)
        sequence.gate = self.gate
        return sequence

    def tensor(self, const uint8_t[::1] data, uint32_t count, uint32_t element_size,
               int data_type, int memory_type):
        cdef KpMemory memory = KpMemory.__new__(KpMemory)
        cdef const void* source = &data[0] if data.shape[0] else NULL
        memory.ptr = kc.tensor(self.ptr.get()[0], source, count, element_size, data_type,
                               memory_type)
        memory.gate = self.gate
        return memory

    def image(self, const uint8_t[::1] data, size_t count, uint32_t width, uint32_t height,
              uint32_t channels, int data_type, int memory_type):
        cdef KpMemory memory = KpMemory.__new__(KpMemory)
        # Empty data is data all the same (Kompute then refuses it as too small); NULL would
        # ask for an image of zeros.
        cdef const void* source = &data[0] if data.shape[0] else <const void*>&_NO_DATA
        memory.ptr = kc.image(self.ptr.get()[0], source, count, width, height, channels,
                              data_type, memory_type)
        memory.gate = self.gate
        _check_validation()
        return memory

    def algorithm(self, list memories, const uint8_t[::1] spirv, uint32_t x, uint32_t y,
                  uint32_t z, const uint8_t[::1] spec, uint32_t spec_count, int spec_type,
                  const uint8_t[::1] push, uint32_t push_count, int push_type):
        cdef KpAlgorithm algorithm = KpAlgorithm.__new__(KpAlgorithm)
        cdef const uint8_t* words = &spirv[0] if spirv.shape[0] else NULL
        algorithm.ptr = kc.algorithm(self.ptr.get()[0], _kp_memories(memories), words,
                                     spirv.shape[0], x, y, z,
                                     _kp_constants(spec, spec_count, spec_type),
                                     _kp_constants(push, push_count, push_type))
        algorithm.gate = self.gate
        _check_validation()
        return algorithm

    def device_properties(self):
        return _kp_properties(kc.deviceProperties(self.ptr.get()[0]))

    def list_devices(self):
        return [_kp_properties(p) for p in kc.listDevices(self.ptr.get()[0])]
