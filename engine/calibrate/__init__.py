"""Fitting the engine's coefficients: to the published measurements, to monitor intervals, and cross-validation."""
