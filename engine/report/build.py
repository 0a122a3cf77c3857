"""Gather a :class:`~engine.report.model.Report` from projects and stored runs.

>>> from engine.report import build_report, run_from_project, runs_from_store
>>> report = build_report([run_from_project(project)])            # one project, predicted now
>>> report = build_report(runs_from_store(store, [12, 15]))       # two stored runs, compared

Every number comes from the engine (:func:`engine.predict.predict_project`) or
from what the store recorded; nothing is computed for print only, so a report
shows exactly what ``qrtune predict`` and ``qrtune compare`` show.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path

from engine.compare import MetricDelta, SettingDiff, deltas, differing_paths, flatten
from engine.errors import QrtuneError
from engine.limit import RATE_HELD, held_rate_text, limit_of_stages
from engine.metrics.sections import QREP_SECTIONS
from engine.metrics.stages import stage_label
from engine.registry import path_names
from engine.report.model import (
    END2END,
    LATENCY_PARTS,
    MetricGroup,
    MetricValue,
    Report,
    ReportRun,
    RunComparison,
)
from engine.report.settings import rows_from_project, rows_from_settings


def _engine_version() -> str:
    from engine.store.provenance import engine_version  # no duckdb import: the module imports it lazily

    return engine_version()


def _metric_label(metric: str, kind: str | None = None) -> str:
    """What the report calls ``metric`` of an engine ``kind``: a Q Replication flow's names as
    ``qrtune predict`` prints them, else the catalogue's IBM column or report name."""
    from engine.metrics import label

    if kind in (None, "qrep"):
        for _, items in (("Latency", LATENCY_PARTS + (END2END,)), *QREP_SECTIONS):
            named = dict(items)
            if metric in named:
                return named[metric]
    return label(metric, kind)


def group_metrics(
    metrics: dict, units: dict, bands: dict, kind: str | None = None
) -> tuple[MetricGroup, ...]:
    """Metrics of an engine ``kind`` under the headings ``qrtune predict`` uses; the rest under
    "Other results".

    Figures per system (bidirectional, peer-to-peer) are left out: :attr:`ReportRun.systems` has them.
    """
    from engine.perf.qrep.systems import is_system_metric

    groups, shown = [], {m for m in metrics if is_system_metric(m)}
    for heading, items in QREP_SECTIONS if kind in (None, "qrep") else ():
        rows = []
        for metric, label in items:
            value = metrics.get(metric)
            if isinstance(value, (int, float)) and math.isfinite(value):
                shown.add(metric)
                rows.append(
                    MetricValue(
                        metric,
                        _metric_label(metric) if heading == "Latency" else label,
                        float(value),
                        units.get(metric, ""),
                        _band(bands.get(metric)),
                    )
                )
        if rows:
            groups.append(MetricGroup(heading, tuple(rows)))
    rest = [
        MetricValue(m, _metric_label(m, kind), float(v), units.get(m, ""), _band(bands.get(m)))
        for m, v in metrics.items()
        if m not in shown and isinstance(v, (int, float)) and math.isfinite(v)
    ]
    if rest:
        groups.append(MetricGroup("Results" if not groups else "Other results", tuple(rest)))
    return tuple(groups)


def _band(band) -> tuple | None:
    if band is None:
        return None
    lo, hi = band
    return (float(lo), float(hi))


def run_from_project(project, origin: str = "") -> ReportRun:
    """Predict ``project`` now and gather its report section.

    Raises
    ------
    TopologyError, UnsupportedKindError
        The project cannot be predicted (the message says why).
    """
    from engine.predict import ignored_by_node, predict_project
    from engine.scenario import project_to_scenario

    settings = project_to_scenario(project)
    pred = predict_project(project)
    limit = _limit(((s.name, s.utilisation) for s in pred.stages), pred.bottleneck, pred.metrics)
    return ReportRun(
        title=project.name,
        origin=origin or "project predicted for this report",
        run_id=None,
        project=project,
        scenario_kind=pred.kind,
        settings=settings,
        metrics=dict(pred.metrics),
        units=dict(pred.units),
        bands=dict(pred.bands),
        stages=tuple(pred.stages),
        setting_rows=rows_from_project(project),
        groups=group_metrics(pred.metrics, pred.units, pred.bands, pred.kind),
        engine_version=_engine_version(),
        coefficients_version=pred.coefficients_version or "",
        started=None,
        ignored=tuple(ignored_by_node(project, pred)),
        **_systems(pred.metrics, project),
        **limit,
    )


