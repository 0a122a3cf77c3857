"""A coupling-facility list structure filling and emptying in time: offload rules, SCM, full puts.

The messages of a shared queue live in a CF list structure (MQ for z/OS, CFLEVEL(5)). As IBM
documents the CFSTRUCT and the CFRM policy:

* **Offload rules.** A message larger than 63 KB always keeps its data in SMDS (or Db2) and only
  an entry in the structure. A smaller one is offloaded when, at its MQPUT, the structure's usage
  has reached OFFLDnTH for a rule whose OFFLDnSZ it exceeds (MQ's defaults 70% / 32 KB, 80% /
  4 KB, 90% / 0 KB). A rule with OFFLDnSZ 64 KB (no message up to 63 KB exceeds it) or OFFLDnTH
  100% never selects a message: with every rule so, nothing up to 63 KB is offloaded.
* **SCM.** With SCMMAXSIZE in the CFRM policy (SCMALGORITHM KEYPRIORITY1), the CF moves list
  entries and their data to storage-class memory once the structure is 90% full
  (:data:`SCM_FROM_SHARE`, IBM's MQRC 2192 explanation), the messages at the back of the queues
  first; the real storage then stays at that usage until SCM is full too.
* **Full.** When the entries and data do not fit (real storage, and SCM if any), the MQPUT fails
  with MQRC_STORAGE_MEDIUM_FULL (2192); Q Capture retries (:mod:`engine.perf.qrep.qfull_retry`).

The offloaded messages are exactly those these rules select at their put; gets take the oldest
messages first (Q Apply's FIFO browse and delete). Sizes in bytes, times in seconds.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

#: Messages larger than this are always offloaded from a CF structure (63 KB, MQ CFLEVEL(5)).
ALWAYS_OFFLOAD_BYTES = 63 * 1024
#: Share of the structure's real storage from which the CF moves entries to SCM (IBM MQ: "the
#: coupling facility structure has reached 90% threshold", MQRC_STORAGE_MEDIUM_FULL).
SCM_FROM_SHARE = 0.9
BYTES_PER_MB = 1048576.0


def offload_from(topo, msg_bytes: float) -> float | None:
    """Structure usage share (0..1) from which a message of ``msg_bytes`` is offloaded; None: never.

    Parameters
    ----------
    topo : TopologyInputs
        Its ``offload_rules``: ``(usage share, size bytes)`` per OFFLDn level.
    msg_bytes : float
        Bytes of the message.
    """
    if msg_bytes > ALWAYS_OFFLOAD_BYTES:
        return 0.0
    thresholds = [thr for thr, size in topo.offload_rules if msg_bytes > size and thr < 1.0]
    return min(thresholds, default=None)


@dataclass
class CfStructure:
    """The messages in one CF structure, oldest first, each kept whole or offloaded.

    Parameters
    ----------
    real_bytes : float
        Real storage of the structure (CFRM SIZE), bytes.
    scm_bytes : float
        Storage-class memory (SCMMAXSIZE), bytes (0: none).
    full_entry_bytes : float
        Structure bytes of a message kept whole (its data and the entry).
    small_entry_bytes : float
        Structure bytes of an offloaded message (the entry with its SMDS or Db2 pointers).
    threshold : float or None
        Usage share from which puts are offloaded (:func:`offload_from`); None: never.
    """

    real_bytes: float
    scm_bytes: float
    full_entry_bytes: float
    small_entry_bytes: float
    threshold: float | None
    used_bytes: float = 0.0
    msgs: float = 0.0
    segments: deque = field(default_factory=deque)  # [messages, offloaded] oldest first

    @classmethod
    def of(cls, topo, k, msg_bytes: float) -> CfStructure:
        """The empty structure of ``topo`` (TopologyInputs) for messages of ``msg_bytes``
        (``k``: the topology coefficients, their ``cf_entry_overhead_bytes``)."""
        return cls(
            topo.cf_structure_mb * BYTES_PER_MB,
            topo.scm_mb * BYTES_PER_MB,
            msg_bytes + k.cf_entry_overhead_bytes,
            k.cf_entry_overhead_bytes,
            offload_from(topo, msg_bytes),
        )

    @property
    def capacity_bytes(self) -> float:
        """Bytes the structure holds: its real storage plus any SCM."""
        return self.real_bytes + self.scm_bytes

    @property
    def scm_used_bytes(self) -> float:
        """Bytes the CF has moved to SCM (from 90% of the real storage on)."""
        if self.scm_bytes <= 0.0:
            return 0.0
        return min(max(self.used_bytes - SCM_FROM_SHARE * self.real_bytes, 0.0), self.scm_bytes)

    @property
    def real_used_share(self) -> float:
        """Share (0..1) of the real storage in use: the usage the offload thresholds compare."""
        return min((self.used_bytes - self.scm_used_bytes) / self.real_bytes, 1.0)

    @property
    def offloaded_msgs(self) -> float:
        """Messages in the structure whose data is in SMDS or Db2."""
        return sum(n for n, off in self.segments if off)

    def scm_msgs(self) -> float:
        """Messages whose entries the CF moved to SCM: the newest, from the back of the queue."""
        left, n = self.scm_used_bytes, 0.0
        for count, offloaded in reversed(self.segments):
            size = self.small_entry_bytes if offloaded else self.full_entry_bytes
            take = min(count, left / size)
            n, left = n + take, left - take * size
            if left <= 0.0:
                break
        return n

    def _push(self, n: float, offloaded: bool) -> None:
        if n <= 0.0:
            return
        if self.segments and self.segments[-1][1] == offloaded:
            self.segments[-1][0] += n
        else:
            self.segments.append([n, offloaded])
        self.used_bytes += n * (self.small_entry_bytes if offloaded else self.full_entry_bytes)
        self.msgs += n

    def put(self, n: float) -> tuple[float, float]:
        """MQPUT ``n`` messages in order; returns (accepted, of them offloaded).

        Messages put while the real usage is below the threshold keep their data; the rest are
        offloaded. Puts that do not fit fail (MQRC 2192): ``n - accepted`` of them.
        """
        full_n = n
        if self.threshold is not None:
            below = self.threshold * self.real_bytes - (self.used_bytes - self.scm_used_bytes)
            full_n = min(n, max(below, 0.0) / self.full_entry_bytes)
        room = max(self.capacity_bytes - self.used_bytes, 0.0)
        kept = min(full_n, room / self.full_entry_bytes)
        off = 0.0
        if kept >= full_n:
            off = min(n - full_n, (room - kept * self.full_entry_bytes) / self.small_entry_bytes)
        self._push(kept, False)
        self._push(off, True)
        return kept + off, off

    def get(self, n: float) -> float:
        """Destructive MQGET of up to ``n`` messages, oldest first; returns how many were got."""
        got = 0.0
        while self.segments and got < n:
            seg = self.segments[0]
            take = min(seg[0], n - got)
            seg[0] -= take
            got += take
            self.used_bytes -= take * (self.small_entry_bytes if seg[1] else self.full_entry_bytes)
            if seg[0] <= 1e-9:
                self.segments.popleft()
        self.msgs -= got
        if not self.segments:
            self.used_bytes = self.msgs = 0.0
        return got
