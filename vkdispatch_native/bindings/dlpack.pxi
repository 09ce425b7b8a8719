# DLPack views of buffer memory (included by wrapper.pyx after NativeBuffer): the capsules that
# numpy.from_dlpack, torch.from_dlpack and other array libraries consume, in the layout of the
# DLPack ABI (the unversioned "dltensor" of DLPack 0.x and the "dltensor_versioned" of 1.x).
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
DEF _DLPACK_MAJOR = 1
DEF _DLPACK_MINOR = 0


cdef void _leave_view(void* owner) noexcept nogil:
    with gil:
        try:
            (<Closable>owner).leave()
        except BaseException as error:  # a deleter cannot raise: report and go on
            native_log(LogLevel.Error, f"releasing a DLPack view: {error}".encode())
        finally:
            Py_DECREF(<object>owner)


cdef void _delete_unversioned(DLManagedTensor* managed) noexcept nogil:
    _leave_view(managed.manager_ctx)
    free(managed)


cdef void _delete_versioned(DLManagedTensorVersioned* managed) noexcept nogil:
    _leave_view(managed.manager_ctx)
    free(managed)


cdef void _drop_unversioned(object capsule) noexcept:
    # A capsule nobody consumed still owns its tensor (a consumer renames it "used_dltensor").
    if PyCapsule_IsValid(capsule, b"dltensor"):
        _delete_unversioned(<DLManagedTensor*>PyCapsule_GetPointer(capsule, b"dltensor"))


cdef void _drop_versioned(object capsule) noexcept:
    if PyCapsule_IsValid(capsule, b"dltensor_versioned"):
        _delete_versioned(<DLManagedTensorVersioned*>PyCapsule_GetPointer(
            capsule, b"dltensor_versioned"))


cdef void _describe(DLTensor* tensor, void* data, tuple shape, int code, int bits,
                    int64_t* sizes) noexcept:
    """Fills ``tensor`` for row-major ``shape``; ``sizes`` holds room for shape and strides."""
    cdef int ndim = len(shape)
    cdef int axis
    cdef int64_t stride = 1
    tensor.data = data
    tensor.device.device_type = _KDL_CPU
    tensor.device.device_id = 0
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


def host_view_capsule(NativeBuffer buffer, int queue_index, tuple shape, int code, int bits,
                      bint versioned):
    """A DLPack capsule viewing replica ``queue_index`` of ``buffer`` in host memory as a
    row-major array of ``shape`` (DLPack type ``code``/``bits``), once the work submitted on it
    so far has completed; None when that memory is not host-visible."""
    cdef void* data = NULL
    cdef int ndim = len(shape)
    cdef size_t head = sizeof(DLManagedTensorVersioned) if versioned else sizeof(DLManagedTensor)
    cdef char* block
    cdef DLManagedTensor* unversioned
    cdef DLManagedTensorVersioned* managed
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
    block = <char*>malloc(head + 2 * ndim * sizeof(int64_t))
    if block == NULL:
        buffer.leave()
        raise MemoryError("allocating a DLPack tensor")
    Py_INCREF(buffer)  # released with the view, by its deleter
    if versioned:
        managed = <DLManagedTensorVersioned*>block
        managed.version.major = _DLPACK_MAJOR
        managed.version.minor = _DLPACK_MINOR
        managed.manager_ctx = <void*>buffer
        managed.deleter = _delete_versioned
        managed.flags = 0
        _describe(&managed.dl_tensor, data, shape, code, bits, <int64_t*>(block + head))
        return PyCapsule_New(managed, b"dltensor_versioned", _drop_versioned)
    unversioned = <DLManagedTensor*>block
    unversioned.manager_ctx = <void*>buffer
    unversioned.deleter = _delete_unversioned
    _describe(&unversioned.dl_tensor, data, shape, code, bits, <int64_t*>(block + head))
    return PyCapsule_New(unversioned, b"dltensor", _drop_unversioned)
