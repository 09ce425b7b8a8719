"""Kompute 0.4-0.6's Python API (``mgr.build_tensor``, ``mgr.eval_<operation>``,
``seq.record_<operation>``...), mixed into :class:`kp.Manager` and :class:`kp.Sequence`."""
