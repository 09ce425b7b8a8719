"""Programs of the ``kp`` suites: GLSL compute shaders compiled once, and a dispatch helper."""
from __future__ import annotations

import functools

import kp


@functools.lru_cache(maxsize=None)
def spirv(source: str) -> bytes:
    """SPIR-V of a GLSL compute shader (compiled once per source)."""
    return kp.Shader.compile_source(source)


def buffers(*declarations: str) -> str:
    """GLSL storage-buffer blocks: ``buffers("float a", "uint b")`` binds a at 0 and b at 1."""
    return "\n".join(
        f"layout(set = 0, binding = {i}) buffer B{i} {{ {decl}[]; }};"
        for i, decl in enumerate(declarations))


def shader(body: str, *declarations: str, head: str = "", local_size: int = 1) -> bytes:
    """SPIR-V of ``void main() { body }`` with ``i`` the global invocation index."""
    return spirv(f"""#version 450
layout(local_size_x = {local_size}) in;
{head}
{buffers(*declarations)}
void main() {{
    uint i = gl_GlobalInvocationID.x;
    {body}
}}
""")


def run(mgr: kp.Manager, algorithm: kp.Algorithm, outputs=(), push_consts=None):
    """Syncs the algorithm's tensors to the device, dispatches it and syncs ``outputs`` back."""
    dispatch = (kp.OpAlgoDispatch(algorithm) if push_consts is None
                else kp.OpAlgoDispatch(algorithm, push_consts))
    sequence = mgr.sequence().record(kp.OpSyncDevice(algorithm.get_mem_objects()))
    sequence.record(dispatch)
    if outputs:
        sequence.record(kp.OpSyncLocal(list(outputs)))
    return sequence.eval()
