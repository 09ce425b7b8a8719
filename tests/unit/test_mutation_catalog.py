"""The deliberate bugs of tests/mutation/catalog.py stay applicable: each entry's text occurs
exactly once in its file (the runner refuses a stale entry, but only `make mutation` runs it),
changes something, and names a kind the runner knows and tests that exist."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KINDS = {"pytest", "pytest-debug", "gtest", "gtest-debug"}


def _catalog():
    spec = importlib.util.spec_from_file_location("mutation_catalog",
                                                  ROOT / "tests" / "mutation" / "catalog.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module.MUTANTS


MUTANTS = _catalog()


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_each_mutant_applies_once_and_names_its_tests(mutant):
    text = (ROOT / mutant.path).read_text()
    assert text.count(mutant.original) == 1, f"{mutant.name}: stale text in {mutant.path}"
    assert mutant.mutated != mutant.original
    assert mutant.kind in KINDS
    if mutant.kind.startswith("pytest"):
        arguments = mutant.tests.split()
        paths = [a for i, a in enumerate(arguments)
                 if not a.startswith("-") and (i == 0 or arguments[i - 1] != "-k")]
        assert paths, mutant.name
        for path in paths:
            assert (ROOT / path.split("::")[0]).exists(), path


def test_names_are_unique():
    names = [m.name for m in MUTANTS]
    assert len(names) == len(set(names))
