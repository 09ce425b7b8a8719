# VkFFT (included by wrapper.pyx after compute.pxi, whose pipeline cache its plans build through):
# a NativeVkfftPlan owns a VkfftPlan of a context; NativeCommandList.record_vkfft runs it.
from libc.string cimport memcpy

cimport c_vkfft as vf


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
