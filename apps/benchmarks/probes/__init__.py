"""Measurements a benchmark worker takes of its own host: plain Python + numpy, no Django.

Each probe takes validated parameters, a scratch directory and an optional ``progress(done, total)``
callback (which may raise to cancel), and returns JSON-safe dicts.
"""
