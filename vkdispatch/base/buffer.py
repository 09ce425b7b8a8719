"""Device buffers: typed arrays with one replica per queue of the context.

``write`` broadcasts to every replica (or targets one); ``read(i)`` returns replica ``i`` as a
numpy array of shape ``buffer.shape + var_type.true_numpy_shape``; ``read()`` stacks every
replica on a new leading axis. Reads see every piece of work submitted before them, and a read
racing a write of the same replica in another thread never returns a mix of old and new data
(see :class:`Buffer` for the exact guarantees across threads).
"""
from __future__ import annotations

import math
import time
from typing import Any, Generic, TypeVar

import numpy as np

from vkdispatch.base import dlpack, profile
from vkdispatch import dtypes as dt
from vkdispatch.base.async_transfer import PendingTransfer, wait_all
from vkdispatch.base.context import Context, get_context
from vkdispatch.base.handle import Handle
from vkdispatch.errors import InvalidArgumentError, InvalidStateError, InvalidTypeError

__all__ = ["Buffer", "asbuffer", "from_cuda_array", "MAX_BUFFER_ELEMENTS"]

MAX_BUFFER_ELEMENTS = 2**30
_ArgType = TypeVar("_ArgType")


def normalize_shape(shape: Any, what: str = "shape") -> tuple[int, ...]:
    """``shape`` (an int, or a sequence of 1-3 positive ints) as a tuple of ints; errors name
    ``what``, the argument it came from."""
    if type(shape) is tuple and 0 < len(shape) <= 3 and \
            all(type(e) is int and e >= 1 for e in shape):
        return shape  # the common case, without the checks below that name what is wrong
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    if isinstance(shape, (set, frozenset, dict, str, bytes)):  # no order, or not lengths
        raise InvalidTypeError(f"{what} must be an int or a tuple of ints, got "
                               f"{type(shape).__name__} {shape!r}")
    try:
        shape = tuple(shape)
    except TypeError:
        raise InvalidTypeError(f"{what} must be an int or a tuple of ints, got "
                               f"{shape!r}") from None
    if len(shape) == 0:
        shape = (1,)
    if len(shape) > 3:
        raise InvalidArgumentError(f"{what} must have 1, 2, or 3 dimensions, got {len(shape)} "
                                   f"dimensions {shape}")
    for axis, extent in enumerate(shape):
        if isinstance(extent, bool) or not isinstance(extent, (int, np.integer)):
            raise InvalidTypeError(f"{what}[{axis}] must be an int, got {extent!r}")
        if extent < 1:
            raise InvalidArgumentError(f"{what}[{axis}] must be at least 1, got {extent}")
    return tuple(int(e) for e in shape)


def _components(var_type: type[dt.dtype]) -> int:
    """Host scalars per element (complex numbers count as one)."""
    return math.prod(var_type.true_numpy_shape)


def _is_real_pairs(array: np.ndarray, var_type, count: int) -> bool:
    """Whether ``array`` is real data of shape ``(..., 2)`` holding ``count`` complex32
    values: numpy has no complex32, so half-precision pairs are how users write one."""
    return (var_type is dt.complex32 and array.dtype.kind in "iuf" and array.ndim >= 1
            and array.shape[-1] == 2 and array.size == 2 * count)


