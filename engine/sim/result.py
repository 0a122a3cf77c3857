"""What a simulation produced (:class:`SimResult`), its stored metrics (:func:`flat_metrics`) and its errors."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from engine.errors import FieldError, QrtuneError
from engine.sim.cf_course import SUMMARY_UNITS as CF_UNITS
from engine.sim.config import PipelineConfig
from engine.sim.monitor import rows_from_columns, to_csv

#: Version of the simulation's rules; goes into stored runs.
SIM_VERSION = "sim-5"


class SimulationCancelled(QrtuneError):
    """The caller's ``cancel()`` returned True; the run stopped between chunks."""


@dataclass
class SimResult:
    """What a simulation produced.

    Attributes
    ----------
    monitor : dict[str, dict[str, numpy.ndarray]]
        Per table (``IBMQREP_CAPMON``, ``IBMQREP_CAPQMON``, ``IBMQREP_APPLYMON``) its columns.
    timeseries : dict[str, numpy.ndarray]
        ``t_s`` (end of each bin, s) and one array per series, named ``stage.quantity_unit``.
    summary : dict
        Throughput, latency percentiles, peaks, catch-up after each event, notes.
    config : PipelineConfig
        Stages and knobs used.
    trace : dict or None
        Per-transaction and per-message times when run with ``trace=True`` (tests).
    """

    monitor: dict
    timeseries: dict
    summary: dict
    config: PipelineConfig
    trace: dict | None = None
    settings: dict = field(default_factory=dict)

    @property
    def monitor_rows(self) -> dict[str, list[dict]]:
        """Per table, a list of row dicts (column name -> value)."""
        return {t: rows_from_columns(c) for t, c in self.monitor.items()}

    def monitor_csv(self, table: str) -> str:
        """One table as CSV text with the product's column names."""
        if table not in self.monitor:
            raise FieldError("table", table, "one of " + ", ".join(self.monitor))
        return to_csv(self.monitor[table])

    def metrics(self) -> tuple[dict, dict]:
        """Flat numeric metrics and their units, for the results store.

        Summary numbers keep their names; ``end2end_latency_ms`` becomes its mean plus
        ``end2end_latency_p50_ms`` / ``p95`` / ``p99``; event ``i`` (from 1) gives
        ``event{i}_catch_up_s`` and ``event{i}_peak_backlog_rows``, and ``catch_up_s`` is the
        longest of them (:func:`caught_up_s`); utilisations become
        ``{stage}_utilisation_pct``.
        """
        return flat_metrics(self.summary)

    def to_json(self, series: bool = False) -> dict:
        """Plain data: summary and monitor rows (and the time series if ``series``)."""
        out = {"summary": self.summary, "monitor": self.monitor_rows}
        if series:
            out["timeseries"] = {k: v.tolist() for k, v in self.timeseries.items()}
        return out


#: Summary entries that are plain numbers, with their units.
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
    "xmitq_buffer_msgs": "messages",
    "peak_capture_memory_bytes": "bytes",
    "peak_apply_memory_bytes": "bytes",
    "trans_spilled": "txns",
    "pageset_msgs": "messages",
    "recvq_pageset_msgs": "messages",
    "mem_full_time_s": "s",
    "rows_generated": "rows",
    "rows_applied": "rows",
    "rows_in_flight_at_end": "rows",
    "txns_generated": "txns",
    "duration_s": "s",
    "changes_per_s": "changes/s",
    "peak_tracked_changes": "changes",
    "initial_queue_applied_s": "s",
    "in_flight_drain_s": "s",
    **CF_UNITS,
}


def caught_up_s(events) -> float | None:
    """The longest time an event's backlog took to clear after the event ended, s: the largest
    ``catch_up_s`` of ``events`` (the summary's per-event dicts); None without events or when one
    was not caught up within the run."""
    times = [ev.get("catch_up_s") for ev in events]
    if not times or any(t is None for t in times):
        return None
    return max(times)


def flat_metrics(summary: dict) -> tuple[dict, dict]:
    """Flat numeric metrics and units from a simulation summary (see :meth:`SimResult.metrics`).

    Used by the CLI and the window alike. Entries that are missing, not numbers, booleans
    or not finite are left out; ``end2end_latency_ms`` may be a number (kept as is) or a
    dict of ``mean``/``p50``/``p95``/``p99``.

    Parameters
    ----------
    summary : dict
        A simulation summary (:attr:`SimResult.summary`).

    Returns
    -------
    metrics : dict[str, float]
        Metric name -> value.
    units : dict[str, str]
        Metric name -> unit (``rows/s``, ``ms``, ``s``, ``%``, ...).
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
        for q in ("p50", "p95", "p99"):
            put(f"end2end_latency_{q}_ms", e2e.get(q), "ms")
    else:
        put("end2end_latency_ms", e2e, "ms")
    events = summary.get("events") or ()
    for i, ev in enumerate(events, start=1):
        put(f"event{i}_catch_up_s", ev.get("catch_up_s"), "s")
        put(f"event{i}_peak_backlog_rows", ev.get("peak_backlog_rows"), "rows")
    put("catch_up_s", caught_up_s(events), "s")
    for stage, u in (summary.get("utilisation") or {}).items():
        if isinstance(u, (int, float)) and not isinstance(u, bool):
            put(f"{stage}_utilisation_pct", 100.0 * u, "%")
    return metrics, units
