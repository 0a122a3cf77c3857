"""Time-domain simulation of Q Replication pipelines: bursts, backlogs, outages and catch-up.

Transactions flow through the same stages and costs as the steady-state model: every stage's
capacity comes from :func:`engine.predict.predict_settings` (its ``stages``), so a knob that
changes the steady-state prediction changes the simulation the same way. On top of that the
simulation adds what only time shows: SLEEP_INTERVAL polling, TRANS_BATCH_SZ grouping within a
COMMIT_INTERVAL, Capture MEMORY_LIMIT spills, monster transactions, the transmit queue's buffer
pool overflowing to the page set and draining at page-set speed, the channel stopping,
NUM_APPLY_AGENTS agents with Q Apply MEMORY_LIMIT back-pressure (MEM_FULL_TIME), COMMIT_COUNT
messages per target transaction, dependent transactions waiting for the one before them to
commit, Q Apply stopping and the target slowing down. The rules are listed in
:mod:`engine.sim.pipeline`.

Where the numbers come from
---------------------------
* Stage capacities (rows/s): the steady-state prediction's ``stages`` (:mod:`engine.sim.config`);
  "drive to the maximum" offers the predicted throughput. The Q Apply browser is its own
  single server; the agents are ``NUM_APPLY_AGENTS`` servers (fewer when the apply LPAR's CPU
  caps them below their own capacity).
* Fitted coefficients of the steady-state engine (:func:`engine.sim.config.qrep_delays`): the
  log-read delay ``cap_log_delay_ms``, the MQ staging time ``mq_staging_ms``, the source
  transactions per MQ commit ``maxtrans_per_commit`` and the channel's time per batch
  ``ch_batch_us`` (+ ``ch_batch_log_us`` for persistent messages): messages travel in channel
  batches of up to BATCHSZ and reach the receive queue when their batch ends.
* The agents' service-time variability: chosen so that, at the predicted operating point, the
  simulated agents wait as long as the predicted APPLY_LATENCY says, after the waits the
  simulation's own bursts (MQ commits, channel batches) cause
  (:func:`engine.sim.config.agent_service_cv2`, Allen-Cunneen). At other rates, during bursts
  and outages the waits then follow from the queue.
* Buffer pools and page sets: :mod:`engine.perf.mq_bufferpool` (messages a pool holds, the
  wait to read a message back from the page set, read-ahead) for the transmit queue (the
  channel reads it) and the receive queue (the Q Apply browser reads it).
* Dependent transactions: the share of target transactions that depend on an earlier one is
  the steady-state engine's (:func:`engine.perf.qrep.costs.dependent_share` of
  ``workload.dependent_txn_pct``); the agents' capacity already carries the parallelism it
  costs, the simulation adds each one's wait for the one before it.
* Db2 Mirror: the change rate of :mod:`engine.perf.mirror`'s prediction and its resync time
  per tracked change (:mod:`engine.sim.mirror`).

Agreement with the steady-state engine (``tests/engine/sim/test_sim_agrees_with_qrep.py``, every
Q Replication sample, live predictions): throughput within 2%, CAPTURE_LATENCY within 10% (or
20 ms), QLATENCY within 40% (or 25 ms), END2END_LATENCY within 15%, APPLY_LATENCY within a
factor of 2 per project and 35% on average where the agents queue (one 5-minute run's mean
apply wait at 95% agent utilisation moves by about 30% from seed to seed); the same
APPLY_LATENCY and throughput checks hold with 30% dependent transactions and with
COMMIT_COUNT 4.

Known simplifications: capture-side and channel service times are deterministic given a
message's rows; Capture reads the log on a SLEEP_INTERVAL grid and commits at the end of the
cycle (or after ``maxtrans_per_commit`` transactions), so at low rates QLATENCY is up to half
a cycle above the steady-state engine's; a dependent transaction depends on the one just
before it (not on a particular in-flight one) and COMMIT_COUNT groups consecutive messages
(an agent does not commit early when the work queue runs dry); BATCHINT, MQ buffer pool
synchronous writes slowing the putter and resync competing with the application for CPU are
not modelled; the MQ buffer-pool mover (``mq-mover``) and Db2 V8 storage kinds are not
simulated (``qrtune predict`` gives their figures); in a drain the browser reads ahead as far as Q Apply's MEMORY_LIMIT allows, so
APPLY_LATENCY there is seconds, not the steady-state engine's figure; below about 90% agent
utilisation the simulated APPLY_LATENCY is a few ms under the steady-state engine's because
the browser paces a burst to the agents (the wait shows in QLATENCY instead); peaks in the
summary are sampled at 1 s edges.

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
>>> res.summary["in_flight_drain_s"]   # stop the source at the end: everything in flight applied after this

* ``simulate(project, duration_s, seed=0, profile=None, events=(), progress=None, cancel=None)``
  -> :class:`SimResult`. ``profile`` None offers the project's ``offered_rows_per_s``, or, when
  that is unset ("drive to the maximum"), the predicted steady-state throughput. ``progress(fraction)`` is
  called after each chunk (0..1); ``cancel()`` returning True stops the run between chunks
  with :class:`SimulationCancelled`. Deterministic: the same project, engine version and seed
  give the same numbers (``numpy.random.SeedSequence(seed)``; no global random state).
* ``simulate_settings(settings, duration_s, prediction=None, project=None, coefficients=None, **same)``
  for scenario settings (``coefficients``: the Q Replication engine's coefficients, or a mapping
  overriding some, used for the prediction and by the simulation, as ``qrtune fit`` tries them;
  ``run.mode: drain`` works off a pre-loaded receive queue); ``simulate_config(PipelineConfig,
  ...)`` for a hand-made pipeline.
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
