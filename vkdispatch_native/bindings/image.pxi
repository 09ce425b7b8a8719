# Images (included by wrapper.pyx, before the descriptor sets that bind them): a NativeImage
# owns a ReplicatedImage of a context, a NativeSampler a Sampler.
cimport c_image as ci


cdef class NativeImage(Closable):
    """An image with one replica per queue of its context, kept ready for sampling."""
    cdef NativeContext context
    cdef unique_ptr[ci.ReplicatedImage] ptr
    cdef object __weakref__

    def __cinit__(self, NativeContext context, int view_type, int format, uint32_t width,
                  uint32_t height, uint32_t depth, uint32_t layers, uint32_t mip_levels=1):
        cdef rt.Context* native_ctx = _open_context(context, self, "the image")
        self.context = context
        self.enter()
        try:
            with nogil:
                self.ptr.reset(ci.makeImage(native_ctx[0], view_type, format, width, height,
                                            depth, layers, mip_levels))
        finally:
            self.leave()
        _check_validation()

    cdef int free(self) except -1:
        self.ptr.reset()
        return 0

    @property
    def size(self):
        """Bytes of one replica's packed texels."""
        self.check_open()
        return self.ptr.get().byteSize()

    @property
    def filters_linearly(self):
        """Whether the devices can filter this image linearly."""
        self.check_open()
        return self.ptr.get().filtersLinearly()

    def check_copy_destination(self):
        """Raises InvalidArgumentError (naming dst) where a device copy into this image could
        not remake its mip levels (image_copy_command.hpp)."""
        self.check_open()
        ci.checkCopyDestination(self.ptr.get()[0])

    def write(self, const uint8_t[::1] data, int queue_index=-1):
        """Copies ``data`` (packed texels) into one replica, or every replica when -1."""
        cdef const void* src = &data[0] if data.shape[0] else NULL
        self.enter()
        try:
            with nogil:
                self.ptr.get().write(src, data.shape[0], queue_index)
        finally:
            self.leave()
        _check_validation()

    def read_into(self, uint8_t[::1] out, int queue_index=0):
        """Fills ``out`` with the packed texels of replica ``queue_index``."""
        cdef void* dst = &out[0] if out.shape[0] else NULL
        self.enter()
        try:
            with nogil:
                self.ptr.get().read(dst, out.shape[0], queue_index)
        finally:
            self.leave()
        _check_validation()


cdef class NativeSampler(Closable):
    """How shaders sample images: a VkSampler on each device of a context."""
    cdef NativeContext context
    cdef unique_ptr[ci.Sampler] ptr
    cdef object __weakref__

    def __cinit__(self, NativeContext context, int mag_filter, int min_filter, int mip_mode,
                  int address_mode, float mip_lod_bias, float min_lod, float max_lod,
                  int border_color):
        cdef rt.Context* native_ctx = _open_context(context, self, "the sampler")
        self.context = context
        self.ptr.reset(ci.makeSampler(native_ctx[0], mag_filter, min_filter, mip_mode,
                                      address_mode, mip_lod_bias, min_lod, max_lod,
                                      border_color))
        _check_validation()

    cdef int free(self) except -1:
        self.ptr.reset()
        return 0
