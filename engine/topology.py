"""Flows through a topology and the checks that a topology is complete enough to predict.

A Q Replication flow is the path ``source_db2 -> qcapture -> queue_manager ->
channel -> queue_manager -> qapply -> target_db2``; when its Q Apply reads the send queue
(``reads_send_queue``: an MQ client of Q Capture's queue manager) it is drawn as the shorter path
``source_db2 -> qcapture -> queue_manager -> qapply -> target_db2``, with no channel and no
second queue manager (:data:`CLIENT_FLOW_KINDS`); drawn with a channel, the engine leaves the
channel and the receiving queue manager out and reports their knobs without effect. A unidirectional project has
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

from engine.errors import SendQueueReaderError, TopologyError
from engine.metrics.knobs import knob_label
from engine.model import Node, Project
from engine.registry import KINDS

FLOW_KINDS = ("source_db2", "qcapture", "queue_manager", "channel", "queue_manager", "qapply", "target_db2")
#: A Q Apply that reads the send queue, as the flow search tells it from a Q Apply fed by a receive queue.
SEND_QUEUE_READER = "qapply:reads_send_queue"
#: The flow of a client Q Apply reading the send queue on Q Capture's queue manager: one queue manager, no channel.
CLIENT_FLOW_KINDS = ("source_db2", "qcapture", "queue_manager", SEND_QUEUE_READER, "target_db2")
FLOWS_NEEDED = {"unidirectional": 1, "bidirectional": 2, "peer-to-peer": 2}
#: Positions in :data:`FLOW_KINDS` of the sending and the receiving queue manager (never the same node).
SEND_QM, CHANNEL, RECEIVE_QM = 2, 3, 4
#: Position in :data:`CLIENT_FLOW_KINDS` of each position of :data:`FLOW_KINDS` it has.
_CLIENT_POSITION = {0: 0, 1: 1, SEND_QM: 2, 5: 3, 6: 4}


def reads_send_queue(node: Node) -> bool:
    """True for a Q Apply that reads the send queue on Q Capture's queue manager (no channel)."""
    return node.kind == "qapply" and bool(node.params.get("reads_send_queue"))


def send_queue_manager(flow: list[Node]) -> Node:
    """The queue manager Q Capture puts to (holding the send queue) of a flow."""
    return flow[SEND_QM]


def receive_queue_manager(flow: list[Node]) -> Node | None:
    """The queue manager holding the receive queue, None when Q Apply reads the send queue."""
    return flow[RECEIVE_QM] if len(flow) == len(FLOW_KINDS) else None


def channel_of(flow: list[Node]) -> Node | None:
    """The flow's channel, None when Q Apply reads the send queue."""
    return flow[CHANNEL] if len(flow) == len(FLOW_KINDS) else None


def _flow_kinds(project: Project, order: tuple) -> dict[str, str]:
    """Node id -> kind id for a search along ``order``: in :data:`CLIENT_FLOW_KINDS`, only a Q Apply
    reading the send queue completes a flow (its kind :data:`SEND_QUEUE_READER`)."""
    if order is not CLIENT_FLOW_KINDS:
        return {n.id: n.kind for n in project.nodes}
    return {n.id: SEND_QUEUE_READER if reads_send_queue(n) else n.kind for n in project.nodes}


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
    """Every flow extending ``path`` through completing nodes (``done``, one set per position of
    :data:`FLOW_KINDS` or :data:`CLIENT_FLOW_KINDS`), depth first in link order."""
    pos = len(path)
    if pos == len(done):
        yield list(path)
        return
    two_qms = len(done) == len(FLOW_KINDS)
    for nxt in successors[path[-1]]:
        if nxt in done[pos] and not (two_qms and pos == RECEIVE_QM and nxt == path[SEND_QM]):
            path.append(nxt)
            yield from _walk(path, done, successors)
            path.pop()


