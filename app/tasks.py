"""Background tasks of the window, as plain functions for :class:`app.worker.TaskRunner` (no Qt here).

Each ``*_task(...)`` returns ``fn(progress, cancelled, partial)``; ``fn`` runs in
the worker thread, reports progress, honours Cancel between steps, sends partial
results (sweep points) and records what it ran in the store so every run lands
in the run history.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.model import Project


def _cancelled_error():
    from app.worker import Cancelled

    return Cancelled()


# -- sweeps ---------------------------------------------------------------------------------------
#: Points are sent to the window at most this often (s); progress goes with every batch.
PARTIAL_EVERY_S = 0.25
#: Separates the axes of a several-knob sweep in one axis text.
AXIS_SEPARATOR = ";"


@dataclass
class SweepPoint:
    """One finished sweep point.

    Attributes
    ----------
    index : int
        Position in the cartesian product (row-major, the last knob varies fastest).
    value : Any
        Value of the first knob (the x axis).
    label : str
        ``qapply.num_apply_agents=4 qcapture.trans_batch_sz=3``.
    metrics, units : dict
        The prediction's metrics and their units (empty when the point failed).
    bottleneck : str or None
    error : str
        Why the point failed, or "".
    series : tuple
        Values of the other knobs (one curve per combination); empty for a one-knob sweep.
    run_id : int or None
        The point's run in the store.
    """

    index: int
    value: Any
    label: str
    metrics: dict
    units: dict
    bottleneck: str | None
    error: str = ""
    series: tuple = ()
    run_id: int | None = None


@dataclass
class SweepOutcome:
    """A finished sweep (points already stored by an earlier, interrupted run included).

    ``section`` is the sweep read back from the store (:func:`engine.report.sweep.sweep_section`):
    its target and picks, what the sweep's PDF and ``qrtune report --sweep`` name.
    """

    sweep_id: int | None
    axis_name: str
    points: list = field(default_factory=list)
    elapsed_s: float = 0.0
    axis_names: tuple = ()
    n_reused: int = 0
    section: Any = None


def split_axes(axis_text) -> list[str]:
    """One axis text per knob from ``"A=1..4; B=1,2"`` (or a list of texts)."""
    texts = axis_text.split(AXIS_SEPARATOR) if isinstance(axis_text, str) else list(axis_text)
    return [t.strip() for t in texts if t.strip()]


def _point(axes, run, run_id: int, metrics: dict, units: dict) -> SweepPoint:
    """The point ``run`` (a RunRecord, recorded as ``run_id``) with its metrics' values and units."""
    from engine.studies.sweep import point_label, point_values

    values = point_values(axes, run.point_index)
    return SweepPoint(
        run.point_index,
        values[0],
        point_label(axes, run.point_index),
        metrics,
        units,
        run.bottleneck,
        run.failure,
        tuple(values[1:]),
        run_id,
    )


class _ReportingStore:
    """The store as :func:`engine.studies.sweep.run_sweep` sees it: every recorded batch is also reported
    to the window (progress, the points so far) and Cancel is honoured between batches."""

    def __init__(self, store, axes, total: int, progress, cancelled, partial):
        self.store, self.axes, self.total = store, axes, total
        self.progress, self.cancelled, self.partial = progress, cancelled, partial
        self.points: dict[int, SweepPoint] = {}
        self.sweep_id: int | None = None
        self.n_reused = 0
        self._cancel_raised = False
        self._last_partial = -math.inf

    def __getattr__(self, name):
        return getattr(self.store, name)

    def sweep_by_key(self, key: str):
        sweep_id = self.store.sweep_by_key(key)
        if sweep_id is not None:  # an interrupted or repeated sweep: show what is stored, run the rest
            self.sweep_id = sweep_id
            self.points.update(load_sweep_points(self.store, sweep_id, self.axes))
            self.n_reused = len(self.points)
            if self.points:
                self._report()
        return sweep_id

    def create_sweep(self, key, project, axes_data, n_points):
        self.sweep_id = self.store.create_sweep(key, project, axes_data, n_points)
        return self.sweep_id

    def record_point_columns(self, points):
        if self.cancelled() and not self._cancel_raised:
            # Stop here; run_sweep records the points it has finished (it calls us again) and re-raises.
            self._cancel_raised = True
            raise _cancelled_error()
        ids = self.store.record_point_columns(points)
        metrics = points.metrics_by_point()
        from engine.store.records import StoredPoint

        for run in points.run_records(ids):
            p = StoredPoint.of(run, metrics[run.point_index])
            self.points[run.point_index] = _point(self.axes, run, run.id, p.metrics, p.units)
        self._report()
        return ids

    def _report(self) -> None:
        done = len(self.points)
        now = time.monotonic()
        every_s = (
            PARTIAL_EVERY_S if self.total <= 256 else 4 * PARTIAL_EVERY_S
        )  # big sweeps redraw less often
        if now - self._last_partial >= every_s or done == self.total or self._cancel_raised:
            # the window redraws every point it gets: a few redraws a second keep it responsive (and Cancel quick)
            self._last_partial = now
            self.partial(sorted(self.points.values(), key=lambda p: p.index))
        self.progress(done / self.total, f"sweep: {done}/{self.total} points")


