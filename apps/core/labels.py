"""Readable text for the catalogue's identifiers (stage names, node types, observation quantities) that have no
label of their own: the one place an identifier becomes words on a page."""

from __future__ import annotations

import re

__all__ = ["readable"]

_SEPARATORS = re.compile(r"[_-]+")


def readable(identifier) -> str:
    """``convert_to_adios`` -> ``convert to adios``; ``xc40-compute`` -> ``xc40 compute``; other text unchanged."""
    return _SEPARATORS.sub(" ", str(identifier)).strip() if identifier else ""
