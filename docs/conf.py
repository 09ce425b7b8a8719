"""Sphinx configuration of the vkdispatch documentation.

Build with ``make docs`` (or ``python3 -m sphinx -W --keep-going -b html docs docs/_build/html``).
The native extension is mocked, so the documentation builds on machines without it.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _read_version() -> str:
    """``__version__`` from vkdispatch/__init__.py, read as text (no import, no native code)."""
    text = (ROOT / "vkdispatch" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r"""^__version__\s*=\s*["']([^"']+)["']""", text, re.MULTILINE)
    if match is None:
        raise RuntimeError("docs/conf.py: no __version__ line in vkdispatch/__init__.py")
    return match.group(1)


# -- Project -------------------------------------------------------------------------------------

project = "vkdispatch"
author = "the vkdispatch developers"
copyright = "the vkdispatch developers"
release = _read_version()
version = ".".join(release.split(".")[:2])

# -- General -------------------------------------------------------------------------------------

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]

exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
nitpicky = False

# -- autodoc / napoleon --------------------------------------------------------------------------

# The compiled extension is loaded lazily by vkdispatch; mocking it lets autodoc import the
# package on a machine where it was never built.
autodoc_mock_imports = ["vkdispatch._native"]
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"member-order": "bysource"}

napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_include_init_with_doc = False

# -- HTML ----------------------------------------------------------------------------------------

html_theme = "alabaster"
html_title = f"vkdispatch {release}"
html_theme_options = {
    "description": "GPU compute from Python, on any Vulkan device",
    "fixed_sidebar": True,
}


# -- Presentation of the dtype classes ----------------------------------------------------------
# Dtypes are classes that are never instantiated: show them without a constructor signature, and
# without the ``child_type``/``scalar`` aliases that their one-line docstrings already state.


def _is_dtype_class(obj) -> bool:
    from vkdispatch.dtypes import dtype

    return isinstance(obj, type) and issubclass(obj, dtype)


def _dtype_signature(app, what, name, obj, options, signature, return_annotation):
    if what == "class" and _is_dtype_class(obj):
        return "", None
    return None


def _skip_dtype_aliases(app, what, name, obj, skip, options):
    if what == "class" and name in ("child_type", "scalar") and _is_dtype_class(obj):
        return True
    return None


def setup(app):
    app.connect("autodoc-process-signature", _dtype_signature)
    app.connect("autodoc-skip-member", _skip_dtype_aliases)
