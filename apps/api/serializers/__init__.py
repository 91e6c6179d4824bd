"""API serializers, one module per surface: catalogue, scenarios (and runs), profiles, benchmarks, reports."""
