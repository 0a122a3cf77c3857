"""The Q Replication sender-receiver channel: its CPU and wire time per message, the end of a
BATCHSZ batch, compression and TLS work, the TCP window over distance, and when a message it
carries becomes visible on the receive queue.

**Per message.** The channel initiators' CPU per message, per KB on the wire and per transmission
segment on both sides (:func:`cpu_us_per_msg`), the transfer of the message's wire bytes over the
bandwidth ``hardware.network_mbps`` (:func:`wire_us_per_msg`) and the batch end shared by the
messages of a BATCHSZ batch make the ``mq_channel`` stage's time per message (:func:`send_us_per_msg`).

**Batch end.** Every batch of at most BATCHSZ messages ends with a syncpoint: fixed work, the log
force of persistent messages (on z/OS ``ch_batch_log_us``; each distributed queue manager's log
write, :func:`batch_log_us`) and the confirm flow, a network round trip (:func:`batch_end_us`).
A batch ends early when one commit's messages empty the transmission queue (:func:`batch_msgs`);
a persistent message is visible when the receiver commits its batch (:func:`visible_ms`).

**Compression (COMPMSG) and TLS (SSL).** Seed 003 (MQ for z/OS V8 performance, "Channel
compression using zEDC" and "Using hardware compression on SSL enabled channels"): the channel
initiator's dispatcher compresses each transmission segment before it is encrypted and sent and
inflates it on the receiving side; ZLIBFAST runs on zEDC when the segment is at least
DEFMINREQSIZE (software otherwise), ZLIBHIGH always in software, inflation on zEDC only from
INFMINREQSIZE. TLS sends 16 KB segments instead of 32 KB, costs SSL-task CPU per KB and
dispatcher work per segment, and a secret-key renegotiation every SSLRKEYC bytes (1 MB assumed)
shared by the messages in between; compressed messages fit more per renegotiation. The per-KB
and per-negotiation costs are the MQ calculators' (:mod:`engine.perf.mq_calculators`, fitted from
seed 003 into ``assets/coefficients/mq.json`` on a zEC12 2827); they are converted to the
reference processor of the Q Replication coefficients with the same MIPS scaling the engine uses
for every CPU cost.

**Distance.** The channel is one TCP connection: over a network round trip
(``2 x hardware.network_latency_ms``) it keeps at most a TCP window of bytes in flight, so it
carries at most ``window / round trip`` bytes/s (:func:`engine.perf.mqtransport.tcp`, the window
fitted to IBM's MQ channel measurements over a WAN); each parallel send queue has its own channel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.perf.mqtransport import coefficients as mq_components
from engine.perf.mqtransport import tcp
from engine.perf.qrep.geometry import SEGMENT_BYTES, SSL_SEGMENT_BYTES
from engine.perf.qrep.inputs import QrepInputs
from engine.perf.qrep.queueing import RHO_CAP

#: Processor of the seed 003 measurements the MQ calculators were fitted on.
MQ_CALCULATOR_CPU_MODEL = "zEC12-2827"
#: Bytes between TLS secret-key renegotiations (SSLRKEYC) assumed for the channel.
SSL_RENEGOTIATION_KB = 1024.0


@dataclass(frozen=True)
class ChannelWork:
    """Extra channel work per message from compression and TLS (reference-CPU microseconds).

    Attributes
    ----------
    send_us : float
        Sending channel initiator: compression, encryption, dispatcher per segment,
        renegotiation share.
    receive_us : float
        Receiving channel initiator: inflation, decryption, dispatcher per segment.
    wire_fraction : float
        Share of the message bytes that cross the network (1 without compression).
    segment_bytes : float
        Transmission segment size (16 KB with TLS, else 32 KB).
    """

    send_us: float = 0.0
    receive_us: float = 0.0
    wire_fraction: float = 1.0
    segment_bytes: float = SEGMENT_BYTES


NO_EXTRA_WORK = ChannelWork()


def channel_work(inputs: QrepInputs, msg_bytes: float, c) -> ChannelWork:
    """Extra per-message channel work for ``inputs``' COMPMSG and SSL settings.

    Parameters
    ----------
    inputs : QrepInputs
    msg_bytes : float
        Mean MQ message size, bytes.
    c : Coefficients
        The Q Replication coefficients (reference processor and MIPS scaling exponent).
    """
    if inputs.compmsg == "NONE" and not inputs.ssl:
        return NO_EXTRA_WORK
    from engine.perf import mq_calculators as mqc  # only channels with compression or TLS need mq.json

    model = c.cpu_models.get(MQ_CALCULATOR_CPU_MODEL)
    to_ref = (float(model["mips_per_cp"]) / c.reference_mips) ** c.mips_scaling_exponent if model else 1.0
    kb = max(msg_bytes, 1.0) / 1024.0
    comp = inputs.compressibility if inputs.compmsg != "NONE" else 0.0
    cost = mqc.compression_cost(kb, comp, inputs.compmsg, inputs.ssl)
    send = cost["compress_us"]
    receive = cost["inflate_us"]
    wire = 1.0 - comp
    seg = SSL_SEGMENT_BYTES if inputs.ssl else SEGMENT_BYTES
    if inputs.ssl:
        k = mqc.coefficients()["calculators"]["ssl"]
        segments = max(1.0, msg_bytes * wire / seg)
        crypto = k["ssl_task_us_per_kb"] * kb * wire + k["dispatcher_us_per_segment"] * segments
        lo, hi = mqc.ssl_renegotiation_us_per_msg(kb, SSL_RENEGOTIATION_KB, comp)
        send += crypto + 0.5 * (lo + hi)
        receive += crypto
    return ChannelWork(send * to_ref, receive * to_ref, wire, seg)


def window_rows_per_s(
    inputs: QrepInputs, rows_per_msg: float, msg_bytes: float, wire_fraction: float
) -> float:
    """Most rows/s one channel's TCP window carries over the network round trip (inf without distance)."""
    rtt_s = 2e-3 * inputs.network_latency_ms
    if rtt_s <= 0.0:
        return math.inf
    k = mq_components()
    wire_bytes = msg_bytes * wire_fraction + k["header_bytes"]
    return tcp.per_channel_bytes_per_s(rtt_s, 0.0, k) / wire_bytes * rows_per_msg


