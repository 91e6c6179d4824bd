"""Provenance of catalogue values: where every number came from.

A source is a small dict: ``{"kind": "seed", "file": ..., "where": ..., "note": ...}``,
``{"kind": "measurement", "host": ..., "date": ...}``, ``{"kind": "assumption", "reason": ...}``
or ``{"kind": "fitted", "method": ...}``.
"""

from __future__ import annotations

__all__ = ["SOURCE_KINDS", "source_errors", "describe_source", "short_source"]

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


def short_source(source: dict | None) -> str:
    """A few words for display beside a value, e.g. ``"seed 000 · Table 1"``."""
    if not source:
        return "no source"
    kind = source.get("kind")
    if kind == "seed":
        return f"seed {str(source.get('file', ''))[:3]} · {source.get('where', '')}"
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
        text = f"From {source.get('file')}, {source.get('where')}."
    elif kind == "measurement":
        text = f"Measured on host {source.get('host')} on {source.get('date')}."
    elif kind == "assumption":
        text = f"Assumption: {source.get('reason')}"
    elif kind == "fitted":
        text = f"Fitted: {source.get('method')}"
    else:
        text = str(source)
    return f"{text} {note}".strip()
