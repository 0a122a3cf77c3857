"""Background tasks of the window, as plain functions for :class:`app.worker.TaskRunner` (no Qt here).

Each ``*_task(...)`` returns ``fn(progress, cancelled, partial)``; ``fn`` runs in
the worker thread, reports progress, honours Cancel between steps, sends partial
results (sweep points) and records what it ran in the store so every run lands
in the run history.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import QrtuneError
from engine.model import Project


def _cancelled_error():
    from app.worker import Cancelled

    return Cancelled()


# -- sweeps ---------------------------------------------------------------------------------------
@dataclass
class SweepPoint:
    """One finished sweep point: the knob value, the prediction (or the error) and its run id."""

    index: int
    value: Any
    label: str
    metrics: dict
    units: dict
    bottleneck: str | None
    error: str = ""


@dataclass
class SweepOutcome:
    """A finished (or cancelled-then-recorded) sweep."""

    sweep_id: int | None
    axis_name: str
    points: list = field(default_factory=list)
    elapsed_s: float = 0.0


def sweep_task(project: Project, axis_text: str, db_path: str | Path | None, batch: int = 16):
    """A sweep of one knob, e.g. ``qapply.num_apply_agents=1..16`` (the CLI's ``--set`` syntax).

    The axis is parsed before the task starts, so a bad axis is reported at once
    (:class:`engine.errors.FieldError`). Points are predicted in this worker thread
    in batches (the steady-state engine takes about a millisecond a point), each
    batch is recorded in the store as runs of one sweep, and Cancel stops between
    batches with every finished point kept.
    """
    from engine.sweep import DEFAULT_PREDICTOR, n_points, parse_axis, point_changes, point_label, run_points

    axis = parse_axis(axis_text, project)
    axes = [axis]
    total = n_points(axes)

    def fn(progress, cancelled, partial):
        from engine.store import Store, bundle_from_prediction, engine_version, project_hash
        from engine.store.records import RunRecord
        from engine.store.store import RunBundle, canonical_json, utc_now
        from engine.sweep import sweep_key

        t0 = time.perf_counter()
        digest = project_hash(project)
        outcome = SweepOutcome(None, axis.name)
        with Store.open(db_path, wait_s=5.0) as store:
            key = sweep_key(digest, axes, DEFAULT_PREDICTOR, engine_version()) + f"-gui-{time.time_ns()}"
            axes_data = [{"target": axis.target, "param": axis.param, "node_ids": list(axis.node_ids),
                          "values": list(axis.values)}]
            outcome.sweep_id = sweep_id = store.create_sweep(key, project, axes_data, total)
            for start in range(0, total, batch):
                if cancelled():
                    raise _cancelled_error()
                chunk = list(range(start, min(start + batch, total)))
                results = run_points(project, [(i, point_changes(axes, i)) for i in chunk])
                bundles, points = [], []
                for index, settings, prediction, error in results:
                    label = point_label(axes, index)
                    if prediction is None:
                        rec = RunRecord(
                            id=0, project_name=project.name, project_hash=digest,
                            settings_json=canonical_json(settings), engine_version=engine_version(),
                            coefficients_version="", seed=None, kind="sweep", started=utc_now(), status="failed",
                            scenario_kind=str(settings.get("kind", "")), sweep_id=sweep_id, point_index=index,
                            label=label, error=error)
                        bundles.append(RunBundle(rec))
                        points.append(SweepPoint(index, axis.values[index], label, {}, {}, None, error))
                    else:
                        bundles.append(bundle_from_prediction(
                            project_name=project.name, project_hash_=digest, settings=settings,
                            prediction=prediction, kind="sweep", label=label, sweep_id=sweep_id, point_index=index))
                        points.append(SweepPoint(index, axis.values[index], label, dict(prediction.metrics),
                                                 dict(prediction.units), prediction.bottleneck))
                store.record_runs(bundles)
                outcome.points.extend(points)
                partial(list(outcome.points))
                progress(len(outcome.points) / total, f"{axis.name}: {len(outcome.points)}/{total} points")
        outcome.elapsed_s = time.perf_counter() - t0
        return outcome

    return fn, total


# -- validation ------------------------------------------------------------------------------------
def validation_task(scenarios_path: str | Path):
    """Run the engine over a scenarios file and compare with what was measured."""
    from app.validation import check_scenarios
    from engine.evaluate import read_scenarios

    scenarios = read_scenarios(scenarios_path)

    def fn(progress, cancelled, partial):
        checks, summary = check_scenarios(scenarios, progress, cancelled)
        if cancelled():
            raise _cancelled_error()
        return checks, summary

    return fn


# -- simulation ------------------------------------------------------------------------------------
@dataclass
class SimulationOutcome:
    """A recorded simulation: summary metrics, time series and the run id."""

    run_id: int | None
    metrics: dict
    units: dict
    timeseries: dict  # name -> (t_s, values)
    elapsed_s: float = 0.0


def simulation_available() -> str:
    """"" when the simulator can run, else why not."""
    try:
        from engine.sim.run import simulate_settings  # noqa: F401
    except ImportError as e:
        return f"The time-domain simulator is not available in this build ({e})."
    return ""


def simulation_task(project: Project, duration_s: float, seed: int, events: list[str], db_path: str | Path | None):
    """Simulate ``project`` for ``duration_s`` seconds with outage ``events`` (``channel-stop@2m+20m``)."""
    reason = simulation_available()
    if reason:
        raise QrtuneError(reason)
    from app import simadapter

    return simadapter.make_task(project, duration_s, seed, events, db_path)
