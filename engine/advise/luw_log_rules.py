"""Advice for a Linux/UNIX/Windows queue manager whose log or channel limits the flow.

* :class:`LogDeviceRule`: a log-bound distributed queue manager (``mq_log_disk``,
  ``apply_mq_log_disk``) on the log device IBM measured that the engine predicts best. The
  devices and their write latency and bandwidth are the MQ component fit's
  (``assets/coefficients/mq_components.json``, ``python -m engine.calibrate.mq_components``);
  a device whose fitted latency or bandwidth sits on a bound of its range is not offered, as the
  component data did not pin it.
* :class:`ParallelSendQueuesRule`: a queue map's channel limits the flow: more send queues
  (NUM_PARALLEL_SENDQS), each with its own channel, into the map's one receive queue. The engine
  judges the change; where the queue managers' logs or CPUs limit next, it reports no gain, which
  is the answer to "more send queues or not".

Each change is judged by the engine like every other rule (:mod:`engine.advise`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from engine.advise.base import Rule, first, metric
from engine.metrics.stages import stage_label
from engine.perf.mqtransport import parameter_entries
from engine.perf.qrep.queue_maps import base_name
from engine.registry import KINDS
from engine.registry.platform_knobs import ZOS
from engine.topology import RECEIVE_QM, SEND_QM, flows

#: Stage of each log-bound queue manager, by its position in a flow.
_LOG_STAGES = {"mq_log_disk": SEND_QM, "apply_mq_log_disk": RECEIVE_QM}
#: Words for the log devices of IBM's MQ reports (the component fit's device names).
DEVICE_WORDS = {
    "Local HDD": "a local disk with a write cache (MQ mqio report)",
    "SAN": "a SAN volume (MQ mqio report)",
    "NFS-1G": "NFS over 1 Gb Ethernet (MQ mqio report)",
    "NFS-1GR": "NFS over 1 Gb Ethernet, replicated (MQ mqio report)",
    "NFS-10G": "NFS over 10 Gb Ethernet (MQ mqio report)",
    "NFS-10GR": "NFS over 10 Gb Ethernet, replicated (MQ mqio report)",
    "V93-NVMe": "a local NVMe drive (MQ V9.3 Linux report)",
    "V93-SAN": "a SAN volume (MQ V9.3 Linux report)",
    "V93-NFS": "NFS (MQ V9.3 Linux report)",
}


@dataclass(frozen=True)
class LogDevice:
    """A log device the MQ component fit pinned.

    Attributes
    ----------
    name : str
        The fit's device name (``SAN``, ``V93-NFS``...).
    write_us : float
        Fixed time of one log write, us.
    mb_per_s : float
        Sequential write bandwidth, MB/s (10^6 bytes).
    """

    name: str
    write_us: float
    mb_per_s: float

    @property
    def words(self) -> str:
        return DEVICE_WORDS.get(self.name, self.name)


def _pinned(entry: dict) -> bool:
    low, high = entry["bounds"]
    return entry.get("fitted", False) and low < entry["value"] < high


def _3g(value) -> float:
    return float(f"{float(value):.3g}")


def devices_of(params: dict) -> list[LogDevice]:
    """The log devices of a component fit's ``parameters`` whose write latency and bandwidth are
    pinned (fitted and strictly inside their bounds), to 3 significant figures, in file order."""
    out = []
    for key, latency in params.items():
        if not key.startswith("log_latency_us:"):
            continue
        name = key.split(":", 1)[1]
        bandwidth = params.get(f"log_bandwidth_mb_per_s:{name}")
        if bandwidth and _pinned(latency) and _pinned(bandwidth):
            out.append(LogDevice(name, _3g(latency["value"]), _3g(bandwidth["value"])))
    return out


@functools.lru_cache(maxsize=1)
def log_devices() -> tuple[LogDevice, ...]:
    """The pinned log devices of the MQ component fit (:func:`devices_of` of its coefficients).

    Raises
    ------
    FileNotFoundError
        The coefficient file is missing (run ``python -m engine.calibrate.mq_components``).
    """
    return tuple(devices_of(parameter_entries()))


def _log_bound_queue_manager(project, prediction):
    """The distributed queue manager whose log disk is the bottleneck, or None."""
    position = _LOG_STAGES.get(prediction.bottleneck or "")
    found = flows(project, limit=1)
    if position is None or not found:
        return None
    qm = found[0][position]
    return qm if qm.params.get("os_platform", ZOS) != ZOS else None


def _limits(kind: str, param: str) -> tuple[float, float]:
    """The registry's range of ``param`` of ``kind`` (every knob used here has both bounds)."""
    spec = KINDS[kind].param(param)
    assert spec.minimum is not None and spec.maximum is not None
    return float(spec.minimum), float(spec.maximum)


