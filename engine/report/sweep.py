"""The content of a sweep report (``qrtune report --sweep ID``): a recorded sweep as plain records.

:func:`sweep_section` reads one sweep back from the results store: its axes (IBM names,
units, the nodes set, the values), every point with its throughput, latencies, CPU busy
and bottleneck, the base project's settings with the swept knobs marked, and the pick
of :func:`engine.studies.sweep_pick.choose` (the same the workbench's Sweep view names: the
fewest values reaching the best throughput, or the project's target rate, with every
CPU under 90%; with a second knob, one pick per value of it). :func:`build_sweep_report`
wraps it in a :class:`~engine.report.model.Report` (title block versions, the
validation score, optionally runs or projects reported after it); ``app.report``
renders it. Nothing is predicted here: every number is what the sweep recorded.

>>> with Store.open(path, read_only=True) as store:
...     report = build_sweep_report(sweep_section(store, 3))
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from engine.errors import QrtuneError
from engine.limit import bottleneck_label
from engine.metrics.catalog import format_number, format_setting
from engine.registry import KINDS
from engine.report.build import _metric_label, assemble_report
from engine.report.model import Report, SettingRow
from engine.report.settings import rows_from_project
from engine.studies.sweep import knob_spec, point_values
from engine.studies.sweep_pick import LATENCY_METRICS, choose, cpu_metrics, rate_metrics, target_rate

#: Latency metrics of the chart, the first present (APPLY_LATENCY is what more agents change).
CHART_LATENCY_METRICS = ("apply_latency_ms", "response_time_ms", "end2end_latency_ms")


class UnknownSweepError(QrtuneError):
    """A sweep id names no sweep of the store (or one without recorded points)."""


@dataclass(frozen=True)
class SweepAxisInfo:
    """One swept knob.

    Attributes
    ----------
    name : str
        ``target.param`` as written on the command line (``qapply.num_apply_agents``).
    param : str
        Knob name (``num_apply_agents``).
    label : str
        IBM's parameter name (``NUM_APPLY_AGENTS``).
    unit : str
        Unit of the values ("" when unitless).
    nodes : tuple[str, ...]
        Labels of the nodes the value is set on.
    values : tuple
        The values, in sweep order.
    """

    name: str
    param: str
    label: str
    unit: str
    nodes: tuple
    values: tuple

    @property
    def values_text(self) -> str:
        """``1 .. 16`` for a run of consecutive integers, else the list (long lists shortened)."""
        return values_text(self.values)


@dataclass(frozen=True)
class SweepPointRow:
    """One recorded point of a sweep.

    Attributes
    ----------
    index : int
        Position in the cartesian product (the last knob varies fastest).
    values : tuple
        The value of every axis, in axis order.
    run_id : int or None
        The point's run in the store.
    metrics, units : dict
        Metric -> value and unit (empty when the point failed).
    bottleneck : str or None
    error : str
        Why the point failed, or "".
    """

    index: int
    values: tuple
    run_id: int | None
    metrics: dict
    units: dict
    bottleneck: str | None
    error: str = ""

    @property
    def value(self):
        """Value of the first knob (the x axis)."""
        return self.values[0]

    @property
    def series(self) -> tuple:
        """Values of the other knobs (one curve per combination); () for a one-knob sweep."""
        return tuple(self.values[1:])


@dataclass(frozen=True)
class SweepSettingRow:
    """A row of the base project's settings table: the knob, and the values the sweep gave it ("" if not swept)."""

    setting: SettingRow
    swept: str = ""


