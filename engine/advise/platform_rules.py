"""Advice for Linux/UNIX/Windows topologies: client round trips and a distributed queue manager's log.

* Q Apply as an MQ client limited by its round trips (``mq_client``) or by the server's SVRCONN
  channel instances (``mq_svrconn``): connect it in bindings mode to a queue manager on its own
  server, fed by the sender-receiver channel (journey 11: "bindings or client?").
* A log-bound distributed queue manager (``mq_log_disk``, ``apply_mq_log_disk``): the largest
  log buffer (LogBufferPages 4096), so each log write carries more.
* A distributed queue deeper than its queue buffer (DefaultPQBufferSize for persistent messages,
  DefaultQBufferSize otherwise): the engine's modelled depth (``queue_depth_msgs``) beyond the
  buffer is written to the queue file and read back by the channel and the browser; a buffer
  that holds twice that depth.

Each change is judged by the engine like every other rule (:mod:`engine.advise`).
"""

from __future__ import annotations

import math

from engine.advise.base import Rule, first, metric
from engine.metrics import knob_label
from engine.metrics.stages import stage_label
from engine.perf.qrep.distributed_qm import queue_buffer_knob
from engine.registry import KINDS
from engine.registry.platform_knobs import ZOS
from engine.topology import flows, receive_queue_manager, send_queue_manager

#: Largest LogBufferPages MQ accepts.
MAX_LOGBUFFERPAGES = 4096


def _flow_queue_manager(project, receiving: bool):
    """The first flow's receiving (or sending) queue manager; None without a flow, and for the
    receiving one when Q Apply reads the send queue."""
    found = flows(project, limit=1)
    if not found:
        return None
    return receive_queue_manager(found[0]) if receiving else send_queue_manager(found[0])


#: Stages of a client connection (:mod:`engine.perf.qrep.client_apply`).
CLIENT_STAGES = ("mq_client", "mq_svrconn")
_LOCAL_QM_RISK = (
    "A queue manager on Q Apply's server to run and monitor, with its own log disk (persistent messages "
    "are logged there), and a sender-receiver channel from the source queue manager to it."
)


_LOG_BUFFER_RISK = (
    "16 MB of queue manager memory for the log buffer; a faster log disk helps where this does not."
)


def _is_client(project) -> bool:
    qapply = first(project, "qapply")
    return qapply is not None and qapply.params.get("mq_connection") == "client"


class BindingsRule(Rule):
    """Q Apply as an MQ client, limited by the client connection: bindings mode to a local queue manager."""

    id, knob, cost_risk = "bindings_apply", ("qapply", "mq_connection"), _LOCAL_QM_RISK

    def applies(self, project, prediction) -> bool:
        return prediction.bottleneck in CLIENT_STAGES and _is_client(project)

    def reason(self, project, prediction) -> str:
        rtt = first(project, "qapply").params["client_rtt_us"]
        return (
            f"every MQGET of Q Apply is a {rtt:g} us network round trip to the remote queue manager, and "
            f"the bottleneck is the {stage_label(prediction.bottleneck)}, at {metric(prediction, 'apply_rows_per_s'):,.0f} rows/s"
        )

    def change(self, project, prediction):
        qm = _flow_queue_manager(project, receiving=True)
        qapply = first(project, "qapply")
        if qm is None:
            return None
        project = project.with_param(qapply.id, "mq_connection", "bindings")
        return project.with_param(qm.id, "os_platform", qapply.params["os_platform"])

    def title(self, before, after, prediction) -> str:
        return "Connect Q Apply in bindings mode to a queue manager on its own server"


class LogBufferRule(Rule):
    """A distributed queue manager limited by its log disk: the largest log buffer."""

    id, knob, cost_risk = "logbufferpages", ("queue_manager", "logbufferpages"), _LOG_BUFFER_RISK

    def _queue_manager(self, project, prediction):
        if prediction.bottleneck == "mq_log_disk":
            return _flow_queue_manager(project, receiving=False)
        if prediction.bottleneck == "apply_mq_log_disk":
            return _flow_queue_manager(project, receiving=True)
        return None

    def applies(self, project, prediction) -> bool:
        qm = self._queue_manager(project, prediction)
        return qm is not None and qm.params.get("logbufferpages") not in (None, MAX_LOGBUFFERPAGES)

    def reason(self, project, prediction) -> str:
        qm = self._queue_manager(project, prediction)
        return f"the log disk of {qm.label} limits throughput; each log write carries at most its log buffer"

    def change(self, project, prediction):
        qm = self._queue_manager(project, prediction)
        return project.with_param(qm.id, "logbufferpages", MAX_LOGBUFFERPAGES)

    def title(self, before, after, prediction) -> str:
        return f"Set LogBufferPages to {MAX_LOGBUFFERPAGES} on the log-bound queue manager"


