"""Money shown in a scenario's currency: the one conversion every page and report uses.

Amounts are computed and stored in AUD (the catalogue's base currency, keys ending ``_aud``); only what a reader
sees is converted, dividing by the rate of the currency's catalogue fact (AUD per unit, see
:func:`apps.core.models.currency_section`)."""

from __future__ import annotations

import re
from typing import Any

from apps.core.models import MissingRate, currency_section

__all__ = ["MissingRate", "currency_section", "shown_currency", "amount_in", "amounts_in", "text_in"]

#: cost-story parts whose every number is money (per category), besides the keys ending in ``aud``
MONEY_GROUPS = ("per_run", "fixed_per_year")


def shown_currency(code: str | None) -> dict[str, Any]:
    """The currency section of a page showing a scenario in ``code``; AUD, saying why, when the catalogue has lost
    that currency's rate (the page stays readable, the report refuses)."""
    try:
        return currency_section(code)
    except MissingRate as exc:
        return {**currency_section(None), "text": f"Amounts in AUD: {exc}."}


def amount_in(aud: float, base_per_unit: float) -> float:
    """An amount of AUD in a currency worth ``base_per_unit`` AUD a unit (works on numbers and pandas columns)."""
    return aud / base_per_unit


def amounts_in(value: Any, base_per_unit: float, key: str = "", money: bool = False) -> Any:
    """A copy of ``value`` (dicts and lists of numbers) with every amount (keys ``aud``, ``*_aud``, ``aud_per_*``
    and the cost-story parts) in the currency worth ``base_per_unit`` AUD; other numbers as they are."""
    if isinstance(value, dict):
        return {k: amounts_in(v, base_per_unit, k, money or k in MONEY_GROUPS) for k, v in value.items()}
    if isinstance(value, list):
        return [amounts_in(v, base_per_unit, key, money) for v in value]
    is_money = money or key == "aud" or key.endswith("_aud") or key.startswith("aud_per")
    if is_money and isinstance(value, (int, float)) and not isinstance(value, bool):
        return amount_in(value, base_per_unit)
    return value


#: an amount of AUD in a sentence, as the scoring writes them: "AUD 12,345", "AUD 0.50", "AUD 100K", "AUD 1M"
_CODE_FIRST = re.compile(r"\bAUD (\d+(?:,\d{3})*(?:\.\d+)?)([KM]?)(?!\w|\.\d)")
#: ... and after the number, as a rubric relative to the best says it: "(1.23e+04 AUD)", "(950 AUD)"
_CODE_AFTER = re.compile(r"(?<![\w.,])(\d+(?:,\d{3})*(?:\.\d+)?(?:e[+-]\d+)?) AUD\b")
_SCALE = {"": 1.0, "K": 1e3, "M": 1e6}


def _compact(x: float) -> str:
    """An amount with a K or M suffix, three significant figures ("76.9K", "769K", "1.54M")."""
    for suffix, size in (("M", 1e6), ("K", 1e3)):
        if abs(x) >= size:
            return f"{x / size:.3g}{suffix}"
    return f"{x:.3g}"


def text_in(text: str, base_per_unit: float, code: str) -> str:
    """``text`` with every amount of AUD in it (``AUD 12,345``, ``AUD 100K``, ``1.23e+04 AUD``) in the currency
    ``code`` worth ``base_per_unit`` AUD, written as the original was (whole, with cents, or with K/M)."""
    if code == "AUD" or not text:
        return text

    def first(m: re.Match) -> str:
        number, suffix = m.group(1), m.group(2)
        x = amount_in(float(number.replace(",", "")) * _SCALE[suffix], base_per_unit)
        if suffix:
            return f"{code} {_compact(x)}"
        return f"{code} {x:,.2f}" if "." in number else f"{code} {x:,.0f}"

    def after(m: re.Match) -> str:
        x = amount_in(float(m.group(1).replace(",", "")), base_per_unit)
        return f"{x:,.0f} {code}" if abs(x) >= 1000 else f"{x:.3g} {code}"

    return _CODE_AFTER.sub(after, _CODE_FIRST.sub(first, text))
