"""Profile import and analysis: parse real profiling runs, show what bounds each phase, calibrate the model."""
