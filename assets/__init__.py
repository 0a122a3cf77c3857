"""Fitted coefficients (``coefficients/``) and the published measurements they come from (``validation/``).

Package data: installed with the wheel (as ``qrtune.assets``) and read with :mod:`importlib.resources`
through :func:`engine.io.packagedata.asset_path`.
"""