def cap_by_window(flow, point) -> None:
    """Limit the ``mq_channel`` stage of ``point.caps`` to what its TCP window carries over the distance."""
    g = flow.geometry
    cap = window_rows_per_s(flow.inp, g.rows_per_msg, g.msg_bytes, flow.demands.wire_fraction)
    if math.isinf(cap):
        return
    point.caps[:] = [
        (name, min(rows, cap) if name == "mq_channel" else rows, servers, ms)
        for name, rows, servers, ms in point.caps
    ]


def cpu_us_per_msg(inputs: QrepInputs, c, g, demands, time_factor: float) -> float:
    """CPU of both channel initiators per message (us on the flow's processors).

    Parameters
    ----------
    inputs : QrepInputs
        CHINIT trace on or off.
    c : Coefficients
        Per message, per KB and per segment channel costs (reference-CPU us).
    g : Geometry
        Message size (KB) and segments per message.
    demands : StaticDemands
        The share of bytes on the wire and the compression and TLS work (:func:`channel_work`).
    time_factor : float
        Reference-CPU us to the flow's processors' us.
    """
    chinit_trace = 1.0 + c.chinit_trace_factor * (1.0 if inputs.chinit_trace else 0.0)
    return (
        (c.ch_msg_us + c.ch_kb_us * g.msg_kb * demands.wire_fraction + c.ch_seg_us * g.segments_per_msg)
        * chinit_trace
        + demands.channel_send_us
        + demands.channel_receive_us
    ) * time_factor


def wire_us_per_msg(inputs: QrepInputs, msg_bytes: float, wire_fraction: float) -> float:
    """Transfer time (us) of one message's wire bytes over ``hardware.network_mbps`` (0 when unset)."""
    return msg_bytes * wire_fraction * 8.0 / inputs.network_mbps if inputs.network_mbps else 0.0


def batch_end_us(inputs: QrepInputs, c) -> float:
    """Time (us) ending one channel batch on z/OS queue managers: the syncpoint's fixed work, its log
    force when messages are persistent and the confirm round trip (``2 x network_latency_ms``)."""
    return (
        c.ch_batch_us + (c.ch_batch_log_us if inputs.persistent else 0.0) + 2000.0 * inputs.network_latency_ms
    )


def batch_log_us(platform, persistent: bool, zos_batch_log_us: float, k: dict) -> float:
    """Log time (us) ending a persistent channel batch: each z/OS side's share, each distributed side's write.

    Parameters
    ----------
    platform : FlowPlatform
        The sending and receiving queue managers (``send_qm``, ``recv_qm``).
    persistent : bool
        Persistent messages (a non-persistent batch forces no log: 0).
    zos_batch_log_us : float
        The batch's log time with both queue managers on z/OS, us.
    k : dict
        Platform assumptions (``zos_batch_log_share``).
    """
    if not persistent:
        return 0.0
    return sum(
        qm.log_write_us if qm.distributed else k["zos_batch_log_share"] * zos_batch_log_us
        for qm in (platform.send_qm, platform.recv_qm)
    )


def send_us_per_msg(flow, point, f_c: float, f_a: float) -> float:
    """The ``mq_channel`` stage's time per message (us): CPU (stretched by the sending and receiving
    LPARs' inflation ``f_c`` and ``f_a``), the batch end's share, the wire time, the backlog's
    queue-file reads and a shared queue's two requests."""
    return (
        flow.channel_cpu_us_per_msg * 0.5 * (f_c + f_a)
        + flow.batch_end_us / flow.inp.batchsz
        + flow.wire_us_per_msg
        + point.backlog_us["mq_channel"]
        + 2.0 * flow.shared_queue_us
    )


def batch_msgs(flow, point) -> float:
    """Messages in one channel batch: BATCHSZ, or fewer when one commit's messages empty the xmitq."""
    return min(float(flow.inp.batchsz), max(point.mpc, 1.0))


def visible_ms(flow, stages: dict, point) -> float:
    """Time (ms) from Q Capture's MQ commit until the message is visible on the receive queue.

    Persistent messages become visible when the receiver commits their batch: the whole batch
    is sent and its syncpoint (log force, confirm flow) completes, after the residual of a
    batch already in flight (the sender starts a batch only when the previous one is
    confirmed). A non-persistent message (NPMSPEED FAST) is visible once sent: the channel's
    M/M/1 time plus its place in the commit's burst (a commit releases its messages at once,
    so a message waits on average for half of the others to be sent before it).
    """
    channel = stages.get("mq_channel")
    if channel is None:  # a client reading the send queue: visible at Q Capture's commit
        return 0.0
    if not flow.inp.persistent:
        burst_ahead = (batch_msgs(flow, point) - 1.0) / 2.0
        return channel.latency_ms + burst_ahead * point.channel_us / 1000.0
    batch_us = batch_msgs(flow, point) * point.channel_us + flow.batch_end_us
    busy = min(channel.utilisation, RHO_CAP)
    return (busy * 0.5 * batch_us + batch_us) / 1000.0
