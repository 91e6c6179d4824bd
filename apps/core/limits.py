"""Limits a worker's pool process sets on itself, and what a program it starts gets back.

A pool process caps its own address space (a soft RLIMIT_AS, :func:`apps.core.signals.limit_job_memory`) so that
one job cannot take the host's memory.  A limit is inherited across ``exec``: a program such as Chromium, which
reserves tens of GB of address space it never touches (V8's pointer cage), dies at start under the cap
(SIGTRAP) although it would use a few hundred MB.  Such a program is bounded by its own time limit instead, and
starts with the soft limit raised back to the hard one (:func:`lift_address_space_limit`, a ``preexec_fn``)."""

from __future__ import annotations

import resource


def lift_address_space_limit() -> None:
    """Raise the soft RLIMIT_AS of this (child) process to its hard limit: run between fork and exec."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
