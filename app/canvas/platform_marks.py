"""What the canvas and the report diagram write on a node about its platform, and which links are client connections.

Qt-free, so the canvas (:mod:`app.canvas.items`) and the report diagram (:mod:`app.report.diagram`)
share it and tests read it without a display. A Q Replication node names the operating system it
runs on (``z/OS``, ``Linux x86-64``...) and, off z/OS, the server's cores and clock; the link
from a queue manager to a Q Apply connected as an MQ client is a client connection (drawn dashed
and labelled), not a bindings-mode link.
"""

from __future__ import annotations

from engine.model import Node
from engine.registry.platform_knobs import ZOS

#: Label of a client connection (the link from the remote queue manager to Q Apply).
CLIENT_LINK_TEXT = "client"
#: Label of the client connection of a Q Apply reading the send queue on Q Capture's queue manager.
SEND_QUEUE_LINK_TEXT = "MQ client\nof the send queue"
#: The knob counting the processors of the server a node kind runs on.
_PROCESSORS = {"source_db2": "source_lpar_cps", "qcapture": "capture_lpar_cps", "qapply": "apply_lpar_cps"}


def platform_text(node: Node) -> str:
    """``z/OS``, ``Linux x86-64, 8 cores x 2.9 GHz``, or ``""`` for a kind without a platform."""
    os_name = node.params.get("os_platform")
    if not os_name:
        return ""
    cores, ghz = node.params.get(_PROCESSORS.get(node.kind, "")), node.params.get("core_ghz")
    if os_name == ZOS or cores is None or ghz is None:
        return str(os_name)
    return f"{os_name}, {cores} cores x {ghz:g} GHz"


def is_client_link(source: Node, target: Node) -> bool:
    """True for the link from a queue manager to a Q Apply that connects to it as an MQ client."""
    return (
        source.kind == "queue_manager"
        and target.kind == "qapply"
        and target.params.get("mq_connection") == "client"
    )


def client_link_text(target: Node) -> str:
    """What a client connection to Q Apply ``target`` is labelled: reading the send queue or a receive queue."""
    return SEND_QUEUE_LINK_TEXT if target.params.get("reads_send_queue") else CLIENT_LINK_TEXT
