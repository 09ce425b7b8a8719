"""A batched workload on one GPU and split over all GPUs of the host, the cost of a second
GPU's first submissions, and vd.all_reduce's throughput.

* Scaling: a batch of --gib GiB of float32 samples passed through a polynomial (the
  examples/batch_over_queues.py kernel, compute-heavy: 12 fused multiply-adds per sample) and
  summed (vd.reduce), recorded in one graph. One GPU: the whole batch in one buffer on one
  queue. N GPUs: a context over all of them (one queue each), every replica a 1/N slice, the
  same graph submitted to all queues. Times are the median of --repeats submits, each waited
  for, after a warm-up submit on every queue; speedup = one-GPU time / N-GPU time (target of
  the multi-GPU issue: >= 1.8x on two GPUs).
* First use: a new N-GPU context with only queue 0 warmed (one submit), then --first submits
  to all queues timed one by one (submit + wait): how much the other GPUs' first use costs;
  then the same to the second GPU alone, and again after it idled for a second.
* all_reduce: GB/s = replicas x bytes / time of vd.all_reduce of a --reduce-mib MiB float32
  buffer (call + wait): over 3 queues of one GPU (on the device) beside torch running the same
  steps on 3 tensors of that GPU (r1 += r0, r2 += r1, then r2 copied into r0 and r1; eager
  calls + synchronize), and over all GPUs (copies between GPUs through CUDA's peer copy where
  they reach each other, else through pinned host memory).
* Between two GPUs: vd.copy_replica from one to the other and vd.all_reduce of both, at
  --reduce-mib and 8 times that, along each of our routes (CUDA's peer copy where the GPUs
  reach each other, chosen by default; through pinned host memory, forced), beside torch
  copying through a pinned host tensor and directly (CUDA peer access, NVLink where present;
  like for like with our CUDA route).
* Between devices on one GPU: the path replicas on different devices take (through the
  context's pinned staging memory, chunk by chunk), forced between two queues of the first GPU
  so that it is measured where one GPU is all there is: vd.copy_replica of --reduce-mib MiB
  (GB/s = bytes / time) beside torch copying the tensor into a pinned host tensor and back
  (both waited for), the route through a pageable numpy array (read + write) it replaced, and
  vd.all_reduce of 2 replicas along that path.

    python benchmarks/multi_gpu.py [--gib 1] [--repeats 5] [--first 5] [--reduce-mib 64]
"""
from __future__ import annotations

import argparse
import contextlib
import statistics
import time

import numpy as np

import vkdispatch as vd
from vkdispatch.base.device_info import is_cpu_device
from vkdispatch.base import replicas as replica_module

from example_modules import load_example  # benchmarks/example_modules.py
from graph_timing import median_seconds, seconds
from torch_reference import torch_cuda

example = load_example("batch_over_queues")


def submit_seconds(graph: vd.CommandGraph, context: vd.Context, queue_index: int) -> float:
    def submit() -> None:
        graph.submit(queue_index=queue_index)
        context.wait_idle()

    return seconds(submit)


def recorded(context: vd.Context, samples: int):
    """A graph of the polynomial and the sum over a buffer of ``samples`` per replica."""
    with context:
        buffer = vd.Buffer((samples,), vd.float32)
        graph = vd.CommandGraph()
    buffer.write(np.random.default_rng(0).uniform(-1, 1, samples).astype(np.float32))
    example.polynomial(buffer, graph=graph)
    example.total(buffer, graph=graph)
    return buffer, graph


