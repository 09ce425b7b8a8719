"""One process per GPU (or per host) under MPI: a batch split over the processes, each driving
its own device with vkdispatch, the results gathered by rank 0.

Every process makes the same batch (same seed), takes its slice of it, passes the slice through
the polynomial of examples/batch_over_queues.py on its device and sums it there (vd.reduce).
The slices come back to rank 0 with ``Gatherv`` and the sums with ``allreduce``; rank 0 checks
both against numpy. Processes on one host take different GPUs (their rank within the host,
modulo the GPUs it has); without a GPU every process uses the CPU device (lavapipe).

    mpirun -n 2 python examples/mpi_batch.py                    # two processes on this host
    mpirun -n 8 --hostfile hosts python examples/mpi_batch.py --samples 100000000
    (as root, Open MPI also wants --allow-run-as-root)

Needs mpi4py (``pip install mpi4py``) and an MPI implementation (Debian: ``openmpi-bin``).
Rank 0 prints the check; the exit status is 1 when a result differs from numpy.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np
from mpi4py import MPI

import vkdispatch as vd

_EXAMPLE = Path(__file__).resolve().parent / "batch_over_queues.py"
_spec = importlib.util.spec_from_file_location("batch_over_queues", _EXAMPLE)
batch_kernels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(batch_kernels)


def my_device(comm: MPI.Comm) -> int:
    """This process's device: its rank among the processes of its host, modulo the GPUs
    there (the CPU device when there is none)."""
    local_rank = comm.Split_type(MPI.COMM_TYPE_SHARED).Get_rank()
    gpus = [i for i, info in enumerate(vd.get_devices()) if info.device_type != 4]
    return gpus[local_rank % len(gpus)] if gpus else 0


def slice_bounds(samples: int, ranks: int) -> np.ndarray:
    """Start of each rank's slice, and the end: as equal as can be."""
    return np.linspace(0, samples, ranks + 1).round().astype(np.int64)


def run(comm: MPI.Comm, samples: int, seed: int = 0):
    """On every rank: its slice processed on its device. On rank 0 also the gathered batch
    result and the batch itself (None elsewhere), and on every rank the total sum."""
    rank, ranks = comm.Get_rank(), comm.Get_size()
    batch = np.random.default_rng(seed).uniform(-1, 1, samples).astype(np.float32)
    bounds = slice_bounds(samples, ranks)
    mine = batch[bounds[rank]:bounds[rank + 1]]
    vd.make_context(device_ids=my_device(comm))
    local_sum = 0.0
    if len(mine):
        buffer = vd.asbuffer(mine)
        batch_kernels.polynomial(buffer)
        local_sum = float(batch_kernels.total(buffer).read(0)[0])
        result = buffer.read(0)
    else:
        result = np.empty(0, np.float32)
    total = comm.allreduce(local_sum, op=MPI.SUM)
    gathered = np.empty(samples, np.float32) if rank == 0 else None
    counts = np.diff(bounds)
    comm.Gatherv(result, (gathered, counts, bounds[:-1], MPI.FLOAT) if rank == 0 else None,
                 root=0)
    return gathered, total, batch if rank == 0 else None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    comm = MPI.COMM_WORLD
    gathered, total, batch = run(comm, args.samples)
    device = vd.get_context().device_infos[0].device_name
    names = comm.gather(device, root=0)
    status = 0
    if comm.Get_rank() == 0:
        expected = batch_kernels.reference(batch)
        error = float(np.abs(gathered - expected).max())
        sum_error = abs(total - expected.sum()) / max(float(np.abs(expected).sum()), 1.0)
        print(f"{comm.Get_size()} processes on: {', '.join(names)}")
        print(f"largest difference from numpy: {error:.1e}; sum {total:.6g} (numpy "
              f"{expected.sum():.6g})")
        status = 0 if error < 1e-4 and sum_error < 1e-4 else 1
        print("check passed" if status == 0 else "check FAILED")
    return comm.bcast(status, root=0)


if __name__ == "__main__":
    sys.exit(main())
