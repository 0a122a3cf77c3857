"""Physics of the topologies beyond one private queue pair: shared queues in a CF structure,
several queue maps, a data-sharing source, catch-up and SQL Replication as the baseline."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from engine import projectfile
from engine.errors import ValueRangeError
from engine.predict import predict_settings
from engine.scenario import project_to_scenario
from engine.settings import set_path

ROOT = Path(__file__).resolve().parents[3]
_DOC = json.loads((ROOT / "assets" / "validation" / "calibration.json").read_text())
SCENARIOS = {s["id"]: s for s in _DOC["scenarios"]}


def _sample(name: str) -> dict:
    return project_to_scenario(projectfile.load(ROOT / "sample_runs" / f"{name}.json"))


def _with(settings: dict, **paths) -> dict:
    out = copy.deepcopy(settings)
    out.pop("measured", None)
    for path, value in paths.items():
        set_path(out, path.replace("__", "."), value)
    return out


def _stage_names(p) -> set:
    return {st.name for st in p.stages}


# -- shared queues ------------------------------------------------------------------------------


def test_messages_over_63_kb_on_a_shared_queue_cost_smds_io():
    big = _sample("qsg-shared-capture-queue")  # 5,000-byte rows, TRANS_BATCH_SZ 3: ~76 KB messages
    p = predict_settings(big)
    assert p.metrics["msg_size_kb"] > 63
    assert "smds" in _stage_names(p) and "cf_structure" in _stage_names(p)
    assert p.metrics["offloaded_msgs_pct"] == pytest.approx(100.0)
    assert p.metrics["smds_ios_per_s"] > 0
    private = predict_settings(_with(big, mq__shared_queue=False))
    assert p.metrics["capture_mqput_us"] > private.metrics["capture_mqput_us"] + 100  # an SMDS write per put


def test_small_messages_on_a_lightly_used_structure_stay_in_the_cf():
    small = _with(_sample("qsg-shared-capture-queue"), qcapture__trans_batch_sz=1)
    p = predict_settings(small)
    assert p.metrics["msg_size_kb"] < 32
    assert "smds" not in _stage_names(p) and "cf_structure" in _stage_names(p)
    assert p.metrics["smds_ios_per_s"] == 0.0
    assert "mq.offload" in p.ignored and p.ignored_reasons["mq.offload"]


def test_offload_tiers_offload_a_growing_share_as_a_backlog_fills_the_structure():
    """~25 KB messages: kept in the CF below OFFLD1TH (70%), offloaded above OFFLD2TH's 4 KB (80%)."""
    base = _with(
        _sample("qsg-shared-capture-queue"),
        qcapture__trans_batch_sz=1,
        mq__cf_structure_size_mb=256,
        run__mode="drain",
    )
    shares = []
    for depth in (1_000, 8_000, 10_000, 14_000, 40_000):
        p = predict_settings(_with(base, run__initial_receive_queue_depth=depth))
        assert p.metrics["msg_size_kb"] < 32
        shares.append(p.metrics["offloaded_msgs_pct"])
    assert shares[0] == 0.0
    assert all(b >= a for a, b in zip(shares, shares[1:]))
    assert 0.0 < shares[3] < 100.0 and shares[-1] > shares[3]


def test_a_full_structure_holds_messages_back_and_scm_extends_it():
    base = _with(
        _sample("qsg-shared-capture-queue"),
        run__mode="drain",
        run__initial_receive_queue_depth=2_000_000,
        mq__cf_structure_size_mb=256,
    )
    full = predict_settings(base)
    assert full.metrics["cf_held_back_msgs"] > 0
    assert full.metrics["cf_structure_used_pct"] == pytest.approx(100.0)
    extended = predict_settings(_with(base, mq__scmmaxsize_gb=1.0))
    assert extended.metrics["cf_held_back_msgs"] < full.metrics["cf_held_back_msgs"]


def test_more_cf_processors_lower_cf_busy():
    base = _sample("qsg-shared-capture-queue")
    one = predict_settings(_with(base, mq__cf_cps=1)).metrics["cf_cpu_pct"]
    four = predict_settings(_with(base, mq__cf_cps=4)).metrics["cf_cpu_pct"]
    assert four < one


# -- queue maps ---------------------------------------------------------------------------------


def test_adding_queue_maps_lifts_a_browser_bound_flow_until_a_shared_resource_saturates():
    """Seed 001 Figure 6's pre-loaded queue, one browser: browser-bound; more maps bring more browsers."""
    drain = SCENARIOS["dw-zos-apply-16-agents"]
    rates, bottlenecks = [], []
    for maps in (1, 2, 4, 8):
        p = predict_settings(_with(drain, qcapture__queue_maps=maps))
        rates.append(p.metrics["apply_rows_per_s"])
        bottlenecks.append(p.bottleneck)
        if maps > 1:
            assert {f"qapply_browser_map{i}" for i in range(1, maps + 1)} <= _stage_names(p)
    assert bottlenecks[0] == "qapply_browser"
    assert rates[1] > 1.2 * rates[0]
    assert bottlenecks[2] == bottlenecks[3] == "qapply_cpu"
    assert rates[3] == pytest.approx(rates[2], rel=0.01)


