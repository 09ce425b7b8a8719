"""The interface shader calls record into (vkdispatch.shader.dispatch_target): CommandGraph
implements it, and importing vkdispatch installs the thread's global graph as the default."""
from __future__ import annotations

import importlib.util
import inspect

import pytest

import vkdispatch as vd
from vkdispatch.errors import InvalidStateError
from vkdispatch.shader import dispatch_target
from vkdispatch.shader.dispatch_target import DispatchTarget


def test_importing_vkdispatch_installs_the_global_graph_as_default_target():
    assert dispatch_target.default_target is vd.global_graph


def test_without_an_installed_provider_the_default_target_raises_a_clear_error():
    # A fresh copy of the module is in the state before the execution pipeline installs itself.
    spec = importlib.util.spec_from_file_location("fresh_dispatch_target",
                                                  dispatch_target.__file__)
    fresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fresh)
    with pytest.raises(InvalidStateError, match="no default dispatch target is installed"):
        fresh.default_target()


def test_command_graph_implements_record_dispatch_with_the_interface_signature():
    assert issubclass(vd.CommandGraph, DispatchTarget)
    assert vd.CommandGraph.record_dispatch is not DispatchTarget.record_dispatch
    assert (inspect.signature(vd.CommandGraph.record_dispatch)
            == inspect.signature(DispatchTarget.record_dispatch))


def test_interface_is_a_plain_class_so_the_per_call_isinstance_stays_cheap():
    assert type(DispatchTarget) is type
    assert type(vd.CommandGraph) is type
