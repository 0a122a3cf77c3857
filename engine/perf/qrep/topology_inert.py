"""Topology settings that cannot change a flow's results at its configuration, with the reason.

The counterpart of :mod:`engine.perf.qrep.inert` for the knobs of
:mod:`engine.registry.topology_knobs` (shared queues and their offload, parallel send queues,
data sharing, catch-up, the SQL Replication comparison).
"""

from __future__ import annotations

from engine.perf.qrep.shared_queue import ALWAYS_OFFLOAD_BYTES

_CF_PATHS = (
    "mq.cf_structure_size_mb",
    "mq.offload",
    "mq.offld1thr",
    "mq.offld1sz",
    "mq.offld2thr",
    "mq.offld2sz",
    "mq.offld3thr",
    "mq.offld3sz",
    "mq.scmmaxsize_gb",
    "mq.cf_cps",
)


def _offload_rules(flow) -> dict:
    """OFFLDnTH / OFFLDnSZ that cannot change where this flow's messages live."""
    topo, msg_bytes = flow.inp.topo, flow.geometry.msg_bytes
    used = flow.sq.placement.used_share
    out = {}
    if msg_bytes > ALWAYS_OFFLOAD_BYTES:
        reason = "messages over 63 KB are always offloaded, whatever the OFFLD thresholds"
        return {p: reason for p in _CF_PATHS[2:8]}
    for level, (threshold, size) in enumerate(topo.offload_rules, start=1):
        if used < threshold:
            out[f"mq.offld{level}sz"] = (
                f"the structure is {100 * used:.0f}% used, below OFFLD{level}TH ({100 * threshold:g}%)"
            )
        if msg_bytes <= size and used < threshold:
            out[f"mq.offld{level}thr"] = (
                f"messages of {msg_bytes / 1024:.1f} KB are not above OFFLD{level}SZ ({size / 1024:g} KB)"
            )
    return out


def _shared_queue(flow) -> dict:
    inp = flow.inp
    if not inp.shared_queue:
        reason = "the queues are private (mq.shared_queue false): no coupling-facility structure"
        return dict.fromkeys(_CF_PATHS, reason)
    out = _offload_rules(flow)
    pool = "shared queues live in the CF structure and SMDS, not in a buffer pool with page sets"
    out["mq.buffpool_pages"] = out["mq.read_ahead"] = out["mq.dwp_start_pct"] = pool
    where = flow.sq.placement
    if where.offloaded_share <= 0.0:
        out["mq.offload"] = "no message is offloaded at this structure usage and message size"
    if where.used_share < 1.0:
        out["mq.scmmaxsize_gb"] = "the structure's real storage holds the queue (SCM is used only beyond it)"
    return out


def _modes(flow) -> dict:
    inp = flow.inp
    out = {}
    if inp.mode == "drain":
        reason = "a drain runs Q Apply alone (Q Capture and the channels are stopped)"
        out["qcapture.num_parallel_sendqs"] = reason
        out["hardware.data_sharing_members"] = reason
    if inp.topology != "sql-replication" and not inp.topo.compare_sql:
        out["sql_apply.sleep_minutes"] = (
            "SQL Replication is not predicted (Q Replication topology and sql_apply.compare false)"
        )
    return out


def _retries(flow) -> dict:
    """QFULL_RETRY_DELAY and QFULL_NUM_RETRIES matter only when a put fails on a full CF structure
    (a catch-up on shared queues whose structure fills takes them back out,
    :mod:`engine.perf.qrep.catch_up`)."""
    if not flow.inp.shared_queue:
        why = "the queues are private (mq.shared_queue false): no put fails on a full CF structure"
    else:
        why = "no put fails on a full CF structure (MQRC 2192) in this run: Q Capture never retries"
    return {"qcapture.qfull_retry_delay_ms": why, "qcapture.qfull_num_retries": why}


def topology_inert_settings(flow) -> dict:
    """Settings path -> why it cannot change this flow's results (a ``_Flow`` of the pipeline)."""
    return {**_shared_queue(flow), **_modes(flow), **_retries(flow)}
