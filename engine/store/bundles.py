"""Runs ready to write: a run's record with its metric, stage and time-series rows.

Front ends (a sweep, the window's history) build :class:`RunBundle` objects and hand them to
:meth:`engine.store.Store.record_runs`, which assigns the run ids and writes every table
column-wise from the records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from engine.store.provenance import canonical_json, engine_version, utc_now
from engine.store.records import MetricRow, RunRecord, StageMetricRow


def _float(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def metric_rows(metrics: Mapping[str, float], units: Mapping[str, str] | None = None) -> list[MetricRow]:
    """Metric rows (``run_id`` 0) of ``metrics``, with their units; a value that is no number becomes NaN."""
    units = units or {}
    return [MetricRow(0, name, _float(value), units.get(name, "")) for name, value in metrics.items()]


def stage_rows(stages: Iterable) -> list[StageMetricRow]:
    """Stage rows (``run_id`` 0) of objects with ``name``, ``capacity``, ``utilisation``, ``latency_ms``, ``unit``."""
    return [
        StageMetricRow(
            0,
            s.name,
            _float(s.capacity),
            _float(s.utilisation),
            _float(getattr(s, "latency_ms", 0.0)),
            getattr(s, "unit", ""),
        )
        for s in stages
    ]


@dataclass
class RunBundle:
    """A run ready to write: its record (id filled in by the store) and its rows.

    Attributes
    ----------
    run : RunRecord
        ``id`` is ignored; the store assigns the next id.
    metrics : list of MetricRow
        ``run_id`` is ignored (0); the store fills in the run's id.
    stages : list of StageMetricRow
        ``run_id`` is ignored (0), as for ``metrics``.
    timeseries : dict
        Series name -> (t_s array, value array).
    """

    run: RunRecord
    metrics: list = field(default_factory=list)
    stages: list = field(default_factory=list)
    timeseries: dict = field(default_factory=dict)


def bundle_from_prediction(
    *,
    project_name: str,
    project_hash_: str,
    settings: Mapping,
    prediction,
    kind: str,
    label: str = "",
    sweep_id: int | None = None,
    point_index: int | None = None,
    started: datetime | None = None,
) -> RunBundle:
    """Build a :class:`RunBundle` from an engine :class:`~engine.perf.result.Prediction`."""
    record = RunRecord(
        id=0,
        project_name=project_name,
        project_hash=project_hash_,
        settings_json=canonical_json(settings),
        engine_version=engine_version(),
        coefficients_version=prediction.coefficients_version or "",
        seed=None,
        kind=kind,
        started=started or utc_now(),
        status="ok",
        scenario_kind=prediction.kind,
        bottleneck=prediction.bottleneck,
        sweep_id=sweep_id,
        point_index=point_index,
        label=label,
        error="",
    )
    return RunBundle(record, metric_rows(prediction.metrics, prediction.units), stage_rows(prediction.stages))


def bundle_failed(
    *,
    project_name: str,
    project_hash_: str,
    settings: Mapping,
    error: str,
    kind: str,
    label: str = "",
    seed: int | None = None,
    sweep_id: int | None = None,
    point_index: int | None = None,
    started: datetime | None = None,
) -> RunBundle:
    """A :class:`RunBundle` for a run that failed: status ``failed``, ``error`` set, no metrics.

    Parameters
    ----------
    settings : Mapping
        What was run ({} when the settings could not even be built).
    error : str
        One line saying why, as the user saw it (``ValueRangeError: qapply.num_apply_agents ...``).
    """
    record = RunRecord(
        id=0,
        project_name=project_name,
        project_hash=project_hash_,
        settings_json=canonical_json(dict(settings)),
        engine_version=engine_version(),
        coefficients_version="",
        seed=seed,
        kind=kind,
        started=started or utc_now(),
        status="failed",
        scenario_kind=str(settings.get("kind", "") or ""),
        bottleneck=None,
        sweep_id=sweep_id,
        point_index=point_index,
        label=label,
        error=error or "failed",
    )
    return RunBundle(record)


def bundle_simulation(
    *,
    project_name: str,
    project_hash_: str,
    settings: Mapping,
    metrics: Mapping[str, float],
    units: Mapping[str, str] | None = None,
    seed: int | None = None,
    stages: Iterable = (),
    timeseries: Mapping[str, tuple] | None = None,
    coefficients_version: str = "",
    scenario_kind: str = "",
    bottleneck: str | None = None,
    label: str = "",
    sweep_id: int | None = None,
    point_index: int | None = None,
) -> RunBundle:
    """A :class:`RunBundle` of a finished simulation (kind ``simulate``): its summary metrics and series."""
    record = RunRecord(
        id=0,
        project_name=project_name,
        project_hash=project_hash_,
        settings_json=canonical_json(settings),
        engine_version=engine_version(),
        coefficients_version=coefficients_version,
        seed=seed,
        kind="simulate",
        started=utc_now(),
        status="ok",
        scenario_kind=scenario_kind or str(settings.get("kind", "")),
        bottleneck=bottleneck,
        sweep_id=sweep_id,
        point_index=point_index,
        label=label,
    )
    return RunBundle(record, metric_rows(metrics, units), stage_rows(stages), dict(timeseries or {}))
