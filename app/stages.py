"""Which canvas nodes a predicted stage belongs to (no Qt here).

Engines name stages in the bottleneck vocabulary of the validation README
(``source_workload``, ``qcapture``, ``mq_log``, ``mq_channel``, ``mq_pageset``,
``qapply_agents``, ``qapply_cpu``, ``target_db2``, ``mirror_link``,
``mirror_target_io``, ``cpu``) and may add finer ones (``qapply_browser``...).
A stage maps to node kinds by its name's prefix; within a Q Replication flow a
queue-manager stage goes to the sending (transmit queue) or receiving side by
what it describes. Each node gets the highest utilisation of its stages, and the
node(s) of the bottleneck stage are marked.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.limit import WORKLOAD_STAGES, limit_of
from engine.model import Project

#: Stage name prefix -> node kinds that carry it (longest prefix wins).
STAGE_KINDS: dict[str, tuple[str, ...]] = {
    "source": ("source_db2", "mq_application"),
    "workload": ("source_db2", "mq_application"),
    "log_read": ("qcapture",),
    "qcapture": ("qcapture",),
    "capture": ("qcapture",),
    "putter": ("mq_application",),
    "apply_mq": ("queue_manager",),
    "storage": ("db2_mirror_node",),
    "mq_put": ("queue_manager",),
    "mq_log": ("queue_manager",),
    "mq_pageset": ("queue_manager",),
    "mq_bufferpool": ("queue_manager",),
    "mq_buffer": ("queue_manager",),
    "mq_get": ("queue_manager",),
    "cf_structure": ("queue_manager",),  # shared queues: the coupling-facility list structure
    "smds": ("queue_manager",),
    "db2_offload": ("queue_manager",),
    "mq_channel": ("channel",),
    "mq_client": ("qapply",),  # Q Apply's browser waiting on client round trips
    "mq_svrconn": ("queue_manager",),
    "channel": ("channel",),
    "network": ("channel",),
    "qapply": ("qapply",),
    "apply": ("qapply",),
    "target_db2": ("target_db2",),
    "target": ("target_db2", "db2_mirror_node"),
    "db2": ("target_db2",),
    "mirror_link": ("roce_link",),
    "roce": ("roce_link",),
    "mirror_target": ("db2_mirror_node",),
    "mirror_source": ("db2_mirror_node",),
    "mirror": ("db2_mirror_node",),
    "cpu": ("source_db2", "db2_mirror_node"),
    "dbm1": ("db2_v8_migration",),
}

#: Queue-manager stages that happen on the receiving side of a flow (the rest are on the sending side):
#: Q Apply's MQ log and gets, and the receive queue's page set (deep queues are drained from it).
RECEIVE_SIDE = ("mq_get", "mq_pageset", "mq_recv", "apply_mq", "mq_svrconn")


@dataclass(frozen=True)
class NodeLoad:
    """What the canvas shows on one node."""

    utilisation: float
    stages: tuple[str, ...]
    bottleneck: bool


def kinds_of_stage(name: str) -> tuple[str, ...]:
    """Node kinds carrying the stage ``name`` (empty when unknown)."""
    best = ""
    for prefix in STAGE_KINDS:
        if name.startswith(prefix) and len(prefix) > len(best):
            best = prefix
    return STAGE_KINDS.get(best, ())


def _nodes_for_stage(project: Project, name: str) -> list[str]:
    kinds = kinds_of_stage(name)
    if not kinds:
        return []
    if "queue_manager" in kinds:
        from engine.topology import RECEIVE_QM, SEND_QM, nodes_on_flows

        if project.topology in ("unidirectional", "bidirectional", "peer-to-peer"):
            qms = nodes_on_flows(project, RECEIVE_QM if name.startswith(RECEIVE_SIDE) else SEND_QM)
            if qms:
                return [n.id for n in qms]
        # no replication flow (the MQ mover): the backlog and its page set are the sending queue manager's
        return [n.id for n in project.nodes_of("queue_manager")][:1]
    if "db2_mirror_node" in kinds and name.startswith(("mirror_target", "target")):
        return [n.id for n in project.nodes_of("db2_mirror_node") if n.params.get("role") == "target"]
    if "db2_mirror_node" in kinds and name.startswith(("mirror_source", "cpu")):
        mirror = [n.id for n in project.nodes_of("db2_mirror_node") if n.params.get("role") == "source"]
        if mirror:
            return mirror
    return [n.id for n in project.nodes if n.kind in kinds]


def node_loads(project: Project, prediction) -> dict[str, NodeLoad]:
    """Per node id: highest utilisation of its stages, their names, and whether it is the bottleneck.

    The bottleneck is :func:`limit_of`'s busiest stage; none is marked when the offered rate is held.

    Parameters
    ----------
    project : Project
        The project the prediction was made for.
    prediction : engine.perf.Prediction
        Its ``stages`` (name, utilisation 0..1) and ``bottleneck`` stage name.
    """
    util: dict[str, float] = {}
    names: dict[str, list[str]] = {}
    for stage in prediction.stages:
        if stage.name in WORKLOAD_STAGES:  # the offered load, not a resource: never colours its node
            continue
        for node_id in _nodes_for_stage(project, stage.name):
            u = float(stage.utilisation)
            util[node_id] = max(util.get(node_id, 0.0), u)
            names.setdefault(node_id, []).append(stage.name)
    limit = limit_of(prediction)
    marked = set(_nodes_for_stage(project, limit.stage)) if limit.stage and not limit.holds_offered else set()
    for node_id in marked:
        util.setdefault(node_id, limit.utilisation)
        names.setdefault(node_id, []).append(limit.stage)
    return {nid: NodeLoad(util[nid], tuple(dict.fromkeys(names[nid])), nid in marked) for nid in util}
