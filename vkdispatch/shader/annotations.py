"""The signature of a user's shader or map function with its annotations evaluated, refusing an
annotation that names something undefined (a bare NameError said nothing of which parameter)."""
from __future__ import annotations

import inspect
from typing import Callable

from vkdispatch.errors import InvalidTypeError

__all__ = ["evaluated_signature"]


def evaluated_signature(func: Callable) -> inspect.Signature:
    """``inspect.signature(func, eval_str=True)``; InvalidTypeError naming the parameter whose
    string annotation (``from __future__ import annotations``) does not evaluate."""
    try:
        return inspect.signature(func, eval_str=True)
    except NameError as error:
        raise InvalidTypeError(f"{_parameter_of(func)}of {getattr(func, '__name__', func)!r}: "
                               f"its annotation cannot be evaluated ({error}); string "
                               "annotations are evaluated in the function's module, so "
                               "define or import the names used there") from None


def _parameter_of(func: Callable) -> str:
    """"argument 'x' " for the first parameter whose annotation fails to evaluate ("" if none
    can be singled out)."""
    namespace = getattr(inspect.unwrap(func), "__globals__", {})
    for name, annotation in getattr(func, "__annotations__", {}).items():
        if isinstance(annotation, str):
            try:
                eval(annotation, namespace)  # noqa: S307 - the user's own annotation text
            except NameError:
                return f"argument {name!r} "
    return ""
