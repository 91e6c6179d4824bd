"""Validate the simulator against the reference observations held in the catalogue."""

from __future__ import annotations

from dataclasses import asdict

from apps.platforms.services import reference_platforms
from apps.scenarios.adapters import observations, platform_spec, workload_spec
from apps.workloads.models import ReferenceObservation, Workload
from simulator.model.validation import fitted_parameters, validate

__all__ = ["validation_report"]

DEFAULT_WORKLOAD = "chiles-epoch1"


def validation_report(workload_slug: str = DEFAULT_WORKLOAD, seed: int = 0) -> dict:
    """Published vs simulated for every reference quantity of ``workload_slug``, plus every fitted value."""
    workload = Workload.objects.prefetch_related("stages").get(slug=workload_slug)
    platforms = {
        p.slug: platform_spec(p) for p in reference_platforms().prefetch_related("node_types", "storage_tiers")
    }
    obs = observations(
        ReferenceObservation.objects.filter(workload=workload).select_related("platform", "workload")
    )
    spec = workload_spec(workload)
    rows = [asdict(r) for r in validate(platforms, spec, obs, seed=seed)]
    fitted = [asdict(f) for f in fitted_parameters(platforms, spec)]
    scored = [r for r in rows if r["published"] is not None or r["target"].startswith("qualitative")]
    return {
        "workload": workload.slug,
        "seed": seed,
        "rows": rows,
        "fitted": fitted,
        "met": sum(1 for r in scored if r["met"]),
        "total": len(scored),
    }
