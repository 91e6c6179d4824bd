"""How robust a ranking is to the weights: one-at-a-time changes, random weights, method agreement.

* :func:`weight_flip` — for each criterion, the smallest change of its (normalised) weight, the others
  rescaled to keep the sum 1, that changes the winner; the overall minimum is the ranking's margin.
* :func:`first_place_probability` — weights drawn from a seeded Dirichlet (flat by default, or centred
  on the given weights with a concentration), each platform's share of first places (ties split).
* :func:`method_agreement` — Kendall's tau-b between the orders given by each pair of methods.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .aggregate import METHODS, check_weights

__all__ = ["Flip", "winners", "tiers", "weight_flip", "slider_margin", "weight_verdict", "one_at_a_time",
           "first_place_probability", "kendall_tau_b", "method_agreement"]

#: resolution of the scan over a criterion's weight before refining by bisection
SCAN_STEPS = 200


@dataclass(frozen=True)
class Flip:
    criterion: int
    from_weight: float
    to_weight: float
    new_winner: str

    @property
    def change(self) -> float:
        return abs(self.to_weight - self.from_weight)


def winners(scores: dict[str, list[int]], weights: list[float], method: str = "weighted_sum") -> list[str]:
    """The platform(s) with the highest aggregate (several on a tie; a platform with no aggregate never wins)."""
    values = {p: v for p, v in METHODS[method](scores, weights).items() if v is not None}
    if not values:
        return []
    top = max(values.values())
    return sorted(p for p, v in values.items() if math.isclose(v, top, rel_tol=1e-12, abs_tol=1e-12))


def tiers(values: dict[str, float | None]) -> list[list[str]]:
    """Platforms best first, equal values (to rounding) sharing a tier: ``[["a", "b"], ["c"]]`` reads a = b > c.
    Platforms with no aggregate share the last tier."""
    out: list[list[str]] = []
    for p in sorted(values, key=lambda p: (values[p] is None, -(values[p] or 0.0), p)):
        prev = values[out[-1][0]] if out else None
        same = (values[p] is None and prev is None) if values[p] is None or prev is None else math.isclose(
            values[p], prev, rel_tol=1e-9, abs_tol=1e-12)
        if out and same:
            out[-1].append(p)
        else:
            out.append([p])
    return out


def _with_weight(w: list[float], j: int, x: float) -> list[float]:
    rest = 1.0 - w[j]
    if rest <= 0:
        others = [(1.0 - x) / (len(w) - 1)] * len(w)
    else:
        others = [wi * (1.0 - x) / rest for wi in w]
    others[j] = x
    return others


def weight_flip(scores, weights, method="weighted_sum") -> list[Flip | None]:
    """Per criterion, the nearest weight (normalised, others rescaled) at which the winner changes, or None."""
    w = check_weights(weights, len(next(iter(scores.values()))))
    base = winners(scores, w, method)
    out: list[Flip | None] = []
    if len(w) < 2:
        return [None] * len(w)
    for j in range(len(w)):
        best: Flip | None = None
        grid = [k / SCAN_STEPS for k in range(SCAN_STEPS + 1)]
        for direction in (1, -1):
            pts = sorted((x for x in grid if (x - w[j]) * direction > 0), key=lambda x: abs(x - w[j]))
            prev = w[j]
            for x in pts:
                win = winners(scores, _with_weight(w, j, x), method)
                if win != base:
                    lo, hi = prev, x
                    for _ in range(30):
                        mid = (lo + hi) / 2
                        if winners(scores, _with_weight(w, j, mid), method) != base:
                            hi = mid
                        else:
                            lo = mid
                    new = winners(scores, _with_weight(w, j, hi), method)
                    flip = Flip(j, w[j], hi, ", ".join(new))
                    if best is None or flip.change < best.change:
                        best = flip
                    break
                prev = x
        out.append(best)
    return out


def slider_margin(scores, raw_weights, method="weighted_sum") -> dict | None:
    """The smallest one-criterion change that changes the winner, told in the raw weights a user sets (moving
    that one weight, the others unchanged, is the same weighting as :func:`weight_flip`'s rescaled one).

    Returns ``{"criterion", "from_weight", "to_weight", "tie", "tied", "after"}``: at ``to_weight`` the platforms
    ``tied`` share first place when ``tie``; ``after`` wins past it.  None when no single weight changes the
    winner, or when only a weighting with every other weight at zero would."""
    w = check_weights(raw_weights, len(next(iter(scores.values()))))
    base = winners(scores, w, method)
    best = None
    for flip in weight_flip(scores, raw_weights, method):
        if flip is None:
            continue
        j, x = flip.criterion, flip.to_weight
        others = sum(raw_weights) - raw_weights[j]
        if others <= 0 or x >= 1.0 - 1e-9:  # only with every other weight at zero (x = 1, give or take rounding)
            continue
        to_raw = x * others / (1.0 - x)
        if best is None or abs(to_raw - raw_weights[j]) < abs(best["to_weight"] - best["from_weight"]):
            step = 1e-6 if x > flip.from_weight else -1e-6
            at = winners(scores, _with_weight(w, j, x), method)
            after = winners(scores, _with_weight(w, j, min(1.0, max(0.0, x + step))), method)
            best = {"criterion": j, "from_weight": float(raw_weights[j]), "to_weight": to_raw,
                    "tie": len(at) > 1, "tied": at, "after": after, "base": base}
    return best


def weight_verdict(scores, raw_weights, method="weighted_sum", samples=2000, seed=0) -> dict:
    """Everything on a results page that follows the weights: the aggregate of every platform, the order in tiers
    (ties shared), the winner(s), the smallest change that flips them and each platform's probability of ranking
    first for weights near these."""
    values = METHODS[method](scores, raw_weights)
    order = tiers(values)
    return {
        "method": method, "values": values, "tiers": order, "winners": order[0],
        "margin": slider_margin(scores, raw_weights, method) if len(scores) > 1 else None,
        "p_first_near": first_place_probability(scores, raw_weights, method, samples=samples, seed=seed,
                                                concentration=10.0),
    }


def one_at_a_time(scores, weights, method="weighted_sum", factors=(0.5, 0.75, 1.25, 1.5, 2.0)):
    """For each criterion and factor: the winner(s) when that criterion's raw weight is multiplied."""
    rows = []
    for j in range(len(weights)):
        for f in factors:
            w = list(weights)
            w[j] = w[j] * f
            if sum(w) <= 0:
                continue
            rows.append({"criterion": j, "factor": f, "winners": winners(scores, w, method)})
    return rows


def first_place_probability(scores, weights=None, method="weighted_sum", samples=2000, seed=0,
                            concentration: float | None = None) -> dict[str, float]:
    """Share of Dirichlet weight draws in which each platform ranks first (ties split equally)."""
    names = list(scores)
    n = len(scores[names[0]])
    if concentration is None or weights is None:
        alpha = np.ones(n)
    else:
        w = check_weights(weights, n)
        alpha = np.maximum(np.array(w) * concentration * n, 1e-3)
    rng = np.random.default_rng(seed)
    draws = rng.dirichlet(alpha, size=samples)
    if method == "weighted_sum":  # linear in the weights: every draw at once (the results page's sliders wait on it)
        # an unknown rank is left out: the platform's value is its weighted mean over its known ranks
        known = np.array([[r is not None for r in scores[p]] for p in names], dtype=float)
        ranks = np.array([[0.0 if r is None else float(r) for r in scores[p]] for p in names])
        with np.errstate(invalid="ignore", divide="ignore"):
            values = (draws @ (known * ranks).T) / (draws @ known.T)
        values = np.where(np.isfinite(values), values, -np.inf)
        top = values.max(axis=1, keepdims=True)
        first = np.isclose(values, top, rtol=1e-12, atol=1e-12)
        shares = (first / first.sum(axis=1, keepdims=True)).sum(axis=0)
        return {p: float(shares[i]) / samples for i, p in enumerate(names)}
    counts = dict.fromkeys(names, 0.0)
    for row in draws:
        win = winners(scores, [float(x) for x in row], method)
        for p in win:
            counts[p] += 1.0 / len(win)
    return {p: c / samples for p, c in counts.items()}


def kendall_tau_b(x: list[float], y: list[float]) -> float | None:
    """Kendall's tau-b of two paired lists; None when either is constant."""
    conc = disc = tx = ty = 0
    for i in range(len(x)):
        for k in range(i + 1, len(x)):
            dx = (x[i] > x[k]) - (x[i] < x[k])
            dy = (y[i] > y[k]) - (y[i] < y[k])
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tx += 1
            elif dy == 0:
                ty += 1
            elif dx == dy:
                conc += 1
            else:
                disc += 1
    denom = math.sqrt((conc + disc + tx) * (conc + disc + ty))
    return None if denom == 0 else (conc - disc) / denom


def method_agreement(aggregates: dict[str, dict[str, float]]) -> list[dict]:
    """Kendall's tau-b for each pair of methods over the platforms' aggregate values."""
    methods = list(aggregates)
    names = sorted(next(iter(aggregates.values()))) if aggregates else []
    rows = []
    for i, a in enumerate(methods):
        for b in methods[i + 1:]:
            both = [p for p in names if aggregates[a][p] is not None and aggregates[b][p] is not None]
            tau = kendall_tau_b([aggregates[a][p] for p in both], [aggregates[b][p] for p in both])
            rows.append({"a": a, "b": b, "tau": tau})
    return rows
