"""The simulation keeps no knob default of its own: every default and range comes from engine.registry."""

import ast
import dataclasses
from pathlib import Path

import pytest

from engine.registry import scenario_specs
from engine.sim import config
from engine.sim.config import PipelineConfig, build_config, knob_fields
from engine.sim.knobs import knob, spec

SIM_DIR = Path(config.__file__).resolve().parent


def _registry_paths() -> dict:
    return scenario_specs("qrep")


def _calls(tree, name):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if (isinstance(f, ast.Name) and f.id == name) or (
                isinstance(f, ast.Attribute) and f.attr == name
            ):
                yield node


@pytest.mark.parametrize("path", sorted(SIM_DIR.glob("*.py")), ids=lambda p: p.name)
def test_every_knob_read_takes_the_registry_default(path):
    tree = ast.parse(path.read_text())
    paths = _registry_paths()
    leaves = {p.rsplit(".", 1)[-1] for p in paths}
    for call in _calls(tree, "knob"):
        assert len(call.args) == 2 and not call.keywords, (
            f"{path.name}:{call.lineno}: knob() takes no default"
        )
        literal = call.args[1]
        if isinstance(literal, ast.Constant):
            assert literal.value in paths, (
                f"{path.name}:{call.lineno}: {literal.value} is not a registry path"
            )
    for call in _calls(tree, "get"):
        # settings.get("sleep_interval_ms", 50) would be a default of the simulation's own
        if len(call.args) == 2 and isinstance(call.args[0], ast.Constant) and call.args[0].value in leaves:
            default = call.args[1]
            assert not (isinstance(default, ast.Constant) and default.value is not None), (
                f"{path.name}:{call.lineno}: {call.args[0].value} read with its own default {default.value!r}"
            )


def test_pipeline_config_has_no_default_for_a_knob():
    knob_names = set(knob_fields({}))
    for f in dataclasses.fields(PipelineConfig):
        if f.name in knob_names:
            assert f.default is dataclasses.MISSING, (
                f"PipelineConfig.{f.name} has its own default {f.default!r}"
            )


def test_a_scenario_without_knobs_simulates_the_registry_defaults(make_prediction):
    cfg = build_config({"kind": "qrep"}, make_prediction(), delays={"ch_batch_s": 0.001}, wait_share=0.0)
    default = {path: spec(path).default for path in _registry_paths()}
    assert cfg.agents == default["qapply.num_apply_agents"]
    assert cfg.sleep_interval_s * 1000 == default["qcapture.sleep_interval_ms"]
    assert cfg.commit_interval_s * 1000 == default["qcapture.commit_interval_ms"]
    assert cfg.capture_memory_bytes == default["qcapture.memory_limit_mb"] * 2**20
    assert cfg.apply_memory_bytes == default["qapply.memory_limit_mb"] * 2**20
    assert cfg.max_message_bytes == min(default["qcapture.max_message_size_kb"] * 1024, default["mq.maxmsgl"])
    assert cfg.trans_batch_sz == default["qcapture.trans_batch_sz"]
    assert cfg.rows_per_txn == default["workload.rows_per_txn"]
    assert cfg.commit_count == default["qapply.commit_count"]
    assert cfg.channel_batch_msgs == default["mq.batchsz"]
    assert cfg.persistent == default["qcapture.msg_persistence"]
    assert cfg.capture_monitor_s * 1000 == default["qcapture.monitor_interval_ms"]
    assert cfg.apply_monitor_s * 1000 == default["qapply.monitor_interval_ms"]
    assert cfg.network_latency_s * 1000 == default["hardware.network_latency_ms"]


def test_a_value_in_the_settings_wins_over_the_default():
    assert knob({"qapply": {"num_apply_agents": 6}}, "qapply.num_apply_agents") == 6
    assert (
        knob({"qapply": {"num_apply_agents": None}}, "qapply.num_apply_agents")
        == 16
        == spec("qapply.num_apply_agents").default
    )


def test_an_unknown_path_is_a_programming_error():
    with pytest.raises(KeyError):
        knob({}, "qapply.no_such_knob")
