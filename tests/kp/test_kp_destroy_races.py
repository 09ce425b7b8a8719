"""Destroying a kp object (a tensor, the algorithm, the sequence or the whole manager) while
another thread records and evaluates a sequence that uses it: the other thread either completes
with numpy's answer or raises Kompute's RuntimeError, never crashes; what survives still works.
The objects may be another manager's of the device, which the sequence's manager shares.

Without the deferred destroys of the kp bridge (bindings/kompute.pxi) a manager destroyed during
another thread's eval freed the sequence under it (a segfault within a few trials).
"""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from helpers import random_array
from kp_programs import run, shader

import kp

N = 4096
FEW, MANY = 8, 150


def _doubling(mgr, rng):
    data = random_array(rng, N, np.float32)
    a, b = mgr.tensor(data), mgr.tensor(np.zeros(N, np.float32))
    algorithm = mgr.algorithm([a, b], shader("b[i] = a[i] * 2.0;", "float a", "float b"))
    return data, a, b, algorithm


def _loop(mgr, sequence, a, b, algorithm, data, raised):
    try:
        for _ in range(100):
            sequence.eval(kp.OpSyncDevice([a]))
            sequence.eval(kp.OpAlgoDispatch(algorithm))
            sequence.eval(kp.OpSyncLocal([b]))
            np.testing.assert_array_equal(b.data(), data * 2)
    except Exception as error:  # noqa: BLE001 (checked by the test: Kompute's "destroyed")
        raised.append(error)


@pytest.mark.parametrize("victim", ["tensor", "algorithm", "sequence", "manager"])
@pytest.mark.parametrize("maker", ["its manager", "another manager"])
@pytest.mark.parametrize("trials", [FEW, pytest.param(MANY, marks=pytest.mark.slow)])
def test_destroy_racing_an_eval_raises_or_completes(rng, victim, maker, trials):
    for trial in range(trials):
        mgr = kp.Manager()
        # The tensors' and algorithm's manager: "manager" destroys it.
        owner = mgr if maker == "its manager" else kp.Manager()
        data, a, b, algorithm = _doubling(owner, rng)
        sequence = mgr.sequence()
        raised: list[BaseException] = []
        thread = threading.Thread(target=_loop,
                                  args=(mgr, sequence, a, b, algorithm, data, raised))
        thread.start()
        time.sleep(rng.uniform(0, 2e-3) * (trial % 4))
        {"tensor": a, "algorithm": algorithm, "sequence": sequence, "manager": owner}[
            victim].destroy()
        thread.join(timeout=60)
        assert not thread.is_alive(), "the eval hung after the destroy"
        assert all(isinstance(error, RuntimeError) and
                   ("destroyed" in str(error) or "not initialised" in str(error))
                   for error in raised), raised
        if victim != "manager" or owner is not mgr:  # the sequence's manager still works
            data, a, b, algorithm = _doubling(mgr, rng)
            run(mgr, algorithm, [b])
            np.testing.assert_array_equal(b.data(), data * 2)
        owner.destroy()
        mgr.destroy()