def test_parallel_send_queues_lift_a_channel_bound_map():
    base = _with(_sample("four-queue-maps"), qcapture__queue_maps=1)
    one = predict_settings(base)
    assert one.bottleneck == "mq_channel"
    two = predict_settings(_with(base, qcapture__num_parallel_sendqs=2))
    # Two channels carry the map, so the channel's capacity nearly doubles; the map's one receive
    # queue (one browser) then limits it, so throughput rises by less.
    assert _stage(two, "mq_channel").capacity > 1.8 * _stage(one, "mq_channel").capacity
    assert two.bottleneck != "mq_channel"
    assert two.metrics["apply_rows_per_s"] > 1.03 * one.metrics["apply_rows_per_s"]


def _stage(prediction, name: str):
    return next(s for s in prediction.stages if s.name == name)


# -- data sharing ------------------------------------------------------------------------------


def test_data_sharing_raises_capture_latency_and_capture_cpu():
    base = _with(SCENARIOS["dw-unidirectional"], workload__offered_rows_per_s=3000.0, workload__jobs=None)
    latency, cpu = [], []
    for members in (1, 2, 4, 8):
        m = predict_settings(_with(base, hardware__data_sharing_members=members)).metrics
        latency.append(m["capture_latency_ms"])
        cpu.append(m["capture_cpu_us_per_row"])
    assert all(b > a for a, b in zip(latency, latency[1:]))
    assert cpu[1] == pytest.approx(cpu[0]) and cpu[3] > cpu[2] > cpu[1]


def test_busier_other_members_shorten_the_merged_log_wait_by_their_log_interval():
    """Q Capture off the source LPAR reads the source member's log through the merged read: a
    change waits for the other member's next log write, on average its interval (memoryless)."""
    base = _with(_sample("redpaper-baseline"), workload__offered_rows_per_s=1000.0)
    idle = predict_settings(base)
    busy, busier = (
        predict_settings(_with(base, hardware__other_member_log_interval_ms=ms)) for ms in (100.0, 10.0)
    )
    assert "hardware.other_member_log_interval_ms" not in idle.ignored
    drop = busy.metrics["capture_latency_ms"] - busier.metrics["capture_latency_ms"]
    assert drop == pytest.approx(90.0, rel=1e-3)
    assert idle.metrics["capture_latency_ms"] > busy.metrics["capture_latency_ms"] + 300.0
    alone = _with(base, hardware__capture_colocated_with_source=True)
    assert "hardware.other_member_log_interval_ms" in predict_settings(alone).ignored


# -- catch-up ---------------------------------------------------------------------------------


def _catch_up(rate: float, depth: float) -> dict:
    base = _sample("redpaper-baseline")
    return predict_settings(
        _with(
            base,
            workload__offered_rows_per_s=rate,
            run__mode="catch-up",
            run__initial_receive_queue_depth=depth,
        )
    ).metrics


def test_catch_up_time_grows_with_the_backlog_and_the_rate_and_a_faster_workload_never_catches_up():
    slow, deep, busy = _catch_up(10_000, 100_000), _catch_up(10_000, 200_000), _catch_up(30_000, 100_000)
    assert deep["catch_up_s"] == pytest.approx(2 * slow["catch_up_s"], rel=0.05)
    assert busy["catch_up_s"] > slow["catch_up_s"]
    assert slow["capture_rows_per_s"] == pytest.approx(10_000)
    assert slow["apply_rows_per_s"] > slow["capture_rows_per_s"]
    never = _catch_up(200_000, 100_000)
    assert never["backlog_growth_rows_per_s"] > 0 and "catch_up_s" not in never


def _finite_job(rate, depth: float, payload: float) -> dict:
    s = _with(
        _sample("redpaper-baseline"),
        workload__offered_rows_per_s=rate,
        run__mode="catch-up",
        run__initial_receive_queue_depth=depth,
        run__catch_up_payload_msgs=payload,
    )
    return predict_settings(s).metrics


def test_a_catch_up_captures_as_fast_as_it_can_without_an_offered_rate():
    m = _catch_up(None, 100_000)
    assert m["capture_rows_per_s"] > m["apply_rows_per_s"]
    assert m["backlog_growth_rows_per_s"] == pytest.approx(m["capture_rows_per_s"] - m["apply_rows_per_s"])
    assert "catch_up_s" not in m


