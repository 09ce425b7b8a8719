"""examples/mpi_batch.py under mpirun with 2 and 3 processes (each its own vkdispatch context on
the test device): rank 0 gathers the slices and the sums and checks them against numpy (the
example exits 1 when they differ), including a batch shorter than the process count."""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from helpers import EXAMPLES


def mpirun(processes: int, *arguments: str) -> subprocess.CompletedProcess:
    command = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", str(processes),
               sys.executable, str(EXAMPLES / "mpi_batch.py"), *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module", autouse=True)
def _mpi(context):
    pytest.importorskip("mpi4py", reason="mpi4py is installed by the test extra")
    if shutil.which("mpirun") is None:
        pytest.skip("no mpirun (deps/debian-packages.txt installs openmpi-bin)")


@pytest.mark.parametrize("processes, samples", [(2, 200_003), (3, 2)])
def test_mpi_batch_gathers_what_numpy_computes(processes, samples):
    done = mpirun(processes, "--samples", str(samples))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{processes} processes on:" in done.stdout
    assert "check passed" in done.stdout
