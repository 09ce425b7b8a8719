# Command lists (included by wrapper.pyx after the objects they record): a NativeCommandList
# records dispatches, copies, fills, updates, image copies, VkFFT runs and barriers and submits
# them to one or all queues.
from c_device_info cimport array3


cdef inline void _keep(list kept, object obj):
    """Appends ``obj`` unless it is already the last entry (consecutive repeats kept once)."""
    cdef Py_ssize_t count = len(kept)
    if count == 0 or kept[count - 1] is not obj:  # no negative index: wraparound is off
        kept.append(obj)


cdef class NativeCommandList(Closable):
    """Recorded commands (dispatches, buffer copies, fills and updates, barriers), submitted with
    per-instance push constants to one or all queues.

    Every method may be called from any thread. None waits for the native list's lock while
    holding the GIL: a submission holding the lock may need the GIL to log.
    """
    cdef NativeContext context
    cdef unique_ptr[cp.CommandList] ptr
    cdef object __weakref__
    cdef list plans  # what the recorded commands borrow stays alive until reset()
    cdef list sets
    cdef list buffers  # and images

    def __cinit__(self, NativeContext ctx):
        cdef rt.Context* native_ctx = _open_context(ctx, self, "the command list")
        self.context = ctx
        self._forget()
        self.ptr.reset(new cp.CommandList(native_ctx[0]))
        _check_validation()

    cdef _forget(self):
        self.plans = []
        self.sets = []
        self.buffers = []

    cdef int _append(self, cp.Command* command) except -1:
        """Hands ``command`` (just made with new) to the native list, which owns it from here."""
        cdef unique_ptr[cp.Command] owned
        owned.reset(command)
        if not self.ptr.get().tryRecord(owned):  # busy: wait without the GIL
            self.enter()
            try:
                with nogil:
                    self.ptr.get().record(move(owned))
            finally:
                self.leave()
        _check_validation()
        return 0

    cdef rt.Buffer* _buffer(self, NativeBuffer buffer, str what) except NULL:
        if buffer is None or buffer.closed:
            raise _class_for("closed")(f"{what}: the buffer was closed")
        self.buffers.append(buffer)
        return buffer.ptr.get()

    def record_dispatch(self, NativeComputePlan plan, NativeDescriptorSet descriptor_set,
                        int64_t x, int64_t y, int64_t z):
        """Appends a dispatch of (x, y, z) workgroups of ``plan`` with ``descriptor_set``."""
        cdef array3 blocks
        self.check_open()
        plan.check_open()
        descriptor_set.check_bound()
        if not (0 < x <= 0xFFFFFFFF and 0 < y <= 0xFFFFFFFF and 0 < z <= 0xFFFFFFFF):
            for axis, value in (("x", x), ("y", y), ("z", z)):
                if value <= 0 or value > 0xFFFFFFFF:
                    _invalid(f"blocks: {axis} = {value} workgroups; expected 1 .. 2**32-1 (and "
                             f"at most the device's maxComputeWorkGroupCount)")
        blocks[0] = x
        blocks[1] = y
        blocks[2] = z
        self._append(new cp.DispatchCommand(plan.ptr.get()[0], descriptor_set.ptr.get()[0],
                                            blocks))
        _keep(self.plans, plan)
        _keep(self.sets, descriptor_set)

    def record_copy(self, NativeBuffer dst, NativeBuffer src, uint64_t dst_offset,
                    uint64_t src_offset, uint64_t size):
        """Appends a copy of ``size`` bytes from ``src_offset`` of ``src`` to ``dst_offset`` of
        ``dst`` (on every queue, replica to replica)."""
        self.check_open()
        cdef rt.Buffer* target = self._buffer(dst, "dst")
        cdef rt.Buffer* source = self._buffer(src, "src")
        self._append(new cp.CopyBufferCommand(self.context.ptr.get()[0], target[0], source[0],
                                              dst_offset, src_offset, size))

    def record_image_copy(self, dst, src, uint64_t dst_offset=0, uint64_t src_offset=0):
        """Appends a copy of a whole image: ``dst`` and ``src`` are NativeImages or
        NativeBuffers (one an image at least); a buffer end holds the packed texels from its
        byte offset."""
        self.check_open()
        cdef cp.ImageCopyEnd target = self._image_copy_end(dst, dst_offset, "dst")
        cdef cp.ImageCopyEnd source = self._image_copy_end(src, src_offset, "src")
        self._append(new cp.ImageCopyCommand(self.context.ptr.get()[0], target, source))

    cdef cp.ImageCopyEnd _image_copy_end(self, end, uint64_t offset, str what) except *:
        cdef cp.ImageCopyEnd out
        cdef NativeImage image
        out.image = NULL
        out.buffer = NULL
        out.offset = offset
        if isinstance(end, NativeImage):
            image = end
            image.check_open()
            self.buffers.append(image)
            out.image = image.ptr.get()
        else:
            out.buffer = self._buffer(end, what)
        return out

    def record_fill(self, NativeBuffer buffer, uint64_t offset, uint64_t size, uint32_t value):
        """Appends a fill of ``size`` bytes from ``offset`` with the 32-bit word ``value``."""
        self.check_open()
        cdef rt.Buffer* target = self._buffer(buffer, "buffer")
        self._append(new cp.FillBufferCommand(self.context.ptr.get()[0], target[0], offset, size,
                                              value))

    def record_update(self, NativeBuffer buffer, uint64_t offset, const uint8_t[::1] data):
        """Appends a write of ``data`` (a copy is kept in the command) to ``offset``."""
        self.check_open()
        cdef rt.Buffer* target = self._buffer(buffer, "buffer")
        cdef const uint8_t* src = &data[0] if data.shape[0] else NULL
        self._append(new cp.UpdateBufferCommand(self.context.ptr.get()[0], target[0], offset,
                                                src, data.shape[0]))

    def record_vkfft(self, NativeVkfftPlan plan, NativeBuffer buffer, int direction,
                     NativeBuffer input=None, NativeBuffer kernel=None):
        """Appends ``plan`` run on ``buffer`` (direction -1 forward, 1 inverse), reading
        ``input`` instead when the plan has an input buffer, and multiplying by ``kernel`` when it
        convolves."""
        cdef list entered = []
        self.check_open()
        cdef rt.Buffer* target = self._buffer(buffer, "buffer")
        cdef rt.Buffer* source = self._buffer(input, "input") if input is not None else NULL
        cdef rt.Buffer* weights = self._buffer(kernel, "kernel") if kernel is not None else NULL
        cdef vf.VkfftCommand* command
        # The list too: another thread may close it (or its context) while the GIL is free.
        _enter_all([self, plan, buffer] + [b for b in (input, kernel) if b is not None],
                   entered)
        try:
            with nogil:  # the first use of a plan on new buffers builds VkFFT applications
                command = new vf.VkfftCommand(plan.ptr.get()[0], target[0], direction, source,
                                              weights)
            self._append(command)
        finally:
            _leave_all(entered)

    def record_barrier(self):
        """Appends a barrier ordering all earlier commands before all later ones."""
        self.check_open()
        self._append(new cp.BarrierCommand(self.context.ptr.get()[0]))

    @property
    def instance_size(self):
        """Bytes of push-constant data one instance needs (sum over the recorded commands)."""
        self.check_open()
        return self.ptr.get().instanceSize()

    @property
    def command_count(self):
        self.check_open()
        return self.ptr.get().commandCount()

    def reset(self):
        """Forgets the recorded commands (submitted work is unaffected)."""
        self.enter()
        try:
            with nogil:
                self.ptr.get().reset()
        finally:
            self.leave()
        self._forget()
        _check_validation()

    def submit(self, bytes push_constants=b"", int instance_count=1, int queue_index=-2,
               NativeBuffer uniform_buffer=None, bytes uniform_data=b""):
        """Runs the recorded commands ``instance_count`` times; returns the timeline value.

        ``queue_index``: -2 every queue, -1 the least busy queue, >= 0 that queue. The uniform
        data, if any, is copied into ``uniform_buffer`` on the device before the commands.
        """
        if push_constants is None:
            push_constants = b""
        if uniform_data is None:
            uniform_data = b""
        cdef const uint8_t* pc = <const uint8_t*><const char*>push_constants
        cdef size_t pc_size = len(push_constants)
        cdef const uint8_t* uniform = <const uint8_t*><const char*>uniform_data
        cdef size_t uniform_size = len(uniform_data)
        cdef rt.Buffer* uniform_target = NULL
        cdef uint64_t value
        cdef NativeDescriptorSet descriptor_set
        cdef list entered = []
        if instance_count < 1:
            _invalid(f"instance_count: expected at least 1, got {instance_count}")
        self.enter()
        entered.append(self)
        try:
            for descriptor_set in self.sets:
                descriptor_set.check_bound()
                _enter_all(descriptor_set.users(), entered)
            _enter_all(self.plans, entered)
            _enter_all(self.buffers, entered)
            if uniform_buffer is not None:
                uniform_buffer.enter()
                entered.append(uniform_buffer)
                uniform_target = uniform_buffer.ptr.get()
            with nogil:
                value = self.ptr.get().submit(pc, pc_size, <uint32_t>instance_count,
                                              queue_index, uniform_target, uniform,
                                              uniform_size)
        finally:
            _leave_all(entered)
        _check_validation()
        return value

    cdef int free(self) except -1:
        self.ptr.reset()
        self._forget()
        return 0
