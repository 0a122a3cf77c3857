"""Time-domain simulation of Q Replication pipelines: bursts, backlogs, outages and catch-up.

Transactions flow through the same stages and costs as the steady-state model: every stage's
capacity comes from :func:`engine.perf.predict_settings` (its ``stages``), so a knob that
changes the steady-state prediction changes the simulation the same way. On top of that the
simulation adds what only time shows: SLEEP_INTERVAL polling, TRANS_BATCH_SZ grouping within a
COMMIT_INTERVAL, Capture MEMORY_LIMIT spills, monster transactions, the transmit queue's buffer
pool overflowing to the page set and draining at page-set speed, the channel stopping,
NUM_APPLY_AGENTS agents with Q Apply MEMORY_LIMIT back-pressure (MEM_FULL_TIME), Q Apply
stopping and the target slowing down. The rules are listed in :mod:`engine.sim.pipeline`.

Where the numbers come from
---------------------------
* Stage capacities (rows/s): the steady-state prediction's ``stages`` (:mod:`engine.sim.config`);
  "drive to the maximum" offers the predicted throughput.
* Fixed delays: the steady-state engine's fitted ``cap_log_delay_ms`` (log read) and
  ``mq_staging_ms`` (MQ staging), loaded from its coefficients.
* Buffer pools and page sets: :mod:`engine.perf.mq_bufferpool` (messages a pool holds, the
  wait to read a message back from the page set, read-ahead) for the transmit queue (the
  channel reads it) and the receive queue (the Q Apply browser reads it).
* Db2 Mirror: the change rate of :mod:`engine.perf.mirror`'s prediction and its resync time
  per tracked change (:mod:`engine.sim.mirror`).

Known simplifications: service times are deterministic given a message's rows (variability
comes from Poisson arrivals and transaction sizes), so queueing waits at high utilisation are
lower than in a real system; Q Apply dependencies between transactions, channel batch
boundaries (BATCHSZ enters only through the channel's capacity), MQ buffer pool
synchronous writes slowing the putter, and resync competing with the application for CPU are
not modelled; peaks in the summary are sampled at 1 s edges.

Python API (what the GUI uses)
------------------------------
>>> from engine.sim import simulate, profiles, Event, parse_event
>>> res = simulate(project, duration_s=600, seed=7,
...                profile=profiles.from_dict({"kind": "bursts", "base_rows_per_s": 5000,
...                                           "burst_rows_per_s": 20000, "period_s": 60, "burst_s": 10}),
...                events=[parse_event("channel-stop@2m+20m"), Event("target_slow", 60, 300, 0.5)],
...                progress=lambda fraction: ..., cancel=lambda: False)
>>> res.monitor_rows["IBMQREP_APPLYMON"][0]["END2END_LATENCY"]   # ms, one row per MONITOR_INTERVAL
>>> res.monitor["IBMQREP_CAPQMON"]["ROWS_PUBLISHED"]              # the same as numpy columns
>>> res.monitor_csv("IBMQREP_CAPMON")                             # CSV text like a monitor export
>>> res.timeseries["t_s"], res.timeseries["xmitq.depth_msgs"]     # per-stage series, 1 s bins
>>> res.summary["end2end_latency_ms"]["p99"], res.summary["events"][0]["catch_up_s"]

* ``simulate(project, duration_s, seed=0, profile=None, events=(), progress=None, cancel=None)``
  -> :class:`SimResult`. ``profile`` None offers the project's ``offered_rows_per_s``, or, when
  that is unset ("drive to the maximum"), the predicted steady-state throughput. ``progress(fraction)`` is
  called after each chunk (0..1); ``cancel()`` returning True stops the run between chunks
  with :class:`SimulationCancelled`. Deterministic: the same project, engine version and seed
  give the same numbers (``numpy.random.SeedSequence(seed)``; no global random state).
* ``simulate_settings(settings, duration_s, prediction=None, project=None, **same)`` for
  scenario settings; ``simulate_config(PipelineConfig, ...)`` for a hand-made pipeline.
* :class:`SimResult`: ``monitor`` (table -> column arrays), ``monitor_rows`` (table -> list of
  row dicts), ``monitor_csv(table)``, ``timeseries`` (``t_s`` and ``stage.quantity_unit``
  arrays), ``summary`` (throughput, latency mean/p50/p95/p99, peaks, per-stage utilisation,
  per-event peak backlog and catch-up time, notes), ``metrics()`` (flat numbers and units for
  the results store), ``to_json()``.
* Profiles (:mod:`engine.sim.profiles`): constant, steps, bursts, batch window with large
  transactions, CSV of rows/s over time. Events (:mod:`engine.sim.events`): ``channel_stop``,
  ``apply_stop``, ``target_slow`` (``factor``), ``mirror_suspend`` (Db2 Mirror projects).

Monitor tables and units are described in :mod:`engine.sim.monitor`. Kernels
(:mod:`engine.sim.kernels`) are checked against M/M/1, M/M/c and Little's law, and the
vectorised pipeline against the plain event loop of :mod:`engine.sim.reference`.
"""

from __future__ import annotations

from engine.sim import profiles
from engine.sim.events import Event, parse_duration_s, parse_event
from engine.sim.run import SIM_VERSION, SimResult, SimulationCancelled, simulate_config, simulate_settings


def simulate(project, duration_s: float, seed: int | None = 0, profile=None, events=(), progress=None, cancel=None,
             **kw) -> SimResult:
    """Simulate ``project`` for ``duration_s`` simulated seconds.

    Parameters
    ----------
    project : engine.model.Project
        A complete Q Replication (or Db2 Mirror) project.
    duration_s : float
        Simulated time, s (> 0).
    seed : int or None
        Seed of the run's random numbers; None draws one (reported as ``summary["seed"]``).
    profile : engine.sim.profiles.Profile, optional
        Offered workload over time.
    events : iterable of Event
        Outages and slow-downs.
    progress : callable(float), optional
        Called with the fraction done after each chunk.
    cancel : callable() -> bool, optional
        Polled before each chunk; True stops the run.

    Raises
    ------
    TopologyError
        The project is incomplete.
    UnsupportedKindError
        The project's kind cannot be simulated or predicted.
    FieldError
        A bad duration, profile or event.
    SimulationCancelled
        ``cancel()`` returned True.
    """
    from engine.scenario import project_to_scenario

    settings = project_to_scenario(project)
    return simulate_settings(settings, duration_s, project=project, seed=seed, profile=profile, events=events,
                             progress=progress, cancel=cancel, **kw)


__all__ = [
    "SIM_VERSION",
    "Event",
    "SimResult",
    "SimulationCancelled",
    "parse_duration_s",
    "parse_event",
    "profiles",
    "simulate",
    "simulate_config",
    "simulate_settings",
]
