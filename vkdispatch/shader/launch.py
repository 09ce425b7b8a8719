"""Launch geometry: workgroup counts and execution limits from ``exec_size``/``workgroups``.

Each may be an int, a tuple of 1-3 ints, a callable taking the call's arguments (by parameter
name), or a string holding a Python expression over the parameter names (``"buf.size"``).
"""
from __future__ import annotations

import builtins
import numbers
from collections import namedtuple
from typing import Any, Callable

from vkdispatch.errors import InvalidArgumentError, VkDispatchError
from vkdispatch.shader.generated_code import evaluate

__all__ = ["LaunchParametersHolder", "ExecutionBounds", "normalize_dimensions",
           "check_local_size"]


def _unknown_parameter(name: str, names) -> KeyError:
    listed = ", ".join(names) or "none"
    return KeyError(f"'{name}' is not a parameter of this shader (its parameters: {listed}); a "
                    f"launch function receives them by name, as in "
                    f"`lambda args: args.{next(iter(names), 'buf')}.size`")


class LaunchParametersHolder:
    """The call's arguments by parameter name (what launch callables receive)."""

    def __init__(self, values: dict[str, Any]):
        object.__setattr__(self, "_values", values)

    def __getattr__(self, name: str):
        try:
            return self._values[name]
        except KeyError:
            raise _unknown_parameter(name, list(self._values)) from None

    def get_names(self) -> list[str]:
        return list(self._values)

    def get_values(self) -> list:
        return list(self._values.values())


def _parameters_type(names: list[str]) -> Callable:
    """A function of the argument values (in parameter order) giving what a launch callable
    receives: LaunchParametersHolder's interface on a tuple type whose attributes are the
    parameters (a third of the holder's cost per call), or the holder itself where a name
    cannot be a tuple field (one with a leading underscore)."""
    try:
        fields = namedtuple("LaunchParameters", names)
    except ValueError:
        return lambda args: LaunchParametersHolder(dict(zip(names, args)))

    class LaunchParameters(fields):
        __slots__ = ()

        def __getattr__(self, name: str):  # reached for names that are not fields only
            raise _unknown_parameter(name, names)

        def get_names(self) -> list[str]:
            return list(names)

        def get_values(self) -> list:
            return list(self)

    # The tuple's own methods are no parameters either (`args.count` must not be tuple.count).
    for name in ("count", "index"):
        if name not in names:
            setattr(LaunchParameters, name, _refused(name, names))
    return LaunchParameters._make


def _checked(compute: Callable, what: str, failed: str, passed_on: tuple = ()) -> Callable:
    """``compute`` (of the argument values) normalized to a 3-tuple; any failure of the user's
    code other than ``passed_on`` becomes InvalidArgumentError: ``failed``, then the error."""
    def checked(args):
        try:
            value = compute(args)
        except passed_on:
            raise
        except Exception as error:  # the user's code: any failure is its own
            raise InvalidArgumentError(f"{failed}: {type(error).__name__}: {error}") from None
        return normalize_dimensions(value, what)
    return checked


def _refused(name: str, names: list[str]) -> property:
    def get(_self):
        raise _unknown_parameter(name, names)
    return property(get)


_PADDING = {1: (1, 1), 2: (1,), 3: ()}


def normalize_dimensions(value, what: str) -> tuple[int, int, int]:
    """An int or a tuple of 1-3 ints as a 3-tuple padded with 1s."""
    if type(value) is int:
        return (value, 1, 1)
    if type(value) is tuple and 0 < len(value) <= 3:
        padded = value + _PADDING[len(value)]
        # What library code passes per call: plain ints need no abstract-class checks.
        if type(padded[0]) is int and type(padded[1]) is int and type(padded[2]) is int:
            return padded
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return (int(value), 1, 1)
    if not isinstance(value, tuple):
        raise InvalidArgumentError(f"{what}: Must provide a tuple of dimensions! (an int or a "
                                   f"tuple of 1-3 ints), got {value!r}")
    if not 1 <= len(value) <= 3:
        raise InvalidArgumentError(f"{what}: Must provide a tuple of length 1, 2, or 3! got "
                                   f"{value!r}")
    if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value):
        raise InvalidArgumentError(f"{what}: All dimensions must be integers! got {value!r}")
    return tuple(int(v) for v in value) + (1,) * (3 - len(value))


def check_local_size(local_size, max_size, max_invocations) -> tuple[int, int, int]:
    """Validates a workgroup size against the device limits."""
    try:
        size = tuple(local_size)
    except TypeError:
        raise InvalidArgumentError(f"local_size must be a sequence of 3 ints, got "
                                   f"{local_size!r}") from None
    if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in size):
        raise InvalidArgumentError(f"local_size must be a sequence of 3 ints, got "
                                   f"{local_size!r}")
    size = tuple(int(v) for v in size)
    if len(size) != 3 or any(v < 1 for v in size):
        raise InvalidArgumentError(f"local_size must be 3 positive ints, got {local_size!r}")
    for axis, (value, limit) in enumerate(zip(size, max_size)):
        if value > limit:
            raise InvalidArgumentError(f"local_size[{axis}] = {value} exceeds the device limit "
                                       f"{limit} (max_workgroup_size {tuple(max_size)})")
    total = size[0] * size[1] * size[2]
    if total > max_invocations:
        raise InvalidArgumentError(f"local_size {size} has {total} invocations, more than the "
                                   f"device limit max_workgroup_invocations = {max_invocations}")
    return size


# The public namespace a launch expression sees as ``vd``: the top-level package hands itself
# down when its import ends (this layer sits below it), before any expression can run.
_PUBLIC: dict = {}


