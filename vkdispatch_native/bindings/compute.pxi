# Compute (included by wrapper.pyx after image.pxi: descriptor sets bind its images): pipeline
# caches, compute plans and the descriptor sets of their dispatches.


cdef class NativePipelineCache(Closable):
    """One VkPipelineCache per device of a context, persisted in the files ``paths`` names."""
    cdef NativeContext context
    cdef unique_ptr[cp.PipelineCache] ptr
    cdef object __weakref__

    def __cinit__(self, NativeContext ctx, list paths):
        cdef rt.Context* native_ctx = _open_context(ctx, self, "the pipeline cache")
        cdef vector[string] files
        for path in paths:
            files.push_back(str(path).encode())
        self.context = ctx
        self.ptr.reset(new cp.PipelineCache(native_ctx[0], files))
        _check_validation()

    def loaded(self, int device_index):
        """Whether device ``device_index``'s file was loaded (exists and matches the device)."""
        self.check_open()
        return self.ptr.get().loaded(device_index)

    def save(self):
        """Writes every device's cache to its file (atomically: temporary file + rename)."""
        self.enter()
        try:
            with nogil:
                self.ptr.get().save()
        finally:
            self.leave()
        _check_validation()

    cdef int free(self) except -1:
        self.ptr.reset()
        return 0


cdef vector[cp.BindingType] _binding_types(list bindings) except *:
    """The native binding types of 0.1.0's binding type codes (checked natively)."""
    cdef vector[cp.BindingType] types
    for code in bindings:
        types.push_back(<cp.BindingType>(<int>code))
    return types


cdef uint32_t _push_constant_size(int pc_size, str name) except? 0:
    if pc_size < 0:
        _invalid(f"pc_size: the push-constant size of '{name}' must be >= 0, got {pc_size}")
    return pc_size


cdef class NativeComputePlan(Closable):
    """A compute pipeline (SPIR-V, bindings, push-constant size) on every device."""
    cdef NativeContext context
    cdef unique_ptr[cp.ComputePlan] ptr
    cdef object __weakref__
    cdef readonly str name

    def __cinit__(self, NativeContext ctx, bytes spirv not None, list bindings, int pc_size,
                  str name, NativePipelineCache cache=None):
        cdef rt.Context* native_ctx = _open_context(ctx, self, f"the compute plan '{name}'")
        cdef string label = name.encode()
        cdef vector[cp.BindingType] types = _binding_types(bindings)
        cdef cp.PipelineCache* native_cache = NULL
        cdef uint32_t size = _push_constant_size(pc_size, name)
        cdef list entered = []
        cdef vector[uint32_t] words = cp.spirvFromBytes(<const uint8_t*><const char*>spirv,
                                                        len(spirv), label)
        self.context = ctx
        self.name = name
        _enter_all([self] if cache is None else [self, cache], entered)
        try:
            if cache is not None:
                native_cache = cache.ptr.get()
            with nogil:
                self.ptr.reset(new cp.ComputePlan(native_ctx[0], words, types, size, label,
                                                  native_cache))
        finally:
            _leave_all(entered)
        _check_validation()

    @property
    def pc_size(self):
        self.check_open()
        return self.ptr.get().pushConstantSize()

    cdef int free(self) except -1:
        self.ptr.reset()
        return 0

    def dispatch_on_replicas(self, int queue_index, list bindings, bytes push_constants,
                             uint32_t groups_x):
        """Runs the plan once on queue ``queue_index``, binding i bound to replica
        ``bindings[i][1]`` of NativeBuffer ``bindings[i][0]`` (replicas of any queues of its
        device); returns without waiting."""
        cdef vector[cp.ReplicaBinding] natives
        cdef cp.ReplicaBinding binding
        cdef NativeBuffer buffer
        cdef vector[uint8_t] pc = push_constants
        cdef list entered = []
        _enter_all([self] + [<NativeBuffer?>entry for entry, _ in bindings], entered)
        try:
            for entry, replica in bindings:
                buffer = entry
                binding.buffer = buffer.ptr.get()
                binding.replica = replica
                natives.push_back(binding)
            with nogil:
                cp.dispatchOnReplicas(self.ptr.get()[0], queue_index, natives, pc, groups_x)
        finally:
            _leave_all(entered)
        _check_validation()


