"""Flows through a topology and the checks that a topology is complete enough to predict.

A Q Replication flow is the path ``source_db2 -> qcapture -> queue_manager ->
channel -> queue_manager -> qapply -> target_db2``. A unidirectional project has
one, bidirectional and peer-to-peer projects two in opposite directions.
Loading a project never requires completeness (a user may be half-way through
drawing it); predicting does.
"""

from __future__ import annotations

import networkx as nx

from engine.errors import TopologyError
from engine.model import Node, Project
from engine.registry import KINDS

FLOW_KINDS = ("source_db2", "qcapture", "queue_manager", "channel", "queue_manager", "qapply", "target_db2")
FLOWS_NEEDED = {"unidirectional": 1, "bidirectional": 2, "peer-to-peer": 2}


def flows(project: Project) -> list[list[Node]]:
    """Every complete Q Replication flow, each as its nodes in :data:`FLOW_KINDS` order.

    Flows are ordered by their source node's position in the file.
    """
    g = project.graph()
    found: list[list[Node]] = []
    for src in project.nodes_of("source_db2"):
        for tgt in project.nodes_of("target_db2"):
            for path in nx.all_simple_paths(g, src.id, tgt.id, cutoff=len(FLOW_KINDS)):
                kinds = tuple(g.nodes[n]["kind"] for n in path)
                if kinds == FLOW_KINDS:
                    found.append([project.node(n) for n in path])
    return found


def check_complete(project: Project) -> None:
    """Raise a :class:`TopologyError` saying what is missing before the engine can predict.

    Raises
    ------
    TopologyError
        Too few complete flows for the topology type, or a Db2 Mirror pair
        without its two nodes and RoCE link, or an MQ mover without its parts.
    """
    t = project.topology
    if t in FLOWS_NEEDED:
        need = FLOWS_NEEDED[t]
        got = flows(project)
        if len(got) < need:
            chain = " -> ".join(KINDS[k].name for k in FLOW_KINDS)
            raise TopologyError(
                f"A {t} project needs {need} complete flow{'s' if need > 1 else ''} ({chain}); "
                f"this one has {len(got)}. Link the missing nodes."
            )
        if need == 2:
            a, b = got[0], got[1]
            if a[0].id == b[0].id:
                raise TopologyError(f"A {t} project needs a second flow starting at another Source Db2.")
    elif t == "db2-mirror-pair":
        mirror = project.nodes_of("db2_mirror_node")
        if len(mirror) != 2 or not project.nodes_of("roce_link"):
            raise TopologyError("A Db2 Mirror pair needs two Db2 Mirror nodes joined by a RoCE link.")
        roles = sorted(n.param("role") for n in mirror)
        if roles != ["source", "target"]:
            raise TopologyError(
                f"A Db2 Mirror pair needs one node with role 'source' and one with role 'target'; "
                f"found roles {roles}."
            )
    elif t == "mq-mover":
        for kind_id in ("mq_application", "queue_manager", "channel"):
            if not project.nodes_of(kind_id):
                raise TopologyError(f"An MQ mover needs a {KINDS[kind_id].name} node.")
    elif t == "db2-v8-migration":
        if not project.nodes_of("db2_v8_migration"):
            raise TopologyError("A DB2 V8 migration project needs a DB2 V7 to V8 migration node.")
