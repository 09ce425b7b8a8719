# The GLSL compiler (included by wrapper.pyx): one shaderc compiler for the process, made on first
# use.


cdef unique_ptr[rt.Compiler] _compiler


def compile_glsl(str source, str name="shader", int optimization=2):
    """Compiles a GLSL compute shader. Returns ``(ok, spirv: bytes, log: str)``."""
    global _compiler
    if not _compiler:
        _compiler.reset(new rt.Compiler())
    cdef string src = source.encode()
    cdef string label = name.encode()
    cdef rt.CompileResult result
    with nogil:
        result = _compiler.get().compileCompute(src, label, <rt.Optimization>optimization)
    cdef bytes spirv = b""
    if result.spirv.size():
        spirv = (<char*>result.spirv.data())[:result.spirv.size() * 4]
    return bool(result.ok), spirv, result.log.decode("utf-8", "replace")


def compiler_version():
    return rt.Compiler.version().decode()
