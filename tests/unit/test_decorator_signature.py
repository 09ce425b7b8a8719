"""@vd.shader reads a plain function's parameters directly; whatever it reads equals what
inspect.signature(func, eval_str=True) reports, for plain and unusual functions alike."""
from __future__ import annotations

import functools
import importlib
import inspect

import pytest

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, Var, f32, i32

decorator = importlib.import_module("vkdispatch.shader.decorator")

_STRING_ANNOTATED = {}
exec("from __future__ import annotations\n"  # noqa: S102 - string annotations, as a module has
     "from vkdispatch.codegen.abbreviations import Buff, f32\n"
     "def stringly(a: Buff[f32], n: f32 = 2.0): pass\n", _STRING_ANNOTATED)


def plain(a: Buff[f32], b: Buff[f32], k: Const[f32]): pass
def defaults(a: Buff[f32], k: Const[f32] = 1.5, n: Var[i32] = None): pass  # noqa: E704
def unannotated(a, b: Buff[f32] = None): pass  # noqa: E704
def no_parameters(): pass  # noqa: E704
def with_locals(a: Buff[f32]):  # local names follow the parameters in co_varnames
    x = 1
    y = x + 1
    return y
def star_args(a: Buff[f32], *rest): pass  # noqa: E704
def keyword_only(a: Buff[f32], *, k: Const[f32] = 2.0): pass  # noqa: E704
def positional_only(a: Buff[f32], /, k: Const[f32]): pass  # noqa: E704


@functools.wraps(plain)
def wrapped(*args): return plain(*args)  # noqa: E704


@pytest.mark.parametrize("func", [plain, defaults, unannotated, no_parameters, with_locals,
                                  star_args, keyword_only, positional_only, wrapped,
                                  _STRING_ANNOTATED["stringly"], lambda a, b=3: None,
                                  functools.partial(defaults, k=4.0)],
                         ids=lambda f: getattr(f, "__name__", type(f).__name__))
def test_parameters_equal_inspect_signature(func):
    expected = [(p.name, p.annotation, p.default)
                for p in inspect.signature(func, eval_str=True).parameters.values()]
    assert decorator._signature(func) == expected


def test_a_kernel_traced_through_the_direct_path_keeps_names_and_defaults():
    @vd.shader("a.size")
    def scaled(a: Buff[f32], k: Const[f32] = 1.5):
        i = vc.global_invocation_id().x
        a[i] = a[i] * k
    assert [(info.name, info.default_value) for info in scaled._infos] == \
        [("a", inspect.Parameter.empty), ("k", 1.5)]


def test_an_unannotated_parameter_is_named_in_the_error():
    with pytest.raises(ValueError, match="'b' of bad has no annotation"):
        @vd.shader("a.size")
        def bad(a: Buff[f32], b):
            pass
