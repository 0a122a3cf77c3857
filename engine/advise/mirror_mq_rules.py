"""Db2 Mirror and MQ buffer pool tuning rules (seeds: Db2 Mirror for i performance, MQ for z/OS V8).

Db2 Mirror: storage speed, cores, job sets, the application's memory pool shared with the
replication jobs in active-active, and read-only opens instead of opens for update. MQ buffer pools: page-fixed buffers, a pool that holds the backlog,
read-ahead for deep queues.
"""

from __future__ import annotations

import math

from engine.advise.base import Rule, SetKnobRule, first, metric, nodes, set_all
from engine.advise.outage import advised_pool_pages, dwp_start_pct, pool_storage_text
from engine.perf.mq_bufferpool import buffers_below_dwp


class MirrorSsdRule(SetKnobRule):
    """Mirrored writes wait for HDD storage: SSD/flash."""

    id = "mirror_ssd"
    kinds = ("db2mirror",)
    knob = ("db2_mirror_node", "storage")
    value = "SSD"
    symptom = "HDD"
    metric = "response_time_ms"
    sense = "min"
    cost_risk = "New storage on both nodes (a mirrored write waits for the slower of the two)."

    title_text = "Put both nodes on SSD/flash storage"
    reason_text = "every mirrored write waits for a synchronous write on HDD at both nodes"


class MirrorCoresRule(Rule):
    """The source node's cores limit throughput: add cores."""

    id = "mirror_cores"
    kinds = ("db2mirror",)
    knob = ("db2_mirror_node", "cores")
    metric = "throughput"
    cost_risk = "Cores are licensed per node (IBM i and Db2 Mirror); the target needs enough to keep up too."

    def applies(self, project, prediction) -> bool:
        # CPU-bound: the source node's processors are nearly saturated (a closed workload can name
        # the CPU its busiest resource at 30% busy: that is not a reason to buy cores)
        return metric(prediction, "source_cpu_pct", 0.0) > 90.0

    def reason(self, project, prediction) -> str:
        return f"the source node's CPU is {metric(prediction, 'source_cpu_pct'):.0f}% busy"

    def change(self, project, prediction):
        for n in nodes(project, "db2_mirror_node"):
            cores = n.params.get("cores")
            if cores:
                project = project.with_param(n.id, "cores", min(240, math.ceil(cores * 1.5)))
        return project

    def title(self, before, after, prediction) -> str:
        return "Add cores: " + ", ".join(
            f"{n.label} {n.params['cores']}" for n in nodes(after, "db2_mirror_node") if n.params.get("cores")
        )


class MirrorJobSetsRule(Rule):
    """Jobs wait on the mirror round trip with CPU to spare: run more job sets."""

    id = "mirror_job_sets"
    kinds = ("db2mirror",)
    knob = ("db2_mirror_node", "job_sets")
    metric = "throughput"
    cost_risk = "More concurrent jobs raise lock contention between them and need memory in their pool."

    def applies(self, project, prediction) -> bool:
        src = first(project, "db2_mirror_node")
        return (
            src is not None
            and src.params.get("job_sets")
            and metric(prediction, "source_cpu_pct", 100.0) < 80.0
        )

    def reason(self, project, prediction) -> str:
        return (
            f"jobs wait for their mirrored writes while the source CPU is "
            f"{metric(prediction, 'source_cpu_pct'):.0f}% busy"
        )

    def change(self, project, prediction):
        src = first(project, "db2_mirror_node")
        return project.with_param(src.id, "job_sets", min(100_000, math.ceil(src.params["job_sets"] * 1.25)))

    def title(self, before, after, prediction) -> str:
        return f"Run {first(after, 'db2_mirror_node').params['job_sets']} job sets"


def mirror_mode(project) -> str:
    """The pair's mode from its RoCE link (``none``, ``active-passive`` or ``active-active``)."""
    link = first(project, "roce_link")
    return (link.params.get("mode") if link is not None else None) or "active-passive"


