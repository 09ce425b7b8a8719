"""torch as the benchmarks' reference: the module when torch with CUDA is usable, else None
(the scripts then print their own figures without the torch columns)."""
from __future__ import annotations

from graph_timing import timed_seconds  # benchmarks/graph_timing.py


def torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def torch_graph_seconds(torch, call, replays: int) -> float:
    """Seconds per call of ``call`` captured ``replays`` times in a CUDA graph and replayed
    once (after warm-up calls on a side stream, as capture requires): like for like with a
    replayed vd.CommandGraph."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            call()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(replays):
            call()

    def run():
        graph.replay()
        torch.cuda.synchronize()
    return timed_seconds(run) / replays
