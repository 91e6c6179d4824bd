"""The site's navigation: seven sections, each owning the URL prefixes of its pages, so the header can say which
section the user is in (``aria-current="page"``).  It is the project's, beside the URL configuration: it names pages
of several apps and imports none of them."""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse

__all__ = ["SECTIONS", "Section", "navigation", "section_of"]


@dataclass(frozen=True)
class Section:
    label: str
    url_name: str
    prefixes: tuple[str, ...]
    title: str


#: in the order of a first visit: the question, the two catalogues, the evidence, the judgement, the model's check
SECTIONS: tuple[Section, ...] = (
    Section("Scenarios", "scenarios:scenarios", ("/scenarios/", "/reports/", "/runs/"),
            "Compare platforms for a workload; single-platform simulations; reports"),
    Section("Platforms", "platforms:list", ("/platforms/",), "The platforms in the catalogue and your copies"),
    Section("Workloads", "workloads:list", ("/workloads/",), "The pipelines in the catalogue"),
    Section("Profiles", "profiles:list", ("/profiles/",), "Upload a profiled run; calibrate a stage from it"),
    Section("Benchmarks", "benchmarks:list", ("/benchmarks/",), "Measure a platform's storage and CPU on a worker"),
    Section("Scoring", "scoring:index", ("/scoring/",), "Criteria, weights, TCO and configuration searches"),
    Section("Validation", "scenarios:validation", ("/validation/", "/workloads/reference-observations/", "/calibration/"),
            "The model against published measurements; calibrating to your own observed runs"),
)


def section_of(path: str) -> Section | None:
    """The section whose longest prefix starts ``path`` (reference observations belong to validation, not workloads)."""
    matches = [(len(p), s) for s in SECTIONS for p in s.prefixes if path.startswith(p)]
    return max(matches, key=lambda m: m[0])[1] if matches else None


def navigation(request):
    """Context processor: the header's links, the current one marked."""
    current = section_of(request.path)
    return {"nav_sections": [{"label": s.label, "url": reverse(s.url_name), "title": s.title, "current": s is current}
                             for s in SECTIONS],
            "nav_home": request.path == "/"}
