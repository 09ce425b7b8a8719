"""Per-thread shader state shared by the parts of one FFT shader: the thread's position in
its line, the I/O index temporaries, and the guards around partial stages and lines."""
from __future__ import annotations

import contextlib
from typing import Iterator

from vkdispatch import dtypes as dt
import vkdispatch.codegen as vc
from vkdispatch.fft.config import FFTConfig, FFTStage
from vkdispatch.fft.grid import FFTGridManager

__all__ = ["FFTResources"]


class FFTResources:
    """Temporaries of one FFT shader (``tid``, batch offsets, ``io_index``, ``io_index_2``)
    and the stage/line guards.

    ``tid`` is the thread's index in its line: the int 0 when one thread owns a line (then
    every position is known while tracing), else a uint register.
    """

    def __init__(self, config: FFTConfig, grid: FFTGridManager):
        self.config = config
        self.grid = grid
        self.tid = grid.tid
        self.input_batch_offset = grid.batch_offset
        self.output_batch_offset = grid.batch_offset
        self.io_index = vc.new_register(dt.uint32, var_name="fft_io_index")
        self.io_index_2 = vc.new_register(dt.uint32, var_name="fft_io_index_2")
        self.sdata = None  # the FFTSDataManager, set by the FFTContext that owns both
        self.row_pitch = config.N  # elements between lines of a contiguous axis

    def butterfly_index(self, stage: FFTStage, instance: int):
        """``j``: the butterfly this thread runs as ``instance`` of ``stage``."""
        offset = instance * stage.threads
        if isinstance(self.tid, int):
            return self.tid + offset
        return self.tid if offset == 0 else self.tid + offset

    @contextlib.contextmanager
    def instance_guard(self, stage: FFTStage, instance: int) -> Iterator[None]:
        """Runs the body only on threads that have butterfly ``instance`` of ``stage``."""
        remaining = stage.butterflies - instance * stage.threads
        if isinstance(self.tid, int) or remaining >= stage.threads:
            yield
            return
        with vc.if_block(self.tid < remaining):
            yield

    @contextlib.contextmanager
    def line_guard(self) -> Iterator[None]:
        """Runs the body only on invocations whose line exists (global memory access)."""
        if self.grid.line_valid is None:
            yield
            return
        with vc.if_block(self.grid.line_valid):
            yield
