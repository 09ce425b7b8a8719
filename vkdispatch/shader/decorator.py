"""``@vd.shader(...)``: traces a typed Python function into a ShaderFunction."""
from __future__ import annotations

import inspect
import sys
import types
from typing import Any, Callable

from vkdispatch.base.profile import note_source
from vkdispatch.codegen.builder import ShaderFlags
from vkdispatch.codegen.tracing import trace
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError, VkDispatchError
from vkdispatch.shader.annotations import evaluated_signature
from vkdispatch.shader.shader_function import NO_DEFAULT, ShaderFunction

__all__ = ["shader"]


_PLAIN_FLAGS_MASK = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS


def _signature(func: Callable) -> list[tuple[str, Any, Any]]:
    """``(name, annotation, default)`` per parameter, as ``inspect.signature(func,
    eval_str=True)`` has them (``inspect.Parameter.empty`` where absent). A plain function with
    evaluated annotations is read directly: inspect.signature costs 15-60 us per new kernel."""
    code = getattr(func, "__code__", None)
    annotations = getattr(func, "__annotations__", None)
    if (type(func) is not types.FunctionType or hasattr(func, "__wrapped__")
            or code.co_flags & _PLAIN_FLAGS_MASK or code.co_kwonlyargcount
            or code.co_posonlyargcount or not isinstance(annotations, dict)
            or any(isinstance(a, str) for a in annotations.values())):
        return [(p.name, p.annotation, p.default)
                for p in evaluated_signature(func).parameters.values()]
    names = code.co_varnames[:code.co_argcount]
    defaults = func.__defaults__ or ()
    first_default = len(names) - len(defaults)
    return [(name, annotations.get(name, inspect.Parameter.empty),
             defaults[i - first_default] if i >= first_default else inspect.Parameter.empty)
            for i, name in enumerate(names)]


def _parameters(func: Callable, annotations, names, defaults) -> list[tuple[str, Any, Any]]:
    if annotations is None:
        if names is not None or defaults is not None:
            raise InvalidArgumentError("If 'arg_type_annotations' is not provided, 'arg_names' "
                                       "and 'arg_defaults' must also be None")
        out = _signature(func)
        for name, annotation, _default in out:
            if annotation is inspect.Parameter.empty:
                raise InvalidArgumentError(f"All parameters must be annotated: '{name}' of "
                                           f"{func.__name__} has no annotation (e.g. "
                                           "Buff[f32], Const[f32], Var[i32])")
        return out
    names = names or [f"param{i}" for i in range(len(annotations))]
    defaults = defaults or [NO_DEFAULT] * len(annotations)
    return list(zip(names, annotations, defaults))


def _user_location(error: BaseException, func: Callable) -> str:
    """``file:line`` of the deepest frame of ``func`` in the error's traceback."""
    code = getattr(func, "__code__", None)
    tb, found = error.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code is code:
            found = tb
        tb = tb.tb_next
    if found is None:
        return ""
    return f"{found.tb_frame.f_code.co_filename}:{found.tb_lineno}"


def shader(exec_size=None, local_size=None, workgroups=None, flags: ShaderFlags = ShaderFlags.NONE,
           arg_type_annotations: list | None = None, arg_names: list[str] | None = None,
           arg_defaults: list | None = None,
           coarsen: bool | int | None = None) -> Callable[[Callable], ShaderFunction]:
    """Decorator factory: ``@vd.shader("buf.size")`` traces the function once, right away.

    Args:
        exec_size: total invocations (int, tuple, callable of the arguments, or an expression
            string over the parameter names); a bounds guard masks the overshoot.
        local_size: workgroup size (3 ints; default ``(max_workgroup_size[0], 1, 1)``).
        workgroups: workgroup counts instead of ``exec_size``.
        flags: ShaderFlags.
        coarsen: logical invocations run per invocation (beyond vkdispatch 0.1.0): None (or
            True) picks the device's default where the shader allows it
            (``VKDISPATCH_COARSEN`` overrides), False or 1 turns it off, an int up to 64
            forces it (ValueError above 64, or where the shader uses shared memory, barriers,
            subgroups, local or workgroup ids or returns early).
            ``get_src()`` shows the variant built.

    Raises:
        TypeError/ValueError: a misuse while tracing; the message ends with the line of the
            decorated function where it happened.
    """
    if callable(exec_size) and hasattr(exec_size, "__code__") and \
            exec_size.__code__.co_argcount > 1:
        raise InvalidTypeError("@vd.shader must be called: write @vd.shader() or "
                               "@vd.shader(exec_size)")
    if workgroups is not None and exec_size is not None:
        raise InvalidArgumentError("Cannot specify both 'workgroups' and 'exec_size'")

    def decorate(func: Callable) -> ShaderFunction:
        arguments = _parameters(func, arg_type_annotations, arg_names, arg_defaults)
        try:
            description = trace(func, arguments, flags, func.__name__)
        except VkDispatchError as error:
            location = _user_location(error, func)
            if location and error.args and isinstance(error.args[0], str):
                error.args = (f"{error.args[0]} [in shader '{func.__name__}' at {location}]",
                              *error.args[1:])
            raise error.with_traceback(sys.exc_info()[2])
        note_source(description.name, func)
        return ShaderFunction(description, local_size, workgroups, exec_size, coarsen)

    return decorate
