"""Time-domain simulation of Q Replication pipelines: bursts, backlogs, outages and catch-up.

Transactions flow through the same stages and service demands as the steady-state model (its
cost model, :func:`engine.predict.predict_settings`'s ``stages``), so a knob that changes a service
demand changes the simulation the same way; the queues, cycles, batches and bursts are the
simulation's own, so it checks the steady state rather than copying it. On top of that the
simulation adds what only time shows: SLEEP_INTERVAL polling, TRANS_BATCH_SZ grouping within a
COMMIT_INTERVAL, Capture MEMORY_LIMIT spills, monster transactions, the transmit queue's buffer
pool overflowing to the page set and draining at page-set speed, the channel stopping,
NUM_APPLY_AGENTS agents with Q Apply MEMORY_LIMIT back-pressure (MEM_FULL_TIME), COMMIT_COUNT
messages per target transaction, dependent transactions waiting for the one before them to
commit, Q Apply stopping and the target slowing down. The rules are listed in
:mod:`engine.sim.pipeline`.

Where the numbers come from
---------------------------
Nothing in the simulation is solved so that it reproduces a figure of the steady-state engine;
it reads that engine's cost model, never its latencies (:mod:`engine.sim.cost_model` is the
one adapter to :mod:`engine.perf.qrep`):

* Stage capacities (rows/s): the steady-state prediction's ``stages``, i.e. the cost model's
  service demands per row, message and transaction (CPU, Db2 class 2 time, MQPUT and MQGET,
  channel time per message, log forces) at the load simulated, stretched by the CPU
  contention the steady-state solver finds there (:mod:`engine.sim.config`): a run given a
  profile (``qrtune simulate --rate R``) is evaluated at the profile's average rate as an open
  workload (:func:`engine.sim.run.settings_at_load`), one without at the project's own
  workload; "drive to the maximum" offers the predicted throughput. The Q Apply browser is its own single server;
  the agents are ``NUM_APPLY_AGENTS`` servers (fewer when the apply LPAR's CPU caps them
  below their own capacity).
* Fitted coefficients of the steady-state engine used as delays and sizes
  (:func:`engine.sim.cost_model.qrep_delays`): the merged-log read delay ``log_merge_delay_ms``, the
  source transactions per MQ commit
  ``maxtrans_per_commit`` and the channel's time per batch ``ch_batch_us`` (+
  ``ch_batch_log_us`` for persistent messages). A coefficient the engine no longer has
  leaves its mechanism out, with a note.
* Buffer pools and page sets: the steady-state engine's model
  (:func:`engine.perf.qrep.pipeline.queue_manager_pool`: messages a pool holds, the wait to
  read a message back from the page set, read-ahead) with each queue manager's own BUFFPOOL
  and READ_AHEAD, for the transmit queue (the sending queue manager's; the channel reads it)
  and the receive queue (the receiving one's; the Q Apply browser reads it).
* Dependent transactions: the steady-state engine's share
  (:func:`engine.perf.qrep.costs.dependent_share` of ``workload.dependent_txn_pct``).
* Knob values, defaults and ranges: :mod:`engine.registry` (:mod:`engine.sim.knobs`); the
  simulation keeps no default of its own.
* Db2 Mirror: the change rate of :mod:`engine.perf.mirror`'s prediction and its resync time
  per tracked change (:mod:`engine.sim.mirror`).

Distributions and variability
-----------------------------
* **Arrivals**: a Poisson process at the profile's rate (independent commits of many
  application threads); batch windows add large transactions at their own Poisson rate.
* **Transaction size**: the workload's rows per transaction (``workload.rows_per_txn``, or a
  batch window's); a message holds up to TRANS_BATCH_SZ of them, a transaction larger than
  MAX_MESSAGE_SIZE several messages. Service times scale with the rows.
* **Capture-side, MQPUT, channel and browser service**: CPU and I/O per row and per message
  at the stage's capacity, deterministic for a message of given rows (path lengths vary
  little); the waits come from the cycles and bursts (log-read passes and SLEEP_INTERVAL,
  MQ commits, channel batches, page-set reads).
* **Agents' service** of a target transaction: the cost model's CPU part (Db2 SQL and commit
  CPU, agent CPU, MQGET; fixed for the transaction's rows) plus its Db2 class 2 *wait* (log
  force, synchronous I/O, lock waits) drawn exponential with the cost model's mean
  (:func:`engine.sim.cost_model.apply_wait_share`). The squared coefficient of variation is
  the wait share squared (0.36 at the Redpaper baseline: 1.17 of 1.96 ms is wait).
* **Dependencies**: each target transaction depends on the one before with the dependent
  share (a Bernoulli draw per target transaction). It waits for that one within the memory
  MEMORY_LIMIT gives the browser, so the simulation resolves the dependency graph itself: the
  agents' capacity is taken without the steady state's graph limit
  (:func:`engine.sim.cost_model.graph_agents_share`).

Agreement with the steady-state engine is a measurement, not a constraint:
``benchmarks/bench_sim_agreement.py`` runs ``qrtune simulate --rate R`` and ``qrtune predict`` at R
(50% and 80% of capacity) on the open-workload samples and prints throughput and CAPTURE / Q /
APPLY / END2END latency of both (goal: throughput within 2%; END2END, CAPTURE and Q latency
within 25%); ``tests/engine/sim/test_sim_agrees_with_qrep.py``
pins looser tolerances.

Long runs: where the run is stationary (a constant rate, no batch window, no event, the queues
settled) a window of it is simulated and the windows after it are copies of it
(:mod:`engine.sim.stationary`: the method, and what is kept transaction by transaction:
everything where queues form or drain); ``summary["replicated_s"]`` says how much, and
``qrtune simulate --every-transaction`` (``stationary_windows=False``) simulates every one.

Bounds: :func:`engine.sim.limits.check_simulation_budget` refuses, before anything is
allocated, a run that would simulate more than 60 million transactions (copied windows not
counted) or report 100,000 time bins, a rate above the registry's OFFERED_ROWS_PER_S range or
a non-finite duration, naming the field and the range;
transactions are streamed in chunks (a pre-loaded receive queue too), so memory follows the
reported series and what is in flight, not the messages simulated. A chunk's results are added
to the series in a second thread while the next chunk goes through the pipeline (the compiled
kernels release the GIL), one chunk behind at most.

Known simplifications: capture-side and channel service times are deterministic given a
message's rows; Capture's log reader reads at the speed of the busiest capture-side stage
and sleeps SLEEP_INTERVAL each time it reaches the end of the log (:mod:`engine.sim.logread`:
a multiple-vacation queue, so a commit waits half a sleep plus the reader's queueing, and the
cycle is the sleep plus the pass) and commits at the end of each pass, after
``maxtrans_per_commit`` transactions and at COMMIT_INTERVAL boundaries (the MQCMIT itself takes
no time); the browser's MQGET takes no time (its work on a message, parsing, dependency analysis
and a read back from the page set, follows the MQGET, in memory), so the burst a channel batch
delivers waits in Q Apply's memory (APPLY_LATENCY) as far as MEMORY_LIMIT holds it, as in the
steady-state engine, but the bursts come one channel batch apart where the steady-state engine
takes them as Poisson arrivals; a dependent transaction depends on the one just before it (not on a particular in-flight one) and COMMIT_COUNT groups consecutive
messages (an agent does not commit early when the work queue runs dry); BATCHINT, MQ buffer
pool synchronous writes slowing the putter and resync competing with the application for CPU
are not modelled; the MQ buffer-pool mover (``mq-mover``) and Db2 V8 storage kinds are not
simulated (``qrtune predict`` gives their figures); in a drain the browser reads ahead as far
as Q Apply's MEMORY_LIMIT allows, so APPLY_LATENCY there is seconds; peaks in the summary are
sampled at 1 s edges.

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


def simulate(
    project,
    duration_s: float,
    seed: int | None = 0,
    profile=None,
    events=(),
    progress=None,
    cancel=None,
    **kw,
) -> SimResult:
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
        Offered workload over time; None: the project's load profile
        (:attr:`engine.model.Project.simulation`), or its own workload when it sets none.
    events : iterable of Event
        Outages and slow-downs (the project's saved events are the caller's to pass).
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
    return simulate_settings(
        settings,
        duration_s,
        project=project,
        seed=seed,
        profile=profile if profile is not None else project.simulation.profile_model(),
        events=events,
        progress=progress,
        cancel=cancel,
        **kw,
    )


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
