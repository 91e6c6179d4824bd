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
