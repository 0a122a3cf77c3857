"""Q Replication tuning rules from the seeds (Redpaper "Q Replication for z/OS performance study").

Each rule looks for a symptom in the prediction, proposes one concrete change, and states
the cost or risk the seeds attach to it. Where the right amount is a number (a batch size,
a buffer pool, a number of agents) the rule finds it with the engine through the goal seeker
(:mod:`engine.advise.goalseek`), never with a rule of thumb alone.
"""

from __future__ import annotations

import math

from engine.advise.base import Rule, SetKnobRule, first, knob_axis, metric, nodes, set_all
from engine.advise.goalseek import Constraint, make_goal, seek, seek_change
from engine.advise.outage import (
    MAX_BUFFPOOL_PAGES,
    MIN_ADVISED_PAGES,
    advised_pool_pages,
    dwp_start_pct,
    outage_metrics,
    pool_storage_text,
    transmit_queue_manager,
)
from engine.advise.queue_map_rule import QueueMapsRule
from engine.perf.mq_bufferpool import buffers_to_hold
from engine.studies.sweep import Axis

#: The message size range the seeds recommend for Q Replication messages (KB).
MSG_KB_RANGE = (32.0, 256.0)

#: Channel outage (minutes) the transmit queue's buffer pool should hold (journey 4).
OUTAGE_MIN = 20.0

#: CPU ceiling of the seeds' tuning goal (%).
CPU_CEILING_PCT = 90.0


class TransBatchRule(Rule):
    """Small messages on a saturated channel: group source transactions (TRANS_BATCH_SZ)."""

    id = "trans_batch_sz"
    knob = ("qcapture", "trans_batch_sz")
    cost_risk = (
        "Each batch becomes one target transaction: locks are held longer at the target (more lock "
        "contention with other work) and a row waits for the rest of its batch, so APPLY_LATENCY can rise."
    )

    def applies(self, project, prediction) -> bool:
        return (
            prediction.bottleneck == "mq_channel"
            and metric(prediction, "msg_size_kb", math.inf) < MSG_KB_RANGE[0]
            and first(project, "qcapture") is not None
        )

    def reason(self, project, prediction) -> str:
        return (
            f"the MQ channel limits throughput and messages are {metric(prediction, 'msg_size_kb'):.3g} KB, "
            f"below the {MSG_KB_RANGE[0]:g}-{MSG_KB_RANGE[1]:g} KB range"
        )

    def change(self, project, prediction):
        tb = int(first(project, "qcapture").params["trans_batch_sz"])
        guess = math.ceil(tb * MSG_KB_RANGE[0] / max(metric(prediction, "msg_size_kb"), 1e-3))
        hi = min(10_000, max(guess * 4, tb + 1))
        goal = make_goal(
            "qcapture.trans_batch_sz",
            "min",
            (
                Constraint("msg_size_kb", ">=", MSG_KB_RANGE[0]),
                Constraint("msg_size_kb", "<=", MSG_KB_RANGE[1]),
            ),
            (knob_axis(project, "qcapture", "trans_batch_sz", range(tb + 1, hi + 1)),),
        )
        return seek_change(project, goal)

    def title(self, before, after, prediction) -> str:
        return f"Group {first(after, 'qcapture').params['trans_batch_sz']} source transactions per MQ message (TRANS_BATCH_SZ)"


class RowLockingRule(SetKnobRule):
    """Page locking at the target: row-level locking."""

    id = "row_locking"
    knob = ("target_db2", "locking")
    value = "row"
    symptom = "page"
    cost_risk = (
        "More locks in the IRLM and more lock requests per page; check NUMLKTS/NUMLKUS so lock "
        "escalation does not undo the gain."
    )

    title_text = "Use row-level locking on the target tables"
    reason_text = "the target tables use page locking, so Q Apply agents wait for each other's page locks"


class ColumnSuppressionRule(SetKnobRule):
    """Updates send every column: send only changed columns (CHANGED_COLS_ONLY)."""

    id = "changed_cols_only"
    knob = ("qcapture", "changed_cols_only")
    value = True
    metric = "total_cpu_us_per_row"
    sense = "min"
    cost_risk = (
        "Unchanged columns are no longer sent, so conflict detection can compare only the key and the "
        "changed columns, and the conflict action cannot be F (force)."
    )

    title_text = "Send only changed columns (CHANGED_COLS_ONLY = Y)"

    def applies(self, project, prediction) -> bool:
        qc, src, qa = first(project, "qcapture"), first(project, "source_db2"), first(project, "qapply")
        if qc is None or src is None or qa is None or qc.params.get("changed_cols_only"):
            return False
        n_cols = sum(src.params["columns"].values())
        return (
            qa.params.get("conflict_action") != "F"
            and src.params.get("updates_per_txn", 0) > 0
            and src.params.get("columns_changed_per_update", 0) < n_cols
        )

    def target(self, project, prediction):
        if prediction.bottleneck in ("qcapture", "mq_log", "mq_channel", "capture_cpu"):
            return "apply_rows_per_s", "max"
        return self.metric, self.sense

    def reason(self, project, prediction) -> str:
        src = first(project, "source_db2")
        return (
            f"updates change {src.params['columns_changed_per_update']} of {sum(src.params['columns'].values())} "
            f"columns but every column is sent, and the conflict action allows suppression"
        )


