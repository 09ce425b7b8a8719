"""Methods named after the legacy operations (``eval_<name>``, ``record_<name>``...), made from
one body each: a method per operation and variant, with the signature and docstring of its own,
so ``help()`` and the docs show what it takes."""
from __future__ import annotations

import inspect
from typing import Callable

from kp.legacy.operations import OPERATIONS, Operation

LEGACY_NOTE = "Legacy (Kompute 0.4-0.6's Python API)"


def _signature(operation: Operation, leading: list[str]) -> inspect.Signature:
    """``(self, tensors, *leading, <the operation's own parameters>)``."""
    own = list(inspect.signature(operation.build).parameters.values())[3:]
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    first = [inspect.Parameter(name, positional) for name in ("self", "tensors", *leading)]
    return inspect.Signature(first + own)


def add_methods(cls: type, pattern: str, body: Callable, leading: list[str], doc: str) -> None:
    """Adds to ``cls``, for each legacy operation, ``pattern.format(name)``: a method calling
    ``body(self, call, operation, tensors, *leading, *args, **kwargs)``.

    ``doc`` is its docstring, formatted with the operation's ``summary``.
    """
    for name, operation in OPERATIONS.items():
        method_name = pattern.format(name)
        method = _method(f"{cls.__name__}.{method_name}", operation, body)
        method.__name__ = method_name
        method.__qualname__ = f"{cls.__qualname__}.{method_name}"
        method.__doc__ = f"{LEGACY_NOTE}: {doc.format(summary=operation.summary)}."
        method.__signature__ = _signature(operation, leading)
        setattr(cls, method_name, method)


def _method(call: str, operation: Operation, body: Callable) -> Callable:
    def method(self, tensors, *args, **kwargs):
        return body(self, call, operation, tensors, *args, **kwargs)
    return method