@dataclass(frozen=True)
class SweepSection:
    """A recorded sweep, ready to print.

    Attributes
    ----------
    sweep_id : int
        The sweep's id in the store (``qrtune runs --sweeps`` lists them).
    store : str
        File name of the results store.
    project_name : str
    project : engine.model.Project or None
        The base project (None when the store did not keep it).
    started : datetime
        When the sweep was started (UTC).
    n_points, n_done, n_failed : int
        Size of the cartesian product, points recorded, of those failed.
    axes : tuple[SweepAxisInfo, ...]
        The first axis is the x axis; every other combination is one curve.
    points : tuple[SweepPointRow, ...]
        Recorded points in sweep order.
    rate_metric : str or None
        The throughput metric (``apply_rows_per_s``).
    latency_metric : str or None
        The latency charted (``apply_latency_ms``).
    latency_metrics : tuple[str, ...]
        Latencies in the table of points.
    cpu_metrics : tuple[str, ...]
        CPU busy metrics (percent).
    units : dict
        Metric -> unit.
    labels : dict
        Metric -> label printed (IBM names for latencies).
    target_rate : float or None
        The project's target rate (rows/s), when it sets one the sweep does not vary.
    picks : tuple[tuple[tuple, Pick or None], ...]
        (series values, pick) per curve; one entry ``((), pick)`` for a one-knob sweep;
        a pick is None where it does not apply (values that are not numbers).
    setting_rows : tuple[SweepSettingRow, ...]
        The base project's settings, swept knobs marked.
    engine_versions, coefficients_versions : tuple[str, ...]
        Distinct versions the points were predicted with.
    """

    sweep_id: int
    store: str
    project_name: str
    project: object | None
    started: datetime | None
    n_points: int
    n_done: int
    n_failed: int
    axes: tuple
    points: tuple
    rate_metric: str | None
    latency_metric: str | None
    latency_metrics: tuple
    cpu_metrics: tuple
    units: dict
    labels: dict
    target_rate: float | None
    picks: tuple
    setting_rows: tuple
    engine_versions: tuple
    coefficients_versions: tuple

    @property
    def knob_names(self) -> str:
        """``NUM_APPLY_AGENTS`` or ``NUM_APPLY_AGENTS x TRANS_BATCH_SZ``."""
        return " x ".join(a.label for a in self.axes)

    @property
    def ok_points(self) -> tuple:
        """The points that have results."""
        return tuple(p for p in self.points if not p.error)

    @property
    def series(self) -> list[tuple]:
        """Values of the other knobs of each curve, in sweep order ([()] for a one-knob sweep)."""
        return list(dict.fromkeys(p.series for p in self.points)) or [()]

    def series_label(self, series: tuple) -> str:
        """``TRANS_BATCH_SZ=3`` (the other knobs' names and values of one curve); "" for ()."""
        return ", ".join(f"{a.label}={format_setting(v)}" for a, v in zip(self.axes[1:], series))

    @property
    def picked_indexes(self) -> set[int]:
        """Point indexes of the picks."""
        return {p.point.index for _, p in self.picks if p is not None and p.point is not None}

    @property
    def rate_note(self) -> str:
        """The rate the points were predicted at (:func:`rate_note`)."""
        return rate_note(self.target_rate)

    def busiest_cpu(self, point: SweepPointRow) -> float | None:
        """The highest CPU busy metric of ``point``, percent."""
        values = [point.metrics[m] for m in self.cpu_metrics if _finite(point.metrics.get(m))]
        return max(values) if values else None


def rate_note(target_rows_per_s: float | None) -> str:
    """The rate a sweep's points were predicted at, for its latency chart: ``at the target rate,
    2,400 rows/s`` or ``at each point's maximum sustainable rate`` (latency at capacity)."""
    if target_rows_per_s:
        return f"at the target rate, {format_number(target_rows_per_s)} rows/s"
    return "at each point's maximum sustainable rate"


def values_text(values: Sequence, limit: int = 12) -> str:
    """``1 .. 16`` for consecutive integers, ``1 .. 64 step 2`` for an even step, else a list (shortened)."""
    vals = list(values)
    ints = all(isinstance(v, int) and not isinstance(v, bool) for v in vals)
    if ints and len(vals) >= 3:
        steps = {b - a for a, b in itertools.pairwise(vals)}
        if len(steps) == 1:
            step = steps.pop()
            if step == 1:
                return f"{vals[0]} .. {vals[-1]}"
            if step > 0:
                return f"{vals[0]} .. {vals[-1]} step {step}"
    texts = [format_setting(v) for v in vals]
    if len(texts) > limit:
        texts = texts[: limit - 2] + ["...", texts[-1]]
    return ", ".join(texts)


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _find_sweep(store, sweep_id: int) -> dict:
    sweeps = store.list_sweeps()
    for s in sweeps:
        if s["id"] == sweep_id:
            return s
    known = ", ".join(str(s["id"]) for s in sorted(sweeps, key=lambda s: s["id"])[-10:]) or "none"
    raise UnknownSweepError(
        f"--sweep: no sweep {sweep_id} in the store {store.path} (sweeps there: {known}; "
        f"list them with qrtune runs --sweeps --db {store.path})"
    )


