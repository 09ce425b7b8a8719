"""``kp.Memory``, ``kp.Tensor`` and ``kp.Image``: what an algorithm binds.

A tensor is a storage buffer, an image a 2-D storage image of 1, 2 or 4 channels. ``device``
ones also have a host staging copy, which ``data()`` shows and the sync operations move through.
``host`` and ``deviceAndHost`` ones show the memory itself; ``storage`` ones have no host view.
"""
from __future__ import annotations

import numpy as np

from kp.enums import DataTypes, MemoryTypes

# numpy's view of each data type (Kompute's tables; images add the 8- and 16-bit types, and
# float16 is vkdispatch's).
NUMPY_TYPES = {
    DataTypes.bool: np.dtype(np.bool_), DataTypes.int: np.dtype(np.int32),
    DataTypes.uint: np.dtype(np.uint32), DataTypes.float: np.dtype(np.float32),
    DataTypes.double: np.dtype(np.float64), DataTypes.short: np.dtype(np.int16),
    DataTypes.ushort: np.dtype(np.uint16), DataTypes.char: np.dtype(np.int8),
    DataTypes.uchar: np.dtype(np.uint8), DataTypes.float16: np.dtype(np.float16),
}


class Memory:
    """Base of :class:`Tensor` and :class:`Image`; made by a :class:`kp.Manager`, never
    constructed directly."""

    __module__ = "kp"

    def __init__(self, *args, **kwargs):
        raise TypeError(f"kp.{type(self).__name__}: No constructor defined!")

    @classmethod
    def _wrap(cls, native):
        memory = cls.__new__(cls)
        memory._native = native
        return memory

    def data(self) -> np.ndarray:
        """A flat, writable numpy view (no copy) of the host memory; its ``base`` is this object.

        For ``device`` memory it is the staging copy: host writes reach the GPU with
        ``OpSyncDevice``, GPU results arrive with ``OpSyncLocal``. A view taken before
        ``destroy()`` stays readable (its memory is kept until the view is gone).
        """
        dtype = NUMPY_TYPES.get(self.data_type())
        if dtype is None:
            raise RuntimeError("Kompute Python data type not supported")
        return self._native.host_view(self, dtype.num)

    def size(self) -> int:
        """Elements (0 after ``destroy()``)."""
        return self._native.size()

    def __len__(self) -> int:
        return self.size()

    def memory_type(self) -> MemoryTypes:
        return MemoryTypes(self._native.memory_type())

    def data_type(self) -> DataTypes:
        return DataTypes(self._native.data_type())

    def is_init(self) -> bool:
        return self._native.is_init()

    def destroy(self) -> None:
        """Frees the device memory once the device finished the work submitted so far.

        A sequence that recorded an operation on this object then raises ``RuntimeError``
        (naming the operation) at ``eval``/``record`` instead of running freed memory, until it
        is cleared (``clear()``, or ``eval(op)``, which clears first).
        """
        self._native.destroy()


class Tensor(Memory):
    """A storage buffer of ``size()`` elements."""

    __module__ = "kp"

    def tensor_type(self) -> MemoryTypes:
        """Kompute 0.8-0.9's name of :meth:`memory_type`."""
        return self.memory_type()


class Image(Memory):
    """A 2-D storage image (``image2D`` in GLSL); ``data()`` is its texels, rows of ``width``
    texels with the channels interleaved, flat (``size()`` = width x height x channels)."""

    __module__ = "kp"
