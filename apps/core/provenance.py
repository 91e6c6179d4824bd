"""Provenance of catalogue values: where every number came from.

A source is a small dict, one of:

- ``{"kind": "seed", "file": ..., "where": ...}``: a seed document of the project (``fixtures/bibliography.json``);
- ``{"kind": "paper", "title": ..., "where": ...}``: any other publication and the table, figure or section the
  value is in (``authors``, ``year``, ``doi`` optional);
- ``{"kind": "url", "url": "https://..."}``: a web page (``accessed``, an ISO date, optional);
- ``{"kind": "measurement", "host": ..., "date": "YYYY-MM-DD"}``: measured on a host on a date;
- ``{"kind": "assumption", "reason": ...}``: assumed, and why;
- ``{"kind": "fitted", "method": ...}``: fitted, saying to what (the observations) and how.

Every kind takes an optional ``note``, and ``converted_from`` when the value was given in another currency (the
original amount and unit and the exchange rate used, see :func:`simulator.units.converted_from`).  :func:`source_errors` is the one check forms, the API and the catalogue
loader apply; :data:`SOURCE_FIELDS` lists what each kind takes, for the forms that ask for it.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from functools import lru_cache
from pathlib import Path

__all__ = ["SOURCE_KINDS", "SOURCE_FIELDS", "SOURCE_LABELS", "source_errors", "clean_source", "describe_source", "short_source", "bibliography", "citation"]

#: the seed documents' citations, by the three-digit prefix of their file name
BIBLIOGRAPHY = Path(__file__).resolve().parents[2] / "fixtures" / "bibliography.json"

#: required keys per source kind
SOURCE_KINDS: dict[str, tuple[str, ...]] = {
    "seed": ("file", "where"),
    "paper": ("title", "where"),
    "url": ("url",),
    "measurement": ("host", "date"),
    "assumption": ("reason",),
    "fitted": ("method",),
}
#: optional keys per source kind (``note`` is optional for every kind)
OPTIONAL_KEYS: dict[str, tuple[str, ...]] = {
    "seed": (),
    "paper": ("authors", "year", "doi"),
    "url": ("accessed",),
    "measurement": (),
    "assumption": (),
    "fitted": ("observations",),
}
#: what a user picks from, in the order forms offer it (``seed`` is the project's own documents: catalogue only)
SOURCE_LABELS: dict[str, str] = {
    "paper": "a paper (title; table, figure or section)",
    "url": "a web page (URL)",
    "measurement": "a measurement (host and date)",
    "assumption": "an assumption (and its reason)",
    "fitted": "a fit (what it was fitted to)",
}
#: the keys a form asks for per kind, required first
SOURCE_FIELDS: dict[str, tuple[str, ...]] = {k: SOURCE_KINDS[k] + OPTIONAL_KEYS[k] for k in SOURCE_LABELS}
#: longest text a source's value may hold
MAX_SOURCE_CHARS = 1000
_URL = re.compile(r"https?://[^\s/$.?#][^\s]*", re.IGNORECASE)


def _iso_date(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def source_errors(source: object) -> list[str]:
    """Why ``source`` is not a valid provenance record (empty list when it is)."""
    if not isinstance(source, dict):
        return [f"source must be an object, got {type(source).__name__}"]
    kind = source.get("kind")
    if not isinstance(kind, str) or kind not in SOURCE_KINDS:
        return [f"source kind {str(kind)[:40]!r} is not one of {', '.join(SOURCE_KINDS)}"]
    article = "an" if kind[0] in "aeio" else "a"
    errors = [
        f"{article} {kind} source needs a non-empty {key!r}"
        for key in SOURCE_KINDS[kind]
        if not str(source.get(key) or "").strip()
    ]
    allowed = {"kind", "note", *SOURCE_KINDS[kind], *OPTIONAL_KEYS[kind]}
    if "converted_from" in source:
        errors += _conversion_errors(source["converted_from"])
    unknown = sorted(str(k)[:40] for k in source if k not in allowed and k != "converted_from")
    if unknown:
        errors.append(f"{article} {kind} source takes {', '.join(sorted(allowed - {'kind'}))}; "
                      f"not {', '.join(unknown)}")
    for key, value in source.items():
        if key in allowed and key != "observations" and value is not None and not isinstance(value, (str, int)):
            errors.append(f"{key!r} must be text")
        elif isinstance(value, str) and len(value) > MAX_SOURCE_CHARS:
            errors.append(f"{key!r} is longer than {MAX_SOURCE_CHARS} characters")
    if kind == "url" and str(source.get("url") or "").strip() and not _URL.fullmatch(str(source["url"]).strip()):
        errors.append("'url' must be a web address starting with http:// or https://")
    for key in ("date", "accessed"):
        value = source.get(key)
        if key in allowed and isinstance(value, str) and value.strip() and not _iso_date(value.strip()):
            errors.append(f"{key!r} must be a date as YYYY-MM-DD, got {value[:40]!r}")
    return errors


def _conversion_errors(given: object) -> list[str]:
    """``converted_from`` (any kind may carry it): the amount and unit a value was given in and the exchange rate
    that converted it to AUD, ``{"value", "unit", "exchange_rate": {"currency", "base_per_unit", "date", ...}}``."""
    rate = given.get("exchange_rate") if isinstance(given, dict) else None
    if (not isinstance(given, dict) or isinstance(given.get("value"), bool)
            or not isinstance(given.get("value"), (int, float)) or not isinstance(given.get("unit"), str)
            or not isinstance(rate, dict) or not isinstance(rate.get("currency"), str)
            or not isinstance(rate.get("base_per_unit"), (int, float)) or not _iso_date(str(rate.get("date")))):
        return ["'converted_from' must give the original 'value' and 'unit' and the 'exchange_rate' used (currency, "
                "base_per_unit, date)"]
    return []


def clean_source(kind: str, values: dict) -> dict:
    """A source of ``kind`` from a form's or a request's ``values``: only the keys that kind takes, stripped, empty
    ones left out (check it with :func:`source_errors`)."""
    keys = SOURCE_KINDS.get(kind, ()) + OPTIONAL_KEYS.get(kind, ()) + ("note",)
    out = {"kind": kind}
    for key in keys:
        value = values.get(key)
        if hasattr(value, "isoformat"):
            value = value.isoformat()
        value = str(value or "").strip()
        if value:
            out[key] = value
    return out


@lru_cache(maxsize=1)
def bibliography() -> dict[str, dict]:
    """Seed prefix -> ``{"short", "citation"}`` (fixtures/bibliography.json)."""
    entries = json.loads(BIBLIOGRAPHY.read_text(encoding="utf-8"))
    return {k: v for k, v in entries.items() if not k.startswith("_")}


def citation(file: str) -> dict | None:
    """The citation of a seed document from its file name (``000_a6c81710fa62f1c4.txt``), or None."""
    return bibliography().get(str(file or "")[:3])


def _clip(text, n: int) -> str:
    text = str(text or "")
    return text if len(text) <= n else text[: n - 1] + "…"


def short_source(source: dict | None) -> str:
    """A few words for display beside a value, e.g. ``"seed 000 · Table 1"``."""
    if not source:
        return "no source"
    kind = source.get("kind")
    if kind == "seed":
        cited = citation(source.get("file", ""))
        name = cited["short"] if cited else f"seed {str(source.get('file', ''))[:3]}"
        return f"{name} · {source.get('where', '')}"
    if kind == "paper":
        return f"{_clip(source.get('title'), 40)} · {source.get('where', '')}"
    if kind == "url":
        return _clip(re.sub(r"^https?://(www\.)?", "", str(source.get("url", ""))), 40)
    if kind == "measurement":
        return f"measured on {source.get('host')} {source.get('date')}"
    if kind == "assumption":
        return "assumption"
    if kind == "fitted":
        return "fitted"
    return str(kind)


def describe_source(source: dict | None) -> str:
    """The full provenance in one sentence, for a tooltip or a footnote."""
    if not source:
        return "No provenance recorded."
    kind = source.get("kind")
    note = source.get("note") or ""
    if kind == "seed":
        cited = citation(source.get("file", ""))
        text = (f"From {cited['citation']}, {source.get('where')} (seed file {source.get('file')})." if cited
                else f"From {source.get('file')}, {source.get('where')}.")
    elif kind == "paper":
        authors = f"{source['authors']}, " if source.get("authors") else ""
        year = f" ({source['year']})" if source.get("year") else ""
        doi = f", doi:{source['doi']}" if source.get("doi") else ""
        text = f"From {authors}{source.get('title')}{year}{doi}, {source.get('where')}."
    elif kind == "url":
        accessed = f" (accessed {source['accessed']})" if source.get("accessed") else ""
        text = f"From {source.get('url')}{accessed}."
    elif kind == "measurement":
        text = f"Measured on host {source.get('host')} on {source.get('date')}."
    elif kind == "assumption":
        text = f"Assumption: {source.get('reason')}"
    elif kind == "fitted":
        text = f"Fitted: {source.get('method')}"
    else:
        text = str(source)
    given = source.get("converted_from")
    if isinstance(given, dict) and isinstance(given.get("exchange_rate"), dict):
        rate = given["exchange_rate"]
        note = (f"{note} Given as {given.get('value')} {given.get('unit')}, converted at 1 {rate.get('currency')} = "
                f"{rate.get('base_per_unit')} {rate.get('base', 'AUD')} ({rate.get('date')}).").strip()
    return f"{text} {note}".strip()
