"""The workload catalogue: pipeline templates with parameters and per-stage demands, and reference observations."""
