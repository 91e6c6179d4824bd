"""JSON from users, parsed with a bound on nesting: one place for the API's parser and the pages' JSON fields.

Python's ``json`` parser recurses once per level: a 2 kB body ``[[[…]]]`` nested 1,000 deep raised
``RecursionError`` (a 500 on every JSON POST, the unauthenticated token endpoint included), and a document just
under the interpreter's limit can still exhaust it later (validation, saving).  Nothing Skyplan reads is nested more
than a few levels (scenario options: stage -> setting -> value), so ``MAX_JSON_DEPTH`` leaves ample room.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "TooDeep", "loads", "depth"]

#: the deepest nesting of objects and arrays accepted (Skyplan's own documents use at most 5 levels)
MAX_JSON_DEPTH = 32


class TooDeep(ValueError):
    """JSON nested deeper than ``MAX_JSON_DEPTH`` levels (a ValueError, as ``json.JSONDecodeError`` is)."""

    def __init__(self):
        super().__init__(f"JSON nested deeper than {MAX_JSON_DEPTH} levels of objects and arrays")


def depth(value: Any, limit: int = MAX_JSON_DEPTH) -> int:
    """The nesting depth of a parsed JSON value (a scalar is 0), counted without recursion; stops past ``limit``."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        level += 1
        deepest = max(deepest, level)
        if deepest > limit:
            return deepest
        stack.extend((child, level) for child in children)
    return deepest


def loads(text: str | bytes, **kwargs) -> Any:
    """``json.loads`` that raises :class:`TooDeep` (a ValueError) for nesting past ``MAX_JSON_DEPTH`` instead of a
    RecursionError, and ``json.JSONDecodeError`` as usual."""
    try:
        value = json.loads(text, **kwargs)
    except RecursionError:
        raise TooDeep() from None
    if depth(value) > MAX_JSON_DEPTH:
        raise TooDeep()
    return value
