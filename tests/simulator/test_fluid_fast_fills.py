"""The one-pass fills of a fluid group (one class; every flow at its cap) give exactly what the general
progressive filling gives: the same rate and label of every flow and the same use of every resource, to the last
bit, on random sets of flows with ties between caps, own and private caps, weights, shared resources and
degradation."""

from __future__ import annotations

import random

from simulator.core import Environment
from simulator.fluid import (
    PRIVATE,
    FluidSystem,
    GeneralGroup,
    GeneralResource,
    _fill_capped,
    _fill_one,
    _FlowClass,
    _water_fill,
)


def _case(rng: random.Random):
    group = GeneralGroup(FluidSystem(Environment(), None, False))  # (never flushed)
    resources = [GeneralResource(f"r{k}", rng.choice([1e8, 2e8, 1e9, 7e10]), group, None,
                                 rng.choice([None, None, 4]), rng.choice([0.0, 0.5])) for k in range(rng.randint(1, 6))]
    flows = []
    for _ in range(rng.randint(1, 12)):
        res = tuple(rng.sample(resources, rng.randint(0, min(3, len(resources)))))
        kind = rng.random() < 0.3
        if not res and not kind:
            res = (resources[0],)
        caps = [1e7, 2.5e7, 1e8, 1.25e8, 3e9] + ([] if kind else [float("inf")])  # a private share is finite
        weight = rng.choice([1, 1, 2, 9])
        f = _FlowClass((len(flows),), res, rng.choice(caps), int(kind))
        f.weight, f.label = weight, "unset"
        flows.append(f)
    return flows, resources


def _state(flows, resources):
    name = {id(r): r.name for r in resources}
    labels = ["private" if f.label is PRIVATE else (None if f.label is None else name[id(f.label)]) for f in flows]
    return [f.rate for f in flows], labels, [(r._n, r._used) for r in resources]


def _compare(fast, n_cases: int) -> int:
    rng = random.Random(19)
    taken = 0
    for _ in range(n_cases):
        flows, resources = _case(rng)
        _water_fill(flows, resources)
        expected = _state(flows, resources)
        for f in flows:
            f.rate, f.label = 0.0, "unset"
        if fast(flows, resources):
            taken += 1
            assert _state(flows, resources) == expected
    return taken


def test_every_flow_at_its_cap_in_one_pass_is_the_general_fill():
    assert _compare(_fill_capped, 3000) > 300  # the one-pass fill applied to many of the cases, and agreed


def test_one_class_in_one_pass_is_the_general_fill():
    def one(flows, resources):
        return len(flows) == 1 and _fill_one(flows[0], resources)

    assert _compare(one, 3000) > 100
