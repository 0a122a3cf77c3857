"""A sender-receiver channel over distance: link bandwidth, batch round trips, TCP window and loss.

Each channel is one TCP connection. Its message rate is the least of

* the link: ``link_efficiency x link Mbit/s / 8`` bytes/s shared by the channels, a message taking
  its bytes plus ``header_bytes`` (transmission queue header and MQMD);
* the batch: the sender waits for the receiver's confirmation at the end of each batch of BATCHSZ
  messages, one network round trip per batch;
* the TCP window: at most ``tcp_window_bytes`` unacknowledged bytes per round trip (the socket
  buffers the channel gets; fitted, since the reports do not state them);
* packet loss: TCP's congestion window settles at ``mss_bytes / rtt x mathis_constant / sqrt(loss)``
  bytes/s (Mathis et al., 1997).

Units: bytes, seconds as stated, msgs/s.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

#: TCP maximum segment size on Ethernet, bytes (1,500-byte MTU less IP and TCP headers).
MSS_BYTES = 1460.0
#: Channel BATCHSZ IBM MQ uses when a channel definition does not set it.
DEFAULT_BATCHSZ = 50


def per_channel_bytes_per_s(rtt_s: float, loss: float, k: Mapping[str, float]) -> float:
    """Most bytes/s one TCP connection carries at round trip ``rtt_s`` and loss ratio ``loss``."""
    if rtt_s <= 0.0:
        return math.inf
    window = k["tcp_window_bytes"] / rtt_s
    if loss <= 0.0:
        return window
    return min(window, MSS_BYTES / rtt_s * k["mathis_constant"] / math.sqrt(loss))


def msgs_per_s(
    msg_bytes: float,
    channels: int,
    link_mbit_per_s: float,
    rtt_s: float,
    loss: float,
    k: Mapping[str, float],
    batchsz: int = DEFAULT_BATCHSZ,
) -> float:
    """Most messages/s ``channels`` channels carry over one link (the least of the four limits)."""
    wire = msg_bytes + k["header_bytes"]
    link = k["link_efficiency"] * link_mbit_per_s * 1e6 / 8.0 / wire
    per_channel = per_channel_bytes_per_s(rtt_s, loss, k) / wire
    if rtt_s > 0.0:
        per_channel = min(per_channel, batchsz / rtt_s)
    return min(link, channels * per_channel)
