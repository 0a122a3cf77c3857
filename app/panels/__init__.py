"""Dock panels of the workbench: inspector, results, runs, compare, validation."""
