"""Coefficients of the topology mechanisms (CF, SMDS, SCM, merged log, SQL Replication).

Read from ``assets/coefficients/topologies.json``, written by ``python -m
engine.calibrate.topologies`` (documented priors, each with its assumption, and the SQL
Replication coefficients fitted to the 2005 seed's relations). Layout as
``assets/coefficients/qrep.json``: ``{"parameters": {name: {"value", "unit", "meaning",
"assumption", "fitted", "bounds", "prior"}}}``.
"""

from __future__ import annotations

from functools import lru_cache

from engine.io.packagedata import asset_path
from engine.perf.coeffload import CoefficientsError, read_document

COEFF_PATH = asset_path("coefficients", "topologies.json")
RERUN = "python -m engine.calibrate.topologies"


class TopologyCoefficients:
    """Parameter values as attributes (``k.smds_io_us``) and the file's version.

    Unlike the Q Replication coefficients there are no CPU models here: these mechanisms are
    elapsed times, CF processor times, storage sizes and ratios.

    Parameters
    ----------
    values : dict[str, float]
    version : str
    """

    def __init__(self, values: dict, version: str):
        self.__dict__.update(values)
        self.values = dict(values)
        self.version = version

    def with_values(self, **changes: float) -> TopologyCoefficients:
        """A copy with some values replaced (the calibration's trial points)."""
        return TopologyCoefficients(
            {**self.values, **{k: float(v) for k, v in changes.items()}}, self.version
        )


def from_document(doc: dict) -> TopologyCoefficients:
    """Build coefficients from a parsed file.

    Raises
    ------
    CoefficientsError
        A parameter lacks a numeric ``value``.
    """
    params = doc.get("parameters")
    if not isinstance(params, dict):
        raise CoefficientsError(f"{COEFF_PATH}: no 'parameters' object; run `{RERUN}`")
    values = {}
    for name, p in params.items():
        value = p.get("value") if isinstance(p, dict) else None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise CoefficientsError(f"{COEFF_PATH}: parameters.{name}.value is {value!r}, not a number")
        values[name] = float(value)
    return TopologyCoefficients(values, str(doc.get("version", "")))


@lru_cache(maxsize=1)
def load() -> TopologyCoefficients:
    """The coefficients of ``assets/coefficients/topologies.json`` (cached).

    Raises
    ------
    CoefficientsError
        The file is missing, not JSON or malformed.
    """
    return from_document(read_document(COEFF_PATH, "topology coefficients", RERUN))
