"""What the simulation needs from a project: stage capacities, service-time shapes, knobs.

Stage capacities come from the steady-state engine's cost model evaluated at the operating
point (:func:`engine.predict.predict_settings`, one :class:`engine.perf.result.StageResult` per
stage: name, capacity, unit): the service demands per row, message and transaction (CPU,
Db2 class 2 time, channel time per message, log forces) stretched by the CPU contention the
steady-state solver finds. Each stage is placed in the pipeline by its name (the bottleneck
vocabulary of ../shared/validation/README.md) or, for a name not listed below, by its
position relative to ``mq_channel``:

* transaction level, before messages are built: ``qcapture`` and other capture-side stages;
* message level, before the MQPUT completes: ``mq_log``;
* the channel moving messages off the transmit queue: ``mq_channel`` (messages that were
  pushed out of the buffer pool are read at ``mq_pageset`` speed instead);
* ``qapply_browser``: Q Apply's single browser thread reading (and parsing) each message;
* the apply side, served by ``NUM_APPLY_AGENTS`` parallel agents whose combined rate is the
  smallest other apply-side capacity (``qapply_agents``, ``qapply_cpu``, ``target_db2``...).

Several queue maps (``qcapture.queue_maps``) are pooled: the prediction gives each map's
channel, browser and agents in rows/s of the whole flow, the simulation runs one channel, one
browser and ``queue_maps x NUM_APPLY_AGENTS`` agents (each taking an agent's time).

Nothing is solved so that the simulation reproduces a figure of the steady-state engine: its
latencies are never read. What else comes from the engine goes through
:mod:`engine.sim.cost_model` (the one adapter to :mod:`engine.perf.qrep`):

* the split of an agent's service into CPU and Db2 class 2 wait
  (:func:`engine.sim.cost_model.apply_wait_share`): the CPU part is fixed for a transaction
  of given rows, the wait part (log force, synchronous I/O, lock waits) is drawn exponential,
  so the service's squared coefficient of variation is the wait share squared;
* fitted coefficients used as delays (:func:`engine.sim.cost_model.qrep_delays`): the
  merged-log read delay (Q Capture on another LPAR than the source), the source transactions Q Capture puts per MQ commit
  (``maxtrans_per_commit``) and the channel's time per batch;
* the share of target transactions that depend on an earlier one
  (:func:`engine.sim.cost_model.dependent_share`): each waits for the one before it, within
  the MEMORY_LIMIT the simulated browser holds, so the simulation resolves the dependency graph
  itself and takes the agents' capacity without the steady state's graph limit
  (:func:`engine.sim.cost_model.graph_agents_share`); the contention between busy agents (their
  time and CPU) is in the capacity, evaluated at the load of the prediction.

Knob values, defaults and ranges come from :mod:`engine.registry` (:mod:`engine.sim.knobs`).
Capacities in msgs/s, MB/s or txns/s are converted to rows/s with the prediction's message
size and the workload's rows per transaction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.errors import FieldError
from engine.perf.qrep.queue_maps import base_name
from engine.sim import cost_model
from engine.sim.knobs import knob

if TYPE_CHECKING:
    from engine.sim.cf_course import PutGate

CAPTURE_NAMES = {"qcapture", "capture", "capture_cpu", "log_read", "source_log"}
PUT_NAMES = {"mq_log", "mq_put", "capture_mq_log"}
CHANNEL_NAMES = {"mq_channel", "channel", "network"}
PAGESET_NAMES = {"mq_pageset", "pageset"}
APPLY_NAMES = {"qapply_agents", "qapply_cpu", "target_db2", "qapply", "apply_mq_log", "mq_get"}
BROWSER_NAMES = {"qapply_browser"}

SOURCE_NAMES = {"source_workload", "source", "source_cpu"}

#: Bytes per KB and per MB of the knobs given in KB and MB.
KB_BYTES = 1024
MB_BYTES = 2**20
#: Milliseconds per second.
MS_PER_S = 1000.0


@dataclass(frozen=True)
class PipelineConfig:
    """Everything the Q Replication pipeline simulation uses, in SI-ish units.

    Attributes
    ----------
    capture_stages : tuple of (str, float)
        Transaction-level stages before message building: (name, rows/s).
    put_stages : tuple of (str, float)
        Message-level stages before the MQPUT completes: (name, rows/s).
    channel_stages : tuple of (str, float)
        Stages moving messages off the transmit queue: (name, rows/s).
    pageset_rows_per_s : float or None
        Speed at which the channel gets messages pushed out to the page set, rows/s
        (None: no slower than from the buffer pool).
    apply_stages : tuple of (str, float)
        Apply-side stages: (name, rows/s); their minimum is the agents' combined rate.
    agents : int
        NUM_APPLY_AGENTS.
    source_rows_per_s : float or None
        Capacity of the source workload, rows/s (None: unbounded).
    rows_per_txn : int
    trans_batch_sz : int
    bytes_per_row : float
        Message bytes per row (from the prediction's message size, else ``table.row_bytes``).
    commit_interval_s, sleep_interval_s : float
        Q Capture COMMIT_INTERVAL and SLEEP_INTERVAL, s.
    capture_memory_bytes, apply_memory_bytes, max_message_bytes : float
        Q Capture and Q Apply MEMORY_LIMIT and Q Capture MAX_MESSAGE_SIZE, bytes.
    network_latency_s : float
        One-way network delay, s.
    xmitq_buffer_msgs : float
        Messages the transmit queue's buffer pool holds before messages go to the page set
        (``inf`` when unknown).
    recvq_buffer_msgs, recvq_pageset_s_per_msg : float
        Messages the receive queue's buffer pool holds, and the extra time (s) the Q Apply
        browser spends reading a message that did not fit back from the page set.
    capture_monitor_s, apply_monitor_s : float
        MONITOR_INTERVAL of Q Capture and Q Apply, s.
    predicted_rows_per_s : float or None
        Steady-state throughput predicted by the engine, rows/s.
    log_delay_s : float
        Time after its commit before Q Capture can read a transaction from the log, s
        (the steady-state engine's fitted ``log_merge_delay_ms`` when Q Capture reads another LPAR's log).
    browser_rows_per_s : float or None
        Speed of Q Apply's browser (one thread per receive queue), rows/s; None: instantaneous.
    agent_service_cv2 : float
        Squared coefficient of variation of an agent's service time: the square of the share of
        it that is Db2 class 2 wait (:func:`engine.sim.cost_model.apply_wait_share`; 0: every
        message of the same size takes the same time; 1: exponential).
    maxtrans_per_commit : float
        Source transactions Q Capture puts before it commits to MQ within a log-read cycle
        (``inf``: only at the end of the cycle).
    channel_batch_msgs : float
        BATCHSZ: MQ messages a channel batch holds at most (``inf``: no batches).
    channel_sync_s : float
        Time the channel spends ending a batch (syncpoint flows, log forces for persistent
        messages), s; the confirmation round trip (twice ``network_latency_s``) comes on top.
    persistent : bool
        Q Capture puts persistent messages.
    commit_count : int
        Q Apply COMMIT_COUNT: message groups (a message of TRANS_BATCH_SZ transactions, or all
        the messages of one large transaction) an agent applies in one target transaction.
    dependent_share : float
        Share (0..1) of target transactions that start only when the one before them has
        committed (:func:`engine.perf.qrep.costs.dependent_share`).
    notes : tuple of str
        Simplifications and fallbacks used, for the summary.
    """

    capture_stages: tuple
    put_stages: tuple
    channel_stages: tuple
    pageset_rows_per_s: float | None
    apply_stages: tuple
    agents: int
    rows_per_txn: int
    trans_batch_sz: int
    bytes_per_row: float
    commit_interval_s: float
    sleep_interval_s: float
    capture_memory_bytes: float
    apply_memory_bytes: float
    max_message_bytes: float
    network_latency_s: float
    capture_monitor_s: float
    apply_monitor_s: float
    persistent: bool
    commit_count: int
    source_rows_per_s: float | None = None
    xmitq_buffer_msgs: float = math.inf
    recvq_buffer_msgs: float = math.inf
    recvq_pageset_s_per_msg: float = 0.0
    predicted_rows_per_s: float | None = None
    log_delay_s: float = 0.0
    browser_rows_per_s: float | None = None
    agent_service_cv2: float = 0.0
    maxtrans_per_commit: float = math.inf
    channel_batch_msgs: float = math.inf
    channel_sync_s: float = 0.0
    dependent_share: float = 0.0
    coefficients_version: str = ""
    notes: tuple = field(default=())
    cf_structure: tuple | None = None
    cf_gate: PutGate | None = None  # a second run's: when Q Capture may put (engine.sim.cf_course)

    @property
    def commit_cycle_s(self) -> float:
        """Time between Q Capture's MQ commits, s.

        Capture commits at the end of each log-read cycle: every SLEEP_INTERVAL while it keeps
        up with the log, and at least every COMMIT_INTERVAL.
        """
        return min(self.commit_interval_s, self.sleep_interval_s)

    @property
    def reader_rows_per_s(self) -> float:
        """Speed of Q Capture's log reader in a pass over the log: the busiest capture-side stage, rows/s."""
        return min(c for _, c in self.capture_stages)

    @property
    def apply_rows_per_s(self) -> float:
        """Combined rate of the apply agents, rows/s."""
        return min(c for _, c in self.apply_stages)

    @property
    def apply_servers(self) -> int:
        """Parallel servers on the apply side: NUM_APPLY_AGENTS, or fewer when a shared resource
        (the apply LPAR's CPU, the target Db2...) caps the agents below their own capacity
        (``ceil(agents x smallest apply capacity / agents' capacity)``: an agent waiting for a
        processor is not applying)."""
        own = dict(self.apply_stages).get("qapply_agents")
        if not own:
            return self.agents
        return min(self.agents, max(1, math.ceil(self.agents * self.apply_rows_per_s / own - 1e-9)))

    @property
    def rows_per_target_txn(self) -> int:
        """Rows of a typical target transaction (COMMIT_COUNT messages of TRANS_BATCH_SZ transactions)."""
        return self.rows_per_txn * self.trans_batch_sz * self.commit_count

    @property
    def channel_rows_per_s(self) -> float:
        """Speed of the channel (the slowest channel-side stage), rows/s."""
        return min(c for _, c in self.channel_stages)

    @property
    def channel_batch_s(self) -> float:
        """Time a channel batch adds besides its messages: sync plus confirmation round trip, s."""
        return (
            self.channel_sync_s + 2.0 * self.network_latency_s
            if math.isfinite(self.channel_batch_msgs)
            else 0.0
        )

    @property
    def replication_rows_per_s(self) -> float:
        """Smallest capacity of the replication stages (the source workload left out), rows/s."""
        caps = [c for _, c in self.capture_stages + self.put_stages + self.channel_stages + self.apply_stages]
        if self.browser_rows_per_s:
            caps.append(self.browser_rows_per_s)
        return min(caps)

    @property
    def max_rows_per_s(self) -> float:
        """Smallest stage capacity: the most the pipeline carries at steady state, rows/s."""
        if self.source_rows_per_s:
            return min(self.replication_rows_per_s, self.source_rows_per_s)
        return self.replication_rows_per_s

    def stage_table(self) -> list[dict]:
        """Stages as the simulation uses them: name, group, capacity in rows/s."""
        out = []
        for group, stages in (
            ("capture", self.capture_stages),
            ("put", self.put_stages),
            ("channel", self.channel_stages),
            ("apply", self.apply_stages),
        ):
            out += [{"name": n, "group": group, "capacity_rows_per_s": c} for n, c in stages]
        if self.browser_rows_per_s:
            out.append(
                {"name": "qapply_browser", "group": "apply", "capacity_rows_per_s": self.browser_rows_per_s}
            )
        if self.pageset_rows_per_s:
            out.append(
                {"name": "mq_pageset", "group": "channel", "capacity_rows_per_s": self.pageset_rows_per_s}
            )
        return out


def _to_rows_per_s(
    capacity: float, unit: str, rows_per_msg: float, bytes_per_row: float, rows_per_txn: float
):
    u = (unit or "rows/s").lower().replace(" ", "")
    if u in ("rows/s", "row/s", "rows_per_s"):
        return capacity
    if u in ("msgs/s", "messages/s", "msg/s"):
        return capacity * rows_per_msg
    if u in ("txns/s", "tps", "trans/s", "transactions/s"):
        return capacity * rows_per_txn
    if u in ("mb/s", "mbytes/s"):
        return capacity * 1e6 / bytes_per_row
    if u in ("kb/s",):
        return capacity * 1e3 / bytes_per_row
    if u in ("bytes/s", "b/s"):
        return capacity / bytes_per_row
    return None


def _queue_managers(project) -> list[dict]:
    """Parameters of the flow's queue managers, transmit side first."""
    if project is None:
        return []
    try:
        from engine.topology import flows

        nodes = flows(project, limit=1)[0]
    except Exception:  # noqa: BLE001 - fall back to file order
        nodes = project.nodes
    return [dict(n.params) for n in nodes if n.kind == "queue_manager"]


#: A stage name to put in an error message for each side of the pipeline.
EXAMPLE_STAGE = {"capture": "qcapture", "channel": "mq_channel", "apply": "qapply_agents"}


@dataclass
class StageGroups:
    """The prediction's stages sorted into the pipeline's places (capacities in rows/s)."""

    capture: list = field(default_factory=list)
    put: list = field(default_factory=list)
    channel: list = field(default_factory=list)
    apply: list = field(default_factory=list)
    pageset: float | None = None
    source: float | None = None
    browser: float | None = None


@dataclass(frozen=True)
class MessageShape:
    """Rows and bytes of a typical MQ message."""

    rows_per_txn: int
    trans_batch_sz: int
    bytes_per_row: float

    @property
    def rows_per_msg(self) -> int:
        """Rows of a message of TRANS_BATCH_SZ transactions."""
        return self.rows_per_txn * self.trans_batch_sz

    def rows_per_s(self, stage) -> float | None:
        """A stage's capacity in rows/s (None when its unit is not understood)."""
        return _to_rows_per_s(
            float(stage.capacity), stage.unit, self.rows_per_msg, self.bytes_per_row, self.rows_per_txn
        )


def message_shape(settings: dict, prediction, notes: list) -> MessageShape:
    """Rows per transaction, TRANS_BATCH_SZ and message bytes per row (from the prediction's message size)."""
    rows_per_txn = int(knob(settings, "workload.rows_per_txn"))
    trans_batch_sz = int(knob(settings, "qcapture.trans_batch_sz"))
    msg_kb = prediction.metrics.get("msg_size_kb")
    if msg_kb:
        bytes_per_row = float(msg_kb) * KB_BYTES / (rows_per_txn * trans_batch_sz)
    else:
        bytes_per_row = float(knob(settings, "table.row_bytes"))
        notes.append("message bytes per row taken from table.row_bytes (the prediction gives no msg_size_kb)")
    return MessageShape(rows_per_txn, trans_batch_sz, bytes_per_row)


def _place(groups: StageGroups, name: str, rows_per_s: float, seen_channel: bool) -> None:
    """Put one stage of capacity ``rows_per_s`` into its place in ``groups``."""
    if name in SOURCE_NAMES:
        groups.source = rows_per_s if groups.source is None else min(groups.source, rows_per_s)
    elif name in PAGESET_NAMES:
        groups.pageset = rows_per_s
    elif name in BROWSER_NAMES:
        groups.browser = rows_per_s if groups.browser is None else min(groups.browser, rows_per_s)
    elif name in PUT_NAMES:
        groups.put.append((name, rows_per_s))
    elif name in CHANNEL_NAMES:
        groups.channel.append((name, rows_per_s))
    elif name in APPLY_NAMES or (seen_channel and name not in CAPTURE_NAMES):
        groups.apply.append((name, rows_per_s))
    else:
        groups.capture.append((name, rows_per_s))


def without_backlog_reads(stage, rows_per_s: float) -> float:
    """A stage's speed (rows/s) without the reads back from the page set or a queue file that the
    steady state charges at its modelled depth (``backlog_read_ms`` per message): the simulation
    reads back what its own queues hold beyond their buffers."""
    read_s = float(getattr(stage, "backlog_read_ms", 0.0)) / MS_PER_S
    msgs_per_s = float(getattr(stage, "capacity_msgs_per_s", 0.0))
    if read_s <= 0.0 or msgs_per_s <= 0.0 or read_s >= 1.0 / msgs_per_s:
        return rows_per_s
    return rows_per_s / (1.0 - read_s * msgs_per_s)


def sort_stages(prediction, shape: MessageShape, notes: list) -> StageGroups:
    """The prediction's stages in the pipeline's places; stages with a capacity not understood are noted."""
    groups = StageGroups()
    for st in prediction.stages:
        rows_per_s = shape.rows_per_s(st)
        if rows_per_s is None or not math.isfinite(rows_per_s) or rows_per_s <= 0:
            notes.append(f"stage {st.name} ({st.capacity} {st.unit}) not used: unit or value not understood")
            continue
        rows_per_s = without_backlog_reads(st, rows_per_s)
        # a queue map's own stage (qapply_browser_map2) takes its kind's place, in flow rows/s
        _place(groups, base_name(st.name), rows_per_s, seen_channel=bool(groups.channel))
    return groups


def reads_the_send_queue(settings: dict) -> bool:
    """True when a client Q Apply reads the send queue on Q Capture's queue manager (no channel)."""
    return (
        bool(knob(settings, "qapply.reads_send_queue")) and knob(settings, "qapply.mq_connection") == "client"
    )


def complete_stages(groups: StageGroups, settings: dict, prediction, notes: list) -> None:
    """Fill the places a prediction may leave empty; raise when the pipeline cannot run.

    Raises
    ------
    FieldError
        No capture-, channel- or apply-side stage.
    """
    if not groups.capture and groups.put:
        groups.capture, groups.put = groups.put[:1], groups.put[1:]
    if not groups.apply and groups.browser is not None:
        groups.apply.append(("qapply_browser", groups.browser))
        groups.browser = None
    if knob(settings, "run.mode") == "drain":
        # draining a pre-loaded receive queue: Q Capture and the channel do not run
        for side in ("capture", "channel"):
            if not getattr(groups, side):
                getattr(groups, side).append((EXAMPLE_STAGE[side], math.inf))
                notes.append(
                    f"drain: no {EXAMPLE_STAGE[side]} stage in the prediction (not running); "
                    "taken as instantaneous"
                )
    if not groups.channel and reads_the_send_queue(settings):
        # the send queue is the receive queue: what Q Capture commits is on Q Apply's queue at once
        groups.channel.append((EXAMPLE_STAGE["channel"], math.inf))
        notes.append("Q Apply reads the send queue: no channel, messages reach Q Apply's queue at once")
    for side, example in EXAMPLE_STAGE.items():
        if not getattr(groups, side):
            raise FieldError(
                f"prediction.stages ({side} side)",
                [s.name for s in prediction.stages],
                f"at least one {side}-side stage with a capacity (e.g. {example})",
            )


@dataclass(frozen=True)
class BufferPools:
    """What the transmit and the receive queue's buffer pools hold, and the page-set speeds."""

    xmitq_msgs: float
    recvq_msgs: float
    recvq_pageset_s_per_msg: float
    pageset_rows_per_s: float | None


def _drain_pageset_rows_per_s(drain_prediction, shape: MessageShape, notes: list) -> float | None:
    """Page-set read speed from the drain-mode prediction: its ``mq_pageset`` stage, else its browser."""
    if drain_prediction is None:
        return None
    by_name = {st.name: st for st in drain_prediction.stages}
    for name, how in (
        ("mq_pageset", "its mq_pageset stage"),
        ("qapply_browser", "its Q Apply browser reading a deep queue without read-ahead"),
    ):
        st = by_name.get(name)
        rows_per_s = st and shape.rows_per_s(st)
        if rows_per_s:
            notes.append(
                f"page-set read speed {rows_per_s:,.0f} rows/s from the drain-mode prediction ({how})"
            )
            return rows_per_s
    return None


def buffer_pools(
    project,
    settings: dict,
    shape: MessageShape,
    groups: StageGroups,
    drain_prediction,
    notes: list,
    coefficients=None,
) -> BufferPools:
    """Buffer pools of the flow's first (transmit) and last (receive) queue manager, and page-set speeds."""
    qms = _queue_managers(project) or [{}]
    msg_bytes = shape.bytes_per_row * shape.rows_per_msg
    xmitq_msgs, xmit_read_s, pool_notes = cost_model.queue_pool(
        qms[0], settings, msg_bytes, "transmit queue", coefficients
    )
    notes += pool_notes
    recvq_msgs, recv_read_s, pool_notes = cost_model.queue_pool(
        qms[-1], settings, msg_bytes, "receive queue", coefficients
    )
    notes += pool_notes
    pageset = groups.pageset
    if xmit_read_s > 0:
        channel_rows_per_s = dict(groups.channel).get("mq_channel", groups.channel[0][1])
        pageset = 1.0 / (1.0 / channel_rows_per_s + xmit_read_s / shape.rows_per_msg)
    if pageset is None:
        pageset = _drain_pageset_rows_per_s(drain_prediction, shape, notes)
    if pageset is None:
        notes.append(
            "no page-set speed in the prediction: messages pushed to the page set are read at channel speed"
        )
    return BufferPools(xmitq_msgs, recvq_msgs, recv_read_s, pageset)


def max_message_bytes(settings: dict) -> float:
    """Largest MQ message: Q Capture MAX_MESSAGE_SIZE, no more than the queue's MAXMSGL, bytes."""
    return min(
        float(knob(settings, "qcapture.max_message_size_kb")) * KB_BYTES, float(knob(settings, "mq.maxmsgl"))
    )


def channel_batches(settings: dict, delays: dict, notes: list) -> tuple[float, float]:
    """BATCHSZ and the channel's time to end a batch, s; ``(inf, 0)`` without a fitted time per batch."""
    if "ch_batch_s" not in delays:
        notes.append("channel batches not modelled (no fitted time per batch)")
        return math.inf, 0.0
    batchsz = float(knob(settings, "mq.batchsz"))
    persistent = bool(knob(settings, "qcapture.msg_persistence"))
    sync_s = float(delays["ch_batch_s"]) + (float(delays.get("ch_batch_log_s", 0.0)) if persistent else 0.0)
    notes.append(
        f"channel batches of up to BATCHSZ {batchsz:.0f} messages, {MS_PER_S * sync_s:.3g} ms to end each "
        "batch plus the confirmation round trip; messages reach the receive queue at the end of their batch"
    )
    return batchsz, sync_s


def _mechanism_notes(commit_count: int, maxtrans: float) -> list[str]:
    """Notes on COMMIT_COUNT grouping and Q Capture's MQ commits within a cycle."""
    notes = []
    if commit_count > 1:
        notes.append(
            f"Q Apply agents apply COMMIT_COUNT {commit_count} message groups in one target transaction"
        )
    if math.isfinite(maxtrans):
        notes.append(
            f"Q Capture commits to MQ after every {maxtrans:.0f} source transactions within a log-read cycle"
        )
    return notes


def _without_graph_limit(apply_stages: list, graph_share: float) -> list:
    """The apply-side stages with the agents' own capacity: ``qapply_agents`` over the share of the
    agents the steady state's dependency graph keeps busy (the simulation finds that limit itself)."""
    if graph_share >= 1.0 or graph_share <= 0.0:
        return list(apply_stages)
    return [
        (name, rows_per_s / graph_share if base_name(name) == "qapply_agents" else rows_per_s)
        for name, rows_per_s in apply_stages
    ]


def knob_fields(settings: dict) -> dict:
    """The :class:`PipelineConfig` fields that are knobs, in the simulation's units (s, bytes)."""
    return {
        # several queue maps: every map's browser, channel and agents pooled (the prediction's
        # per-map capacities are in rows/s of the whole flow), so NUM_APPLY_AGENTS per map
        "agents": int(knob(settings, "qapply.num_apply_agents")) * int(knob(settings, "qcapture.queue_maps")),
        "commit_interval_s": float(knob(settings, "qcapture.commit_interval_ms")) / MS_PER_S,
        "sleep_interval_s": float(knob(settings, "qcapture.sleep_interval_ms")) / MS_PER_S,
        "capture_memory_bytes": float(knob(settings, "qcapture.memory_limit_mb")) * MB_BYTES,
        "apply_memory_bytes": float(knob(settings, "qapply.memory_limit_mb")) * MB_BYTES,
        "max_message_bytes": max_message_bytes(settings),
        "network_latency_s": float(knob(settings, "hardware.network_latency_ms")) / MS_PER_S,
        "capture_monitor_s": float(knob(settings, "qcapture.monitor_interval_ms")) / MS_PER_S,
        "apply_monitor_s": float(knob(settings, "qapply.monitor_interval_ms")) / MS_PER_S,
        "persistent": bool(knob(settings, "qcapture.msg_persistence")),
        "commit_count": int(knob(settings, "qapply.commit_count")),
    }


def build_config(
    settings: dict,
    prediction,
    project=None,
    drain_prediction=None,
    delays=None,
    coefficients=None,
    wait_share=None,
) -> PipelineConfig:
    """The simulation's view of a Q Replication scenario and its steady-state prediction.

    Parameters
    ----------
    settings : dict
        Scenario settings (``kind: qrep``), as :func:`engine.scenario.project_to_scenario` gives.
    prediction : engine.perf.result.Prediction
        The steady-state prediction of those settings (its stages' capacities and message size;
        its latencies are not used).
    project : engine.model.Project, optional
        For knobs the scenario does not carry (buffer pool thresholds).
    drain_prediction : engine.perf.result.Prediction, optional
        The steady-state prediction of the same settings draining a deep queue
        (``run.mode: drain``); gives the page-set read speed when ``prediction`` has no
        ``mq_pageset`` stage: its ``mq_pageset`` capacity (read-ahead on) or else its
        ``qapply_browser`` capacity (a reader getting messages from the page set).
    delays : dict, optional
        ``log_delay_s`` and the fields of :data:`engine.sim.cost_model.DELAY_COEFFICIENTS`; default: from
        :func:`engine.sim.cost_model.qrep_delays`.
    coefficients : Coefficients or mapping, optional
        The steady-state engine's coefficients the prediction was made with; default: its
        coefficient file.
    wait_share : float, optional
        Share of an agent's service that is Db2 class 2 wait (0..1); default: from
        :func:`engine.sim.cost_model.apply_wait_share`.

    Raises
    ------
    FieldError
        The prediction has no usable stage for the capture, channel or apply side.
    """
    notes: list[str] = []
    shape = message_shape(settings, prediction, notes)
    groups = sort_stages(prediction, shape, notes)
    complete_stages(groups, settings, prediction, notes)
    pools = buffer_pools(project, settings, shape, groups, drain_prediction, notes, coefficients)
    if delays is None:
        delays, delay_notes = cost_model.qrep_delays(settings, coefficients)
        notes += delay_notes
    batch_msgs, sync_s = channel_batches(settings, delays, notes)
    share, dep_notes = cost_model.dependent_share(settings, coefficients)
    notes += dep_notes
    graph_share, graph_notes = cost_model.graph_agents_share(settings, coefficients)
    notes += graph_notes
    apply_stages = _without_graph_limit(groups.apply, graph_share)
    if wait_share is None:
        wait_share, wait_notes = cost_model.apply_wait_share(settings, coefficients)
        notes += wait_notes
    knobs = knob_fields(settings)
    maxtrans = float(delays.get("maxtrans_per_commit", math.inf))
    notes += _mechanism_notes(knobs["commit_count"], maxtrans)
    predicted = prediction.metrics.get("apply_rows_per_s") or prediction.metrics.get("capture_rows_per_s")
    return PipelineConfig(
        capture_stages=tuple(groups.capture),
        put_stages=tuple(groups.put),
        channel_stages=tuple(groups.channel),
        pageset_rows_per_s=pools.pageset_rows_per_s,
        apply_stages=tuple(apply_stages),
        source_rows_per_s=groups.source,
        browser_rows_per_s=groups.browser,
        rows_per_txn=shape.rows_per_txn,
        trans_batch_sz=shape.trans_batch_sz,
        bytes_per_row=shape.bytes_per_row,
        xmitq_buffer_msgs=pools.xmitq_msgs,
        recvq_buffer_msgs=pools.recvq_msgs,
        recvq_pageset_s_per_msg=pools.recvq_pageset_s_per_msg,
        predicted_rows_per_s=float(predicted) if predicted else None,
        log_delay_s=float(delays.get("log_delay_s", 0.0)),
        agent_service_cv2=float(wait_share) ** 2,
        maxtrans_per_commit=maxtrans,
        channel_batch_msgs=batch_msgs,
        channel_sync_s=sync_s,
        dependent_share=share,
        coefficients_version=getattr(prediction, "coefficients_version", ""),
        notes=tuple(notes),
        cf_structure=cost_model.cf_structure_of(settings),
        **knobs,
    )
