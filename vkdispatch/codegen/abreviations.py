"""Alias of :mod:`vkdispatch.codegen.abbreviations` (the spelling used by older tutorials)."""
from vkdispatch.codegen.abbreviations import *  # noqa: F401,F403
from vkdispatch.codegen.abbreviations import __all__  # noqa: F401
