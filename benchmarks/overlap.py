"""Transfers overlapping compute: an upload to the replica of queue 1 and a download from the
replica of queue 1 (first row) or queue 2 (second row) while a graph of kernels runs on queue 0,
in a context of three queues on the first device.

* compute: a graph of --passes polynomial passes over --compute-mib MiB (the
  examples/batch_over_queues.py kernel), submitted to queue 0 and waited for.
* upload / download: ``write(data, 1)`` / ``read(d, out=...)`` of --transfer-mib MiB, alone.
* serial: the compute, then the upload, then the download, one after the other.
* overlapped: the compute submitted, then ``write_async(data, 1)`` and ``read_async(d, out=)``
  of another buffer, then all three waited for.

overlap = serial / overlapped time; the ideal is serial / the longest of the three parts. On a
CPU device (one hardware queue, the CPU doing everything) expect no gain. Medians of
--repeats.

    python benchmarks/overlap.py [--compute-mib 256] [--passes 8] [--transfer-mib 256]
"""
from __future__ import annotations

import argparse
import statistics

import numpy as np

import vkdispatch as vd

from example_modules import load_example  # benchmarks/example_modules.py
from graph_timing import seconds

example = load_example("batch_over_queues")


def measure(context, graph, host, out, repeats: int, download_queue: int) -> dict[str, float]:
    """Median seconds of each part alone, of all three in turn, and overlapped."""
    with context:
        upload_target = vd.Buffer(host.shape, vd.float32)
        download_source = vd.Buffer(host.shape, vd.float32)
    download_source.write(host)

    def compute() -> None:
        graph.submit(queue_index=0)
        context.wait_idle(0)

    def upload() -> None:
        upload_target.write(host, 1)

    def download() -> None:
        download_source.read(download_queue, out=out)

    def serial() -> None:
        compute()
        upload()
        download()

    def overlapped() -> None:
        graph.submit(queue_index=0)
        pending = [upload_target.write_async(host, 1),
                   download_source.read_async(download_queue, out=out)]
        for transfer in pending:
            transfer.wait()
        context.wait_idle(0)

    timers = {"compute": compute, "upload": upload, "download": download, "serial": serial,
              "overlapped": overlapped}
    for action in timers.values():
        action()  # warm-up: pipelines, staging memory, the first use of each queue
    samples = {name: [] for name in timers}
    for _ in range(repeats):
        for name, action in timers.items():
            samples[name].append(seconds(action))
    np.testing.assert_array_equal(upload_target.read(1), host)
    np.testing.assert_array_equal(out, host)
    upload_target.destroy()
    download_source.destroy()
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compute-mib", type=int, default=256)
    parser.add_argument("--passes", type=int, default=8)
    parser.add_argument("--transfer-mib", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    context = vd.create_context(device_ids=[0], queue_counts=3)
    count = args.compute_mib * (1 << 20) // 4
    moved = args.transfer_mib * (1 << 20) // 4
    host = np.random.default_rng(1).uniform(-1, 1, moved).astype(np.float32)
    out = np.empty(moved, np.float32)
    with context:
        work = vd.Buffer((count,), vd.float32)
        graph = vd.CommandGraph()
    work.write(np.random.default_rng(0).uniform(-1, 1, count).astype(np.float32))
    for _ in range(args.passes):
        example.polynomial(work, graph=graph)
    print(f"device: {context.device_infos[0].device_name}; compute {args.compute_mib} MiB x "
          f"{args.passes} passes, transfers {args.transfer_mib} MiB each way")
    print("| download from | compute ms | upload ms | download ms | serial ms | overlapped ms "
          "| overlap | ideal |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for download_queue, where in ((1, "queue 1 (the upload's)"), (2, "queue 2")):
        row = measure(context, graph, host, out, args.repeats, download_queue)
        ideal = row["serial"] / max(row["compute"], row["upload"], row["download"])
        print(f"| {where} | {row['compute'] * 1e3:.2f} | {row['upload'] * 1e3:.2f} | "
              f"{row['download'] * 1e3:.2f} | {row['serial'] * 1e3:.2f} | "
              f"{row['overlapped'] * 1e3:.2f} | {row['serial'] / row['overlapped']:.2f} | "
              f"{ideal:.2f} |")
    graph.destroy()
    context.close()


if __name__ == "__main__":
    main()
