"""API views, one module per surface; each is a thin layer over that app's ``services``."""