class MirrorSharedPoolRule(SetKnobRule):
    """Active-active: replication jobs outside the application's pool fault pages in; share it.

    Seed (Db2 Mirror for i performance, 7.3.6): "For the active/active scenarios, having the
    QDBMSRVR replication jobs share the same memory pool as the application resulted in the
    best performance." *BASE (where the jobs run by default, 4.2) and a pool of their own are
    both apart from the application's pool, so both qualify; the registry's choice for the
    shared pool is ``application``. The seed gives no pool advice for active-passive.
    """

    id = "mirror_shared_pool"
    kinds = ("db2mirror",)
    knob = ("db2_mirror_node", "memory_pool")
    value = "application"
    metric = "throughput"
    cost_risk = (
        "The QDBMSRVR jobs then compete with the application for its pool's memory; size the "
        "shared pool for both (more memory in it did slightly better still, 7.3.6)."
    )

    title_text = "Run the replication jobs in the application's memory pool on both nodes"

    def applies(self, project, prediction) -> bool:
        return mirror_mode(project) == "active-active" and bool(self.to_change(project))

    def reason(self, project, prediction) -> str:
        apart = ", ".join(f"{n.label} {n.params.get('memory_pool')}" for n in self.to_change(project))
        return (
            f"both nodes run replication jobs in active-active and they run apart from the application's "
            f"pool ({apart}), so they fault pages in"
        )


class MirrorReadOnlyRule(SetKnobRule):
    """Reads lock rows for update, so every read is mirrored: open read-only."""

    id = "mirror_read_only"
    kinds = ("db2mirror",)
    knob = ("db2_mirror_node", "reads_for_update")
    value = False
    metric = "response_time_ms"
    sense = "min"
    cost_risk = "An application change: files opened read-only cannot be updated through the same open."

    title_text = "Open files read-only where the program only reads"
    reason_text = "reads open files for update, so their row locks cross the mirror link"

    def applies(self, project, prediction) -> bool:
        return any(n.params.get("reads_for_update") for n in nodes(project, "db2_mirror_node"))


class PageFixRule(SetKnobRule):
    """Pageable buffers: page-fixed (PAGECLAS FIXED4KB) where storage allows."""

    id = "page_fix"
    kinds = ("mq-mover",)
    knob = ("queue_manager", "pageclas")
    value = "FIXED4KB"
    symptom = "4KB"
    metric = "total_cpu_us_per_msg"
    sense = "min"
    cost_risk = (
        "The whole pool stays in real storage for the life of the queue manager; only where storage allows."
    )

    title_text = "Page-fix the buffer pools (PAGECLAS FIXED4KB)"
    reason_text = "each buffer is fixed and freed around every I/O"


class MoverBufferPoolRule(Rule):
    """The backlog overflows the buffer pool to the page set: a pool that holds it."""

    id = "buffpool_backlog_mq"
    kinds = ("mq-mover",)
    knob = ("queue_manager", "buffpool_pages")
    metric = "elapsed_s"
    sense = "min"
    cost_risk = "Every 4 KB buffer is queue manager storage; a pool sized for the backlog needs real storage."

    def applies(self, project, prediction) -> bool:
        return metric(prediction, "pageset_get_fraction", 0.0) > 0.0

    def reason(self, project, prediction) -> str:
        return (
            f"{100 * metric(prediction, 'pageset_get_fraction'):.0f}% of messages are read back from the page "
            f"set (peak depth {metric(prediction, 'peak_depth'):,.0f})"
        )

    def change(self, project, prediction):
        backlog_pages = metric(prediction, "peak_depth") * metric(prediction, "pages_per_msg", 1.0)
        needed = buffers_below_dwp(backlog_pages, dwp_start_pct(first(project, "queue_manager")))
        return set_all(project, "queue_manager", "buffpool_pages", advised_pool_pages(needed))

    def title(self, before, after, prediction) -> str:
        pages = first(after, "queue_manager").params["buffpool_pages"]
        return f"Hold the backlog: BUFFPOOL {pages:,} pages ({pool_storage_text(pages)})"


class MoverReadAheadRule(SetKnobRule):
    """The channel reads a deep transmit queue from the page set: read-ahead."""

    id = "read_ahead_mq"
    kinds = ("mq-mover",)
    knob = ("queue_manager", "read_ahead")
    value = True
    metric = "elapsed_s"
    sense = "min"
    cost_risk = "Needs MQ with read-ahead (PM63802); pre-staged pages take buffers."

    title_text = "Switch MQ read-ahead on"
    reason_text = "the channel reads the backlog from the page set one page at a time"

    def applies(self, project, prediction) -> bool:
        return metric(prediction, "pageset_get_fraction", 0.0) > 0.0 and bool(self.to_change(project))


def mirror_mq_rules() -> list:
    """Every Db2 Mirror and MQ buffer pool rule."""
    return [
        MirrorSsdRule(),
        MirrorCoresRule(),
        MirrorJobSetsRule(),
        MirrorSharedPoolRule(),
        MirrorReadOnlyRule(),
        PageFixRule(),
        MoverBufferPoolRule(),
        MoverReadAheadRule(),
    ]
