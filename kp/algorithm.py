"""``kp.Algorithm``: SPIR-V bound to memory objects (binding i = the i-th), with workgroup
counts and constants; made by :meth:`kp.Manager.algorithm`."""
from __future__ import annotations


class Algorithm:
    """A compute pipeline with its bindings; dispatched by ``kp.OpAlgoDispatch``."""

    __module__ = "kp"

    def __init__(self, *args, **kwargs):
        raise TypeError("kp.Algorithm: No constructor defined!")

    @classmethod
    def _wrap(cls, native, mem_objects: list, spec_consts: list):
        algorithm = cls.__new__(cls)
        algorithm._native = native
        algorithm._rebuilt(mem_objects, spec_consts)
        return algorithm

    def _rebuilt(self, mem_objects: list, spec_consts: list) -> None:
        """Records what the pipeline was (re)built with."""
        self._mem_objects = mem_objects
        self._spec_consts = spec_consts

    def get_mem_objects(self) -> list:
        """The bound tensors and images, in binding order (the same Python objects)."""
        return list(self._mem_objects)

    def get_tensors(self) -> list:
        """Kompute 0.8-0.9's name of :meth:`get_mem_objects`."""
        return self.get_mem_objects()

    def get_spec_consts(self) -> list:
        """The specialization constants (``constant_id`` = index) the pipeline was built with, as
        Python numbers of their type: floats for float32 and float64 ones, ints for int32 and
        uint32 ones (Kompute 0.7, whose constants were all float32, returned floats)."""
        return list(self._spec_consts)

    def is_init(self) -> bool:
        """False for an algorithm made without memory objects or SPIR-V, and after destroy()."""
        return self._native.is_init()

    def destroy(self) -> None:
        """Frees the pipeline once the device finished the work submitted so far; sequences
        that recorded a dispatch of it then raise ``RuntimeError`` at ``eval`` until cleared."""
        self._native.destroy()
