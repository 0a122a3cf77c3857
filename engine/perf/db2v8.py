"""DB2 V7 to V8 migration estimates: DBM1 below-the-bar storage, CPU change, catalog time, page fixing.

Coefficients come from ``assets/coefficients/db2v8.json`` (read from seed 004 by
``python -m engine.calibrate_misc.db2v8``).

* :func:`estimate_dbm1` applies per-category growth to a V7 DBM1 storage
  breakdown: thread storage (system agents, user threads) and stack grow,
  the local dynamic statement cache grows, the EDM pool stays, the RID pool
  shrinks and everything V8 moves above the bar (buffer pools and their
  control blocks, compression dictionaries, castout buffers, RDS OP pool,
  statement cache control blocks, trace tables) leaves.
* :func:`cpu_change_band` is the CPU change range by workload type, to apply
  to the Db2 CPU of a pipeline as a prediction band (:func:`apply_cpu_band`).
* :func:`catalog_migration_minutes` and :func:`page_fix_advice`.
"""

from __future__ import annotations

import math

from engine.errors import FieldError
from engine.perf.coeffload import load
from engine.perf.result import Prediction

#: V7 breakdown key -> growth category (keys not listed fall to ``other``: moved above the bar).
CATEGORY = {
    "system_agents": "system_agents", "user_threads": "user_threads", "stack_storage": "stack_storage",
    "edm_pool": "edm_pool", "rid_pool": "rid_pool", "local_dynamic_statement_cache": "local_dynamic_statement_cache",
    "local_dsc": "local_dynamic_statement_cache", "dynamic_statement_cache": "local_dynamic_statement_cache",
}
SKIP = {"total"}


def _coeffs() -> dict:
    return load("db2v8")


def estimate_dbm1(v7_mb: dict, user_thread_growth: float | None = None) -> dict:
    """V8 below-the-bar MB per category for a V7 breakdown ``{name: MB}``.

    Keys ending in ``_count`` (numbers of agents or threads) and ``total`` are not storage.

    Raises
    ------
    FieldError
        A value is not a number of MB >= 0.
    """
    c = _coeffs()
    growth = dict(c["dbm1_growth"])
    if user_thread_growth is not None:
        growth["user_threads"] = user_thread_growth
    out = {}
    for key, mb in v7_mb.items():
        if key in SKIP or key.endswith("_count"):
            continue
        if isinstance(mb, bool) or not isinstance(mb, (int, float)) or not math.isfinite(mb) or mb < 0:
            raise FieldError(f"v7_measured_mb.{key}", mb, "a number of MB >= 0")
        cat = CATEGORY.get(key, "other")
        out[key] = max(0.0, mb * (1.0 + growth[cat]))
    return out


def workload_types() -> list[str]:
    """The workload types that have a V7 -> V8 CPU change range, sorted."""
    return sorted(_coeffs()["cpu_change_range"])


def cpu_change_band(workload_type: str) -> tuple[float, float]:
    """(low, high) fractional CPU change V7 -> V8 for a workload type.

    Raises
    ------
    FieldError
        Unknown workload type.
    """
    ranges = _coeffs()["cpu_change_range"]
    if workload_type not in ranges:
        raise FieldError("v8_workload_type", workload_type, "one of " + ", ".join(repr(k) for k in ranges))
    lo, hi = ranges[workload_type]
    return float(lo), float(hi)


def apply_cpu_band(cpu_value: float, workload_type: str) -> tuple[float, float]:
    """The band (low, high) of a Db2 CPU figure (any unit, >= 0) after migrating to V8.

    Raises
    ------
    FieldError
        ``cpu_value`` is not a finite number >= 0, or the workload type is unknown.
    """
    if isinstance(cpu_value, bool) or not isinstance(cpu_value, (int, float)) or not math.isfinite(cpu_value) \
            or cpu_value < 0:
        raise FieldError("cpu", cpu_value, "a finite number >= 0")
    lo, hi = cpu_change_band(workload_type)
    return cpu_value * (1.0 + lo), cpu_value * (1.0 + hi)


