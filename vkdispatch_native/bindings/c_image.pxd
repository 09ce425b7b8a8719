# Declarations of replicated_image.hpp and sampler.hpp through bindings/image_bridge.hpp. Every call that can
# fail raises through raiseNativeError.
from libc.stdint cimport uint32_t, uint64_t

from c_errors cimport raiseNativeError
from c_runtime cimport Context

cdef extern from "image_bridge.hpp" namespace "vkdispatch" nogil:
    cdef cppclass ReplicatedImage:
        uint64_t byteSize()
        int replicaCount()
        bint filtersLinearly()
        void write(const void* data, uint64_t size, int queue_index) except +raiseNativeError
        void read(void* out, uint64_t size, int queue_index) except +raiseNativeError

    cdef cppclass Sampler:
        pass

cdef extern from "image_bridge.hpp" namespace "vkdispatch::bindings" nogil:
    Sampler* makeSampler(Context& context, int mag_filter, int min_filter, int mip_mode,
                         int address_mode, float mip_lod_bias, float min_lod, float max_lod,
                         int border_color) except +raiseNativeError
    ReplicatedImage* makeImage(Context& context, int view_type, int format, uint32_t width,
                               uint32_t height, uint32_t depth, uint32_t layers,
                               uint32_t mip_levels) except +raiseNativeError

cdef extern from "vkdispatch/image_copy_command.hpp" namespace "vkdispatch" nogil:
    void checkCopyDestination(ReplicatedImage& image) except +raiseNativeError
