"""The one place where units are parsed and converted.

Skyplan stores base units: bytes, bytes per second, seconds, operations per second,
hertz and AUD (money rates per hour, per GB-month, ...).  Decimal prefixes are powers
of 1000, binary ones powers of 1024; ``b`` is bits and ``B`` bytes.

Money in another currency ("3.06 USD/h") converts to AUD only through an :class:`ExchangeRate` fact passed in
``rates`` (the catalogue's rate, date and source); without one it is refused, naming the currency.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["UnitError", "CURRENCY", "CURRENCIES", "ExchangeRate", "money_currency", "converted_from",
           "split_quantity", "DIMENSIONS", "EXAMPLES", "to_base", "from_base", "parse_quantity",
           "dimension_of", "units_of", "format_quantity"]


class UnitError(ValueError):
    """An unknown unit, a unit of the wrong dimension or an unparsable quantity."""


#: the base currency: every money value is stored in it (other currencies convert through an exchange-rate fact)
CURRENCY = "AUD"
#: ISO 4217 codes a money unit may carry (docs/catalogue-format.md); all but :data:`CURRENCY` need a rate
CURRENCIES = ("AUD", "USD", "EUR", "GBP", "NZD", "CAD", "JPY", "CHF", "CNY", "SGD", "INR", "ZAR")


@dataclass(frozen=True)
class ExchangeRate:
    """How many :data:`CURRENCY` one unit of ``currency`` was worth on ``date`` (ISO), and who says so."""

    currency: str
    base_per_unit: float
    date: str
    source: dict = field(default_factory=dict, compare=False)

    def to_base(self, amount: float) -> float:
        return float(amount) * self.base_per_unit

    def from_base(self, amount: float) -> float:
        return float(amount) / self.base_per_unit

    def describe(self) -> str:
        """e.g. "1 USD = 1.3 AUD (2015-03-06)"."""
        return f"1 {self.currency} = {self.base_per_unit:g} {CURRENCY} ({self.date})"

_MONEY = {
    "": ("money", 1.0),
    "/h": ("money_per_hour", 1.0),
    "/hour": ("money_per_hour", 1.0),
    "/node-hour": ("money_per_hour", 1.0),
    "/instance-hour": ("money_per_hour", 1.0),
    "/GB-month": ("money_per_gb_month", 1.0),
    "/TB-month": ("money_per_gb_month", 1e-3),
    "/IOPS-month": ("money_per_iops_month", 1.0),
    "/GB": ("money_per_gb", 1.0),
    "/TB": ("money_per_gb", 1e-3),
    "/year": ("money_per_year", 1.0),
}

_DEC = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_BIN = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50}


def _build() -> dict[str, tuple[str, float]]:
    table: dict[str, tuple[str, float]] = {}
    for p, f in list(_DEC.items()) + list(_BIN.items()):
        table[f"{p}B"] = ("bytes", f)
        table[f"{p}B/s"] = ("bandwidth", f)
    for p, f in _DEC.items():
        table[f"{p}b/s"] = ("bandwidth", f / 8.0)
        table[f"{p}bps"] = ("bandwidth", f / 8.0)
        table[f"{p}Hz"] = ("frequency", f)
    table["kB"] = ("bytes", 1e3)
    table.update(
        {
            "s": ("time", 1.0),
            "ms": ("time", 1e-3),
            "us": ("time", 1e-6),
            "min": ("time", 60.0),
            "h": ("time", 3600.0),
            "day": ("time", 86400.0),
            "days": ("time", 86400.0),  # the plural shown for any other number than 1; not listed (see _PLURALS)
            "IOPS": ("rate", 1.0),
            "1/s": ("rate", 1.0),
            "arcsec": ("angle", 1.0),
            "": ("scalar", 1.0),
        }
    )
    for suffix, (dim, factor) in _MONEY.items():
        table[f"{CURRENCY}{suffix}"] = (dim, factor)
    return table


_UNITS = _build()
#: plural spellings the parser takes and the display writes, but error messages do not list twice
_PLURALS = {"day": "days"}
#: money units in a currency other than :data:`CURRENCY`: code, the same unit in :data:`CURRENCY`, dimension, factor
_FOREIGN = {f"{code}{suffix}": (code, f"{CURRENCY}{suffix}", dim, factor)
            for code in CURRENCIES if code != CURRENCY for suffix, (dim, factor) in _MONEY.items()}

#: base unit of each dimension, for display
DIMENSIONS = {
    "bytes": "B",
    "bandwidth": "B/s",
    "time": "s",
    "rate": "IOPS",
    "frequency": "Hz",
    "money": "AUD",
    "money_per_hour": "AUD/h",
    "money_per_gb_month": "AUD/GB-month",
    "money_per_iops_month": "AUD/IOPS-month",
    "money_per_gb": "AUD/GB",
    "money_per_year": "AUD/year",
    "angle": "arcsec",
    "scalar": "",
}

#: a quantity of each dimension as people write it, for "add a unit, e.g. ..." messages
EXAMPLES = {
    "bytes": "600 GB",
    "bandwidth": "12 MB/s",
    "time": "30 s",
    "rate": "3000 IOPS",
    "frequency": "4 MHz",
    "money": "1000 AUD",
    "money_per_hour": "1.50 AUD/h",
    "money_per_gb_month": "0.12 AUD/GB-month",
    "money_per_iops_month": "0.09 AUD/IOPS-month",
    "money_per_gb": "0.14 AUD/GB",
    "money_per_year": "50000 AUD/year",
    "angle": "1 arcsec",
}


def units_of(dimension: str) -> list[str]:
    """The units of ``dimension`` in the base currency, e.g. ``units_of("time") == ["day", "h", "min", "ms", "s", "us"]``
    (a money dimension also takes each of them in any code of :data:`CURRENCIES` given a rate)."""
    plurals = set(_PLURALS.values())
    return sorted(u for u, (dim, _) in _UNITS.items() if dim == dimension and u and u not in plurals)


def money_currency(unit: str) -> str | None:
    """The currency code of a money unit ("USD" for "USD/h"), ``None`` for any other unit."""
    unit = unit.strip()
    if unit in _FOREIGN:
        return _FOREIGN[unit][0]
    return CURRENCY if unit in _UNITS and _UNITS[unit][0].startswith("money") else None


def converted_from(value: float, unit: str, rates: Mapping[str, ExchangeRate] | None) -> dict | None:
    """What to keep in a value's source when it was given in another currency: the original amount and unit and
    the rate used (with its date and source); ``None`` when ``unit`` is not money in a foreign currency."""
    code = money_currency(unit)
    if code is None or code == CURRENCY or not rates or code not in rates:
        return None
    rate = rates[code]
    return {"value": value, "unit": unit.strip(), "exchange_rate": {
        "currency": code, "base_per_unit": rate.base_per_unit, "base": CURRENCY, "date": rate.date,
        "source": rate.source}}


def dimension_of(unit: str) -> str:
    """The dimension of ``unit`` ("bytes", "bandwidth", ...); raises :class:`UnitError` if unknown."""
    unit = unit.strip()
    if unit in _FOREIGN:
        return _FOREIGN[unit][2]
    try:
        return _UNITS[unit][0]
    except KeyError:
        known = ", ".join(sorted(u for u in _UNITS if u and u not in _PLURALS.values()))
        raise UnitError(f"unknown unit {unit!r}; known units: {known}") from None


def _label(dimension: str) -> str:
    text = dimension.replace("_", " ")
    return text.replace(" gb month", " GB-month").replace(" iops month", " IOPS-month").replace(" gb", " GB")


def _expected(dimension: str) -> str:
    units = units_of(dimension)
    if not units:
        return "expected a plain number, with no unit"
    return f"expected a {_label(dimension)} unit: {', '.join(units)}"


def to_base(value: float, unit: str, dimension: str | None = None,
            rates: Mapping[str, ExchangeRate] | None = None) -> float:
    """Convert ``value`` in ``unit`` to the base unit, checking the dimension if given.

    With a dimension, an error lists only that dimension's units.  A money unit in a currency other than
    :data:`CURRENCY` converts through ``rates[code]``; without that rate it is refused, naming the currency."""
    unit = unit.strip()
    if unit in _FOREIGN:
        code, ours, dim, factor = _FOREIGN[unit]
        if dimension is not None and dim != dimension:
            raise UnitError(f"unit {unit!r} is a {_label(dim)} unit; {_expected(dimension)}")
        if not rates or code not in rates:
            raise UnitError(f"no {code} exchange rate in the catalogue: give the amount in {ours}, or add a rate for "
                            f"{code} (rate, date, source) to the catalogue")
        return rates[code].to_base(float(value) * factor)
    if dimension is None:
        dimension_of(unit)
    elif unit not in _UNITS:
        raise UnitError(f"unknown unit {unit!r}; {_expected(dimension)}")
    elif _UNITS[unit][0] != dimension:
        dim = _UNITS[unit][0]
        raise UnitError(f"unit {unit!r} is a {_label(dim)} unit; {_expected(dimension)}")
    return float(value) * _UNITS[unit][1]


def from_base(value: float, unit: str) -> float:
    """Convert a base-unit ``value`` into ``unit`` (money only in :data:`CURRENCY`: see :meth:`ExchangeRate.from_base`)."""
    if unit.strip() in _FOREIGN:
        raise UnitError(f"{unit!r}: convert {CURRENCY} amounts into another currency with its exchange rate")
    dimension_of(unit)
    return float(value) / _UNITS[unit.strip()][1]


_QTY = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*$")


def split_quantity(text: str) -> tuple[float, str] | None:
    """``"3.06 USD/h"`` -> ``(3.06, "USD/h")``; ``None`` when ``text`` is not a number and a unit."""
    m = _QTY.match(str(text))
    return (float(m.group(1)), m.group(2)) if m else None


def parse_quantity(text: str, dimension: str, rates: Mapping[str, ExchangeRate] | None = None) -> float:
    """Parse ``"10 Gb/s"`` or ``"3.5 GiB"`` into base units of ``dimension``.

    A bare number is refused in a dimension that has units ("add a unit, e.g. 12 MB/s"): it would otherwise be
    read silently as bytes, seconds or AUD.  Dimensionless quantities (counts, ratios, exponents) are bare numbers.
    """
    example = EXAMPLES.get(dimension)
    m = _QTY.match(str(text))
    if not m:
        hint = f"a number followed by a unit, e.g. {example}" if example else "a plain number"
        raise UnitError(f"{str(text)[:60]!r} is not {hint}")
    number, unit = float(m.group(1)), m.group(2)
    if unit == "":
        if example:
            raise UnitError(f"add a unit, e.g. {example}")
        return number
    return to_base(number, unit, dimension, rates)


_DISPLAY = {
    "bytes": [(1e15, "PB"), (1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1.0, "B")],
    "bandwidth": [(1e9, "GB/s"), (1e6, "MB/s"), (1e3, "kB/s"), (1.0, "B/s")],
    "time": [(86400.0, "day"), (3600.0, "h"), (60.0, "min"), (1.0, "s"), (1e-3, "ms"), (1e-6, "us")],
    "frequency": [(1e9, "GHz"), (1e6, "MHz"), (1e3, "kHz"), (1.0, "Hz")],
}


def format_quantity(value: float | None, dimension: str, digits: int = 3) -> str:
    """Human-readable text for a base-unit value, e.g. ``format_quantity(1.25e8, "bandwidth") == "125 MB/s"``,
    ``format_quantity(6.12e5, "time") == "7.08 days"`` (a plural unit for any number but 1: "1 day")."""
    if value is None:
        return "—"
    scales = _DISPLAY.get(dimension)
    if not scales:
        unit = DIMENSIONS.get(dimension, "")
        text = f"{value:,.{digits}g}"
        if "e+" in text:  # never exponent notation on screen: "10,000 IOPS", not "1e+04 IOPS"
            text = f"{value:,.0f}"
        return f"{text} {unit}".strip()
    if value == 0:  # nothing in the base unit ("0 s", "0 B"), not in the smallest one shown ("0 us")
        return f"0 {DIMENSIONS[dimension]}"
    for factor, unit in scales:
        if abs(value) >= factor or factor == scales[-1][0]:
            text = f"{value / factor:.{digits}g}"
            return f"{text} {_PLURALS[unit] if unit in _PLURALS and text.lstrip('-') != '1' else unit}"
    return f"{value} {DIMENSIONS[dimension]}"
