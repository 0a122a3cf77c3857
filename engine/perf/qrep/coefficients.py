"""Fitted coefficients of the Q Replication engine, read from ``assets/coefficients/qrep.json``.

The file is written by ``python -m engine.calibrate.qrep`` (bounded least squares on the
published measurements); the engine holds no published result. Its layout::

    {"format": "qrtune-coefficients/1", "engine": "qrep", "version": "...",
     "parameters": {"name": {"value": x, "unit": "...", "meaning": "...", "fitted": bool,
                             "bounds": [lo, hi], "prior": p}},
     "cpu_models": {"z196-2817-778": {"mips_per_cp": 1202, "storage": "ds8000", "note": "..."}},
     "residuals": {"metric": {"n": k, "median_ape": e, "p90_ape": e90, "log_sd": s}}}

CPU costs are in microseconds on one processor of the *reference* CPU model (the one whose
``reference`` flag is true); an LPAR's processors scale them by ``reference MIPS / MIPS per CP``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from engine.io.packagedata import asset_path
from engine.perf.coeffload import CoefficientsError, read_document

COEFF_PATH = asset_path("coefficients", "qrep.json")
FORMAT = "qrtune-coefficients/1"


class Coefficients:
    """Parameter values as attributes (``c.cap_row_us``), plus CPU models and metadata.

    Parameters
    ----------
    values : dict[str, float]
        Parameter name to value.
    cpu_models : dict[str, dict]
        CPU model name to ``{"mips_per_cp", "storage", ...}``.
    version : str
        Version string reported with every prediction.
    residuals : dict, optional
        Fit residuals per metric (``log_sd`` gives prediction bands).
    bounds : dict, optional
        Parameter name to its calibration bounds ``(low, high)``.
    units : dict, optional
        Parameter name to its unit.
    """

    def __init__(
        self,
        values: dict,
        cpu_models: dict,
        version: str,
        residuals: dict | None = None,
        bounds: dict | None = None,
        units: dict | None = None,
    ):
        self.__dict__.update(values)
        self.values = dict(values)
        self.cpu_models = cpu_models
        self.version = version
        self.residuals = residuals or {}
        self.bounds = bounds or {}
        self.units = units or {}
        refs = [m for m, v in cpu_models.items() if v.get("reference")]
        if len(refs) != 1:
            raise CoefficientsError(
                f"{COEFF_PATH}: cpu_models: exactly one model must be the reference, found {refs or 'none'}"
            )
        self.reference_model = refs[0]
        self.reference_mips = float(cpu_models[refs[0]]["mips_per_cp"])

    def with_values(self, **changes: float) -> Coefficients:
        """A copy with some parameter values replaced (used by the calibration)."""
        values = dict(self.values)
        for k, v in changes.items():
            if k not in values:
                raise KeyError(k)
            values[k] = float(v)
        return Coefficients(values, self.cpu_models, self.version, self.residuals, self.bounds, self.units)


def from_document(doc: dict, where: str = "coefficients") -> Coefficients:
    """Build :class:`Coefficients` from a parsed coefficient document.

    Raises
    ------
    CoefficientsError
        Wrong format, or parameters without numeric values.
    """
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("engine") != "qrep":
        raise CoefficientsError(f"{where}: expected format {FORMAT!r} for engine 'qrep'")
    params = doc.get("parameters")
    if not isinstance(params, dict) or not params:
        raise CoefficientsError(f"{where}: parameters: expected a non-empty mapping")
    values, bounds, units = {}, {}, {}
    for name, spec in params.items():
        value = spec.get("value") if isinstance(spec, dict) else spec
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise CoefficientsError(f"{where}: parameters.{name}.value: {value!r} is not a number")
        values[name] = float(value)
        if isinstance(spec, dict):
            b = spec.get("bounds")
            if isinstance(b, (list, tuple)) and len(b) == 2 and all(isinstance(v, (int, float)) for v in b):
                bounds[name] = (float(b[0]), float(b[1]))
            units[name] = str(spec.get("unit", ""))
    return Coefficients(
        values, doc.get("cpu_models") or {}, str(doc.get("version", "")), doc.get("residuals"), bounds, units
    )


@lru_cache(maxsize=4)
def load(path: str | None = None) -> Coefficients:
    """Load (once per process) the coefficient file.

    Raises
    ------
    CoefficientsError
        The file is missing, unreadable or malformed.
    """
    p = Path(path) if path else COEFF_PATH
    doc = read_document(p, "the Q Replication coefficients", "python -m engine.calibrate.qrep")
    return from_document(doc, str(p))
