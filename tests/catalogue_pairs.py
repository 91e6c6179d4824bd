"""Every (platform, workload) pair of the reference catalogue files, read without a database so that tests can
parametrise over them (tests/ is on sys.path: ``from catalogue_pairs import catalogue_pairs``)."""

from __future__ import annotations

import json

from django.conf import settings


def catalogue_pairs() -> list[tuple[str, str]]:
    directory = settings.SKYPLAN_CATALOGUE_DIR
    platforms = [p["slug"] for p in json.loads((directory / "platforms.json").read_text())["platforms"]]
    workloads = [w["slug"] for w in json.loads((directory / "workloads.json").read_text())["workloads"]]
    return [(p, w) for p in platforms for w in workloads]
