"""Comparing stored runs: the settings that differ and every metric side by side.

:func:`compare_runs` reads runs from a :class:`~engine.store.Store` and returns a
:class:`Comparison`: for each settings path whose value differs between the runs,
the values; for each metric any run has, the values, and the absolute and percent
deltas of every run against the first (the reference). The figures per system of
bidirectional and peer-to-peer runs (``system1_...``, :mod:`engine.perf.qrep.systems`)
are kept apart in :attr:`Comparison.systems`, named after the stored project's nodes
(``Db2 A``). Format it with :func:`format_table`, :func:`format_csv` or
:meth:`Comparison.to_json`.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from engine.errors import QrtuneError
from engine.io.csvcell import text_cell
from engine.limit import bottleneck_label
from engine.metrics.catalog import format_number
from engine.metrics.stages import stage_label
from engine.registry import path_names

if TYPE_CHECKING:
    from engine.store.records import RunRecord


@dataclass(frozen=True)
class SettingDiff:
    """One settings path whose value differs between the runs.

    Attributes
    ----------
    path : str
        Dotted path in the settings (``qapply.num_apply_agents``).
    values : tuple
        The value in each run, in run order (None when a run lacks the path).
    name : str
        IBM's name of the setting (``NUM_APPLY_AGENTS``) where a report shows it; "" otherwise.
    """

    path: str
    values: tuple
    name: str = ""


@dataclass(frozen=True)
class MetricDelta:
    """One metric across the runs.

    Attributes
    ----------
    metric : str
        The metric's catalogue name (``end2end_latency_ms``).
    unit : str
        Unit of ``values`` and ``abs_delta`` (``ms``).
    values : tuple[float | None, ...]
        Value per run (None when a run lacks the metric).
    abs_delta : tuple[float | None, ...]
        ``value - reference`` per run (the first entry is 0 or None).
    pct_delta : tuple[float | None, ...]
        ``100 * (value - reference) / |reference|`` per run; None when the reference is 0 or missing.
    label : str
        The metric's or figure's label where one is shown (``CPU per row captured or applied``).
    system : str
        The system of a per-system figure of a two-way configuration (``Db2 A``; ``system 1``
        when the store does not keep the project); "" for other metrics.
    """

    metric: str
    unit: str
    values: tuple[float | None, ...]
    abs_delta: tuple[float | None, ...]
    pct_delta: tuple[float | None, ...]
    label: str = ""
    system: str = ""


@dataclass(frozen=True)
class Comparison:
    """Runs compared against the first.

    Attributes
    ----------
    run_ids : tuple[int, ...]
    runs : tuple[RunRecord, ...]
    settings : tuple[SettingDiff, ...]
        Only the settings paths that differ.
    metrics : tuple[MetricDelta, ...]
        Every metric of any run, in the reference run's order then the others'.
        System figures (``system1_...``) are not among them: see ``systems``.
    bottlenecks : tuple[str | None, ...]
    stages : tuple[MetricDelta, ...]
        Per pipeline stage, its utilisation (``<stage> utilisation``, %) and capacity
        (``<stage> capacity``, in the stage's unit), with deltas like the metrics.
    systems : tuple[MetricDelta, ...]
        Figures per system of bidirectional and peer-to-peer runs, system by system in
        figure order, with deltas like the metrics (empty when no run has them).
    """

    run_ids: tuple[int, ...]
    runs: tuple[RunRecord, ...]
    settings: tuple[SettingDiff, ...]
    metrics: tuple[MetricDelta, ...]
    bottlenecks: tuple[str | None, ...]
    stages: tuple[MetricDelta, ...] = ()
    systems: tuple[MetricDelta, ...] = ()

    def metric(self, name: str) -> MetricDelta:
        """The :class:`MetricDelta` of ``name``; raises KeyError when no run has it."""
        return {m.metric: m for m in self.metrics}[name]

    def to_json(self) -> dict:
        """Plain data for JSON output (NaN becomes null)."""
        return {
            "runs": [
                {
                    "id": r.id,
                    "project": r.project_name,
                    "kind": r.kind,
                    "started": r.started.isoformat(),
                    "label": r.label,
                    "bottleneck": r.bottleneck,
                    "status": r.status,
                }
                for r in self.runs
            ],
            "settings_that_differ": [{"path": s.path, "values": list(s.values)} for s in self.settings],
            "metrics": [
                {
                    "metric": m.metric,
                    "unit": m.unit,
                    "values": _clean(m.values),
                    "abs_delta": _clean(m.abs_delta),
                    "pct_delta": _clean(m.pct_delta),
                }
                for m in self.metrics
            ],
            "stages": [
                {
                    "metric": m.metric,
                    "unit": m.unit,
                    "values": _clean(m.values),
                    "abs_delta": _clean(m.abs_delta),
                    "pct_delta": _clean(m.pct_delta),
                }
                for m in self.stages
            ],
            "systems": [
                {
                    "metric": m.metric,
                    "system": m.system,
                    "figure": m.label,
                    "unit": m.unit,
                    "values": _clean(m.values),
                    "abs_delta": _clean(m.abs_delta),
                    "pct_delta": _clean(m.pct_delta),
                }
                for m in self.systems
            ],
        }


def _clean(values: tuple) -> list:
    return [None if v is None or (isinstance(v, float) and not math.isfinite(v)) else v for v in values]


def flatten(settings: Any, prefix: str = "") -> dict[str, Any]:
    """Dotted path -> leaf value of nested settings (lists and column maps stay whole)."""
    out: dict[str, Any] = {}
    if isinstance(settings, dict) and settings and not prefix.endswith("columns"):
        for key, value in settings.items():
            out.update(flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    else:
        out[prefix] = settings
    return out


#: Values closer than this share of their size are the same value computed two ways.
ROUND_OFF = 1e-9


def delta(value: float | None, ref: float | None) -> tuple[float | None, float | None]:
    """``value`` against ``ref``: the absolute and the percentage change (None where either is missing or not
    finite; the percentage also when ``ref`` is 0)."""
    if value is None or ref is None or not math.isfinite(value) or not math.isfinite(ref):
        return None, None
    absolute = value - ref
    if abs(absolute) <= ROUND_OFF * max(abs(value), abs(ref)):
        absolute = 0.0  # equal but for floating-point round-off (7.1e-15 msgs)
    pct = None if ref == 0 else 100.0 * absolute / abs(ref)
    return absolute, pct


def deltas(values: tuple) -> tuple[tuple, tuple]:
    """Absolute and percentage changes of every value against the first (see :func:`delta`)."""
    pairs = [delta(v, values[0]) for v in values]
    return tuple(d[0] for d in pairs), tuple(d[1] for d in pairs)


#: Settings paths that identify a run rather than configure it.
_IGNORED_PATHS = {"id"}


def differing_paths(flat: list[dict]) -> list[str]:
    """Paths of the flattened settings (:func:`flatten`, first-seen order, run ids left out) whose value in
    some run differs from the first run's (compared as JSON)."""
    return [p for p in _first_seen(flat, skip=_IGNORED_PATHS) if _differs(flat, p)]


def compare_runs(store, run_ids: Sequence[int]) -> Comparison:
    """Compare ``run_ids`` (at least two) of ``store`` against the first.

    Raises
    ------
    QrtuneError
        Fewer than two run ids.
    UnknownRunError
        Some id names no run.
    """
    from engine.perf.qrep.systems import is_system_metric  # loads the Q Replication engine

    ids = [int(i) for i in run_ids]
    if len(ids) < 2:
        raise QrtuneError(f"compare needs at least two run ids, got {len(ids)}")
    runs = store.get_runs(ids)
    flat = [flatten(json.loads(r.settings_json)) for r in runs]
    settings = tuple(SettingDiff(p, tuple(f.get(p) for f in flat)) for p in differing_paths(flat))
    by_run = store.metrics_of(ids)
    names = _first_seen(by_run[i] for i in ids)
    metrics = tuple(
        _cells_row(name, [by_run[i].get(name) for i in ids]) for name in names if not is_system_metric(name)
    )
    return Comparison(
        tuple(ids),
        tuple(runs),
        settings,
        metrics,
        tuple(r.bottleneck for r in runs),
        _stage_deltas(store, ids),
        _system_deltas(store, runs, by_run, names),
    )


def _first_seen(groups, skip=frozenset()) -> list:
    """The items of ``groups`` (iterables) in first-seen order, each once, leaving out ``skip``."""
    return list(dict.fromkeys(x for group in groups for x in group if x not in skip))


def _differs(flat: list[dict], path: str) -> bool:
    """Whether any run's setting at ``path`` differs from the first run's (compared as JSON)."""
    first = json.dumps(flat[0].get(path), sort_keys=True)
    return any(json.dumps(f.get(path), sort_keys=True) != first for f in flat[1:])


def _cells_row(name: str, cells: list) -> MetricDelta:
    """A metric's row from its stored ``(value, unit)`` cells per run (None where a run lacks it)."""
    values = tuple(None if c is None else c[0] for c in cells)
    unit = next((c[1] for c in cells if c is not None and c[1]), "")
    return _delta_row(name, unit, values)


def _system_project(store, runs: list, by_run: dict):
    """The stored project of the first run with system figures (it names the systems), or None."""
    from engine.perf.qrep.systems import is_system_metric

    for run in runs:
        if any(is_system_metric(n) for n in by_run[run.id]) and hasattr(store, "load_project"):
            try:
                return store.load_project(run.project_hash)
            except Exception:  # noqa: BLE001 - a store without the project: systems keep generic names
                return None
    return None


def _system_deltas(store, runs: list, by_run: dict, names: list) -> tuple:
    """Figures per system (bidirectional, peer-to-peer) of every run, system by system in figure order."""
    from engine.perf.qrep.systems import FIGURE_LABELS, FIGURE_NAMES, metric_name, parse_metric, system_nodes

    indices = sorted({p[0] for p in map(parse_metric, names) if p is not None})
    if not indices:
        return ()
    nodes = system_nodes(_system_project(store, runs, by_run))
    out = []
    for k in indices:
        system = nodes[k - 1][1] if k - 1 < len(nodes) else f"system {k}"
        for figure in FIGURE_NAMES:
            name = metric_name(k, figure)
            if name not in names:
                continue
            row = _cells_row(name, [by_run[r.id].get(name) for r in runs])
            out.append(replace(row, label=FIGURE_LABELS[figure], system=system))
    return tuple(out)


def _delta_row(name: str, unit: str, values: tuple) -> MetricDelta:
    return MetricDelta(name, unit, values, *deltas(values))


def _stage_deltas(store, ids: list[int]) -> tuple:
    """Utilisation (%) and capacity of every stage any run has, in the first run's stage order."""
    if not hasattr(store, "stages_of"):
        return ()
    by_run: dict[int, dict] = {}
    for i, rows in store.stages_of(ids).items():
        named: dict = {}
        for s in rows:  # a stage name seen twice in one run (one per flow) stays two rows: "name #2"
            key, k = s.name, 2
            while key in named:
                key, k = f"{s.name} #{k}", k + 1
            named[key] = s
        by_run[i] = named
    names: list[str] = []
    for i in ids:
        names += [n for n in by_run[i] if n not in names]
    out = []
    for name in names:
        cells = [by_run[i].get(name) for i in ids]
        unit = next((c.unit for c in cells if c is not None and c.unit), "")
        out.append(
            _delta_row(
                f"{name} utilisation",
                "%",
                tuple(None if c is None or c.utilisation is None else 100.0 * c.utilisation for c in cells),
            )
        )
        out.append(
            _delta_row(f"{name} capacity", unit, tuple(None if c is None else c.capacity for c in cells))
        )
    return tuple(out)


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return format_number(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    return str(value)


def _fmt_pct(value: float | None) -> str:
    return "-" if value is None else f"{value:+.1f}%"


def mixed_engines_note(runs: Sequence) -> str:
    """What to tell a user comparing runs of different engines (``qrep`` and ``db2mirror``); "" for one."""
    kinds = list(dict.fromkeys(r.scenario_kind for r in runs))
    if len(kinds) < 2:
        return ""
    return f"the runs come from different engines ({', '.join(kinds)}): a metric they share may not measure the same thing"


def _stage_text(row_name: str) -> str:
    """A stage row's name as a user reads it (``Q Apply agents #2`` for the second ``qapply_agents``)."""
    stage, sep, n = row_name.partition(" #")
    return stage_label(stage) + sep + n


def format_table(comparison: Comparison) -> str:
    """A readable table: settings that differ, then metrics with deltas against the first run.

    Settings and metrics read as IBM names them (``NUM_APPLY_AGENTS``, ``END2END_LATENCY``), a
    setting with its path for ``--set`` too; ``--json`` and ``--csv`` keep the engine's keys.
    """
    from engine.metrics import label as metric_label

    ids = comparison.run_ids
    head = [f"run {i}" for i in ids]
    kind = comparison.runs[0].scenario_kind  # the reference run's engine names settings and metrics
    note = mixed_engines_note(comparison.runs)
    lines = (
        ["Runs"]
        + [
            f"  {r.id:>6}  {r.kind:<8} {r.started:%Y-%m-%d %H:%M:%S}  {r.project_name}  {r.label}".rstrip()
            for r in comparison.runs
        ]
        + [""]
    )
    if note:
        lines += [f"note: {note}", ""]
    names = path_names(kind)
    if comparison.settings:
        lines.append("Settings that differ")
        lines += _grid(
            [["setting", "path", *head]]
            + [[names.get(s.path, ""), s.path, *(_fmt(v) for v in s.values)] for s in comparison.settings],
            left=2,
        )
    else:
        lines.append("Settings: identical")
    lines += ["", f"Metrics (deltas against run {ids[0]})"]
    rows = [["metric", "unit", *_delta_head(ids)]] + [
        [metric_label(m.metric, kind), m.unit, *_delta_cells(m)] for m in comparison.metrics
    ]
    rows.append(
        [
            "bottleneck",
            "",
            *(bottleneck_label(b) or "none" for b in comparison.bottlenecks),
            *([""] * (2 * (len(ids) - 1))),
        ]
    )
    lines += _grid(rows, left=2)
    if comparison.systems:
        lines += ["", f"Systems (bidirectional and peer-to-peer; deltas against run {ids[0]})"]
        lines += _grid(
            [["system", "figure", "unit", *_delta_head(ids)]]
            + [[m.system, m.label, m.unit, *_delta_cells(m)] for m in comparison.systems],
            left=3,
        )
    if comparison.stages:
        lines += ["", "Stages"]
        lines += _grid(
            [["stage", "unit", *_delta_head(ids)]]
            + [[_stage_text(m.metric), m.unit, *_delta_cells(m)] for m in comparison.stages],
            left=2,
        )
    return "\n".join(lines)


def _delta_head(ids: tuple) -> list[str]:
    """Column headings of the values and of the deltas against the first run (absolute, then %)."""
    return [*(f"run {i}" for i in ids), *(f"d {i}" for i in ids[1:]), *(f"d% {i}" for i in ids[1:])]


def _delta_cells(m) -> list[str]:
    """A row's values, then its deltas against the first run (absolute, then %), as printed."""
    return [
        *(_fmt(v) for v in m.values),
        *(_fmt(v) for v in m.abs_delta[1:]),
        *(_fmt_pct(v) for v in m.pct_delta[1:]),
    ]


def _grid(rows: list[list[str]], left: int = 1) -> list[str]:
    """Align ``rows`` in columns; the first ``left`` columns flush left, the rest flush right."""
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    out = []
    for k, r in enumerate(rows):
        cells = [r[c].ljust(widths[c]) if c < left else r[c].rjust(widths[c]) for c in range(len(r))]
        out.append("  " + "  ".join(cells).rstrip())
        if k == 0:
            out.append("  " + "  ".join("-" * w for w in widths))
    return out


def format_csv(comparison: Comparison) -> str:
    """CSV: one row per setting that differs, per metric, per system figure and per stage figure (section, name,
    unit, values, deltas)."""
    ids = comparison.run_ids
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        [
            "section",
            "name",
            "unit",
            *(f"run_{i}" for i in ids),
            *(f"abs_delta_{i}" for i in ids[1:]),
            *(f"pct_delta_{i}" for i in ids[1:]),
        ]
    )
    for s in comparison.settings:
        w.writerow(
            [
                "setting",
                text_cell(s.path),
                "",
                *(_csv_value(v) for v in s.values),
                *([""] * (2 * (len(ids) - 1))),
            ]
        )
    for section, rows in (
        ("metric", comparison.metrics),
        ("system", comparison.systems),
        ("stage", comparison.stages),
    ):
        for m in rows:
            w.writerow(
                [
                    section,
                    m.metric,
                    m.unit,
                    *(_csv_value(v) for v in m.values),
                    *(_csv_value(v) for v in m.abs_delta[1:]),
                    *(_csv_value(v) for v in m.pct_delta[1:]),
                ]
            )
    return buf.getvalue()


def _csv_value(value: Any) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    if isinstance(value, float):
        return repr(value)
    return text_cell(str(value)) if isinstance(value, str) else str(value)


__all__ = [
    "Comparison",
    "MetricDelta",
    "SettingDiff",
    "compare_runs",
    "flatten",
    "format_csv",
    "format_table",
]
