"""Money shown in a scenario's currency: the one conversion every page and report uses.

Amounts are computed and stored in AUD (the catalogue's base currency, keys ending ``_aud``); only what a reader
sees is converted, dividing by the rate of the currency's catalogue fact (AUD per unit, see
:func:`apps.core.models.currency_section`)."""

from __future__ import annotations

from typing import Any

from apps.core.models import MissingRate, currency_section

__all__ = ["MissingRate", "currency_section", "shown_currency", "amount_in", "amounts_in"]

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
