"""Control flow while tracing: ``with vc.if_block(cond):`` and friends, plus the legacy
statement forms (``vc.if_statement(...)`` ... ``vc.end()``) that the tutorials use. The builder
pairs the blocks (``blocks.py``): an else with no if before it, a stray ``vc.end()`` or a block
never closed raises while tracing."""
from __future__ import annotations

import contextlib
from typing import Iterator

from vkdispatch import dtypes as dt
from vkdispatch.codegen.context import get_builder
from vkdispatch.codegen.literals import boolean
from vkdispatch.codegen.variables import ShaderVariable, as_variable, builder_for
from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["if_block", "else_if_block", "else_block", "while_block", "scope_block",
           "return_statement", "any", "all", "if_statement", "if_any", "if_all",
           "else_statement", "else_if_statement", "else_if_any", "else_if_all",
           "while_statement", "new_scope", "end", "logical_and", "logical_or"]


def _condition(value) -> str:
    """GLSL text of a condition: a boolean, or a scalar tested against zero (as Python does)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, ShaderVariable):
        value = as_variable(value, "condition")
        builder_for(value)
        if value.var_type is boolean:
            return value.name
        if dt.is_scalar(value.var_type):
            return f"bool({value.name})"
        raise InvalidTypeError(f"a condition must be a boolean or a scalar, got '{value.name}' "
                               f"of type {value.var_type.name}; combine component tests with "
                               "vc.all(...)/vc.any(...)")
    raise InvalidTypeError(f"a condition must be a shader value or a Python bool, got "
                           f"{value!r} ({type(value).__name__})")


def _open(kind: str, header: str) -> None:
    get_builder().open_block(kind, header + " {")


def end(indent: bool = True) -> None:
    """Closes the innermost block opened by a statement form (legacy API); raises when no
    block is open."""
    get_builder().close_block(indent)


@contextlib.contextmanager
def _block(kind: str, opening: str, indent: bool = True) -> Iterator[None]:
    builder = get_builder()
    builder.open_block(kind, opening, indent)
    yield  # an error inside abandons the whole trace, so the block is closed only on success
    builder.close_block(indent)


def if_block(condition) -> contextlib.AbstractContextManager:
    """``with vc.if_block(cond):`` emits ``if(cond) { ... }``."""
    return _block("if", f"if({_condition(condition)}) {{")


def else_if_block(condition) -> contextlib.AbstractContextManager:
    """``with vc.else_if_block(cond):`` right after an if/else-if block."""
    return _block("else if", f"else if({_condition(condition)}) {{")


def else_block() -> contextlib.AbstractContextManager:
    """``with vc.else_block():`` right after an if/else-if block."""
    return _block("else", "else {")


def while_block(condition) -> contextlib.AbstractContextManager:
    """``with vc.while_block(cond):`` emits ``while(cond) { ... }``."""
    return _block("while", f"while({_condition(condition)}) {{")


def _scope_opening(comment: str | None) -> str:
    return f"{{ /* {comment.replace('*/', '* /')} */" if comment else "{"


def scope_block(indent: bool = True, comment: str | None = None):
    """``with vc.scope_block():`` emits a bare ``{ ... }`` scope (optionally commented)."""
    return _block("scope", _scope_opening(comment), indent)


def return_statement(arg=None) -> None:
    """Emits ``return;`` (or ``return <arg>;``)."""
    builder = get_builder()
    if arg is None:
        builder.emit("return;")
    elif isinstance(arg, str):
        builder.emit(f"return {arg};")
    else:
        value = as_variable(arg, "return value")
        builder_for(value).emit(f"return {value.name};")


def _join(operator: str, conditions) -> ShaderVariable:
    if not conditions:
        raise InvalidArgumentError(f"vc.{'any' if operator == '||' else 'all'}() needs at least "
                                   "one condition")
    parts = [f"({_condition(c)})" for c in conditions]
    return ShaderVariable(boolean, "(" + f" {operator} ".join(parts) + ")", lexical=True)


def any(*conditions) -> ShaderVariable:  # noqa: A001 - the DSL's name
    """``(c1) || (c2) || ...`` as a boolean shader value."""
    return _join("||", conditions)


def all(*conditions) -> ShaderVariable:  # noqa: A001
    """``(c1) && (c2) && ...`` as a boolean shader value."""
    return _join("&&", conditions)


def logical_and(a, b) -> ShaderVariable:
    """``(a) && (b)`` (legacy spelling of ``vc.all(a, b)``)."""
    return _join("&&", (a, b))


def logical_or(a, b) -> ShaderVariable:
    """``(a) || (b)`` (legacy spelling of ``vc.any(a, b)``)."""
    return _join("||", (a, b))


# -- legacy statement forms (each opened block is closed with vc.end()) ------------------------

def if_statement(arg, command: str | None = None) -> None:
    """Opens ``if(arg) {`` (close it with ``vc.end()``); with ``command``, emits the one-line
    ``if(arg) command`` instead."""
    if command is not None:
        get_builder().emit(f"if({_condition(arg)}) {command}")
        return
    _open("if", f"if({_condition(arg)})")


def if_any(*args) -> None:
    """Opens ``if(any of args) {``."""
    _open("if", f"if({any(*args).name})")


def if_all(*args) -> None:
    """Opens ``if(all of args) {``."""
    _open("if", f"if({all(*args).name})")


def else_statement() -> None:
    """Closes the open if-block and opens ``} else {``."""
    get_builder().continue_block("else", "else")


def else_if_statement(arg) -> None:
    """Closes the open if-block and opens ``} else if(arg) {``."""
    get_builder().continue_block("else if", f"else if({_condition(arg)})")


def else_if_any(*args) -> None:
    """``} else if(any of args) {``."""
    get_builder().continue_block("else if", f"else if({any(*args).name})")


def else_if_all(*args) -> None:
    """``} else if(all of args) {``."""
    get_builder().continue_block("else if", f"else if({all(*args).name})")


def while_statement(arg) -> None:
    """Opens ``while(arg) {`` (close it with ``vc.end()``)."""
    _open("while", f"while({_condition(arg)})")


def new_scope(indent: bool = True, comment: str | None = None) -> None:
    """Opens a bare ``{`` scope (optionally commented); close it with ``vc.end(indent)``."""
    get_builder().open_block("scope", _scope_opening(comment), indent)