def catalog_migration_minutes(big_catalog_gb: float) -> float:
    """Rough V8 CM to NFM catalog migration time: fixed minutes plus minutes per GB of SPT01, SYSPKAGE, SYSDBASE ..."""
    if (isinstance(big_catalog_gb, bool) or not isinstance(big_catalog_gb, (int, float))
            or not math.isfinite(big_catalog_gb) or big_catalog_gb < 0):
        raise FieldError("catalog_gb", big_catalog_gb, "a number of GB >= 0")
    k = _coeffs()["catalog"]
    return k["nfm_fixed_min"] + k["nfm_min_per_gb"] * big_catalog_gb


def page_fix_advice(pools: dict) -> list[dict]:
    """Rank buffer pools for PGFIX(YES) by buffer I/O intensity (pages read or written per buffer).

    ``pools`` maps name -> ``{"buffers": n, "pages_io": n}``. Returns one record per pool,
    most intense first, with ``recommend`` true at or above the coefficient threshold.
    """
    k = _coeffs()["page_fix"]
    out = []
    for name, p in pools.items():
        b, io = p.get("buffers"), p.get("pages_io")
        if (not isinstance(b, (int, float)) or not math.isfinite(b) or b <= 0 or not isinstance(io, (int, float))
                or not math.isfinite(io) or io < 0):
            raise FieldError(f"pools.{name}", p, 'an object {"buffers": > 0, "pages_io": >= 0}')
        out.append({"pool": name, "intensity": io / b, "recommend": io / b >= k["min_intensity"]})
    return sorted(out, key=lambda r: -r["intensity"])


def _optional_number(settings: dict, key: str):
    v = settings.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise FieldError(key, v, "a finite number >= 0 or null")
    return float(v)


def predict(settings: dict) -> Prediction:
    """Predict a ``db2-v8-storage`` scenario: the V8 DBM1 below-the-bar estimate, and when asked
    the V8 CPU band (``workload_type``, ``v7_db2_cpu_ms_per_txn``) and the catalog migration time
    (``catalog_gb``).

    Raises
    ------
    FieldError
        ``v7_measured_mb`` is missing or holds a bad value, or an optional setting is out of range.
    """
    v7 = settings.get("v7_measured_mb")
    if not isinstance(v7, dict) or not v7:
        raise FieldError("v7_measured_mb", v7, "an object of V7 DBM1 storage MB by category")
    c = _coeffs()
    v8 = estimate_dbm1(v7)
    lo_g, _hi_g = c["user_thread_growth_range"]
    v8_lo = sum(estimate_dbm1(v7, lo_g).values())
    total = sum(v8.values())
    v7_total = sum(v for k, v in v7.items() if k not in SKIP and not k.endswith("_count"))
    metrics = {"v8_estimated_total_mb": total, "v7_total_mb": v7_total, "relief_mb": v7_total - total}
    metrics.update({f"v8_{k}_mb": v for k, v in v8.items()})
    units = {k: "MB" for k in metrics}
    bands = {"v8_estimated_total_mb": (min(v8_lo, total), max(v8_lo, total))}
    used = {"v7_measured_mb", "workload_type", "v7_db2_cpu_ms_per_txn", "catalog_gb"}
    workload = settings.get("workload_type", "online")
    if workload not in c["cpu_change_range"]:
        raise FieldError("workload_type", workload, "one of " + ", ".join(workload_types()))
    cpu = _optional_number(settings, "v7_db2_cpu_ms_per_txn")
    if cpu is not None:
        lo, hi = apply_cpu_band(cpu, workload)
        metrics["v8_db2_cpu_ms_per_txn"] = 0.5 * (lo + hi)
        units["v8_db2_cpu_ms_per_txn"] = "ms"
        bands["v8_db2_cpu_ms_per_txn"] = (lo, hi)
    lo_c, hi_c = cpu_change_band(workload)
    metrics["v8_cpu_change_low_pct"], metrics["v8_cpu_change_high_pct"] = 100.0 * lo_c, 100.0 * hi_c
    units["v8_cpu_change_low_pct"] = units["v8_cpu_change_high_pct"] = "%"
    gb = _optional_number(settings, "catalog_gb")
    if gb is not None:
        metrics["catalog_migration_min"] = catalog_migration_minutes(gb)
        units["catalog_migration_min"] = "min"
    from engine.scenario import unused_settings

    ignored = [p for p in unused_settings(settings, used) if not p.startswith("v7_measured_mb.")]
    return Prediction(kind="db2-v8-storage", metrics=metrics, units=units, bottleneck=None,
                      ignored=tuple(ignored), coefficients_version=c.get("version", ""), bands=bands)
