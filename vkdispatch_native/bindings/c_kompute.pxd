# Declarations of the Kompute C++ API (include/kompute/) as bindings/kompute_bridge.hpp presents
# it to Cython. Every call that can fail raises through raiseNativeError.
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t
from libcpp cimport bool
from libcpp.memory cimport shared_ptr
from libcpp.string cimport string
from libcpp.vector cimport vector

from c_errors cimport raiseNativeError

cdef extern from "kompute_bridge.hpp" namespace "kp" nogil:
    cdef cppclass Memory:
        uint32_t size()
        bool isInit()
        void destroy() except +raiseNativeError
        shared_ptr[void] sharedRawData() except +raiseNativeError

    cdef cppclass OpBase:
        pass

    cdef cppclass Algorithm:
        bool isInit()
        void destroy() except +raiseNativeError

    cdef cppclass Sequence:
        shared_ptr[Sequence] record(shared_ptr[OpBase] op) except +raiseNativeError
        shared_ptr[Sequence] eval() except +raiseNativeError
        shared_ptr[Sequence] eval(shared_ptr[OpBase] op) except +raiseNativeError
        shared_ptr[Sequence] evalAsync() except +raiseNativeError
        shared_ptr[Sequence] evalAsync(shared_ptr[OpBase] op) except +raiseNativeError
        shared_ptr[Sequence] evalAwait(uint64_t timeout_ns) except +raiseNativeError
        void begin() except +raiseNativeError
        void end() except +raiseNativeError
        void clear() except +raiseNativeError
        void rerecord() except +raiseNativeError
        vector[uint64_t] getTimestamps() except +raiseNativeError
        bool isRecording()
        bool isRunning()
        bool isInit()
        void destroy() except +raiseNativeError

    cdef cppclass Manager:
        shared_ptr[Sequence] sequence(uint32_t queue_index,
                                      uint32_t total_timestamps) except +raiseNativeError
        void destroy() except +raiseNativeError

cdef extern from "kompute_bridge.hpp" namespace "kp::bindings" nogil:
    cdef struct Constants:
        const void* data
        uint32_t count
        int type

    cdef struct DeviceProperties:
        string device_name
        uint32_t max_work_group_count[3]
        uint32_t max_work_group_invocations
        uint32_t max_work_group_size[3]
        bool timestamps_supported

    shared_ptr[Manager] makeManager(uint32_t device, const vector[uint32_t]& families,
                                    const vector[string]& extensions) except +raiseNativeError
    shared_ptr[Memory] tensor(Manager& manager, const void* data, uint32_t count,
                              uint32_t element_size, int data_type,
                              int memory_type) except +raiseNativeError
    shared_ptr[Memory] image(Manager& manager, const void* data, size_t count, uint32_t width,
                             uint32_t height, uint32_t channels, int data_type,
                             int memory_type) except +raiseNativeError
    shared_ptr[Algorithm] algorithm(Manager& manager, const vector[shared_ptr[Memory]]& mems,
                                    const uint8_t* spirv, size_t spirv_bytes, uint32_t x,
                                    uint32_t y, uint32_t z, const Constants& specialization,
                                    const Constants& push) except +raiseNativeError
    shared_ptr[OpBase] opSyncDevice(const vector[shared_ptr[Memory]]& mems) except +raiseNativeError
    shared_ptr[OpBase] opSyncLocal(const vector[shared_ptr[Memory]]& mems) except +raiseNativeError
    shared_ptr[OpBase] opCopy(const vector[shared_ptr[Memory]]& mems) except +raiseNativeError
    shared_ptr[OpBase] opMult(const vector[shared_ptr[Memory]]& mems,
                              const shared_ptr[Algorithm]& algorithm) except +raiseNativeError
    shared_ptr[OpBase] opFFT(const vector[shared_ptr[Memory]]& tensors,
                             const vector[uint32_t]& shape, bool inverse,
                             const vector[int32_t]& axes) except +raiseNativeError
    shared_ptr[OpBase] opAlgoDispatch(const shared_ptr[Algorithm]& algorithm,
                                      const Constants& push) except +raiseNativeError
    int dataType(const Memory& memory)
    int memoryType(const Memory& memory)
    DeviceProperties deviceProperties(const Manager& manager) except +raiseNativeError
    vector[DeviceProperties] listDevices(const Manager& manager) except +raiseNativeError

cdef extern from "kompute/Shader.hpp" namespace "kp::Shader" nogil:
    vector[uint32_t] compileSource(const string& source) except +raiseNativeError
