"""The CF structure of a simulated shared queue over the run: fill, offloads, SCM and failing puts.

With ``mq.shared_queue`` the transmission and receive queues live in one CF list structure. The
simulation's per-bin MQPUTs (Q Capture's published messages) and deletes (Q Apply's applied
messages, a pre-loaded queue's included) step the structure of
:mod:`engine.perf.qrep.cf_structure` through the run: its real storage in use, the messages the
OFFLDnTH / OFFLDnSZ rules offload at their put (exactly those), the SCM it takes from 90% on, and
the puts that find it full (MQRC 2192), Q Capture retrying every ``qcapture.qfull_retry_delay_ms``.
The simulated Q Capture is not slowed by those failures (its puts are simulated before the
structure is walked); the messages it could not have put yet are reported (``cf.held_msgs``).
"""

from __future__ import annotations

from engine.perf.qrep.cf_structure import CfStructure, walk

#: Summary figures of a shared-queue run, with their units.
SUMMARY_UNITS = {
    "cf_structure_peak_used_pct": "%",
    "cf_scm_peak_mb": "MB",
    "cf_offloaded_msgs": "messages",
    "cf_put_failures": "MQPUTs",
    "cf_full_s": "s",
}


def course(acc, cfg, initial_msgs: float) -> tuple[dict, dict]:
    """Summary figures and per-bin series of the run's CF structure (both empty for private queues).

    Parameters
    ----------
    acc : engine.sim.accumulate.Accumulator
        The run's accumulators (``pub_msgs``, ``pub_bytes`` and ``app_msgs`` per bin).
    cfg : PipelineConfig
        Its ``cf_structure``: ``(TopologyInputs, TopologyCoefficients)`` or None.
    initial_msgs : float
        Messages on the receive queue at the start.
    """
    if cfg.cf_structure is None:
        return {}, {}
    topo, k = cfg.cf_structure
    puts, gets = acc.series("pub_msgs"), acc.series("app_msgs")
    n_put = float(puts.sum())
    msg_bytes = (
        float(acc.series("pub_bytes").sum()) / n_put
        if n_put > 0
        else cfg.bytes_per_row * cfg.rows_per_txn * cfg.trans_batch_sz
    )
    cf = CfStructure.of(topo, k, msg_bytes)
    kept, off0 = cf.put(float(initial_msgs))
    used0 = 100.0 * cf.real_used_share
    wanted = puts.astype(float)
    if len(wanted):
        wanted[0] += float(initial_msgs) - kept
    w = walk(cf, acc.dt, wanted, gets, topo.qfull_retry_delay_ms / 1000.0)
    summary = {
        "cf_structure_peak_used_pct": max(used0, float(w.used_pct.max(initial=0.0))),
        "cf_scm_peak_mb": float(w.scm_mb.max(initial=0.0)),
        "cf_offloaded_msgs": off0 + float(w.offloaded_msgs.sum()),
        "cf_put_failures": float(w.failed_puts.sum()),
        "cf_full_s": float(w.full_s.sum()),
    }
    series = {
        "cf.used_pct": w.used_pct,
        "cf.scm_mb": w.scm_mb,
        "cf.msgs": w.depth_msgs,
        "cf.offloaded_msgs_per_s": w.offloaded_msgs / acc.dt,
        "cf.put_failures": w.failed_puts,
        "cf.held_msgs": w.held_msgs,
    }
    return summary, series
