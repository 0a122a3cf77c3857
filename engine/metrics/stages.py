"""What a user reads for each stage an engine names: ``Q Apply agents`` for ``qapply_agents``.

Engines name their stages in the bottleneck vocabulary of the validation README
(``source_workload``, ``mq_channel``, ``qapply_agents`` ...); every view, report and
command prints :func:`stage_label` instead. A Q Replication flow with several queue
maps names a stage once per map (``qapply_browser_map2``): its label is the stage's
with the map's number (``Q Apply browser, queue map 2``). A stage of one system of a
bidirectional or peer-to-peer pair carries the system's number (``system2_qapply_cpu``).
"""

from __future__ import annotations

import re

#: Stage name -> label, for every stage the engines and the simulator name.
STAGE_LABELS = {
    "source_workload": "the workload (offered rate)",
    "source_cpu": "source LPAR CPU",
    "capture_cpu": "Q Capture LPAR CPU",
    "qcapture": "Q Capture",
    "log_read": "Q Capture log reader",
    "mq_log": "MQ log (sending queue manager)",
    "mq_log_disk": "MQ log disk (sending queue manager)",
    "mq_channel": "MQ channel",
    "cf_structure": "coupling facility list structure",
    "smds": "shared message data set (SMDS)",
    "db2_offload": "Db2 offload of shared messages",
    "mq_pageset": "MQ page set",
    "apply_mq_log": "MQ log (receiving queue manager)",
    "apply_mq_log_disk": "MQ log disk (receiving queue manager)",
    "mq_svrconn": "MQ server-connection channel",
    "mq_client": "MQ client round trips",
    "qapply_browser": "Q Apply browser",
    "qapply_agents": "Q Apply agents",
    "qapply_cpu": "Q Apply LPAR CPU",
    "apply": "Q Apply (agents and their CPU)",
    "apply_cpu": "apply LPAR CPU",
    "target_db2": "target Db2",
    "target_cpu": "target CPU",
    "putter": "putting application",
    "sql_capture": "SQL Capture",
    "sql_apply": "SQL Apply",
    "source_db2_log": "source Db2 log",
    "cpu": "CPU",
    "db_wait": "database waits (locks, journal)",
    "storage": "storage I/O",
    "mirror_link": "Db2 Mirror RoCE link",
    "mirror_link_transfer": "Db2 Mirror RoCE link transfer (mirrored bytes over the link speed)",
    "mirror_target_io": "Db2 Mirror target storage I/O",
}

_MAP = re.compile(r"^(.+)_map(\d+)$")
_SYSTEM = re.compile(r"^system(\d+)_(.+)$")


def stage_label(name: str) -> str:
    """The label of stage ``name`` (``qapply_agents`` -> ``Q Apply agents``).

    Returns
    -------
    str
        The label of :data:`STAGE_LABELS`, with ``, queue map N`` for a per-map stage and
        ``system N: `` for a stage of one system; ``name`` itself when it is no known stage
        (``tests/engine/metrics`` holds every stage the samples name to this table).
    """
    m = _SYSTEM.match(name)
    if m:
        return f"system {m.group(1)}: {stage_label(m.group(2))}"
    m = _MAP.match(name)
    if m and m.group(1) in STAGE_LABELS:
        return f"{STAGE_LABELS[m.group(1)]}, queue map {m.group(2)}"
    return STAGE_LABELS.get(name, name)


def is_known_stage(name: str) -> bool:
    """True when :func:`stage_label` has a label for ``name`` (not the name itself)."""
    return stage_label(name) != name


__all__ = ["STAGE_LABELS", "is_known_stage", "stage_label"]
