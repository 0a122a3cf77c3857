"""A queue manager on Linux/UNIX/Windows: its log disk, its queue buffers and queue files.

MQ for z/OS keeps queues in buffer pools backed by page sets and logs to active log data
sets; its costs are the Q Replication calibration's. A distributed queue manager (qm.ini) has
its own physics, modelled here with the settings of :mod:`engine.registry.platform_knobs` and
the assumptions of ``assets/coefficients/platforms.json``:

* **Log writes.** Persistent messages' log records collect in the log buffer (LogBufferPages
  4 KB pages; 0 means 512) and an MQCMIT forces them to the log disk. One write carries at most
  the buffer, so a force of ``b`` bytes takes ``max(1, b / buffer)`` write latencies plus
  ``b * f / bandwidth``, ``f`` being 1 for circular logging and ``1 + linear_format_write_share``
  for linear logging (new extents are formatted before use).
* **Sending queue manager** (Q Capture's): Q Capture's MQCMIT forces its messages and its restart
  message; that force replaces the z/OS log force in Q Capture's commit, and the log disk is a
  stage (``mq_log_disk``: rows of one commit per force time).
* **Receiving queue manager**: the receiver channel (a batch of BATCHSZ messages per commit) and
  each of Q Apply's agents (one target transaction's gets) commit concurrently, so their log
  records share writes as IBM's component measurements show
  (:mod:`engine.perf.mqtransport.distributed_log`, fitted): a write grows with the committers up to
  the log buffer, and the log carries ``write / (write time + log writer's gap)`` bytes/s, the
  ``apply_mq_log_disk`` stage. LogBufferPages acts when the writes reach the buffer.
* **Channel batches**: each distributed side of a persistent batch forces its log once per batch:
  one write latency, replacing that side's share of the fitted z/OS per-batch log time. The log
  writer writes the batch's records as the buffer fills, apart from the channel's thread, so the
  bytes load the log-disk stage, not the channel.
* **Queue buffers**: a queue holds DefaultPQBufferSize (persistent) or DefaultQBufferSize bytes
  in memory; the share of the modelled depth (one commit's messages on each queue at the load,
  :meth:`engine.perf.qrep.pipeline._Flow.depth_msgs`) beyond it is written to the queue file and read
  back at the get (``queue_file_page_us`` per 4 KB page, half for the write and half for the
  read): for the receive queue the receiver channel writes and the browser reads; for the
  transmission queue Q Capture's put writes and the sender channel reads (both on the channel's
  path, which follows the put).

Non-persistent messages are not logged: no log-disk stage, no forces.

The queue manager's CPU per MQPUT and MQGET (browse and destructive) and its sender or receiver
channel's CPU per message are the distributed costs fitted to IBM's MQ component measurements
(:mod:`engine.perf.mqtransport.qm_cpu`, on a 3.1 GHz Xeon core), converted to reference-CPU
microseconds so that the cores of the server it shares with Q Capture or Q Apply run them at
their clock (:func:`with_distributed_mq_calls`); no z/OS buffer-pool or channel-initiator
work is charged there. MQCMIT keeps the Q Replication calibration's path length.
"""

from __future__ import annotations

import math
from dataclasses import replace

from engine.perf.mqtransport import MB, distributed_log, qm_cpu
from engine.perf.mqtransport import coefficients as mq_components
from engine.perf.qrep import channel
from engine.perf.qrep.platforms import LOG_PAGE_BYTES, QueueManagerPlatform, assumptions

#: Stage name -> bottleneck vocabulary of ../shared/validation/README.md.
STAGE_VOCABULARY = {"mq_log_disk": "mq_log", "apply_mq_log_disk": "mq_log"}


def reference_us_per_core_us() -> float:
    """Reference-CPU us of one us on a core of the component fit's reference server (3.1 GHz x86)."""
    k = assumptions()
    return qm_cpu.REFERENCE_CORE_GHZ * k["work_per_cycle_x86"] / k["reference_cp_ghz"]


