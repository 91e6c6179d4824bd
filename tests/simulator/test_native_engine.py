"""The compiled engine (setup.py) gives exactly its Python source's results, and is never used stale."""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import simulator

ROOT = Path(__file__).resolve().parents[2]
needs_compiled = pytest.mark.skipif(
    simulator.ENGINE != "compiled", reason=f"the engine runs as Python here: {simulator.ENGINE_REASON}"
)


def python(code: str, *, cwd: Path = ROOT, engine: str | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("SKYPLAN_ENGINE", "PYTHONPATH")}
    if engine is not None:
        env["SKYPLAN_ENGINE"] = engine
    env["PYTHONPATH"] = str(cwd)
    done = subprocess.run([sys.executable, "-W", "always", "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip() + done.stderr.strip()


WHICH = "import simulator, simulator.fluid as m; print(simulator.ENGINE, repr(simulator.ENGINE_REASON), m.__file__)"


def test_the_environment_forces_the_python_engine():
    out = python(WHICH, engine="python")
    assert out == f"python 'SKYPLAN_ENGINE=python' {ROOT / 'simulator' / 'fluid.py'}"


@needs_compiled
def test_the_compiled_modules_are_the_ones_loaded():
    import simulator.core
    import simulator.fluid
    import simulator.runner

    for module in (simulator.core, simulator.fluid, simulator.runner):
        assert not module.__file__.endswith(".py"), module.__file__


@needs_compiled
def test_compiled_and_python_engines_give_the_same_results(tmp_path):
    """Every fingerprinted run (bench/engine_digest.py: every pool policy, flow kind, timer, ...) is the same,
    bit for bit, event counts included."""
    runs = {}
    for engine in ("python", "compiled"):
        out = tmp_path / f"{engine}.json"
        code = ("import sys; sys.path.insert(0, 'bench'); import simulator, engine_digest;"
                f"engine_digest.main(['--save', {str(out)!r}]); print('engine:', simulator.ENGINE)")
        assert f"engine: {engine}" in python(code, engine=engine if engine == "python" else None).splitlines()
        runs[engine] = json.loads(out.read_text())
    assert len(runs["python"]) >= 10
    assert runs["compiled"] == runs["python"]


def copy_engine(to: Path) -> None:
    shutil.copytree(ROOT / "simulator", to / "simulator", ignore=shutil.ignore_patterns("__pycache__"))
    for lib in glob.glob(str(ROOT / "simulator_native__mypyc*")):  # the group's shared library
        shutil.copy(lib, to)


@needs_compiled
def test_an_edited_source_runs_as_python_not_its_stale_compiled_module(tmp_path):
    copy_engine(tmp_path)
    assert python(WHICH, cwd=tmp_path).startswith("compiled None ")
    with open(tmp_path / "simulator" / "fluid.py", "a") as f:
        f.write("\n# edited after the build\n")
    out = python(WHICH, cwd=tmp_path)
    assert out.startswith(f"python 'simulator/fluid.py changed since it was compiled (run `make install` to rebuild)' "
                          f"{tmp_path / 'simulator' / 'fluid.py'}")
    assert "RuntimeWarning: simulator: running the engine as plain Python" in out


@needs_compiled
def test_compiled_modules_without_their_manifest_are_not_used(tmp_path):
    copy_engine(tmp_path)
    (tmp_path / "simulator" / "_native.json").unlink()
    assert python(WHICH, cwd=tmp_path).startswith("python 'compiled modules without a build manifest")