def short_limit(run: ReportRun) -> str:
    """The limit in a table cell: the bottleneck stage, ``"none (rate held)"`` or ``"none"``."""
    return stage_label(run.bottleneck) if run.bottleneck else (RATE_HELD if run.holds_offered else "none")


def _limit(stages: Iterable[tuple[str, float]], bottleneck: str | None, metrics: dict) -> dict:
    """``bottleneck``, ``holds_offered`` and ``limit_text`` of a report run (:mod:`engine.limit`)."""
    limit = limit_of_stages(stages, bottleneck)
    return {
        "bottleneck": limit.bottleneck,
        "holds_offered": limit.holds_offered,
        "limit_text": limit.text(held_rate_text(metrics)),
    }


def _systems(metrics: dict, project) -> dict:
    """``systems`` and ``systems_note`` of a report run (bidirectional, peer-to-peer), named from ``project``."""
    from engine.perf.qrep.systems import systems_of
    from engine.two_way_note import symmetry_note

    systems = systems_of(metrics, project)
    if not systems:
        return {}
    return {"systems": systems, "systems_note": symmetry_note(project) if project is not None else ""}


def run_from_project_file(path: str | Path) -> ReportRun:
    """Load the project file ``path`` and predict it (see :func:`run_from_project`)."""
    from engine import projectfile

    return run_from_project(projectfile.load(path), origin=f"project file {Path(path).name}")


def runs_from_store(store, run_ids: Sequence[int]) -> list[ReportRun]:
    """Report sections of stored runs, in the order of ``run_ids``.

    The project is read back from the store when it kept it (for the diagram and a
    settings table by node); otherwise the table is built from the run's settings.

    Raises
    ------
    UnknownRunError
        Some id names no run.
    QrtuneError
        A run failed (it has no results to report).
    """
    out = []
    for run_id in run_ids:
        data = store.load_run(int(run_id))
        run = data.run
        if run.status != "ok":
            raise QrtuneError(
                f"run {run.id} failed ({run.error or 'no reason recorded'}); it has no results to report"
            )
        settings = json.loads(run.settings_json)
        project = None
        try:
            project = store.load_project(run.project_hash)
        except Exception:  # noqa: BLE001 - older stores or foreign runs: fall back to the settings
            project = None
        metrics = {m.metric: m.value for m in data.metrics}
        units = {m.metric: m.unit for m in data.metrics}
        limit = _limit(((s.name, s.utilisation) for s in data.stages), run.bottleneck, metrics)
        kind = run.scenario_kind or str(settings.get("kind", ""))
        if project is not None and settings.get("kind") == kind:
            from engine.scenario import apply_scenario

            try:  # a sweep point's settings differ from the stored base project
                project = apply_scenario(project, settings)
            except QrtuneError:
                pass
        rows = rows_from_project(project) if project is not None else rows_from_settings(settings, kind)
        out.append(
            ReportRun(
                title=run.project_name,
                origin=f"run {run.id} ({run.kind}) in {Path(str(store.path)).name}",
                run_id=run.id,
                project=project,
                scenario_kind=kind,
                settings=settings,
                metrics=metrics,
                units=units,
                bands={},
                stages=data.stages,
                setting_rows=rows,
                groups=group_metrics(metrics, units, {}, kind),
                engine_version=run.engine_version,
                coefficients_version=run.coefficients_version,
                started=run.started,
                **_systems(metrics, project),
                **limit,
                **_simulated(data, settings),
            )
        )
    return out


def _simulated(data, settings: dict) -> dict:
    """A stored simulation's series over time and its events (:class:`ReportRun` fields); {} for a prediction."""
    if not data.timeseries:
        return {}
    from engine.outage_events import parse_event
    from engine.report.sim_charts import event_spans

    texts = (settings.get("simulation") or {}).get("events") or ()
    events = []
    for text in texts:
        try:
            events.append(parse_event(str(text)))
        except QrtuneError:  # a run recorded by another version: its series still chart
            continue
    return {"timeseries": dict(data.timeseries), "events": tuple(event_spans(events))}


