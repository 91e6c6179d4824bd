"""Task sizes known only by their mean, smallest and largest value (a deterministic spread).

Shared by the general model (a stage's ``spread`` size distribution) and the CHILES day sizes (§1.1 publishes only
the mean, min and max day size)."""

from __future__ import annotations

import math

__all__ = ["spread_sizes"]


def spread_sizes(n: int, mean: float, lo: float, hi: float) -> list[float]:
    """``n`` sizes with exactly ``mean``, smallest ``lo`` and largest ``hi``.

    The sizes are ``lo + (hi - lo) * u**g`` on an even grid of ``u`` in [0, 1] with ``g`` solved (bisection) so
    the mean is exact, then ordered largest, smallest, second largest, second smallest, ...  One size, or
    ``hi <= lo``, gives ``n`` times the mean."""
    if n == 1 or hi <= lo:
        return [mean] * n
    grid = [i / (n - 1) for i in range(n)]
    target = (mean - lo) / (hi - lo)

    def mean_of(g: float) -> float:
        return sum(u**g for u in grid) / n

    a, b = 1e-3, 1e3
    for _ in range(200):  # bisection: mean_of decreases with g
        m = math.sqrt(a * b)
        if mean_of(m) > target:
            a = m
        else:
            b = m
    g = math.sqrt(a * b)
    sizes = sorted((lo + (hi - lo) * u**g for u in grid), reverse=True)
    order: list[float] = []
    i, j = 0, len(sizes) - 1
    while i <= j:
        order.append(sizes[i])
        if i != j:
            order.append(sizes[j])
        i, j = i + 1, j - 1
    return order
