"""Context lifetimes: a native context freed by garbage collection, never closed (dropped by its
owner, or one whose close() Ctrl-C cut short at exit), frees its transfer engine before the
queues that the engine waits on."""
from __future__ import annotations

import subprocess
import sys
import textwrap

# In a process of its own: the failure this guards against is a segmentation fault.
DROPPED_UNCLOSED = textwrap.dedent("""
    import gc
    import numpy as np
    import vkdispatch as vd
    from vkdispatch.base.init import runtime
    context, native_module = vd.make_context(), runtime().native
    data = np.random.default_rng(3).standard_normal(1 << 18).astype(np.float32)
    for _ in range(3):
        # map_directly=False: writes go through the engine's staging chunks, which it waits for
        # when it is freed.
        native = native_module.NativeContext(runtime().instance, context.mapped_device_ids,
                                             context.queue_families, map_directly=False)
        buffer = native_module.NativeBuffer(native, data.nbytes)
        buffer.write(data.view(np.uint8))
        out = np.empty_like(data)
        buffer.read_into(out.view(np.uint8))
        assert np.array_equal(out, data)
        del buffer, native
        gc.collect()
    print("freed")
""")


def test_a_native_context_freed_without_close_frees_its_transfer_engine_first(context):
    result = subprocess.run([sys.executable, "-c", DROPPED_UNCLOSED], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, f"exit status {result.returncode}: {result.stderr[-2000:]}"
    assert result.stdout.split() == ["freed"]
