"""Template filters of the scenario pages: signed differences for the compare view."""

from __future__ import annotations

from django import template

from apps.core.templatetags.skyplan import aud, hours

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
