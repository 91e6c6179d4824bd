"""The report's currency: the exchange-rate fact a scenario's chosen currency converts through, and the report's
amounts shown in it.

The document keeps every amount in AUD (the catalogue's base currency, keys ending ``_aud``) and says in its
``currency`` section which currency the reader chose, at what rate, of what date and from what source; the HTML,
PDF, CSV and XLSX renderings show the amounts converted at that rate, the rank explanations of money criteria
included (their values and every amount in their text, thresholds too; the scores are the stored ones).  The
document's figures are drawn in the chosen currency when it is built (:mod:`apps.reports.document`).
"""

from __future__ import annotations

from typing import Any

from apps.core.currency import MissingRate, amount_in, amounts_in, currency_section, text_in
from apps.scoring.logic.criteria import METRICS

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
    shown["ranks"] = _ranks_in(doc, factor)
    return shown


def _ranks_in(doc: dict[str, Any], factor: float) -> list[dict[str, Any]]:
    """The ranks with the value, text and explanation of every money criterion (a metric in AUD) in the document's
    currency; the scores as they are."""
    code = doc["currency"]["code"]
    money = {c["key"] for c in doc.get("criteria", []) if c.get("metric") in METRICS
             and METRICS[c["metric"]].unit == "AUD"}
    rows = []
    for r in doc.get("ranks", []):
        if r["criterion"] in money:
            value = r["value"]
            r = {**r, "text": text_in(r["text"], factor, code), "explanation": text_in(r["explanation"], factor, code),
                 "value": amount_in(value, factor) if isinstance(value, (int, float)) and not isinstance(value, bool)
                 else value}
        rows.append(r)
    return rows