def iter_flows(project: Project) -> Iterator[list[Node]]:
    """Every complete flow, lazily, each as its nodes in :data:`FLOW_KINDS` order (seven nodes), or
    in :data:`CLIENT_FLOW_KINDS` order (five) when its Q Apply reads the send queue.

    Flows come ordered by source node, then target node (both in file order), then depth
    first in link order: the order of ``networkx.all_simple_paths`` for each pair (for a pair,
    the flows through a channel first). Each flow costs a walk of its own nodes; each target
    node one pass over nodes and links per flow shape.
    """
    kinds = {order: _flow_kinds(project, order) for order in (FLOW_KINDS, CLIENT_FLOW_KINDS)}
    by_id = {n.id: n for n in project.nodes}
    successors = _adjacency(project, forwards=True)
    targets = project.nodes_of("target_db2")
    per_target: dict[tuple[str, int], list[set]] = {}
    for src in project.nodes_of("source_db2"):
        for tgt in targets:
            for order in (FLOW_KINDS, CLIENT_FLOW_KINDS):
                key = (tgt.id, len(order))
                if key not in per_target:
                    per_target[key] = _completing(kinds[order], successors, {tgt.id}, order)
                done = per_target[key]
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
        roles.setdefault(send_queue_manager(flow).id, set()).add("send")
        receiving = receive_queue_manager(flow)
        if receiving is not None:
            roles.setdefault(receiving.id, set()).add("receive")
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

    A flow whose Q Apply reads the send queue has no channel and no receiving queue manager:
    its nodes are found at the other positions. Linear in nodes plus links however many flows
    the project has: a node lies on a flow when it can be reached from a source Db2 along the
    flow's kinds and can go on to a target Db2 (and, for a channel, through two different
    queue managers).
    """
    successors = _adjacency(project, forwards=True)
    predecessors = _adjacency(project, forwards=False)
    targets = {n.id for n in project.nodes_of("target_db2")}
    sources = {n.id for n in project.nodes_of("source_db2")}
    on: set = set()
    for order, pos in ((FLOW_KINDS, position), (CLIENT_FLOW_KINDS, _CLIENT_POSITION.get(position))):
        if pos is None:
            continue
        last = len(order) - 1
        kinds = _flow_kinds(project, order)
        ahead = _completing(kinds, successors, targets, order)
        behind = _completing(kinds, predecessors, sources, order[::-1])
        here = ahead[pos] & behind[last - pos]
        if order is FLOW_KINDS and position == CHANNEL:
            before = _first_two(predecessors, behind[last - SEND_QM])
            after = _first_two(successors, ahead[RECEIVE_QM])
            here = {c for c in here if any(a != b for a in before(c) for b in after(c))}
        on |= here
    return [n for n in project.nodes if n.id in on]


def _chains(project: Project) -> str:
    """The flow shapes a user can draw, the one without a channel named when a Q Apply reads the send queue."""
    chain = " -> ".join(KINDS[k].name for k in FLOW_KINDS)
    readers = [n for n in project.nodes if reads_send_queue(n)]
    if not readers:
        return chain
    short = " -> ".join(KINDS[k].name for k in CLIENT_FLOW_KINDS[:3])
    names = ", ".join(n.label for n in readers)
    return (
        f"{short} -> {names} (reads the send queue: a client of Q Capture's queue manager, "
        f"no channel) -> {KINDS['target_db2'].name}; or, reading a receive queue, {chain}"
    )


def _check_send_queue_readers(project: Project) -> None:
    """Raise :class:`SendQueueReaderError` for a Q Apply linked straight from the queue manager Q Capture
    puts to (no channel between) that does not read the send queue: the drawing's shape needs it."""
    by_id = {n.id: n for n in project.nodes}
    fed_by_capture = {link.target for link in project.links if by_id[link.source].kind == "qcapture"}
    for link in project.links:
        qm, qapply = by_id[link.source], by_id[link.target]
        if qm.id in fed_by_capture and qapply.kind == "qapply" and not reads_send_queue(qapply):
            raise SendQueueReaderError(
                f"{qapply.label} {knob_label('reads_send_queue')}",
                False,
                f"true: {qapply.label} is linked straight from {qm.label}, the queue manager Q Capture "
                "puts to, with no channel (a client reading the send queue); or link it from a "
                "receiving queue manager fed by a channel",
            )


def check_complete(project: Project) -> None:
    """Raise a :class:`TopologyError` saying what is missing before the engine can predict.

    Raises
    ------
    SendQueueReaderError
        A Q Apply linked straight from Q Capture's queue manager does not read the send queue.
    TopologyError
        Too few complete flows for the topology type, or a Db2 Mirror pair
        without its two nodes and RoCE link, or an MQ mover without its parts.
    """
    t = project.topology
    if t in FLOWS_NEEDED:
        need = FLOWS_NEEDED[t]
        got = flows(project, limit=need)
        if len(got) < need:
            _check_send_queue_readers(project)
            raise TopologyError(
                f"A {t} project needs {need} complete flow{'s' if need > 1 else ''} ({_chains(project)}); "
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
