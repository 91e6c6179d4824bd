"""Aggregations of 0-5 ranks into one number per platform (higher is better).

All take ``scores``: platform -> list of ranks (criteria in one order) and ``weights`` (same order,
non-negative, not all zero).  The paper's product (Table 3) ignores weights by definition.
"""

from __future__ import annotations

import math

__all__ = ["MAX_RANK", "METHODS", "product_normalised", "weighted_sum", "weighted_product", "topsis",
           "aggregate", "order", "check_weights"]

MAX_RANK = 5


def check_weights(weights: list[float], n: int) -> list[float]:
    """Weights normalised to sum 1; raises ValueError when they cannot be."""
    if len(weights) != n:
        raise ValueError(f"weights: {len(weights)} given for {n} criteria")
    if any((not isinstance(w, (int, float))) or math.isnan(w) or w < 0 for w in weights):
        raise ValueError("weights: must be non-negative numbers")
    total = float(sum(weights))
    if total <= 0:
        raise ValueError("weights: at least one must be positive")
    return [w / total for w in weights]


def product_normalised(scores: dict[str, list[int]], weights: list[float] | None = None) -> dict[str, float]:
    """Π ranks / 5^n, the paper's 'Product (Π/5^8)' row."""
    return {p: math.prod(s) / MAX_RANK ** len(s) for p, s in scores.items()}


def weighted_sum(scores: dict[str, list[int]], weights: list[float]) -> dict[str, float]:
    """Σ w_i r_i / (5 Σ w_i), in 0..1."""
    out = {}
    for p, s in scores.items():
        w = check_weights(weights, len(s))
        out[p] = sum(wi * ri for wi, ri in zip(w, s, strict=True)) / MAX_RANK
    return out


def weighted_product(scores: dict[str, list[int]], weights: list[float]) -> dict[str, float]:
    """Π (r_i / 5)^(w_i / Σ w), in 0..1; a zero rank on a weighted criterion gives 0."""
    out = {}
    for p, s in scores.items():
        w = check_weights(weights, len(s))
        value = 1.0
        for wi, ri in zip(w, s, strict=True):
            if wi == 0:
                continue
            value *= (ri / MAX_RANK) ** wi if ri > 0 else 0.0
        out[p] = value
    return out


def topsis(scores: dict[str, list[int]], weights: list[float]) -> dict[str, float]:
    """TOPSIS closeness to the ideal (vector normalisation, every rank a benefit criterion), in 0..1.

    When every platform has the same ranks the distances are all zero and each gets 0.5."""
    names = list(scores)
    if not names:
        return {}
    n = len(scores[names[0]])
    w = check_weights(weights, n)
    norms = [math.sqrt(sum(scores[p][j] ** 2 for p in names)) for j in range(n)]
    v = {p: [w[j] * (scores[p][j] / norms[j] if norms[j] else 0.0) for j in range(n)] for p in names}
    best = [max(v[p][j] for p in names) for j in range(n)]
    worst = [min(v[p][j] for p in names) for j in range(n)]
    out = {}
    for p in names:
        d_plus = math.sqrt(sum((v[p][j] - best[j]) ** 2 for j in range(n)))
        d_minus = math.sqrt(sum((v[p][j] - worst[j]) ** 2 for j in range(n)))
        out[p] = 0.5 if d_plus + d_minus == 0 else d_minus / (d_plus + d_minus)
    return out


METHODS = {
    "product": product_normalised,
    "weighted_sum": weighted_sum,
    "weighted_product": weighted_product,
    "topsis": topsis,
}


def aggregate(scores: dict[str, list[int]], weights: list[float]) -> dict[str, dict[str, float]]:
    """Every method: method -> platform -> value."""
    return {name: fn(scores, weights) for name, fn in METHODS.items()}


def order(values: dict[str, float]) -> list[str]:
    """Platforms best first (ties broken by name so the order is stable)."""
    return sorted(values, key=lambda p: (-values[p], p))
