"""Simulation runs: a workload on a platform, executed by Celery workers with progress and cancel."""
