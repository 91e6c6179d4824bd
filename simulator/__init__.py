"""Skyplan's discrete-event simulator of data-intensive pipelines.

A plain Python package: it never imports Django, Celery or a database.  Inputs and
outputs are frozen dataclasses (see :mod:`simulator.graph`); :mod:`simulator.units`
is the one place where units are converted.

The engine's hot modules (:data:`NATIVE_MODULES`) may also be installed compiled (see ``setup.py``): the
compiled ones are used only while their build manifest's digests match the ``.py`` sources beside them, and
never when ``SKYPLAN_ENGINE=python``; otherwise the sources run.  :data:`ENGINE` says which (``"compiled"`` or
``"python"``) and :data:`ENGINE_REASON` why Python, when it is.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings

__all__ = ["ENGINE", "ENGINE_REASON", "NATIVE_MODULES"]

#: modules compiled together by setup.py (all of them or none is used)
NATIVE_MODULES = ("core", "fluid", "runner")
_HERE = os.path.dirname(os.path.abspath(__file__))


def _compiled_present() -> bool:
    return all(
        any(os.path.exists(os.path.join(_HERE, name + suffix)) for suffix in importlib.machinery.EXTENSION_SUFFIXES)
        for name in NATIVE_MODULES
    )


def _why_python() -> str | None:
    """None when the compiled modules may be used, else the reason they may not."""
    if os.environ.get("SKYPLAN_ENGINE", "").strip().lower() == "python":
        return "SKYPLAN_ENGINE=python"
    if not _compiled_present():
        return "not compiled"
    try:
        with open(os.path.join(_HERE, "_native.json")) as f:
            built = json.load(f)["sources"]
    except (OSError, ValueError, KeyError, TypeError):
        return "compiled modules without a build manifest (simulator/_native.json)"
    for name in NATIVE_MODULES:
        with open(os.path.join(_HERE, name + ".py"), "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != built.get(name):
                return f"simulator/{name}.py changed since it was compiled (run `make install` to rebuild)"
    return None


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Loads the engine's modules from their ``.py`` files, ahead of the compiled ones."""

    names = frozenset(f"{__name__}.{name}" for name in NATIVE_MODULES)

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.names:
            return None
        return importlib.util.spec_from_file_location(fullname, os.path.join(_HERE, fullname.rpartition(".")[2] + ".py"))


ENGINE_REASON = _why_python()
ENGINE = "python" if ENGINE_REASON else "compiled"
if ENGINE_REASON:
    if _compiled_present() and not ENGINE_REASON.startswith("SKYPLAN_ENGINE"):
        warnings.warn(f"simulator: running the engine as plain Python: {ENGINE_REASON}", RuntimeWarning, stacklevel=2)
    if not any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFinder())