_QUEUE_BUFFER_RISK = (
    "Queue manager memory for every queue of the queue manager (a qm.ini TuningParameters change, "
    "read when the queue manager starts)."
)
#: Stages that read back what a distributed queue holds beyond its queue buffer.
_READ_BACK_STAGES = ("mq_channel", "qapply_browser")


class QueueBufferRule(Rule):
    """A distributed queue deeper than its queue buffer: a buffer that holds twice the modelled depth."""

    id, knob, cost_risk = "queue_buffer", ("queue_manager", "defaultpqbuffersize"), _QUEUE_BUFFER_RISK

    @staticmethod
    def _param(project) -> str:
        qcapture = first(project, "qcapture")
        return queue_buffer_knob(qcapture is None or qcapture.params.get("msg_persistence", True))

    @staticmethod
    def _depth_bytes(prediction) -> float:
        return metric(prediction, "queue_depth_msgs", 0.0) * metric(prediction, "msg_size_kb", 0.0) * 1000.0

    @staticmethod
    def _largest(param: str) -> int:
        """The largest queue buffer MQ accepts, bytes (the registry's maximum)."""
        return int(KINDS["queue_manager"].param(param).maximum)

    def _short(self, project, prediction) -> list:
        """The flow's distributed queue managers whose queue buffer is smaller than the modelled
        depth and can still grow."""
        found = flows(project, limit=1)
        param, depth_bytes = self._param(project), self._depth_bytes(prediction)
        ends = (send_queue_manager(found[0]), receive_queue_manager(found[0])) if found else ()
        qms = {qm.id: qm for qm in ends if qm is not None}
        return [
            qm
            for qm in qms.values()
            if qm.params.get("os_platform", ZOS) != ZOS
            and float(qm.params.get(param, math.inf)) < min(depth_bytes, self._largest(param))
        ]

    def applies(self, project, prediction) -> bool:
        reads = any(
            st.name.startswith(_READ_BACK_STAGES) and getattr(st, "backlog_read_ms", 0.0) > 0.0
            for st in prediction.stages
        )
        return reads and bool(self._short(project, prediction))

    def target(self, project, prediction) -> tuple:
        if prediction.bottleneck and prediction.bottleneck.startswith(_READ_BACK_STAGES):
            return "apply_rows_per_s", "max"
        return "end2end_latency_ms", "min"

    def reason(self, project, prediction) -> str:
        param = self._param(project)
        short = ", ".join(
            f"{qm.label} {int(qm.params[param]) // 1024:,} KB" for qm in self._short(project, prediction)
        )
        return (
            f"the modelled queue depth ({metric(prediction, 'queue_depth_msgs'):,.0f} messages, "
            f"{self._depth_bytes(prediction) / 1024:,.0f} KB) is more than the queue buffer ({short}), "
            "so messages beyond it are written to the queue file and read back"
        )

    def change(self, project, prediction):
        param = self._param(project)
        largest = self._largest(param)
        wanted = 2 ** math.ceil(math.log2(max(2.0 * self._depth_bytes(prediction), 1.0)))
        for qm in self._short(project, prediction):
            project = project.with_param(qm.id, param, min(largest, max(wanted, int(qm.params[param]))))
        return project

    def title(self, before, after, prediction) -> str:
        param = self._param(before)
        qm = self._short(before, prediction)[0]
        size_kb = int(after.node(qm.id).params[param]) // 1024
        return f"Raise {knob_label(param)} to {size_kb:,} KB so the queues stay in memory"


def platform_rules() -> list:
    """The rules of this module, in the order the advisor tries them."""
    return [BindingsRule(), LogBufferRule(), QueueBufferRule()]
