"""The simulator (:mod:`engine.sim`) as a background task of the window (no Qt here).

Settings and events are checked before the task starts, so a typo in an event or
an incomplete topology is reported at once; the run then goes through
:func:`engine.sim.run.simulate_settings` with the worker's progress and Cancel,
and is recorded in the store with its summary and time series.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from app.tasks import simulation_available
from engine.errors import QrtuneError
from engine.model import Project
from engine.scenario import project_to_scenario


@dataclass
class SimulationOutcome:
    """A recorded simulation: summary metrics, time series and the run id."""

    run_id: int | None
    metrics: dict
    units: dict
    timeseries: dict  # name -> (t_s, values)
    elapsed_s: float = 0.0
    events: list = field(default_factory=list)  # the simulator's per-event summary (peak, catch_up_s ...)
    drive_to_maximum: bool = False  # no offered rate set: the workload runs at the predicted capacity
    buffer_pool_msgs: float | None = None  # messages the transmit queue's buffer pool holds (None: unbounded)


def simulation_task(
    project: Project,
    duration_s: float,
    seed: int,
    events: list[str],
    db_path: str | Path | None,
    note: str = "",
):
    """Simulate ``project`` for ``duration_s`` seconds with its load profile and outage ``events``
    (``channel-stop@2m+20m``).

    ``note`` (the settings changed since saving) ends the run's label. Raises QrtuneError when
    this build has no simulator, FieldError (bad event) or TopologyError (incomplete) before
    the task starts.
    """
    reason = simulation_available()
    if reason:
        raise QrtuneError(reason)
    from engine.sim.events import parse_event

    parsed = [parse_event(text) for text in events]
    profile = project.simulation.profile_model()
    settings = project_to_scenario(project)

    def fn(progress, cancelled, partial):
        from app.worker import Cancelled  # Qt: imported when the task runs in the window
        from engine.sim.bundle import simulation_bundle, simulation_label, simulation_settings
        from engine.sim.run import SimulationCancelled, simulate_settings
        from engine.store import Store

        t0 = time.perf_counter()
        try:
            res = simulate_settings(
                settings,
                duration_s,
                project=project,
                seed=seed,
                profile=profile,
                events=parsed,
                progress=lambda f: progress(f, f"simulated {f * duration_s:.0f} of {duration_s:.0f} s"),
                cancel=cancelled,
            )
        except SimulationCancelled:
            raise Cancelled() from None
        run = simulation_settings(
            settings, duration_s=duration_s, seed=seed, events=events, profile=res.summary.get("profile")
        )
        label = simulation_label(duration_s, seed, events, "" if note == "unchanged" else note)
        bundle = simulation_bundle(project, res, settings=run, label=label)
        with Store.open(db_path, wait_s=5.0) as store:
            run_id = store.record_run(project, bundle)
        return SimulationOutcome(
            run_id,
            {m.metric: m.value for m in bundle.metrics},
            {m.metric: m.unit for m in bundle.metrics},
            bundle.timeseries,
            time.perf_counter() - t0,
            list(res.summary.get("events") or ()),
            profile is None and (settings.get("workload") or {}).get("offered_rows_per_s") is None,
            _finite(getattr(res.config, "xmitq_buffer_msgs", None)),
        )

    return fn


def _finite(value) -> float | None:
    """``value`` as a float when it is a finite number, else None (an unbounded buffer pool)."""
    import math

    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None