class OutageBufferPoolRule(Rule):
    """The transmit queue's buffer pool does not hold a channel outage: enlarge BUFFPOOL."""

    id = "buffpool_outage"
    knob = ("queue_manager", "buffpool_pages")
    metric = "outage_held_min"
    cost_risk = (
        "Every 4 KB buffer is storage of the queue manager (above the bar from MQ V8); a bigger pool "
        "needs real storage to back it or it pages."
    )

    def __init__(self, outage_min: float = OUTAGE_MIN):
        self.outage_min = outage_min

    def applies(self, project, prediction) -> bool:
        held = outage_metrics(project, prediction.metrics).get("outage_held_min")
        return held is not None and held < self.outage_min

    def reason(self, project, prediction) -> str:
        m = outage_metrics(project, prediction.metrics)
        return (
            f"the transmit queue fills its buffer pool after {m['outage_held_min']:.3g} min of channel outage "
            f"({m['xmitq_backlog_msgs_per_min']:,.0f} messages/min); a {self.outage_min:g}-minute outage "
            f"would spill to the page set"
        )

    def change(self, project, prediction):
        qm = transmit_queue_manager(project)
        lo = int(qm.params["buffpool_pages"])
        values = range(
            lo + MIN_ADVISED_PAGES - lo % MIN_ADVISED_PAGES, MAX_BUFFPOOL_PAGES + 1, MIN_ADVISED_PAGES
        )
        goal = make_goal(
            f"{qm.id}.buffpool_pages",
            "min",
            (Constraint("outage_held_min", ">=", self.outage_min),),
            (Axis(qm.id, "buffpool_pages", (qm.id,), tuple(values)),),
        )
        return seek_change(project, goal)

    def title(self, before, after, prediction) -> str:
        pages = transmit_queue_manager(after).params["buffpool_pages"]
        return (
            f"Size the transmit queue's buffer pool at {pages:,} pages ({pool_storage_text(pages)}) to hold "
            f"a {self.outage_min:g}-minute channel outage"
        )


class DrainBufferPoolRule(Rule):
    """A pre-loaded queue spills out of its buffer pool: hold the backlog in buffers."""

    id = "buffpool_backlog"
    knob = ("queue_manager", "buffpool_pages")
    metric = "elapsed_s"
    sense = "min"
    cost_risk = (
        "Every 4 KB buffer is storage of the queue manager; a pool sized for the backlog needs real "
        "storage to back it."
    )

    reason_text = (
        "the backlog does not fit in the buffer pool, so Q Apply reads messages back from the page set"
    )

    def applies(self, project, prediction) -> bool:
        return prediction.bottleneck == "mq_pageset" and "elapsed_s" in prediction.metrics

    def change(self, project, prediction):
        qm = first(project, "queue_manager")
        depth = max(int(n.params["initial_depth_msgs"]) for n in nodes(project, "queue_manager"))
        msg_bytes = max(1, round(metric(prediction, "msg_size_kb") * 1024))
        needed = buffers_to_hold(depth, msg_bytes, dwp_start_pct(qm))
        pages = advised_pool_pages(needed, at_least=int(qm.params["buffpool_pages"]) + 1000)
        return set_all(project, "queue_manager", "buffpool_pages", pages)

    def title(self, before, after, prediction) -> str:
        pages = first(after, "queue_manager").params["buffpool_pages"]
        return f"Hold the backlog in a {pages:,}-page buffer pool ({pool_storage_text(pages)})"


class ReadAheadRule(SetKnobRule):
    """A deep queue read back from the page set: switch read-ahead on."""

    id = "read_ahead"
    knob = ("queue_manager", "read_ahead")
    value = True
    metric = "elapsed_s"
    sense = "min"
    cost_risk = (
        "Needs MQ with PM63802 (read-ahead); pre-staged pages take buffers, so it helps only queues "
        "read in order from the page set."
    )

    title_text = "Switch MQ read-ahead on for the deep queue"
    reason_text = "messages are read back from the page set one page at a time"

    def applies(self, project, prediction) -> bool:
        deep = prediction.bottleneck == "mq_pageset" or "elapsed_s" in prediction.metrics
        return deep and bool(self.to_change(project))

    def target(self, project, prediction):
        return ("elapsed_s", "min") if "elapsed_s" in prediction.metrics else ("apply_rows_per_s", "max")


