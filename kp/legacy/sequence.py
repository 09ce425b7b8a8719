"""The :class:`kp.Sequence` methods of Kompute 0.4-0.6's Python API: ``begin()``/``end()``
around ``record_<operation>(tensors, ...)`` calls, then ``eval()``.

The sequence keeps its commands: each ``eval()`` runs them again, until ``begin()`` starts over.
"""
from __future__ import annotations

from vkdispatch.errors import InvalidStateError

from kp.legacy.methods import add_methods
from kp.log import logger


class LegacySequence:
    """Mixed into :class:`kp.Sequence`."""

    def begin(self) -> bool:
        """Legacy: drops the recorded operations and starts recording new ones (``record``
        starts recording too). While recording already it keeps them, logs a warning to the
        ``kp`` logger and returns False, as Kompute did; while an ``eval_async`` runs it raises
        ``InvalidStateError`` (a ``RuntimeError``; Kompute only logged, then recorded nothing)."""
        if self.is_recording():
            logger.warning("kp.Sequence.begin: the sequence is recording already; it goes on "
                           "recording after the operations it has")
            return False
        if self.is_running():
            raise InvalidStateError("Kompute Sequence begin called when sequence still running: "
                                    "eval_await() the submission before recording again")
        self.clear()
        self._native.begin()
        return True

    def end(self) -> bool:
        """Legacy: ends recording (``eval`` ends it too). Not recording, it logs a warning to the
        ``kp`` logger and returns False, as Kompute did."""
        if not self.is_recording():
            logger.warning("kp.Sequence.end: the sequence is not recording")
            return False
        self._native.end()
        return True

    def is_rec(self) -> bool:
        """Legacy name of :meth:`is_recording`."""
        return self.is_recording()

    def _legacy_manager(self, call: str):
        manager = self._manager()
        if manager is None:
            raise InvalidStateError(f"{call}: the sequence's kp.Manager is gone")
        return manager


def _record(self, call, operation, tensors, *args, **kwargs):
    for op in operation.build(call, self._legacy_manager(call), tensors, *args, **kwargs):
        self.record(op)
    return self


add_methods(LegacySequence, "record_{}", _record, [],
            "records an operation that {summary}; returns the sequence")
