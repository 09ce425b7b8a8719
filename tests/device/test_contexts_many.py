"""Several contexts in one process: create_context, ``with ctx:``, closing and making again,
shader plans per context, and the ``_handle`` identity of contexts and handles.

The session ``context`` fixture holds the global context: tests that close the *global* context
run in a child interpreter; the others only close contexts they created themselves.
"""
from __future__ import annotations

import gc
import json
import subprocess
import sys
import textwrap
import threading
import weakref

import numpy as np
import pytest
from helpers import random_array

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch import errors
from vkdispatch.base.command_list import CommandList
from vkdispatch.base.descriptor_set import DescriptorSet
from vkdispatch.codegen.abbreviations import Buff, Const, f32

N = 1000
MARKER = "@@REPORT@@"


@pytest.fixture
def other(context):
    """A second context on the device of the global one, closed after the test."""
    created = vd.create_context(device_ids=context.device_ids)
    yield created
    created.close()


@pytest.fixture
def axpy(context):
    @vd.shader("x.size")
    def axpy(x: Buff[f32], y: Buff[f32], a: Const[f32]):
        i = vc.global_invocation_id().x
        x[i] = x[i] * a + y[i]

    return axpy


def pair(rng) -> tuple[np.ndarray, np.ndarray]:
    return random_array(rng, (N,), np.float32), random_array(rng, (N,), np.float32)


def axpy_expected(x: np.ndarray, y: np.ndarray, a: float) -> np.ndarray:
    return x * np.float32(a) + y


def assert_close(actual: np.ndarray, expected: np.ndarray) -> None:
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-3)


# -- closing the global context (in a child interpreter) -----------------------------------

CLOSE_THEN_MAKE = '''
import json, sys
import numpy as np
import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.base.context import destroy_context
from vkdispatch.codegen.abbreviations import Buff, Const, f32

inputs, output, how = np.load(sys.argv[1]), sys.argv[2], sys.argv[3]

@vd.shader("x.size")
def axpy(x: Buff[f32], y: Buff[f32], a: Const[f32]):
    i = vc.global_invocation_id().x
    x[i] = x[i] * a + y[i]

def error_of(action):
    try:
        action()
    except Exception as error:
        return [type(error).__name__, str(error)]
    return None

first = vd.make_context(use_cpu=True)
x, y = vd.asbuffer(inputs["x"]), vd.asbuffer(inputs["y"])
axpy(x, y, 2.0)
before = x.read(0)
first.close() if how == "close" else destroy_context()
report = {"closed": first.closed, "initialized": vd.is_context_initialized(),
          "read": error_of(lambda: x.read(0)), "write": error_of(lambda: x.write(inputs["x"])),
          "wait": error_of(first.wait_idle), "signal": error_of(lambda: first.signal(0)),
          "enter": error_of(first.__enter__), "close_again": error_of(first.close)}
second = vd.make_context(use_cpu=True)
report["new"] = [second is not first, vd.get_context() is second, vd.is_context_initialized(),
                 second._handle != first._handle, vd.get_context_handle() == second._handle]
fresh_x, fresh_y = vd.asbuffer(inputs["x"]), vd.asbuffer(inputs["y"])
roundtrip = fresh_x.read(0)
axpy(fresh_x, fresh_y, 3.0)
report["old_buffer_call"] = error_of(lambda: axpy(x, fresh_y, 1.0))
report["plan_context"] = axpy.plan.context is second
np.savez(output, before=before, roundtrip=roundtrip, after=fresh_x.read(0))
print("@@REPORT@@" + json.dumps(report))
'''


def run_child(script: str, tmp_path, *args: str, **arrays: np.ndarray):
    """Runs ``script`` in a new interpreter with the arrays saved to a file; returns its
    report (the JSON after MARKER) and the arrays it saved."""
    inputs, outputs = tmp_path / "inputs.npz", tmp_path / "outputs.npz"
    np.savez(inputs, **arrays)
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(script), str(inputs),
                           str(outputs), *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"child failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    report = json.loads(proc.stdout.split(MARKER, 1)[1])
    return report, np.load(outputs)


