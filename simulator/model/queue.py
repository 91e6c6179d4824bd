"""Batch-queue waits as distributions, drawn per submission with a seeded ``random.Random``.

Models (``QueueWaitSpec.model``): ``none`` (0 s), ``fixed`` (the median),
``lognormal`` (median and shape ``sigma``: ``median * exp(sigma * N(0, 1))``) and
``empirical`` (one of the samples, uniformly).  The same seed gives the same waits.
"""

from __future__ import annotations

import math
import random

from .specs import QueueWaitSpec

__all__ = ["sample_queue_wait", "queue_wait_quantile"]


def sample_queue_wait(spec: QueueWaitSpec, rng: random.Random) -> float:
    """One queue wait in seconds for one submission."""
    model = (spec.model or "none").lower()
    if model == "none":
        return 0.0
    if model == "fixed":
        return float(spec.median_seconds or 0.0)
    if model == "lognormal":
        if spec.median_seconds is None:
            raise ValueError("a lognormal queue wait needs median_seconds")
        sigma = float(spec.sigma or 0.0)
        return float(spec.median_seconds) * math.exp(sigma * rng.gauss(0.0, 1.0))
    if model == "empirical":
        if not spec.samples_seconds:
            raise ValueError("an empirical queue wait needs samples_seconds")
        return float(rng.choice(list(spec.samples_seconds)))
    raise ValueError(f"unknown queue wait model {spec.model!r}; expected none, fixed, lognormal or empirical")


def queue_wait_quantile(spec: QueueWaitSpec, q: float) -> float:
    """The ``q`` quantile of the wait (exact for fixed/lognormal, nearest-rank for empirical)."""
    model = (spec.model or "none").lower()
    if model == "none":
        return 0.0
    if model == "fixed":
        return float(spec.median_seconds or 0.0)
    if model == "lognormal":
        from statistics import NormalDist

        return float(spec.median_seconds) * math.exp(float(spec.sigma or 0.0) * NormalDist().inv_cdf(q))
    xs = sorted(spec.samples_seconds)
    return float(xs[min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))])
