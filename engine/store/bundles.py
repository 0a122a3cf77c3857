"""Runs ready to write: a run's record with its metric, stage and time-series rows.

The one way a run is turned into rows: every front end (``qrtune predict/simulate --db``, the
window's history and Simulation tab, sweeps and studies) builds its :class:`RunBundle` here
(:func:`prediction_bundle`, :func:`failure_bundle`, :mod:`engine.sim.bundle` for
simulations) and hands it to :meth:`engine.store.Store.record_run` or
:meth:`~engine.store.Store.record_runs`, which assign the run ids and write every table
column-wise from the records; the same run gives the same rows whoever records it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from engine.limit import stored_bottleneck
from engine.store.provenance import canonical_json, engine_version, error_text, project_hash, utc_now
from engine.store.records import MetricRow, RunRecord, StageMetricRow


def _float(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def metric_values(metrics: Mapping[str, float], units: Mapping[str, str] | None = None) -> list[tuple]:
    """``(metric, value, unit)`` of each of ``metrics``, the fields of a :class:`MetricRow` but its run;
    a value that is no number becomes NaN."""
    units = units or {}
    return [(name, _float(value), units.get(name, "")) for name, value in metrics.items()]


def stage_values(stages: Iterable) -> list[tuple]:
    """``(stage, capacity, utilisation, latency_ms, unit)`` of objects with ``name``, ``capacity``,
    ``utilisation``, ``latency_ms`` and ``unit``: the fields of a :class:`StageMetricRow` but its run."""
    return [
        (
            s.name,
            _float(s.capacity),
            _float(s.utilisation),
            _float(getattr(s, "latency_ms", 0.0)),
            getattr(s, "unit", ""),
        )
        for s in stages
    ]


def metric_rows(metrics: Mapping[str, float], units: Mapping[str, str] | None = None) -> list[MetricRow]:
    """Metric rows (``run_id`` 0) of ``metrics``, with their units (:func:`metric_values`)."""
    return [MetricRow(0, *v) for v in metric_values(metrics, units)]


def stage_rows(stages: Iterable) -> list[StageMetricRow]:
    """Stage rows (``run_id`` 0) of stage objects (:func:`stage_values`)."""
    return [StageMetricRow(0, *v) for v in stage_values(stages)]


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


def prediction_record(*, prediction, kind: str, **run) -> RunRecord:
    """The :class:`RunRecord` of an engine :class:`~engine.perf.result.Prediction` (its rows aside).

    ``run``: what identifies the run, as for :func:`run_record` (``project_name``,
    ``project_hash_``, ``settings``, ``label``, ``sweep_id``, ``point_index``, ``started``).
    """
    return run_record(
        kind=kind,
        coefficients_version=prediction.coefficients_version or "",
        scenario_kind=prediction.kind,
        bottleneck=stored_bottleneck(prediction),
        **run,
    )


def bundle_from_prediction(*, prediction, kind: str, **run) -> RunBundle:
    """Build a :class:`RunBundle` from an engine :class:`~engine.perf.result.Prediction`
    (``run`` as for :func:`prediction_record`)."""
    record = prediction_record(prediction=prediction, kind=kind, **run)
    return RunBundle(record, metric_rows(prediction.metrics, prediction.units), stage_rows(prediction.stages))


def project_identity(project) -> dict:
    """What identifies ``project`` in a run record: ``project_name`` and ``project_hash_`` (keywords of
    :func:`run_record`)."""
    return {"project_name": project.name, "project_hash_": project_hash(project)}


def scenario_or_empty(project) -> dict:
    """``project_to_scenario(project)``, or {} when the project cannot even be turned into a scenario
    (what a failed run failed on, perhaps)."""
    from engine.scenario import project_to_scenario

    try:
        return project_to_scenario(project)
    except Exception:  # noqa: BLE001 - the settings themselves may be what failed
        return {}


def prediction_bundle(project, prediction, *, kind: str, settings: Mapping | None = None, label: str = ""):
    """The :class:`RunBundle` of a steady-state prediction of ``project``.

    Parameters
    ----------
    project : engine.model.Project
    prediction : engine.perf.result.Prediction
    kind : str
        ``predict`` (CLI), ``gui`` (the window), ``advise``, ``goalseek`` ...
    settings : Mapping, optional
        The scenario settings predicted from; default ``project_to_scenario(project)``.
    label : str
        Text shown in run lists.
    """
    if settings is None:
        from engine.scenario import project_to_scenario

        settings = project_to_scenario(project)
    return bundle_from_prediction(
        prediction=prediction, kind=kind, settings=settings, label=label, **project_identity(project)
    )


def failure_bundle(
    project,
    error: BaseException | str,
    *,
    kind: str,
    settings: Mapping | None = None,
    seed: int | None = None,
    label: str = "",
) -> RunBundle:
    """The :class:`RunBundle` of a run of ``project`` that failed: nothing a user ran is lost.

    ``error`` is the exception raised (kept as ``TypeName: message``) or the message itself;
    ``settings`` default to :func:`scenario_or_empty`; the rest as for :func:`prediction_bundle`.
    """
    message = error_text(error) if isinstance(error, BaseException) else str(error)
    return bundle_failed(
        settings=scenario_or_empty(project) if settings is None else settings,
        error=message,
        kind=kind,
        seed=seed,
        label=label,
        **project_identity(project),
    )


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