def test_a_finite_catch_up_reports_when_capture_and_apply_finish_and_the_deepest_queue():
    m = _finite_job(None, 0, 100_000)
    rows = 100_000 * m["rows_per_msg"]
    capture, apply = m["capture_rows_per_s"], m["apply_rows_per_s"]
    assert capture > apply
    assert m["catch_up_capture_s"] == pytest.approx(rows / capture)
    assert m["catch_up_apply_s"] == m["elapsed_s"] == pytest.approx(rows / apply)
    assert m["catch_up_peak_depth_msgs"] == pytest.approx(
        (capture - apply) * rows / capture / m["rows_per_msg"]
    )
    assert not {"catch_up_s", "backlog_growth_rows_per_s"} & set(m)


def test_a_finite_catch_up_slower_than_apply_ends_with_capture_and_peaks_at_its_backlog():
    m = _finite_job(10_000, 1000, 100_000)
    assert m["catch_up_apply_s"] == pytest.approx(m["catch_up_capture_s"])
    assert m["catch_up_peak_depth_msgs"] == pytest.approx(1000)


def test_a_catch_up_needs_a_backlog_or_a_payload():
    s = _with(_sample("redpaper-baseline"), run__mode="catch-up", run__initial_receive_queue_depth=0)
    with pytest.raises(ValueRangeError, match="run.initial_receive_queue_depth"):
        predict_settings(s)


# -- SQL Replication ------------------------------------------------------------------------


def test_sql_replication_throughput_is_about_a_third_of_q_replication_for_the_2005_workload():
    for platform in ("zos", "aix"):  # seed 001, Figures 2 and 3: "almost three times" on both
        sql = predict_settings(SCENARIOS[f"dw-{platform}-sql-max"]).metrics
        q = predict_settings(SCENARIOS[f"dw-{platform}-max"]).metrics
        assert 0.28 <= sql["capture_rows_per_s"] / q["capture_rows_per_s"] <= 0.42, platform
    sql = predict_settings(SCENARIOS["dw-zos-sql-max"]).metrics
    q = predict_settings(SCENARIOS["dw-zos-max"]).metrics
    # seed 001, Figure 4: source CPU per row about three times Q's, somewhat less on the target
    assert sql["capture_cpu_us_per_row"] > 2.0 * q["capture_cpu_us_per_row"]
    assert sql["apply_cpu_us_per_row"] < q["apply_cpu_us_per_row"]


def test_sql_apply_interval_raises_sql_latency_and_the_comparison_sits_beside_q():
    p = predict_settings(_sample("sql-replication-vs-q"))
    m = p.metrics
    assert m["qrep_to_sql_throughput_ratio"] > 2.0
    assert m["sql_end2end_latency_ms"] > m["end2end_latency_ms"]
    slower = predict_settings(_with(_sample("sql-replication-vs-q"), sql_apply__sleep_minutes=5.0)).metrics
    assert slower["sql_end2end_latency_ms"] > m["sql_end2end_latency_ms"] + 100_000
    assert slower["end2end_latency_ms"] == m["end2end_latency_ms"]


# -- bad values ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "value", "allowed"),
    [
        ("mq.offload", "TAPE", "'SMDS', 'DB2'"),
        ("qcapture.queue_maps", 0, "from 1 to 64"),
        ("hardware.data_sharing_members", 2.5, "an integer"),
        ("mq.offld2thr", 50, "at least the previous level's threshold"),
        ("mq.cf_structure_size_mb", -5, "from 16"),
    ],
)
def test_bad_values_get_one_line_errors_naming_field_value_and_allowed(path, value, allowed):
    s = _with(_sample("qsg-shared-capture-queue"), **{path.replace(".", "__"): value})
    with pytest.raises(ValueRangeError) as e:
        predict_settings(s)
    text = str(e.value)
    assert "\n" not in text and path in text and str(value) in text and allowed in text


def test_evaluate_names_a_queue_maps_browser_as_the_browser():
    from engine.evaluate import published_bottleneck

    drain = _with(SCENARIOS["dw-zos-apply-16-agents"], qcapture__queue_maps=2)
    p = predict_settings(drain)
    assert p.bottleneck == "qapply_browser_map1"
    assert published_bottleneck(p) == "qapply_browser"


def test_the_simulated_shared_queue_holds_its_backlog_in_the_cf_structure_not_a_buffer_pool():
    from engine.sim.events import parse_event
    from engine.sim.run import simulate_settings

    settings = _with(_sample("qsg-shared-capture-queue"), workload__offered_rows_per_s=4000.0)
    res = simulate_settings(settings, 120.0, events=[parse_event("channel-stop@20+30")])
    notes = " ".join(res.summary["notes"])
    assert "CF structure" in notes and "524,288 messages" in notes
    m = res.metrics()[0]
    assert m["pageset_msgs"] == 0 and m["recvq_pageset_msgs"] == 0
    assert m["peak_xmitq_depth_msgs"] > 0
