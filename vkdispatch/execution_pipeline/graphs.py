"""The per-thread default (immediate) graph and the optional per-thread global graph."""
from __future__ import annotations

import contextlib
import threading
import weakref

from vkdispatch.base.context import Context, get_context
from vkdispatch.errors import InvalidTypeError
from vkdispatch.execution_pipeline.command_graph import CommandGraph
from vkdispatch.shader.dispatch_target import set_default_target_provider

__all__ = ["default_graph", "global_graph", "graph_or_global", "set_global_graph",
           "one_submission", "repeat_or_record", "buffer_key"]


class _ThreadKey:
    """Identifies one thread in ``Context.derived`` (gone, with its entries, when it ends)."""


class _Graphs(threading.local):
    default: CommandGraph | None = None
    custom: CommandGraph | None = None

    def __init__(self) -> None:
        self.key = _ThreadKey()


_graphs = _Graphs()


def default_graph() -> CommandGraph:
    """This thread's immediate-mode graph for the current context: every recorded call is
    submitted at once."""
    graph, context = _graphs.default, get_context()
    if graph is None or graph.context is not context or graph.destroyed:
        graph = _graphs.default = _immediate_graph(context)
    return graph


def _immediate_graph(context: Context) -> CommandGraph:
    # One per thread and context, kept by the context: switching contexts reuses it, and it
    # goes when the context closes.
    graph = context.derived.get(_graphs.key)
    if graph is None or graph.destroyed:
        with context:
            graph = CommandGraph(reset_on_submit=True, submit_on_record=True)
        context.derived[_graphs.key] = graph
    return graph


def global_graph() -> CommandGraph:
    """The graph shader calls use when no ``graph=`` is given: the one installed with
    :func:`set_global_graph`, else :func:`default_graph`."""
    return _graphs.custom if _graphs.custom is not None else default_graph()


def graph_or_global(graph) -> CommandGraph:
    """``graph`` (checked to be a CommandGraph), or the global graph when it is None: what a
    library call given ``graph=`` records into."""
    if graph is None:
        return global_graph()
    if not isinstance(graph, CommandGraph):
        raise InvalidTypeError(f"graph must be a vd.CommandGraph or None, got "
                               f"{type(graph).__name__}")
    return graph


def one_submission(graph=None):
    """A context in which a library operation's dispatches into ``graph`` (None: the thread's
    global graph) become one queue submission where that graph is the immediate one (see
    :meth:`CommandGraph.one_submission`); any other dispatch target records as usual."""
    target = global_graph() if graph is None else graph
    if isinstance(target, CommandGraph):
        return target.one_submission()
    return contextlib.nullcontext()


def repeat_or_record(graph, key, record) -> None:
    """``record()`` (a library operation's calls into ``graph``, None: the thread's global
    graph) as one submission; in immediate mode a repeat of the previous operation with an
    equal ``key`` resubmits its recording without running ``record()`` (see
    :meth:`CommandGraph.repeat_or_record`). Any other dispatch target records as usual."""
    target = global_graph() if graph is None else graph
    if isinstance(target, CommandGraph):
        target.repeat_or_record(key, record)
    else:
        record()


def buffer_key(buffers) -> tuple | None:
    """What a recording depends on of ``buffers``: each one's identity (a weak reference,
    which compares equal only while the same buffer lives), shape and element type; None
    where one is destroyed (the operation then records, and reports it)."""
    key = []
    for buffer in buffers:
        if getattr(buffer, "destroyed", True):
            return None
        try:
            key.append((weakref.ref(buffer), buffer.shape, buffer.var_type))
        except (TypeError, AttributeError):  # not a buffer of ours: the operation reports it
            return None
    return tuple(key)


def set_global_graph(graph: CommandGraph | None = None) -> None:
    """Installs ``graph`` as this thread's global graph (replacing any); None removes it."""
    if graph is not None and not isinstance(graph, CommandGraph):
        raise InvalidTypeError(f"graph must be a CommandGraph or None, got "
                               f"{type(graph).__name__}")
    _graphs.custom = graph


set_default_target_provider(global_graph)
