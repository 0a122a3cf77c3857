"""CPU of a queue manager on Linux/UNIX/Windows per MQ call, message and client call.

Fitted on the CPU of the queue manager's host at the peak rates of IBM's MQ performance reports
(Linux x86-64, Windows, AIX, Linux on Z; request/reply, bindings and client, queue manager to
queue manager), expressed in microseconds of one core of the reference server (2 x 16-core Xeon
Gold 6346 at 3.1 GHz, MQ V9.3): the CPU of one MQPUT or MQGET of a message of ``m`` bytes is
``call_us + call_us_per_kb * KB * (1 + KB / large_msg_kb)`` (copies of messages larger than the
processor caches cost more per KB), more for a persistent message (``persistent_us`` and
``persistent_us_per_kb``: log records, forces), more again when the call comes from a client over
a SVRCONN channel (``client_call_us`` and ``client_call_us_per_kb``: receive the request, dispatch
it, send the reply) and a message moved by a sender or receiver channel costs the channel
``channel_msg_us + channel_msg_us_per_kb * KB`` on each side instead of an application's call.
Another server scales the fixed parts by its speed relative to the reference (:func:`server_speed`);
the reports' servers of other generations were fitted a speed for the fixed and one for the per-KB
part (memory copies), used only by the fit.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.perf.mqtransport import KIB

#: Clock of the reference server's cores, GHz (Xeon Gold 6346).
REFERENCE_CORE_GHZ = 3.1


def _copy_kb(msg_bytes: float, k: Mapping[str, float]) -> float:
    """KB of a message weighted for copy cost: beyond the caches a KB costs more."""
    kb = msg_bytes / KIB
    return kb * (1.0 + kb / k["large_msg_kb"])


def call_fixed_us(persistent: bool, k: Mapping[str, float]) -> float:
    """Reference core-us of one MQPUT or MQGET (bindings mode) independent of the message size."""
    return k["call_us"] + (k["persistent_us"] if persistent else 0.0)


def call_per_size_us(msg_bytes: float, persistent: bool, k: Mapping[str, float]) -> float:
    """Reference core-us of one MQPUT or MQGET that grows with the message's ``msg_bytes``."""
    per_kb = k["call_us_per_kb"] + (k["persistent_us_per_kb"] if persistent else 0.0)
    return per_kb * _copy_kb(msg_bytes, k)


def call_us(msg_bytes: float, persistent: bool, k: Mapping[str, float]) -> float:
    """Reference core-us of one MQPUT or MQGET (bindings mode) of a ``msg_bytes`` message."""
    return call_fixed_us(persistent, k) + call_per_size_us(msg_bytes, persistent, k)


def client_call_us(msg_bytes: float, k: Mapping[str, float]) -> float:
    """Extra reference core-us on the queue manager's host when a call comes from a client (SVRCONN)."""
    return k["client_call_us"] + k["client_call_us_per_kb"] * _copy_kb(msg_bytes, k)


def channel_msg_us(msg_bytes: float, k: Mapping[str, float]) -> float:
    """Reference core-us of a sender or receiver channel moving one message (one side)."""
    return k["channel_msg_us"] + k["channel_msg_us_per_kb"] * _copy_kb(msg_bytes, k)


def server_speed(core_ghz: float) -> float:
    """How many times faster than a reference core a core of ``core_ghz`` runs queue-manager code.

    Clock ratio only: the reports' servers of other generations are fitted their own factors
    (``speed:*`` and ``copy_speed:*`` in the coefficient file), not used for a user's server.
    """
    return core_ghz / REFERENCE_CORE_GHZ
