"""The package's layers import only downward: errors and the native bridge -> the dtypes ->
base and codegen -> shader -> execution_pipeline -> the libraries on top. Layers of one rank are
siblings that never import each other (codegen traces shaders without the runtime, and base runs
them without the DSL); only base touches the native bridge, by import or through a handle's
``_native`` object. The Kompute-compatible ``kp`` package (top level, beside ``vkdispatch``) is
checked by the same rules, except that its objects wrap native objects of their own (the C++ kp
classes): they use ``._native``, and load the extension through ``vkdispatch.base``; and it
takes SPIR-V, never the DSL, so it does not import codegen. Checked on the source with ``ast``,
so a new upward import fails here before it becomes a cycle (docs/architecture.rst
describes the layers)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import vkdispatch

PACKAGE = Path(vkdispatch.__file__).parent
KP_PACKAGE = PACKAGE.parent / "kp"
RANKS = {"errors": 0, "_native": 0, "dtypes": 1, "base": 2, "codegen": 2, "shader": 3,
         "execution_pipeline": 4, "reduce": 5, "fft": 5, "vkfft": 5, "kp": 5}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[0] in RANKS:
            yield ".".join(parts), path
    for path in sorted(KP_PACKAGE.rglob("*.py")):
        yield ".".join(("kp",) + path.relative_to(KP_PACKAGE).with_suffix("").parts), path


def _imported(tree: ast.Module, module: str):
    """Absolute names of what a module imports from vkdispatch (at any depth):
    ``from a.b import c`` gives ``a.b.c``."""
    package = module.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name.startswith("vkdispatch"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ["vkdispatch"] + package[:len(package) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name.split(".")[0] == "vkdispatch":
                yield from (f"{name}.{alias.name}" for alias in node.names)


def _native_uses(tree: ast.Module) -> list[int]:
    """Lines that reach a handle's native object (``x._native``)."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr == "_native"]


def _violations(module: str, tree: ast.Module) -> list[str]:
    own = module.split(".")[0]
    found = [f"{module} line {line} uses ._native (only base touches native objects)"
             for line in _native_uses(tree)] if own not in ("base", "kp") else []
    for target in _imported(tree, module):
        parts = target.split(".")
        layer = parts[1] if len(parts) > 1 else "vkdispatch"
        if layer == "_native" and own != "base":
            found.append(f"{module} imports {target} (only base touches the native module)")
        elif layer == "codegen" and own == "kp":
            found.append(f"{module} imports {target} (kp must not import codegen)")
        elif RANKS.get(layer, 99) > RANKS[own]:
            found.append(f"{module} imports {target}, a higher layer")
        elif layer != own and RANKS.get(layer) == RANKS[own]:
            found.append(f"{module} imports {target}, a sibling layer")
    return found


@pytest.mark.parametrize("module,path", list(_modules()), ids=lambda v: str(v))
def test_module_imports_only_its_own_or_lower_layers(module, path):
    assert _violations(module, ast.parse(path.read_text())) == []


def test_every_folder_of_the_package_has_a_layer():
    """A new folder must be placed in RANKS, or its imports would go unchecked."""
    folders = {path.parent.relative_to(PACKAGE).parts[0] for path in PACKAGE.rglob("*.py")
               if path.parent != PACKAGE}
    assert folders - RANKS.keys() == set()


def test_the_check_catches_upward_and_sideways_imports():
    """The checker itself: the imports this suite exists to forbid are reported."""
    upward = ast.parse("from vkdispatch.execution_pipeline.command_graph import CommandGraph")
    assert _violations("shader.shader_function", upward)
    relative = ast.parse("from ..execution_pipeline import graphs")
    assert _violations("shader.call_layout", relative)
    sideways = ast.parse("import vkdispatch.base.context")
    assert _violations("codegen.builder", sideways)
    assert _violations("codegen.builder", ast.parse("from vkdispatch.base import dtype"))
    assert _violations("base.buffer", ast.parse("from vkdispatch.codegen import coercion"))
    assert _violations("fft.functions", ast.parse("from vkdispatch.reduce import reduce"))
    dtypes = ast.parse("from vkdispatch import dtypes as dt")
    assert not _violations("codegen.builder", dtypes)
    assert not _violations("base.buffer", dtypes)
    assert _violations("dtypes", ast.parse("from vkdispatch.base.context import get_context"))
    assert not _violations("dtypes", ast.parse("from vkdispatch.errors import InvalidTypeError"))
    native = ast.parse("from vkdispatch import _native")
    assert _violations("shader.shader_function", native)
    assert not _violations("base.backend", native)
    assert not _violations("execution_pipeline.graphs",
                           ast.parse("from vkdispatch.shader.dispatch_target import x"))
    reaches_native = ast.parse("def f(graph):\n    graph._native.submit()")
    assert _violations("execution_pipeline.command_graph", reaches_native)
    assert not _violations("kp.manager", reaches_native)
    assert _violations("kp.manager", native)
    assert not _violations("base.command_list", reaches_native)
    assert _violations("kp.algorithm", ast.parse("import vkdispatch.codegen"))