class Buffer(Handle, Generic[_ArgType]):
    """A typed device array of 1-3 dimensions, with one replica per queue.

    Args:
        shape: an int or a tuple of 1-3 positive ints; at most 2**30 elements in all.
        var_type: any vkdispatch dtype (scalars, complex, vectors, matrices).

    Attributes:
        shape: the shape as a tuple of 1-3 ints.
        var_type: the element dtype.
        size: the number of elements.
        mem_size: bytes per replica (``size * var_type.item_size``, tightly packed).
        shader_shape: ``(d0, d1, d2, d0*d1*d2)`` with missing dimensions set to 1.
        derived: what higher layers keep with the buffer (cleared when it is destroyed).

    Thread safety: ``read`` and ``write`` may be called from several threads at once. Each call
    reads or writes one replica after the other, and holds that replica for the whole of its
    copy, so per replica:

    * Within one thread, calls take effect in program order: a read returns the data of every
      earlier ``write`` and the results of every shader call, graph submission or copy submitted
      earlier to that replica's queue.
    * Across threads, a read sees every write and every submission that *happened before* the
      read began, i.e. that returned before the other thread signalled the reading thread through
      Python synchronisation (``threading.Event``, ``Lock``, ``queue.Queue``, ``Thread.join``).
    * A read and a write of the same replica running at the same time never tear: the read
      returns the replica wholly before or wholly after the write. Two writes at the same time
      leave one of them whole.

    Not guaranteed: which of two unsynchronised calls goes first; agreement between replicas
    while another thread writes (``write(data)`` updates replica 0, then 1, ...; ``read()``
    reads them one after the other, not as one snapshot); and any ordering against GPU work that
    another thread submits *while* a read or write is in progress: such a shader may see part
    of the write, and the read part of the shader's results. Order those with your own
    synchronisation.
    """

    def __init__(self, shape: int | tuple[int, ...], var_type: type[dt.dtype],
                 external_buffer: Any = None):
        if external_buffer is not None:
            raise InvalidArgumentError("external_buffer aliases CUDA memory, which this Vulkan "
                                       "build does not support")
        if not (isinstance(var_type, type) and issubclass(var_type, dt.dtype)) or var_type in (
                dt.dtype, dt._Scalar, dt._Complex, dt._Vector, dt._Matrix):
            raise InvalidTypeError(f"var_type must be a vkdispatch dtype such as vd.float32, "
                                   f"got {var_type!r}")
        self.shape = normalize_shape(shape)
        self.var_type = var_type
        self.size = math.prod(self.shape)
        if self.size > MAX_BUFFER_ELEMENTS:
            raise InvalidArgumentError(f"Cannot allocate buffers larger than 2^30 elements: shape "
                                       f"{self.shape} has {self.size} elements")
        self.mem_size = self.size * var_type.item_size
        padded = self.shape + (1,) * (3 - len(self.shape))
        self.shader_shape = padded + (self.size,)
        self.is_external = False
        self.owns_memory = True
        self.is_writable = True
        self.cuda_ptr = None
        self.context: Context = get_context()
        self._native = self.context.create_native_buffer(self.mem_size)
        self._pending: set = set()  # futures of write_async / read_async still running
        # What higher layers keep with this buffer (vd.all_reduce's scratch buffer and graph):
        # dropped with it, or when it is destroyed.
        self.derived: dict = {}
        self._register(self.context.handles)

    def _release(self) -> None:
        if self._pending:
            wait_all(self._pending)  # a background copy must not outlive the native buffer
        self.derived.clear()
        self._native.close()

    # -- writing -----------------------------------------------------------------------------

    def _queue_target(self, index: Any) -> int:
        return -1 if index is None else self.context.check_queue_index(index)

    def write(self, data: Any, index: int | None = None) -> None:
        """Uploads ``data`` to every replica (``index=None``) or to replica ``index``.

        ``data`` is a numpy array (or anything ``np.asarray`` accepts) with exactly
        ``size * components`` values, converted to the buffer's scalar type; or raw ``bytes``
        (``bytearray``, ``memoryview``) of at most ``mem_size`` bytes, written from offset 0.

        The write comes after all work submitted earlier that uses the replica, and every later
        read and submission, in this thread or in one that synchronises with it after the call
        returns, sees the data. Thread safety: each replica is written as a whole; a read of it
        in another thread returns the data wholly before or wholly after this write, and of two
        concurrent writes one is left whole (see :class:`Buffer`).

        Raises:
            ValueError: the number of values does not match the buffer.
            TypeError: the data cannot be converted (complex into a real buffer, float into an
                integer buffer, non-numeric data).
        """
        target = self._queue_target(index)
        self._check_alive()
        self._native.write(self._write_bytes(data), 0, target)

    def write_async(self, data: Any, index: int | None = None) -> PendingTransfer:
        """``write`` in a background thread: returns at once, while the copy runs (beside GPU
        work the caller submits meanwhile). ``data`` is checked and converted before the call
        returns, but may be read until the transfer finishes: do not change it before then.
        ``wait()`` the result before submitting work that uses the replica(s), or reading them.
        """
        target = self._queue_target(index)
        self._check_alive()
        raw = self._write_bytes(data)
        return self._background(lambda: self._native.write(raw, 0, target),
                                f"write of replica {'all' if index is None else index}")

    def _write_bytes(self, data: Any):
        if isinstance(data, (bytes, bytearray, memoryview)):
            raw = memoryview(data)
            if not raw.c_contiguous:
                raise InvalidArgumentError("data: a memoryview must be C-contiguous; pass "
                                           "np.ascontiguousarray(view) instead")
            raw = raw.cast("B")
            if raw.nbytes > self.mem_size:
                raise InvalidArgumentError(f"data is {raw.nbytes} bytes, larger than the buffer "
                                           f"({self.mem_size} bytes)")
            return raw
        return self._to_device_bytes(data)

    def _background(self, work, what: str) -> PendingTransfer:
        return self.context.transfers.start(work, what, self._pending)

    def _to_device_bytes(self, data: Any) -> np.ndarray:
        if type(data) is np.ndarray and data.nbytes == self.mem_size and \
                data.flags.c_contiguous and self.var_type is not dt.complex32 and \
                data.dtype == self._layout()[0]:
            return data.reshape(-1).view(np.uint8)  # already the device's bytes
        try:
            array = np.asarray(data)
        except Exception as error:
            raise InvalidTypeError(f"data: unsupported bytes-like object "
                                   f"({type(data).__name__}): {error}") from None
        expected = self.size * _components(self.var_type)
        if _is_real_pairs(array, self.var_type, expected):
            scalar = dt.host_numpy_dtype(self.var_type.child_type)
            return np.ascontiguousarray(array, dtype=scalar).reshape(-1).view(np.uint8)
        if array.size != expected:
            raise InvalidArgumentError(
                f"data has {array.size} values (shape {array.shape}) but the buffer holds "
                f"{expected} ({self.shape} of {self.var_type.name}); sizes must match")
        return self._convert(array).reshape(-1).view(np.uint8)

    def _convert(self, array: np.ndarray) -> np.ndarray:
        var_type = self.var_type
        host = dt.host_numpy_dtype(var_type)
        if array.dtype.kind not in "biufc":
            raise InvalidTypeError(f"cannot write {array.dtype} data into a {var_type.name} buffer")
        if array.dtype.kind == "c" and not dt.is_complex(var_type):
            raise InvalidTypeError(f"cannot write complex data ({array.dtype}) into a real "
                                   f"{var_type.name} buffer")
        if dt.is_complex(var_type):
            if var_type is dt.complex32:
                pairs = np.ascontiguousarray(array, dtype=np.complex64).view(np.float32)
                return pairs.astype(np.float16)
            return np.ascontiguousarray(array, dtype=host)
        if array.dtype.kind in "iu" and host.kind in "iu":
            check_integer_range(array, host, f"the {var_type.name} buffer")
        elif not np.can_cast(array.dtype, host, casting="same_kind"):
            raise InvalidTypeError(f"cannot write {array.dtype} data into a {var_type.name} "
                                   f"buffer without losing values; convert it explicitly")
        return np.ascontiguousarray(array, dtype=host)

    # -- reading -----------------------------------------------------------------------------

    def read(self, index: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """Downloads replica ``index``, or every replica stacked on a leading axis (``None``).

        The result has shape ``shape + var_type.true_numpy_shape`` (with the leading queue
        axis for ``None``) and the numpy type of the buffer's scalar (complex32 reads back as
        complex64). It reflects all work submitted to that queue before the call, with no
        explicit wait needed.

        Thread safety: the result includes every ``write`` of the replica and every submission
        to its queue that happened before the call began in any thread (returned before a
        ``threading.Event``, lock or join ordered it before this call). A ``write`` of the same
        replica running concurrently in another thread lands wholly before or wholly after the
        copy, never in the middle of it; ``index=None`` reads the replicas one after the other.

        Args:
            index: the replica (queue) to read, or None for all of them.
            out: optional C-contiguous writable array of exactly the result's shape and dtype to
                fill instead of allocating one: the fastest way to read large buffers
                repeatedly (no fresh pages to fault in). Not available for complex32.
        """
        self._check_alive()
        return self._read(index, out)

    def _read(self, index: int | None, out: np.ndarray | None) -> np.ndarray:
        if out is None and index is not None:  # a script's read(0): no lists on the way
            return self._read_replica(self.context.check_queue_index(index))
        indices = (range(self.context.queue_count) if index is None
                   else [self.context.check_queue_index(index)])
        if out is None:
            return np.stack([self._read_replica(i) for i in indices])
        self._check_out(out, stacked=index is None)
        for position, i in enumerate(indices):
            target = out[position] if index is None else out
            self._native.read_into(target.reshape(-1).view(np.uint8), 0, i)
        return out

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        """``np.asarray(buffer)`` / ``np.array(buffer, dtype=...)``: replica 0's contents, as
        ``read(0)`` returns them, converted to ``dtype`` when given. Always a copy of device
        memory: ``copy=False`` raises ValueError (numpy's rule for an object that cannot share
        its memory)."""
        if copy is False:
            raise InvalidArgumentError(
                "copy=False: a buffer's memory is on the device, so numpy gets a copy "
                "(np.asarray(buffer) or buffer.read(0))")
        array = self.read(0)
        return array if dtype is None else array.astype(dtype, copy=False)

    def __dlpack__(self, *, stream: Any = None, max_version: tuple | None = None,
                   dl_device: tuple | None = None, copy: bool | None = None):
        """DLPack export: ``numpy.from_dlpack(buffer)``, ``torch.from_dlpack(buffer)``,
        ``cupy.from_dlpack(buffer)`` view replica 0 without a copy: host memory where it is
        host-visible (CPU devices, integrated GPUs), CUDA memory on NVIDIA GPUs.

        Ordering of a CUDA view, on the CUDA stream the consumer names (``stream``, DLPack's
        argument, which ``torch.from_dlpack`` and ``cupy.from_dlpack`` pass: the current
        stream; None is the legacy default stream): work issued to it afterwards starts once the
        work submitted on the buffer so far is done, and while the view lives every later
        submission to the buffer's queue starts once the work issued to that stream before it
        is done. Neither side waits on the host: the GPU waits, on timeline semaphores shared
        with CUDA. Where the driver cannot share them the view is made after a host wait, and
        CUDA work on it must be complete (``torch.cuda.synchronize()``) before vkdispatch uses
        the buffer again. ``stream=-1``: no ordering at all (the consumer's job). A host view
        waits for the buffer's work before it is made.

        The view keeps the memory alive: ``destroy()`` frees it once the last view is gone.
        ``copy=True`` exports a host copy. Elsewhere BufferError names why no view is
        possible."""
        return dlpack.export(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        """``(1, 0)`` (CPU) where a view of the buffer is host memory, ``(2, ordinal)`` where
        it is CUDA memory, else ``(7, device)`` (Vulkan, which array libraries do not
        import)."""
        return dlpack.dlpack_device(self)

    def __len__(self) -> int:
        """The length of the first axis, as for a numpy array of ``read(0)``."""
        return self.shape[0]

    def read_async(self, index: int | None = None,
                   out: np.ndarray | None = None) -> PendingTransfer:
        """``read`` in a background thread: returns at once; ``wait()`` returns the array. The
        copy starts after the work submitted to the queue before this call, like ``read``."""
        self._check_alive()
        if index is not None:
            self.context.check_queue_index(index)
        if out is not None:
            self._check_out(out, stacked=index is None)
        # _read: a destroy() after this call waits for the copy instead of refusing it.
        return self._background(lambda: self._read(index, out),
                                f"read of replica {'all' if index is None else index}")

    def _host_shape(self) -> tuple[int, ...]:
        return self.shape + tuple(self.var_type.true_numpy_shape)

    def _check_out(self, out: Any, stacked: bool) -> None:
        if self.var_type is dt.complex32:
            raise InvalidArgumentError("out is not supported for complex32 buffers (they are "
                                       "converted to complex64 on the host)")
        shape = ((self.context.queue_count,) if stacked else ()) + self._host_shape()
        host = dt.host_numpy_dtype(self.var_type)
        if not isinstance(out, np.ndarray):
            raise InvalidTypeError(f"out must be a numpy array, got {type(out).__name__}")
        if out.shape != shape or out.dtype != host:
            raise InvalidArgumentError(f"out must have shape {shape} and dtype {host}, got shape "
                                       f"{out.shape} and dtype {out.dtype}")
        if not out.flags.c_contiguous or not out.flags.writeable:
            raise InvalidArgumentError("out must be C-contiguous and writable")

    _host_layout: tuple | None = None  # see _layout

    def _layout(self) -> tuple:
        """``(numpy dtype, shape)`` of the host's view of a replica, made on first use (every
        read and write asks)."""
        layout = self._host_layout
        if layout is None:
            layout = self._host_layout = (dt.host_numpy_dtype(self.var_type), self._host_shape())
        return layout

    def _read_replica(self, index: int) -> np.ndarray:
        layout = self._layout()
        recording = profile.recording()
        if recording is None and self.var_type is not dt.complex32:
            return self._native.read_new(layout[0].num, layout[1], index)
        raw = np.empty(self.mem_size, dtype=np.uint8)
        start = time.perf_counter_ns() if recording is not None else 0
        self._native.read_into(raw, 0, index)
        if recording is not None:
            profile.host_span(recording, "read", start)
        if self.var_type is dt.complex32:
            pairs = raw.view(np.float16).astype(np.float32)
            return pairs.view(np.complex64).reshape(layout[1])
        return raw.view(layout[0]).reshape(layout[1])

    def _check_alive(self) -> None:
        if self.destroyed:
            raise self.unusable_error("this buffer")

    def __repr__(self) -> str:
        return (f"Buffer {self.context._handle if not self.destroyed else 'destroyed'}:\n"
                f"    shape: {self.shape}\n    var_type: {self.var_type.name}\n"
                f"    mem_size: {self.mem_size}\n    is_external: {self.is_external}\n"
                f"    writable: {self.is_writable}\n    cuda_ptr: {self.cuda_ptr}")


def check_integer_range(array: np.ndarray, host: np.dtype, target: str) -> None:
    """Integer data converts to any integer type as long as every value fits ``target`` (e.g.
    "the int32 buffer")."""
    if np.can_cast(array.dtype, host, casting="safe") or array.size == 0:
        return
    limits = np.iinfo(host)
    low, high = int(array.min()), int(array.max())
    if low < limits.min or high > limits.max:
        raise InvalidArgumentError(f"data holds values in [{low}, {high}], outside the range of "
                                   f"{target} [{limits.min}, {limits.max}]")


def asbuffer(array: Any) -> Buffer:
    """A new buffer holding a copy of ``array`` on every replica (a CUDA tensor of torch or
    cupy is copied on the device, as :func:`vkdispatch.from_dlpack` does).

    The dtype follows the array's (``float32`` → ``vd.float32``, ``complex64`` →
    ``vd.complex64``, ...); arrays never become vector buffers: a ``(N, 2)`` float32 array
    gives an ``(N, 2)`` float32 buffer. Create ``vd.Buffer((N,), vd.vec2)`` for vectors.
    """
    if hasattr(array, "__cuda_array_interface__"):
        if hasattr(array, "__dlpack__"):  # torch, cupy: copied on the device
            return dlpack.from_dlpack(array)
        return from_cuda_array(array)
    if not isinstance(array, np.ndarray) and not hasattr(array, "__array__") \
            and hasattr(array, "__dlpack__"):
        return dlpack.from_dlpack(array)
    if not isinstance(array, np.ndarray):
        if isinstance(array, (list, tuple)) or hasattr(array, "__array__"):
            try:
                array = np.asarray(array)
            except ValueError as error:
                raise InvalidArgumentError(f"array: cannot convert to a numpy array ({error})") \
                    from None
        else:
            raise InvalidTypeError(f"Expected an array-like object, got {type(array).__name__}")
    buffer = Buffer(array.shape, dt.from_numpy_dtype(array.dtype))
    buffer.write(array)
    return buffer


def from_cuda_array(obj: Any, var_type: Any = None, require_contiguous: bool = True,
                    writable: bool | None = None, keepalive: bool = True) -> Buffer:
    """CUDA interop of the CUDA backend; unavailable in this Vulkan build."""
    raise InvalidStateError("from_cuda_array needs the CUDA backend, which this Vulkan build of "
                       "vkdispatch does not include; copy through numpy instead "
                       "(vd.asbuffer(array.get()))")