@pytest.mark.parametrize("how", ["close", "destroy_context"])
def test_global_context_closed_then_make_context_creates_working_new_one(context, rng, tmp_path,
                                                                         how):
    x, y = pair(rng)
    report, out = run_child(CLOSE_THEN_MAKE, tmp_path, how, x=x, y=y)
    assert report["closed"] is True and report["initialized"] is False
    assert report["new"] == [True] * 5
    assert report["close_again"] is None  # close() is idempotent
    for action in ("read", "write", "wait", "signal", "enter", "old_buffer_call"):
        kind, message = report[action]
        assert kind == "InvalidStateError", (action, kind, message)  # never DummyBackendError
        assert "closed" in message, (action, message)
    assert "argument 'x'" in report["old_buffer_call"][1]
    assert report["plan_context"] is True  # the shader was built again for the new context
    assert_close(out["before"], axpy_expected(x, y, 2.0))
    np.testing.assert_array_equal(out["roundtrip"], x)
    assert_close(out["after"], axpy_expected(x, y, 3.0))


# -- create_context ------------------------------------------------------------------------


def test_create_context_returns_new_context_each_call_without_installing_it(context, rng):
    first = vd.create_context(device_ids=context.device_ids)
    second = vd.create_context(device_ids=context.device_ids)
    try:
        assert len({id(first), id(second), id(context)}) == 3
        assert first.device_ids == second.device_ids == context.device_ids
        assert vd.get_context() is context and vd.make_context() is context
        data = random_array(rng, (N,), np.float32)
        with first:
            buffer = vd.asbuffer(data)
        assert buffer.context is first
        np.testing.assert_array_equal(buffer.read(0), data)  # outside the block: own context
    finally:
        first.close()
        second.close()
    assert vd.get_context() is context and not context.closed
    global_buffer = vd.asbuffer(data)
    np.testing.assert_array_equal(global_buffer.read(0), data)


BAD_ARGUMENTS = [({"device_count": 99}, "device_count"), ({"device_ids": [99]}, "device_ids"),
                 ({"queue_families": [[0]]}, "queue_families"),
                 ({"queue_counts": [1, 1, 1]}, "queue_counts")]


@pytest.mark.parametrize("kwargs, name", BAD_ARGUMENTS, ids=[n for _, n in BAD_ARGUMENTS])
def test_create_context_bad_argument_raises_naming_it(context, kwargs, name):
    with pytest.raises(ValueError, match=name) as caught:
        vd.create_context(**kwargs)
    assert isinstance(caught.value, errors.VkDispatchError)
    assert vd.get_context() is context


def test_created_context_close_affects_only_it_and_its_objects_raise_invalid_state(
        context, rng, axpy):
    data, y_data = pair(rng)
    created = vd.create_context(device_ids=context.device_ids)
    with created:
        buffer, y = vd.asbuffer(data), vd.asbuffer(y_data)
        graph = vd.CommandGraph()
        axpy(buffer, y, 2.0, graph=graph)
        graph.submit()
    assert_close(buffer.read(0), axpy_expected(data, y_data, 2.0))
    created.close()
    created.close()
    assert created.closed and buffer.destroyed and graph.destroyed
    assert len(created.handles) == 0 and len(created.derived) == 0
    actions = {"read": lambda: buffer.read(0), "write": lambda: buffer.write(data),
               "wait": created.wait_idle, "signal": lambda: created.signal(0),
               "queue_wait_idle": lambda: vd.queue_wait_idle(None, created),
               "enter": created.__enter__, "native": lambda: created.native}
    for name, action in actions.items():
        with pytest.raises(errors.InvalidStateError, match="closed"):
            action()
            pytest.fail(f"{name} did not raise")
    global_y = vd.asbuffer(y_data)
    with pytest.raises(errors.InvalidStateError, match="argument 'x' of shader 'axpy'.*closed"):
        axpy(buffer, global_y, 1.0)
    assert vd.get_context() is context and not context.closed
    global_x = vd.asbuffer(data)
    axpy(global_x, global_y, 3.0)
    assert_close(global_x.read(0), axpy_expected(data, y_data, 3.0))


# -- with ctx: -----------------------------------------------------------------------------


