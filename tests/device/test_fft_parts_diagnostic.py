"""benchmarks/fft_parts.py, the FFT's cost by parts: each variant's patch must still take (a
renamed internal would leave a variant timing the committed code under another name)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "fft_parts.py"
WRONG_BY_DESIGN = {"no-exchange", "no-twiddles", "no-butterflies"}


@pytest.mark.parametrize("mode", [[], ["--convolve"]], ids=["fft", "convolve"])
def test_every_variant_changes_what_it_names_and_only_that(mode):
    """N = 64 (four threads a line: staged loads, one exchange, twiddles, several lines a
    group), transforms and fused convolutions: the variants that keep a right result stay
    within numpy's tolerance, the others are wrong, so each patch reached the shader."""
    result = subprocess.run([sys.executable, str(SCRIPT), "--sizes", "6", "--repeats", "1",
                             "--mib", "1", *mode], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [line for line in result.stdout.splitlines() if line.startswith("|")]
    variants = [name.strip() for name in lines[0].strip("|").split("|")[1:]]
    assert set(variants) == {"committed", "no-exchange", "no-staging", "odd-pitch",
                             "no-twiddles", "no-butterflies"}
    cells = [cell.split() for cell in lines[2].strip("|").split("|")[1:]]
    assert lines[2].split("|")[1].strip() == "64"
    for variant, cell in zip(variants, cells):
        ratio, error = float(cell[0]), float(cell[-1])
        assert ratio > 0
        if variant in WRONG_BY_DESIGN:
            assert error > 1e-2, f"{variant} computed the right transform: its patch missed"
        else:
            assert error < 1e-5, f"{variant}: error {error}"
