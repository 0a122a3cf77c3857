"""Shared queues of a z/OS queue-sharing group: the coupling-facility list structure, SMDS and SCM.

With ``mq.shared_queue`` the transmission and receive queues live in a CF list structure
(MQ CFLEVEL(5)) instead of private buffer pools. Each message costs CF requests: Q Capture's
MQPUT, the channel's MQGET and MQPUT, Q Apply's browse and destructive MQGET
(:data:`CF_REQUESTS_PER_MSG`). Each request waits ``cf_access_us`` (Q Replication
coefficient) and uses the CF's processors (``cf_cpu_us_per_request`` plus
``cf_cpu_us_per_kb`` of entry data): the ``cf_structure`` stage, ``mq.cf_cps`` servers.

Where the message data lives (seed 003, "Regression - shared queue - CFLEVEL(5)", and IBM's
CFSTRUCT documentation; the rules are :mod:`engine.perf.qrep.cf_structure`'s): a message
larger than 63 KB is always offloaded (to shared message data sets, SMDS, or Db2 with
``mq.offload``), leaving a small entry in the structure. Smaller messages are offloaded once
the structure's usage passes a tier: from OFFLD1TH on, messages larger than OFFLD1SZ, and so
on for levels 2 and 3 (MQ defaults 70%/32 KB, 80%/4 KB, 90%/0 KB; OFFLDnSZ 64 KB or
OFFLDnTH 100% turns a rule off). The usage comes from the queued depth (:func:`placement`):
the first messages of a deep queue stay in the structure, later ones are offloaded as the
tiers are passed. An offloaded message costs an SMDS block write at the put and a read at
the first get of each shared queue (``smds`` stage, ``smds_parallel_ios`` concurrent I/Os),
or a Db2 row insert and select with ``OFFLOAD(DB2)``. SCM (``mq.scmmaxsize_gb``) takes the
entries the CF moves out once the structure is 90% full: entries kept there cost
``scm_access_us`` to bring back. A depth beyond structure and SCM cannot be queued: puts fail
(MQRC 2192, storage medium full) and Q Capture retries them, so the backlog waits in the Db2
log (:func:`placement`'s ``held_back_msgs``; in time, a catch-up's and a simulation's
structure fills and empties with the depth, :mod:`engine.perf.qrep.cf_structure`).

Coefficients are documented priors in ``assets/coefficients/topologies.json`` (no seed gives
CF figures; each one's assumption is stated there).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.metrics.catalog import info
from engine.perf.qrep.cf_structure import ALWAYS_OFFLOAD_BYTES, CfStructure

__all__ = ["ALWAYS_OFFLOAD_BYTES", "CfStructure", "costs", "metrics", "placement", "sim_holding", "stages"]

#: CF requests per message when both queues are shared: Q Capture's put, the channel's get
#: and put, Q Apply's browse and destructive get.
CF_REQUESTS_PER_MSG = 5
#: SMDS (or Db2) accesses per offloaded message: a write at each of the two puts and a read at
#: each queue's first get (the destructive get after a browse finds the block in DSBUFS).
OFFLOAD_IOS_PER_MSG = 4
BYTES_PER_MB = 1048576.0
#: More messages than any structure holds (to find how many it does).
ENOUGH_MSGS = 1e18
#: Metrics of :func:`metrics`, with their units from the metric catalogue.
METRICS = (
    "cf_cpu_pct",
    "cf_cpu_us_per_row",
    "cf_structure_used_pct",
    "offloaded_msgs_pct",
    "smds_ios_per_s",
    "cf_held_back_msgs",
)
UNITS = {name: info(name).unit for name in METRICS}


@dataclass(frozen=True)
class Placement:
    """Where the messages of a queue of a given depth live.

    Attributes
    ----------
    offloaded_share : float
        Share (0..1) of the queued messages whose data is in SMDS or Db2.
    scm_share : float
        Share of the queued messages whose entries were moved to storage-class memory.
    used_share : float
        Share of the structure's real storage in use (0..1).
    held_back_msgs : float
        Messages that do not fit in structure and SCM (puts fail; the backlog stays in the log).
    put_offloaded_share : float
        Share (0 or 1) of the next messages put whose data is offloaded: 1 once the usage has
        reached their offload threshold (always over 63 KB), 0 with no rule selecting them.
    """

    offloaded_share: float
    scm_share: float
    used_share: float
    held_back_msgs: float
    put_offloaded_share: float


def placement(topo, k, msg_bytes: float, depth_msgs: float) -> Placement:
    """Fill an empty structure with ``depth_msgs`` messages of ``msg_bytes`` in arrival order.

    Messages put while usage is below their offload threshold keep their data in the
    structure (``msg_bytes`` plus ``cf_entry_overhead_bytes``); later ones leave only the
    entry; with no rule selecting them (offload turned off) all keep their data. From 90% of
    the real storage on, entries go to SCM (if any); beyond structure and SCM puts fail.

    Parameters
    ----------
    topo : TopologyInputs
    k : TopologyCoefficients
    msg_bytes : float
        Bytes of one message.
    depth_msgs : float
        Messages on the queue.
    """
    cf = CfStructure.of(topo, k, msg_bytes)
    kept, offloaded = cf.put(depth_msgs)
    share = 1.0 / kept if kept > 0 else 0.0
    next_offloaded = cf.threshold is not None and cf.real_used_share >= cf.threshold
    return Placement(
        offloaded_share=offloaded * share,
        scm_share=cf.scm_msgs() * share,
        used_share=cf.real_used_share,
        held_back_msgs=depth_msgs - kept,
        put_offloaded_share=1.0 if next_offloaded else 0.0,
    )


@dataclass(frozen=True)
class SharedQueueCosts:
    """Per-message costs of the shared queues at one depth.

    Attributes
    ----------
    request_us : float
        Elapsed of one CF request plus its share of SMDS/Db2 and SCM access, us (added to
        each MQPUT, MQGET and channel transfer of a shared queue).
    cf_cpu_us_per_msg : float
        CF processor time per message (all its requests), us.
    offload_us_per_msg : float
        SMDS or Db2 busy time per message (all its accesses), us.
    offloaded_share : float
        Share of the flow's messages offloaded, which these costs charge (:func:`costs`).
    placement : Placement
    """

    request_us: float
    cf_cpu_us_per_msg: float
    offload_us_per_msg: float
    offloaded_share: float
    placement: Placement


def costs(inp, k, cf_access_us: float, msg_bytes: float, depth_msgs: float) -> SharedQueueCosts:
    """Per-message shared-queue costs for a flow whose queues hold ``depth_msgs`` messages.

    Parameters
    ----------
    inp : QrepInputs
    k : TopologyCoefficients
    cf_access_us : float
        Elapsed of one CF request (Q Replication coefficient ``cf_access_us``), us.
    msg_bytes : float
        Bytes of one message.
    depth_msgs : float
        Messages queued (steady: a commit's worth on each queue; drain or catch-up: the backlog).

    Messages cost the offload of their share: a steady flow's and a drain's, the share of the
    queued messages offloaded; a catch-up's (Q Capture putting and the channel moving new messages
    on top of the backlog), the share of new puts offloaded at the backlog's usage, so when the
    initial depth is past a threshold every new message pays its SMDS or Db2 I/O from the start.
    """
    topo = inp.topo
    where = placement(topo, k, msg_bytes, depth_msgs)
    offloaded = where.put_offloaded_share if inp.mode == "catch-up" else where.offloaded_share
    kb = msg_bytes / 1024.0
    if topo.offload == "SMDS":
        access_us = k.smds_io_us + kb * 1024.0 / k.smds_mb_s
    else:
        access_us = k.db2_offload_us + kb * 1024.0 / k.smds_mb_s
    offload_us = offloaded * OFFLOAD_IOS_PER_MSG * access_us
    entry_kb = (1.0 - offloaded) * kb + k.cf_entry_overhead_bytes / 1024.0
    cf_cpu = CF_REQUESTS_PER_MSG * (k.cf_cpu_us_per_request + k.cf_cpu_us_per_kb * entry_kb)
    cf_cpu += where.scm_share * k.scm_cf_cpu_us
    request_us = (
        cf_access_us
        + (offload_us + where.scm_share * k.scm_access_us) / CF_REQUESTS_PER_MSG
        + k.cf_cpu_us_per_kb * entry_kb
    )
    return SharedQueueCosts(request_us, cf_cpu, offload_us, offloaded, where)


def stages(sq: SharedQueueCosts, topo, k, rows_per_msg: float) -> list:
    """The ``cf_structure`` and (when messages are offloaded) ``smds`` or ``db2_offload`` stages.

    Returns
    -------
    list of (name, capacity rows/s, servers, service ms)
    """
    out = [
        (
            "cf_structure",
            topo.cf_cps * rows_per_msg * 1e6 / sq.cf_cpu_us_per_msg,
            topo.cf_cps,
            sq.cf_cpu_us_per_msg / 1000.0,
        )
    ]
    if sq.offload_us_per_msg > 0.0:
        out.append(
            (
                "smds" if topo.offload == "SMDS" else "db2_offload",
                k.smds_parallel_ios * rows_per_msg * 1e6 / sq.offload_us_per_msg,
                int(k.smds_parallel_ios),
                sq.offload_us_per_msg / 1000.0,
            )
        )
    return out


def metrics(sq: SharedQueueCosts, topo, msgs_per_s: float, rows_per_s: float) -> dict:
    """Published-style figures of the CF structure at ``msgs_per_s``."""
    where = sq.placement
    cf_busy = msgs_per_s * sq.cf_cpu_us_per_msg * 1e-6 / topo.cf_cps
    return {
        "cf_cpu_pct": 100.0 * min(cf_busy, 1.0),
        "cf_cpu_us_per_row": sq.cf_cpu_us_per_msg * msgs_per_s / rows_per_s if rows_per_s > 0 else 0.0,
        "cf_structure_used_pct": 100.0 * where.used_share,
        "offloaded_msgs_pct": 100.0 * where.offloaded_share,
        "smds_ios_per_s": msgs_per_s * sq.offloaded_share * OFFLOAD_IOS_PER_MSG,
        "cf_held_back_msgs": where.held_back_msgs,
    }


def sim_holding(inp, k, msg_bytes: float) -> tuple[float, str]:
    """Messages a simulated shared queue holds: the structure and SCM, offloaded data in SMDS or Db2.

    The simulation's queue model has a fast store and a slow one (a buffer pool and its page set).
    A shared queue's store is the CF structure with its SCM; what offloading costs per message is
    already in the stage capacities (:func:`costs`), so nothing is added on reading back.
    Puts failing on a full structure (Q Capture retrying) are walked over the run
    (:mod:`engine.sim.cf_course`).

    Parameters
    ----------
    inp : QrepInputs
    k : TopologyCoefficients
    msg_bytes : float
        Bytes of a typical message.

    Returns
    -------
    held_msgs, note
    """
    topo = inp.topo
    cf = CfStructure.of(topo, k, msg_bytes)
    held, offloaded = cf.put(ENOUGH_MSGS)
    in_cf = held - offloaded
    note = (
        f"shared queue: the {topo.cf_structure_mb:,.0f} MB CF structure (and SCM) holds {held:,.0f} messages, "
        f"{in_cf:,.0f} of them with their data"
        + (f" before offloading to {topo.offload}" if offloaded > 0 else " (no offload rule selects them)")
        + "; the structure's fill, offloads, SCM and failing puts over time are reported beside the run"
    )
    return held, note
