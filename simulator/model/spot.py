"""The spot market as seen by one scenario (seed 000, §4.3.3, §5.2.3 and Fig. 3).

* Price: ``base * (1 + rise * (n - 1))`` for ``n`` instances of that type the scenario
  itself has alive (Fig. 3: the INVERT instance type's price ~0.16 was driven almost double by
  the parallel INVERTs).  Without a ``spot_rise_per_instance`` fact the price is flat.
* Throttling: the team launched INVERTs one by one and let the price settle;
  :func:`max_concurrent_under_ceiling` turns an acceptable price ceiling into a
  concurrency limit.
* Interruptions (optional): each instance-hour is interrupted with probability
  ``rate_per_hour``; the task gets a two-minute warning, loses the work done since
  its last checkpoint (CASA tasks do not checkpoint: all of it), and is re-run on an
  on-demand instance (fallback) after a fresh boot.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from .specs import NodeTypeSpec

__all__ = [
    "SpotMarket",
    "spot_market",
    "max_concurrent_under_ceiling",
    "sample_interruption",
    "Interruption",
    "WARNING_SECONDS",
]

#: EC2 gives a two-minute warning before reclaiming a spot instance (§4.3.3)
WARNING_SECONDS = 120.0


@dataclass(frozen=True)
class SpotMarket:
    instance_type: str
    base_aud_per_hour: float
    rise_per_instance: float = 0.0
    on_demand_aud_per_hour: float | None = None

    def price(self, concurrent: int) -> float:
        """Spot price with ``concurrent`` of our instances alive (>= 1), capped at on-demand."""
        n = max(1, int(concurrent))
        p = self.base_aud_per_hour * (1.0 + self.rise_per_instance * (n - 1))
        if self.on_demand_aud_per_hour is not None:
            p = min(p, self.on_demand_aud_per_hour)
        return p


def spot_market(node_type: NodeTypeSpec) -> SpotMarket:
    if node_type.spot_aud_per_hour is None:
        raise ValueError(f"instance type {node_type.name!r} has no spot price")
    return SpotMarket(node_type.name, node_type.spot_aud_per_hour, node_type.spot_rise_per_instance or 0.0,
                      node_type.on_demand_aud_per_hour)


def max_concurrent_under_ceiling(market: SpotMarket, ceiling_ratio: float, limit: int = 10_000) -> int:
    """Largest ``n`` with ``price(n) <= ceiling_ratio * base`` (at least 1)."""
    if market.rise_per_instance <= 0:
        return limit
    n = 1 + math.floor((ceiling_ratio - 1.0) / market.rise_per_instance + 1e-9)
    return max(1, min(limit, n))


@dataclass(frozen=True)
class Interruption:
    """Where a task was interrupted and what it costs in time."""

    after_s: float  # time into the task when the instance is reclaimed
    lost_s: float  # work redone
    extra_s: float  # added to the task: lost work + warning + new boot


def sample_interruption(duration_s: float, rate_per_hour: float, boot_s: float, rng: random.Random,
                        checkpoint_s: float | None = None) -> Interruption | None:
    """At most one interruption of a task of ``duration_s`` (exponential arrivals, seeded)."""
    if rate_per_hour <= 0 or duration_s <= 0:
        return None
    t = rng.expovariate(rate_per_hour / 3600.0)
    if t >= duration_s:
        return None
    lost = t if not checkpoint_s else t - checkpoint_s * math.floor(t / checkpoint_s)
    return Interruption(t, lost, lost + WARNING_SECONDS + boot_s)
