"""The Q Replication sender-receiver channel: compression and TLS work per message, and the TCP
window over distance.

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
