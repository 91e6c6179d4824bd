"""simulator/ is plain Python: no Django, Celery, database or app imports, statically or at run time."""

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("django", "celery", "kombu", "psycopg", "redis", "apps")


def test_it_imports_nothing_of_the_web_stack_in_any_module():
    offenders = []
    for path in sorted((ROOT / "simulator").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            offenders += [f"{path.relative_to(ROOT)}:{node.lineno} imports {n}" for n in names
                          if n.split(".")[0] in FORBIDDEN]
    assert offenders == []


def test_it_simulates_chiles_in_a_process_without_django_loaded():
    code = (
        "import sys, pkgutil, importlib, simulator, simulator.model\n"
        "for m in pkgutil.walk_packages(simulator.__path__, 'simulator.'): importlib.import_module(m.name)\n"
        "from simulator.model.catalogue import load_catalogue\n"
        "from simulator.model.validation import epoch_scenario\n"
        "from simulator.model.simulate import simulate\n"
        "ps, ws, _ = load_catalogue('fixtures/catalogue')\n"
        "r = simulate(epoch_scenario(ps['magnus'], ws['chiles-epoch1']), seed=1, record_utilisation=False)\n"
        "assert r.makespan_s > 0\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})\n"
        "print(','.join(bad))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_it_names_no_catalogue_platform_or_workload():
    """The model knows no slug: what it needs comes from the records (``fixtures/catalogue``)."""
    catalogue = ROOT / "fixtures" / "catalogue"
    slugs = {p["slug"] for p in json.loads((catalogue / "platforms.json").read_text())["platforms"]}
    slugs |= {w["slug"] for w in json.loads((catalogue / "workloads.json").read_text())["workloads"]}
    assert {"pleiades", "magnus", "aws-sydney", "chiles-epoch1"} <= slugs
    found = [f"{path.relative_to(ROOT)}:{n}: {slug}" for path in sorted((ROOT / "simulator").rglob("*.py"))
             for n, line in enumerate(path.read_text().splitlines(), 1) for slug in slugs if slug in line.lower()]
    assert found == []


def test_it_names_no_catalogue_node_type():
    """The CHILES placements read which type runs which stage from the node types' ``default_stage``
    facts; no instance or node type name of the catalogue appears in the model."""
    catalogue = ROOT / "fixtures" / "catalogue"
    names = {nt["name"].lower() for p in json.loads((catalogue / "platforms.json").read_text())["platforms"]
             for nt in p.get("node_types", [])}
    assert {"m3.medium", "m3.xlarge", "r3.2xlarge", "r3.4xlarge"} <= names
    found = [f"{path.relative_to(ROOT)}:{n}: {name}" for path in sorted((ROOT / "simulator").rglob("*.py"))
             for n, line in enumerate(path.read_text().splitlines(), 1) for name in names
             if len(name) > 3 and name in line.lower()]
    assert found == []
