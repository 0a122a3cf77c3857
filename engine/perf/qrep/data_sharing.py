"""A Db2 data-sharing source: several members write the log Q Capture reads.

In a data-sharing group Q Capture reads the group's merged log (IFI READS of IFCID 306): a
log record is returned only once every member's log has advanced past it, so a change waits
for the next log write of the slowest of the other members. If each member writes its log at
random (Poisson) with mean interval ``I`` (``hardware.other_member_log_interval_ms``; for
members idle apart from Db2's own work, as in the Redpaper's set-up, the Q Replication
coefficient ``log_merge_delay_ms`` fitted where Q Capture reads another member's log, i.e.
two members), the wait for one member's next write is exponential with mean ``I`` (memoryless)
and for the slowest of ``n - 1`` other members ``I x H(n - 1)`` (the harmonic number): 1x
for two members, 1.5x for three, 1.83x for four. With one member and Q
Capture on the source LPAR there is no merge.

Merging costs CPU too: each record is compared against the heads of the members' streams,
``log2(n)`` comparisons per record for ``n`` streams (``ifi_merge_row_us`` reference-CPU
microseconds per row per doubling, a documented prior in ``assets/coefficients/topologies.json``);
the fitted log-reader cost already holds a two-member merge (the seeds' set-ups), so each
doubling beyond two adds one step. It runs in Q Capture's log reader, so it adds to the
reader's time and to capture CPU.
The seed (001, "Latency": "Data sharing. Q replication must retrieve and process multiple
log files") names the effect; it gives no figure.
"""

from __future__ import annotations

import dataclasses
import math

#: Members whose merge the calibrated log-reader cost already includes (the seeds' set-ups read
#: at most one other member's log).
CALIBRATED_MEMBERS = 2


def merged_members(members: int, capture_colocated_with_source: bool) -> int:
    """Members whose logs Q Capture merges: the group's ``members``, at least two when Q Capture
    runs on another LPAR than the source workload (it then reads that member's log through the
    merged read), 1 when there is nothing to merge."""
    return max(members, 1 if capture_colocated_with_source else 2)


def merge_delay_factor(members: int, capture_colocated_with_source: bool) -> float:
    """Mean wait for the slowest other member, in units of one member's mean lag: ``H(n - 1)``."""
    return sum(1.0 / i for i in range(1, merged_members(members, capture_colocated_with_source)))


def flow_merge_delay_factor(inp) -> float:
    """:func:`merge_delay_factor` of validated Q Replication inputs."""
    return merge_delay_factor(inp.topo.data_sharing_members, inp.capture_colocated_with_source)


def merge_row_us(inp, k) -> float:
    """Reference-CPU microseconds per row the merged read adds to Q Capture's log reader."""
    members = merged_members(inp.topo.data_sharing_members, inp.capture_colocated_with_source)
    return k.ifi_merge_row_us * math.log2(max(members, CALIBRATED_MEMBERS) / CALIBRATED_MEMBERS)


def with_merge_cost(demands, inp, k):
    """``demands`` (:class:`~engine.perf.qrep.costs.StaticDemands`) with the merge in the reader."""
    extra = merge_row_us(inp, k)
    if extra <= 0.0:
        return demands
    return dataclasses.replace(demands, capture_reader_row_us=demands.capture_reader_row_us + extra)
