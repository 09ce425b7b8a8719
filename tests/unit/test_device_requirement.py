"""Without a usable Vulkan device the device tests skip, unless VKDISPATCH_REQUIRE_DEVICE is
set (as the Makefile's test targets do): then they fail, so CI cannot pass by skipping them."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REQUIRE_DEVICE, device_missing

TESTS = Path(__file__).resolve().parents[1]
# Caught together, so that a skip where a failure is due fails the test instead of skipping it.
OUTCOMES = (pytest.skip.Exception, pytest.fail.Exception)


@pytest.mark.parametrize("environ", [{}, {REQUIRE_DEVICE: ""}, {REQUIRE_DEVICE: "0"}],
                         ids=["unset", "empty", "zero"])
def test_device_missing_without_requirement_skips_with_the_reason(environ):
    with pytest.raises(OUTCOMES, match="^no usable Vulkan device: no ICD$") as outcome:
        device_missing("no usable Vulkan device: no ICD", environ)
    assert outcome.type is pytest.skip.Exception


@pytest.mark.parametrize("value", ["1", "yes"])
def test_device_missing_with_requirement_fails_naming_reason_and_variable(value):
    with pytest.raises(OUTCOMES, match=f"^Vulkan unavailable: no loader \\({REQUIRE_DEVICE}="
                                       f"{value}: ") as outcome:
        device_missing("Vulkan unavailable: no loader", {REQUIRE_DEVICE: value})
    assert outcome.type is pytest.fail.Exception


def _run_session_without_driver(tmp_path: Path, require: str | None) -> subprocess.CompletedProcess:
    """Runs one test that takes the suite's ``context`` fixture (the real conftest.py), with
    the Vulkan loader pointed at a driver that does not exist."""
    for name in ("conftest.py", "helpers.py"):
        shutil.copy(TESTS / name, tmp_path / name)
    (tmp_path / "test_needs_device.py").write_text(
        "def test_needs_device(context):\n    assert context is not None\n")
    env = {k: v for k, v in os.environ.items()
           if k not in (REQUIRE_DEVICE, "VKDISPATCH_DEBUG", "VKDISPATCH_BACKEND")}
    missing = str(tmp_path / "no_such_icd.json")
    env.update(VK_DRIVER_FILES=missing, VK_ICD_FILENAMES=missing, VK_ADD_DRIVER_FILES="")
    if require is not None:
        env[REQUIRE_DEVICE] = require
    options = ["-q", "-rs", "-p", "no:cacheprovider", "-p", "no:hypothesispytest",
               "-o", "markers=gpu: needs a Vulkan device"]
    return subprocess.run([sys.executable, "-m", "pytest", *options, str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_context_fixture_without_a_driver_skips_by_default(tmp_path):
    result = _run_session_without_driver(tmp_path, None)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 skipped" in result.stdout and "Vulkan" in result.stdout, result.stdout


def test_context_fixture_without_a_driver_fails_when_a_device_is_required(tmp_path):
    result = _run_session_without_driver(tmp_path, "1")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 error" in result.stdout and f"{REQUIRE_DEVICE}=1" in result.stdout, result.stdout
