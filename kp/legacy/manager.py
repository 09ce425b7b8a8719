"""The :class:`kp.Manager` methods of Kompute 0.4-0.6's Python API: tensors built and uploaded in
one call, sequences kept under a name, and operations run by name:

* ``eval_<operation>(tensors, sequence_name, ...)`` on the sequence of that name (made if
  missing), waiting for it; ``eval_<operation>_def(tensors, ...)`` on the sequence named
  ``"DEFAULT"``;
* ``eval_async_<operation>(tensors, sequence_name, ...)`` and ``eval_async_<operation>_def``
  submit and return; ``eval_await(sequence_name)`` / ``eval_await_def()`` wait.

Each run starts its sequence over (``begin()``), as Kompute's did. The operations are in
:mod:`kp.legacy.operations`.
"""
from __future__ import annotations

from vkdispatch.errors import InvalidArgumentError

from kp import arguments
from kp.legacy.methods import add_methods
from kp.log import logger
from kp.operations import OpSyncDevice
from kp.sequence import WAIT_FOREVER

DEFAULT_SEQUENCE = "DEFAULT"  # the sequence of the eval_*_def methods (KP_DEFAULT_SESSION)


class LegacyManager:
    """Mixed into :class:`kp.Manager`, whose ``__init__`` sets ``_named_sequences = {}`` and
    ``_uploads = None``."""

    def build_tensor(self, data, tensor_type=None, sync_data_to_gpu=True):
        """Legacy: a float32 tensor of ``data`` (as :meth:`tensor`) whose data is uploaded to the
        device, as Kompute's ``buildTensor`` did (``sync_data_to_gpu=False`` skips that)."""
        tensor = self.tensor(data, tensor_type)
        if sync_data_to_gpu:
            self._upload([tensor])
        return tensor

    def rebuild_tensors(self, tensors, sync_data_to_gpu=True) -> None:
        """Legacy: uploads the tensors' host data to the device again (``sync_data_to_gpu=False``
        does nothing). Kompute freed and re-made their device memory from their host data; a
        destroyed tensor has no data left here, so one raises ``InvalidArgumentError``."""
        call = "Manager.rebuild_tensors"
        tensors = arguments.memory_list(call, "tensors", tensors)
        for i, tensor in enumerate(tensors):
            if not tensor.is_init():
                raise InvalidArgumentError(f"{call}: tensors[{i}] was destroyed, so its data is "
                                           "gone; make a new tensor with build_tensor(data)")
        if sync_data_to_gpu and tensors:
            self._upload(tensors)

    def _upload(self, tensors: list) -> None:
        # A sequence of its own: the "DEFAULT" one Kompute used may be running an eval_async.
        if self._uploads is None or not self._uploads.is_init():
            self._uploads = self.sequence()
        self._uploads.eval(OpSyncDevice(tensors))

    def create_sequence(self, name="", queue_index=0, total_timestamps=0):
        """Legacy: a new sequence on the ``queue_index``-th queue, kept under ``name`` for
        :meth:`get_create_sequence` and the ``eval_*`` methods unless the name is taken (then,
        as in Kompute, the name keeps its sequence and a warning goes to the ``kp`` logger)."""
        if not isinstance(name, str):
            raise TypeError(f"Manager.create_sequence: name must be a str, got "
                            f"{arguments.type_name(name)} {name!r}")
        sequence = self.sequence(queue_index, total_timestamps)
        taken = self._named_sequences.get(name)
        if taken is not None and taken.is_init():
            logger.warning("kp.Manager.create_sequence: the name %r is taken; the new sequence "
                           "is not kept under it", name)
        elif name:
            self._named_sequences[name] = sequence
        return sequence

    def get_create_sequence(self, name):
        """Legacy: the sequence kept under ``name``, made (on queue 0) if there is none."""
        sequence = self._named_sequences.get(name)
        if sequence is None or not sequence.is_init():
            sequence = self.create_sequence(name)
        return sequence

    def eval_await(self, sequence_name, wait_for=WAIT_FOREVER) -> None:
        """Legacy: waits (up to ``wait_for`` nanoseconds) for the ``eval_async_*`` running on the
        sequence named ``sequence_name``. No such sequence: a warning to the ``kp`` logger, as
        Kompute logged."""
        call = "Manager.eval_await"
        limit = arguments.uint64(call, "wait_for (nanoseconds)", wait_for)
        sequence = self._named_sequences.get(sequence_name)
        if sequence is None:
            logger.warning("kp.Manager.eval_await: no sequence is named %r", sequence_name)
        elif sequence.is_running():
            sequence._await(limit)

    def eval_await_def(self, wait_for=WAIT_FOREVER) -> None:
        """Legacy: :meth:`eval_await` of the ``"DEFAULT"`` sequence, which the ``eval_async_*_def``
        methods use."""
        self.eval_await(DEFAULT_SEQUENCE, wait_for)

    def _legacy_run(self, call, operation, tensors, sequence_name, wait, args, kwargs) -> None:
        sequence = self.get_create_sequence(sequence_name)
        ops = operation.build(call, self, tensors, *args, **kwargs)  # bad arguments change nothing
        sequence.begin()
        for op in ops:
            sequence.record(op)
        sequence.end()
        if wait:
            sequence.eval()
        else:
            sequence._submit()


def _eval(wait: bool, named: bool):
    if named:
        def body(self, call, operation, tensors, sequence_name, *args, **kwargs):
            self._legacy_run(call, operation, tensors, sequence_name, wait, args, kwargs)
    else:
        def body(self, call, operation, tensors, *args, **kwargs):
            self._legacy_run(call, operation, tensors, DEFAULT_SEQUENCE, wait, args, kwargs)
    return body


def _doc(wait: bool, named: bool) -> str:
    sequence = ("the sequence named ``sequence_name`` (made if missing)" if named else
                'the sequence named ``"DEFAULT"``')
    if wait:
        return (f"runs an operation that {{summary}}.\n\nIt is recorded anew into {sequence}, "
                "which runs it; the call waits for the end")
    waiter = "eval_await(sequence_name)" if named else "eval_await_def()"
    return (f"submits an operation that {{summary}}.\n\nIt is recorded anew into {sequence}, "
            f"which is submitted; ``{waiter}`` waits for the end")


for _pattern, _wait, _named in [("eval_{}", True, True), ("eval_{}_def", True, False),
                                ("eval_async_{}", False, True),
                                ("eval_async_{}_def", False, False)]:
    add_methods(LegacyManager, _pattern, _eval(_wait, _named),
                ["sequence_name"] if _named else [], _doc(_wait, _named))
