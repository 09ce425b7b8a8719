"""``kp.Shader.compile_source``: GLSL compute source to SPIR-V in-process (no glslangValidator)."""
from __future__ import annotations

from kp.native import native as _native


class Shader:
    __module__ = "kp"

    @staticmethod
    def compile_source(source: str) -> bytes:
        """SPIR-V bytes for ``kp.Manager.algorithm``; RuntimeError with the compiler's log when
        ``source`` does not compile."""
        if not isinstance(source, str):
            raise TypeError(f"Shader.compile_source: source must be GLSL text (str), got "
                            f"{type(source).__name__}")
        return _native.kp_compile_source(source)
