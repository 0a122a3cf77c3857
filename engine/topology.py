"""Flows through a topology and the checks that a topology is complete enough to predict.

A Q Replication flow is the path ``source_db2 -> qcapture -> queue_manager ->
channel -> queue_manager -> qapply -> target_db2``. A unidirectional project has
one, bidirectional and peer-to-peer projects two in opposite directions.
Loading a project never requires completeness (a user may be half-way through
drawing it); predicting does.

Nothing here enumerates paths blindly: a meshed project can hold millions of
flows (8 nodes per position, consecutive positions fully linked: 8**7), so every
search first marks, in one pass over the links per position, the nodes that can
still complete a flow (:func:`_completing`) and walks only those. Finding the
first flows and listing the nodes on any flow take time linear in nodes plus links.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.errors import TopologyError
from engine.model import Node, Project
from engine.registry import KINDS

FLOW_KINDS = ("source_db2", "qcapture", "queue_manager", "channel", "queue_manager", "qapply", "target_db2")
FLOWS_NEEDED = {"unidirectional": 1, "bidirectional": 2, "peer-to-peer": 2}
#: Positions in :data:`FLOW_KINDS` of the sending and the receiving queue manager (never the same node).
SEND_QM, CHANNEL, RECEIVE_QM = 2, 3, 4


def _adjacency(project: Project, forwards: bool) -> dict[str, list[str]]:
    """Node id -> the ids it links to (``forwards``) or that link to it, in link order."""
    out: dict[str, list[str]] = {n.id: [] for n in project.nodes}
    for link in project.links:
        if forwards:
            out[link.source].append(link.target)
        else:
            out[link.target].append(link.source)
    return out


def _completing(
    kinds: dict[str, str], adjacency: dict[str, list[str]], ends: set[str], order: tuple
) -> list[set]:
    """For each position of ``order``, the nodes from which the rest of ``order`` walks to one of ``ends``.

    Parameters
    ----------
    kinds : dict
        Node id -> kind id.
    adjacency : dict
        Node id -> next node ids (successors to walk a flow forwards, predecessors backwards).
    ends : set of str
        Node ids a walk may end on (of kind ``order[-1]``).
    order : tuple of str
        :data:`FLOW_KINDS` or its reverse. The two queue managers of a flow differ, so a
        queue manager completes only through a channel that reaches another completing one.

    Returns
    -------
    list of set
        ``done[pos]``: ids of kind ``order[pos]`` that complete. One pass over the nodes and
        their links per position.
    """
    last = len(order) - 1
    done: list[set] = [set() for _ in order]
    done[last] = {n for n in ends if kinds.get(n) == order[last]}
    for pos in range(last - 1, -1, -1):
        must_differ = pos + 2 <= last and order[pos] == order[pos + 2]
        firsts = _first_two(adjacency, done[pos + 2]) if must_differ else None
        for node_id, kind in kinds.items():
            if kind == order[pos] and any(
                nxt in done[pos + 1] and (firsts is None or any(q != node_id for q in firsts(nxt)))
                for nxt in adjacency[node_id]
            ):
                done[pos].add(node_id)
    return done


def _first_two(adjacency: dict[str, list[str]], allowed: set):
    """A cached lookup: node id -> its first two next ids that are in ``allowed``."""
    cache: dict[str, list[str]] = {}

    def firsts(node_id: str) -> list[str]:
        if node_id not in cache:
            found = []
            for q in adjacency[node_id]:
                if q in allowed:
                    found.append(q)
                    if len(found) == 2:
                        break
            cache[node_id] = found
        return cache[node_id]

    return firsts


def _walk(path: list[str], done: list[set], successors: dict[str, list[str]]) -> Iterator[list[str]]:
    """Every flow extending ``path`` through completing nodes, depth first in link order."""
    pos = len(path)
    if pos == len(FLOW_KINDS):
        yield list(path)
        return
    for nxt in successors[path[-1]]:
        if nxt in done[pos] and not (pos == RECEIVE_QM and nxt == path[SEND_QM]):
            path.append(nxt)
            yield from _walk(path, done, successors)
            path.pop()


def iter_flows(project: Project) -> Iterator[list[Node]]:
    """Every complete flow, lazily, each as its nodes in :data:`FLOW_KINDS` order.

    Flows come ordered by source node, then target node (both in file order), then depth
    first in link order: the order of ``networkx.all_simple_paths`` for each pair. Each flow
    costs a walk of its own seven nodes; each target node one pass over nodes and links.
    """
    kinds = {n.id: n.kind for n in project.nodes}
    by_id = {n.id: n for n in project.nodes}
    successors = _adjacency(project, forwards=True)
    targets = project.nodes_of("target_db2")
    per_target: dict[str, list[set]] = {}
    for src in project.nodes_of("source_db2"):
        for tgt in targets:
            if tgt.id not in per_target:
                per_target[tgt.id] = _completing(kinds, successors, {tgt.id}, FLOW_KINDS)
            done = per_target[tgt.id]
            if src.id in done[0]:
                for ids in _walk([src.id], done, successors):
                    yield [by_id[i] for i in ids]


def flows(project: Project, limit: int | None = None) -> list[list[Node]]:
    """The complete Q Replication flows (the first ``limit`` of them), ordered as :func:`iter_flows`.

    Parameters
    ----------
    project : Project
        Any project; nodes of other kinds are ignored.
    limit : int, optional
        Stop after this many flows. Without it every flow is listed, and a meshed
        project can have millions: callers that need one or two flows pass a limit.
    """
    found: list[list[Node]] = []
    for flow in iter_flows(project):
        if limit is not None and len(found) >= limit:
            break
        found.append(flow)
    return found


#: Flows :func:`queue_manager_roles` looks at (a meshed project can have millions).
ROLE_FLOWS = 64


def queue_manager_roles(project: Project) -> dict[str, frozenset]:
    """Each queue manager's roles in the project's complete flows: ``send`` (its transmission queue
    feeds the channel) and ``receive`` (it holds the receive queue); a queue manager in no complete
    flow (of the first :data:`ROLE_FLOWS`) is left out, its role unknown."""
    roles: dict[str, set] = {}
    for flow in flows(project, limit=ROLE_FLOWS):
        roles.setdefault(flow[SEND_QM].id, set()).add("send")
        roles.setdefault(flow[RECEIVE_QM].id, set()).add("receive")
    return {node_id: frozenset(r) for node_id, r in roles.items()}


def partner_flows(project: Project | None) -> list[list[Node]]:
    """The two flows of a two-way project (bidirectional or peer-to-peer), one per system.

    Empty without a project, for a topology of one flow (:data:`FLOWS_NEEDED`) and when fewer
    than two flows are complete.
    """
    if FLOWS_NEEDED.get(getattr(project, "topology", None)) != 2:
        return []
    found = flows(project, limit=2)
    return found if len(found) == 2 else []


def nodes_on_flows(project: Project, position: int) -> list[Node]:
    """The nodes at ``position`` of :data:`FLOW_KINDS` on at least one complete flow, in file order.

    Linear in nodes plus links however many flows the project has: a node lies on a flow
    when it can be reached from a source Db2 along the flow's kinds and can go on to a
    target Db2 (and, for a channel, through two different queue managers).
    """
    kinds = {n.id: n.kind for n in project.nodes}
    successors = _adjacency(project, forwards=True)
    predecessors = _adjacency(project, forwards=False)
    last = len(FLOW_KINDS) - 1
    ahead = _completing(kinds, successors, {n.id for n in project.nodes_of("target_db2")}, FLOW_KINDS)
    sources = {n.id for n in project.nodes_of("source_db2")}
    behind = _completing(kinds, predecessors, sources, FLOW_KINDS[::-1])
    on = ahead[position] & behind[last - position]
    if position == CHANNEL:
        before = _first_two(predecessors, behind[last - SEND_QM])
        after = _first_two(successors, ahead[RECEIVE_QM])
        on = {c for c in on if any(a != b for a in before(c) for b in after(c))}
    return [n for n in project.nodes if n.id in on]


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
        got = flows(project, limit=need)
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