def scaling(devices: list[int], samples: int, repeats: int) -> float:
    context = vd.create_context(device_ids=devices, queue_counts=1)
    try:
        _buffer, graph = recorded(context, samples // len(devices))
        submit_seconds(graph, context, -2)
        median = statistics.median(submit_seconds(graph, context, -2) for _ in range(repeats))
        graph.destroy()
        return median
    finally:
        context.close()


def first_use(devices: list[int], samples: int, count: int) -> dict[str, list[float]]:
    """Submit times on a new context with only queue 0 (the first GPU) warmed: to all queues;
    then, on another new context, to the second GPU's queue alone, and again after it idled
    for a second (a cost that comes back after idling is the GPU's clocks, not first use)."""
    rows = {}
    for label in ("all GPUs", "second GPU alone"):
        context = vd.create_context(device_ids=devices, queue_counts=1)
        try:
            _buffer, graph = recorded(context, samples // len(devices))
            submit_seconds(graph, context, 0)
            queue = -2 if label == "all GPUs" else 1
            rows[label] = [submit_seconds(graph, context, queue) for _ in range(count)]
            if queue == 1:
                time.sleep(1.0)
                rows["second GPU after 1 s idle"] = [submit_seconds(graph, context, 1)
                                                     for _ in range(count)]
            graph.destroy()
        finally:
            context.close()
    return rows


def all_reduce_gbps(devices: list[int], queues_per_device: int, mib: int,
                    repeats: int) -> float:
    context = vd.create_context(device_ids=devices, queue_counts=queues_per_device)
    try:
        count = mib * (1 << 20) // 4
        with context:
            buffer = vd.Buffer((count,), vd.float32)
        buffer.write(np.ones(count, np.float32))

        def reduce() -> None:
            vd.all_reduce(buffer)
            context.wait_idle()

        elapsed = median_seconds(reduce, repeats)
        replicas = context.queue_count
        expected = float(replicas) ** (repeats + 1)
        assert np.all(buffer.read(replicas - 1)[:8] == expected)
        return replicas * count * 4 / elapsed / 1e9
    finally:
        context.close()


def torch_all_reduce_gbps(replicas: int, mib: int, repeats: int) -> float | None:
    torch = torch_cuda()
    if torch is None:
        return None
    count = mib * (1 << 20) // 4
    tensors = [torch.ones(count, device="cuda") for _ in range(replicas)]

    def reduce_all():
        for before, after in zip(tensors, tensors[1:]):
            after.add_(before)
        for tensor in tensors[:-1]:
            tensor.copy_(tensors[-1])
        torch.cuda.synchronize()

    return replicas * count * 4 / median_seconds(reduce_all, repeats) / 1e9


@contextlib.contextmanager
def route_refused(check: str):
    """Replica copies act as if ``check`` (a route test of vkdispatch.base.replicas:
    ``copies_on_device``, ``copies_through_cuda``) said no for every pair of replicas: the path
    between devices even between queues of one device, or pinned host memory between GPUs
    that CUDA's peer copy reaches."""
    chosen = getattr(replica_module, check)
    setattr(replica_module, check, lambda buffer, src, dst: False)
    try:
        yield
    finally:
        setattr(replica_module, check, chosen)


def filled_buffer(context: vd.Context, values: np.ndarray) -> vd.Buffer:
    """A float32 buffer of ``context`` holding ``values`` in every replica."""
    with context:
        buffer = vd.Buffer(values.shape, vd.float32)
    buffer.write(values)
    return buffer


def copy_and_reduce_seconds(context: vd.Context, buffer: vd.Buffer, values: np.ndarray,
                            repeats: int) -> tuple[float, float]:
    """Median seconds of vd.copy_replica(buffer, 0, [1]) (its result checked against
    ``values``, replica 0's contents) and of vd.all_reduce(buffer), each waited for."""
    def copy() -> None:
        vd.copy_replica(buffer, 0, [1])
        context.wait_idle()

    def reduce() -> None:
        vd.all_reduce(buffer)
        context.wait_idle()

    copied = median_seconds(copy, repeats)
    np.testing.assert_array_equal(buffer.read(1), values)
    return copied, median_seconds(reduce, repeats)


def between_devices_rows(device: int, mib: int, repeats: int) -> list[str]:
    context = vd.create_context(device_ids=[device], queue_counts=2)
    count = mib * (1 << 20) // 4
    values = np.random.default_rng(2).standard_normal(count).astype(np.float32)
    try:
        buffer = filled_buffer(context, values)
        staging = np.empty(count, np.float32)

        def pageable() -> None:
            buffer.read(0, out=staging)
            buffer.write(staging, 1)

        with route_refused("copies_on_device"):
            ours, reduced = copy_and_reduce_seconds(context, buffer, values, repeats)
        old = median_seconds(pageable, repeats)
        assert np.array_equal(buffer.read(0), buffer.read(1))
    finally:
        context.close()
    nbytes = count * 4
    torch = torch_cuda()
    reference = None
    if torch is not None:
        tensor = torch.from_numpy(values).cuda()
        target = torch.empty_like(tensor)
        pinned = torch.empty(count, dtype=torch.float32, pin_memory=True)

        def round_trip() -> None:
            pinned.copy_(tensor)
            target.copy_(pinned)
            torch.cuda.synchronize()

        reference = median_seconds(round_trip, repeats)
        assert torch.equal(target, tensor)
    rows = [f"| copy_replica, through pinned staging | {nbytes / ours / 1e9:.1f} | "
            + (f"{nbytes / reference / 1e9:.1f} | {reference / ours:.2f} |" if reference
               else "- | - |"),
            f"| read + write through pageable numpy (the old route) | {nbytes / old / 1e9:.1f} | "
            + (f"{nbytes / reference / 1e9:.1f} | {reference / old:.2f} |" if reference
               else "- | - |"),
            f"| all_reduce of 2 replicas, through pinned staging | "
            f"{2 * nbytes / reduced / 1e9:.1f} | - | - |"]
    return rows


def between_gpus_rows(gpus: list[int], mib: int, repeats: int) -> list[str]:
    """vd.copy_replica from the first GPU's replica to the second's and vd.all_reduce of both
    (GB/s = bytes moved / time: one buffer for the copy, two for the all-reduce), beside torch
    copying a tensor of the first GPU into one of the second through a pinned host tensor (the
    path open to us) and directly (CUDA peer access over NVLink, which Vulkan does not offer
    between these GPUs)."""
    context = vd.create_context(device_ids=gpus, queue_counts=1)
    count = mib * (1 << 20) // 4
    values = np.random.default_rng(3).standard_normal(count).astype(np.float32)
    try:
        buffer = filled_buffer(context, values)
        route = "CUDA peer copy" if replica_module.copies_through_cuda(buffer, 0, 1) else \
            "pinned host memory"
        copied, reduced = copy_and_reduce_seconds(context, buffer, values, repeats)
        with route_refused("copies_through_cuda"):  # a fresh buffer: all-reduces changed that one
            hosted, reduced_hosted = copy_and_reduce_seconds(
                context, filled_buffer(context, values), values, repeats)
    finally:
        context.close()
    nbytes = count * 4
    staged = peer = None
    torch = torch_cuda()
    if torch is not None and torch.cuda.device_count() > 1:
        source = torch.from_numpy(values).to("cuda:0")
        target = torch.empty(count, device="cuda:1")
        pinned = torch.empty(count, dtype=torch.float32, pin_memory=True)

        def through_host() -> None:
            pinned.copy_(source)
            target.copy_(pinned)
            torch.cuda.synchronize(1)

        def direct() -> None:
            target.copy_(source)
            torch.cuda.synchronize(0)
            torch.cuda.synchronize(1)

        staged = median_seconds(through_host, repeats)
        peer = median_seconds(direct, repeats)
        assert torch.equal(target.cpu(), source.cpu())
    def reference(ours: float, torch_seconds: float | None) -> str:
        """torch's figure along the same route, the ratio, and torch's peer copy."""
        if torch_seconds is None:
            return "- | - | - |"
        return (f"{nbytes / torch_seconds / 1e9:.1f} | {torch_seconds / ours:.2f} | "
                f"{nbytes / peer / 1e9:.0f} |")

    like = peer if route == "CUDA peer copy" else staged
    return [f"| copy_replica of {mib} MiB ({route}) | {nbytes / copied / 1e9:.1f} | "
            + reference(copied, like),
            f"| copy_replica of {mib} MiB (pinned host memory, forced) | "
            f"{nbytes / hosted / 1e9:.1f} | " + reference(hosted, staged),
            f"| all_reduce of 2 x {mib} MiB ({route}) | {2 * nbytes / reduced / 1e9:.1f} | "
            "- | - | - |",
            f"| all_reduce of 2 x {mib} MiB (pinned host memory, forced) | "
            f"{2 * nbytes / reduced_hosted / 1e9:.1f} | - | - | - |"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--first", type=int, default=5)
    parser.add_argument("--reduce-mib", type=int, default=64)
    args = parser.parse_args()
    gpus = [i for i, info in enumerate(vd.get_devices()) if not is_cpu_device(info)] or [0]
    samples = int(args.gib * (1 << 30)) // 4
    names = ", ".join(vd.get_devices()[i].device_name for i in gpus)
    print(f"GPUs: {names}; batch {args.gib} GiB of float32")
    one = scaling(gpus[:1], samples, args.repeats)
    print("| GPUs | ms per pass | GB/s | speedup |")
    print("|---:|---:|---:|---:|")
    print(f"| 1 | {one * 1e3:.2f} | {samples * 4 / one / 1e9:.0f} | 1.00 |")
    if len(gpus) > 1:
        many = scaling(gpus, samples, args.repeats)
        print(f"| {len(gpus)} | {many * 1e3:.2f} | {samples * 4 / many / 1e9:.0f} | "
              f"{one / many:.2f} |")
        for label, firsts in first_use(gpus, samples, args.first).items():
            print(f"first submits ({label}) after warming GPU {gpus[0]} only (ms): "
                  + ", ".join(f"{t * 1e3:.1f}" for t in firsts))
    ours = all_reduce_gbps(gpus[:1], 3, args.reduce_mib, args.repeats)
    torch_figure = torch_all_reduce_gbps(3, args.reduce_mib, args.repeats)
    print(f"| all_reduce of {args.reduce_mib} MiB | ours GB/s | torch GB/s | ratio |")
    print("|---|---:|---:|---:|")
    print(f"| 3 replicas on 1 GPU (device) | {ours:.1f} | "
          + (f"{torch_figure:.1f} | {ours / torch_figure:.2f} |" if torch_figure else "- | - |"))
    if len(gpus) > 1:
        print(f"| {len(gpus)} replicas on {len(gpus)} GPUs (CUDA peer copies, else host memory) | "
              f"{all_reduce_gbps(gpus, 1, args.reduce_mib, args.repeats):.1f} | - | - |")
        print(f"| between GPUs {gpus[0]} and {gpus[1]} | ours GB/s | torch, the same route, "
              "GB/s | ours/torch | torch peer (NVLink) GB/s |")
        print("|---|---:|---:|---:|---:|")
        for mib in (args.reduce_mib, 8 * args.reduce_mib):
            for row in between_gpus_rows(gpus[:2], mib, args.repeats):
                print(row)

    print(f"| between devices, forced on 2 queues of GPU {gpus[0]}, {args.reduce_mib} MiB | "
          "ours GB/s | torch via pinned host GB/s | ratio |")
    print("|---|---:|---:|---:|")
    for row in between_devices_rows(gpus[0], args.reduce_mib, args.repeats):
        print(row)


if __name__ == "__main__":
    main()
