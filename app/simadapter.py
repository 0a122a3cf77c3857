"""The simulator (:mod:`engine.sim`) as a background task of the window (no Qt here).

Settings and events are checked before the task starts, so a typo in an event or
an incomplete topology is reported at once; the run then goes through
:func:`engine.sim.run.simulate_settings` with the worker's progress and Cancel,
and is recorded in the store with its summary and time series.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

from engine.model import Project

#: Summary entries kept as run metrics, with their units.
SUMMARY_UNITS = {
    "throughput_rows_per_s": "rows/s",
    "capture_rows_per_s": "rows/s",
    "offered_rows_per_s": "rows/s",
    "predicted_rows_per_s": "rows/s",
    "capture_latency_ms": "ms",
    "qlatency_ms": "ms",
    "apply_latency_ms": "ms",
    "peak_backlog_rows": "rows",
    "peak_xmitq_depth_msgs": "messages",
    "peak_recvq_depth_msgs": "messages",
    "peak_capture_memory_bytes": "bytes",
    "peak_apply_memory_bytes": "bytes",
    "trans_spilled": "txns",
    "pageset_msgs": "messages",
    "mem_full_time_s": "s",
    "rows_applied": "rows",
    "rows_in_flight_at_end": "rows",
}


def summary_metrics(summary: dict) -> tuple[dict, dict]:
    """Flat numeric metrics and units from a simulation summary.

    ``end2end_latency_ms`` percentiles become ``end2end_latency_ms`` (mean) and
    ``end2end_latency_p95_ms`` ...; each event's catch-up time and peak backlog become
    ``event1_catch_up_s`` and ``event1_peak_backlog_rows``.
    """
    metrics, units = {}, {}

    def put(name, value, unit):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            metrics[name] = float(value)
            units[name] = unit

    for name, unit in SUMMARY_UNITS.items():
        put(name, summary.get(name), unit)
    e2e = summary.get("end2end_latency_ms")
    if isinstance(e2e, dict):
        put("end2end_latency_ms", e2e.get("mean"), "ms")
        for p in ("p50", "p95", "p99"):
            put(f"end2end_latency_{p}_ms", e2e.get(p), "ms")
    else:
        put("end2end_latency_ms", e2e, "ms")
    for i, ev in enumerate(summary.get("events") or (), start=1):
        put(f"event{i}_catch_up_s", ev.get("catch_up_s"), "s")
        put(f"event{i}_peak_backlog_rows", ev.get("peak_backlog_rows"), "rows")
    for stage, u in (summary.get("utilisation") or {}).items():
        put(f"{stage}_utilisation_pct", 100.0 * u if isinstance(u, (int, float)) else None, "%")
    return metrics, units


def make_task(project: Project, duration_s: float, seed: int, events: list[str], db_path: str | Path | None,
              note: str = ""):
    """The simulation task; raises FieldError (bad event) or TopologyError (incomplete) before it starts."""
    from app.tasks import SimulationOutcome
    from engine.scenario import project_to_scenario
    from engine.sim.events import parse_event

    parsed = [parse_event(text) for text in events]
    settings = project_to_scenario(project)

    def fn(progress, cancelled, partial):
        from app.worker import Cancelled
        from engine.sim.run import SimulationCancelled, simulate_settings
        from engine.store import Store

        t0 = time.perf_counter()
        try:
            res = simulate_settings(settings, duration_s, project=project, seed=seed, events=parsed,
                                    progress=lambda f: progress(f, f"simulated {f * duration_s:.0f} of "
                                                                   f"{duration_s:.0f} s"),
                                    cancel=cancelled)
        except SimulationCancelled:
            raise Cancelled() from None
        metrics, units = summary_metrics(res.summary)
        t_s = res.timeseries["t_s"]
        series = {k: (t_s, v) for k, v in res.timeseries.items() if k != "t_s"}
        label = f"{duration_s:g} s seed {seed}" + (" " + " ".join(events) if events else "") + (
            f", {note}" if note and note != "unchanged" else "")
        with Store.open(db_path, wait_s=5.0) as store:
            run_id = store.record_simulation(
                project, metrics, units, timeseries=series, seed=seed,
                settings={**settings, "simulation": {"duration_s": duration_s, "events": list(events)}},
                coefficients_version=str(res.summary.get("coefficients_version") or ""), scenario_kind="qrep",
                label=label)
        return SimulationOutcome(run_id, metrics, units, series, time.perf_counter() - t0,
                                 list(res.summary.get("events") or ()),
                                 (settings.get("workload") or {}).get("offered_rows_per_s") is None)

    return fn
