"""``kp.Sequence``: a command buffer on one queue and the operations recorded into it.

``record(op)`` writes the operation's commands at once; ``eval()`` submits what was recorded and
waits (again and again: a recorded sequence can be evaluated many times); ``eval_async(op)``
submits and returns, ``eval_await()`` waits. A ``record`` after an ``eval`` starts a new command
buffer, as in Kompute.

``destroy()`` of a tensor, image or algorithm frees its Vulkan objects, as in Kompute; a command
buffer recorded with it must not run again, so ``record``, ``eval`` and ``eval_async`` then raise
``RuntimeError`` naming the operation and the destroyed (or rebuilt, by ``kp.OpMult``) object,
until ``clear()`` drops what was recorded.
"""
from __future__ import annotations

import weakref

from kp import arguments
from kp.legacy.sequence import LegacySequence
from kp.operations import OpBase

WAIT_FOREVER = 2**64 - 1


def _operation(call: str, op) -> OpBase:
    return arguments.instance(op, OpBase, f"Sequence.{call}: the operation must be a kp.Op* "
                              "object (kp.OpSyncDevice, kp.OpAlgoDispatch, ...)")


class Sequence(LegacySequence):
    """Made by :meth:`kp.Manager.sequence`. Also has the methods of Kompute 0.4-0.6's Python API
    (``begin``, ``end``, ``record_<operation>``), documented as legacy."""

    __module__ = "kp"

    def __init__(self, *args, **kwargs):
        raise TypeError("kp.Sequence: No constructor defined!")

    @classmethod
    def _wrap(cls, native, manager):
        sequence = cls.__new__(cls)
        sequence._native = native
        sequence._manager = weakref.ref(manager)
        return sequence

    def record(self, op, /) -> Sequence:
        """Records ``op`` now (starting a new command buffer after an eval); returns self."""
        self._native.record(_operation("record", op)._native)
        return self

    def eval(self, op=None, /) -> Sequence:
        """Submits what was recorded and waits; with ``op``: clear(), record(op), eval()."""
        if op is None:
            self._native.eval()
        else:
            self._native.eval_op(_operation("eval", op)._native)
        return self

    def eval_async(self, op=None, /) -> Sequence:
        """With ``op``: clear(), record(op), submit and return (``eval_await()`` waits).

        Without ``op`` it is :meth:`eval` and waits, as in Kompute's Python module.
        """
        if op is None:
            return self.eval()
        self._native.eval_async(_operation("eval_async", op)._native)
        return self

    def eval_await(self, timeout=None, /) -> Sequence:
        """Waits for the submission of eval_async (up to ``timeout`` nanoseconds), then finishes
        its operations (OpCopy's host copies). After a timeout the sequence counts as idle, as in
        Kompute, but a later record or eval waits for that submission before reusing its buffer.
        Does nothing when nothing is running."""
        limit = WAIT_FOREVER if timeout is None else arguments.uint32(
            "Sequence.eval_await", "timeout (nanoseconds)", timeout)
        return self._await(limit)

    def _submit(self) -> Sequence:
        """Submits what was recorded and returns (``eval_async()`` without an operation waits,
        as Kompute's binding does)."""
        self._native.eval_async()
        return self

    def _await(self, nanoseconds: int) -> Sequence:
        self._native.eval_await(nanoseconds)
        return self

    def is_recording(self) -> bool:
        return self._native.is_recording()

    def is_running(self) -> bool:
        return self._native.is_running()

    def is_init(self) -> bool:
        return self._native.is_init()

    def clear(self) -> None:
        """Drops the recorded operations (and the command buffer, when it used an object
        destroyed since)."""
        self._native.clear()

    def rerecord(self) -> None:
        """Records every operation again into a new command buffer."""
        self._native.rerecord()

    def get_timestamps(self) -> list[int]:
        """Raw device ticks: the start of the buffer, then one after each recorded operation
        (needs ``total_timestamps`` > 0 at :meth:`kp.Manager.sequence`)."""
        return self._native.timestamps()

    def destroy(self) -> None:
        """Waits for the last submission, then frees the sequence."""
        self._native.destroy()