def sweep_section(store, sweep_id: int) -> SweepSection:
    """Read sweep ``sweep_id`` back from ``store`` (open, read-only is enough).

    Raises
    ------
    UnknownSweepError
        No such sweep, or none of its points is recorded yet (the message names the id).
    """
    info = _find_sweep(store, int(sweep_id))
    stored = store.sweep_points(info["id"])
    runs = [p.run for p in stored]
    if not runs:
        raise UnknownSweepError(
            f"--sweep: sweep {sweep_id} has no recorded points yet (run its qrtune sweep "
            "command again to resume it)"
        )
    project = _stored_project(store, runs[0].project_hash)
    axes = tuple(_axis_info(a, project) for a in info["axes"])
    points = [
        SweepPointRow(
            p.run.point_index,
            point_values(axes, p.run.point_index),
            p.run.id,
            p.metrics,
            p.units,
            bottleneck_label(p.run.bottleneck),
            p.run.failure,
        )
        for p in stored
    ]
    return _section(
        points,
        axes,
        project,
        target_rate(project, {a.param for a in axes}),
        sweep_id=info["id"],
        store=Path(str(store.path)).name,
        project_name=info["project_name"],
        started=info.get("started"),
        n_points=info["n_points"],
        setting_rows=_setting_rows(project, info["axes"], axes),
        engine_versions=_distinct(r.engine_version for r in runs),
        coefficients_versions=_distinct(r.coefficients_version for r in runs),
    )


def _section(points: list, axes: tuple, project, target: float | None, **recorded) -> SweepSection:
    """A :class:`SweepSection` of ``points``: the charted metrics, units, labels and picks worked out,
    ``recorded`` the fields the store knows (id, file, name, start, size, settings, versions)."""
    ok = [p for p in points if not p.error]
    names = {k for p in ok for k in p.metrics}
    rate, latency, lats, cpus = _chart_metrics(names)
    series = list(dict.fromkeys(p.series for p in points)) or [()]
    picks = tuple((s, choose([p for p in ok if p.series == s], axes[0].label, target)) for s in series)
    return SweepSection(
        project=project,
        n_done=len(points),
        n_failed=sum(1 for p in points if p.error),
        axes=axes,
        points=tuple(points),
        rate_metric=rate,
        latency_metric=latency,
        latency_metrics=lats,
        cpu_metrics=cpus,
        units=_first_units(ok),
        labels={m: _metric_label(m) for m in names},
        target_rate=target,
        picks=picks,
        **recorded,
    )


def section_of_points(points: Sequence, axis_names: Sequence[str], project=None) -> SweepSection:
    """The sweep of ``points`` not yet read back from a store (the points a sweep has streamed so far).

    Parameters
    ----------
    points : sequence
        Each with ``index``, ``value`` (of the first knob), ``series`` (of the others), ``run_id``,
        ``metrics``, ``units``, ``bottleneck`` and ``error`` (:class:`app.tasks.SweepPoint`).
    axis_names : sequence of str
        ``target.param`` of each knob, the first the x axis.
    project : engine.model.Project, optional
        The project swept: its target rate is the pick's goal, its knobs name the axes.
    """
    rows = [
        SweepPointRow(
            p.index,
            (p.value, *p.series),
            p.run_id,
            p.metrics,
            p.units,
            bottleneck_label(p.bottleneck),
            p.error,
        )
        for p in sorted(points, key=lambda p: p.index)
    ]
    axes = tuple(
        _axis_info(
            {
                "target": name.rpartition(".")[0],
                "param": name.rpartition(".")[2],
                "values": _distinct_values(r.values[i] for r in rows),
            },
            project,
        )
        for i, name in enumerate(axis_names)
    )
    target = target_rate(project, {a.param for a in axes}) if project is not None else None
    return _section(
        rows,
        axes,
        project,
        target,
        sweep_id=0,
        store="",
        project_name=getattr(project, "name", ""),
        started=None,
        n_points=len(rows),
        setting_rows=(),
        engine_versions=(),
        coefficients_versions=(),
    )


