"""Factoring FFT lengths into the radices the generated butterflies support."""
from __future__ import annotations

import math
import numbers

from vkdispatch.errors import InvalidArgumentError, InvalidTypeError

__all__ = ["SUPPORTED_PRIMES", "PADDING_PRIMES", "prime_factors", "group_primes",
           "default_register_limit", "default_max_prime", "pad_dim"]

# Primes with a generated butterfly. Those above 13 are direct DFTs of their own stage (p
# registers a thread, O(p^2) multiply-adds, still memory-bound on GPUs); other primes run
# Rader's algorithm where p - 1 has only these primes, else Bluestein's.
SUPPORTED_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31)
# The primes of padded lengths (pad_dim, Bluestein's M): those whose butterflies are cheapest.
PADDING_PRIMES = (2, 3, 5, 7, 11, 13)


def default_register_limit() -> int:
    """Complex registers per thread the planner aims for (a radix-16 stage)."""
    return 16


def default_max_prime() -> int:
    """The largest prime pad_dim pads with (vkdispatch 0.1.0's largest butterfly)."""
    return PADDING_PRIMES[-1]


def prime_factors(n: int) -> list[int]:
    """The prime factors of ``n`` in ascending order, with multiplicity (``[]`` for 1)."""
    if n < 1:
        raise InvalidArgumentError(f"prime_factors needs a positive integer, got {n}")
    factors, p = [], 2
    while p * p <= n:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    if n > 1:
        factors.append(n)
    return factors


def group_primes(primes: list[int], limit: int) -> list[list[int]]:
    """Greedy grouping: each group is extended while its product stays within ``limit``."""
    groups: list[list[int]] = []
    product = limit + 1
    for prime in primes:
        if product * prime > limit:
            groups.append([])
            product = 1
        groups[-1].append(prime)
        product *= prime
    return groups


def _int_argument(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidTypeError(f"pad_dim: {name} must be an int, got {value!r:.60} "
                               f"({type(value).__name__})")
    return int(value)


def pad_dim(dim: int, max_register_count: int | None = None) -> int:
    """The smallest length >= ``dim`` whose prime factors are all at most
    ``max_register_count`` (default 16, so at most 13): an FFT-friendly padded size.

    Raises:
        TypeError: ``dim`` or ``max_register_count`` is not an int (numpy ints count).
        ValueError: ``dim`` < 1 or ``max_register_count`` < 2.
    """
    dim = _int_argument(dim, "dim")
    if dim <= 0:
        raise InvalidArgumentError(f"Dimension must be greater than 0 (got dim={dim})")
    if max_register_count is None:
        max_register_count = default_register_limit()
    max_register_count = _int_argument(max_register_count, "max_register_count")
    primes = [p for p in PADDING_PRIMES if p <= min(max_register_count, default_max_prime())]
    if not primes:
        raise InvalidArgumentError(f"max_register_count must be at least 2, got "
                                   f"{max_register_count}")
    best = primes[0] ** math.ceil(math.log(dim, primes[0]) - 1e-9)
    while best < dim:
        best *= primes[0]

    def search(index: int, value: int) -> None:
        """Tries value * primes[index]^e * (later primes), keeping the least >= dim."""
        nonlocal best
        if index == len(primes):
            return
        while value < best:
            if value >= dim:
                best = value
                return
            search(index + 1, value)
            value *= primes[index]

    search(0, 1)
    return best
