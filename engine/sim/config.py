"""What the simulation needs from a project: stage capacities from the steady-state engine, knobs.

Capacities are *not* computed here. They come from the steady-state prediction
(:func:`engine.predict.predict_settings`, one :class:`engine.perf.result.StageResult` per stage:
name, capacity, unit) so the simulation uses the same stages and costs as the steady-state
model. Each stage is placed in the pipeline by its name (the bottleneck vocabulary of
../shared/validation/README.md) or, for a name not listed below, by its position relative to
``mq_channel``:

* transaction level, before messages are built: ``qcapture`` and other capture-side stages;
* message level, before the MQPUT completes: ``mq_log``;
* the channel moving messages off the transmit queue: ``mq_channel`` (messages that were
  pushed out of the buffer pool are read at ``mq_pageset`` speed instead);
* ``qapply_browser``: Q Apply's single browser thread reading (and parsing) each message;
* the apply side, served by ``NUM_APPLY_AGENTS`` parallel agents whose combined rate is the
  smallest other apply-side capacity (``qapply_agents``, ``qapply_cpu``, ``target_db2``...).

Beyond capacities, the simulation takes from the steady-state engine (never from a published
measurement):

* the agents' service-time variability (:func:`agent_service_cv2`): the squared coefficient of
  variation that makes the queueing wait of ``NUM_APPLY_AGENTS`` agents at the predicted
  utilisation equal to the predicted APPLY_LATENCY minus one service (heavy-traffic
  Kingman / Allen-Cunneen form);
* fitted coefficients (:func:`qrep_delays`): the log-read delay, the MQ staging time, the
  source transactions Q Capture puts per MQ commit (``maxtrans_per_commit``) and the channel's
  time per batch (``ch_batch_us``, plus ``ch_batch_log_us`` for persistent messages);
* the share of target transactions that depend on an earlier one
  (:func:`engine.perf.qrep.costs.dependent_share` of ``workload.dependent_txn_pct``, per target
  transaction of COMMIT_COUNT message groups). The agents' capacity already carries the
  parallelism the steady-state engine loses to them (``effective_agents``); the simulation
  adds the wait of each dependent transaction for the one before it.

Capacities in msgs/s, MB/s or txns/s are converted to rows/s with the prediction's message
size and the workload's rows per transaction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from engine.errors import FieldError, QrtuneError
from engine.perf.qrep.queueing import erlang_c

CAPTURE_NAMES = {"qcapture", "capture", "capture_cpu", "log_read", "source_log"}
PUT_NAMES = {"mq_log", "mq_put", "capture_mq_log"}
CHANNEL_NAMES = {"mq_channel", "channel", "network"}
PAGESET_NAMES = {"mq_pageset", "pageset"}
APPLY_NAMES = {"qapply_agents", "qapply_cpu", "target_db2", "qapply", "apply_mq_log", "mq_get"}
BROWSER_NAMES = {"qapply_browser"}

#: Largest squared coefficient of variation of an agent's service time the simulation uses: at
#: light load a predicted wait cannot come from queueing, and asking more would mean rare
#: services of hundreds of times the mean.
MAX_SERVICE_CV2 = 100.0
SOURCE_NAMES = {"source_workload", "source", "source_cpu"}

PAGE_BYTES = 4096


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
        browser waits to read a message that did not fit back from the page set.
    capture_monitor_s, apply_monitor_s : float
        MONITOR_INTERVAL of Q Capture and Q Apply, s.
    predicted_rows_per_s : float or None
        Steady-state throughput predicted by the engine, rows/s.
    log_delay_s : float
        Time after its commit before Q Capture can read a transaction from the log, s
        (the steady-state engine's fitted ``cap_log_delay_ms``).
    mq_staging_s : float
        Fixed time a message spends being staged in MQ besides queueing and transmission, s
        (the steady-state engine's fitted ``mq_staging_ms``).
    browser_rows_per_s : float or None
        Speed of Q Apply's browser (one thread per receive queue), rows/s; None: instantaneous.
    agent_service_cv2 : float
        Squared coefficient of variation of an agent's service time (0: every message of the
        same size takes the same time; 1: exponential).
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
    source_rows_per_s: float | None = None
    rows_per_txn: int = 5
    trans_batch_sz: int = 1
    bytes_per_row: float = 300.0
    commit_interval_s: float = 0.5
    sleep_interval_s: float = 0.05
    capture_memory_bytes: float = 500 * 2**20
    apply_memory_bytes: float = 200 * 2**20
    max_message_bytes: float = 10 * 2**20
    network_latency_s: float = 0.0
    xmitq_buffer_msgs: float = math.inf
    recvq_buffer_msgs: float = math.inf
    recvq_pageset_s_per_msg: float = 0.0
    capture_monitor_s: float = 10.0
    apply_monitor_s: float = 10.0
    predicted_rows_per_s: float | None = None
    log_delay_s: float = 0.0
    mq_staging_s: float = 0.0
    browser_rows_per_s: float | None = None
    agent_service_cv2: float = 0.0
    maxtrans_per_commit: float = math.inf
    channel_batch_msgs: float = math.inf
    channel_sync_s: float = 0.0
    persistent: bool = True
    commit_count: int = 1
    dependent_share: float = 0.0
    coefficients_version: str = ""
    notes: tuple = field(default=())

    @property
    def commit_cycle_s(self) -> float:
        """Time between Q Capture's MQ commits, s.

        Capture commits at the end of each log-read cycle: every SLEEP_INTERVAL while it keeps
        up with the log, and at least every COMMIT_INTERVAL.
        """
        return min(self.commit_interval_s, self.sleep_interval_s)

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
        return self.channel_sync_s + 2.0 * self.network_latency_s if math.isfinite(self.channel_batch_msgs) else 0.0

    @property
    def max_rows_per_s(self) -> float:
        """Smallest stage capacity: the most the pipeline carries at steady state, rows/s."""
        caps = [c for _, c in self.capture_stages + self.put_stages + self.channel_stages + self.apply_stages]
        if self.browser_rows_per_s:
            caps.append(self.browser_rows_per_s)
        if self.source_rows_per_s:
            caps.append(self.source_rows_per_s)
        return min(caps)

    def stage_table(self) -> list[dict]:
        """Stages as the simulation uses them: name, group, capacity in rows/s."""
        out = []
        for group, stages in (("capture", self.capture_stages), ("put", self.put_stages),
                              ("channel", self.channel_stages), ("apply", self.apply_stages)):
            out += [{"name": n, "group": group, "capacity_rows_per_s": c} for n, c in stages]
        if self.browser_rows_per_s:
            out.append({"name": "qapply_browser", "group": "apply", "capacity_rows_per_s": self.browser_rows_per_s})
        if self.pageset_rows_per_s:
            out.append({"name": "mq_pageset", "group": "channel", "capacity_rows_per_s": self.pageset_rows_per_s})
        return out


def _get(settings: dict, path: str, default):
    cur = settings
    for part in path.split("."):
        if not isinstance(cur, dict) or cur.get(part) is None:
            return default
        cur = cur[part]
    return cur


def _to_rows_per_s(capacity: float, unit: str, rows_per_msg: float, bytes_per_row: float, rows_per_txn: float):
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


def _queue_pool(qm: dict, settings: dict, msg_bytes: float, which: str):
    """Messages a queue's buffer pool holds and the wait to read one back from the page set (s).

    From :mod:`engine.perf.mq_bufferpool`: ``BufferPool.capacity_messages`` for the typical
    message, and ``Channel.pageset_read_us`` (divided by read-ahead when it is on). Returns
    ``(inf, 0, notes)`` when the model or the knobs are not available.
    """
    pages = qm.get("buffpool_pages", _get(settings, "mq.buffpool_pages", None))
    if not pages:
        return math.inf, 0.0, [f"no BUFFPOOL size: the {which} never reaches the page set"]
    try:
        from engine.perf import mq_bufferpool as mqbp

        kw = {}
        if qm.get("dwp_start_pct") is not None:
            kw["dwp_start_pct"] = float(qm["dwp_start_pct"])
        if qm.get("dwp_target_pct") is not None:
            kw["dwp_target_pct"] = tuple(float(x) for x in qm["dwp_target_pct"])
        if qm.get("pageclas") is not None:
            kw["pageclas"] = qm["pageclas"]
        pool = mqbp.BufferPool(buffers=int(pages), **kw)
        read_ahead = bool(qm.get("read_ahead", _get(settings, "mq.read_ahead", False)))
        reader = mqbp.Channel(read_ahead=read_ahead)
        nbytes = max(1, round(msg_bytes))
        capacity = float(pool.capacity_messages(nbytes))
        extra_s = reader.pageset_read_us(nbytes) * 1e-6
    except (ImportError, AttributeError, KeyError, OSError, FieldError) as e:
        pages_per_msg = max(1, math.ceil(msg_bytes / PAGE_BYTES))
        return float(pages) / pages_per_msg, 0.0, [
            (f"{which}: capacity = BUFFPOOL pages / pages per message, no page-set wait "
            f"(engine.perf.mq_bufferpool unusable: {e!r})")]
    return capacity, extra_s, [
        (f"{which} holds {capacity:,.0f} messages in its buffer pool; a message beyond that is read back from the "
        f"page set in {1000 * extra_s:.3g} ms (read-ahead {'on' if read_ahead else 'off'}; engine.perf.mq_bufferpool)")]


#: Coefficients of the steady-state Q Replication engine the simulation uses:
#: field -> (coefficient name, factor to the field's unit).
DELAY_COEFFICIENTS = {
    "log_delay_s": ("cap_log_delay_ms", 1e-3),
    "mq_staging_s": ("mq_staging_ms", 1e-3),
    "maxtrans_per_commit": ("maxtrans_per_commit", 1.0),
    "ch_batch_s": ("ch_batch_us", 1e-6),
    "ch_batch_log_s": ("ch_batch_log_us", 1e-6),
}


def qrep_delays(coefficients=None) -> tuple[dict, list[str]]:
    """Fitted coefficients of the steady-state engine (:mod:`engine.perf.qrep.coefficients`).

    Parameters
    ----------
    coefficients : Coefficients or mapping of str to float, optional
        The coefficients the prediction was made with (a mapping overrides the named ones of
        ``assets/coefficients/qrep.json``, as :func:`engine.perf.qrep.predict` takes them).

    Returns ``({field: value}, notes)`` with the fields of :data:`DELAY_COEFFICIENTS` in s
    (``maxtrans_per_commit`` in transactions); a coefficient that is missing is left out
    (the simulation then omits that mechanism) and noted.
    """
    try:
        from engine.perf.qrep.coefficients import load

        if coefficients is not None and hasattr(coefficients, "values") and not callable(coefficients.values):
            values = dict(coefficients.values)
        else:
            values = dict(load().values)
            values.update({k: float(v) for k, v in dict(coefficients or {}).items()})
    except Exception as e:  # noqa: BLE001 - any failure to load means: no fitted delays
        return {}, [f"no fitted coefficients (Q Replication coefficients not loadable: {e})"]
    out, notes = {}, []
    for field_name, (coeff, factor) in DELAY_COEFFICIENTS.items():
        if coeff in values:
            out[field_name] = float(values[coeff]) * factor
        else:
            notes.append(f"coefficient {coeff} not in the Q Replication coefficients: mechanism left out")
    return out, notes


def dependent_share(settings: dict, coefficients=None) -> tuple[float, list[str]]:
    """Share of target transactions that depend on an earlier one, as the steady-state engine has it.

    :func:`engine.perf.qrep.costs.dependent_share` of the settings' inputs and message geometry
    (with the same ``coefficients``): ``workload.dependent_txn_pct`` per source transaction,
    ``1 - (1 - p) ** n`` for a target transaction of ``n`` source transactions (TRANS_BATCH_SZ,
    COMMIT_COUNT). Returns ``(share, notes)``: ``(0, [])`` without dependencies, ``(0, [note])``
    when the steady-state engine cannot read the settings.
    """
    pct = _get(settings, "workload.dependent_txn_pct", 0.0)
    if not pct:
        return 0.0, []
    try:
        from engine.perf.qrep import _coefficients
        from engine.perf.qrep.costs import dependent_share as steady_state_share
        from engine.perf.qrep.geometry import message_geometry
        from engine.perf.qrep.inputs import read_inputs

        inputs, _ = read_inputs(settings)
        share = float(steady_state_share(inputs, message_geometry(inputs, _coefficients(coefficients))))
    except (QrtuneError, ImportError) as e:
        return 0.0, [f"dependent transactions not simulated (the steady-state engine cannot read the settings: {e})"]
    note = (f"{100 * share:.3g}% of target transactions wait for the one before them to commit "
            f"(workload.dependent_txn_pct {float(pct):g}%)")
    return share, [note]


def agent_service_cv2(target_wait_ms: float, servers: int, service_ms: float, rho: float,
                      burst_msgs: float, read_ms: float = 0.0) -> float:
    """Squared coefficient of variation of an agent's service time that explains a predicted wait.

    The simulated agents are ``servers`` parallel servers of mean service ``service_ms`` (per
    message) at utilisation ``rho``. Two things make a message wait for them:

    * bursts the simulation produces itself: ``burst_msgs`` messages become visible together
      (one MQ commit or channel batch); the browser hands them over one every ``read_ms``, so
      the average one waits ``(burst_msgs - 1) / 2`` times what an aggregate service
      ``service_ms / servers`` exceeds ``read_ms`` by;
    * service-time variability: with roughly Poisson arrivals (``ca2 = 1``) the Allen-Cunneen
      approximation of a GI/G/c queue waits ``Wq = B (1 + cs2) / 2`` with ``B`` the M/M/c wait
      ``C(c, rho) s / (c (1 - rho))``; where Erlang C is below 1/2 (light load, many agents)
      ``rho`` stands in for it, so that a small predicted wait does not ask for an extreme
      variability.

    The variability is what is left of ``target_wait_ms`` (the steady-state engine's
    APPLY_LATENCY minus one service) after the bursts: ``cs2 = 2 (target - burst) / B - 1``,
    clipped to ``[0, MAX_SERVICE_CV2]``.
    """
    if not (servers >= 1 and service_ms > 0 and 0 < rho and math.isfinite(target_wait_ms)):
        return 0.0
    rho = min(rho, 0.995)
    burst = max(0.0, burst_msgs - 1.0) / 2.0 * max(0.0, service_ms / servers - read_ms)
    erlang = erlang_c(servers, rho)
    base = (erlang if erlang >= 0.5 else max(erlang, rho)) * service_ms / (servers * (1.0 - rho))
    left = target_wait_ms - burst
    return min(MAX_SERVICE_CV2, max(0.0, 2.0 * left / base - 1.0))


def build_config(settings: dict, prediction, project=None, drain_prediction=None, delays=None,
                 coefficients=None) -> PipelineConfig:
    """The simulation's view of a Q Replication scenario and its steady-state prediction.

    Parameters
    ----------
    settings : dict
        Scenario settings (``kind: qrep``), as :func:`engine.scenario.project_to_scenario` gives.
    prediction : engine.perf.result.Prediction
        The steady-state prediction of those settings.
    project : engine.model.Project, optional
        For knobs the scenario does not carry (buffer pool thresholds).
    drain_prediction : engine.perf.result.Prediction, optional
        The steady-state prediction of the same settings draining a deep queue
        (``run.mode: drain``); gives the page-set read speed when ``prediction`` has no
        ``mq_pageset`` stage: its ``mq_pageset`` capacity (read-ahead on) or else its
        ``qapply_browser`` capacity (a reader getting messages from the page set).
    delays : dict, optional
        The fields of :data:`DELAY_COEFFICIENTS`; default: from :func:`qrep_delays`.
    coefficients : Coefficients or mapping, optional
        The steady-state engine's coefficients the prediction was made with (for
        :func:`qrep_delays`); default: its coefficient file.

    Raises
    ------
    FieldError
        The prediction has no usable stage for the capture, channel or apply side.
    """
    notes = []
    rows_per_txn = int(_get(settings, "workload.rows_per_txn", 1))
    tbs = int(_get(settings, "qcapture.trans_batch_sz", 1))
    rows_per_msg = rows_per_txn * tbs
    msg_kb = prediction.metrics.get("msg_size_kb")
    if msg_kb:
        bytes_per_row = float(msg_kb) * 1024.0 / rows_per_msg
    else:
        bytes_per_row = float(_get(settings, "table.row_bytes", 300))
        notes.append("message bytes per row taken from table.row_bytes (the prediction gives no msg_size_kb)")

    groups = {"capture": [], "put": [], "channel": [], "apply": []}
    pageset = None
    source = None
    browser = None
    seen_channel = False
    for st in prediction.stages:
        cap = _to_rows_per_s(float(st.capacity), st.unit, rows_per_msg, bytes_per_row, rows_per_txn)
        if cap is None or not math.isfinite(cap) or cap <= 0:
            notes.append(f"stage {st.name} ({st.capacity} {st.unit}) not used: unit or value not understood")
            continue
        name = st.name
        if name in SOURCE_NAMES:
            source = cap if source is None else min(source, cap)
        elif name in PAGESET_NAMES:
            pageset = cap
        elif name in BROWSER_NAMES:
            browser = cap if browser is None else min(browser, cap)
        elif name in CAPTURE_NAMES:
            groups["capture"].append((name, cap))
        elif name in PUT_NAMES:
            groups["put"].append((name, cap))
        elif name in CHANNEL_NAMES:
            groups["channel"].append((name, cap))
            seen_channel = True
        elif name in APPLY_NAMES or seen_channel:
            groups["apply"].append((name, cap))
        else:
            groups["capture"].append((name, cap))
    if not groups["capture"] and groups["put"]:
        groups["capture"], groups["put"] = groups["put"][:1], groups["put"][1:]
    if not groups["apply"] and browser is not None:
        groups["apply"].append(("qapply_browser", browser))
        browser = None
    if _get(settings, "run.mode", "steady") == "drain":
        # draining a pre-loaded receive queue: Q Capture and the channel do not run
        for g, name in (("capture", "qcapture"), ("channel", "mq_channel")):
            if not groups[g]:
                groups[g].append((name, math.inf))
                notes.append(f"drain: no {name} stage in the prediction (not running); taken as instantaneous")
    for g in ("capture", "channel", "apply"):
        if not groups[g]:
            raise FieldError(f"prediction.stages ({g} side)", [s.name for s in prediction.stages],
                             f"at least one {g}-side stage with a capacity (e.g. "
                             f"{ {'capture': 'qcapture', 'channel': 'mq_channel', 'apply': 'qapply_agents'}[g]})")

    qms = _queue_managers(project) or [{}]
    msg_bytes = bytes_per_row * rows_per_msg
    xmitq_msgs, xmit_extra_s, bp_notes = _queue_pool(qms[0], settings, msg_bytes, "transmit queue")
    notes += bp_notes
    recvq_msgs, recv_extra_s, bp_notes = _queue_pool(qms[-1], settings, msg_bytes, "receive queue")
    notes += bp_notes
    if xmit_extra_s > 0:
        ch_cap = dict(groups["channel"]).get("mq_channel", groups["channel"][0][1])
        pageset = 1.0 / (1.0 / ch_cap + xmit_extra_s / rows_per_msg)
    if pageset is None and drain_prediction is not None:
        by_name = {st.name: st for st in drain_prediction.stages}
        for name, how in (("mq_pageset", "its mq_pageset stage"), ("qapply_browser", ("its Q Apply browser reading "
                                                                                      "a deep queue without read-ahead"))):
            st = by_name.get(name)
            cap = st and _to_rows_per_s(float(st.capacity), st.unit, rows_per_msg, bytes_per_row, rows_per_txn)
            if cap:
                pageset = cap
                notes.append(f"page-set read speed {cap:,.0f} rows/s from the drain-mode prediction ({how})")
                break
    if pageset is None:
        notes.append("no page-set speed in the prediction: messages pushed to the page set are read at "
                     "channel speed")

    max_msg_kb = _get(settings, "qcapture.max_message_size_kb", 10240)
    maxmsgl = _get(settings, "mq.maxmsgl", None)
    max_msg_bytes = float(max_msg_kb) * 1024
    if maxmsgl:
        max_msg_bytes = min(max_msg_bytes, float(maxmsgl))
    predicted = prediction.metrics.get("apply_rows_per_s") or prediction.metrics.get("capture_rows_per_s")
    if delays is None:
        delays, delay_notes = qrep_delays(coefficients)
        notes += delay_notes
    agents = int(_get(settings, "qapply.num_apply_agents", 1))
    persistent = bool(_get(settings, "qcapture.msg_persistence", True))
    batchsz = _get(settings, "mq.batchsz", None)
    sync_s = None
    if batchsz and "ch_batch_s" in delays:
        sync_s = float(delays["ch_batch_s"]) + (float(delays.get("ch_batch_log_s", 0.0)) if persistent else 0.0)
        notes.append(f"channel batches of up to BATCHSZ {int(batchsz)} messages, {1000 * sync_s:.3g} ms to end each "
                     "batch plus the confirmation round trip; messages reach the receive queue at the end of their batch")
    else:
        notes.append("channel batches not modelled (no BATCHSZ or no fitted time per batch)")
    share, dep_notes = dependent_share(settings, coefficients)
    notes += dep_notes
    commit_count = int(_get(settings, "qapply.commit_count", 1))
    if commit_count > 1:
        notes.append(f"Q Apply agents apply COMMIT_COUNT {commit_count} message groups in one target transaction")
    maxtrans = float(delays.get("maxtrans_per_commit", math.inf))
    if math.isfinite(maxtrans):
        notes.append(f"Q Capture commits to MQ after every {maxtrans:.0f} source transactions within a log-read cycle")
    cfg = PipelineConfig(
        capture_stages=tuple(groups["capture"]),
        put_stages=tuple(groups["put"]),
        channel_stages=tuple(groups["channel"]),
        pageset_rows_per_s=pageset,
        apply_stages=tuple(groups["apply"]),
        agents=agents,
        source_rows_per_s=source,
        rows_per_txn=rows_per_txn,
        trans_batch_sz=tbs,
        bytes_per_row=bytes_per_row,
        commit_interval_s=float(_get(settings, "qcapture.commit_interval_ms", 500)) / 1000.0,
        sleep_interval_s=float(_get(settings, "qcapture.sleep_interval_ms", 50)) / 1000.0,
        capture_memory_bytes=float(_get(settings, "qcapture.memory_limit_mb", 500)) * 2**20,
        apply_memory_bytes=float(_get(settings, "qapply.memory_limit_mb", 200)) * 2**20,
        max_message_bytes=max_msg_bytes,
        network_latency_s=float(_get(settings, "hardware.network_latency_ms", 0.0)) / 1000.0,
        xmitq_buffer_msgs=xmitq_msgs,
        recvq_buffer_msgs=recvq_msgs,
        recvq_pageset_s_per_msg=recv_extra_s,
        capture_monitor_s=float(_get(settings, "qcapture.monitor_interval_ms", 10_000)) / 1000.0,
        apply_monitor_s=float(_get(settings, "qapply.monitor_interval_ms", 10_000)) / 1000.0,
        predicted_rows_per_s=float(predicted) if predicted else None,
        log_delay_s=float(delays.get("log_delay_s", 0.0)),
        mq_staging_s=float(delays.get("mq_staging_s", 0.0)),
        browser_rows_per_s=browser,
        maxtrans_per_commit=maxtrans,
        channel_batch_msgs=float(batchsz) if sync_s is not None else math.inf,
        channel_sync_s=sync_s or 0.0,
        persistent=persistent,
        commit_count=commit_count,
        dependent_share=share,
        coefficients_version=getattr(prediction, "coefficients_version", ""),
        notes=tuple(notes),
    )
    return _with_service_variability(cfg, prediction)


def _with_service_variability(cfg: PipelineConfig, prediction) -> PipelineConfig:
    """``cfg`` with the agents' service variability that reproduces the predicted APPLY_LATENCY
    at the predicted operating point (:func:`agent_service_cv2`); unchanged when the prediction
    has no APPLY_LATENCY (e.g. overloaded) or no throughput.

    The agents serve target transactions (COMMIT_COUNT message groups). A dependent
    transaction's wait for the one before it is the simulation's own: the steady-state
    engine's term for it (``dependent share x service / 2``) is left out of the target.
    """
    lat = prediction.metrics.get("apply_latency_ms")
    x = cfg.predicted_rows_per_s
    if not lat or not x or x <= 0:
        return cfg
    servers = cfg.apply_servers
    rows_tgt = cfg.rows_per_target_txn
    service_ms = 1000.0 * rows_tgt * servers / cfg.apply_rows_per_s
    rho = x / cfg.apply_rows_per_s
    msgs_per_s = x / (cfg.rows_per_txn * cfg.trans_batch_sz)
    burst = min(msgs_per_s * cfg.commit_cycle_s, cfg.maxtrans_per_commit / cfg.trans_batch_sz, cfg.channel_batch_msgs)
    burst = max(1.0, burst / cfg.commit_count)
    read_ms = 1000.0 * rows_tgt / cfg.browser_rows_per_s if cfg.browser_rows_per_s else 0.0
    dep_wait_ms = cfg.dependent_share * service_ms / 2.0
    cv2 = agent_service_cv2(float(lat) - service_ms - dep_wait_ms, servers, service_ms, rho, burst, read_ms)
    unit = "message" if cfg.commit_count == 1 else "target transaction"
    note = (f"agents: {servers} servers of {service_ms:.3g} ms per {unit}, squared coefficient of variation "
            f"{cv2:.3g}, so that at the predicted {x:,.0f} rows/s ({100 * min(rho, 1.0):.0f}% busy, bursts of "
            f"{burst:.0f} {unit}s) they wait as long as the steady-state APPLY_LATENCY ({float(lat):.4g} ms) says")
    return replace(cfg, agent_service_cv2=cv2, notes=cfg.notes + (note,))
