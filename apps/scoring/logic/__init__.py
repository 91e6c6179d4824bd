"""Scoring logic in plain functions: no Django, no ORM (see :mod:`apps.scoring.adapters` for the boundary).

``inputs`` holds the frozen dataclasses the adapter fills; ``criteria`` turns them into metric values and
0-5 scores with explanations; ``aggregate`` combines scores; ``robustness`` perturbs weights; ``tco``
projects costs over years; ``search`` explores configurations with the simulator.
"""
