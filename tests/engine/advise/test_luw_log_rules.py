"""The advisor's rules for a Linux/UNIX/Windows queue manager: the log device and parallel send queues."""

from __future__ import annotations

import re
from pathlib import Path

from engine import projectfile
from engine.advise import advise
from engine.advise.luw_log_rules import LogDeviceRule, ParallelSendQueuesRule, devices_of, log_devices
from engine.predict import predict_project

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "sample_runs"
#: A stage id as the engine names it (``mq_log_disk``, ``qapply_browser_map2``).
STAGE_ID = re.compile(r"\b[a-z]+(_[a-z0-9]+)+\b")


def _entry(value, low, high, fitted=True) -> dict:
    return {"value": value, "bounds": [low, high], "fitted": fitted}


def test_a_device_on_a_bound_of_its_range_or_not_fitted_is_not_offered():
    params = {
        "log_latency_us:A": _entry(150.0, 5.0, 20000.0),
        "log_bandwidth_mb_per_s:A": _entry(812.345, 20.0, 20000.0),
        "log_latency_us:B": _entry(5.0, 5.0, 20000.0),
        "log_bandwidth_mb_per_s:B": _entry(900.0, 20.0, 20000.0),
        "log_latency_us:C": _entry(90.0, 5.0, 20000.0, fitted=False),
        "log_bandwidth_mb_per_s:C": _entry(900.0, 20.0, 20000.0),
    }
    (device,) = devices_of(params)
    assert (device.name, device.write_us, device.mb_per_s) == ("A", 150.0, 812.0)


def test_a_log_bound_linux_queue_manager_gets_the_measured_device_the_engine_predicts_best():
    project = projectfile.load(SAMPLES / "zos-to-linux-bindings.json")
    advice = advise(project)
    assert advice.prediction.bottleneck == "apply_mq_log_disk"
    (rec,) = [r for r in advice.recommendations if r.rule == "log_device"]
    qm_id = {c.node_id for c in rec.changes}.pop()
    after = {c.param: c.after for c in rec.changes}
    rates = {}
    for d in log_devices():
        candidate = project.with_param(qm_id, "log_write_us", d.write_us)
        candidate = candidate.with_param(qm_id, "log_disk_mb_per_s", d.mb_per_s)
        rates[d.name] = predict_project(candidate).metrics["apply_rows_per_s"]
    best = max(rates, key=rates.get)
    chosen = next(d for d in log_devices() if d.name == best)
    assert (after["log_write_us"], after["log_disk_mb_per_s"]) == (chosen.write_us, chosen.mb_per_s)
    assert chosen.words in rec.title and rec.gain_pct > 0


def test_not_applicable_when_the_log_is_not_the_bottleneck():
    project = projectfile.load(SAMPLES / "four-queue-maps.json")
    assert not LogDeviceRule().applies(project, predict_project(project))


def _one_map(project):
    qc = project.nodes_of("qcapture")[0]
    return project.with_param(qc.id, "queue_maps", 1)


def test_a_channel_bound_map_gets_twice_the_send_queues_judged_by_the_engine():
    project = _one_map(projectfile.load(SAMPLES / "four-queue-maps.json"))
    advice = advise(project)
    assert advice.prediction.bottleneck == "mq_channel"
    (rec,) = [r for r in advice.recommendations if r.rule == "parallel_sendqs"]
    assert [(c.param, c.before, c.after) for c in rec.changes] == [("num_parallel_sendqs", 1, 2)]
    assert "NUM_PARALLEL_SENDQS" in rec.title and rec.gain_pct >= 1.0


def test_more_send_queues_are_not_offered_where_the_channel_does_not_limit():
    project = projectfile.load(SAMPLES / "zos-to-linux-bindings.json")
    assert not ParallelSendQueuesRule().applies(project, predict_project(project))


def test_reasons_name_stages_as_users_read_them():
    for sample, one_map in (("zos-to-linux-client.json", False), ("four-queue-maps.json", True)):
        project = projectfile.load(SAMPLES / sample)
        advice = advise(_one_map(project) if one_map else project)
        for rec in advice.recommendations:
            assert not STAGE_ID.search(rec.reason), (sample, rec.reason)