def with_distributed_mq_calls(demands, inputs, msg_bytes: float):
    """``demands`` (:class:`engine.perf.qrep.costs.StaticDemands`) with the MQ calls and channel work of
    Linux/UNIX/Windows queue managers at their fitted cost (reference-CPU us); unchanged on z/OS.

    The sending queue manager serves Q Capture's MQPUT and its sender channel; the receiving one, in
    bindings mode, Q Apply's browse and destructive MQGETs and its receiver channel.
    """
    p = inputs.platform
    send_distributed = p.send_qm.distributed
    recv_distributed = p.recv_qm.distributed and not p.client
    if not (send_distributed or recv_distributed):
        return demands
    k, ref = mq_components(), reference_us_per_core_us()
    persistent = inputs.persistent
    channel_us = ref * qm_cpu.channel_msg_us(msg_bytes, k)
    changes = {}
    if send_distributed:
        changes["put_cpu_us"] = ref * qm_cpu.call_us(msg_bytes, persistent, k)
        changes["capture_mq_other_msg_us"] = channel_us + demands.channel_send_us
    if recv_distributed:
        browse = ref * qm_cpu.call_us(msg_bytes, False, k)
        changes["browser_msg_us"] = demands.browser_msg_us - demands.browse_get_cpu_us + browse
        changes["browse_get_cpu_us"] = browse
        changes["get_cpu_us"] = ref * qm_cpu.call_us(msg_bytes, persistent, k)
        changes["apply_mq_other_msg_us"] = channel_us + demands.channel_receive_us
        changes["apply_channel_msg_us"] = channel_us + demands.channel_receive_us
    return replace(demands, **changes)


def buffer_bytes(qm: QueueManagerPlatform, k: dict) -> float:
    """Bytes one log write carries at most (LogBufferPages, 0 meaning the default)."""
    return (qm.logbufferpages or k["default_logbufferpages"]) * LOG_PAGE_BYTES


def _disk_bytes_factor(qm: QueueManagerPlatform, k: dict) -> float:
    """Log-disk bytes written per log byte (linear logging also formats new extents)."""
    return 1.0 + (k["linear_format_write_share"] if qm.logtype == "LINEAR" else 0.0)


def force_us(qm: QueueManagerPlatform, k: dict, log_bytes: float) -> float:
    """Time (us) to force ``log_bytes`` to the log disk: write latencies plus transfer."""
    writes = max(1.0, log_bytes / buffer_bytes(qm, k))
    return writes * qm.log_write_us + log_bytes * _disk_bytes_factor(qm, k) / qm.log_disk_mb_per_s


def _apply_committers(flow) -> tuple[float, float]:
    """(concurrent committers, log bytes per commit) on the receiving queue manager of ``flow``.

    The committers are the receiver channel (none in a drain) and Q Apply's agents; a commit's log
    bytes are the flow's receive-side log bytes per message over the commits per message (one per
    channel batch, one per target transaction).
    """
    channels = 0.0 if flow.drain else 1.0
    commits_per_msg = channels / flow.inp.batchsz + 1.0 / flow.geometry.msgs_per_target_txn
    return channels + flow.agents, flow.demands.apply_log_bytes_per_msg / commits_per_msg


def apply_write_bytes(flow, buffer: float = math.inf) -> float:
    """Bytes of one log write on the receiving queue manager of ``flow``, at most ``buffer``."""
    committers, commit_bytes = _apply_committers(flow)
    return distributed_log.write_bytes(committers, commit_bytes, buffer, mq_components())


def apply_log_bytes_per_s(flow, qm: QueueManagerPlatform, k: dict) -> float:
    """Most log bytes/s the receiving queue manager ``qm``'s log carries for ``flow`` (a solver ``_Flow``).

    Its committers' log records share writes (:func:`_apply_committers`,
    :func:`engine.perf.mqtransport.distributed_log.mb_per_s`) up to the log buffer. Linear logging's
    formatting of new extents takes its share of the disk's bandwidth.
    """
    committers, commit_bytes = _apply_committers(flow)
    bandwidth = qm.log_disk_mb_per_s / _disk_bytes_factor(qm, k)
    mb_per_s = distributed_log.mb_per_s(
        committers, commit_bytes, buffer_bytes(qm, k), qm.log_write_us, bandwidth, mq_components()
    )
    return mb_per_s * MB


def queue_buffer_knob(persistent: bool) -> str:
    """The queue manager knob sizing a queue's memory: DefaultPQBufferSize for persistent messages,
    else DefaultQBufferSize (registry names, lower case)."""
    return "defaultpqbuffersize" if persistent else "defaultqbuffersize"


def spill_share(qm: QueueManagerPlatform, persistent: bool, depth_bytes: float) -> float:
    """Share of a queue's messages beyond its queue buffer (written to and read from the queue file)."""
    memory = qm.pq_buffer_bytes if persistent else qm.q_buffer_bytes
    return max(0.0, 1.0 - memory / depth_bytes) if depth_bytes > 0.0 else 0.0


def capture_commit_force_us(flow, fp, mpc: float, zos_force_us: float) -> float:
    """Log-force part (us) of Q Capture's MQCMIT of ``mpc`` messages on the sending queue manager."""
    qm = fp.inputs.send_qm
    if not qm.distributed:
        return zos_force_us
    log_bytes = mpc * flow.demands.capture_log_bytes_per_msg + flow.c.restart_bytes_per_commit
    return force_us(qm, fp.k, log_bytes)


