"""A custom DAG: an older name of the general template (:mod:`simulator.model.stages`).

A stage with no dependency kind joins its upstream stages one to one when their
task counts match and waits for all their tasks otherwise.
"""

from __future__ import annotations

import random

from .built import BuiltGraph
from .specs import ScenarioSpec
from .stages import build_stages, topological_stages

__all__ = ["build_custom_dag", "topological_stages"]


def build_custom_dag(scenario: ScenarioSpec, *, rng: random.Random | None = None) -> BuiltGraph:
    return build_stages(scenario, rng=rng)
