"""Pause Python's cyclic garbage collector while a replication is simulated.

A replication allocates many short-lived objects (its drawn graph, heap entries, flow classes) and leaves one
cycle when it ends: the runner's closures hold the graph and the run's state, so they are freed only by the
collector, whatever the graph's size (a few hundred to a few thousand objects a run).  With the collector on, its
passes during the replication walk those live young objects again and again, and every few dozen replications a
full pass walks the whole process (in a worker, Django's objects and the model's): about a sixth of a CHILES
replication's CPU in a worker.  Paused, the first allocation after the replication collects the young generation
once, which frees that cycle.  Nothing simulated depends on when memory is collected.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Disable the cyclic collector for the block (or the decorated call) and enable it again after, unless it was
    already disabled (nested uses, or a caller's own choice, are left as they are)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
