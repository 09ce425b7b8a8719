"""Integer settings that an argument or a ``VKDISPATCH_*`` environment variable gives, checked
against their range with an error naming the setting, the range and the value."""
from __future__ import annotations

import os

from vkdispatch.errors import InvalidArgumentError

__all__ = ["checked_int", "int_from_environment"]


def checked_int(value, name: str, minimum: int, maximum: int) -> int:
    """``value`` when it is an int in ``[minimum, maximum]``; else InvalidArgumentError."""
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise InvalidArgumentError(f"{name} must be an int between {minimum} and {maximum}, "
                                   f"got {value!r}")
    return value


def int_from_environment(variable: str, minimum: int, maximum: int) -> int | None:
    """The int in environment variable ``variable`` (None when unset or empty), checked like
    :func:`checked_int`."""
    text = os.environ.get(variable)
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        value = text  # reported as given
    return checked_int(value, variable, minimum, maximum)