def test_context_with_blocks_nest_and_restore_previous_context(context, other, rng):
    third = vd.create_context(device_ids=context.device_ids)
    try:
        with other as entered:
            assert entered is other and vd.get_context() is other
            with third:
                assert vd.get_context() is third
                assert vd.get_context_handle() == third._handle
                with other:  # the same context again, inside
                    assert vd.get_context() is other
                assert vd.get_context() is third
                assert vd.make_context() is context  # the global one, never the current
            assert vd.get_context() is other
            buffer = vd.asbuffer(random_array(rng, (N,), np.float32))
        assert vd.get_context() is context and vd.get_context_handle() == context._handle
        assert buffer.context is other
        with pytest.raises(KeyError, match="inside"):
            with third:
                raise KeyError("inside")
        assert vd.get_context() is context  # restored by an exception too
    finally:
        third.close()


def test_context_with_blocks_left_out_of_order_raise_invalid_state(context, other):
    third = vd.create_context(device_ids=context.device_ids)
    try:
        other.__enter__()
        third.__enter__()
        with pytest.raises(errors.InvalidStateError, match="reverse order"):
            other.__exit__(None, None, None)
        assert vd.get_context() is third
        third.__exit__(None, None, None)
        other.__exit__(None, None, None)
        assert vd.get_context() is context
    finally:
        third.close()


def test_context_with_block_is_per_thread_other_threads_keep_global(context, other, rng):
    data = random_array(rng, (N,), np.float32)
    seen: dict = {}
    worker_inside, main_left = threading.Event(), threading.Event()

    def worker():
        seen["worker_start"] = vd.get_context()
        with other:
            seen["worker_buffer"] = vd.asbuffer(data)
            worker_inside.set()
            main_left.wait(timeout=30)
            seen["worker_inside"] = vd.get_context()
        seen["worker_end"] = vd.get_context()

    thread = threading.Thread(target=worker)
    with other:
        thread.start()  # started inside this thread's block: it must not inherit it
        assert worker_inside.wait(timeout=30)
        assert vd.get_context() is other
    seen["main_after"] = vd.get_context()  # the worker is still inside its own block
    main_left.set()
    thread.join(timeout=30)
    assert not thread.is_alive()
    assert seen["worker_start"] is context and seen["worker_end"] is context
    assert seen["worker_inside"] is other and seen["main_after"] is context
    assert seen["worker_buffer"].context is other
    np.testing.assert_array_equal(seen["worker_buffer"].read(0), data)


# -- shaders in several contexts -----------------------------------------------------------


def test_same_shader_in_two_contexts_interleaved_matches_numpy(context, other, rng, axpy):
    runs = []
    for ctx in (context, other):
        x, y = pair(rng)
        with ctx:
            runs.append({"ctx": ctx, "x": vd.asbuffer(x), "y": vd.asbuffer(y),
                         "graph": vd.CommandGraph(reset_on_submit=True), "expected": x,
                         "y_data": y, "plan": None})
    for a in rng.uniform(0.5, 1.5, 4):
        for run in runs:
            with run["ctx"]:
                axpy(run["x"], run["y"], a, graph=run["graph"])
                run["graph"].submit()
            run["expected"] = axpy_expected(run["expected"], run["y_data"], a)
            assert axpy.plan.context is run["ctx"]
            if run["plan"] is None:
                run["plan"] = axpy.plan
            assert axpy.plan is run["plan"]  # compiled once per context, reused after
    assert runs[0]["plan"] is not runs[1]["plan"]
    for run in runs:
        assert run["x"].context is run["ctx"] and run["graph"].context is run["ctx"]
        assert_close(run["x"].read(0), run["expected"])
    runs[0]["graph"].destroy()


