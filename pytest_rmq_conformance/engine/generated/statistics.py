"""The statistics of the spread checks: an exact chi-square tail, and the bound a fair draw
exceeds with a given chance.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import math

__all__ = ["SPREAD_ALPHA", "chi_square_tail", "chi_square_bound", "chi_square"]

#: the chance that a fair spread fails a spread check in one run
SPREAD_ALPHA = 1e-6


def chi_square_tail(statistic: float, freedom: int) -> float:
    """The chance that a chi-square variable of ``freedom`` degrees exceeds ``statistic`` (exact,
    from the closed forms of the regularized upper incomplete gamma for whole and half orders)."""
    half = statistic / 2
    if freedom % 2 == 0:
        term, total = 1.0, 1.0
        for i in range(1, freedom // 2):
            term *= half / i
            total += term
        return math.exp(-half) * total
    total = math.erfc(math.sqrt(half))
    term = math.sqrt(half) / math.gamma(1.5)
    for i in range(1, (freedom + 1) // 2):
        total += math.exp(-half) * term
        term *= half / (i + 0.5)
    return total


def chi_square_bound(cells: int, alpha: float = SPREAD_ALPHA) -> float:
    """The chi-square statistic over ``cells`` equally likely cells that a fair draw exceeds
    with chance ``alpha``."""
    low, high = 0.0, 10.0 * cells + 100.0
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if chi_square_tail(middle, cells - 1) > alpha else (low, middle)
    return high


def chi_square(counts: list[int]) -> float:
    """The chi-square statistic of ``counts`` against equal expected counts."""
    expected = sum(counts) / len(counts)
    return sum((seen - expected) ** 2 / expected for seen in counts)
