"""What a fuzzed call may do, shared by the fuzz modules: succeed (and match the model), or raise
a typed vkdispatch error whose message names the argument at fault.

A drawn argument is *valid* (the call must succeed), *lenient* (a library may accept or refuse
it: refused, the error must name it; accepted, the result must be the model's) or *bad* (it must
be refused).
"""
from __future__ import annotations

from typing import NamedTuple

from hypothesis import HealthCheck, event, settings

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
