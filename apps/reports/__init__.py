"""Ranked platform reports of a scenario: PDF, self-contained HTML, CSV, XLSX and versioned JSON."""
