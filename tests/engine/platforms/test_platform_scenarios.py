"""Scenarios carry the platform settings both ways: ``qrtune evaluate`` reads them, projects round-trip them."""

from __future__ import annotations

import json
from pathlib import Path

from engine import projectfile, templates
from engine.evaluate import evaluate_file
from engine.scenario import apply_scenario, project_to_scenario
from engine.topology import RECEIVE_QM, SEND_QM, flows

ROOT = Path(__file__).resolve().parents[3]

CLIENT = {
    "id": "linux-client",
    "kind": "qrep",
    "table": {"columns": {"INTEGER": 10, "CHAR(20)": 10}},
    "workload": {"rows_per_txn": 5, "offered_rows_per_s": 500},
    "platform": {"qapply": "Linux x86-64", "target_db2": "Linux x86-64"},
    "hardware": {"apply_lpar_cps": 8, "apply_core_ghz": 3.0, "client_rtt_ms": 0.2},
    "qapply": {"mq_connection": "client", "sharecnv": 0},
    "qcapture": {"max_message_size_kb": 102_400},
    "mq": {"maxmsgl": 104_857_600},
}


def _evaluate(tmp_path, *scenarios) -> list:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"format": "qrtune-scenarios/1", "scenarios": list(scenarios)}))
    return evaluate_file(path)["results"]


def test_evaluate_reads_platform_connection_and_message_size_settings(tmp_path):
    far = dict(CLIENT, id="far", hardware=dict(CLIENT["hardware"], client_rtt_ms=2.0))
    near, far = _evaluate(tmp_path, CLIENT, far)
    assert "error" not in near and "error" not in far
    assert far["predicted"]["apply_latency_ms"] > near["predicted"]["apply_latency_ms"]
    used = {
        "platform.qapply",
        "hardware.client_rtt_ms",
        "qapply.mq_connection",
        "qapply.sharecnv",
    }
    assert not used & set(near["ignored"])
    assert "mq.maxmsgl" in near["ignored"]  # read, and inert: every message fits (a larger one is an error)


def test_evaluate_refuses_a_bad_platform_value_in_one_line_naming_it(tmp_path):
    bad = dict(CLIENT, id="bad", platform={"qapply": "OS/2"})
    (result,) = _evaluate(tmp_path, bad)
    assert result["predicted"] == {} and "platform.qapply" in result["error"] and "\n" not in result["error"]


def test_the_receiving_queue_manager_round_trips_through_a_scenario():
    project = projectfile.load(ROOT / "sample_runs" / "zos-to-linux-bindings.json")
    scenario = project_to_scenario(project)
    assert scenario["platform"]["send_qm"] == "z/OS" and scenario["platform"]["recv_qm"] == "Linux x86-64"
    scenario["recv_qm"]["logbufferpages"] = 1024
    fresh = apply_scenario(templates.unidirectional(), scenario)
    send, recv = (flows(fresh, limit=1)[0][i] for i in (SEND_QM, RECEIVE_QM))
    assert recv.params["os_platform"] == "Linux x86-64" and recv.params["logbufferpages"] == 1024
    assert send.params["logbufferpages"] == 0
