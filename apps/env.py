"""Tiny typed helpers that read settings from the environment and fail loudly on a bad value."""

from __future__ import annotations

import os

__all__ = ["env_str", "env_bool", "env_int", "env_list", "env_int_table"]


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ValueError(f"environment variable {name}={raw!r} is not a boolean (use 1/0, true/false)")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"environment variable {name}={raw!r} is not an integer") from None


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_int_table(name: str, keys: tuple[str, ...]) -> dict[str, dict[str, int]]:
    """``row:key=int,key=int;row:key=int`` as ``{row: {key: int}}``; a key not in ``keys`` or a bad number fails."""
    table: dict[str, dict[str, int]] = {}
    for entry in filter(None, (e.strip() for e in os.environ.get(name, "").split(";"))):
        row, sep, pairs = entry.partition(":")
        if not sep or not row.strip():
            raise ValueError(f"environment variable {name}: {entry!r} is not 'name:key=value,...'")
        values = table.setdefault(row.strip(), {})
        for pair in filter(None, (p.strip() for p in pairs.split(","))):
            key, _, raw = pair.partition("=")
            if key.strip() not in keys:
                raise ValueError(f"environment variable {name}: {key.strip()!r} is not one of {', '.join(keys)}")
            try:
                values[key.strip()] = int(raw)
            except ValueError:
                raise ValueError(f"environment variable {name}: {pair!r} is not key=integer") from None
    return table