def expose_public_namespace(package) -> None:
    """Makes ``package`` (vkdispatch) the ``vd`` of launch expressions."""
    _PUBLIC["vd"] = package


# What a launch expression may call besides the parameters and ``vd``: arithmetic on sizes, not
# imports or I/O (the expression is text that may come from a configuration file).
_EXPRESSION_BUILTINS = {name: getattr(builtins, name) for name in (
    "abs", "bool", "divmod", "float", "int", "len", "max", "min", "pow", "range", "round", "sum",
    "tuple")}


def _compile_expression(expression: str, names: list[str], what: str) -> Callable:
    source = f"lambda {', '.join(names)}: ({expression})"
    try:
        function = evaluate(source, {**_PUBLIC, "__builtins__": _EXPRESSION_BUILTINS})
    except SyntaxError as error:
        raise InvalidArgumentError(f"{what}={expression!r}: the launch expression is not valid "
                                   f"Python: {error.msg}") from None
    return function


class ExecutionBounds:
    """Resolves ``exec_size``/``workgroups`` (decorator values or per-call overrides) for a
    call's argument values, given positionally in parameter order.

    With a coarsening ``factor`` > 1 each invocation runs that many logical invocations along
    x, so a call launches that many times fewer along x (the limits stay the logical ones).
    ``workgroups`` count in workgroups of ``nominal_local_size`` (what the shader would have
    without coarsening): the call runs as many logical invocations as the user asked for."""

    def __init__(self, names: list[str], local_size, workgroups, exec_size, factor: int = 1,
                 nominal_local_size=None):
        self.names = names
        self.local_size = local_size
        self.factor = factor
        self.nominal_local_size = tuple(nominal_local_size or local_size)
        # workgroups= counts are re-divided into the launch's own workgroups
        self._regroup = factor > 1 or self.nominal_local_size != tuple(local_size)
        self._parameters = None  # _parameters_type(names), made for the first callable
        self.workgroups = self._resolver(workgroups, "workgroups")
        self.exec_size = self._resolver(exec_size, "exec_size")

    def _resolver(self, spec, what: str) -> Callable | None:
        """A function of the argument values giving a 3-tuple (None when ``spec`` is None)."""
        if spec is None:
            return None
        if isinstance(spec, str):
            expression = _compile_expression(spec, self.names, what)
            return _checked(lambda args: expression(*args), what,
                            f"{what}={spec!r}: the expression over the parameters "
                            f"({', '.join(self.names)}) failed")
        if callable(spec):
            if self._parameters is None:  # made once: a class per call would cost ~50 us
                self._parameters = _parameters_type(self.names)
            parameters = self._parameters
            # Ours pass through, and the KeyError naming a parameter the shader lacks.
            return _checked(lambda args: spec(parameters(args)), what,
                            f"{what}={spec!r:.80}: the launch function failed",
                            (VkDispatchError, KeyError))
        dimensions = normalize_dimensions(spec, what)
        return lambda _args: dimensions

    def get_blocks_and_limits(self, args: tuple, workgroups=None, exec_size=None,
                              max_count=(2**31 - 1,) * 3):
        """``(blocks, exec_limits)`` for one call; validates the counts against the device.
        A call may give ``workgroups`` or ``exec_size`` (not both, as for the decorator); either
        replaces the decorator's geometry."""
        if workgroups is None and exec_size is None:
            workgroups, exec_size = self.workgroups, self.exec_size
        elif workgroups is not None and exec_size is not None:
            raise InvalidArgumentError(
                f"Cannot specify both 'workgroups' and 'exec_size' in one call (got "
                f"workgroups={workgroups!r:.60}, exec_size={exec_size!r:.60}); give one of them")
        else:  # the call's own geometry replaces the decorator's
            workgroups = self._resolver(workgroups, "workgroups")
            exec_size = self._resolver(exec_size, "exec_size")
        if exec_size is not None:
            limits = exec_size(args)
            (ex, ey, ez), (sx, sy, sz) = limits, self.local_size
            blocks = (-(-ex // (sx * self.factor)), -(-ey // sy), -(-ez // sz))  # ceilings
        elif workgroups is not None:
            blocks = workgroups(args)
            limits = tuple(b * s for b, s in zip(blocks, self.nominal_local_size))
        else:
            blocks = limits = (0, 0, 0)
        bx, by, bz = blocks
        if 0 < bx <= max_count[0] and 0 < by <= max_count[1] and 0 < bz <= max_count[2]:
            if exec_size is None and self._regroup:
                sx, sy, sz = self.local_size
                blocks = (-(-limits[0] // (sx * self.factor)), -(-limits[1] // sy),
                          -(-limits[2] // sz))
            return blocks, limits
        self._raise_for_counts(blocks, limits, exec_size is not None, workgroups is not None,
                               max_count)

    @staticmethod
    def _raise_for_counts(blocks, limits, from_exec_size: bool, from_workgroups: bool,
                          max_count) -> None:
        # Worded here, on failure only: calls that pass the check format nothing.
        source = f"exec_size={limits}" if from_exec_size else \
            f"workgroups={blocks}" if from_workgroups else "neither exec_size nor workgroups"
        for axis, (count, limit) in enumerate(zip(blocks, max_count)):
            if count <= 0:
                raise InvalidArgumentError(
                    f"Workgroup count for dimension {axis} must be greater than 0! (give "
                    f"exec_size or workgroups; got {source})")
            if count > limit:
                raise InvalidArgumentError(f"Workgroup count ({count}) for dimension {axis} "
                                           f"exceeds maximum allowed size ({limit})! (got "
                                           f"{source})")
