"""Layer 2: Python handles over the native runtime (devices, context, buffers)."""
# ``vkdispatch.base.dtype`` was an attribute of this package in vkdispatch 0.1.0.
from vkdispatch.base import dtype  # noqa: F401
