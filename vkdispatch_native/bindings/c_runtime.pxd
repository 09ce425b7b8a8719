# Declarations of the runtime objects: instance.hpp, context.hpp, buffer.hpp,
# transfer_engine.hpp and compiler.hpp. Every call that can fail raises through
# raiseNativeError (bindings/error_translation.hpp).
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libcpp cimport bool
from libcpp.memory cimport shared_ptr
from libcpp.string cimport string
from libcpp.utility cimport pair
from libcpp.vector cimport vector

from c_device_info cimport DeviceInfo
from c_errors cimport raiseNativeError

cdef extern from "vkdispatch/instance.hpp" namespace "vkdispatch" nogil:
    cdef cppclass InstanceOptions:
        bool debug

    cdef cppclass Instance:
        Instance(const InstanceOptions& options) except +raiseNativeError
        bool debug()
        const vector[DeviceInfo]& devices()

cdef extern from "<chrono>" namespace "std::chrono" nogil:
    cdef cppclass microseconds:
        microseconds()
        microseconds(int64_t count)
        int64_t count()

cdef extern from "vkdispatch/context.hpp" namespace "vkdispatch" nogil:
    const uint32_t kDefaultMaxInFlight

    cdef cppclass Queue:
        uint64_t lastSubmitted() except +raiseNativeError
        bool completed(uint64_t value) except +raiseNativeError
        void wait(uint64_t value) except +raiseNativeError
        void flushThrough(uint64_t value) except +raiseNativeError

    cdef cppclass Profiler
    cdef cppclass Context:
        Context(const Instance& instance, const vector[int]& device_indices,
                const vector[vector[int]]& queue_families) except +raiseNativeError
        shared_ptr[Profiler] setProfiler(shared_ptr[Profiler] profiler)
        int queueCount()
        Queue& queue(int index, const char* what) except +raiseNativeError
        int deviceIndexOfQueue(int index) except +raiseNativeError
        void waitIdle(int index) except +raiseNativeError
        void setMaxInFlight(uint32_t max_in_flight) except +raiseNativeError
        uint32_t maxInFlight()
        void setSubmitWindow(microseconds window) except +raiseNativeError
        microseconds submitWindow()
        size_t emptyCache()
        Device& deviceOfQueue(int index) except +raiseNativeError

cdef extern from "vkdispatch/device.hpp" namespace "vkdispatch" nogil:
    cdef cppclass Device:
        MemoryPool& memoryPool()

cdef extern from "vkdispatch/memory_pool.hpp" namespace "vkdispatch" nogil:
    cdef cppclass MemoryPool:
        size_t keptCount()
        uint64_t reuseCount()

cdef extern from "vkdispatch/profiler.hpp" namespace "vkdispatch" nogil:
    cdef cppclass ProfileEvent:
        string name
        int queue
        uint64_t start_ns
        uint64_t end_ns

    cdef cppclass ClockAlignment:
        uint64_t device_ns
        uint64_t host_ns
        uint64_t error_ns
        const char* name()

    cdef cppclass Profiler:
        Profiler(const Context& context) except +raiseNativeError
        vector[ProfileEvent] take() except +raiseNativeError
        ClockAlignment align(int queue_index, bool calibrated) except +raiseNativeError

cdef extern from "vkdispatch/buffer.hpp" namespace "vkdispatch" nogil:
    cdef cppclass Buffer:
        Buffer(Context& context, uint64_t size) except +raiseNativeError
        uint64_t size()
        int replicaCount()
        void* hostView(int queue_index) except +raiseNativeError
        void waitForWork(int queue_index) except +raiseNativeError
        bool hostVisible(int queue_index) except +raiseNativeError
        @staticmethod
        int64_t liveCount()

cdef extern from "vkdispatch/cuda_view.hpp" namespace "vkdispatch" nogil:
    cdef cppclass CudaView:
        CudaView(Buffer& buffer, int queue_index) except +raiseNativeError
        unsigned long long pointer()
        int ordinal()
        bool beginStream(size_t stream) except +raiseNativeError
        void endStream(size_t stream)
        void copyFrom(unsigned long long source, uint64_t size) except +raiseNativeError
    int cudaDeviceOf "vkdispatch::CudaView::cudaDeviceOf"(
        Buffer& buffer, int queue_index, string* why) except +raiseNativeError

cdef extern from "vkdispatch/replica_routes.hpp" namespace "vkdispatch" nogil:
    bool copiesOnDevice(Buffer& buffer, int src, int dst) except +raiseNativeError
    void copyReplicaOnDevice(Buffer& source, int src, Buffer& target, int dst,
                             uint64_t dst_offset) except +raiseNativeError
    bool copiesThroughCuda(Buffer& buffer, int src, int dst) except +raiseNativeError
    void copyReplicaThroughCuda(Buffer& source, int src, Buffer& target, int dst,
                                uint64_t dst_offset) except +raiseNativeError

cdef extern from "vkdispatch/transfer_engine.hpp" namespace "vkdispatch" nogil:
    cdef cppclass TransferOptions:
        uint64_t chunk_bytes
        int chunk_count
        int copy_threads
        bool map_directly

    cdef cppclass TransferEngine:
        TransferEngine(Context& context, const TransferOptions& options) except +raiseNativeError
        void write(Buffer& buffer, const void* data, uint64_t size, uint64_t offset,
                   int queue_index) except +raiseNativeError
        void read(Buffer& buffer, void* out, uint64_t size, uint64_t offset,
                  int queue_index) except +raiseNativeError
        void copy(Buffer& source, int src, Buffer& target, int dst,
                  uint64_t dst_offset) except +raiseNativeError

cdef extern from "vkdispatch/compiler.hpp" namespace "vkdispatch" nogil:
    cdef enum class Optimization(int):
        NoOptimization "vkdispatch::Optimization::None"
        Size
        Performance

    cdef cppclass CompileResult:
        bool ok
        vector[uint32_t] spirv
        string log

    cdef cppclass Compiler:
        Compiler() except +raiseNativeError
        CompileResult compileCompute(const string& glsl, const string& name,
                                     Optimization optimization) except +raiseNativeError
        @staticmethod
        string version()
