"""Flat, typed result records: one frozen dataclass per store table, the one definition of its columns.

Each record maps one to one onto a row of a DuckDB table of :mod:`engine.store.schema` (same
names, same order; a field's ``column`` metadata names a column spelled differently, and
``json`` metadata marks a column holding the field as JSON text). The store writes every table
from its records (:meth:`engine.store.base.StoreBase.insert_records` builds the column list from
the fields), and ``tests/engine/store/test_records_schema.py`` checks the fields against the
tables a migrated store has, so the DDL, the records and the inserts cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime

from engine.perf.result import StageResult

#: Run kinds qrtune records (``qrtune predict``/``simulate``/``sweep``, the window's ``gui``
#: predictions, ``fit``, ``qrtune advise`` and the Advisor panel's ``advise`` runs and
#: ``goalseek`` best points); any other text is accepted and shown as is.
RUN_KINDS = ("predict", "simulate", "sweep", "gui", "fit", "advise", "goalseek")

#: Run statuses: ``ok`` finished with results; ``failed`` finished with ``error`` set.
RUN_STATUSES = ("ok", "failed")


@dataclass(frozen=True)
class RunRecord:
    """One run: what was run, on what, with which engine, and how it ended.

    Attributes
    ----------
    id : int
        Run id, unique in one store, increasing in the order runs were recorded.
    project_name : str
        Name of the project the run was made on.
    project_hash : str
        sha256 (hex) of the project's model content (see :func:`engine.store.project_hash`).
    settings_json : str
        The scenario settings the engine ran on, as canonical JSON.
    engine_version : str
        qrtune version that produced the numbers.
    coefficients_version : str
        Version of the fitted coefficients used ("" when the engine reports none).
    seed : int or None
        Random seed of a simulation; None for deterministic steady-state runs.
    kind : str
        ``predict``, ``simulate``, ``sweep``, ``gui``, ``fit``, ``advise`` or ``goalseek``
        (see :data:`RUN_KINDS`).
    started : datetime
        When the run started (UTC, naive).
    status : str
        ``ok`` or ``failed``.
    scenario_kind : str
        Scenario kind of the engine (``qrep``, ``db2mirror`` ...).
    bottleneck : str or None
        The stage that limits throughput, when the engine names one.
    sweep_id : int or None
        The sweep this run is a point of.
    point_index : int or None
        Index of the point in its sweep's cartesian product.
    label : str
        Free text shown in run lists (a sweep point's settings, a user note).
    error : str
        Why a failed run failed ("" for ``ok``).
    """

    id: int
    project_name: str
    project_hash: str
    settings_json: str
    engine_version: str
    coefficients_version: str
    seed: int | None
    kind: str
    started: datetime
    status: str
    scenario_kind: str = ""
    bottleneck: str | None = None
    sweep_id: int | None = None
    point_index: int | None = None
    label: str = ""
    error: str = ""

    @property
    def failure(self) -> str:
        """Why the run failed, or "" when it finished with results."""
        return self.error if self.status != "ok" else ""


@dataclass(frozen=True)
class StoredPoint:
    """The run that recorded one sweep point, with its metrics' values and units by name (empty if it failed)."""

    run: RunRecord
    metrics: dict[str, float]
    units: dict[str, str]

    @classmethod
    def of(cls, run: RunRecord, metrics: dict[str, tuple[float, str]]) -> StoredPoint:
        """The point ``run`` with ``metrics`` given as {metric: (value, unit)}."""
        return cls(run, {k: v for k, (v, _) in metrics.items()}, {k: u for k, (_, u) in metrics.items()})


@dataclass(frozen=True)
class MetricRow:
    """One metric of a run: ``value`` in ``unit`` (e.g. ``apply_rows_per_s`` in rows/s)."""

    run_id: int
    metric: str
    value: float
    unit: str = ""


@dataclass(frozen=True)
class StageMetricRow:
    """The ``stage_metrics`` row of one pipeline stage of a run at its operating point: how the store
    lays out an :class:`engine.perf.result.StageResult`, the one stage record, which it reads back
    (:meth:`result`) for every view, report and comparison.

    Attributes
    ----------
    capacity : float
        Most the stage could carry, in ``unit``.
    utilisation : float
        Carried load over capacity, 0..1.
    latency_ms : float
        Mean time spent in the stage, ms.
    """

    run_id: int
    stage: str
    capacity: float
    utilisation: float
    latency_ms: float
    unit: str = "rows/s"

    def result(self) -> StageResult:
        """The stage as the engines give it (without the run id)."""
        return StageResult(self.stage, self.capacity, self.utilisation, self.unit, self.latency_ms)


@dataclass(frozen=True)
class TimeseriesPoint:
    """One sample of a time series of a run: ``value`` of ``series`` at ``t_s`` seconds from start."""

    run_id: int
    t_s: float
    series: str
    value: float


@dataclass(frozen=True)
class MonitorImport:
    """One imported monitor-table CSV file.

    Attributes
    ----------
    table_name : str
        ``IBMQREP_CAPMON``, ``IBMQREP_CAPQMON`` or ``IBMQREP_APPLYMON``.
    n_rows : int
        Data rows imported.
    columns : tuple[str, ...]
        Numeric columns found in the file (upper case, as exported).
    """

    id: int
    project_name: str
    file: str
    table_name: str
    imported: datetime
    n_rows: int
    columns: tuple = field(default=(), metadata={"column": "columns_json", "json": True})


@dataclass(frozen=True)
class MonitorRow:
    """One numeric cell of an imported monitor row, in long form.

    Attributes
    ----------
    import_id : int
        The :class:`MonitorImport` it came from.
    table_name : str
        Monitor table (``IBMQREP_APPLYMON`` ...).
    line : int
        Line of the CSV file (1 = header).
    monitor_time : datetime
        The row's MONITOR_TIME.
    queue : str
        SENDQ (CAPQMON) or RECVQ (APPLYMON); "" for CAPMON.
    column : str
        Column name as IBM spells it (``ROWS_APPLIED``); units as in the product
        (latencies and MONITOR_INTERVAL in ms, CURRENT_MEMORY in bytes, counts per interval).
    value : float
        The value; timestamps other than MONITOR_TIME are stored as seconds since the epoch.
    """

    import_id: int
    table_name: str
    line: int
    monitor_time: datetime
    queue: str
    column: str = field(metadata={"column": "col"})
    value: float


@dataclass(frozen=True)
class SweepRecord:
    """One sweep: the cartesian product of knob values over a project.

    Attributes
    ----------
    sweep_key : str
        sha256 of what makes two sweeps the same (project, axes, engine and coefficient versions).
    axes_json : str
        The axes as JSON (target, param, node_ids, values per axis).
    n_points : int
        Points in the product.
    started : datetime
        When the sweep was created (UTC, naive).
    base_settings_json : str or None
        Settings of the sweep's first recorded point; every point's ``settings_json`` is stored
        as a JSON merge patch (RFC 7396) against it (``{"$patch": {...}}``), 0.1 KB instead of 1.5 KB.
    """

    id: int
    sweep_key: str
    project_name: str
    project_hash: str
    axes_json: str
    n_points: int
    started: datetime
    base_settings_json: str | None = None


@dataclass(frozen=True)
class FitRecord:
    """Coefficients fitted to imported monitor intervals (``qrtune fit``).

    Attributes
    ----------
    base_coefficients_version : str
        Version of the coefficients the fit started from.
    coefficients_json : str
        The fitted coefficient set.
    n_fit, n_holdout : int
        Intervals fitted to and held out.
    error_before_pct, error_after_pct : float or None
        Mean absolute error on the held-out intervals before and after, %.
    report_json : str
        Every error ``qrtune fit`` prints.
    """

    id: int
    project_name: str
    project_hash: str
    created: datetime
    base_coefficients_version: str
    coefficients_json: str
    n_fit: int
    n_holdout: int
    error_before_pct: float | None
    error_after_pct: float | None
    report_json: str


TABLE_OF = {
    RunRecord: "runs",
    MetricRow: "metrics",
    StageMetricRow: "stage_metrics",
    TimeseriesPoint: "timeseries",
    MonitorImport: "monitor_imports",
    MonitorRow: "monitor_rows",
    SweepRecord: "sweeps",
    FitRecord: "fits",
}
"""The store table each record type is a row of."""


def column_names(record_type) -> tuple[str, ...]:
    """The table columns of ``record_type``, in order (a field's ``column`` metadata renames it)."""
    return tuple(f.metadata.get("column", f.name) for f in fields(record_type))


@dataclass(frozen=True)
class RunData:
    """Everything stored for one run.

    Attributes
    ----------
    run : RunRecord
    metrics : tuple[MetricRow, ...]
    stages : tuple[engine.perf.result.StageResult, ...]
    timeseries : dict[str, tuple[numpy.ndarray, numpy.ndarray]]
        Series name -> (t_s, value) arrays, sorted by time.
    """

    run: RunRecord
    metrics: tuple = ()
    stages: tuple = ()
    timeseries: dict = field(default_factory=dict)

    def metric(self, name: str) -> float:
        """Value of metric ``name``; raises KeyError when the run has none."""
        for m in self.metrics:
            if m.metric == name:
                return m.value
        raise KeyError(name)

    @property
    def settings(self) -> dict:
        """The run's settings as plain data."""
        import json

        return json.loads(self.run.settings_json)


__all__ = [
    "RUN_KINDS",
    "RUN_STATUSES",
    "TABLE_OF",
    "FitRecord",
    "MetricRow",
    "MonitorImport",
    "MonitorRow",
    "RunData",
    "RunRecord",
    "StageMetricRow",
    "SweepRecord",
    "TimeseriesPoint",
    "column_names",
]
