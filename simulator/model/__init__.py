"""The model layer: platform + workload + scenario -> TaskGraph -> run -> bill -> validate.

Pure Python (no Django, Celery or database).  Inputs and outputs are frozen
dataclasses; see :mod:`simulator.model.specs` (inputs), :mod:`simulator.model.stages`
(the general model: every workload, the CHILES case study included, is data of it), :mod:`simulator.model.built`
(what the builder gives the engine and billing), :mod:`simulator.model.simulate` (runs, Monte Carlo) and
:mod:`simulator.model.validation` (published vs simulated).
"""

__all__ = [
    "specs",
    "catalogue",
    "calibration",
    "placement",
    "queue",
]
