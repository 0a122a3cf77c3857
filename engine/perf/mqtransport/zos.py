"""MQ for z/OS: CPU of messages crossing channels (queue manager MSTR and channel initiator CHIN), the
active log's bandwidth and the queue manager's CPU per MB logged.

Fitted on IBM's MQ for z/OS performance reports (z16 channel compression report, request/reply over
SDR/RCVR channels between two z/OS queue managers; zHyperWrite and z14/z15/z16 reports for the log):

* **Channel transaction.** A request/reply transaction sends a request and a reply across a channel
  pair; each message costs ``zos_msg_us + zos_msg_us_per_kb x KB`` of CPU (the putting
  application's MQPUT, the sending channel's MQGET and send, the receiving channel's receive and
  MQPUT, the getting application's MQGET, on both LPARs), and with TLS a cipher-dependent
  ``tls_us + tls_us_per_kb x KB`` more (SSL tasks, dispatcher). Of the non-TLS cost, the share
  ``zos_chin_share`` is the channel initiator's (the report's CPU by CHIN task, 16 KB: adaptor and
  dispatcher); the rest is the queue manager's and the applications' MQ calls.
* **Log.** One active log copy on DS8000 with zHPF writes ``zos_log_mb_per_s``; with dual logging
  or archiving off the same volumes, ``zos_log_dual_mb_per_s`` per copy. The queue manager spends
  ``zos_mstr_cpu_us_per_mb`` CPU microseconds per MB logged (large persistent messages).

Units: CPU microseconds of the measured processor (z16 for channels), MB of 10^6 bytes, KB of 1,024.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.perf.mqtransport import KIB

#: Processor of the channel measurements the z/OS channel costs are expressed on.
CHANNEL_CPU_MODEL = "z16-3931"
#: TLS ciphers of the z/OS channel measurements, as the coefficient names spell them.
TLS_CIPHERS = (
    "ECDHE_RSA_256_CBC_SHA384",
    "TLS_RSA_WITH_AES_256_CBC_SHA256",
    "TLS_AES_128_GCM_SHA256",
    "TLS_CHACHA20_POLY1305_SHA256",
)


def message_us(msg_bytes: float, k: Mapping[str, float], cipher: str | None = None) -> float:
    """CPU us (z16) of one message crossing a z/OS-to-z/OS channel, both LPARs, all MQ work."""
    kb = msg_bytes / KIB
    us = k["zos_msg_us"] + k["zos_msg_us_per_kb"] * kb
    if cipher:
        us += k[f"tls_us:{cipher}"] + k[f"tls_us_per_kb:{cipher}"] * kb
    return us


def transaction_us(msg_bytes: float, k: Mapping[str, float], cipher: str | None = None) -> float:
    """CPU us (z16) of a request/reply transaction over a channel pair: two messages."""
    return 2.0 * message_us(msg_bytes, k, cipher)


def chinit_us(msg_bytes: float, k: Mapping[str, float]) -> float:
    """Channel-initiator CPU us (z16) of one message on one side of a channel (no TLS)."""
    return 0.5 * k["zos_chin_share"] * message_us(msg_bytes, k)


def qmgr_us(msg_bytes: float, k: Mapping[str, float]) -> float:
    """Queue-manager (MSTR and MQ calls) CPU us (z16) of one message on one side (no TLS)."""
    return 0.5 * (1.0 - k["zos_chin_share"]) * message_us(msg_bytes, k)


def log_mb_per_s(dual: bool, k: Mapping[str, float]) -> float:
    """Most MB/s (10^6 bytes) one z/OS active log copy writes: single, or dual/archiving."""
    return k["zos_log_dual_mb_per_s"] if dual else k["zos_log_mb_per_s"]
