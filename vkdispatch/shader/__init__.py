"""Layer 4: ``@vd.shader`` and ShaderFunction (trace -> GLSL -> compile -> plan -> dispatch)."""
