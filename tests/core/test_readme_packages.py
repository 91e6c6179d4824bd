"""The README names every Debian package that ``make install`` installs (listed in ``.ci/system-packages``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def packages_installed_by_make() -> list[str]:
    text = (ROOT / ".ci" / "system-packages").read_text()
    match = re.search(r"^PACKAGES=\(([^)]*)\)", text, re.MULTILINE)
    assert match, ".ci/system-packages must list its packages in one PACKAGES=(...) line"
    return match.group(1).split()


def test_it_names_every_system_package_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    packages = packages_installed_by_make()
    assert packages, "no packages parsed from .ci/system-packages"
    missing = [p for p in packages if f"`{p}`" not in readme]
    assert not missing, f"README.md does not name the system packages {missing} that make install installs"
