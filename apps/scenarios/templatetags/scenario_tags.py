"""Template filters of the scenario pages: signed differences for the compare view."""

from __future__ import annotations

from django import template

from apps.core.templatetags.skyplan import aud, money

register = template.Library()


def _signed(value, fmt, *, scale: float = 1.0, dead_band: float = 0.0) -> str:
    """``value`` x ``scale`` with its sign ("+" or "−"), its size written by ``fmt``; nothing within ``dead_band`` of
    zero (no difference is shown as none, not as "±0")."""
    if value is None or value == "":
        return "—"
    number = scale * float(value)
    if -dead_band <= number <= dead_band:
        return ""
    return ("+" if number > 0 else "−") + fmt(abs(number))


def _in_unit_of(like) -> tuple[float, str, str]:
    """The unit :func:`hours` writes ``like`` (seconds) in: its size in seconds, its symbol and number format."""
    h = abs(float(like)) / 3600.0
    if h >= 72:
        return 86400.0, "d", ",.1f"
    if h >= 1:
        return 3600.0, "h", ",.2f"
    return 1.0, "s", ",.0f"


@register.filter
def signed_hours(seconds, like=None) -> str:
    """A difference of durations with its sign, in the unit ``like`` (the values compared, seconds) is shown in
    ("+1.5 d" beside values in days, "+12.30 h"); nothing when it is zero at that precision.  Without ``like``, in
    the difference's own unit."""
    if seconds is None or seconds == "":
        return "—"
    factor, symbol, fmt = _in_unit_of(seconds if like in (None, "") else like)
    text = format(abs(float(seconds)) / factor, fmt)
    if float(text.replace(",", "")) == 0:
        return ""
    return ("+" if float(seconds) > 0 else "−") + f"{text} {symbol}"


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
