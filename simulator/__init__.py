"""Skyplan's discrete-event simulator of data-intensive pipelines.

A plain Python package: it never imports Django, Celery or a database.  Inputs and
outputs are frozen dataclasses (see :mod:`simulator.graph`); :mod:`simulator.units`
is the one place where units are converted.
"""
