"""Template helpers: show a catalogue fact with its unit and its provenance beside it."""

from __future__ import annotations

from django import template
from django.utils.html import format_html

from apps.core.fields import QuantityField
from apps.core.labels import readable as _readable
from simulator.units import DIMENSIONS, format_quantity

register = template.Library()


#: facts that are lists of durations (the others are lists of names or of plain numbers)
_TIME_LISTS = {"queue_wait_samples"}


def display_value(obj, name: str) -> str:
    """A fact of ``obj`` as readable text with its unit."""
    field = obj._meta.get_field(name)
    value = getattr(obj, name)
    if value is None or value == "":
        return "—"
    if field.choices:
        return getattr(obj, f"get_{name}_display")()
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(field, QuantityField):
        if field.dimension in ("bytes", "bandwidth", "time", "frequency"):
            return format_quantity(value, field.dimension)
        unit = DIMENSIONS[field.dimension]
        if field.dimension == "scalar":
            return f"{value:,.4g}"
        return f"{value:,.4g} {unit}"
    if isinstance(value, list):
        if all(isinstance(v, str) for v in value):  # names of the catalogue (upstream stages): as words
            return ", ".join(_readable(v) for v in value) or "—"
        if name in _TIME_LISTS:
            return ", ".join(format_quantity(v, "time") for v in value)
        return ", ".join(f"{v:,.4g}" for v in value)  # plain numbers (a stage's task size multipliers)
    return str(value)


@register.simple_tag
def fact(obj, name: str):
    """``{% fact platform "wan_bandwidth" %}``: the value, its unit and its source, hover for detail."""
    return format_html(
        '<span class="fact-value">{}</span> <span class="prov" title="{}" data-source="{}" tabindex="0">{}</span>',
        display_value(obj, name),
        obj.source_text(name),
        obj.source_text(name),
        obj.source_short(name) if getattr(obj, name) not in (None, "") else "",
    )


@register.simple_tag
def fact_label(obj, name: str) -> str:
    return column_label(type(obj), name)


def column_label(model, name: str) -> str:
    label = str(model._meta.get_field(name).verbose_name)
    return label[:1].upper() + label[1:]


def columns(model, names) -> list[tuple[str, str]]:
    """``(name, label)`` pairs for table headers of ``model``'s facts."""
    return [(name, column_label(model, name)) for name in names]


@register.filter
def readable(identifier) -> str:
    """``{{ stage.name|readable }}``: an identifier of the catalogue as words."""
    return _readable(identifier)


@register.filter
def quantity(value, dimension: str) -> str:
    """``{{ value|quantity:"bytes" }}``."""
    if value is None:
        return "—"
    return format_quantity(float(value), dimension)


@register.filter
def recorded(value, dimension: str) -> str:
    """``{{ value|recorded:"bytes" }}``: as ``quantity``, but "not recorded" where a file lacks the figure."""
    if value is None:
        return "not recorded"
    return format_quantity(float(value), dimension)


@register.filter
def hours(seconds) -> str:
    """Seconds as hours ("12.3 h"), or days for long spans ("10.4 d (250 h)")."""
    if seconds is None or seconds == "":
        return "—"
    h = float(seconds) / 3600.0
    if h >= 72:
        return f"{h / 24:,.1f} d ({h:,.0f} h)"
    if h >= 1:
        return f"{h:,.2f} h"
    return f"{float(seconds):,.0f} s"


@register.filter
def aud(value, code="AUD") -> str:
    """An amount of Australian dollars, as the paper reports them (or of ``code`` once converted)."""
    if value is None or value == "":
        return "—"
    return f"{code} {float(value):,.2f}"


@register.filter
def money(value, code="AUD") -> str:
    """AUD (or ``code`` once converted) with the precision a decision needs: whole units from 10 up ("AUD 133,000"),
    cents below."""
    if value is None or value == "":
        return "—"
    value = float(value)
    if value == 0:
        return f"{code} 0"
    return f"{code} {value:,.0f}" if abs(value) >= 10 else f"{code} {value:,.2f}"


@register.filter
def money_or_dash(value, code="AUD") -> str:
    """Like :func:`money`, with a dash for nothing (a table of mostly-zero costs reads faster)."""
    if value is None or value == "" or float(value) == 0:
        return "–"
    return money(value, code)


@register.filter
def weight(value) -> str:
    """A criterion weight as its slider shows it: "1", "0.25", "3.43"."""
    if value is None or value == "":
        return "—"
    return f"{float(value):.2f}".rstrip("0").rstrip(".")


@register.filter
def percent(value) -> str:
    if value is None or value == "":
        return "—"
    return f"{100 * float(value):.0f}%"


@register.filter
def get(mapping, key):
    return (mapping or {}).get(key)
