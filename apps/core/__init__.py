"""What several apps truly share: provenance, quantity fields, worker heartbeats, health."""
