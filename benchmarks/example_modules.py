"""The programs of examples/ as modules, for benchmarks that time their kernels or check against
their models."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

_EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load_example(name: str) -> ModuleType:
    """examples/<name>.py, imported (and registered in sys.modules: dataclasses look their
    module up there)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", _EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
