"""The recovery log of a queue manager on Linux/UNIX/Windows: write aggregation, write time, bandwidth.

A committing MQ call waits until its log records are on disk. The log writer writes whatever is
in the log buffer when the previous write ends, so concurrent committers share writes (IBM MQ
performance report "Persistent Messaging Performance in IBM MQ for Linux", mqio: the average write
grows with the number of requesters, nearly independently of the device):

* **Write size.** ``first + aggregation * (committers - 1) * commit_bytes``, at most the log buffer
  (LogBufferPages x 4 KB); ``first = log_first_write_bytes + log_first_write_share * commit_bytes``
  is a lone committer's write (whole 4 KB pages, TripleWrite's rewrite of a partial page).
* **Write time.** ``latency + bytes / bandwidth`` of the log device (per device, fitted), plus twice
  any one-way network delay on the write path (NFS, replicated logs).
* **Log bandwidth.** Writes follow each other with the log writer's own time between them
  (``log_gap_us`` and ``log_copy_mb_per_s`` for copying the records into the buffer), so the log
  carries ``write_bytes / (write_us + gap)`` bytes per second.

Units: bytes, microseconds, MB/s of 10^6 bytes.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.perf.mqtransport import MB


def write_bytes(committers: float, commit_bytes: float, buffer_bytes: float, k: Mapping[str, float]) -> float:
    """Mean bytes of one log write with ``committers`` concurrent committers of ``commit_bytes`` each.

    Parameters
    ----------
    committers : float
        Units of work committing at the same time (>= 1).
    commit_bytes : float
        Log bytes one unit of work commits, bytes.
    buffer_bytes : float
        Log buffer (LogBufferPages x 4,096 bytes): the most one write carries.
    k : mapping
        :func:`engine.perf.mqtransport.coefficients`.
    """
    first = k["log_first_write_bytes"] + k["log_first_write_share"] * commit_bytes
    shared = k["log_aggregation"] * max(committers - 1.0, 0.0) * commit_bytes
    return min(first + shared, buffer_bytes)


def write_us(
    nbytes: float, latency_us: float, bandwidth_mb_per_s: float, path_delay_us: float = 0.0
) -> float:
    """Time (us) of one log write of ``nbytes`` on a device of ``latency_us`` and ``bandwidth_mb_per_s``.

    ``path_delay_us`` is a one-way network delay on the write path (NFS, replicated log): a write
    waits for it twice.
    """
    return latency_us + 2.0 * path_delay_us + nbytes * 1e6 / (bandwidth_mb_per_s * MB)


def cycle_us(
    nbytes: float, latency_us: float, bandwidth_mb_per_s: float, k: Mapping[str, float], path_delay_us=0.0
):
    """Time (us) from the start of one log write to the start of the next when the log is busy."""
    gap = k["log_gap_us"] + nbytes * 1e6 / (k["log_copy_mb_per_s"] * MB)
    return write_us(nbytes, latency_us, bandwidth_mb_per_s, path_delay_us) + gap


def mb_per_s(
    committers: float,
    commit_bytes: float,
    buffer_bytes: float,
    latency_us: float,
    bandwidth_mb_per_s: float,
    k: Mapping[str, float],
    path_delay_us: float = 0.0,
) -> float:
    """Most log MB/s (10^6 bytes) a busy log carries with ``committers`` concurrent committers."""
    w = write_bytes(committers, commit_bytes, buffer_bytes, k)
    return w / cycle_us(w, latency_us, bandwidth_mb_per_s, k, path_delay_us)
