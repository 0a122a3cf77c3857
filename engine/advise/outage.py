"""How long a channel outage the transmit queue's MQ buffer pool holds.

While the channel is down Q Capture keeps putting messages at the steady-state rate, and
they pile up on the transmit queue. They stay in the buffer pool until usage reaches the
deferred write processor's start threshold (``dwp_start_pct``, 85% by default); beyond it
the pool casts pages out to the page set and, once full, steals them, so the channel must
read the backlog back from disk when it restarts (the slow drain of journey 4). The pool
*holds* an outage when the backlog stays below that threshold.

The message rate and size come from the steady-state engine's prediction
(``channel_msgs_per_s``, ``msg_size_kb``); buffers per message and the threshold come from
:mod:`engine.perf.mq_bufferpool` (``pages_per_message``, ``BufferPool.dwp_start_buffers``).
"""

from __future__ import annotations

import math

from engine.model import Project
from engine.registry.platform_knobs import ZOS

#: The advisor sizes buffer pools in steps of this many 4 KB pages, and never below it.
MIN_ADVISED_PAGES = 1000
#: The largest BUFFPOOL the advisor proposes (4 KB pages; about 191 GiB).
MAX_BUFFPOOL_PAGES = 50_000_000
#: Derived metrics :func:`outage_metrics` adds, with units.
UNITS = {"outage_held_min": "min", "xmitq_backlog_msgs_per_min": "msgs/min", "xmitq_pages_per_msg": "pages"}


def transmit_queue_manager(project: Project):
    """The queue manager holding the transmit queue (the first of the first flow), or None."""
    try:
        from engine.topology import flows

        nodes = flows(project, limit=1)[0]
    except Exception:  # noqa: BLE001 - an incomplete topology has no transmit queue to size
        return None
    return next((n for n in nodes if n.kind == "queue_manager"), None)


def outage_metrics(project: Project, metrics: dict, qm=None) -> dict:
    """Minutes of channel outage the transmit queue's buffer pool holds, and the backlog rate.

    Parameters
    ----------
    project : Project
        A Q Replication project (its transmit-side queue manager's ``buffpool_pages``,
        ``dwp_start_pct`` and ``pageclas`` are used).
    metrics : dict
        The steady-state prediction's metrics (``channel_msgs_per_s``, ``msg_size_kb``).
    qm : Node, optional
        The transmit queue manager when already known.

    Returns
    -------
    dict
        ``outage_held_min`` (min; ``inf`` with no traffic), ``xmitq_backlog_msgs_per_min`` and
        ``xmitq_pages_per_msg``; empty when the project has no transmit queue, the prediction
        has no channel traffic (a drain), or the queue manager is not on z/OS (no buffer pool).
    """
    qm = qm if qm is not None else transmit_queue_manager(project)
    rate = metrics.get("channel_msgs_per_s")
    kb = metrics.get("msg_size_kb")
    if qm is None or not isinstance(rate, (int, float)) or not isinstance(kb, (int, float)):
        return {}
    if qm.params.get("os_platform", ZOS) != ZOS:  # a distributed queue manager queues to its queue file
        return {}
    from engine.perf import mq_bufferpool as mqbp

    kw = {"dwp_start_pct": dwp_start_pct(qm)}
    lo, hi = qm.params["dwp_target_pct"]
    kw["dwp_target_pct"] = (float(min(lo, kw["dwp_start_pct"])), float(min(hi, kw["dwp_start_pct"])))
    pool = mqbp.BufferPool(buffers=int(qm.params["buffpool_pages"]), **kw)
    pages = mqbp.pages_per_message(max(1, round(kb * 1024)))
    per_min = rate * 60.0
    held = pool.dwp_start_buffers / (per_min * pages) if per_min > 0 else math.inf
    return {
        "outage_held_min": held,
        "xmitq_backlog_msgs_per_min": per_min,
        "xmitq_pages_per_msg": float(pages),
    }


def pool_storage_text(pages: int) -> str:
    """Storage of a buffer pool of ``pages`` 4 KB buffers, as an MQ administrator sizes it: ``"6.4 GiB"``."""
    from engine.perf.mq_bufferpool import buffers_mb

    mib = buffers_mb(pages)
    return f"{mib / 1024:,.3g} GiB" if mib >= 1024 else f"{mib:,.3g} MiB"


def pool_pages_for(minutes: float, metrics: dict, dwp_start_pct: float | None = None) -> int:
    """Smallest BUFFPOOL (4 KB pages) whose DWP threshold holds ``minutes`` of backlog (closed form).

    Used to check the goal seeker; the advisor itself searches with the engine. ``dwp_start_pct``
    None: the registry default.
    """
    from engine.perf import mq_bufferpool as mqbp

    dwp_start_pct = mqbp.DWP_START_PCT if dwp_start_pct is None else dwp_start_pct
    backlog_msgs = minutes * 60.0 * metrics["channel_msgs_per_s"]
    return mqbp.buffers_to_hold(backlog_msgs, max(1, round(metrics["msg_size_kb"] * 1024)), dwp_start_pct)


def advised_pool_pages(buffers: int, at_least: int = MIN_ADVISED_PAGES) -> int:
    """A BUFFPOOL to advise for ``buffers`` needed: rounded up to 1,000 pages, at least ``at_least``,
    at most :data:`MAX_BUFFPOOL_PAGES`."""
    rounded = math.ceil(buffers / MIN_ADVISED_PAGES) * MIN_ADVISED_PAGES
    return min(MAX_BUFFPOOL_PAGES, max(at_least, rounded))


def dwp_start_pct(qm) -> float:
    """The deferred write start threshold of queue manager node ``qm`` (%)."""
    return float(qm.params["dwp_start_pct"])
