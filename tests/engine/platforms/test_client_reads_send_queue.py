"""A client Q Apply reading the send queue on Q Capture's queue manager: no channel, one queue manager."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from engine import projectfile
from engine.errors import ValueRangeError
from engine.perf.qrep import predict
from engine.scenario import project_to_scenario

ROOT = Path(__file__).resolve().parents[3]


def _client(reads_send_queue: bool, **qapply) -> dict:
    s = project_to_scenario(projectfile.load(ROOT / "sample_runs" / "zos-to-linux-client.json"))
    s = copy.deepcopy(s)
    s["qapply"].update(reads_send_queue=reads_send_queue, **qapply)
    return s


def test_reading_the_send_queue_drops_the_channel_and_the_second_queue_manager():
    via_channel, direct = predict(_client(False)), predict(_client(True))
    assert {"mq_channel", "apply_mq_log"} <= {st.name for st in via_channel.stages}
    assert not {"mq_channel", "apply_mq_log", "apply_mq_log_disk"} & {st.name for st in direct.stages}
    assert direct.metrics["qlatency_ms"] < via_channel.metrics["qlatency_ms"]
    assert "mq_client" in {st.name for st in direct.stages}


def test_the_gets_and_svrconn_calls_are_charged_to_q_captures_lpar():
    via_channel, direct = predict(_client(False)).metrics, predict(_client(True)).metrics
    assert direct["capture_lpar_busy_pct"] > via_channel["capture_lpar_busy_pct"]
    assert direct["apply_lpar_busy_pct"] < via_channel["apply_lpar_busy_pct"]
    # no sender or receiver channel on z/OS, only the SVRCONN instance's calls
    assert 0.0 < direct["zos_chinit_cpu_us_per_msg"] < via_channel["zos_chinit_cpu_us_per_msg"]


def test_the_channel_settings_are_reported_without_effect():
    p = predict(_client(True))
    for path in ("mq.batchsz", "hardware.network_latency_ms", "mq.compmsg"):
        assert "reads the send queue" in p.ignored_reasons.get(path, ""), path


def test_longer_client_round_trips_slow_a_client_reading_the_send_queue():
    near = predict(_client(True))
    s = _client(True)
    s["hardware"]["client_rtt_us"] = 5000.0
    assert predict(s).metrics["apply_rows_per_s"] < 0.5 * near.metrics["apply_rows_per_s"]


def test_a_bindings_q_apply_cannot_read_the_send_queue():
    s = _client(True, mq_connection="bindings")
    s["platform"]["recv_qm"] = s["platform"]["qapply"]
    with pytest.raises(ValueRangeError, match=r"qapply\.reads_send_queue"):
        predict(s)


# -- the topology as a user draws it: no channel, no second queue manager ---------------------------
SEND_QUEUE_SAMPLE = ROOT / "sample_runs" / "zos-to-linux-client-send-queue.json"


def test_a_client_reading_the_send_queue_is_a_flow_of_five_nodes():
    from engine.topology import channel_of, flows, queue_manager_roles, receive_queue_manager

    project = projectfile.load(SEND_QUEUE_SAMPLE)
    (flow,) = flows(project)
    assert [n.kind for n in flow] == ["source_db2", "qcapture", "queue_manager", "qapply", "target_db2"]
    assert channel_of(flow) is None and receive_queue_manager(flow) is None
    assert not project.nodes_of("channel") and len(project.nodes_of("queue_manager")) == 1
    assert queue_manager_roles(project) == {flow[2].id: frozenset({"send"})}


def test_the_project_file_round_trips_and_predicts_as_the_scenario_format_does():
    project = projectfile.load(SEND_QUEUE_SAMPLE)
    assert projectfile.loads(projectfile.dumps(project)) == project
    settings = project_to_scenario(project)
    assert settings["qapply"]["reads_send_queue"] is True and settings["qapply"]["mq_connection"] == "client"
    assert "recv_qm" not in settings  # no receiving queue manager to read
    from engine.predict import predict_project

    drawn = predict_project(project)
    assert drawn.metrics == predict(_client(True)).metrics  # the channel-drawn sample with the flag set
    assert "mq_client" in {st.name for st in drawn.stages}
    assert "mq_channel" not in {st.name for st in drawn.stages}


def test_a_reader_drawn_with_a_channel_predicts_as_drawn_without_one():
    from engine.predict import predict_project

    project = projectfile.load(ROOT / "sample_runs" / "zos-to-linux-client.json")
    qapply = project.nodes_of("qapply")[0]
    reader = project.with_param(qapply.id, "reads_send_queue", True)
    drawn_with = predict_project(reader)
    assert drawn_with.metrics == predict_project(projectfile.load(SEND_QUEUE_SAMPLE)).metrics
    assert "reads the send queue" in drawn_with.ignored_reasons["mq.batchsz"]


def test_a_q_apply_linked_straight_from_q_captures_queue_manager_must_read_the_send_queue():
    from engine.errors import FieldError, SendQueueReaderError, TopologyError
    from engine.predict import predict_project

    project = projectfile.load(SEND_QUEUE_SAMPLE)
    qapply = project.nodes_of("qapply")[0]
    with pytest.raises(SendQueueReaderError) as refused:
        predict_project(project.with_param(qapply.id, "reads_send_queue", False))
    assert isinstance(refused.value, TopologyError) and isinstance(refused.value, FieldError)
    text = str(refused.value)
    assert (
        text.startswith("Q Apply B Reads send queue: ") and "QMGR A (sendq)" in text and "no channel" in text
    )


def test_the_queue_manager_a_reader_is_linked_from_carries_the_send_side_stages():
    from engine.topology import CHANNEL, RECEIVE_QM, SEND_QM, nodes_on_flows

    project = projectfile.load(SEND_QUEUE_SAMPLE)
    qm = project.nodes_of("queue_manager")[0]
    assert [n.id for n in nodes_on_flows(project, SEND_QM)] == [qm.id]
    assert nodes_on_flows(project, RECEIVE_QM) == [] and nodes_on_flows(project, CHANNEL) == []
    assert [n.id for n in nodes_on_flows(project, 5)] == [project.nodes_of("qapply")[0].id]


def test_a_drain_of_a_client_reading_the_send_queue_predicts():
    s = _client(True)
    s["run"] = {"mode": "drain", "initial_receive_queue_depth": 100_000}
    metrics = predict(s).metrics
    assert metrics["apply_rows_per_s"] > 0 and metrics["zos_mq_cpu_us_per_msg"] > 0


def test_the_wait_for_q_captures_commit_is_on_the_client_gets_without_a_channel():
    via_channel, direct = predict(_client(False)), predict(_client(True))
    channel_wait = next(st.fixed_delay_ms for st in via_channel.stages if st.name == "mq_channel")
    client_wait = next(st.fixed_delay_ms for st in direct.stages if st.name == "mq_client")
    assert client_wait == pytest.approx(channel_wait, rel=1e-3) and client_wait > 0  # the same commit period
