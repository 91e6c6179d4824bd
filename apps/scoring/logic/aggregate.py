"""Aggregations of 0-5 ranks into one number per platform (higher is better).

All take ``scores``: platform -> list of ranks (criteria in one order) and ``weights`` (same order,
non-negative, not all zero).  The paper's product (Table 3) ignores weights by definition.

A rank may be ``None`` (unknown: the input the criterion needs is missing).  It is left out: each method works on
that platform's known ranks with their weights renormalised (the product divides by 5 to the number of known ranks),
and a platform with no known weighted rank has no aggregate (``None``), ordered last.
"""

from __future__ import annotations

import math

__all__ = ["MAX_RANK", "METHODS", "METHOD_LABELS", "method_label", "product_normalised", "weighted_sum", "weighted_product", "topsis",
           "aggregate", "order", "check_weights", "known"]

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


def known(ranks: list[int | None], weights: list[float]) -> list[tuple[float, int]]:
    """(weight, rank) of the known ranks, weights renormalised over them; empty when none of them weighs."""
    check_weights(weights, len(ranks))
    pairs = [(float(w), r) for w, r in zip(weights, ranks, strict=True) if r is not None]
    total = sum(w for w, _ in pairs)
    return [(w / total, r) for w, r in pairs] if total > 0 else []


def product_normalised(scores: dict[str, list[int | None]], weights: list[float] | None = None
                       ) -> dict[str, float | None]:
    """Π ranks / 5^n, the paper's 'Product (Π/5^8)' row (over the known ranks)."""
    out: dict[str, float | None] = {}
    for p, s in scores.items():
        ks = [r for r in s if r is not None]
        out[p] = math.prod(ks) / MAX_RANK ** len(ks) if ks else None
    return out


def weighted_sum(scores: dict[str, list[int | None]], weights: list[float]) -> dict[str, float | None]:
    """Σ w_i r_i / (5 Σ w_i), in 0..1."""
    out: dict[str, float | None] = {}
    for p, s in scores.items():
        pairs = known(s, weights)
        out[p] = sum(wi * ri for wi, ri in pairs) / MAX_RANK if pairs else None
    return out


def weighted_product(scores: dict[str, list[int | None]], weights: list[float]) -> dict[str, float | None]:
    """Π (r_i / 5)^(w_i / Σ w), in 0..1; a zero rank on a weighted criterion gives 0."""
    out: dict[str, float | None] = {}
    for p, s in scores.items():
        pairs = known(s, weights)
        if not pairs:
            out[p] = None
            continue
        value = 1.0
        for wi, ri in pairs:
            if wi == 0:
                continue
            value *= (ri / MAX_RANK) ** wi if ri > 0 else 0.0
        out[p] = value
    return out


def topsis(scores: dict[str, list[int]], weights: list[float]) -> dict[str, float]:
    """TOPSIS closeness to the ideal (vector normalisation, every rank a benefit criterion), in 0..1.

    When every platform has the same ranks the distances are all zero and each gets 0.5.  An unknown rank is left
    out of the criterion's norm, ideal and anti-ideal, and of that platform's distances (its weights renormalised
    over its known criteria)."""
    names = list(scores)
    if not names:
        return {}
    n = len(scores[names[0]])
    w = check_weights(weights, n)
    col = [[scores[p][j] for p in names if scores[p][j] is not None] for j in range(n)]
    norms = [math.sqrt(sum(r ** 2 for r in c)) for c in col]
    v = {p: [None if scores[p][j] is None else w[j] * (scores[p][j] / norms[j] if norms[j] else 0.0)
             for j in range(n)] for p in names}
    best = [max((v[p][j] for p in names if v[p][j] is not None), default=0.0) for j in range(n)]
    worst = [min((v[p][j] for p in names if v[p][j] is not None), default=0.0) for j in range(n)]
    out: dict[str, float | None] = {}
    for p in names:
        js = [j for j in range(n) if v[p][j] is not None]
        if sum(w[j] for j in js) <= 0:
            out[p] = None
            continue
        d_plus = math.sqrt(sum((v[p][j] - best[j]) ** 2 for j in js))
        d_minus = math.sqrt(sum((v[p][j] - worst[j]) ** 2 for j in js))
        out[p] = 0.5 if d_plus + d_minus == 0 else d_minus / (d_plus + d_minus)
    return out


#: the aggregation methods as a reader knows them
METHOD_LABELS = {"weighted_sum": "Weighted sum", "product": "Product of the ranks (the paper's Table 3)",
                 "weighted_product": "Weighted product", "topsis": "TOPSIS (closeness to the ideal)"}


def method_label(method: str) -> str:
    """An aggregation method as a reader says it ("Weighted sum", not ``weighted_sum``)."""
    return METHOD_LABELS.get(method, method.replace("_", " "))


METHODS = {
    "product": product_normalised,
    "weighted_sum": weighted_sum,
    "weighted_product": weighted_product,
    "topsis": topsis,
}


def aggregate(scores: dict[str, list[int]], weights: list[float]) -> dict[str, dict[str, float]]:
    """Every method: method -> platform -> value."""
    return {name: fn(scores, weights) for name, fn in METHODS.items()}


def order(values: dict[str, float | None]) -> list[str]:
    """Platforms best first (ties broken by name so the order is stable; no aggregate last)."""
    return sorted(values, key=lambda p: (values[p] is None, -(values[p] or 0.0), p))
