"""Build of the engine's native modules (everything else is in pyproject.toml).

``pip install`` (``make install``) compiles the event loop, the fluid resources and the runner
(:data:`NATIVE_MODULES`) with mypyc into C extensions beside their ``.py`` files, which stay the one
source: where the compile cannot run (no C compiler, no Python headers, an unsupported interpreter) the
install goes on without them and the same modules run as plain Python, with the same results.

A successful build writes ``simulator/_native.json``: the SHA-256 of each compiled source.
``simulator/__init__.py`` loads the compiled modules only while every source still has that digest, so an
edited ``.py`` is never shadowed by a stale extension (it runs as Python until the next install).
Set ``SKYPLAN_BUILD_NATIVE=0`` to install without compiling.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
#: the engine modules compiled together (one mypyc group); keep in step with simulator/__init__.py
NATIVE_MODULES = ("core", "fluid", "runner")
GROUP = "simulator_native"
MANIFEST = os.path.join("simulator", "_native.json")


def source_digests() -> dict[str, str]:
    out = {}
    for name in NATIVE_MODULES:
        with open(os.path.join(HERE, "simulator", f"{name}.py"), "rb") as f:
            out[name] = hashlib.sha256(f.read()).hexdigest()
    return out


class OptionalNativeBuild(build_ext):
    """Compile the native modules if possible; on any failure, leave none of them (all or nothing: the modules
    of one group import a shared library) and carry on as pure Python."""

    def run(self) -> None:
        target = HERE if self.inplace else self.build_lib
        manifest = os.path.join(target, MANIFEST)
        if os.path.exists(manifest):
            os.remove(manifest)
        try:
            super().run()
        except Exception as exc:  # a failed compile must not fail the install
            for path in self.get_outputs():
                if os.path.exists(path):
                    os.remove(path)
            sys.stderr.write(f"skyplan: the engine was not compiled ({exc}); it runs as plain Python\n")
            return
        if not self.extensions or not all(os.path.exists(p) for p in self.get_outputs()):
            return  # (nothing compiled: native_extensions said why)
        os.makedirs(os.path.dirname(manifest), exist_ok=True)
        with open(manifest, "w") as f:
            json.dump({"group": GROUP, "sources": source_digests()}, f, indent=1, sort_keys=True)
        build_temp = os.path.join(HERE, "build")
        if self.inplace and os.path.isdir(build_temp):
            shutil.rmtree(build_temp, ignore_errors=True)  # (mypyc's generated C, kept out of the tree)


def native_extensions() -> list:
    if os.environ.get("SKYPLAN_BUILD_NATIVE", "1") == "0":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:  # (a build without the build-system requirements, e.g. setup.py run by hand)
        sys.stderr.write("skyplan: mypyc is not installed; the engine runs as plain Python\n")
        return []
    old = os.getcwd()
    os.chdir(HERE)  # mypyc names modules by their paths
    try:
        return mypycify([f"simulator/{name}.py" for name in NATIVE_MODULES], opt_level="3", group_name=GROUP)
    except (Exception, SystemExit) as exc:  # (mypyc exits on a type error it refuses: the Python modules still work)
        sys.stderr.write(f"skyplan: the engine was not compiled ({exc}); it runs as plain Python\n")
        return []
    finally:
        os.chdir(old)


setup(ext_modules=native_extensions(), cmdclass={"build_ext": OptionalNativeBuild})
