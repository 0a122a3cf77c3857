"""A catch-up on shared queues: the CF structure fills and empties with the depth in time.

:mod:`engine.perf.qrep.catch_up` gives the capture side's and Q Apply's rates; on shared queues
(``mq.shared_queue``) the queued messages live in one CF list structure
(:mod:`engine.perf.qrep.cf_structure`), and its course decides what a catch-up reports: the
initial backlog is put into an empty structure, then each step Q Capture puts at its rate and Q
Apply deletes at its catch-up rate. Messages put while the usage is past an OFFLDnTH are
offloaded (exactly those), SCM takes entries from 90% on, and once the structure is full puts fail
(MQRC 2192) and Q Capture retries every QFULL_RETRY_DELAY (:mod:`engine.perf.qrep.qfull_retry`):
it then puts only what Q Apply frees, at its retries, so capture slows to Q Apply's rate (or
below, when a long delay lets Q Apply empty the structure between retries), the captured
transactions wait in the Db2 log (CAPTURE_LATENCY grows by ``cf_capture_wait_ms``) and a finite
job's capture ends later. When a put finds no room through QFULL_NUM_RETRIES retries Q Capture
stops (``qcapture_stopped_s``): the catch-up does not finish, and no end time is reported.
"""

from __future__ import annotations

import numpy as np

from engine.perf.qrep import topology_coefficients
from engine.perf.qrep.cf_structure import BYTES_PER_MB, CfStructure
from engine.perf.qrep.qfull_retry import Walk, walk

#: Figures a catch-up on shared queues adds.
METRICS = (
    "cf_structure_peak_used_pct",
    "cf_scm_peak_mb",
    "cf_offloaded_msgs",
    "cf_put_failures",
    "cf_full_s",
    "cf_capture_wait_ms",
    "cf_full_after_s",
    "qcapture_stopped_s",
)
#: Catch-up times that a Q Capture stopped by its retries never reaches.
END_TIMES = ("catch_up_s", "catch_up_wait_ms", "catch_up_capture_s", "catch_up_apply_s", "elapsed_s")
#: Time steps of a catch-up's walk (its length over this is the step).
STEPS = 4000
#: Walk length over the estimated time the structure takes to fill, for a backlog that keeps growing.
AFTER_FULL = 1.25
#: Walk length over the closed-form end, so the end falls inside the walk.
SLACK = 1.05
EMPTY_MSGS = 1e-6
#: Walks of a catch-up that ends, each twice as long, before its end is taken at the last one's.
LONGER = 6


def _horizon_s(cf: CfStructure, backlog: float, payload: float, capture: float, apply: float):
    """Length of the walk, s: past a finite job's end, a catch-up's end, or the structure's filling
    (None: a backlog that never grows nor shrinks)."""
    if payload > 0:
        return SLACK * (payload / capture + (backlog + payload) / apply)
    if capture < apply:
        return SLACK * backlog / (apply - capture)
    if capture == apply:
        return None
    # at most the structure full of entries alone, once the messages already queued are deleted
    entries = cf.capacity_bytes / cf.small_entry_bytes
    return AFTER_FULL * (entries / (capture - apply) + cf.msgs / apply + 1.0)


def _walk_over(inp, msg_bytes: float, capture: float, apply: float, horizon: float):
    """One walk of ``horizon`` s from the initial backlog (see :func:`_walk`)."""
    topo, backlog, payload = inp.topo, inp.initial_depth_msgs, inp.catch_up_payload_msgs
    cf = CfStructure.of(topo, topology_coefficients.load(), msg_bytes)
    kept, off0 = cf.put(backlog)
    dt = horizon / STEPS
    wanted = np.full(STEPS, capture * dt)
    if payload > 0:
        cum = np.minimum(np.cumsum(wanted), payload)
        wanted = np.diff(cum, prepend=0.0)
    wanted[0] += backlog - kept  # the backlog beyond the structure is still Q Capture's to put
    used0, scm0 = 100.0 * cf.real_used_share, cf.scm_used_bytes / BYTES_PER_MB
    delay_s = topo.qfull_retry_delay_ms / 1000.0
    w = walk(cf, dt, wanted, np.full(STEPS, apply * dt), delay_s, topo.qfull_num_retries)
    return w, kept, off0, max(used0, w.peak_used_pct), max(scm0, w.peak_scm_mb)


def _walk(
    inp, msg_bytes: float, capture: float, apply: float
) -> tuple[Walk, float, float, float, float] | None:
    """The walk from the initial backlog: (walk, backlog kept in the structure, of it offloaded,
    peak real usage %, peak SCM MB); None when there is nothing to walk. A catch-up that ends
    (a finite job, a shrinking backlog) is walked again over a longer time, up to
    :data:`LONGER` times, until it ends within the walk or Q Capture stops (a long
    QFULL_RETRY_DELAY can make it end well after its closed form)."""
    probe = CfStructure.of(inp.topo, topology_coefficients.load(), msg_bytes)
    probe.put(inp.initial_depth_msgs)
    horizon = _horizon_s(probe, inp.initial_depth_msgs, inp.catch_up_payload_msgs, capture, apply)
    if horizon is None or horizon <= 0.0:
        return None
    ends = inp.catch_up_payload_msgs > 0 or capture < apply
    for _ in range(LONGER):
        out = _walk_over(inp, msg_bytes, capture, apply, horizon)
        w = out[0]
        if not ends or w.stopped_s is not None or (w.depth_msgs[-1] + w.held_msgs[-1]) <= EMPTY_MSGS:
            break
        horizon *= 2.0
    return out


