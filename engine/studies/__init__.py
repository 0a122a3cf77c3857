"""Sweeps and simulation studies: points, picks and their runs on a pool or a Dask cluster."""
