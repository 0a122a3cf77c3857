"""Catch-up: Q Capture keeps capturing while Q Apply works off a deep queue.

After an outage (a stopped channel or Q Apply) or an initial load, the receive queue holds a
backlog of ``run.initial_receive_queue_depth`` messages while the workload goes on
(``run.mode: catch-up``, the receive queue manager's ``run_mode``). The two sides run
at their own rates:

* the capture side at the workload's rate, limited by its own stages (Q Capture, the MQ log,
  the channels, the CF structure): the steady flow at the backlog's depth;
* the apply side at its capacity against the deep queue (the drain of the same depth: browse
  and get by CORRELID from a queue deeper than its buffer pool, page-set reads, read-ahead).
  The receive queue is taken to be indexed by correlation id (INDXTYPE(CORRELID)), so a get
  by CORRELID finds its message without scanning the deep queue: its cost does not grow with
  the depth (an unindexed queue would scan, which this model does not cover).

While the apply rate exceeds the capture rate the backlog shrinks at their difference
(``catch_up_s`` = backlog rows / (apply - capture)); otherwise it still grows
(``backlog_growth_rows_per_s``). A transaction captured during the catch-up waits behind the
backlog left at that moment, on average half the initial backlog's apply time
(``catch_up_wait_ms``); the latencies reported are those once caught up. The stages are the
capture side's at the workload's rate and the apply side's at its catch-up rate; the busiest,
the apply side's limiting stage, is the bottleneck (it sets the catch-up time).
"""

from __future__ import annotations

import dataclasses

from engine.errors import ValueRangeError
from engine.perf.qrep.queue_maps import base_name

#: Units of the metrics a catch-up adds.
UNITS = {
    "catch_up_s": "s",
    "catch_up_wait_ms": "ms",
    "initial_backlog_rows": "rows",
}


def _capture_side(stage_name: str, order: tuple) -> bool:
    """The stage runs before the receive queue (capture side, channels, CF)."""
    return order.index(base_name(stage_name)) < order.index("mq_pageset")


def solve(inp, c, solve_one, order: tuple):
    """Solve a catch-up (``inp.mode == 'catch-up'``).

    Parameters
    ----------
    inp : QrepInputs
    c : Coefficients
    solve_one : callable
        ``solve_one(inputs, c) -> Solution`` for a steady flow or a drain.
    order : tuple of str
        Stage names in pipeline order.

    Returns
    -------
    Solution
        The steady flow at the workload's rate with the apply side's stages at the catch-up
        rate, and the catch-up figures in ``topology_metrics``.

    Raises
    ------
    ValueRangeError
        The workload is driven to the maximum (Q Apply could never catch up).
    """
    if inp.offered_rows_per_s is None and inp.jobs is None:
        raise ValueRangeError(
            "workload.offered_rows_per_s",
            None,
            "an offered rate (or workload.jobs) for a catch-up: a workload driven to the maximum "
            "never lets Q Apply catch up",
        )
    steady = solve_one(inp, c)
    drain = solve_one(dataclasses.replace(inp, mode="drain"), c)
    capture = [st for st in steady.stages if _capture_side(st.name, order)]
    capture_rows_per_s = min([steady.offered_rows_per_s] + [st.capacity_rows_per_s for st in capture])
    apply_rows_per_s = drain.rows_per_s
    capture = [
        dataclasses.replace(st, utilisation=min(capture_rows_per_s / st.capacity_rows_per_s, 1.0))
        for st in capture
    ]
    backlog_rows = inp.initial_depth_msgs * drain.geometry.rows_per_msg
    extra = {"apply_rows_per_s": apply_rows_per_s, "initial_backlog_rows": backlog_rows}
    if apply_rows_per_s > capture_rows_per_s:
        extra["catch_up_s"] = backlog_rows / (apply_rows_per_s - capture_rows_per_s)
        extra["catch_up_wait_ms"] = 1000.0 * backlog_rows / (2.0 * apply_rows_per_s)
    else:
        extra["backlog_growth_rows_per_s"] = capture_rows_per_s - apply_rows_per_s
    return dataclasses.replace(
        steady,
        rows_per_s=capture_rows_per_s,
        stages=tuple(capture) + tuple(st for st in drain.stages if not _capture_side(st.name, order)),
        bottleneck=drain.bottleneck,
        limiting_stage=drain.limiting_stage,
        topology_metrics={**steady.topology_metrics, **extra},
    )
