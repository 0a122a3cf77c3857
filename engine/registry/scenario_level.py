"""Settings of a whole scenario rather than of one node's knob (its replication topology).

A project states its topology as a whole (``Project.topology``); a scenario file states it as the
``topology`` setting. The engines read it like any knob, with this spec's choices and default.
"""

from __future__ import annotations

from engine.registry.params import SEED_QREP_2005, ParamSpec

QREP_TOPOLOGY = ParamSpec(
    "topology",
    "enum",
    "unidirectional",
    "",
    "How the systems replicate: one way, both ways, peer to peer, or SQL Replication (Capture and Apply).",
    f"{SEED_QREP_2005}, How do bi-directional and peer-to-peer mappings affect performance?",
    choices=("unidirectional", "bidirectional", "peer-to-peer", "sql-replication"),
    scenario_paths={"qrep": "topology"},
)

#: Scenario kind -> settings path -> spec of the scenario-level settings.
SCENARIO_LEVEL: dict[str, dict[str, ParamSpec]] = {"qrep": {"topology": QREP_TOPOLOGY}}
