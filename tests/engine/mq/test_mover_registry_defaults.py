"""The MQ mover and Db2 Mirror engines keep no knob default of their own: engine.registry's hold."""

import ast
from pathlib import Path

import pytest

from engine.perf import mirror, mqmover
from engine.registry import scenario_specs

#: Names the engines give a scenario's settings and their groups.
SETTINGS_NAMES = {"settings", "hw", "wl", "link", "resync", "doc"}


def test_a_mover_scenario_without_settings_takes_every_registry_default():
    d = {k: s.default for k, s in scenario_specs("mq-mover").items()}
    pool, channel, putter, messages, _ = mqmover.build({"kind": "mq-mover"})
    assert pool.buffers == d["buffpool_buffers"] and pool.dwp_start_pct == d["dwp_start_pct"]
    assert list(pool.dwp_target_pct) == d["dwp_target_pct"] and pool.pageclas == d["pageclas"]
    assert channel.batchsz == d["batchsz"] and channel.read_ahead == d["read_ahead"]
    assert channel.compmsg == d["compmsg"] and channel.compressibility == d["compressibility"]
    assert channel.network_mbps == d["network_mbps"] and channel.ssl == d["ssl"]
    assert putter.message_bytes == d["message_bytes"] and putter.msgs_per_commit == d["msgs_per_put_commit"]
    assert putter.persistent == d["persistent"] and messages == d["messages"]


def test_a_mirror_scenario_without_settings_takes_the_registry_defaults():
    d = {k: s.default for k, s in scenario_specs("db2mirror").items()}
    cfg, _ = mirror.parse_settings({"kind": "db2mirror"})
    assert cfg.mode == d["mode"] and cfg.api == d["workload.api"] and cfg.storage == d["hardware.storage"]
    assert cfg.shared_storage == d["hardware.shared_storage"]
    assert cfg.commitment_control == d["workload.commitment_control"]
    assert cfg.reads_for_update == d["workload.reads_for_update"]
    assert cfg.distance_km == d["link.distance_km"]


@pytest.mark.parametrize("module", [mqmover, mirror], ids=lambda m: m.__name__)
def test_no_setting_is_read_with_a_literal_default(module):
    """``settings.get("batchsz", 50)`` would be a default of the engine's own."""
    tree = ast.parse(Path(module.__file__).read_text())
    leaves = {p.rsplit(".", 1)[-1] for kind in ("mq-mover", "db2mirror") for p in scenario_specs(kind)}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in SETTINGS_NAMES
        ):
            if (
                len(node.args) == 2
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value in leaves
            ):
                default = node.args[1]
                assert not (isinstance(default, ast.Constant) and default.value is not None), (
                    f"{module.__name__}:{node.lineno}: {node.args[0].value} read with its own default"
                )
