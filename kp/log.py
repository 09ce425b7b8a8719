"""The ``"kp"`` logger, which Kompute's module logs to: the records of the ``kp`` layer, Python
and native, go there (vkdispatch's own stay under ``"vkdispatch"``), so a Kompute program's
``logging.getLogger("kp")`` set-up keeps working.

Native messages of the Kompute layer start with ``kp::`` or ``Kompute ``. Native code drops
messages below a threshold before formatting them; it follows this logger's level each time a
:class:`kp.Manager` is made, and at :func:`log_level`.
"""
from __future__ import annotations

import logging

from vkdispatch.base.log import attach_native, claim_native_prefix, refresh_native_threshold
from vkdispatch.errors import InvalidArgumentError

from kp.native import native as _native

__all__ = ["logger", "log_level", "refresh_native_threshold"]

logger = logging.getLogger("kp")

# Kompute 0.4-0.5's kp.log_level(n): TRACE=0, DEBUG=1, INFO=2, WARN=3, ERROR=4.
_KOMPUTE_LEVELS = (logging.DEBUG, logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR)

for _prefix in ("kp::", "Kompute "):
    claim_native_prefix(_prefix, logger)
attach_native(_native)


def log_level(level: int) -> None:
    """Legacy (Kompute 0.4-0.5): shows the ``kp`` records at ``level`` and above, counted as
    Kompute did (0 trace, 1 debug, 2 info, 3 warn, 4 error; trace is logged as debug).

    ``logging.getLogger("kp").setLevel(...)`` does the same the standard way.
    """
    if type(level) is not int or level not in range(len(_KOMPUTE_LEVELS)):  # bool is no level
        raise InvalidArgumentError("kp.log_level: level must be an int from 0 (trace) to 4 "
                                   f"(error), got {level!r}")
    logger.setLevel(_KOMPUTE_LEVELS[level])
    refresh_native_threshold()