def _distinct_values(values) -> tuple:
    """Each value once, in first-seen order."""
    return tuple(dict.fromkeys(values))


def _stored_project(store, project_hash: str):
    """The sweep's base project, or None in an older store that did not keep it (the axes still name the knobs)."""
    try:
        return store.load_project(project_hash)
    except QrtuneError:
        return None


def _first_units(points: list) -> dict:
    """Metric -> the first non-empty unit the points recorded for it."""
    units: dict = {}
    for p in points:
        for k, u in p.units.items():
            if u and k not in units:
                units[k] = u
    return units


def _chart_metrics(names: set) -> tuple:
    """The metrics the charts show: (rate, latency, latencies, CPU busy ones), each None or () when absent."""
    rates = rate_metrics(names)
    lat_chart = next((m for m in CHART_LATENCY_METRICS if m in names), None)
    lats = tuple(
        dict.fromkeys(
            [m for m in (lat_chart, "end2end_latency_ms") if m in names]
            or [m for m in LATENCY_METRICS if m in names][:2]
        )
    )
    latency = lat_chart or (lats[0] if lats else None)
    return (rates[0] if rates else None), latency, lats, tuple(cpu_metrics(names))


def _distinct(values) -> tuple:
    """The non-empty values, each once, in first-seen order."""
    return tuple(dict.fromkeys(v for v in values if v))


def _axis_info(axis: dict, project) -> SweepAxisInfo:
    """IBM name, unit and node labels of a stored axis (``target``, ``param``, ``node_ids``, ``values``)."""
    param, node_ids = axis["param"], list(axis.get("node_ids", []))
    nodes = tuple(node_ids)
    if project is not None:
        by_id = {n.id: n for n in project.nodes}
        found = [by_id[i] for i in node_ids if i in by_id]
        if found:
            nodes = tuple(n.label for n in found)
    spec = knob_spec(axis["target"], param, project)
    label, unit = (spec.label, spec.unit) if spec is not None else (axis.get("label", param.upper()), "")
    return SweepAxisInfo(f"{axis['target']}.{param}", param, label, unit, nodes, tuple(axis["values"]))


def _setting_rows(project, raw_axes: list, axes: Sequence[SweepAxisInfo]) -> tuple:
    """The base project's settings (:func:`engine.report.settings.rows_from_project`), swept knobs marked."""
    if project is None:
        return ()
    swept = {
        (node_id, a["param"]): info.values_text
        for a, info in zip(raw_axes, axes)
        for node_id in a["node_ids"]
    }
    keys = [(node.id, spec.name) for node in project.nodes for spec in KINDS[node.kind].params]
    rows = rows_from_project(project)  # the same order: every node, then its kind's knobs
    return tuple(SweepSettingRow(row, swept.get(key, "")) for row, key in zip(rows, keys))


def build_sweep_report(
    section: SweepSection,
    runs: Iterable = (),
    title: str = "",
    validation: bool = True,
    scenarios_path: str | Path | None = None,
    created: datetime | None = None,
) -> Report:
    """The report of a sweep: ``section`` first, then any ``runs`` (:class:`~engine.report.model.ReportRun`,
    compared when several) and the engine's score against the published measurements.

    Parameters
    ----------
    section : SweepSection
        From :func:`sweep_section`.
    runs : iterable of ReportRun
        Projects or stored runs to report after the sweep (e.g. the configuration picked).
    title : str
        Default: ``"<project>: <KNOB> sweep"``.
    validation : bool
        Score the engine against the published measurements (about half a second).
    """
    return assemble_report(
        title or f"{section.project_name}: {section.knob_names} sweep",
        tuple(runs),
        validation,
        scenarios_path,
        created,
        section.coefficients_versions,
        sweep=section,
    )


__all__ = [
    "SweepAxisInfo",
    "SweepPointRow",
    "SweepSection",
    "SweepSettingRow",
    "UnknownSweepError",
    "build_sweep_report",
    "rate_note",
    "section_of_points",
    "sweep_section",
    "values_text",
]
