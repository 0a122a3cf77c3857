"""Runs ready to write: a run's record with its metric, stage and time-series rows.

Front ends (a sweep, the window's history) build :class:`RunBundle` objects and hand them to
:meth:`engine.store.Store.record_runs`, which assigns the run ids and writes every table
column-wise from the records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from engine.limit import stored_bottleneck
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


def run_record(
    *,
    project_name: str,
    project_hash_: str,
    settings: Mapping,
    kind: str,
    status: str = "ok",
    error: str = "",
    coefficients_version: str = "",
    seed: int | None = None,
    scenario_kind: str = "",
    bottleneck: str | None = None,
    label: str = "",
    sweep_id: int | None = None,
    point_index: int | None = None,
    started: datetime | None = None,
) -> RunRecord:
    """The record of a run about to be stored, made by this qrtune version.

    ``id`` is 0 (the store assigns it), ``settings`` are kept as canonical JSON and ``started``
    defaults to now (UTC); the other fields are those of :class:`RunRecord`.
    """
    return RunRecord(
        0,
        project_name,
        project_hash_,
        canonical_json(dict(settings)),
        engine_version(),
        coefficients_version,
        seed,
        kind,
        started or utc_now(),
        status,
        scenario_kind,
        bottleneck,
        sweep_id,
        point_index,
        label,
        error,
    )


def bundle_from_prediction(*, prediction, kind: str, **run) -> RunBundle:
    """Build a :class:`RunBundle` from an engine :class:`~engine.perf.result.Prediction`.

    ``run``: what identifies the run, as for :func:`run_record` (``project_name``,
    ``project_hash_``, ``settings``, ``label``, ``sweep_id``, ``point_index``, ``started``).
    """
    record = run_record(
        kind=kind,
        coefficients_version=prediction.coefficients_version or "",
        scenario_kind=prediction.kind,
        bottleneck=stored_bottleneck(prediction),
        **run,
    )
    return RunBundle(record, metric_rows(prediction.metrics, prediction.units), stage_rows(prediction.stages))


def bundle_failed(*, settings: Mapping, error: str, kind: str, **run) -> RunBundle:
    """A :class:`RunBundle` for a run that failed: status ``failed``, ``error`` set, no metrics.

    Parameters
    ----------
    settings : Mapping
        What was run ({} when the settings could not even be built).
    error : str
        One line saying why, as the user saw it (``ValueRangeError: qapply.num_apply_agents ...``).
    kind : str
        ``predict``, ``simulate``, ``sweep`` ...
    **run
        What identifies the run, as for :func:`run_record` (``project_name``, ``project_hash_``,
        ``seed``, ``label``, ``sweep_id``, ``point_index``, ``started``).
    """
    record = run_record(
        settings=settings,
        kind=kind,
        status="failed",
        error=error or "failed",
        scenario_kind=str(settings.get("kind", "") or ""),
        **run,
    )
    return RunBundle(record)


def bundle_simulation(
    *,
    settings: Mapping,
    metrics: Mapping[str, float],
    units: Mapping[str, str] | None = None,
    stages: Iterable = (),
    timeseries: Mapping[str, tuple] | None = None,
    scenario_kind: str = "",
    **run,
) -> RunBundle:
    """A :class:`RunBundle` of a finished simulation (kind ``simulate``): its summary metrics and series.

    ``scenario_kind`` defaults to the settings' kind; ``run`` identifies the run as for
    :func:`run_record` (``project_name``, ``project_hash_``, ``seed``, ``coefficients_version``,
    ``bottleneck``, ``label``, ``sweep_id``, ``point_index``).
    """
    record = run_record(
        settings=settings,
        kind="simulate",
        scenario_kind=scenario_kind or str(settings.get("kind", "")),
        **run,
    )
    return RunBundle(record, metric_rows(metrics, units), stage_rows(stages), dict(timeseries or {}))
