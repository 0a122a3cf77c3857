"""Parallel send queues: messages arrive out of order at the map's one receive queue, and Q Apply's
browser pays for finding the next in sequence and waits for it; none of it with one send queue."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from engine import projectfile
from engine.perf.qrep.parallel_sendqs import msgs_passed_per_msg
from engine.perf.qrep.topology_coefficients import load
from engine.predict import predict_settings
from engine.scenario import project_to_scenario
from engine.settings import set_path

ROOT = Path(__file__).resolve().parents[3]


def _channel_bound_map(sendqs: int):
    s = copy.deepcopy(project_to_scenario(projectfile.load(ROOT / "sample_runs" / "four-queue-maps.json")))
    set_path(s, "qcapture.queue_maps", 1)
    set_path(s, "qcapture.num_parallel_sendqs", sendqs)
    return predict_settings(s)


def _stage(p, name):
    return next(st for st in p.stages if st.name == name)


def test_the_messages_passed_grow_with_the_send_queues_and_the_batch_and_are_none_with_one():
    assert msgs_passed_per_msg(1, 50.0) == 0.0
    assert msgs_passed_per_msg(2, 50.0) == pytest.approx(12.5)  # half of 50 messages, half the time
    assert msgs_passed_per_msg(3, 50.0) > msgs_passed_per_msg(2, 50.0) > msgs_passed_per_msg(2, 10.0) > 0.0


def test_two_send_queues_cost_the_browser_and_latency_and_one_costs_nothing():
    one, two = _channel_bound_map(1), _channel_bound_map(2)
    assert not {k for k in one.metrics if k.startswith("ooo_")}
    extra_us = two.metrics["ooo_browse_us_per_msg"]
    assert extra_us > 0 and two.metrics["ooo_msgs_passed_per_msg"] > 0 and two.metrics["ooo_gap_wait_ms"] > 0
    browser_ms = _stage(two, "qapply_browser").service_ms - _stage(one, "qapply_browser").service_ms
    assert browser_ms > 0.0  # the browser's time per message grows (by the extra at its own operating point)


def test_two_send_queues_no_longer_double_a_channel_bound_map():
    one, two = _channel_bound_map(1), _channel_bound_map(2)
    assert one.bottleneck == "mq_channel" and two.bottleneck == "qapply_browser"
    gain = two.metrics["apply_rows_per_s"] / one.metrics["apply_rows_per_s"]
    assert 1.0 < gain < 1.9
    assert _stage(two, "qapply_browser").capacity < _stage(one, "qapply_browser").capacity


def test_the_out_of_order_coefficient_is_a_documented_prior_with_its_unit_and_bounds():
    import json

    doc = json.loads((ROOT / "assets" / "coefficients" / "topologies.json").read_text())
    p = doc["parameters"]["ooo_browse_share"]
    assert p["fitted"] is False and p["value"] == p["prior"] == load().ooo_browse_share
    lo, hi = p["bounds"]
    assert lo <= p["value"] <= hi and p["unit"] and p["meaning"] and "prior" in p["assumption"]


def _sendqs_on_four_maps(sendqs: int):
    s = copy.deepcopy(project_to_scenario(projectfile.load(ROOT / "sample_runs" / "four-queue-maps.json")))
    set_path(s, "qcapture.num_parallel_sendqs", sendqs)
    return predict_settings(s).metrics


def test_the_out_of_order_search_is_cpu_of_the_apply_lpar_and_of_q_apply_per_row():
    one, two, four = (_sendqs_on_four_maps(n) for n in (1, 2, 4))
    extra2 = two["apply_cpu_us_per_row"] - one["apply_cpu_us_per_row"]
    extra4 = four["apply_cpu_us_per_row"] - one["apply_cpu_us_per_row"]
    assert extra2 > 0.0
    # the CPU grows with the messages the browser passes, as its time does
    passed = four["ooo_msgs_passed_per_msg"] / two["ooo_msgs_passed_per_msg"]
    assert extra4 / extra2 == pytest.approx(passed, rel=0.02)
    assert four["ooo_browse_us_per_msg"] / two["ooo_browse_us_per_msg"] == pytest.approx(passed, rel=0.02)
    assert four["total_cpu_us_per_row"] - one["total_cpu_us_per_row"] == pytest.approx(extra4, rel=1e-6)
    # the apply LPAR is the limit on these maps: the same busy share carries fewer rows
    assert one["apply_lpar_busy_pct"] == pytest.approx(four["apply_lpar_busy_pct"], rel=1e-3)
    assert four["apply_rows_per_s"] < two["apply_rows_per_s"] < one["apply_rows_per_s"]
