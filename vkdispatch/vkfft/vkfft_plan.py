"""VkFFTPlan: the native plan of a :class:`~vkdispatch.vkfft.vkfft_config.VkFFTConfig` on
every device of the current context, recorded into graphs."""
from __future__ import annotations

import inspect
import math

from vkdispatch.base.buffer import Buffer
from vkdispatch.base.commands import VkFFTRun
from vkdispatch.base.context import get_context
from vkdispatch.base.vkfft_native_plan import VkFFTNativePlan
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError
from vkdispatch.shader.dispatch_target import DispatchTarget
from vkdispatch.vkfft.vkfft_config import VkFFTConfig

__all__ = ["VkFFTPlan"]


def _check_float64(config: VkFFTConfig, context) -> None:
    """complex128 needs 64-bit floats on every device of the context."""
    if not config.double_precision:
        return
    missing = [info.device_name for info in context.device_infos if not info.float_64_support]
    if missing:
        raise InvalidArgumentError(f"fourier_type: complex128 needs 64-bit floats, which "
                                   f"{', '.join(missing)} does not support; use complex64")


class VkFFTPlan(VkFFTNativePlan):
    """A VkFFT transform of ``shape`` (Python order) on every device of the current context.

    Takes the arguments of :class:`~vkdispatch.vkfft.vkfft_config.VkFFTConfig` (``shape``,
    ``do_r2c``, ``axes``, ``normalize``, ``padding``, ``pad_frequency_domain``, ``kernel_count``,
    ``input_shape``, ``input_type``, ``kernel_convolution``, ``conjugate_convolution``,
    ``convolution_features``, ``num_batches``, ``single_kernel_multiple_batches``,
    ``keep_shader_code``, ``fourier_type``, ``runs``), which says what each means;
    :meth:`from_config` builds the plan of a config already made.

    Attributes:
        config: the VkFFTConfig of the plan.

    Raises:
        ValueError: what VkFFTConfig refuses; a size VkFFT cannot plan (VkFFT's reason
            included); complex128 on a device without 64-bit floats.
        TypeError: what VkFFTConfig refuses.
    """

    def __init__(self, *args, **kwargs):
        self._build_plan(VkFFTConfig(*args, **kwargs))

    # The config's parameters are the plan's: shown by help() and the API docs.
    __init__.__signature__ = inspect.signature(VkFFTConfig.__init__)

    @classmethod
    def from_config(cls, config: VkFFTConfig) -> VkFFTPlan:
        """The plan of ``config`` (what the plan cache builds)."""
        plan = cls.__new__(cls)
        plan._build_plan(config)
        return plan

    def _build_plan(self, config: VkFFTConfig) -> None:
        _check_float64(config, get_context())
        self.config = config
        super().__init__(config.geometry())

    @property
    def shape(self) -> tuple[int, ...]:
        return self.config.shape

    @property
    def do_r2c(self) -> bool:
        return self.config.do_r2c

    @property
    def axes(self) -> tuple[int, ...]:
        """The transformed Python axes, sorted."""
        return self.config.axes

    @property
    def fourier_type(self) -> type:
        return self.config.fourier_type

    @property
    def mem_size(self) -> int:
        """Bytes of ``shape`` in ``fourier_type`` (vkdispatch 0.1.0's attribute)."""
        return self.fourier_type.item_size * math.prod(self.shape)

    def _check_buffer(self, buffer, name: str) -> None:
        if buffer is None:
            return
        if not isinstance(buffer, Buffer):
            raise InvalidTypeError(f"{name} must be a vd.Buffer, got {type(buffer).__name__}")
        if buffer.destroyed:  # a closed context's buffers too, before "another context"
            raise buffer.unusable_error(name)
        if buffer.context is not self.context:
            raise InvalidArgumentError(f"{name} belongs to another context than the plan")

    def record(self, graph, buffer: Buffer, inverse: bool = False, kernel: Buffer = None,
               input: Buffer = None) -> None:
        """Records the transform of ``buffer`` into ``graph`` (submitted at once by an
        immediate graph): forward, or inverse when ``inverse``."""
        if not isinstance(graph, DispatchTarget):  # was an AttributeError on record_command
            raise InvalidTypeError(f"graph must be a vd.CommandGraph, got "
                                   f"{type(graph).__name__}")
        if buffer is None:
            raise InvalidTypeError("buffer must be a vd.Buffer, got None")
        for name, value in (("buffer", buffer), ("kernel", kernel), ("input", input)):
            self._check_buffer(value, name)
        if self.destroyed:
            raise self.unusable_error("this VkFFTPlan")
        # Checked here as well as natively: a graph records natively only when it is submitted.
        if buffer.mem_size < self.buffer_bytes:
            raise InvalidArgumentError(f"buffer: the transform of shape {self.shape} works on "
                                       f"{self.buffer_bytes} bytes; the buffer has "
                                       f"{buffer.mem_size}")
        graph.record_command(VkFFTRun(self, buffer, 1 if inverse else -1, input, kernel))

    def record_forward(self, graph, buffer: Buffer) -> None:
        self.record(graph, buffer, False)

    def record_inverse(self, graph, buffer: Buffer) -> None:
        self.record(graph, buffer, True)
