"""How many queue maps: spread the tables over more replication queue maps when one map's own
stage (its Q Apply browser, or its channel) limits the flow.

Each queue map brings its own send queue, channel, receive queue and browser with its agents
(:mod:`engine.perf.qrep.queue_maps`); the shared Q Capture, MQ logs, CPUs and CF do not grow.
The rule asks the engine for the throughput at every count up to :data:`MAX_MAPS` and
recommends the smallest that holds the workload's rate (an offered rate), or 98% of the best
any count reaches (driven to the maximum): more maps beyond it only add objects to manage.
"""

from __future__ import annotations

from engine.advise.base import Rule, first, knob_axis, metric
from engine.advise.goalseek import Constraint, make_goal, seek, seek_change
from engine.metrics.stages import stage_label
from engine.perf.qrep.queue_maps import PER_MAP_STAGES, base_name

#: Most queue maps the rule tries.
MAX_MAPS = 16
#: Share of the best throughput the smallest recommended count must reach (driven workloads).
HOLD_SHARE = 0.98


def _maps(project) -> int:
    return int(first(project, "qcapture").params["queue_maps"])


class QueueMapsRule(Rule):
    """A queue map's own browser or channel is the bottleneck: the fewest maps that hold the rate.

    Judged by the rule's default target, more rows applied per second.
    """

    id = "queue_maps"
    knob = ("qcapture", "queue_maps")
    cost_risk = (
        "No transaction may change tables of two queue maps (seed 001): the tables must split along "
        "the applications, and each map is one more send queue, channel and receive queue to define "
        "and monitor."
    )

    def applies(self, project, prediction) -> bool:
        return (
            first(project, "qcapture") is not None
            and base_name(prediction.bottleneck or "") in PER_MAP_STAGES[:2]
            and _maps(project) < MAX_MAPS
        )

    def reason(self, project, prediction) -> str:
        return (
            f"the bottleneck is the {stage_label(prediction.bottleneck)} (one queue map's own stage) with "
            f"{_maps(project)} queue map(s)"
        )

    def change(self, project, prediction):
        counts = range(_maps(project) + 1, MAX_MAPS + 1)
        axis = knob_axis(project, "qcapture", "queue_maps", counts)
        best = seek(project, make_goal("apply_rows_per_s", "max", (), (axis,)))
        growth = metric(prediction, "backlog_growth_rows_per_s", 0.0)
        if growth > 0:  # an offered rate the flow cannot hold: hold it
            need = metric(prediction, "apply_rows_per_s") + growth
        else:
            need = HOLD_SHARE * best.objective_value
        goal = make_goal(
            "qcapture.queue_maps",
            "min",
            (Constraint("apply_rows_per_s", ">=", need),),
            (axis,),
        )
        return seek_change(project, goal)

    def title(self, before, after, prediction) -> str:
        return f"Spread the tables over {_maps(after)} queue maps (REPLQMAP), each with its own receive queue"
