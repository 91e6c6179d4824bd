"""Provenance of catalogue values: where every number came from.

A source is a small dict: ``{"kind": "seed", "file": ..., "where": ..., "note": ...}``,
``{"kind": "measurement", "host": ..., "date": ...}``, ``{"kind": "assumption", "reason": ...}``
or ``{"kind": "fitted", "method": ...}``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

__all__ = ["SOURCE_KINDS", "source_errors", "describe_source", "short_source", "bibliography", "citation"]

#: the seed documents' citations, by the three-digit prefix of their file name
BIBLIOGRAPHY = Path(__file__).resolve().parents[2] / "fixtures" / "bibliography.json"

#: required keys per source kind
SOURCE_KINDS: dict[str, tuple[str, ...]] = {
    "seed": ("file", "where"),
    "measurement": ("host", "date"),
    "assumption": ("reason",),
    "fitted": ("method",),
}


def source_errors(source: object) -> list[str]:
    """Why ``source`` is not a valid provenance record (empty list when it is)."""
    if not isinstance(source, dict):
        return [f"source must be an object, got {type(source).__name__}"]
    kind = source.get("kind")
    if kind not in SOURCE_KINDS:
        return [f"source kind {kind!r} is not one of {', '.join(SOURCE_KINDS)}"]
    article = "an" if kind[0] in "aeiou" else "a"
    return [
        f"{article} {kind} source needs a non-empty {key!r}"
        for key in SOURCE_KINDS[kind]
        if not str(source.get(key) or "").strip()
    ]


@lru_cache(maxsize=1)
def bibliography() -> dict[str, dict]:
    """Seed prefix -> ``{"short", "citation"}`` (fixtures/bibliography.json)."""
    entries = json.loads(BIBLIOGRAPHY.read_text(encoding="utf-8"))
    return {k: v for k, v in entries.items() if not k.startswith("_")}


def citation(file: str) -> dict | None:
    """The citation of a seed document from its file name (``000_a6c81710fa62f1c4.txt``), or None."""
    return bibliography().get(str(file or "")[:3])


def short_source(source: dict | None) -> str:
    """A few words for display beside a value, e.g. ``"seed 000 · Table 1"``."""
    if not source:
        return "no source"
    kind = source.get("kind")
    if kind == "seed":
        cited = citation(source.get("file", ""))
        name = cited["short"] if cited else f"seed {str(source.get('file', ''))[:3]}"
        return f"{name} · {source.get('where', '')}"
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
    elif kind == "measurement":
        text = f"Measured on host {source.get('host')} on {source.get('date')}."
    elif kind == "assumption":
        text = f"Assumption: {source.get('reason')}"
    elif kind == "fitted":
        text = f"Fitted: {source.get('method')}"
    else:
        text = str(source)
    return f"{text} {note}".strip()
