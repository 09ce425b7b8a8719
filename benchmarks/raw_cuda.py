"""What the CUDA driver itself charges for what a script does (the floor under torch's and
cupy's eager calls), measured through cupy's thin Cython wrappers of the driver and runtime
APIs (a few hundred ns each, no array library on the way):

* ``launch_sync_us``: a one-thread kernel (loaded from PTX, so no compiler is needed) launched
  with ``cuLaunchKernel`` on the default stream, then ``cudaDeviceSynchronize``;
* ``read_us``: ``cudaMemcpy`` of ``nbytes`` device -> host into existing pageable (numpy) or
  pinned memory.

Both return None where cupy with a CUDA device is not usable. The Vulkan counterparts are the
extension's ``raw_timeline_submit_wait_us`` and ``raw_read_us``; beside them these tell which
part of a gap to torch is the drivers' and which is ours."""
from __future__ import annotations

import ctypes
import time

import numpy as np

# A kernel adding 1 to the float at its pointer argument (PTX ISA 7.0: any driver since CUDA
# 11 compiles it for its GPU).
_PTX = b"""
.version 7.0
.target sm_70
.address_size 64
.visible .entry increment(.param .u64 target)
{
    .reg .b64 %rd<3>;
    .reg .f32 %f<3>;
    ld.param.u64 %rd1, [target];
    cvta.to.global.u64 %rd2, %rd1;
    ld.global.f32 %f1, [%rd2];
    add.f32 %f2, %f1, 0f3F800000;
    st.global.f32 [%rd2], %f2;
    ret;
}
"""


def _cupy():
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() == 0:
            return None
    except Exception:  # no cupy, no driver, no device: the rows are left out
        return None
    return cupy


def _per_call_us(call, iterations: int) -> float:
    for _ in range(min(iterations, 100)):
        call()
    start = time.perf_counter()
    for _ in range(iterations):
        call()
    return (time.perf_counter() - start) / iterations * 1e6


def launch_sync_us(iterations: int) -> float | None:
    cupy = _cupy()
    if cupy is None:
        return None
    driver, runtime = cupy.cuda.driver, cupy.cuda.runtime
    target = cupy.zeros(1, dtype=cupy.float32)
    module = driver.moduleLoadData(_PTX)
    function = driver.moduleGetFunction(module, "increment")
    argument = ctypes.c_uint64(target.data.ptr)
    parameters = (ctypes.c_void_p * 1)(ctypes.addressof(argument))
    address = ctypes.addressof(parameters)

    def call():
        driver.launchKernel(function, 1, 1, 1, 1, 1, 1, 0, 0, address, 0)
        runtime.deviceSynchronize()
    try:
        before = float(target.get()[0])
        figure = _per_call_us(call, iterations)
        calls = min(iterations, 100) + iterations
        if float(target.get()[0]) != before + calls:  # the kernel really ran each time
            raise RuntimeError("the raw CUDA kernel did not run once per launch")
        return figure
    finally:
        driver.moduleUnload(module)


def read_us(iterations: int, nbytes: int, pinned: bool) -> float | None:
    cupy = _cupy()
    if cupy is None:
        return None
    runtime = cupy.cuda.runtime
    values = np.random.default_rng(3).random(nbytes // 4, dtype=np.float32)
    source = cupy.asarray(values)
    memory = cupy.cuda.alloc_pinned_memory(nbytes) if pinned else None
    out = (np.frombuffer(memory, np.float32, nbytes // 4) if pinned
           else np.empty(nbytes // 4, np.float32))
    destination = out.ctypes.data

    def call():
        runtime.memcpy(destination, source.data.ptr, nbytes, runtime.memcpyDeviceToHost)
    figure = _per_call_us(call, iterations)
    if not np.array_equal(out, values):
        raise RuntimeError("the raw CUDA read differs from what was written")
    return figure
