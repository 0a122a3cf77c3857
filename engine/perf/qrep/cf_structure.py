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
  with MQRC_STORAGE_MEDIUM_FULL (2192). Q Capture waits ``qcapture.qfull_retry_delay`` and puts
  again; meanwhile the transactions wait in the Db2 log (:func:`walk`).

The offloaded messages are exactly those these rules select at their put; gets take the oldest
messages first (Q Apply's FIFO browse and delete). Sizes in bytes, times in seconds.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

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


@dataclass(frozen=True)
class Walk:
    """A structure's course over time steps (:func:`walk`); arrays per step, end of step.

    Attributes
    ----------
    t_s : ndarray
        End of each step, s.
    put_msgs, offloaded_msgs, failed_puts : ndarray
        Messages put in the step, of them offloaded, and MQPUTs failing with MQRC 2192 (one per
        retry while Q Capture waits for room).
    held_msgs : ndarray
        Messages Q Capture could not put yet (waiting in the Db2 log), end of step.
    depth_msgs, used_pct, scm_mb : ndarray
        Messages in the structure, real storage in use (%), SCM in use (MB), end of step.
    full_s : ndarray
        Time of the step the structure was full (puts failing), s.
    retry_delay_s : float
        Q Capture's wait after a failed put, s.
    """

    t_s: np.ndarray
    put_msgs: np.ndarray
    offloaded_msgs: np.ndarray
    failed_puts: np.ndarray
    held_msgs: np.ndarray
    depth_msgs: np.ndarray
    used_pct: np.ndarray
    scm_mb: np.ndarray
    full_s: np.ndarray
    retry_delay_s: float

    @property
    def wait_msg_s(self) -> float:
        """Message-seconds spent waiting in the log for room: the messages held back over each step
        (Little's law) and, for each message put at a retry, half a retry delay on average."""
        dt = np.diff(self.t_s, prepend=0.0)
        at_retry = float(np.sum(self.put_msgs[self.full_s > 0.0]))
        return float(np.sum(self.held_msgs * dt)) + 0.5 * self.retry_delay_s * at_retry

    def first_time(self, when) -> float | None:
        """End of the first step where the boolean array ``when`` holds, s (None: never)."""
        hits = np.flatnonzero(when)
        return float(self.t_s[hits[0]]) if hits.size else None


def walk(cf: CfStructure, dt_s, wanted_msgs, gets_msgs, retry_delay_s: float) -> Walk:
    """Step a structure through puts Q Capture wants to make and gets Q Apply makes.

    Each step, Q Capture puts the messages still waiting from earlier steps and then the step's
    new ones (``wanted_msgs``); a put that finds the structure full fails (MQRC 2192) and Q
    Capture waits ``retry_delay_s`` before the next try, so while the structure is full it
    retries ``dt / retry_delay_s`` times per step and puts only what the gets free. Gets
    (``gets_msgs``, at most what is in the structure) are made after the step's puts.

    Parameters
    ----------
    cf : CfStructure
        The structure with what it holds at the start (changed in place).
    dt_s : float or ndarray
        Step lengths, s.
    wanted_msgs, gets_msgs : ndarray
        Per step, messages Q Capture has to put and messages Q Apply can get.
    retry_delay_s : float
        Q Capture's wait after a failed put (``qcapture.qfull_retry_delay``), s.
    """
    wanted = np.asarray(wanted_msgs, dtype=float)
    gets = np.asarray(gets_msgs, dtype=float)
    n = len(wanted)
    dt = np.broadcast_to(np.asarray(dt_s, dtype=float), (n,))
    cols = {name: np.zeros(n) for name in ("put", "off", "failed", "held", "depth", "used", "scm", "full")}
    held = 0.0
    for i in range(n):
        todo = held + wanted[i]
        put, off = cf.put(todo)
        held = todo - put
        got = cf.get(gets[i])
        if held > 1e-9:  # full for the part of the step after room ran out
            share = 1.0 - put / todo if todo > 0 else 1.0
            cols["full"][i] = share * dt[i]
            cols["failed"][i] = max(1.0, cols["full"][i] / retry_delay_s)
            if got > 0.0:  # what the gets freed is put at the next retry
                more, more_off = cf.put(min(held, got))
                put, off, held = put + more, off + more_off, held - more
        else:
            held = 0.0
        cols["put"][i], cols["off"][i], cols["held"][i] = put, off, held
        cols["depth"][i], cols["used"][i] = cf.msgs, 100.0 * cf.real_used_share
        cols["scm"][i] = cf.scm_used_bytes / BYTES_PER_MB
    return Walk(
        np.cumsum(dt),
        cols["put"],
        cols["off"],
        cols["failed"],
        cols["held"],
        cols["depth"],
        cols["used"],
        cols["scm"],
        cols["full"],
        retry_delay_s,
    )