def pipeline_statistics(NativeContext ctx, int device_index, bytes spirv not None,
                        list bindings, int pc_size, str name):
    """What the driver of device ``device_index`` compiles the pipeline of these arguments (as
    NativeComputePlan takes them) to: ``(executable, name, description, value)`` per statistic
    it reports, ``value`` a bool, int or float."""
    cdef string label = name.encode()
    cdef vector[cp.BindingType] types = _binding_types(bindings)
    cdef uint32_t size = _push_constant_size(pc_size, name)
    cdef vector[cp.PipelineStatistic] statistics
    cdef vector[uint32_t] words = cp.spirvFromBytes(<const uint8_t*><const char*>spirv,
                                                    len(spirv), label)
    ctx.enter()
    try:
        with nogil:
            statistics = cp.pipelineStatistics(ctx.ptr.get()[0], device_index, words, types,
                                               size, label)
    finally:
        ctx.leave()
    _check_validation()
    converters = {cp.StatisticKind.Bool: bool, cp.StatisticKind.Int: int,
                  cp.StatisticKind.Uint: int, cp.StatisticKind.Float: float}
    return [(s.executable.decode("utf-8", "replace"), s.name.decode("utf-8", "replace"),
             s.description.decode("utf-8", "replace"), converters[s.kind](s.value))
            for s in statistics]


def live_compute_plan_count():
    """Native compute plans alive in this process (for leak tests)."""
    return cp.ComputePlan.liveCount()


def live_descriptor_set_count():
    """Native descriptor sets alive in this process (for leak tests)."""
    return cp.DescriptorSet.liveCount()


cdef class NativeDescriptorSet(Closable):
    """The buffers one dispatch of a plan uses, one descriptor set per queue."""
    cdef NativeComputePlan plan
    cdef unique_ptr[cp.DescriptorSet] ptr
    cdef object __weakref__
    cdef dict bound  # binding -> NativeBuffer: keeps bound buffers alive as long as the set
    cdef dict images  # binding -> (NativeImage, NativeSampler), kept alive likewise

    def __cinit__(self, NativeComputePlan plan):
        plan.check_open()
        _open_context(plan.context, self, f"a descriptor set of '{plan.name}'")
        self.plan = plan
        self.bound = {}
        self.images = {}
        self.ptr.reset(new cp.DescriptorSet(plan.ptr.get()[0]))
        _check_validation()

    cdef int check_bound(self, int rebinding=-1) except -1:
        """Raises unless the set, its plan and its bound buffers (but ``rebinding``) are open."""
        self.check_open()
        self.plan.check_open()
        for binding, buffer in self.bound.items():
            if binding != rebinding and (<NativeBuffer>buffer).closed:
                raise _class_for("closed")(
                    f"binding {binding} of '{self.plan.name}': the bound buffer was closed")
        for binding, (image, sampler) in self.images.items():
            if binding != rebinding and ((<NativeImage>image).closed or
                                         (<NativeSampler>sampler).closed):
                raise _class_for("closed")(
                    f"binding {binding} of '{self.plan.name}': the bound image or sampler was "
                    "closed")
        return 0

    cdef list users(self):
        """The set, its plan and what is bound: what a submission using it enters."""
        cdef list objects = [self, self.plan]
        objects.extend(self.bound.values())
        for pair in self.images.values():
            objects.extend(pair)
        return objects

    def bind_buffer(self, int binding, NativeBuffer buffer, int64_t offset=0, int64_t range=0,
                    bint uniform=False, bint read=True, bint write=True):
        """Points ``binding`` at ``range`` bytes (0 = to the end) of ``buffer`` from ``offset``."""
        self.check_bound(binding)
        if buffer.closed:
            raise _class_for("closed")(f"binding {binding}: the buffer was closed")
        if offset < 0:
            _invalid(f"binding {binding} of '{self.plan.name}': offset must be >= 0, "
                     f"got {offset}")
        if range < 0:
            _invalid(f"binding {binding} of '{self.plan.name}': range must be >= 0 "
                     f"(0 = to the end of the buffer), got {range}")
        self.ptr.get().bindBuffer(binding, buffer.ptr.get()[0], offset, range, uniform, read,
                                  write)
        self.bound[binding] = buffer
        self.images.pop(binding, None)
        _check_validation()

    def bind_image(self, int binding, NativeImage image not None,
                   NativeSampler sampler not None):
        """Points sampler ``binding`` at ``image``, sampled with ``sampler``."""
        self.check_bound(binding)
        image.check_open()
        sampler.check_open()
        self.ptr.get().bindImage(binding, image.ptr.get()[0], sampler.ptr.get()[0])
        self.images[binding] = (image, sampler)
        self.bound.pop(binding, None)
        _check_validation()

    cdef int free(self) except -1:
        self.ptr.reset()
        self.bound.clear()
        self.images.clear()
        return 0
