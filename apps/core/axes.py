"""Chart axis titles: a quantity and its unit, written one way on every chart ("time (h)", "cost (AUD)")."""

from __future__ import annotations

__all__ = ["axis_title"]


def axis_title(quantity: str, unit: str) -> str:
    """``axis_title("time", "h")`` -> ``"time (h)"``: the title of an axis showing a quantity in ``unit``."""
    return f"{quantity} ({unit})"
