# cython: language_level=3, boundscheck=False, wraparound=False
"""The bridge between the native runtime (C++) and the vkdispatch Python package.

Native objects are owned by the ``cdef class`` wrappers of the included files, one per concept
(errors, log, devices, contexts, buffers, compiler, images, compute, VkFFT, command lists,
reference benchmarks, kp); C++ exceptions become the Python classes that ``vkdispatch.base``
installs with :func:`set_error_classes`. Calls that may wait on the GPU or copy large amounts of
memory release the GIL.
"""
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libcpp cimport bool as cbool
from libcpp.memory cimport make_shared, shared_ptr, unique_ptr
from libcpp.string cimport string
from libcpp.utility cimport move, pair
from libcpp.vector cimport vector
cimport numpy as cnp

from c_errors cimport setRaiseFunction
from c_log cimport setDeliveryCheck, setInterruptCheck, setLogSink
cimport c_compute as cp
cimport c_runtime as rt

cnp.import_array()  # numpy's C API: reads into new arrays, kp's host views

include "errors.pxi"
include "log.pxi"

# The native runtime's hooks into Python: raising, Ctrl-C, log delivery.
setRaiseFunction(_raise)
setInterruptCheck(_interrupt_pending)
setLogSink(_log_sink, NULL)
setDeliveryCheck(_holds_gil)

include "device.pxi"
include "closable.pxi"
include "context.pxi"
include "buffer.pxi"
include "dlpack.pxi"
include "compiler.pxi"
include "image.pxi"
include "compute.pxi"
include "vkfft.pxi"
include "command_list.pxi"
include "bench.pxi"
include "kompute.pxi"