def load_sweep_points(store, sweep_id: int, axes) -> dict[int, SweepPoint]:
    """The stored points of sweep ``sweep_id`` by point index."""
    return {
        p.run.point_index: _point(axes, p.run, p.run.id, p.metrics, p.units)
        for p in store.sweep_points(sweep_id)
    }


def sweep_task(
    project: Project,
    axis_text,
    db_path: str | Path | None,
    batch: int = 16,
    scheduler: str | None = None,
):
    """A sweep of one or more knobs: ``qapply.num_apply_agents=1..16`` (the CLI's ``--set`` syntax),
    several separated by ``;`` (the cartesian product, the first knob on the x axis).

    The axes are parsed before the task starts, so a bad axis is reported at once
    (:class:`engine.errors.FieldError` naming the item, the value and what is allowed).
    The task runs :func:`engine.studies.sweep.run_sweep` on the store: points are predicted in
    batches in the worker thread (about a millisecond a point for the steady-state
    engines: a few thousand points take seconds; ``qrtune sweep --workers N`` or
    ``--scheduler`` spreads bigger sweeps over processes or a cluster), every batch is
    recorded as runs of one sweep, and Cancel stops after the current batch with every
    finished point kept. Running the same sweep again on the same project resumes it:
    stored points are shown, not predicted again.

    With ``scheduler`` (``tcp://HOST:PORT`` of a Dask scheduler) the points are predicted
    on that cluster's workers (:func:`engine.studies.sweep.run_sweep`'s ``scheduler``); a scheduler
    that cannot be reached fails the task with the reason, before anything is recorded.

    Returns
    -------
    (fn, total)
        The task function for :class:`app.worker.TaskRunner` and the number of points.
    """
    from engine.studies.sweep import n_points, parse_axes

    axes = parse_axes(split_axes(axis_text), project)
    total = n_points(axes)

    def fn(progress, cancelled, partial):
        from engine.report.sweep import sweep_section
        from engine.store import Store
        from engine.studies.sweep import run_sweep

        t0 = time.perf_counter()
        with Store.open(db_path, wait_s=5.0) as store:
            reporting = _ReportingStore(store, axes, total, progress, cancelled, partial)
            size = max(batch, total // 64)  # at most ~64 store writes however big the sweep
            result = run_sweep(
                project,
                axes,
                reporting,
                workers=0,
                batch_size=size,
                progress=False,
                scheduler=scheduler,
            )
            points = load_sweep_points(store, result.sweep_id, axes)
            section = sweep_section(store, result.sweep_id)
        return SweepOutcome(
            result.sweep_id,
            axes[0].name,
            sorted(points.values(), key=lambda p: p.index),
            time.perf_counter() - t0,
            tuple(a.name for a in axes),
            reporting.n_reused,
            section,
        )

    return fn, total


# -- validation ------------------------------------------------------------------------------------
#: Validation results by (scenarios file, its modification time, coefficient versions): the engine gives
#: the same answers until its fitted coefficients change, so a second look is instant.
_VALIDATION_CACHE: dict[tuple, tuple] = {}


def validation_cache_key(scenarios_path: str | Path) -> tuple:
    """What the validation result of ``scenarios_path`` depends on: the file and the coefficient versions."""
    from app.help import coefficient_versions

    path = Path(scenarios_path)
    stamp = path.stat().st_mtime_ns if path.is_file() else 0
    return str(path.resolve()), stamp, tuple(sorted(coefficient_versions().items()))


def validation_task(scenarios_path: str | Path):
    """Run the engine over a scenarios file and compare with what was measured (cached by coefficient version)."""
    from engine.evaluate import read_scenarios
    from engine.validation_summary import check_scenarios

    key = validation_cache_key(scenarios_path)
    scenarios = None if key in _VALIDATION_CACHE else read_scenarios(scenarios_path)

    def fn(progress, cancelled, partial):
        if key in _VALIDATION_CACHE:
            return _VALIDATION_CACHE[key]
        checks, summary = check_scenarios(scenarios, progress, cancelled)
        if cancelled():
            raise _cancelled_error()
        _VALIDATION_CACHE[key] = (checks, summary)
        return checks, summary

    return fn


# -- simulation ------------------------------------------------------------------------------------
def simulation_available() -> str:
    """ "" when the simulator can run, else why not."""
    try:
        from engine.sim.run import simulate_settings  # noqa: F401
    except ImportError as e:
        return f"The time-domain simulator is not available in this build ({e})."
    return ""
