"""z/OS CPU of MQ per message: charged where the queue managers and channel initiators run."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from engine import projectfile
from engine.perf.qrep import predict
from engine.scenario import project_to_scenario

ROOT = Path(__file__).resolve().parents[3]


def _scenario(name: str) -> dict:
    return project_to_scenario(projectfile.load(ROOT / "sample_runs" / f"{name}.json"))


def _zos(metrics: dict) -> tuple[float, float, float]:
    return tuple(metrics[f"zos_{part}_cpu_us_per_msg"] for part in ("qmgr", "chinit", "mq"))


@pytest.mark.parametrize("name", ["redpaper-baseline", "zos-to-linux-bindings", "zos-to-linux-client"])
def test_the_total_is_the_queue_manager_and_the_channel_initiator(name):
    qmgr, chinit, total = _zos(predict(_scenario(name)).metrics)
    assert qmgr > 0.0 and chinit > 0.0
    assert total == pytest.approx(qmgr + chinit)


def test_a_client_q_apply_costs_z_os_its_gets_and_svrconn_calls_that_bindings_on_linux_does_not():
    bindings = _zos(predict(_scenario("zos-to-linux-bindings")).metrics)
    client = _zos(predict(_scenario("zos-to-linux-client")).metrics)
    assert client[0] > bindings[0]  # the MQGETs run on the z/OS queue manager
    assert client[1] > bindings[1]  # the SVRCONN channel instance's calls
    assert client[2] > 1.5 * bindings[2]


def test_a_z_os_to_z_os_flow_charges_both_queue_managers_more_than_one():
    both = _zos(predict(_scenario("redpaper-baseline")).metrics)
    send_only = _zos(predict(_scenario("zos-to-linux-bindings")).metrics)
    assert both[2] > send_only[2]


def test_apply_mb_per_s_is_the_applied_messages_bytes():
    m = predict(_scenario("zos-to-linux-bindings")).metrics
    msgs_per_s = m["apply_rows_per_s"] / m["rows_per_msg"]
    assert m["apply_mb_per_s"] == pytest.approx(msgs_per_s * m["channel_mb_per_s"] / m["channel_msgs_per_s"])


def test_more_cps_raise_the_cpu_per_message_by_the_multiprocessor_loss():
    s = _scenario("redpaper-baseline")
    bigger = copy.deepcopy(s)
    bigger["hardware"]["capture_lpar_cps"] = 2 * s["hardware"].get("capture_lpar_cps", 3)
    assert _zos(predict(bigger).metrics)[0] > _zos(predict(s).metrics)[0]
