# Declarations of the VkFFT stage: vkfft_application.hpp, vkfft_plan.hpp and vkfft_command.hpp.
# Every call that can fail raises through raiseNativeError (bindings/error_translation.hpp).
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libcpp cimport bool
from libcpp.string cimport string
from libcpp.vector cimport vector

from c_compute cimport Command, PipelineCache
from c_errors cimport raiseNativeError
from c_runtime cimport Buffer, Context

cdef extern from "<array>" namespace "std" nogil:
    cdef cppclass bool3 "std::array<bool, 3>":
        bool& operator[](size_t)
    cdef cppclass uint64x3 "std::array<uint64_t, 3>":
        uint64_t& operator[](size_t)

cdef extern from "vkdispatch/vkfft_application.hpp" namespace "vkdispatch" nogil:
    cdef enum class VkfftPrecision(uint8_t):
        Single
        Double

    cdef cppclass VkfftGeometry:
        uint32_t dimensions
        uint64x3 size
        bool3 omitted
        uint64_t batches
        VkfftPrecision precision
        bool r2c
        bool normalize
        uint64x3 pad_left
        uint64x3 pad_right
        bool frequency_zeropadding
        uint32_t kernel_count
        bool kernel_convolution
        uint32_t conjugate_convolution
        uint32_t coordinate_features
        uint64_t input_bytes
        bool keep_shader_code
        uint32_t runs
        uint64_t bufferBytes()
        uint64_t kernelBytes()

    string vkfftResultName(int result)
    int vkfftVersion()

cdef extern from "vkdispatch/vkfft_plan.hpp" namespace "vkdispatch" nogil:
    cdef cppclass VkfftPlan:
        VkfftPlan(Context& context, const VkfftGeometry& geometry,
                  const vector[vector[uint32_t]]& binaries,
                  PipelineCache* cache) except +raiseNativeError
        const VkfftGeometry& geometry()
        vector[vector[uint32_t]] binaries() except +raiseNativeError

cdef extern from "vkdispatch/vkfft_command.hpp" namespace "vkdispatch" nogil:
    cdef cppclass VkfftCommand(Command):
        VkfftCommand(VkfftPlan& plan, Buffer& buffer, int direction, Buffer* input,
                     Buffer* kernel) except +raiseNativeError
