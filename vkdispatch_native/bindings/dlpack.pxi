# DLPack views of buffer memory (included by wrapper.pyx after NativeBuffer): the capsules that
# numpy.from_dlpack, torch.from_dlpack, cupy.from_dlpack and other array libraries consume, in
# the layout of the DLPack ABI (the unversioned "dltensor" of DLPack 0.x and the
# "dltensor_versioned" of 1.x). A view is either host memory (host-visible buffers) or CUDA
# device memory (a CudaView of the replica).
#
# A view enters its NativeBuffer (closable.pxi) for as long as it lives: closing the buffer or
# its context meanwhile only marks them closed, and the view's deleter, the last to leave, frees
# them. Consumers may call the deleter from any thread, with or without the GIL.
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid, PyCapsule_New
from cpython.ref cimport Py_DECREF
from libc.stdint cimport int32_t, uint16_t
from libc.stdlib cimport free, malloc


cdef struct DLDevice:
    int32_t device_type  # a C enum: int-sized
    int32_t device_id

cdef struct DLDataType:
    uint8_t code
    uint8_t bits
    uint16_t lanes

cdef struct DLTensor:
    void* data
    DLDevice device
    int32_t ndim
    DLDataType dtype
    int64_t* shape
    int64_t* strides
    uint64_t byte_offset

cdef struct DLManagedTensor:
    DLTensor dl_tensor
    void* manager_ctx
    void (*deleter)(DLManagedTensor*) noexcept nogil

cdef struct DLPackVersion:
    uint32_t major
    uint32_t minor

cdef struct DLManagedTensorVersioned:
    DLPackVersion version
    void* manager_ctx
    void (*deleter)(DLManagedTensorVersioned*) noexcept nogil
    uint64_t flags
    DLTensor dl_tensor


DEF _KDL_CPU = 1
DEF _KDL_CUDA = 2
DEF _DLPACK_MAJOR = 1
DEF _DLPACK_MINOR = 0


cdef struct _StreamUse:
    # What a view's deleter ends: the CUDA stream its use was ordered with (CudaView::
    # beginStream), stored after the shape and strides of the view's block.
    int queue_index
    size_t stream
    bint ordered


cdef _StreamUse _stream_use_of(int queue_index, long long stream):
    cdef _StreamUse use
    use.queue_index = queue_index
    use.stream = <size_t>stream
    use.ordered = False
    return use


cdef _StreamUse* _stream_use(DLTensor* tensor) noexcept nogil:
    return <_StreamUse*>(tensor.shape + 2 * tensor.ndim)


cdef void _leave_view(void* owner, _StreamUse* use) noexcept nogil:
    # owner: the view's NativeBuffer, referenced and entered
    with gil:
        try:
            if use.ordered:
                (<NativeBuffer>owner).cuda_views[use.queue_index].endStream(use.stream)
            (<Closable>owner).leave()
        except BaseException as error:  # a deleter cannot raise: report and go on
            native_log(LogLevel.Error, f"releasing a DLPack view: {error}".encode())
        finally:
            Py_DECREF(<object>owner)


cdef void _delete_unversioned(DLManagedTensor* managed) noexcept nogil:
    _leave_view(managed.manager_ctx, _stream_use(&managed.dl_tensor))
    free(managed)


cdef void _delete_versioned(DLManagedTensorVersioned* managed) noexcept nogil:
    _leave_view(managed.manager_ctx, _stream_use(&managed.dl_tensor))
    free(managed)


cdef void _drop_unversioned(object capsule) noexcept:
    # A capsule nobody consumed still owns its tensor (a consumer renames it "used_dltensor").
    if PyCapsule_IsValid(capsule, b"dltensor"):
        _delete_unversioned(<DLManagedTensor*>PyCapsule_GetPointer(capsule, b"dltensor"))


cdef void _drop_versioned(object capsule) noexcept:
    if PyCapsule_IsValid(capsule, b"dltensor_versioned"):
        _delete_versioned(<DLManagedTensorVersioned*>PyCapsule_GetPointer(
            capsule, b"dltensor_versioned"))


cdef void _describe(DLTensor* tensor, void* data, int device_type, int device_id, tuple shape,
                    int code, int bits, int64_t* sizes) noexcept:
    """Fills ``tensor`` for row-major ``shape``; ``sizes`` holds room for shape and strides."""
    cdef int ndim = len(shape)
    cdef int axis
    cdef int64_t stride = 1
    tensor.data = data
    tensor.device.device_type = device_type
    tensor.device.device_id = device_id
    tensor.ndim = ndim
    tensor.dtype.code = code
    tensor.dtype.bits = bits
    tensor.dtype.lanes = 1
    tensor.shape = sizes
    tensor.strides = sizes + ndim
    tensor.byte_offset = 0
    for axis in range(ndim - 1, -1, -1):
        sizes[axis] = shape[axis]
        sizes[ndim + axis] = stride
        stride *= <int64_t>shape[axis]