def structure_in_time(
    inp, msg_bytes: float, rows_per_msg: float, capture_rows_per_s: float, apply_rows_per_s
):
    """The catch-up's figures on shared queues, or None when the walk does not apply.

    Parameters
    ----------
    inp : QrepInputs
        A catch-up on shared queues (its backlog, payload, structure and retry delay).
    msg_bytes, rows_per_msg : float
        Bytes and rows of one message.
    capture_rows_per_s, apply_rows_per_s : float
        Q Capture's rate (the workload's or its capacity) and Q Apply's catch-up rate.

    Returns
    -------
    dict or None
        ``figures`` (metric -> value: the structure's peak usage and SCM, the messages offloaded,
        the failing puts and time full, Q Capture's wait) and what the catch-up reports instead of
        its closed form (``catch_up_capture_s``, ``catch_up_apply_s``, ``elapsed_s``,
        ``catch_up_peak_depth_msgs``, ``catch_up_s``, ``capture_rows_per_s``), under ``times``;
        when Q Capture stopped, ``qcapture_stopped_s`` and, under ``drop``, the closed form's
        end times it never reaches.
    """
    capture, apply = capture_rows_per_s / rows_per_msg, apply_rows_per_s / rows_per_msg
    out = _walk(inp, msg_bytes, capture, apply)
    if out is None:
        return None
    w, kept, off0, used_peak, scm_peak = out
    put_total = kept + float(w.put_msgs.sum())
    offloaded = off0 + float(w.offloaded_msgs.sum())
    figures = {
        "cf_structure_peak_used_pct": used_peak,
        "cf_scm_peak_mb": scm_peak,
        "cf_offloaded_msgs": offloaded,
        "offloaded_msgs_pct": 100.0 * offloaded / put_total if put_total > 0 else 0.0,
        "cf_put_failures": float(w.failed_puts.sum()),
        "cf_full_s": float(w.full_s.sum()),
    }
    if w.stopped_s is not None:
        return _stopped(inp, w, w.stopped_s, kept, rows_per_msg, figures)
    wait_ms = 1000.0 * w.wait_msg_s / put_total if put_total > 0 else 0.0
    times: dict = {}
    pending = w.held_msgs
    empty = (w.depth_msgs <= EMPTY_MSGS) & (pending <= EMPTY_MSGS)
    if inp.catch_up_payload_msgs > 0:
        to_put = inp.catch_up_payload_msgs + inp.initial_depth_msgs - kept
        captured = np.cumsum(w.put_msgs) >= to_put - EMPTY_MSGS
        capture_s = w.first_time(captured & (pending <= EMPTY_MSGS)) or float(w.t_s[-1])
        apply_s = w.first_time(empty) or float(w.t_s[-1])
        times = {
            "catch_up_capture_s": capture_s,
            "catch_up_apply_s": max(apply_s, capture_s),
            "elapsed_s": max(apply_s, capture_s),
            "catch_up_peak_depth_msgs": max(kept, float(w.depth_msgs.max())),
            "capture_rows_per_s": inp.catch_up_payload_msgs * rows_per_msg / capture_s,
        }
        figures["cf_capture_wait_ms"] = wait_ms
    elif capture < apply:
        times["catch_up_s"] = w.first_time(empty) or float(w.t_s[-1])
        figures["cf_capture_wait_ms"] = wait_ms
    else:  # the backlog keeps growing: counts over the walk would only measure its length
        for name in ("cf_offloaded_msgs", "offloaded_msgs_pct", "cf_put_failures", "cf_full_s"):
            figures.pop(name)
        full_after = w.first_time(w.failed_puts > 0)
        if full_after is not None:
            figures["cf_full_after_s"] = full_after
            times["capture_rows_per_s"] = apply_rows_per_s  # Q Capture puts only what Q Apply frees
    return {"figures": figures, "times": times}


def _stopped(inp, w: Walk, stop_s: float, kept: float, rows_per_msg: float, figures: dict) -> dict:
    """The figures of a catch-up whose Q Capture stopped at ``stop_s``, its retries used up: when,
    the rate it captured at until then, the deepest queue; no end time (``drop``) and no capture
    wait (the transactions it did not put wait in the log until it is started again)."""
    new_puts = max(float(w.put_msgs.sum()) - (inp.initial_depth_msgs - kept), 0.0)  # none after the stop
    times = {"capture_rows_per_s": new_puts * rows_per_msg / stop_s if stop_s > 0 else 0.0}
    if inp.catch_up_payload_msgs > 0:
        times["catch_up_peak_depth_msgs"] = max(kept, float(w.depth_msgs.max()))
    return {"figures": {**figures, "qcapture_stopped_s": stop_s}, "times": times, "drop": END_TIMES}
