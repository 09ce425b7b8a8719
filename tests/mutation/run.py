"""Mutation check: applies each deliberate bug of catalog.py to the source, one at a time, runs
the tests that should catch it, and restores the file. A mutant the tests do not catch
("survived") is a gap in the suite.

    .venv/bin/python tests/mutation/run.py [--only NAME ...] [--list]

Run by ``make mutation`` (not part of ``make test``: each native mutant rebuilds the gtest
binary). It edits the working tree while it runs, so nothing else should use the checkout
meanwhile; every file is restored, also on Ctrl-C or a failure. Exit status 1 when a mutant
survived.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from catalog import MUTANTS, Mutant  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PYTHON = str(ROOT / ".venv" / "bin" / "python")
NATIVE_BUILD = ROOT / "build" / "native"


def _run(command: list[str], env: dict | None = None) -> bool:
    """Whether ``command`` succeeded (output kept out of the report)."""
    result = subprocess.run(command, cwd=ROOT, env={**os.environ, **(env or {})},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return result.returncode == 0


def _build_native() -> bool:
    return _run(["cmake", "--build", str(NATIVE_BUILD), "-j", str(os.cpu_count() or 2)])


def _tests_pass(mutant: Mutant) -> bool:
    """Whether the mutant's tests pass (a mutant that does not build counts as caught)."""
    env = {"VKDISPATCH_DEBUG": "1"} if mutant.kind.endswith("-debug") else None
    if mutant.kind.startswith("gtest"):
        return _build_native() and _run([str(NATIVE_BUILD / "vkdispatch_tests"),
                                         f"--gtest_filter={mutant.tests}"], env)
    return _run([PYTHON, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                 *mutant.tests.split()], env)


def check(mutant: Mutant) -> bool:
    """Applies the mutant, runs its tests, restores the file; True when the tests caught it."""
    path = ROOT / mutant.path
    original = path.read_text()
    if original.count(mutant.original) != 1:
        raise SystemExit(f"{mutant.name}: the text to mutate occurs "
                         f"{original.count(mutant.original)} times in {mutant.path} (expected "
                         "once): update catalog.py")
    try:
        path.write_text(original.replace(mutant.original, mutant.mutated))
        return not _tests_pass(mutant)
    finally:
        path.write_text(original)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", help="names of the mutants to run")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = parser.parse_args()
    mutants = [m for m in MUTANTS if not args.only or m.name in args.only]
    if args.list:
        for mutant in mutants:
            print(f"{mutant.name:<36} {mutant.kind:<12} {mutant.path}")
        return
    if any(m.kind.startswith("gtest") for m in mutants):
        subprocess.run(["cmake", "-S", "vkdispatch_native", "-B", str(NATIVE_BUILD),
                        "-DCMAKE_BUILD_TYPE=Release"], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
    survived = []
    try:
        for mutant in mutants:
            start = time.perf_counter()
            caught = check(mutant)
            print(f"{'caught  ' if caught else 'SURVIVED'} {mutant.name:<36} "
                  f"({time.perf_counter() - start:5.1f} s) {mutant.what}", flush=True)
            if not caught:
                survived.append(mutant.name)
    finally:
        if any(m.kind.startswith("gtest") for m in mutants):
            _build_native()  # the restored sources
    print(f"\nscore: {len(mutants) - len(survived)} of {len(mutants)} mutants caught")
    sys.exit(1 if survived else 0)


if __name__ == "__main__":
    main()
