"""The content of a report as plain, immutable records (no Qt, no drawing).

A :class:`Report` holds everything a renderer prints: the title block, one
:class:`ReportRun` per project or stored run (settings table, results grouped
by topic, per-stage utilisation, bottleneck), a :class:`RunComparison` when
there are several runs and a :class:`ValidationScore` of the engine against the
published measurements. :mod:`engine.report.build` fills these records;
``app.report`` renders them to PDF.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime

from engine.compare import MetricDelta, SettingDiff
from engine.metrics.catalog import format_value
from engine.validation_summary import ValidationSummary

#: Latency breakdown of a Q Replication flow: (metric, IBM monitor column name), in pipeline order.
LATENCY_PARTS = (
    ("capture_latency_ms", "CAPTURE_LATENCY"),
    ("qlatency_ms", "QLATENCY"),
    ("apply_latency_ms", "APPLY_LATENCY"),
)
#: The end-to-end latency, the sum of the parts (as IBMQREP_APPLYMON reports it).
END2END = ("end2end_latency_ms", "END2END_LATENCY")


@dataclass(frozen=True)
class SettingRow:
    """One knob in the settings table.

    Attributes
    ----------
    node : str
        The node's label (``"Q Apply"``), or the node kind's name when the run has no project.
    name : str
        IBM's parameter name, upper case (``NUM_APPLY_AGENTS``).
    value, default : str
        The value and the product default, formatted for print.
    unit : str
        Unit of the value ("" when unitless).
    changed : bool
        The value differs from the product default.
    """

    node: str
    name: str
    value: str
    default: str
    unit: str
    changed: bool


@dataclass(frozen=True)
class MetricValue:
    """One result: engine metric name, the label printed, value, unit and optional band (:func:`engine.metrics.bands.band_label`)."""

    metric: str
    label: str
    value: float
    unit: str = ""
    band: tuple | None = None


@dataclass(frozen=True)
class MetricGroup:
    """Results under one heading (Throughput, Latency, CPU ...)."""

    heading: str
    rows: tuple


@dataclass(frozen=True)
class ReportRun:
    """One predicted configuration: a project predicted now, or a run read from the results store.

    Attributes
    ----------
    title : str
        Project name.
    origin : str
        Where it came from (``"project file x.json"``, ``"run 12 in runs.duckdb"``).
    run_id : int or None
        Store run id, when read from a store.
    project : engine.model.Project or None
        The project (for the topology diagram); None when the store does not keep it.
    scenario_kind : str
        ``qrep``, ``db2mirror``, ``mq-mover`` or ``db2-v8-storage``.
    settings : dict
        The scenario settings the engine predicted from.
    metrics, units, bands : dict
        Metric -> value, unit and (low, high) band (the prediction's, :data:`engine.metrics.bands.COVERAGE`).
    stages : tuple[engine.perf.result.StageResult, ...]
        Every stage, as the engine gave it or the store read it back; :meth:`is_bottleneck` marks one.
    bottleneck : str or None
        The stage the views mark as the bottleneck (:attr:`engine.limit.Limit.bottleneck`): the
        busiest resource stage, None when the offered rate is held.
    setting_rows : tuple[SettingRow, ...]
    groups : tuple[MetricGroup, ...]
    engine_version, coefficients_version : str
    started : datetime or None
        When the stored run was made (None for a prediction made for the report).
    ignored : tuple[tuple[str, str, tuple[str, ...]], ...]
        The knobs that cannot change the prediction: ``(node, reason, knob labels)``
        (:func:`engine.predict.ignored_by_node`); empty for a stored run.
    systems : tuple[engine.perf.qrep.systems.SystemFigures, ...]
        Figures per system of a bidirectional or peer-to-peer run (empty otherwise).
    systems_note : str
        How the engine models the two systems (alike, or which settings of the second flow it leaves out).
    holds_offered : bool
        An offered rate is set and carried: ``bottleneck`` is None and ``limit_text`` gives the headroom.
    limit_text : str
        The limit as every view names it (:meth:`engine.limit.Limit.text`): ``"qapply_agents (95% busy)"``
        or ``"none: holds 3,000 rows/s; headroom 393% at qapply_cpu (20% busy)"``.
    timeseries : dict
        A stored simulation's series over time: name -> (t_s, values); empty for a prediction.
    events : tuple of (str, float, float)
        A simulation's outages and slow-downs: kind, start and end (s).
    """

    title: str
    origin: str
    run_id: int | None
    project: object | None
    scenario_kind: str
    settings: dict
    metrics: dict
    units: dict
    bands: dict
    stages: tuple
    bottleneck: str | None
    setting_rows: tuple
    groups: tuple
    engine_version: str
    coefficients_version: str
    started: datetime | None = None
    ignored: tuple = ()
    systems: tuple = ()
    systems_note: str = ""
    holds_offered: bool = False
    limit_text: str = ""
    timeseries: dict = field(default_factory=dict)
    events: tuple = ()

    def is_bottleneck(self, stage) -> bool:
        """``stage`` (one of :attr:`stages`) is the one the views mark as the bottleneck."""
        return self.bottleneck is not None and stage.name == self.bottleneck

    @property
    def label(self) -> str:
        """Short name for comparison columns (``run 12`` or the project name)."""
        return f"run {self.run_id}" if self.run_id is not None else self.title

    @property
    def changed_settings(self) -> tuple:
        """The settings rows whose value differs from the product default."""
        return tuple(r for r in self.setting_rows if r.changed)

    def latency_breakdown(self) -> list[tuple[str, float]]:
        """(IBM name, ms) of CAPTURE_LATENCY, QLATENCY and APPLY_LATENCY that the run has (finite values)."""
        out = []
        for metric, name in LATENCY_PARTS:
            v = self.metrics.get(metric)
            if isinstance(v, (int, float)) and math.isfinite(v):
                out.append((name, float(v)))
        return out


@dataclass(frozen=True)
class RunComparison:
    """Several runs side by side; the first is the reference.

    The rows are the records of :mod:`engine.compare`, labelled for print: ``settings`` carry
    IBM's names, ``metrics`` their labels. ``bottlenecks`` holds each run's limit as a table cell
    (:func:`engine.report.build.short_limit`). ``systems`` holds the figures per system of
    bidirectional and peer-to-peer runs (``system`` set), apart from ``metrics``.
    """

    labels: tuple[str, ...]
    settings: tuple[SettingDiff, ...]
    metrics: tuple[MetricDelta, ...]
    bottlenecks: tuple[str, ...]
    systems: tuple[MetricDelta, ...] = ()


@dataclass(frozen=True)
class ValidationScore(ValidationSummary):
    """How the engine scores against the published measurements of one scenarios file.

    The figures of :class:`engine.validation_summary.ValidationSummary` (computed there, the
    same the Validation view and ``../shared/validation/score.py`` show), plus:

    Attributes
    ----------
    source : str
        The scenarios file scored (its name).
    """

    source: str = ""

    @property
    def not_predicted(self) -> tuple:
        """(scenario id, the engine's reason) for scenarios without a prediction (``errors``)."""
        return self.errors


@dataclass(frozen=True)
class Report:
    """Everything a report shows.

    Attributes
    ----------
    title : str
        Printed at the top of the first page, in every page footer and in the PDF's metadata.
    created : datetime
        When the report was made (local time).
    engine_version : str
        qrtune version making the report.
    coefficient_versions : tuple[str, ...]
        Distinct coefficient versions of the runs.
    runs : tuple[ReportRun, ...]
    comparison : RunComparison or None
        Present with two or more runs.
    validation : ValidationScore or None
    sweep : engine.report.sweep.SweepSection or None
        A recorded sweep, reported first (``qrtune report --sweep ID``); ``runs`` may then be empty.
    """

    title: str
    created: datetime
    engine_version: str
    coefficient_versions: tuple[str, ...]
    runs: tuple[ReportRun, ...]
    comparison: RunComparison | None = None
    validation: ValidationScore | None = None
    sweep: object | None = None


def format_delta(value: float | None, pct: bool = False) -> str:
    """A signed delta (``+1,200`` or ``+12.5%``); ``-`` when undefined."""
    if value is None or not math.isfinite(value):
        return "-"
    if pct:
        return f"{value:+.1f}%"
    text = format_value(float(value))
    return text if text.startswith("-") else "+" + text
