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

With no offered rate (``workload.offered_rows_per_s: null``) Q Capture captures as fast as it can:
the capture side runs at its own stages' capacity.

**A finite job** (``run.catch_up_payload_msgs``: ``P`` messages, ``P x rows per message`` rows still
to capture) ends: capture finishes after ``P / capture rate`` (``catch_up_capture_s``); Q Apply works
the initial backlog ``B`` and the payload at its catch-up rate and finishes after
``max(capture time, (B + P) / apply rate)`` (``catch_up_apply_s``, also ``elapsed_s``); the receive
queue is deepest (``catch_up_peak_depth_msgs``) when capture ends if capture outruns apply,
``B + (capture - apply) x capture time``, else at the start, ``B``. A finite job reports these
instead of a catch-up time or a growing backlog.

Otherwise, while the apply rate exceeds the capture rate the backlog shrinks at their difference
(``catch_up_s`` = backlog rows / (apply - capture)); otherwise it still grows
(``backlog_growth_rows_per_s``). A transaction captured during the catch-up waits behind the
backlog left at that moment, on average half the initial backlog's apply time
(``catch_up_wait_ms``); the latencies reported are those once caught up. The stages are the
capture side's at the workload's rate and the apply side's at its catch-up rate; the busiest,
the apply side's limiting stage, is the bottleneck (it sets the catch-up time).

On shared queues the CF structure fills and empties with the depth in time
(:mod:`engine.perf.qrep.catch_up_cf`): when it fills, puts fail (MQRC 2192), Q Capture retries
and slows to Q Apply's rate, and the times above come from that course instead of the closed form;
when a put finds no room through QFULL_NUM_RETRIES retries Q Capture stops and the catch-up reports
when (``qcapture_stopped_s``) and no end time.
"""

from __future__ import annotations

import dataclasses

from engine.metrics.catalog import info
from engine.perf.qrep import catch_up_cf
from engine.perf.qrep.queue_maps import base_name

#: Q Capture's retry delay and retries, which matter only when a put fails on a full CF structure.
RETRY_PATHS = ("qcapture.qfull_retry_delay_ms", "qcapture.qfull_num_retries")

#: Units of the metrics a catch-up adds.
UNITS = {
    "catch_up_s": "s",
    "catch_up_wait_ms": "ms",
    "initial_backlog_rows": "rows",
    "catch_up_capture_s": "s",
    "catch_up_apply_s": "s",
    "catch_up_peak_depth_msgs": "msgs",
    "elapsed_s": "s",
    **{name: info(name).unit for name in catch_up_cf.METRICS},
}


def _capture_side(stage_name: str, order: tuple) -> bool:
    """The stage runs before the receive queue (capture side, channels, CF)."""
    return order.index(base_name(stage_name)) < order.index("mq_pageset")


def _finite_job(payload_rows: float, backlog_rows: float, capture_rows_per_s: float, apply_rows_per_s: float):
    """When capture and apply finish a payload, and the deepest receive queue (in rows, as
    ``catch_up_peak_depth_msgs`` until the caller converts it)."""
    capture_s = payload_rows / capture_rows_per_s
    apply_s = max(capture_s, (backlog_rows + payload_rows) / apply_rows_per_s)
    peak_rows = backlog_rows + max(capture_rows_per_s - apply_rows_per_s, 0.0) * capture_s
    return {
        "catch_up_capture_s": capture_s,
        "catch_up_apply_s": apply_s,
        "elapsed_s": apply_s,
        "catch_up_peak_depth_msgs": peak_rows,
    }


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

    """
    steady = solve_one(inp, c)
    drain = solve_one(dataclasses.replace(inp, mode="drain"), c)
    capture = [st for st in steady.stages if _capture_side(st.name, order)]
    capture_rows_per_s = min([steady.offered_rows_per_s] + [st.capacity_rows_per_s for st in capture])
    apply_rows_per_s = drain.rows_per_s
    capture = [
        dataclasses.replace(st, utilisation=min(capture_rows_per_s / st.capacity_rows_per_s, 1.0))
        for st in capture
    ]
    rows_per_msg = drain.geometry.rows_per_msg
    backlog_rows = inp.initial_depth_msgs * rows_per_msg
    extra = {"apply_rows_per_s": apply_rows_per_s, "initial_backlog_rows": backlog_rows}
    if inp.catch_up_payload_msgs > 0:
        extra.update(
            _finite_job(
                inp.catch_up_payload_msgs * rows_per_msg, backlog_rows, capture_rows_per_s, apply_rows_per_s
            )
        )
        extra = {
            name: value / rows_per_msg if name == "catch_up_peak_depth_msgs" else value
            for name, value in extra.items()
        }
    elif apply_rows_per_s > capture_rows_per_s:
        extra["catch_up_s"] = backlog_rows / (apply_rows_per_s - capture_rows_per_s)
        extra["catch_up_wait_ms"] = 1000.0 * backlog_rows / (2.0 * apply_rows_per_s)
    else:
        extra["backlog_growth_rows_per_s"] = capture_rows_per_s - apply_rows_per_s
    capture_latency_ms = steady.capture_latency_ms
    inert_settings = steady.inert_settings
    if inp.shared_queue:
        cf = catch_up_cf.structure_in_time(
            inp, drain.geometry.msg_bytes, rows_per_msg, capture_rows_per_s, apply_rows_per_s
        )
        if cf is not None:
            for name in cf.get("drop", ()):
                extra.pop(name, None)
            extra.update(cf["figures"])
            extra.update({name: v for name, v in cf["times"].items() if name != "capture_rows_per_s"})
            capture_rows_per_s = cf["times"].get("capture_rows_per_s", capture_rows_per_s)
            capture_latency_ms += cf["figures"].get("cf_capture_wait_ms", 0.0)
            if cf["figures"].get("cf_put_failures", 0.0) > 0 or "cf_full_after_s" in cf["figures"]:
                inert_settings = {k: v for k, v in inert_settings.items() if k not in RETRY_PATHS}
    return dataclasses.replace(
        steady,
        overloaded=steady.overloaded
        and not inp.catch_up_payload_msgs,  # a finite job's backlog stops growing
        capture_latency_ms=capture_latency_ms,
        inert_settings=inert_settings,
        rows_per_s=capture_rows_per_s,
        stages=tuple(capture) + tuple(st for st in drain.stages if not _capture_side(st.name, order)),
        bottleneck=drain.bottleneck,
        limiting_stage=drain.limiting_stage,
        topology_metrics={**steady.topology_metrics, **extra},
    )