cdef object _capsule(NativeBuffer buffer, void* data, int device_type, int device_id,
                     tuple shape, int code, int bits, bint versioned, _StreamUse use):
    """The capsule of a view of ``buffer`` (entered by the caller: on failure it is left, and
    the stream use ended)."""
    cdef int ndim = len(shape)
    cdef size_t head = sizeof(DLManagedTensorVersioned) if versioned else sizeof(DLManagedTensor)
    cdef char* block = <char*>malloc(head + 2 * ndim * sizeof(int64_t) + sizeof(_StreamUse))
    cdef int64_t* sizes = <int64_t*>(block + head)
    cdef DLManagedTensor* unversioned
    cdef DLManagedTensorVersioned* managed
    if block == NULL:
        if use.ordered:
            buffer.cuda_views[use.queue_index].endStream(use.stream)
        buffer.leave()
        raise MemoryError("allocating a DLPack tensor")
    (<_StreamUse*>(sizes + 2 * ndim))[0] = use
    Py_INCREF(buffer)  # released with the view, by its deleter
    if versioned:
        managed = <DLManagedTensorVersioned*>block
        managed.version.major = _DLPACK_MAJOR
        managed.version.minor = _DLPACK_MINOR
        managed.manager_ctx = <void*>buffer
        managed.deleter = _delete_versioned
        managed.flags = 0
        _describe(&managed.dl_tensor, data, device_type, device_id, shape, code, bits, sizes)
        return PyCapsule_New(managed, b"dltensor_versioned", _drop_versioned)
    unversioned = <DLManagedTensor*>block
    unversioned.manager_ctx = <void*>buffer
    unversioned.deleter = _delete_unversioned
    _describe(&unversioned.dl_tensor, data, device_type, device_id, shape, code, bits, sizes)
    return PyCapsule_New(unversioned, b"dltensor", _drop_unversioned)


cdef rt.CudaView* _cuda_view(NativeBuffer buffer, int queue_index) except NULL:
    """The replica's CUDA mapping (made once, see NativeBuffer.cuda_views); the caller has
    entered ``buffer`` and orders the work on it."""
    cdef rt.CudaView* view = NULL
    if not 0 <= queue_index < buffer.ptr.get().replicaCount():
        raise IndexError(f"queue_index: {queue_index} is not a replica of the buffer")
    if buffer.cuda_views.empty():
        buffer.cuda_views.resize(buffer.ptr.get().replicaCount(), NULL)
    if buffer.cuda_views[queue_index] == NULL:
        with nogil:
            view = new rt.CudaView(buffer.ptr.get()[0], queue_index)
        if buffer.cuda_views[queue_index] != NULL:  # another thread mapped it meanwhile
            del view
        else:
            buffer.cuda_views[queue_index] = view
    return buffer.cuda_views[queue_index]


def host_view_capsule(NativeBuffer buffer, int queue_index, tuple shape, int code, int bits,
                      bint versioned):
    """A DLPack capsule viewing replica ``queue_index`` of ``buffer`` in host memory as a
    row-major array of ``shape`` (DLPack type ``code``/``bits``), once the work submitted on it
    so far has completed; None when that memory is not host-visible."""
    cdef void* data = NULL
    buffer.enter()
    try:
        with nogil:
            data = buffer.ptr.get().hostView(queue_index)
        _check_validation()
    except BaseException:
        buffer.leave()
        raise
    if data == NULL:
        buffer.leave()
        return None
    return _capsule(buffer, data, _KDL_CPU, 0, shape, code, bits, versioned,
                    _stream_use_of(queue_index, -1))


def cuda_view_capsule(NativeBuffer buffer, int queue_index, tuple shape, int code, int bits,
                      bint versioned, long long stream):
    """A DLPack capsule viewing replica ``queue_index`` of ``buffer`` as CUDA device memory
    (see cuda_view.hpp). ``stream`` (a CUstream handle, 1 for the legacy default stream): its
    later work follows the work submitted on the replica so far and, while the view lives,
    the queue's later submissions follow the stream's work (a host wait instead where the
    device or driver cannot order them); -1: no ordering (DLPack: the consumer's)."""
    cdef rt.CudaView* view
    cdef _StreamUse use = _stream_use_of(queue_index, stream)
    buffer.enter()
    try:
        view = _cuda_view(buffer, queue_index)
        if stream != -1:
            with nogil:
                use.ordered = view.beginStream(use.stream)
                if not use.ordered:
                    buffer.ptr.get().waitForWork(queue_index)
        _check_validation()
    except BaseException:
        if use.ordered:
            view.endStream(use.stream)
        buffer.leave()
        raise
    return _capsule(buffer, <void*>view.pointer(), _KDL_CUDA, view.ordinal(), shape, code,
                    bits, versioned, use)


def cuda_device_of(NativeBuffer buffer, int queue_index):
    """``(CUDA device ordinal, "")`` of a CUDA view of the replica, or ``(-1, the reason)``."""
    cdef string why
    cdef int ordinal
    buffer.check_open()
    ordinal = rt.cudaDeviceOf(buffer.ptr.get()[0], queue_index, &why)
    return ordinal, why.decode()


def copy_from_cuda(NativeBuffer buffer, int queue_index, unsigned long long source,
                   uint64_t size):
    """Copies ``size`` bytes of CUDA device memory at ``source`` into the start of the replica
    (through its CUDA mapping), returning once the copy is complete."""
    cdef rt.CudaView* view
    buffer.enter()
    try:
        view = _cuda_view(buffer, queue_index)
        with nogil:
            buffer.ptr.get().waitForWork(queue_index)
            view.copyFrom(source, size)
    finally:
        buffer.leave()
    _check_validation()


def capsule_data_address(capsule):
    """The data address of the tensor in a DLPack capsule that nobody consumed yet."""
    if PyCapsule_IsValid(capsule, b"dltensor_versioned"):
        return <size_t>(<DLManagedTensorVersioned*>PyCapsule_GetPointer(
            capsule, b"dltensor_versioned")).dl_tensor.data
    return <size_t>(<DLManagedTensor*>PyCapsule_GetPointer(capsule, b"dltensor")).dl_tensor.data
