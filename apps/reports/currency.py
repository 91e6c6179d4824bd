"""The report's currency: the exchange-rate fact a scenario's chosen currency converts through, and the report's
amounts shown in it.

The document keeps every amount in AUD (the catalogue's base currency, keys ending ``_aud``) and says in its
``currency`` section which currency the reader chose, at what rate, of what date and from what source; the HTML,
PDF, CSV and XLSX renderings show the amounts converted at that rate.
"""

from __future__ import annotations

from typing import Any

from apps.core.currency import MissingRate, amounts_in, currency_section

__all__ = ["currency_section", "in_currency", "MissingRate"]


def in_currency(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of the report document with every amount (``*_aud``, ``aud``, ``aud_per_*``, cost-story parts) in
    the document's currency (through :func:`apps.core.currency.amounts_in`, as the scenario pages); figures and
    free text are left as they are."""
    factor = float((doc.get("currency") or {}).get("base_per_unit") or 1.0)
    if factor == 1.0:
        return doc
    figures = doc.get("figures")
    shown = {k: (v if k in ("figures", "currency", "inputs", "validation") else amounts_in(v, factor, k))
             for k, v in doc.items()}
    shown["figures"] = figures
    return shown
