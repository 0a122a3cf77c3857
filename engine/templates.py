"""Topology templates: the starting projects of File > New and of the samples.

Every template is an ordinary project with product defaults; nothing here
knows about published measurements.
"""

from __future__ import annotations

from engine.model import Project, build_project

X_STEP = 190.0
Y_ROW = 170.0


def _node(node_id: str, kind: str, label: str, col: int, row: int, **params) -> dict:
    return {
        "id": node_id,
        "kind": kind,
        "label": label,
        "position": [col * X_STEP, row * Y_ROW],
        "params": params,
    }


def flow_nodes(
    prefix: str, src: str, dst: str, row: int, reverse: bool
) -> tuple[list[dict], list[tuple[str, str]]]:
    """Nodes and links of one Q Replication flow from site ``src`` to site ``dst``."""
    cols = list(range(7))
    if reverse:
        cols = cols[::-1]
    names = [
        ("source_db2", f"Db2 {src} (source)"),
        ("qcapture", f"Q Capture {src}"),
        ("queue_manager", f"QMGR {src} (xmitq)"),
        ("channel", f"Channel {src}->{dst}"),
        ("queue_manager", f"QMGR {dst} (recvq)"),
        ("qapply", f"Q Apply {dst}"),
        ("target_db2", f"Db2 {dst} (target)"),
    ]
    ids = [f"{prefix}-{i}-{kind.replace('_', '-')}" for i, (kind, _) in enumerate(names)]
    nodes = [_node(ids[i], kind, label, cols[i], row) for i, (kind, label) in enumerate(names)]
    links = list(zip(ids, ids[1:]))
    return nodes, links


def client_flow_nodes(prefix: str, src: str, dst: str, row: int) -> tuple[list[dict], list[tuple[str, str]]]:
    """Nodes and links of a flow whose Q Apply, an MQ client, reads the send queue on Q Capture's queue manager.

    No channel and no queue manager at site ``dst``: Q Apply's client connection is the link from
    site ``src``'s queue manager.
    """
    names = [
        ("source_db2", f"Db2 {src} (source)", {}),
        ("qcapture", f"Q Capture {src}", {}),
        ("queue_manager", f"QMGR {src} (sendq)", {}),
        ("qapply", f"Q Apply {dst}", {"mq_connection": "client", "reads_send_queue": True}),
        ("target_db2", f"Db2 {dst} (target)", {}),
    ]
    ids = [f"{prefix}-{i}-{kind.replace('_', '-')}" for i, (kind, _, _) in enumerate(names)]
    cols = (0, 1, 2, 4, 5)  # a column's room between the sites for the client connection
    nodes = [
        _node(ids[i], kind, label, cols[i], row, **params) for i, (kind, label, params) in enumerate(names)
    ]
    return nodes, list(zip(ids, ids[1:]))


def _project(
    name: str, topology: str, nodes: list[dict], links: list[tuple[str, str]], description: str
) -> Project:
    return build_project(
        {
            "name": name,
            "topology": topology,
            "description": description,
            "nodes": nodes,
            "links": [{"id": f"link-{i + 1}", "source": a, "target": b} for i, (a, b) in enumerate(links)],
        }
    )


def unidirectional(name: str = "Unidirectional") -> Project:
    """Site A replicating to site B."""
    nodes, links = flow_nodes("ab", "A", "B", 0, False)
    return _project(name, "unidirectional", nodes, links, "One Q Replication flow from site A to site B.")


def client_reads_send_queue(name: str = "Unidirectional, Q Apply reading the send queue") -> Project:
    """Site A replicating to site B, whose Q Apply is an MQ client of site A's queue manager (no channel)."""
    nodes, links = client_flow_nodes("ab", "A", "B", 0)
    return _project(
        name,
        "unidirectional",
        nodes,
        links,
        "One Q Replication flow from site A to site B; Q Apply B reads the send queue on QMGR A as an MQ client.",
    )


def _two_way(name: str, topology: str, description: str) -> Project:
    n1, l1 = flow_nodes("ab", "A", "B", 0, False)
    n2, l2 = flow_nodes("ba", "B", "A", 1, True)
    return _project(name, topology, n1 + n2, l1 + l2, description)


def bidirectional(name: str = "Bidirectional") -> Project:
    """Both sites run the application and replicate to each other."""
    return _two_way(
        name, "bidirectional", "Two flows in opposite directions; each side applies the other's changes."
    )


def peer_to_peer(name: str = "Peer-to-peer") -> Project:
    """Bidirectional with version columns maintained by triggers."""
    return _two_way(
        name,
        "peer-to-peer",
        "Two flows in opposite directions with peer-to-peer version maintenance by triggers.",
    )


def db2_mirror_pair(name: str = "Db2 Mirror pair", mode: str = "active-passive") -> Project:
    """Two IBM i nodes joined by RoCE."""
    nodes = [
        _node("mirror-source", "db2_mirror_node", "Node 1 (source)", 0, 0, role="source"),
        _node("roce", "roce_link", "RoCE link", 1, 0, mode=mode),
        _node("mirror-target", "db2_mirror_node", "Node 2 (target)", 2, 0, role="target"),
    ]
    links = [("mirror-source", "roce"), ("roce", "mirror-target")]
    return _project(name, "db2-mirror-pair", nodes, links, f"A Db2 Mirror for i node pair, {mode}.")


def mq_mover(name: str = "MQ mover") -> Project:
    """A putting application, a transmission queue, a channel and the receiving queue manager."""
    nodes = [
        _node("putter", "mq_application", "Putting application", 0, 0),
        _node("qmgr-send", "queue_manager", "QMGR (xmitq)", 1, 0),
        _node("channel", "channel", "Channel", 2, 0),
        _node("qmgr-recv", "queue_manager", "QMGR (remote)", 3, 0),
    ]
    links = [("putter", "qmgr-send"), ("qmgr-send", "channel"), ("channel", "qmgr-recv")]
    return _project(name, "mq-mover", nodes, links, "A putter outpacing the channel through one buffer pool.")


def db2_v8_migration(name: str = "DB2 V8 migration") -> Project:
    """One DB2 V7 subsystem's DBM1 storage."""
    nodes = [_node("dbm1", "db2_v8_migration", "DBM1 (V7)", 0, 0)]
    return _project(name, "db2-v8-migration", nodes, [], "DBM1 storage below the 2 GB bar, V7 to V8.")


TEMPLATES = {
    "unidirectional": unidirectional,
    "bidirectional": bidirectional,
    "peer-to-peer": peer_to_peer,
    "db2-mirror-pair": db2_mirror_pair,
    "mq-mover": mq_mover,
    "db2-v8-migration": db2_v8_migration,
}
