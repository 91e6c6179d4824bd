"""Template filters of the scenario pages: signed differences for the compare view."""

from __future__ import annotations

from django import template

from apps.core.templatetags.skyplan import aud, hours, money

register = template.Library()


@register.filter
def signed_hours(seconds) -> str:
    """A difference of durations with its sign: "+12.30 h", "−3.0 d (72 h)"."""
    if seconds is None or seconds == "":
        return "—"
    value = float(seconds)
    return ("+" if value > 0 else "−" if value < 0 else "±") + hours(abs(value))


@register.filter
def signed_aud(value) -> str:
    if value is None or value == "":
        return "—"
    value = float(value)
    return ("+" if value > 0 else "−" if value < 0 else "±") + aud(abs(value))


@register.filter
def signed_money(value) -> str:
    """A difference of AUD with its sign, at the precision of :func:`money`: "+AUD 51", "−AUD 1,163"."""
    if value is None or value == "":
        return "—"
    value = float(value)
    return ("+" if value > 0 else "−" if value < 0 else "±") + money(abs(value))


@register.filter
def signed_points(value) -> str:
    """A difference of two shares in percentage points: "+12 pts"."""
    if value is None or value == "":
        return "—"
    points = 100 * float(value)
    return ("+" if points > 0.5 else "−" if points < -0.5 else "±") + f"{abs(points):.0f} pts"