class NonUniqueIndexRule(SetKnobRule):
    """Secondary unique indexes: define them non-unique."""

    id = "non_unique_indexes"
    knob = ("source_db2", "unique_indexes")
    value = 1
    cost_risk = (
        "Only where the application does not rely on the secondary index's uniqueness; Db2 then no "
        "longer enforces it at the target."
    )

    title_text = "Define secondary indexes non-unique (keep one unique index)"

    def applies(self, project, prediction) -> bool:
        src = first(project, "source_db2")
        return src is not None and int(src.params.get("unique_indexes", 0)) > 1

    def reason(self, project, prediction) -> str:
        n = first(project, "source_db2").params["unique_indexes"]
        return f"the table has {n} unique indexes; Db2 and Q Apply's dependency analysis pay for each"


class FewerColumnsRule(Rule):
    """A wide table: replicate only the columns the target needs."""

    id = "fewer_columns"
    knob = ("source_db2", "columns")
    metric = "total_cpu_us_per_row"
    sense = "min"
    cost_risk = (
        "The target no longer receives the dropped columns: subscribe only columns some reader of the "
        "target needs (this tries half of them)."
    )

    def applies(self, project, prediction) -> bool:
        src = first(project, "source_db2")
        if src is None:
            return False
        n = sum(src.params["columns"].values())
        return n > max(10, 2 * (int(src.params.get("columns_changed_per_update", 0)) + 1))

    def reason(self, project, prediction) -> str:
        return f"{sum(first(project, 'source_db2').params['columns'].values())} columns are replicated"

    def change(self, project, prediction):
        src = first(project, "source_db2")
        cols = {k: max(1, v // 2) if v else 0 for k, v in src.params["columns"].items()}
        share = sum(cols.values()) / max(1, sum(src.params["columns"].values()))
        project = set_all(project, "source_db2", "columns", cols)
        return set_all(project, "source_db2", "row_bytes", max(1, round(src.params["row_bytes"] * share)))

    def title(self, before, after, prediction) -> str:
        return (
            f"Replicate {sum(first(after, 'source_db2').params['columns'].values())} columns instead of "
            f"{sum(first(before, 'source_db2').params['columns'].values())}"
        )


class LargerSourceTxnRule(Rule):
    """Very small source transactions: commit more rows per transaction where the application can."""

    id = "larger_source_txns"
    knob = ("source_db2", "rows_per_txn")
    metric = "total_cpu_us_per_row"
    sense = "min"
    cost_risk = (
        "An application change: source locks are held longer and a failed transaction rolls back more work."
    )

    def applies(self, project, prediction) -> bool:
        src = first(project, "source_db2")
        return src is not None and int(src.params.get("rows_per_txn", 0)) < 10

    def reason(self, project, prediction) -> str:
        return (
            f"each source transaction changes only {first(project, 'source_db2').params['rows_per_txn']} rows"
        )

    def change(self, project, prediction):
        src = first(project, "source_db2")
        for p in ("rows_per_txn", "inserts_per_txn", "updates_per_txn", "deletes_per_txn"):
            project = set_all(project, "source_db2", p, int(src.params[p]) * 2)
        return project

    def title(self, before, after, prediction) -> str:
        return f"Commit {first(after, 'source_db2').params['rows_per_txn']} rows per source transaction"


class _ApplyAgentsRule(Rule):
    """A rule that changes the number of Q Apply agents (NUM_APPLY_AGENTS)."""

    knob = ("qapply", "num_apply_agents")

    def title(self, before, after, prediction) -> str:
        return f"Use {first(after, 'qapply').params['num_apply_agents']} Q Apply agents (NUM_APPLY_AGENTS)"


class MoreApplyAgentsRule(_ApplyAgentsRule):
    """Q Apply agents limit throughput with CPU to spare: the fewest agents that give the most."""

    id = "more_apply_agents"
    cost_risk = (
        f"More agents use more CPU and Db2 threads; the seeds keep CPU under {CPU_CEILING_PCT:g}% and use "
        "the fewest agents that handle the workload."
    )

    def applies(self, project, prediction) -> bool:
        return (
            prediction.bottleneck == "qapply_agents"
            and metric(prediction, "apply_lpar_busy_pct", 100.0) < CPU_CEILING_PCT
        )

    def reason(self, project, prediction) -> str:
        return (
            f"the apply agents limit throughput while the Q Apply LPAR is "
            f"{metric(prediction, 'apply_lpar_busy_pct'):.0f}% busy"
        )

    def change(self, project, prediction):
        cur = int(first(project, "qapply").params["num_apply_agents"])
        axis = knob_axis(project, "qapply", "num_apply_agents", range(cur, min(128, 4 * cur + 8) + 1))
        cpu = Constraint("apply_lpar_busy_pct", "<=", CPU_CEILING_PCT)
        best = seek(project, make_goal("apply_rows_per_s", "max", (cpu,), (axis,)))
        if not best.feasible:
            return None
        floor = 0.99 * best.metrics["apply_rows_per_s"]
        fewest = seek(
            project,
            make_goal(
                "qapply.num_apply_agents", "min", (cpu, Constraint("apply_rows_per_s", ">=", floor)), (axis,)
            ),
        )
        return fewest.project if fewest.feasible and fewest.values[0] != cur else None


class FewerApplyAgentsRule(_ApplyAgentsRule):
    """The Q Apply LPAR runs above the CPU ceiling: the fewest agents that still hold the rate."""

    id = "fewer_apply_agents"
    metric = "apply_lpar_busy_pct"
    sense = "min"
    cost_risk = "Fewer agents leave less headroom for bursts: APPLY_LATENCY rises when the rate peaks."

    def applies(self, project, prediction) -> bool:
        qa = first(project, "qapply")
        return (
            qa is not None
            and int(qa.params["num_apply_agents"]) > 1
            and metric(prediction, "apply_lpar_busy_pct", 0.0) > CPU_CEILING_PCT
        )

    def reason(self, project, prediction) -> str:
        return (
            f"the Q Apply LPAR is {metric(prediction, 'apply_lpar_busy_pct'):.0f}% busy, above the "
            f"{CPU_CEILING_PCT:g}% the seeds tune for"
        )

    def change(self, project, prediction):
        cur = int(first(project, "qapply").params["num_apply_agents"])
        axis = knob_axis(project, "qapply", "num_apply_agents", range(1, cur))
        goal = make_goal(
            "qapply.num_apply_agents",
            "min",
            (Constraint("apply_rows_per_s", ">=", 0.98 * metric(prediction, "apply_rows_per_s")),),
            (axis,),
        )
        return seek_change(project, goal)


class NonPersistentRule(SetKnobRule):
    """The MQ log limits throughput: non-persistent messages."""

    id = "non_persistent"
    knob = ("qcapture", "msg_persistence")
    value = False
    cost_risk = (
        "Non-persistent messages are lost if a queue manager or the channel fails; Q Capture must then "
        "restart from an earlier log point (or the tables be reloaded)."
    )

    title_text = "Send non-persistent MQ messages"
    reason_text = (
        "the MQ log limits throughput: every persistent message is logged and each commit forces the log"
    )

    def applies(self, project, prediction) -> bool:
        qc = first(project, "qcapture")
        return (
            qc is not None
            and qc.params.get("msg_persistence")
            and prediction.bottleneck in ("mq_log", "apply_mq_log", "mq_log_disk", "apply_mq_log_disk")
        )


class TraceOffRule(Rule):
    """MQ GLOBAL or channel initiator trace left on."""

    id = "mq_trace_off"
    knob = ("queue_manager", "global_trace")
    metric = "total_cpu_us_per_row"
    sense = "min"
    cost_risk = "Less diagnostic data when a problem needs tracing; switch it on only while diagnosing."

    title_text = "Switch MQ GLOBAL and CHINIT trace off"
    reason_text = "MQ trace is on; every MQ call pays for it"

    def applies(self, project, prediction) -> bool:
        return any(
            n.params.get("global_trace") or n.params.get("chinit_trace")
            for n in nodes(project, "queue_manager")
        )

    def change(self, project, prediction):
        return set_all(
            set_all(project, "queue_manager", "global_trace", False), "queue_manager", "chinit_trace", False
        )


def qrep_rules(outage_min: float = OUTAGE_MIN) -> list:
    """Every Q Replication rule, in the order the advisor tries them."""
    return [
        TransBatchRule(),
        RowLockingRule(),
        ColumnSuppressionRule(),
        OutageBufferPoolRule(outage_min),
        DrainBufferPoolRule(),
        ReadAheadRule(),
        NonUniqueIndexRule(),
        FewerColumnsRule(),
        LargerSourceTxnRule(),
        MoreApplyAgentsRule(),
        FewerApplyAgentsRule(),
        NonPersistentRule(),
        TraceOffRule(),
        QueueMapsRule(),
    ]
