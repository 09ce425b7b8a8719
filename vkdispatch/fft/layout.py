"""Which line position each register holds before and after a Stockham stage.

Butterfly ``j`` of a radix-``r`` stage with input stride ``L`` reads positions
``j + m (N / r)`` and writes output ``q`` to ``(j // L) L r + j mod L + q L``. Positions are
ints when ``j`` is known while tracing and uint shader values otherwise.
"""
from __future__ import annotations

from vkdispatch.fft.config import FFTStage

__all__ = ["input_position", "output_base", "output_position", "register_positions"]


def input_position(stage: FFTStage, j, m: int):
    return j if m == 0 else j + m * stage.butterflies


def output_base(stage: FFTStage, j):
    """Where output 0 of butterfly ``j`` goes (the other outputs follow at stride ``L``)."""
    stride, radix = stage.input_stride, stage.radix
    if stride == 1:
        return j * radix
    if stride == stage.butterflies:  # the last stage: j < L, so the base is j itself
        return j
    return (j // stride) * (stride * radix) + j % stride


def output_position(stage: FFTStage, base, q: int):
    return base if q == 0 else base + q * stage.input_stride


def register_positions(stage: FFTStage, tid: int, output: bool) -> list[int]:
    """The positions held by registers ``0 .. registers_used-1`` of thread ``tid`` (an int)
    before (``output=False``) or after the stage."""
    positions = []
    for instance in range(stage.instance_count):
        j = tid + instance * stage.threads
        base = output_base(stage, j)
        for element in range(stage.radix):
            positions.append(output_position(stage, base, element) if output
                             else input_position(stage, j, element))
    return positions