def test_shader_plan_of_closed_context_is_dropped_with_the_context(context, rng, axpy):
    x, y = pair(rng)
    created = vd.create_context(device_ids=context.device_ids)
    with created:
        buffers = [vd.asbuffer(x), vd.asbuffer(y)]
        graph = vd.CommandGraph()
        axpy(*buffers, 2.0, graph=graph)
        graph.submit()
    plan = axpy.plan
    assert plan.context is created and created.derived
    assert_close(buffers[0].read(0), axpy_expected(x, y, 2.0))
    global_x, global_y = vd.asbuffer(x), vd.asbuffer(y)
    axpy(global_x, global_y, 3.0)  # the latest build is now the global context's
    created_ref = weakref.ref(created)
    created.close()
    assert plan.destroyed and len(created.derived) == 0
    del created, buffers, graph, plan
    gc.collect()
    assert created_ref() is None  # the shader function does not keep a closed context alive
    assert_close(global_x.read(0), axpy_expected(x, y, 3.0))


def test_shader_call_with_buffer_of_another_context_raises_naming_parameter(context, other,
                                                                            rng, axpy):
    x, y = pair(rng)
    global_x, global_y = vd.asbuffer(x), vd.asbuffer(y)
    with other:
        other_y = vd.asbuffer(y)
        other_graph = vd.CommandGraph()
    global_graph = vd.CommandGraph()
    try:
        cases = [(lambda: axpy(global_x, other_y, 2.0, graph=global_graph), "y"),
                 (lambda: axpy(global_x, other_y, 2.0), "y"),  # the immediate graph
                 (lambda: axpy(global_x, other_y, 2.0, graph=other_graph), "x")]
        for call, name in cases:
            with pytest.raises(ValueError, match=f"argument '{name}' of shader 'axpy'") as caught:
                call()
            assert isinstance(caught.value, errors.InvalidShaderArgumentError)
            assert "context" in str(caught.value)
        np.testing.assert_array_equal(global_x.read(0), x)  # nothing ran
        axpy(global_x, global_y, 2.0, graph=global_graph)
        global_graph.submit()
        assert_close(global_x.read(0), axpy_expected(x, y, 2.0))
    finally:
        global_graph.destroy()


def test_shader_call_without_graph_inside_with_block_runs_in_that_context(context, other, rng,
                                                                          axpy):
    x, y = pair(rng)
    axpy(vd.asbuffer(x), vd.asbuffer(y), 1.0)  # the thread's default graph exists now
    with other:
        other_x, other_y = vd.asbuffer(x), vd.asbuffer(y)
        axpy(other_x, other_y, 2.0)
    assert_close(other_x.read(0), axpy_expected(x, y, 2.0))


def test_graph_of_other_context_submitted_outside_its_with_block_runs(context, other, rng,
                                                                      axpy):
    x, y = pair(rng)
    with other:
        other_x, other_y = vd.asbuffer(x), vd.asbuffer(y)
        graph = vd.CommandGraph()
    axpy(other_x, other_y, 2.0, graph=graph)  # the graph's context decides, not the current
    graph.submit()
    assert_close(other_x.read(0), axpy_expected(x, y, 2.0))


# -- _handle -------------------------------------------------------------------------------


def test_handle_is_unique_stable_int_and_never_reused(context, other, rng, axpy):
    data = random_array(rng, (N,), np.float32)
    buffer = vd.asbuffer(data)
    axpy.build()
    plan = axpy.plan
    descriptor_set = DescriptorSet(plan)
    graph = vd.CommandGraph()
    command_list = CommandList()
    with other:
        other_buffer = vd.asbuffer(data)
    objects = [context, other, buffer, plan, descriptor_set, graph, command_list, other_buffer]
    handles = [obj._handle for obj in objects]
    assert all(type(handle) is int for handle in handles)
    assert len(set(handles)) == len(handles)
    axpy(buffer, buffer, 2.0, graph=graph)
    graph.submit()
    assert_close(buffer.read(0), axpy_expected(data, data, 2.0))
    assert [obj._handle for obj in objects] == handles  # stable while used
    assert vd.get_context_handle() == context._handle
    with other:
        assert vd.get_context_handle() == other._handle
    seen = set(handles)
    for _ in range(20):  # each dies before the next is made: id() would repeat, _handle not
        made = vd.Buffer((16,), vd.float32)
        assert made._handle not in seen
        seen.add(made._handle)
        made.destroy()
        assert made._handle in seen  # kept after destroy
        del made
        gc.collect()
    for obj in (descriptor_set, graph, command_list):
        obj.destroy()
