"""DB2 V7 to V8 migration estimates: DBM1 below-the-bar storage, CPU change, catalog time, page fixing.

Coefficients come from ``assets/coefficients/db2v8.json`` (read from seed 004 by
``python -m engine.calibrate.misc.db2v8``).

* :func:`estimate_dbm1` applies per-category growth to a V7 DBM1 storage
  breakdown: thread storage (system agents, user threads) and stack grow,
  the local dynamic statement cache grows, the EDM pool stays, the RID pool
  shrinks and everything V8 moves above the bar (buffer pools and their
  control blocks, compression dictionaries, castout buffers, RDS OP pool,
  statement cache control blocks, trace tables) leaves.
* :func:`cpu_change_band` is the CPU change range by workload type, to apply
  to the Db2 CPU of a pipeline as a prediction band (:func:`apply_cpu_band`).
* :func:`catalog_migration_minutes` and :func:`page_fix_advice`.
* :func:`summarise` gathers what a migration planner asks for one project: each DBM1 part
  before and after, the relief, the headroom left below the 2 GB bar (or below the DBM1
  extended region, when given), the CPU change band of the workload type and the catalog time;
  :func:`predict` reports it as metrics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.errors import FieldError, require_nonnegative
from engine.metrics.catalog import DBM1_PARTS
from engine.perf.coeffload import load
from engine.perf.result import Prediction
from engine.settings import SettingsReader, unused_settings

#: V7 breakdown key -> growth category (keys not listed fall to ``other``: moved above the bar).
CATEGORY = {
    "system_agents": "system_agents",
    "user_threads": "user_threads",
    "stack_storage": "stack_storage",
    "edm_pool": "edm_pool",
    "rid_pool": "rid_pool",
    "local_dynamic_statement_cache": "local_dynamic_statement_cache",
    "local_dsc": "local_dynamic_statement_cache",
    "dynamic_statement_cache": "local_dynamic_statement_cache",
}
SKIP = {"total"}

#: The 2 GB bar of 31-bit addressing, in MB: what DBM1 storage below the bar can never exceed.
BAR_MB = 2048.0


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


def part_label(name: str) -> str:
    """Display name of a V7 breakdown key (``rid_pool`` -> ``RID pool``); unknown keys read as words."""
    return DBM1_PARTS.get(name, name.replace("_", " ").capitalize())


def moves_above_bar(name: str) -> bool:
    """True when V8 moves the whole part above the bar (the ``other`` category)."""
    return CATEGORY.get(name, "other") == "other"


@dataclass(frozen=True)
class Dbm1Part:
    """One part of DBM1 storage below the bar, MB in V7 and estimated for V8."""

    name: str
    label: str
    v7_mb: float
    v8_mb: float

    @property
    def moves_above_bar(self) -> bool:
        """V8 moves all of it above the bar."""
        return moves_above_bar(self.name)


@dataclass(frozen=True)
class MigrationSummary:
    """What changes from DB2 V7 to V8 for one subsystem (see :func:`summarise`).

    Attributes
    ----------
    parts : tuple[Dbm1Part, ...]
        Each DBM1 part below the bar, V7 and V8, in the order of the V7 breakdown.
    v7_total_mb, v8_total_mb : float
        DBM1 storage below the bar, MB: V7 measured (sum of the parts) and V8 estimated.
    v8_total_band_mb : tuple[float, float]
        The V8 total with user thread storage growing by the low and the high end of its range, MB.
    region_mb : float
        The storage below the bar DBM1 may use, MB: the extended region size when given, else
        the whole 2 GB (:data:`BAR_MB`).
    region_given : bool
        ``region_mb`` is the subsystem's extended region size, not the 2 GB bar.
    workload_type : str
        Workload type of the CPU change band.
    cpu_change : tuple[float, float]
        (low, high) fractional Db2 CPU change V7 -> V8 for the workload type.
    v7_cpu_ms_per_txn : float or None
        Db2 class 2 CPU per transaction in V7, ms, when given.
    v8_cpu_ms_per_txn_band : tuple[float, float] or None
        That CPU after the migration, (low, high) ms, when given.
    catalog_gb : float or None
        GB of the large catalog and directory table spaces, when given.
    catalog_migration_min : float or None
        Catalog migration time to new-function mode, minutes, when ``catalog_gb`` is given.
    """

    parts: tuple[Dbm1Part, ...]
    v7_total_mb: float
    v8_total_mb: float
    v8_total_band_mb: tuple[float, float]
    region_mb: float
    region_given: bool
    workload_type: str
    cpu_change: tuple[float, float]
    v7_cpu_ms_per_txn: float | None = None
    v8_cpu_ms_per_txn_band: tuple[float, float] | None = None
    catalog_gb: float | None = None
    catalog_migration_min: float | None = None

    @property
    def relief_mb(self) -> float:
        """MB below the bar V8 frees (V7 total minus V8 total)."""
        return self.v7_total_mb - self.v8_total_mb

    @property
    def relief_pct(self) -> float:
        """The relief as a share of the V7 total, % (0 for an empty V7 breakdown)."""
        return 100.0 * self.relief_mb / self.v7_total_mb if self.v7_total_mb > 0 else 0.0

    @property
    def v7_headroom_mb(self) -> float:
        """MB left below the bar (or the extended region) in V7; negative when over it."""
        return self.region_mb - self.v7_total_mb

    @property
    def v8_headroom_mb(self) -> float:
        """MB left below the bar (or the extended region) in V8; negative when over it."""
        return self.region_mb - self.v8_total_mb

    @property
    def v8_fits(self) -> bool:
        """The V8 estimate (its high end) stays within ``region_mb``."""
        return max(self.v8_total_band_mb) <= self.region_mb


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
    require_nonnegative("cpu", cpu_value, "a finite number >= 0")
    lo, hi = cpu_change_band(workload_type)
    return cpu_value * (1.0 + lo), cpu_value * (1.0 + hi)


def catalog_migration_minutes(big_catalog_gb: float) -> float:
    """Rough V8 CM to NFM catalog migration time: fixed minutes plus minutes per GB of SPT01, SYSPKAGE, SYSDBASE ..."""
    require_nonnegative("catalog_gb", big_catalog_gb, "a number of GB >= 0")
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
        if (
            not isinstance(b, (int, float))
            or not math.isfinite(b)
            or b <= 0
            or not isinstance(io, (int, float))
            or not math.isfinite(io)
            or io < 0
        ):
            raise FieldError(f"pools.{name}", p, 'an object {"buffers": > 0, "pages_io": >= 0}')
        out.append({"pool": name, "intensity": io / b, "recommend": io / b >= k["min_intensity"]})
    return sorted(out, key=lambda r: -r["intensity"])


#: Scenario kind whose registry paths the estimate reads.
SCENARIO_KIND = "db2-v8-storage"


def _v7_parts(r: SettingsReader) -> dict:
    """``v7_measured_mb``, each part the registry knows checked against its range (others: MB >= 0)."""
    v7 = r.raw("v7_measured_mb")
    if not isinstance(v7, dict) or not v7:
        raise FieldError("v7_measured_mb", v7, "an object of V7 DBM1 storage MB by category")
    return {
        key: r.value(f"v7_measured_mb.{key}") if r.knows(f"v7_measured_mb.{key}") else mb
        for key, mb in v7.items()
    }


def summarise(settings: dict) -> MigrationSummary:
    """What a ``db2-v8-storage`` scenario's V7 subsystem looks like in V8.

    Settings: ``v7_measured_mb`` (V7 DBM1 MB below the bar by part; ``*_count`` and ``total``
    are not parts), ``workload_type`` (default ``online``), ``v7_db2_cpu_ms_per_txn`` (optional),
    ``catalog_gb`` (optional) and ``extended_region_mb`` (optional: the DBM1 extended region size,
    MB, at most :data:`BAR_MB`; the headroom is measured against it, else against the 2 GB bar).

    Raises
    ------
    FieldError
        ``v7_measured_mb`` is missing or holds a bad value, or an optional setting is out of range.
    """
    return summarise_and_paths(settings)[0]


def summarise_and_paths(settings: dict) -> tuple[MigrationSummary, set[str]]:
    """:func:`summarise` and the settings paths it read."""
    r = SettingsReader(settings, SCENARIO_KIND)
    v7 = _v7_parts(r)
    c = _coeffs()
    v8 = estimate_dbm1(v7)
    lo_g, _hi_g = c["user_thread_growth_range"]
    v8_lo = sum(estimate_dbm1(v7, lo_g).values())
    total = sum(v8.values())
    parts = tuple(Dbm1Part(k, part_label(k), float(v7[k]), v) for k, v in v8.items())
    workload = r.choice("workload_type")
    cpu = r.optional("v7_db2_cpu_ms_per_txn")
    gb = r.optional("catalog_gb")
    region = r.optional("extended_region_mb")
    summary = MigrationSummary(
        parts=parts,
        v7_total_mb=sum(p.v7_mb for p in parts),
        v8_total_mb=total,
        v8_total_band_mb=(min(v8_lo, total), max(v8_lo, total)),
        region_mb=BAR_MB if region is None else region,
        region_given=region is not None,
        workload_type=workload,
        cpu_change=cpu_change_band(workload),
        v7_cpu_ms_per_txn=cpu,
        v8_cpu_ms_per_txn_band=None if cpu is None else apply_cpu_band(cpu, workload),
        catalog_gb=gb,
        catalog_migration_min=None if gb is None else catalog_migration_minutes(gb),
    )
    return summary, r.used


def predict(settings: dict) -> Prediction:
    """Predict a ``db2-v8-storage`` scenario: the V8 DBM1 below-the-bar estimate and the headroom left
    below the bar (or the extended region), and when asked the V8 CPU band (``workload_type``,
    ``v7_db2_cpu_ms_per_txn``) and the catalog migration time (``catalog_gb``); see :func:`summarise`.

    Raises
    ------
    FieldError
        ``v7_measured_mb`` is missing or holds a bad value, or an optional setting is out of range.
    """
    c = _coeffs()
    s, used = summarise_and_paths(settings)
    metrics = {"v8_estimated_total_mb": s.v8_total_mb, "v7_total_mb": s.v7_total_mb, "relief_mb": s.relief_mb}
    metrics.update({f"v8_{p.name}_mb": p.v8_mb for p in s.parts})
    metrics.update(
        dbm1_region_mb=s.region_mb, v7_headroom_mb=s.v7_headroom_mb, v8_headroom_mb=s.v8_headroom_mb
    )
    units = {k: "MB" for k in metrics}
    metrics["relief_pct"] = s.relief_pct
    units["relief_pct"] = "%"
    bands = {
        "v8_estimated_total_mb": s.v8_total_band_mb,
        "v8_headroom_mb": (s.region_mb - s.v8_total_band_mb[1], s.region_mb - s.v8_total_band_mb[0]),
    }
    if s.v8_cpu_ms_per_txn_band is not None:
        lo, hi = s.v8_cpu_ms_per_txn_band
        metrics["v8_db2_cpu_ms_per_txn"] = 0.5 * (lo + hi)
        units["v8_db2_cpu_ms_per_txn"] = "ms"
        bands["v8_db2_cpu_ms_per_txn"] = (lo, hi)
    lo_c, hi_c = s.cpu_change
    metrics["v8_cpu_change_low_pct"], metrics["v8_cpu_change_high_pct"] = 100.0 * lo_c, 100.0 * hi_c
    units["v8_cpu_change_low_pct"] = units["v8_cpu_change_high_pct"] = "%"
    if s.catalog_migration_min is not None:
        metrics["catalog_migration_min"] = s.catalog_migration_min
        units["catalog_migration_min"] = "min"
    reasons = {
        p: "not used by the DB2 V8 storage estimate"
        for p in unused_settings(settings, used)
        if not p.startswith("v7_measured_mb.")
    }
    for key in settings.get("v7_measured_mb", {}):
        if key in SKIP or key.endswith("_count"):
            reasons[f"v7_measured_mb.{key}"] = (
                "a count or the V7 total, not a storage part: the V8 estimate grows each part and sums them"
            )
    return Prediction.explained(
        "db2-v8-storage",
        metrics,
        reasons,
        units=units,
        coefficients_version=c.get("version", ""),
        bands=bands,
    )
