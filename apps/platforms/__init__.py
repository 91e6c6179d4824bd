"""The platform catalogue: clusters, HPC centres and clouds with nodes, storage tiers, WAN, queue and prices."""
