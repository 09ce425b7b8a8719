# Declarations of the compute layer: compute_plan.hpp, pipeline_statistics.hpp,
# replica_dispatch.hpp, pipeline_cache.hpp, descriptor_set.hpp, command.hpp and the command
# classes, and command_list.hpp. Every call that can fail raises through raiseNativeError
# (bindings/error_translation.hpp).
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libcpp cimport bool
from libcpp.memory cimport unique_ptr
from libcpp.string cimport string
from libcpp.vector cimport vector

from c_device_info cimport array3
from c_errors cimport raiseNativeError
from c_image cimport ReplicatedImage, Sampler
from c_runtime cimport Buffer, Context

cdef extern from "vkdispatch/compute_plan.hpp" namespace "vkdispatch" nogil:
    cdef enum class BindingType(int):
        StorageBuffer
        UniformBuffer
        StorageImage
        Sampler

    vector[uint32_t] spirvFromBytes(const uint8_t* data, size_t size,
                                    const string& name) except +raiseNativeError

    cdef cppclass ComputePlan:
        ComputePlan(Context& context, const vector[uint32_t]& spirv,
                    const vector[BindingType]& bindings, uint32_t push_constant_size,
                    const string& name, PipelineCache* cache) except +raiseNativeError
        uint32_t pushConstantSize() except +raiseNativeError
        @staticmethod
        int64_t liveCount() except +raiseNativeError

cdef extern from "vkdispatch/pipeline_statistics.hpp" namespace "vkdispatch" nogil:
    cdef enum class StatisticKind "vkdispatch::PipelineStatistic::Kind"(int):
        Bool "vkdispatch::PipelineStatistic::Kind::Bool"
        Int "vkdispatch::PipelineStatistic::Kind::Int"
        Uint "vkdispatch::PipelineStatistic::Kind::Uint"
        Float "vkdispatch::PipelineStatistic::Kind::Float"

    cdef struct PipelineStatistic:
        string executable
        string name
        string description
        StatisticKind kind
        double value

    vector[PipelineStatistic] pipelineStatistics(
        Context& context, int device_index, const vector[uint32_t]& spirv,
        const vector[BindingType]& bindings, uint32_t push_constant_size,
        const string& name) except +raiseNativeError

cdef extern from "vkdispatch/replica_dispatch.hpp" namespace "vkdispatch" nogil:
    cdef struct ReplicaBinding:
        Buffer* buffer
        int replica

    void dispatchOnReplicas(ComputePlan& plan, int queue_index,
                            const vector[ReplicaBinding]& bindings,
                            const vector[uint8_t]& push_constants,
                            uint32_t groups_x) except +raiseNativeError

cdef extern from "vkdispatch/pipeline_cache.hpp" namespace "vkdispatch" nogil:
    cdef cppclass PipelineCache:
        PipelineCache(Context& context, const vector[string]& paths) except +raiseNativeError
        void save() except +raiseNativeError
        bool loaded(int device_index) except +raiseNativeError

cdef extern from "vkdispatch/descriptor_set.hpp" namespace "vkdispatch" nogil:
    cdef cppclass DescriptorSet:
        DescriptorSet(ComputePlan& plan) except +raiseNativeError
        void bindBuffer(int binding, Buffer& buffer, uint64_t offset, uint64_t range,
                        bool uniform, bool read, bool write) except +raiseNativeError
        void bindImage(int binding, ReplicatedImage& image,
                       Sampler& sampler) except +raiseNativeError
        @staticmethod
        int64_t liveCount() except +raiseNativeError

cdef extern from "vkdispatch/command.hpp" namespace "vkdispatch" nogil:
    cdef cppclass Command:
        pass

cdef extern from "vkdispatch/dispatch_command.hpp" namespace "vkdispatch" nogil:
    cdef cppclass DispatchCommand(Command):
        DispatchCommand(ComputePlan& plan, DescriptorSet& set,
                        array3 blocks) except +raiseNativeError

cdef extern from "vkdispatch/buffer_commands.hpp" namespace "vkdispatch" nogil:
    cdef cppclass CopyBufferCommand(Command):
        CopyBufferCommand(Context& context, Buffer& dst, Buffer& src, uint64_t dst_offset,
                          uint64_t src_offset, uint64_t size) except +raiseNativeError
    cdef cppclass FillBufferCommand(Command):
        FillBufferCommand(Context& context, Buffer& buffer, uint64_t offset, uint64_t size,
                          uint32_t value) except +raiseNativeError
    cdef cppclass UpdateBufferCommand(Command):
        UpdateBufferCommand(Context& context, Buffer& buffer, uint64_t offset,
                            const uint8_t* data, uint64_t size) except +raiseNativeError

cdef extern from "vkdispatch/image_copy_command.hpp" namespace "vkdispatch" nogil:
    cdef struct ImageCopyEnd:
        ReplicatedImage* image
        Buffer* buffer
        uint64_t offset
    cdef cppclass ImageCopyCommand(Command):
        ImageCopyCommand(Context& context, const ImageCopyEnd& dst,
                         const ImageCopyEnd& src) except +raiseNativeError

cdef extern from "vkdispatch/barrier_command.hpp" namespace "vkdispatch" nogil:
    cdef cppclass BarrierCommand(Command):
        BarrierCommand(Context& context) except +raiseNativeError

cdef extern from "vkdispatch/command_list.hpp" namespace "vkdispatch" nogil:
    cdef cppclass CommandList:
        CommandList(Context& context) except +raiseNativeError
        void record(unique_ptr[Command] command) except +raiseNativeError
        bool tryRecord(unique_ptr[Command]& command) except +raiseNativeError
        size_t instanceSize() except +raiseNativeError
        size_t commandCount() except +raiseNativeError
        void reset() except +raiseNativeError
        uint64_t submit(const uint8_t* push_constants, size_t size, uint32_t instance_count,
                        int queue_index, Buffer* uniform_buffer, const uint8_t* uniform_data,
                        size_t uniform_size) except +raiseNativeError

cdef extern from "vkdispatch/queue_phases.hpp" namespace "vkdispatch" nogil:
    cdef cppclass QueuePhases:
        double record, submit, device, wait
    QueuePhases runtimeQueuePhases(Context& context, int iterations) except +raiseNativeError
    cdef enum class RawEntry:
        None "vkdispatch::RawEntry::None"
        Runtime "vkdispatch::RawEntry::Runtime"
        Full "vkdispatch::RawEntry::Full"
    QueuePhases rawQueuePhases(Context& context, int iterations,
                               RawEntry entry) except +raiseNativeError

cdef extern from "vkdispatch/raw_submit.hpp" namespace "vkdispatch" nogil:
    double rawSubmitWaitMicroseconds(Context& context, int iterations,
                                     bint poll) except +raiseNativeError
    double rawDependentDispatchMicroseconds(Context& context, int count,
                                            bint barriers) except +raiseNativeError
    double rawBackToBackMicroseconds(Context& context, int dispatches,
                                     int per_submit) except +raiseNativeError
    double rawTimelineSubmitWaitMicroseconds(Context& context,
                                             int iterations) except +raiseNativeError
    double rawReadMicroseconds(Context& context, int iterations, uint64_t bytes,
                               bint rerecord) except +raiseNativeError
