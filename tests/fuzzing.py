"""What a fuzzed call may do, shared by the fuzz modules: succeed (and match the model), or raise
a typed vkdispatch error whose message names the argument at fault.

A drawn argument is *valid* (the call must succeed), *lenient* (a library may accept or refuse
it: refused, the error must name it; accepted, the result must be the model's) or *bad* (it must
be refused).
"""
from __future__ import annotations

from typing import Any, NamedTuple

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st

from vkdispatch import errors

BUILTINS = (TypeError, ValueError, IndexError)
"""An error of ours is also one of these built-in classes."""

BASE = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                     HealthCheck.too_slow])
LONG = settings(BASE, max_examples=1000)
"""For the ``slow`` variants."""


class Expect(NamedTuple):
    """``valid``: must succeed. ``model``: if it succeeds, the result must be the model's (False:
    it must raise). ``names``: an error message must contain one of them."""

    valid: bool
    model: bool
    names: tuple[str, ...] = ()

    @staticmethod
    def ok() -> "Expect":
        return Expect(True, True)

    @staticmethod
    def lenient(*names: str) -> "Expect":
        return Expect(False, True, names)

    @staticmethod
    def bad(*names: str) -> "Expect":
        return Expect(False, False, names)

    def __and__(self, other: "Expect") -> "Expect":
        """Two arguments drawn together: an error may name either fault."""
        return Expect(self.valid and other.valid, self.model and other.model,
                      self.names + other.names)


def attempt(action, expect: Expect, what: str):
    """Runs ``action``; returns whether it succeeded (and its result), after checking that an
    error is allowed, typed and names the argument."""
    try:
        result = action()
    except Exception as error:  # which errors are allowed is what the asserts below check
        assert not expect.valid, f"{what}: a valid call raised {error!r}"
        assert isinstance(error, errors.VkDispatchError) and isinstance(error, BUILTINS), \
            f"{what}: {type(error).__mro__} is not a typed vkdispatch error: {error}"
        assert any(name in str(error) for name in expect.names), \
            f"{what}: the message names none of {expect.names}: {error}"
        event(f"refused: {type(error).__name__}")
        return False, None
    assert expect.model, f"{what}: accepted, but it must raise naming one of {expect.names}"
    event("accepted" if expect.valid else "accepted (lenient)")
    return True, result


def outcome(call, *names) -> tuple[bool, Any]:
    """``attempt`` outside a hypothesis test (which records no events): whether ``call``
    succeeded (and its result); a failure must be a typed error naming one of ``names``."""
    try:
        return True, call()
    except Exception as error:  # which errors are allowed is what the asserts check
        assert isinstance(error, errors.VkDispatchError) and isinstance(error, BUILTINS), \
            f"{type(error).__mro__} is not a typed vkdispatch error: {error}"
        assert any(name in str(error) for name in names), \
            f"the message names none of {names}: {error}"
        return False, None


def refused_naming(call, *names) -> None:
    passed, _ = outcome(call, *names)
    assert not passed, f"accepted, but it must raise naming one of {names}"


def attempt_closed(action, names: tuple[str, ...], what: str) -> None:
    """A call with an object of a closed context: documented to raise InvalidStateError (a
    RuntimeError, so not ``attempt``'s classes), naming the object."""
    with pytest.raises(errors.InvalidStateError) as info:
        action()
    assert any(name in str(info.value) for name in names), \
        f"{what}: the message names none of {names}: {info.value}"
    event("refused: InvalidStateError (closed context)")


# -- drawn arguments (the modules that draw each argument of a call separately) ----------------

class Arg(NamedTuple):
    """A drawn argument: what is passed, what it means if the call accepts it (the model's
    value), and whether it must be accepted."""

    passed: Any
    meaning: Any = None
    expect: Expect = Expect.ok()


class Make(NamedTuple):
    """An argument the test makes when it runs (strategies create no device objects)."""

    what: str

    def __repr__(self) -> str:
        return f"<{self.what}>"


def ok(passed, meaning=None) -> Arg:
    return Arg(passed, meaning, Expect.ok())


def lenient(passed, meaning, *names) -> Arg:
    return Arg(passed, meaning, Expect.lenient(*names))


def bad(passed, *names) -> Arg:
    return Arg(passed, None, Expect.bad(*names))


def choose(full: bool, valid: list, lenient_: list = (), bad_: list = ()):
    """One of ``valid``, or (``full``) of the three groups drawn first, about equally often: in a
    plain sampled_from the long list of bad values would crowd out the valid ones."""
    groups = [list(g) for g in ((valid, lenient_, bad_) if full else (valid,)) if g]
    return st.sampled_from(groups).flatmap(st.sampled_from)
