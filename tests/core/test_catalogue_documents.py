"""The shipped catalogue passes its self-check, and its provenance document is current."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "catalogue"


def test_it_passes_the_catalogue_self_check():
    result = subprocess.run([sys.executable, str(FIXTURES / "check.py")], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("catalogue OK")


def test_the_provenance_document_matches_the_fixtures():
    sys.path.insert(0, str(FIXTURES))
    try:
        from provenance_report import report
    finally:
        sys.path.remove(str(FIXTURES))
    committed = (ROOT / "docs" / "catalogue-provenance.md").read_text()
    assert committed == report(FIXTURES), (
        "docs/catalogue-provenance.md is stale: run "
        ".venv/bin/python fixtures/catalogue/provenance_report.py > docs/catalogue-provenance.md"
    )


def test_the_self_check_applies_the_models_rules_to_a_workload(tmp_path):
    """The self-check and the loader share the model's check (simulator.model.stages.check_workload)."""
    import json

    sys.path.insert(0, str(FIXTURES))
    try:
        from check import Checker
    finally:
        sys.path.remove(str(FIXTURES))
    data = json.loads((FIXTURES / "workloads.json").read_text())
    sdp = next(w for w in data["workloads"] if w["slug"] == "sdp-predict-p3")
    compute = next(s for s in sdp["stages"] if s["name"] == "compute")
    compute["facts"]["dependency"]["value"] = "grouped"
    compute["facts"]["group_size"] = {"value": 4, "unit": "", "source": {"kind": "assumption", "reason": "a test"}}
    checker = Checker()
    checker.workloads(data)
    index = data["workloads"].index(sdp)
    assert checker.problems == [
        f"workloads.json: $.workloads[{index}].stages[1].facts.dependency: stage 'compute' groups 'stage_in''s 32 "
        f"tasks by 4, which makes 8 groups, but the stage has 32 tasks; give it one task per group"]
