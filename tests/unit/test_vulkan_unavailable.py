"""Without a Vulkan loader, driver or device, ``import vkdispatch`` and ``import kp`` work and the
first call that needs a device raises ``VulkanUnavailableError`` naming what to install.

Each case runs tests/wheel/smoke.py (which ``make test-wheel`` also runs against the installed
wheel) in a child process under one condition; see that script for how each is made.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SMOKE = Path(__file__).resolve().parents[1] / "wheel" / "smoke.py"
SKIPPED = 3  # smoke.py's exit status when the condition cannot be made on this machine


@pytest.mark.parametrize("condition", ["no-driver", "no-device", "no-loader"])
def test_vulkan_unavailable_import_works_and_first_use_says_what_to_install(condition):
    result = subprocess.run([sys.executable, str(SMOKE), "--unavailable", condition],
                            capture_output=True, text=True, timeout=300)
    if result.returncode == SKIPPED:
        pytest.skip(result.stdout.strip())
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("ok   ") == 4, result.stdout