def _in_range(param: str, value: float) -> float:
    low, high = _limits("queue_manager", param)
    return min(max(value, low), high)


class LogDeviceRule(Rule):
    """A distributed queue manager limited by its log disk: the best log device IBM measured."""

    id, knob = "log_device", ("queue_manager", "log_write_us")
    cost_risk = (
        "A new log volume for the queue manager (the log is moved while it is stopped); the figures are "
        "those IBM measured for the device, a device of the same kind here may differ."
    )

    def _faster(self, qm) -> list[LogDevice]:
        write_us, mb_per_s = float(qm.params["log_write_us"]), float(qm.params["log_disk_mb_per_s"])
        return [d for d in log_devices() if d.write_us < write_us or d.mb_per_s > mb_per_s]

    def applies(self, project, prediction) -> bool:
        qm = _log_bound_queue_manager(project, prediction)
        return qm is not None and bool(self._faster(qm))

    def reason(self, project, prediction) -> str:
        qm = _log_bound_queue_manager(project, prediction)
        return (
            f"the log disk of {qm.label} limits throughput to {metric(prediction, 'apply_rows_per_s'):,.0f} rows/s "
            f"({qm.params['log_write_us']:g} us per log write, {qm.params['log_disk_mb_per_s']:g} MB/s)"
        )

    @staticmethod
    def _on(project, qm, device: LogDevice):
        project = project.with_param(qm.id, "log_write_us", _in_range("log_write_us", device.write_us))
        return project.with_param(qm.id, "log_disk_mb_per_s", _in_range("log_disk_mb_per_s", device.mb_per_s))

    def change(self, project, prediction):
        from engine.errors import QrtuneError
        from engine.predict import predict_project

        qm = _log_bound_queue_manager(project, prediction)
        best, best_rate = None, metric(prediction, "apply_rows_per_s", 0.0)
        for device in self._faster(qm):
            candidate = self._on(project, qm, device)
            try:
                rate = metric(predict_project(candidate), "apply_rows_per_s", 0.0)
            except QrtuneError:
                continue
            if rate > best_rate:
                best, best_rate = (device, candidate), rate
        return None if best is None else best[1]

    def title(self, before, after, prediction) -> str:
        qm = _log_bound_queue_manager(before, prediction)
        write_us = float(after.node(qm.id).params["log_write_us"])
        device = next(d for d in log_devices() if _in_range("log_write_us", d.write_us) == write_us)
        return f"Put the log of {qm.label} on {device.words}"


def _sendqs(project) -> int:
    return int(first(project, "qcapture").params["num_parallel_sendqs"])


class ParallelSendQueuesRule(Rule):
    """A queue map's channel limits the flow: twice the send queues, each with its channel."""

    id, knob = "parallel_sendqs", ("qcapture", "num_parallel_sendqs")
    cost_risk = (
        "Each send queue is one more transmission queue and channel to define and monitor; messages of "
        "one queue map then arrive over several channels and Q Apply puts them back in order."
    )

    def applies(self, project, prediction) -> bool:
        qcapture = first(project, "qcapture")
        maximum = _limits("qcapture", "num_parallel_sendqs")[1]
        return (
            qcapture is not None
            and base_name(prediction.bottleneck or "") == "mq_channel"
            and _sendqs(project) < maximum
        )

    def reason(self, project, prediction) -> str:
        return (
            f"the bottleneck is the {stage_label(prediction.bottleneck)}, at "
            f"{metric(prediction, 'apply_rows_per_s'):,.0f} rows/s with {_sendqs(project)} send queue(s) per queue map"
        )

    def change(self, project, prediction):
        maximum = int(_limits("qcapture", "num_parallel_sendqs")[1])
        qcapture = first(project, "qcapture")
        return project.with_param(qcapture.id, "num_parallel_sendqs", min(maximum, 2 * _sendqs(project)))

    def title(self, before, after, prediction) -> str:
        return f"Send each queue map's messages over {_sendqs(after)} send queues (NUM_PARALLEL_SENDQS)"


def luw_log_rules() -> list:
    """The rules of this module, in the order the advisor tries them."""
    return [LogDeviceRule(), ParallelSendQueuesRule()]
