"""Stored runs side by side, shaped for the compare view (no Qt here).

The comparison itself is the engine's (:func:`engine.compare.compare_runs`:
settings that differ, every metric with absolute and percent deltas against the
first run); this adds what the view needs to draw: labels and each run's time
series for overlaid charts.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ComparisonView:
    """An engine comparison plus labels and the runs' stored data.

    Attributes
    ----------
    comparison : engine.compare.Comparison
        ``settings`` (SettingDiff: path, values) and ``metrics`` (MetricDelta: metric, unit,
        values, abs_delta, pct_delta), first run is the reference.
    labels : tuple[str, ...]
        One short label per run (``#12 sweep qapply.num_apply_agents=4``).
    data : tuple[engine.store.RunData, ...]
        Each run's stored data (time series for overlays).
    """

    comparison: object
    labels: tuple
    data: tuple = field(default=(), repr=False)

    @property
    def run_ids(self) -> tuple:
        return self.comparison.run_ids

    @property
    def settings(self) -> tuple:
        return self.comparison.settings

    @property
    def metrics(self) -> tuple:
        return self.comparison.metrics

    def metric(self, name: str):
        return self.comparison.metric(name)


def setting_name(path: str, scenario_kind: str) -> str:
    """A settings path as a user reads it: IBM's parameter name (``qapply.num_apply_agents`` ->
    ``NUM_APPLY_AGENTS``), else the knob's label made from the path's last part."""
    from engine.metrics import knob_label
    from engine.registry import path_names

    return path_names(scenario_kind).get(path) or knob_label(path.rpartition(".")[2])


def distinct_labels(comparison) -> tuple[str, ...]:
    """One label per compared run that tells it apart: ``#31 TRANS_BATCH_SZ=3`` from the settings that
    differ between the runs (IBM's names, at most two), else ``#31`` and the run's kind."""
    from engine.metrics.catalog import format_setting

    kind = comparison.runs[0].scenario_kind
    diffs = list(comparison.settings)[:2]
    labels = []
    for i, run in enumerate(comparison.runs):
        parts = [f"{d.name or setting_name(d.path, kind)}={format_setting(d.values[i])}" for d in diffs]
        labels.append(f"#{run.id} " + (", ".join(parts) if parts else run.kind))
    return tuple(labels)


def run_label(run, with_project: bool = False) -> str:
    """Short label of a RunRecord for legends and column headers (``with_project``: its project's name too)."""
    text = f"#{run.id} {run.kind}"
    if run.label:
        text += f" {run.label}"
    if with_project and run.project_name:
        text += f" ({run.project_name})"
    return text


def compare(store, run_ids: list[int]) -> ComparisonView:
    """Compare ``run_ids`` of an open store (first is the reference).

    Raises
    ------
    QrtuneError
        Fewer than two runs, or an unknown run id.
    """
    from engine.compare import compare_runs

    cmp = compare_runs(store, run_ids)
    data = tuple(store.load_run(i) for i in cmp.run_ids)
    several = len({r.project_name for r in cmp.runs}) > 1  # runs of different projects: name them
    return ComparisonView(cmp, tuple(run_label(r, several) for r in cmp.runs), data)
