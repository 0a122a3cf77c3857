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
