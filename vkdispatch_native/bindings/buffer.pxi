# Buffers (included by wrapper.pyx after context.pxi): a NativeBuffer owns a Buffer of a context,
# one replica per queue, and moves data between it and host memory.


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

    def copies_through_cuda(self, int src, int dst):
        """Whether replica ``src`` reaches ``dst`` through a CUDA peer copy (two GPUs that can
        access each other's memory)."""
        self.check_open()
        return rt.copiesThroughCuda(self.ptr.get()[0], src, dst)

    def copy_replica_through_cuda(self, int src, NativeBuffer target, int dst,
                                  uint64_t dst_offset=0):
        """Copies replica ``src`` into replica ``dst`` (on another GPU) of ``target`` from byte
        ``dst_offset`` with CUDA's peer copy; returns once it is done."""
        cdef list entered = []
        _enter_all([self, target], entered)
        try:
            with nogil:
                rt.copyReplicaThroughCuda(self.ptr.get()[0], src, target.ptr.get()[0], dst,
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


def live_buffer_count():
    """Native buffers alive in this process (for leak tests)."""
    return rt.Buffer.liveCount()
