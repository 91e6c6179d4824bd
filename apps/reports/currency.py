"""The report's currency: the exchange-rate fact a scenario's chosen currency converts through, and the report's
amounts shown in it.

The document keeps every amount in AUD (the catalogue's base currency, keys ending ``_aud``) and says in its
``currency`` section which currency the reader chose, at what rate, of what date and from what source; the HTML,
PDF, CSV and XLSX renderings show the amounts converted at that rate.
"""

from __future__ import annotations

from typing import Any

from apps.core.models import MissingRate, currency_section

__all__ = ["currency_section", "in_currency", "MissingRate"]

#: cost-story parts whose every number is money (per category), besides the keys ending in ``aud``
_MONEY_GROUPS = ("per_run", "fixed_per_year")


def _convert(value: Any, key: str, factor: float, money: bool = False) -> Any:
    if isinstance(value, dict):
        return {k: _convert(v, k, factor, money or k in _MONEY_GROUPS) for k, v in value.items()}
    if isinstance(value, list):
        return [_convert(v, key, factor, money) for v in value]
    is_money = money or key == "aud" or key.endswith("_aud") or key.startswith("aud_per")
    if is_money and isinstance(value, (int, float)) and not isinstance(value, bool):
        return value / factor
    return value


def in_currency(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of the report document with every amount (``*_aud``, ``aud``, ``aud_per_*``, cost-story parts) in
    the document's currency; figures and free text are left as they are."""
    factor = float((doc.get("currency") or {}).get("base_per_unit") or 1.0)
    if factor == 1.0:
        return doc
    figures = doc.get("figures")
    shown = {k: (v if k in ("figures", "currency", "inputs", "validation") else _convert(v, k, factor))
             for k, v in doc.items()}
    shown["figures"] = figures
    return shown
