"""Calibration from a workspace's own observed runs: the observations its members record and the fits made to them."""
