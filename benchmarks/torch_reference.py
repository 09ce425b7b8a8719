"""torch as the benchmarks' reference: the module when torch with CUDA is usable, else None
(the scripts then print their own figures without the torch columns)."""
from __future__ import annotations


def torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None
