"""Agreement of the simulation with the steady-state engine, measured (never imposed).

The simulation draws its service times from the steady-state engine's cost model but queues,
batches and commits on its own (:mod:`engine.sim.pipeline`); nothing in it is solved to
reproduce a latency of the steady-state engine. How far the two agree is a measurement:
:func:`compare_at_load` runs both at a share of the pipeline's capacity and reports the
simulated monitor averages (IBMQREP_APPLYMON after a warm-up, weighted by TRANS_APPLIED as a
monitor reader would) next to the steady-state figures. ``benchmarks/bench_sim_agreement.py``
prints the table for every Q Replication sample at 50% and 80% of capacity; the tests pin it
with looser tolerances.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from engine.metrics import APPLYMON_LATENCIES

#: Monitor columns compared, with the steady-state metric each is compared with.
LATENCY_COLUMNS = APPLYMON_LATENCIES


@dataclass(frozen=True)
class Agreement:
    """Simulated and steady-state figures of one project at one load.

    Attributes
    ----------
    load_fraction : float
        Offered rate over the steady-state capacity.
    offered_rows_per_s : float
        Offered rate, rows/s.
    steady : dict
        Steady-state ``rows_per_s`` and latencies in ms (keys of :data:`LATENCY_COLUMNS`).
    simulated : dict
        The simulation's monitor averages after the warm-up, same keys.
    """

    load_fraction: float
    offered_rows_per_s: float
    steady: dict
    simulated: dict

    def relative_error(self, key: str) -> float | None:
        """``simulated / steady - 1`` of ``key`` (None when the steady-state figure is missing or 0)."""
        ref = self.steady.get(key)
        if not ref:
            return None
        return self.simulated[key] / ref - 1.0


def capacity_rows_per_s(settings: dict, predict) -> float:
    """Most the pipeline carries at steady state: the prediction driven to the maximum, rows/s."""
    top = copy.deepcopy(settings)
    top.setdefault("workload", {})["offered_rows_per_s"] = None
    top["workload"].pop("jobs", None)
    return float(predict(top).metrics["apply_rows_per_s"])


def _averages(columns: dict, keep, interval_s: float) -> dict:
    """Rows/s and each latency (ms, weighted by TRANS_APPLIED) of the APPLYMON ``columns`` rows ``keep``."""
    n = np.asarray(columns["TRANS_APPLIED"], dtype=float)[keep]
    out = {
        col: float((np.asarray(columns[col], dtype=float)[keep] * n).sum() / n.sum())
        if n.sum()
        else float("nan")
        for col in LATENCY_COLUMNS
    }
    rows = np.asarray(columns["ROWS_APPLIED"], dtype=float)[keep]
    out["rows_per_s"] = float(rows.sum() / max(np.count_nonzero(keep) * interval_s, 1e-12))
    out["MEM_FULL_TIME"] = float(np.asarray(columns["MEM_FULL_TIME"], dtype=float).sum())
    return out


def monitor_averages(res, warm_up_s: float) -> dict:
    """APPLYMON averages after ``warm_up_s``: rows/s and each latency (ms) weighted by TRANS_APPLIED."""
    mon = res.monitor["IBMQREP_APPLYMON"]
    interval_s = res.config.apply_monitor_s
    keep = np.arange(len(mon["TRANS_APPLIED"])) * interval_s >= warm_up_s
    return _averages(mon, keep, interval_s)


#: Timestamp format of the monitor tables' MONITOR_TIME and QSTART_TIME.
MONITOR_TIME_FORMAT = "%Y-%m-%d-%H.%M.%S.%f"


def monitor_row_averages(rows: list, warm_up_s: float) -> dict:
    """:func:`monitor_averages` of IBMQREP_APPLYMON rows as ``qrtune simulate --json`` prints them.

    A row counts when its interval began at least ``warm_up_s`` after QSTART_TIME.

    Raises
    ------
    ValueError
        Fewer than two rows (no MONITOR_INTERVAL to read).
    """
    if len(rows) < 2:
        raise ValueError(f"{len(rows)} IBMQREP_APPLYMON row(s): at least two are needed to average")
    times = [datetime.strptime(r["MONITOR_TIME"], MONITOR_TIME_FORMAT) for r in rows]
    start = datetime.strptime(rows[0]["QSTART_TIME"], MONITOR_TIME_FORMAT)
    interval_s = (times[1] - times[0]).total_seconds()
    keep = np.array([(t - start).total_seconds() - interval_s >= warm_up_s - 1e-6 for t in times])
    columns = {
        col: [r[col] for r in rows]
        for col in (*LATENCY_COLUMNS, "TRANS_APPLIED", "ROWS_APPLIED", "MEM_FULL_TIME")
    }
    return _averages(columns, keep, interval_s)


def compare_at_load(
    settings: dict,
    project,
    load_fraction: float,
    duration_s: float = 300.0,
    warm_up_s: float = 60.0,
    seed: int = 11,
) -> Agreement:
    """Simulate ``settings`` at ``load_fraction`` of its steady-state capacity and compare.

    Parameters
    ----------
    settings : dict
        Scenario settings (``kind: qrep``).
    project : engine.model.Project or None
        The project the settings come from (buffer-pool knobs).
    load_fraction : float
        Offered rate over capacity (0 < f < 1).
    duration_s, warm_up_s : float
        Simulated time and the part of it left out of the averages, s.
    seed : int
        Seed of the simulation.

    Raises
    ------
    QrtuneError
        The steady-state engine or the simulation cannot run the settings.
    """
    from engine.predict import predict_settings
    from engine.sim import profiles, simulate_settings

    offered = load_fraction * capacity_rows_per_s(settings, predict_settings)
    at_load = copy.deepcopy(settings)
    at_load.setdefault("workload", {})["offered_rows_per_s"] = offered
    at_load["workload"].pop("jobs", None)
    pred = predict_settings(at_load)
    # as qrtune simulate --rate runs it: the simulation evaluates the cost model at the rate itself
    res = simulate_settings(
        settings, duration_s, project=project, seed=seed, profile=profiles.constant(offered)
    )
    steady = {col: pred.metrics.get(metric) for col, metric in LATENCY_COLUMNS.items()}
    steady["rows_per_s"] = pred.metrics.get("apply_rows_per_s")
    return Agreement(load_fraction, offered, steady, monitor_averages(res, warm_up_s))
