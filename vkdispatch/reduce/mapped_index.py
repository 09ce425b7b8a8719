"""``vd.reduce.mapped_io_index()``: the element a reduction's mapping function is loading."""
from __future__ import annotations

import contextlib
import threading
from typing import Iterator, Optional

from vkdispatch.codegen.variables import ShaderVariable

__all__ = ["mapped_io_index", "mapped_index_scope"]


class _Current(threading.local):
    index: Optional[ShaderVariable] = None


_current = _Current()


def mapped_io_index() -> Optional[ShaderVariable]:
    """The flat element index (batch offset included) the first stage is consuming, inside
    a reduction's mapping function; None elsewhere. Index every input buffer with it."""
    return _current.index


@contextlib.contextmanager
def mapped_index_scope(index: ShaderVariable) -> Iterator[None]:
    _current.index = index
    try:
        yield
    finally:
        _current.index = None
