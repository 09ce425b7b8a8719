"""Layer 2: Python handles over the native runtime (devices, context, dtypes, buffers)."""
