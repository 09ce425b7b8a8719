"""examples/batch_over_queues.py in the suite, on a context of 3 queues: the batch split over
the replicas and gathered back equals numpy's polynomial, and the per-queue sums added by
vd.all_reduce equal numpy's sum, for lengths that do and do not divide among the queues."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import loaded_example

import vkdispatch as vd


@pytest.fixture(scope="module")
def example():
    with loaded_example("batch_over_queues.py") as module:
        yield module


@pytest.fixture(scope="module")
def three_queues(context):
    ctx = vd.create_context(device_ids=[context.device_ids[0]], queue_counts=3)
    yield ctx
    ctx.close()


@pytest.mark.parametrize("samples", [30_000, 30_001, 5])
def test_split_batch_matches_numpy(example, three_queues, samples):
    out = example.run(samples, three_queues, seed=samples)
    expected = example.reference(out["batch"])
    np.testing.assert_allclose(out["result"], expected, atol=1e-4)
    assert out["sum"] == pytest.approx(expected.sum(), rel=1e-4, abs=1e-3)
    assert out["one queue"] > 0 and out["all queues"] > 0


def test_scatter_and_gather_keep_the_order(example, three_queues, rng):
    batch = rng.standard_normal(10).astype(np.float32)
    with three_queues:
        buffer = vd.Buffer((4,), vd.float32)  # 3 x 4 = 12 >= 10: two zeros of padding
    example.scatter(buffer, batch)
    np.testing.assert_array_equal(buffer.read(2), [batch[8], batch[9], 0, 0])
    np.testing.assert_array_equal(example.gather(buffer, 10), batch)
