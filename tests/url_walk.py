"""Every named URL of the project, for the permission matrices that must classify each one."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, get_resolver


def named_patterns(patterns=None, prefix: str = ""):
    """``(namespaced name, pattern)`` of every named URL pattern below ``patterns`` (default: the whole project)."""
    for p in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(p, URLResolver):
            ns = f"{prefix}{p.namespace}:" if p.namespace else prefix
            yield from named_patterns(p.url_patterns, ns)
        elif isinstance(p, URLPattern) and p.name:
            yield f"{prefix}{p.name}", p
