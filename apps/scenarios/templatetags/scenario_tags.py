"""Template filters of the scenario pages: signed differences for the compare view."""

from __future__ import annotations

from django import template

from apps.core.templatetags.skyplan import aud, hours, money

register = template.Library()


def _signed(value, fmt, *, scale: float = 1.0, dead_band: float = 0.0) -> str:
    """``value`` x ``scale`` with its sign ("+", "−", or "±" within ``dead_band`` of zero), its size written by ``fmt``."""
    if value is None or value == "":
        return "—"
    number = scale * float(value)
    sign = "+" if number > dead_band else "−" if number < -dead_band else "±"
    return sign + fmt(abs(number))


@register.filter
def signed_hours(seconds) -> str:
    """A difference of durations with its sign: "+12.30 h", "−3.0 d (72 h)"."""
    return _signed(seconds, hours)


@register.filter
def signed_aud(value) -> str:
    return _signed(value, aud)


@register.filter
def signed_money(value, code="AUD") -> str:
    """A difference of AUD (or of ``code`` once converted) with its sign, at the precision of :func:`money`:
    "+AUD 51", "−USD 1,163"."""
    return _signed(value, lambda amount: money(amount, code))


@register.filter
def signed_points(value) -> str:
    """A difference of two shares in percentage points: "+12 pts"."""
    return _signed(value, lambda points: f"{points:.0f} pts", scale=100.0, dead_band=0.5)