def compare(runs: Sequence[ReportRun]) -> RunComparison:
    """The runs side by side against the first: settings that differ (IBM names) and metric deltas."""
    names = path_names(runs[0].scenario_kind)
    flat = [flatten(r.settings) for r in runs]
    settings = tuple(
        SettingDiff(p, tuple(f.get(p) for f in flat), names.get(p, p)) for p in differing_paths(flat)
    )
    from engine.perf.qrep.systems import is_system_metric

    metric_names = [m.metric for g in runs[0].groups for m in g.rows]  # the reference's reading order
    for r in runs:
        metric_names += [m for m in r.metrics if m not in metric_names and not is_system_metric(m)]
    metrics = []
    for m in metric_names:
        values = _finite_values(r.metrics.get(m) for r in runs)
        unit = next((r.units.get(m) for r in runs if r.units.get(m)), "")
        metrics.append(
            MetricDelta(m, unit, values, *deltas(values), label=_metric_label(m, runs[0].scenario_kind))
        )
    return RunComparison(
        tuple(_unique_labels(runs)),
        settings,
        tuple(metrics),
        tuple(short_limit(r) for r in runs),
        _compare_systems(runs),
    )


def _compare_systems(runs: Sequence[ReportRun]) -> tuple:
    """Each system's figures across the runs (bidirectional, peer-to-peer), named as the first run with systems."""
    from engine.perf.qrep.systems import FIGURES, metric_name

    named = next((r.systems for r in runs if r.systems), ())
    out = []
    for system in named:
        for figure, label, unit in FIGURES:
            name = metric_name(system.index, figure)
            values = tuple(r.metrics.get(name) for r in runs)
            if all(v is None for v in values):
                continue
            values = _finite_values(values)
            out.append(MetricDelta(name, unit, values, *deltas(values), label=label, system=system.label))
    return tuple(out)


def _finite_values(values) -> tuple:
    """The values as floats, None where missing or not finite."""
    return tuple(None if v is None or not math.isfinite(v) else float(v) for v in values)


def _unique_labels(runs: Sequence[ReportRun]) -> list[str]:
    labels = [r.label for r in runs]
    if len(set(labels)) < len(labels):
        labels = [f"{chr(65 + i)}: {lab}" if i < 26 else f"{i + 1}: {lab}" for i, lab in enumerate(labels)]
    return labels


def build_report(
    runs: Iterable[ReportRun],
    title: str = "",
    validation: bool = True,
    scenarios_path: str | Path | None = None,
    created: datetime | None = None,
) -> Report:
    """The report of ``runs`` (at least one): title block, each run, the comparison and the validation score.

    Parameters
    ----------
    runs : iterable of ReportRun
        From :func:`run_from_project`, :func:`run_from_project_file` or :func:`runs_from_store`.
    title : str
        Default: the project name, or "Comparison of N runs".
    validation : bool
        Score the engine against the published measurements (about half a second).
    scenarios_path : str or Path, optional
        The scenarios to score on (default: the bundled published measurements).

    Raises
    ------
    QrtuneError
        No runs.
    """
    runs = tuple(runs)
    if not runs:
        raise QrtuneError("a report needs at least one project or run")
    if not title:
        names = list(dict.fromkeys(r.title for r in runs))
        title = (
            names[0]
            if len(runs) == 1
            else (
                f"{names[0]}: {len(runs)} runs compared"
                if len(names) == 1
                else f"Comparison of {len(runs)} runs"
            )
        )
    return assemble_report(title, runs, validation, scenarios_path, created)


def assemble_report(
    title: str,
    runs: tuple,
    validation: bool,
    scenarios_path: str | Path | None,
    created: datetime | None,
    coefficient_versions: Sequence[str] = (),
    sweep=None,
) -> Report:
    """The :class:`Report` of ``runs`` (compared when several) under ``title``, made now or at ``created``.

    Its coefficient versions are ``coefficient_versions`` then the runs' own, each once; with
    ``validation`` the engine is scored against the published measurements of ``scenarios_path``
    (default: the bundled ones; about half a second). ``sweep``: a sweep section shown first.
    """
    score = None
    if validation:
        from engine.report.validation import score_scenarios  # runs the engines

        score = score_scenarios(scenarios_path)
    versions = [*coefficient_versions, *(r.coefficients_version for r in runs if r.coefficients_version)]
    return Report(
        title=title,
        created=created or datetime.now().replace(microsecond=0),
        engine_version=_engine_version(),
        coefficient_versions=tuple(dict.fromkeys(versions)),
        runs=runs,
        comparison=compare(runs) if len(runs) > 1 else None,
        validation=score,
        sweep=sweep,
    )
