"""``kp.Manager``: queues of one Vulkan device and the factory of every other ``kp`` object.

It keeps weak references to what it made; ``destroy()`` (also run when the Manager is garbage
collected) frees them all, so the Manager must outlive the objects it made, as in Kompute. The
Managers of one device share it (like CUDA's primary context): their objects work together.
"""
from __future__ import annotations

import numpy as np

from kp import arguments, constants, host_data, log
from kp.algorithm import Algorithm
from kp.legacy.manager import LegacyManager
from kp.memory import Image, Tensor
from kp.native import native as _native
from kp.sequence import Sequence

_MAX_ELEMENTS = 2**32 - 1  # Kompute counts elements in a uint32_t


class Manager(LegacyManager):
    """``Manager()``: device 0 with one queue of its first compute family.

    ``Manager(device, family_queue_indices, desired_extensions)``: the device of that Vulkan
    index, with one queue per entry of ``family_queue_indices`` (a queue family index; repeat one
    for several queues of it, up to the 4 of each family that the device's Managers share),
    which ``sequence(queue_index)`` selects by position. Extensions are accepted and not enabled:
    the device has the ones vkdispatch uses (the ``kp`` logger says so).

    Also has the methods of Kompute 0.4-0.6's Python API (``build_tensor``, ``eval_<operation>``
    and the rest), documented as legacy.
    """

    __module__ = "kp"

    def __init__(self, device=0, family_queue_indices=(), desired_extensions=()):
        call = "kp.Manager()"
        index = arguments.uint32(call, "device", device)
        families = arguments.uint32_list(call, "family_queue_indices", family_queue_indices)
        if isinstance(desired_extensions, str) or not all(
                isinstance(e, str) for e in desired_extensions):
            raise TypeError(f"{call}: desired_extensions must be a list of extension names "
                            f"(str), got {desired_extensions!r}")
        log.refresh_native_threshold()  # the kp logger's level may have changed since
        self._native = _native.KpManager(index, families, list(desired_extensions))
        log.logger.debug("kp.Manager: device %d with queues of families %s", index,
                         families or "(the first compute family)")
        self._named_sequences = {}
        self._uploads = None

    def destroy(self) -> None:
        """Destroys every sequence, algorithm and tensor it made that is still alive, then
        releases the device (the device's other Managers keep it); a second call does nothing."""
        self._native.destroy()

    def sequence(self, queue_index=0, total_timestamps=0) -> Sequence:
        """A sequence on the ``queue_index``-th queue; ``total_timestamps`` > 0 keeps that many
        timestamps (see :meth:`kp.Sequence.get_timestamps`)."""
        call = "Manager.sequence"
        native = self._native.sequence(arguments.uint32(call, "queue_index", queue_index),
                                       arguments.uint32(call, "total_timestamps",
                                                        total_timestamps))
        return Sequence._wrap(native, self)

    def tensor(self, data, memory_type=None, tensor_type=None) -> Tensor:
        """A float32 tensor of ``data`` (anything numpy converts to float32, flattened in C
        order)."""
        call = "Manager.tensor"
        kind = arguments.memory_type(call, memory_type, tensor_type)
        return self._tensor(call, *host_data.as_float32(call, data), kind)

    def tensor_t(self, data, memory_type=None, tensor_type=None) -> Tensor:
        """A tensor of ``data``'s dtype: float32, int32, uint32, float64, bool or float16 (for
        ``float16_t`` buffers in GLSL)."""
        call = "Manager.tensor_t"
        kind = arguments.memory_type(call, memory_type, tensor_type)
        return self._tensor(call, *host_data.as_typed(call, data, host_data.TENSOR_TYPES,
                                                      "tensor"), kind)

    def image(self, data, width, height, num_channels, memory_type=None) -> Image:
        """A float32 image of ``width`` x ``height`` texels of ``num_channels`` (1, 2 or 4)
        channels from ``data`` (at least that many values; extra ones are ignored)."""
        call = "Manager.image"
        kind = arguments.memory_type(call, memory_type, None)
        return self._image(call, *host_data.as_float32(call, data),
                           (width, height, num_channels), kind)

    def image_t(self, data, width, height, num_channels, memory_type=None) -> Image:
        """An image of ``data``'s dtype: float32, int32, uint32, int16, uint16, int8, uint8 or
        float16."""
        call = "Manager.image_t"
        kind = arguments.memory_type(call, memory_type, None)
        return self._image(call, *host_data.as_typed(call, data, host_data.IMAGE_TYPES, "image"),
                           (width, height, num_channels), kind)

    def _tensor(self, call, flat: np.ndarray, data_type, kind) -> Tensor:
        if flat.size > _MAX_ELEMENTS:
            raise ValueError(f"{call}: data has {flat.size} elements; a tensor holds at most "
                             f"{_MAX_ELEMENTS}")
        native = self._native.tensor(flat.view(np.uint8), flat.size, flat.itemsize,
                                     int(data_type), int(kind))
        return Tensor._wrap(native)

    def _image(self, call, flat: np.ndarray, data_type, shape, kind) -> Image:
        width, height, channels = (arguments.uint32(call, name, value) for name, value in
                                   zip(("width", "height", "num_channels"), shape))
        native = self._native.image(flat.view(np.uint8), flat.size, width, height, channels,
                                    int(data_type), int(kind))
        return Image._wrap(native)

    def algorithm(self, tensors, spirv, workgroup=(0, 0, 0), spec_consts=(),
                  push_consts=()) -> Algorithm:
        """``spirv`` (bytes) bound to ``tensors`` (binding i = the i-th, set 0).

        ``workgroup`` is the number of workgroups of a dispatch; x = 0 means one per element
        of the first tensor. Each count must be at most the device's maximum for its axis
        (``get_device_properties()["max_work_group_count"]``, 65535 on many devices), else
        :class:`vkdispatch.errors.InvalidArgumentError` (a ``ValueError``) names ``workgroup``,
        the count and the limit. Constants are float32 unless both are numpy arrays and one is
        not float64 (then each keeps its dtype: float32, int32, uint32, float64), as in Kompute.
        Without tensors or SPIR-V nothing is built (``is_init()`` is False). SPIR-V that is not a
        valid module for the device (a truncated one, a wrong magic number, a length that is not
        a whole number of 4-byte words) raises ``InvalidArgumentError`` naming ``spirv``, before
        the driver sees it.
        """
        call = "Manager.algorithm"
        mem_objects = arguments.memory_list(call, "tensors", tensors)
        if not isinstance(spirv, bytes):
            raise TypeError(f"{call}: spirv must be bytes (e.g. kp.Shader.compile_source(glsl)),"
                            f" got {arguments.type_name(spirv)}")
        x, y, z = arguments.uint32_list(call, "workgroup", workgroup, length=3)
        spec, push = constants.typed(call, spec_consts=spec_consts, push_consts=push_consts)
        native = self._native.algorithm([m._native for m in mem_objects],
                                        np.frombuffer(spirv, np.uint8), x, y, z,
                                        *spec.native_args, *push.native_args)
        return Algorithm._wrap(native, mem_objects, spec.values())

    def list_devices(self) -> list[dict]:
        """The properties of every physical device, in Vulkan's order (the ``device`` index)."""
        return self._native.list_devices()

    def get_device_properties(self) -> dict:
        """``device_name``, ``max_work_group_count``, ``max_work_group_invocations``,
        ``max_work_group_size`` and ``timestamps_supported`` of this manager's device."""
        return self._native.device_properties()
