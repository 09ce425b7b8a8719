"""The blocks a traced shader has open (if, else-if, else, while, bare scopes).

The statement forms (``vc.if_statement(...)`` ... ``vc.end()``) leave pairing to the user, and a
mistake used to reach the GLSL compiler as a syntax error far from its cause (or worse: an
``else`` after no ``if`` bound to the generated bounds guard and ran). Tracking the open blocks
turns each mistake into an error raised while tracing, at the user's line, or for a block never
closed, naming the line that opened it.
"""
from __future__ import annotations

import contextlib
import dataclasses
import os
import sys

from vkdispatch.errors import InvalidStateError

__all__ = ["BlockStack", "user_frame", "user_location"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_CONTEXTLIB = os.path.abspath(contextlib.__file__)
_CAN_TAKE_ELSE = ("if", "else if")


def user_frame():
    """The innermost caller's frame outside vkdispatch (and outside contextlib, which runs the
    ``with`` forms), or None."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(_PACKAGE + os.sep) and filename != _CONTEXTLIB:
            return frame
        frame = frame.f_back
    return None


def user_location() -> str:
    """``file:line`` of :func:`user_frame`."""
    frame = user_frame()
    if frame is None:
        return "an unknown line"
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


@dataclasses.dataclass
class _OpenBlock:
    kind: str  # "if", "else if", "else", "while" or "scope"
    opened_at: str


class BlockStack:
    """Open blocks, innermost last, and where an ``else`` may follow a closed if-block.

    Positions are statement counts of the builder: an else form is allowed only at the
    position right after an if or else-if block closed, with nothing emitted in between.
    """

    def __init__(self):
        self._open: list[_OpenBlock] = []
        self._else_position: int | None = None

    def open(self, kind: str) -> None:
        self._open.append(_OpenBlock(kind, user_location()))

    def close(self, position: int) -> None:
        """Closes the innermost block, which ends at statement ``position``."""
        if not self._open:
            raise InvalidStateError("vc.end() has no block to close: every vc.end() closes one "
                                    "block opened by vc.if_statement, vc.while_statement, "
                                    "vc.new_scope (or their else forms)")
        block = self._open.pop()
        self._else_position = position if block.kind in _CAN_TAKE_ELSE else None

    def check_else_follows_if(self, form: str, position: int) -> None:
        """Raises unless an if or else-if block closed right at ``position``."""
        if self._else_position != position:
            raise InvalidStateError(f"{form} must directly follow an if or else-if block "
                                    "(a `with vc.if_block(...)` or `with vc.else_if_block(...)` "
                                    "just closed), but none precedes it")

    def switch_to(self, kind: str, form: str) -> None:
        """The legacy ``} else {``: the innermost open block must be an if or else-if."""
        if not self._open or self._open[-1].kind not in _CAN_TAKE_ELSE:
            found = f"an open {self._open[-1].kind} block" if self._open else "no open block"
            raise InvalidStateError(f"{form} continues an open vc.if_statement block (or an "
                                    f"else-if), but there is {found}; a second else or an "
                                    "else after a loop is not allowed")
        self._open[-1] = _OpenBlock(kind, user_location())

    def check_all_closed(self) -> None:
        if self._open:
            block = self._open[-1]
            raise InvalidStateError(f"the {block.kind} block opened at {block.opened_at} is "
                                    "never closed: end it with vc.end(), or write it as a "
                                    "`with` block (vc.if_block(...) and friends)")