def adjust(flow, fp) -> None:
    """Replace the z/OS queue-manager terms of ``flow`` (a solver ``_Flow``) by distributed ones where they apply."""
    recv, k = fp.inputs.recv_qm, fp.k
    persistent = flow.inp.persistent
    if persistent and not flow.drain:
        zos_us = flow.c.ch_batch_log_us
        flow.batch_end_us += channel.batch_log_us(fp.inputs, True, zos_us, k) - zos_us
    if recv.distributed:
        flow.apply_log_cap_rows_per_s = 0.0  # no z/OS log stage: the distributed log is its own stage
        flow.pageset_miss = 0.0  # no buffer pool or page set: queue buffers and files instead


def backlog_us_per_msg(flow, fp, depth_msgs: float, out: dict) -> None:
    """Put in ``out`` the queue-file reads (us per message) of distributed queues ``depth_msgs`` deep.

    The share of the depth beyond a queue's buffer is written to its queue file and read back
    (half of ``queue_file_page_us`` each): on the transmission queue by Q Capture's put and the
    sender channel (the channel's path), on the receive queue by the receiver channel and the
    browser. A drain's receive queue is read by the browser alone.
    """
    send, recv, k = fp.inputs.send_qm, fp.inputs.recv_qm, fp.k
    g, persistent = flow.geometry, flow.inp.persistent
    page_us = g.pages_per_msg * k["queue_file_page_us"]
    depth_bytes = depth_msgs * g.msg_bytes
    if send.distributed and not flow.drain:
        out["mq_channel"] += spill_share(send, persistent, depth_bytes) * page_us
    if recv.distributed:
        recv_us = 0.5 * spill_share(recv, persistent, depth_bytes) * page_us
        out["qapply_browser"] = recv_us
        if not flow.drain:
            out["mq_channel"] += recv_us


def capacities(flow, fp, point) -> None:
    """Put the log-disk stages of distributed queue managers in ``point.caps`` (and take out z/OS ones)."""
    send, recv, k = fp.inputs.send_qm, fp.inputs.recv_qm, fp.k
    g, d, persistent = flow.geometry, flow.demands, flow.inp.persistent
    drop = {"mq_log"} if send.distributed else set()
    if recv.distributed:
        drop.add("mq_pageset")
    point.caps[:] = [cap for cap in point.caps if cap[0] not in drop]
    if not persistent:
        return
    if send.distributed and not flow.drain:
        mpc = point.mpc
        t_us = force_us(send, k, mpc * d.capture_log_bytes_per_msg + flow.c.restart_bytes_per_commit)
        point.caps.append(("mq_log_disk", mpc * g.rows_per_msg * 1e6 / t_us, 1, t_us / mpc / 1000.0))
    if recv.distributed and d.apply_log_bytes_per_msg > 0.0:
        bytes_per_s = apply_log_bytes_per_s(flow, recv, k)
        point.caps.append(
            (
                "apply_mq_log_disk",
                bytes_per_s * g.rows_per_msg / d.apply_log_bytes_per_msg,
                1,
                1000.0 * d.apply_log_bytes_per_msg / bytes_per_s,
            )
        )


def queue_file_backlog(
    qm_params: dict, persistent: bool, msg_bytes: float, k: dict
) -> tuple[float, float, str]:
    """What a distributed queue holds in memory and the wait to read a message back from its queue file.

    Parameters
    ----------
    qm_params : dict
        The queue manager node's parameters (``defaultpqbuffersize``, ``defaultqbuffersize``).
    persistent : bool
        Persistent messages (DefaultPQBufferSize) or not (DefaultQBufferSize).
    msg_bytes : float
        Bytes of a typical message.
    k : dict
        :func:`engine.perf.qrep.platforms.assumptions`.

    Returns
    -------
    (messages held in the queue buffer, s to read one back from the queue file, note)
    """
    memory = float(qm_params[queue_buffer_knob(persistent)])
    pages = max(1.0, msg_bytes / LOG_PAGE_BYTES)
    read_s = 0.5 * pages * k["queue_file_page_us"] * 1e-6  # the read half of a write and read back
    held = memory / max(msg_bytes, 1.0)
    note = (
        f"a distributed queue manager ({qm_params.get('os_platform')}) holds {held:,.1f} messages in its queue "
        f"buffer; a message beyond that is read back from the queue file in {1000 * read_s:.3g} ms"
    )
    return held, read_s, note
