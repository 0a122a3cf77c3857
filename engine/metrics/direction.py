"""Which way a metric gets better, guessed from its name: the fallback of :mod:`engine.metrics.catalog`.

A comparison shows ``+12 %`` for both more throughput and more CPU per row; only the
first is good news. :func:`better_direction` says, from the metric's name (the names of
the engines' predictions and of the per-system figures), whether a rise is an
improvement (``+1``), a deterioration (``-1``) or neither (``0``: message size, rows per
message, log rates and stage utilisation follow from other choices and are not goals in
themselves).
"""

from __future__ import annotations

#: Substrings of metric names where more is better (throughput of every kind).
_HIGHER = (
    "rows_per_s",
    "msgs_per_s",
    "channel_mb_per_s",
    "transfer_mb_per_s",
    "throughput",
    "tps",
    "capacity",
)
#: Substrings where more is worse: latencies, elapsed and response times, CPU, busy, backlogs.
_LOWER = (
    "latency",
    "response",
    "cpu_us",
    "_us_per_row",
    "busy_pct",
    "cpu_pct",
    "elapsed",
    "backlog",
    "catch_up",
    "peak_depth",
    "mqput_us",
    "mqget_us",
    "mqcommit_us",
    "class2",
    "drain",
    "runtime_change",
    "cpu_change",
    "resync_time",
    "mem_full",
)
#: Name endings where more is worse (times in milliseconds).
_LOWER_SUFFIXES = ("_ms",)
#: Names that contain a "higher" substring yet are worse when they rise.
_LOWER_FIRST = ("backlog", "response_time_change", "runtime_change", "cpu_change")


def better_direction(metric: str) -> int:
    """Whether a rise of ``metric`` is an improvement.

    Parameters
    ----------
    metric : str
        Engine metric name (``apply_rows_per_s``, ``end2end_latency_ms``,
        ``system1_cpu_us_per_row``, ``mq_channel utilisation`` ...).

    Returns
    -------
    int
        ``+1`` when higher is better, ``-1`` when lower is better, ``0`` when neither.
    """
    name = metric.lower()
    if any(s in name for s in _LOWER_FIRST):
        return -1
    if any(s in name for s in _HIGHER):
        return 1
    if any(s in name for s in _LOWER) or name.endswith(_LOWER_SUFFIXES):
        return -1
    return 0
