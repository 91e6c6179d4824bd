"""A job array: an older name of the general template (:mod:`simulator.model.stages`).

Its stages form a chain joined one to one, each with one task per job (the
``n_jobs`` parameter) unless a stage says otherwise.
"""

from __future__ import annotations

import random

from .built import BuiltGraph
from .specs import ScenarioSpec
from .stages import build_stages

__all__ = ["build_job_array"]


def build_job_array(scenario: ScenarioSpec, *, rng: random.Random | None = None) -> BuiltGraph:
    return build_stages(scenario, rng=rng)
