"""The vectorised pipeline: equal to the reference loop, conservation, END2END decomposition,
Little's law, steady throughput against the steady-state prediction, determinism."""

import dataclasses
import math

import numpy as np
import pytest

from engine.sim import profiles
from engine.sim.events import Event, Warp, parse_event
from engine.sim.reference import run_reference
from engine.sim.run import simulate_config


def _stressed(cfg):
    """A small pipeline where the buffer pool overflows, memory fills and batches spill."""
    return dataclasses.replace(
        cfg,
        xmitq_buffer_msgs=400.0,
        apply_memory_bytes=120_000.0,
        capture_memory_bytes=120_000.0,
        max_message_bytes=50_000.0,
        recvq_buffer_msgs=300.0,
        recvq_pageset_s_per_msg=0.0004,
    )


#: The mechanisms that come from fitted coefficients and the steady-state engine's latencies:
#: channel batches with a sync time, Q Capture's MQ commit every N transactions, the Q Apply
#: browser as its own server, variable agent service times (hyperexponential or below 1).
MECHANISMS = {
    "plain": {},
    "batches-h2": {
        "channel_batch_msgs": 40.0,
        "channel_sync_s": 0.003,
        "network_latency_s": 0.002,
        "maxtrans_per_commit": 25.0,
        "browser_rows_per_s": 20000.0,
        "agent_service_cv2": 4.0,
    },
    "big-batches": {"channel_batch_msgs": 3000.0, "channel_sync_s": 0.004, "agent_service_cv2": 2.0},
    "batches-low-cv": {
        "channel_batch_msgs": 7.0,
        "channel_sync_s": 0.001,
        "maxtrans_per_commit": 7.5,
        "browser_rows_per_s": 12000.0,
        "agent_service_cv2": 0.5,
    },
    # Q Apply dependencies (a share of target transactions wait for the one before) and COMMIT_COUNT
    "dependencies": {
        "channel_batch_msgs": 40.0,
        "channel_sync_s": 0.003,
        "maxtrans_per_commit": 25.0,
        "browser_rows_per_s": 20000.0,
        "agent_service_cv2": 4.0,
        "dependent_share": 0.4,
    },
    "commit-count": {
        "channel_batch_msgs": 40.0,
        "channel_sync_s": 0.003,
        "browser_rows_per_s": 20000.0,
        "agent_service_cv2": 0.5,
        "commit_count": 3,
        "dependent_share": 0.3,
    },
}

EVENTS = (
    parse_event("channel-stop@20+15"),
    parse_event("apply-stop@50+10"),
    parse_event("target-slow@70+20*0.3"),
)
PROFILE = profiles.from_dict(
    {
        "kind": "batch_window",
        "base_rows_per_s": 3000,
        "start_s": 10,
        "duration_s": 30,
        "batch_rows_per_s": 2000,
        "batch_rows_per_txn": 400,
    }
)


@pytest.mark.parametrize("mechanisms", list(MECHANISMS))
def test_vectorised_pipeline_equals_the_reference_loop_on_the_same_transactions(cfg, mechanisms):
    cfg = dataclasses.replace(
        _stressed(cfg),
        channel_stages=(("mq_channel", 9000.0),),
        apply_stages=(("qapply_agents", 8000.0),),
        pageset_rows_per_s=2500.0,
        log_delay_s=0.3,
        **MECHANISMS[mechanisms],
    )
    res = simulate_config(cfg, 120, seed=4, profile=PROFILE, events=EVENTS, trace=True, chunk_txns=2000)
    tr = res.trace
    assert res.summary["pageset_msgs"] > 0, "the test must exercise the page set"
    assert res.summary["mem_full_time_s"] > 0, "the test must exercise apply memory back-pressure"
    assert res.summary["trans_spilled"] > 0
    assert res.summary["recvq_pageset_msgs"] > 0, "the test must exercise the receive queue's page set"
    ref = run_reference(
        cfg,
        tr["commit"].tolist(),
        tr["rows"].tolist(),
        Warp.from_events(EVENTS, "channel"),
        Warp.from_events(EVENTS, "apply"),
        u=tr["u"].tolist(),
        v=tr["v"].tolist(),
    )
    for key in ("cap_dep", "put", "visible", "ch_dep", "get", "done"):
        np.testing.assert_allclose(tr[key], ref[key], rtol=0, atol=1e-7, err_msg=key)
    assert tr["pageset"].tolist() == ref["pageset"]
    if cfg.dependent_share or cfg.commit_count > 1:
        # the mechanism changed the times the reference agrees with
        plain = simulate_config(
            dataclasses.replace(cfg, dependent_share=0.0, commit_count=1),
            120,
            seed=4,
            profile=PROFILE,
            events=EVENTS,
            trace=True,
            chunk_txns=2000,
        ).trace
        np.testing.assert_allclose(plain["put"], tr["put"], rtol=0, atol=0)
        assert np.abs(plain["done"] - tr["done"]).max() > 0.01


@pytest.mark.parametrize("mechanisms", ["plain", "batches-h2", "big-batches", "dependencies", "commit-count"])
def test_results_do_not_depend_on_the_chunk_size(cfg, mechanisms):
    # big batches: during the channel stop one batch stays open across several chunks
    cfg = dataclasses.replace(_stressed(cfg), **MECHANISMS[mechanisms])
    a = simulate_config(cfg, 60, seed=2, profile=PROFILE, events=EVENTS[:1], trace=True, chunk_txns=1500)
    b = simulate_config(cfg, 60, seed=2, profile=PROFILE, events=EVENTS[:1], trace=True, chunk_txns=10**7)
    np.testing.assert_allclose(a.trace["done"], b.trace["done"], rtol=0, atol=1e-7)
    assert a.summary["rows_applied"] == b.summary["rows_applied"]


def test_same_seed_same_numbers_other_seed_other_numbers(cfg):
    p = profiles.constant(20000)
    a = simulate_config(cfg, 30, seed=7, profile=p).summary
    b = simulate_config(cfg, 30, seed=7, profile=p).summary
    c = simulate_config(cfg, 30, seed=8, profile=p).summary
    assert a == b
    assert a["rows_generated"] != c["rows_generated"]


def _stressed_run(cfg, mechanisms: str, seed: int):
    """90 s of the stressed pipeline with ``MECHANISMS[mechanisms]``, the batch-window PROFILE and the EVENTS."""
    return simulate_config(
        dataclasses.replace(_stressed(cfg), **MECHANISMS[mechanisms]),
        90,
        seed=seed,
        profile=PROFILE,
        events=EVENTS,
    )


@pytest.mark.parametrize("mechanisms", ["plain", "batches-h2", "commit-count"])
def test_rows_are_conserved_at_every_monitor_edge(cfg, mechanisms):
    res = _stressed_run(cfg, mechanisms, seed=1)
    s = res.summary
    assert s["rows_generated"] == pytest.approx(s["rows_applied"] + s["rows_in_flight_at_end"], abs=1e-6)
    ts = res.timeseries
    generated = np.cumsum(ts["source.rows_per_s"]) * (ts["t_s"][1] - ts["t_s"][0])
    applied = np.cumsum(ts["qapply.rows_per_s"]) * (ts["t_s"][1] - ts["t_s"][0])
    np.testing.assert_allclose(generated - applied, ts["inflight.rows"], atol=1e-6)
    # rows in flight are in exactly one of capture, MQ and apply
    cap = res.monitor["IBMQREP_CAPMON"]
    app = res.monitor["IBMQREP_APPLYMON"]
    assert (
        cap["ROWS_PROCESSED"].sum()
        >= res.monitor["IBMQREP_CAPQMON"]["ROWS_PUBLISHED"].sum()
        >= app["ROWS_APPLIED"].sum()
    )
    assert app["ROWS_APPLIED"].sum() == s["rows_applied"]


@pytest.mark.parametrize("mechanisms", ["plain", "batches-h2", "commit-count"])
def test_end2end_is_the_sum_of_its_parts_in_every_interval(cfg, mechanisms):
    res = _stressed_run(cfg, mechanisms, seed=3)
    m = res.monitor["IBMQREP_APPLYMON"]
    assert (m["TRANS_APPLIED"] > 0).sum() >= 5
    np.testing.assert_allclose(
        m["END2END_LATENCY"], m["CAPTURE_LATENCY"] + m["QLATENCY"] + m["APPLY_LATENCY"], rtol=1e-9, atol=1e-6
    )
    assert (
        np.all(m["CAPTURE_LATENCY"] >= 0) and np.all(m["QLATENCY"] >= 0) and np.all(m["APPLY_LATENCY"] >= 0)
    )


def test_littles_law_on_the_pipeline(cfg):
    res = simulate_config(cfg, 300, seed=5, profile=profiles.constant(20000))
    ts, s = res.timeseries, res.summary
    warm = ts["t_s"] > 30
    txn_per_s = 20000 / cfg.rows_per_txn
    # time-average number in the system (sampling only at the edges would alias with COMMIT_INTERVAL)
    l_txn = ts["inflight.rows_avg"][warm].mean() / cfg.rows_per_txn
    w_s = s["end2end_latency_ms"]["mean"] / 1000.0
    assert l_txn == pytest.approx(txn_per_s * w_s, rel=0.03)


def test_steady_throughput_within_2pct_of_the_steady_state_prediction(cfg):
    # drive at the predicted maximum: the bottleneck's capacity
    res = simulate_config(cfg, 300, seed=6)
    s = res.summary
    assert cfg.max_rows_per_s == 32000.0
    assert s["throughput_rows_per_s"] == pytest.approx(cfg.predicted_rows_per_s, rel=0.02)
    assert s["utilisation"]["apply"] == pytest.approx(1.0, abs=0.02)
    # and below the maximum the pipeline carries what is offered
    res = simulate_config(cfg, 300, seed=6, profile=profiles.constant(0.6 * cfg.max_rows_per_s))
    assert res.summary["throughput_rows_per_s"] == pytest.approx(0.6 * cfg.max_rows_per_s, rel=0.02)


def test_dependent_transactions_wait_for_the_one_before_and_raise_apply_latency(cfg):
    rate = profiles.constant(0.7 * cfg.max_rows_per_s)
    base = simulate_config(cfg, 120, seed=8, profile=rate, trace=True)
    dep = simulate_config(
        dataclasses.replace(cfg, dependent_share=0.6), 120, seed=8, profile=rate, trace=True
    )
    # the same transactions and the same work reach Q Apply
    np.testing.assert_array_equal(base.trace["recv"], dep.trace["recv"])
    lat0, lat1 = base.summary["apply_latency_ms"], dep.summary["apply_latency_ms"]
    # (+4% here: the base already holds the wait of each COMMIT_INTERVAL's burst at the agents)
    assert lat1 > 1.03 * lat0, (lat0, lat1)
    # the waits do not hold up the others: below capacity the throughput is what is offered
    assert dep.summary["throughput_rows_per_s"] == pytest.approx(
        base.summary["throughput_rows_per_s"], rel=0.01
    )
    # a dependent message (its first transaction drew v below the share) starts after the one before commits ...
    tr = dep.trace
    dependent = np.flatnonzero(tr["m_v"][1:] < 0.6) + 1
    assert dependent.size > 1000
    assert np.all(tr["m_ap_start"][dependent] >= tr["m_ap_dep"][dependent - 1])
    waited = tr["m_ap_start"][dependent] > tr["m_ap_start"][dependent - 1]
    # ... without holding up the one behind it, which often starts first
    behind = dependent[dependent + 1 < len(tr["m_v"])]
    assert np.mean(tr["m_ap_start"][behind + 1] < tr["m_ap_start"][behind]) > 0.1
    assert waited.mean() > 0.5


def test_commit_count_groups_messages_into_one_target_transaction(cfg):
    rate = profiles.constant(0.5 * cfg.max_rows_per_s)
    one = simulate_config(cfg, 60, seed=9, profile=rate, trace=True)
    three = simulate_config(dataclasses.replace(cfg, commit_count=3), 60, seed=9, profile=rate, trace=True)
    m_done = three.trace["m_ap_dep"]
    n_msgs = m_done.size
    # three consecutive messages share their start and their commit
    groups = m_done[: n_msgs - n_msgs % 3].reshape(-1, 3)
    assert np.all(groups == groups[:, :1])
    assert np.unique(m_done).size == math.ceil(n_msgs / 3)
    # a message waits for the others of its target transaction: APPLY plus Q latency grows
    s1, s3 = one.summary, three.summary
    assert s3["qlatency_ms"] + s3["apply_latency_ms"] > s1["qlatency_ms"] + s1["apply_latency_ms"]
    assert (
        s3["rows_applied"] + s3["rows_in_flight_at_end"] == s1["rows_applied"] + s1["rows_in_flight_at_end"]
    )


def test_commit_count_counts_mem_full_time_once_per_target_transaction(cfg):
    # Q Apply's memory holds about two target transactions: the browser waits most of the time
    cfg = dataclasses.replace(_stressed(cfg), commit_count=3, apply_memory_bytes=40_000.0)
    res = simulate_config(cfg, 60, seed=2, profile=profiles.constant(0.9 * cfg.max_rows_per_s))
    full = res.timeseries["qapply.mem_full_s"]
    assert full.max() > 0.5  # the test exercises the back-pressure
    assert full.max() <= res.timeseries["t_s"][0] + 1e-9  # one browser: at most the whole bin


def test_channel_outage_builds_a_backlog_that_drains_after_restart(cfg):
    ev = Event("channel_stop", 60.0, 120.0)
    res = simulate_config(cfg, 600, seed=1, profile=profiles.constant(16000), events=[ev])
    s, ts = res.summary, res.timeseries
    e = s["events"][0]
    assert e["backlog_at_end_of_event_rows"] == pytest.approx(16000 * 120, rel=0.05)
    assert e["catch_up_s"] is not None and e["catch_up_s"] > 0
    # nothing crosses the channel while it is stopped
    stopped = (ts["t_s"] > 62) & (ts["t_s"] <= 180)
    assert ts["mq_channel.msgs_per_s"][stopped].max() == 0
    # drain: backlog B at the page set / channel speed, minus the arrivals, bounds the catch-up time
    assert s["pageset_msgs"] > 0
    lower = e["backlog_at_end_of_event_rows"] / (cfg.apply_rows_per_s - 16000)
    assert e["catch_up_s"] >= 0.9 * lower


def test_monitor_rows_have_the_product_columns_and_units(cfg):
    res = simulate_config(cfg, 60, seed=1, profile=profiles.constant(10000))
    rows = res.monitor_rows
    assert set(rows) == {"IBMQREP_CAPMON", "IBMQREP_CAPQMON", "IBMQREP_APPLYMON"}
    assert len(rows["IBMQREP_APPLYMON"]) == 6  # 60 s at MONITOR_INTERVAL 10000 ms
    a = rows["IBMQREP_APPLYMON"][3]
    for col in (
        "END2END_LATENCY",
        "QLATENCY",
        "APPLY_LATENCY",
        "CAPTURE_LATENCY",
        "ROWS_APPLIED",
        "TRANS_APPLIED",
        "MEM_FULL_TIME",
        "OLDEST_TRANS",
        "QDEPTH",
        "CURRENT_MEMORY",
        "MONITOR_TIME",
    ):
        assert col in a
    assert a["MONITOR_TIME"] == "2024-01-01-00.00.40.000000"
    assert a["ROWS_APPLIED"] == pytest.approx(100000, rel=0.05)  # 10 s at 10,000 rows/s
    assert 25 < a["END2END_LATENCY"] < 5000  # ms: at least the 50 ms commit cycle's half
    assert rows["IBMQREP_CAPQMON"][3]["TRANS_PUBLISHED"] == pytest.approx(20000, rel=0.05)
    csv_text = res.monitor_csv("IBMQREP_CAPMON")
    assert csv_text.splitlines()[0].startswith("MONITOR_TIME,CURRENT_MEMORY,ROWS_PROCESSED")


def test_progress_and_cancel(cfg):
    from engine.sim.run import SimulationCancelled

    seen = []
    simulate_config(cfg, 20, seed=1, profile=profiles.constant(5000), progress=seen.append, chunk_txns=2000)
    assert len(seen) > 3 and seen == sorted(seen) and seen[-1] == 1.0
    with pytest.raises(SimulationCancelled):
        simulate_config(cfg, 20, seed=1, profile=profiles.constant(5000), cancel=lambda: True)


def test_a_preloaded_receive_queue_drains_at_the_apply_rate(cfg):
    n_msgs = 20000  # 300,000 rows at 15 rows per message
    cfg = dataclasses.replace(cfg, apply_memory_bytes=2e6)  # about 400 messages fit in Q Apply's memory
    res = simulate_config(cfg, 60, seed=1, profile=profiles.constant(0.0), initial_recvq_msgs=n_msgs)
    s = res.summary
    rows = n_msgs * cfg.rows_per_txn * cfg.trans_batch_sz
    assert s["rows_generated"] == rows and s["rows_applied"] == rows
    assert s["initial_queue_applied_s"] == pytest.approx(rows / cfg.apply_rows_per_s, rel=0.01)
    depth = res.timeseries["recvq.depth_msgs"]  # at the end of each second
    assert depth[4] == pytest.approx(
        n_msgs - 5 * cfg.apply_rows_per_s / 15 - 2e6 / (15 * cfg.bytes_per_row), abs=30
    )
    assert res.monitor["IBMQREP_APPLYMON"]["QDEPTH"][0] == 0
    assert res.monitor["IBMQREP_APPLYMON"]["MEM_FULL_TIME"][0] > 9


@pytest.mark.slow
def test_channel_outage_drains_from_the_page_set_faster_with_read_ahead(make_prediction):
    """Journey 4: the transmit queue overflows the buffer pool while the channel is down; the
    backlog drains at page-set speed (engine.perf.mq_bufferpool), faster with read-ahead."""
    from pathlib import Path

    from engine import projectfile
    from engine.scenario import project_to_scenario
    from engine.sim.config import build_config

    project = projectfile.load(Path(__file__).resolve().parents[3] / "sample_runs" / "redpaper-baseline.json")
    qm = next(n for n in project.nodes if n.kind == "queue_manager")
    out = {}
    for read_ahead in (False, True):
        p = project.with_param(qm.id, "read_ahead", read_ahead).with_param(qm.id, "buffpool_pages", 20000)
        cfg = build_config(project_to_scenario(p), make_prediction(), p, delays={})
        assert cfg.xmitq_buffer_msgs < 20000 and cfg.pageset_rows_per_s < cfg.channel_stages[0][1]
        res = simulate_config(
            cfg, 1800, seed=1, profile=profiles.constant(12000), events=[Event("channel_stop", 60.0, 600.0)]
        )
        out[read_ahead] = (res.summary["events"][0]["catch_up_s"], res.summary["pageset_msgs"], cfg)
    (slow, ps_slow, cfg_off), (fast, ps_fast, cfg_on) = out[False], out[True]
    assert cfg_on.pageset_rows_per_s > cfg_off.pageset_rows_per_s
    assert ps_slow > 0 and ps_fast > 0
    assert fast is not None and slow is not None and fast < slow


def test_fixed_delays_shift_capture_and_q_latency(cfg):
    p = profiles.constant(5000)
    base = simulate_config(cfg, 60, seed=1, profile=p).summary
    late = simulate_config(
        dataclasses.replace(cfg, log_delay_s=0.5, network_latency_s=0.03), 60, seed=1, profile=p
    ).summary
    # the log delay is a multiple of SLEEP_INTERVAL here, so it shifts CAPTURE_LATENCY exactly
    assert late["capture_latency_ms"] - base["capture_latency_ms"] == pytest.approx(500.0, abs=1.0)
    # a longer network delay reaches the receive queue that much later (the batches are not full here)
    assert late["qlatency_ms"] - base["qlatency_ms"] == pytest.approx(
        1000 * (0.03 - cfg.network_latency_s), abs=2.0
    )


def test_switch_over_drain_time_is_the_backlog_at_the_apply_rate(cfg):
    """Journey 5: Q Apply stopped for the last 20 s; stopping the source at the end, everything in
    flight is applied after about backlog / apply capacity."""
    rate = 16000.0
    res = simulate_config(
        cfg, 60, seed=1, profile=profiles.constant(rate), events=[Event("apply_stop", 40.0, 20.0)]
    )
    s = res.summary
    backlog = s["rows_in_flight_at_end"]
    assert backlog == pytest.approx(rate * 20, rel=0.1)
    assert s["in_flight_drain_s"] == pytest.approx(backlog / cfg.apply_rows_per_s, rel=0.1)
    quiet = simulate_config(cfg, 60, seed=1, profile=profiles.constant(rate)).summary
    assert 0 < quiet["in_flight_drain_s"] < 2.0  # only what is in the pipe: about one END2END_LATENCY


def test_channel_batches_deliver_together_and_cost_a_sync_each(cfg):
    """Messages of one batch reach the receive queue at the same time, at most BATCHSZ per batch,
    the sync time after the batch's last message; at full batches the channel keeps its capacity."""
    cfg = dataclasses.replace(cfg, channel_batch_msgs=50.0, channel_sync_s=0.004)
    res = simulate_config(
        cfg,
        60,
        seed=2,
        profile=profiles.constant(20000),
        trace=True,
        events=[Event("channel_stop", 10.0, 10.0)],
    )
    tr = res.trace
    # per message: its first transaction's index
    first = np.flatnonzero(np.diff(tr["put"], prepend=-1.0) != 0)
    recv, sent = tr["recv"][first], tr["ch_dep"][first]
    assert np.all(recv >= sent + cfg.channel_sync_s + cfg.network_latency_s - 1e-9)
    starts = np.flatnonzero(np.diff(recv, prepend=-1.0) != 0)  # a new delivery time: a new batch
    sizes = np.diff(np.append(starts, len(recv)))
    assert sizes.max() == 50 and (sizes < 50).any() and len(sizes) > 100
    # a batch's messages arrive the sync time plus the network delay after its last one was sent
    last = np.append(starts[1:], len(recv)) - 1
    np.testing.assert_allclose(
        recv[starts], sent[last] + cfg.channel_sync_s + cfg.network_latency_s, atol=1e-9
    )
    # after the outage the backlog is sent in full batches: the channel drains at its capacity
    drain = (tr["ch_dep"] > 21) & (tr["ch_dep"] < 24)
    rows_per_s = tr["rows"][drain].sum() / 3.0
    assert rows_per_s == pytest.approx(cfg.channel_rows_per_s, rel=0.03)


def test_a_channel_batch_waits_in_q_apply_memory_as_far_as_memory_limit_holds_it(cfg):
    """The browser gets each message as soon as it is on the receive queue and fits in
    MEMORY_LIMIT (QLATENCY ends there); a batch of 50 then waits in Q Apply's memory for the
    browser and the agents (APPLY_LATENCY). A MEMORY_LIMIT of 16 messages moves that wait onto
    the receive queue without removing it."""
    msg_bytes = cfg.rows_per_txn * cfg.trans_batch_sz * cfg.bytes_per_row
    waits = {}
    for memory_msgs in (math.inf, 16):
        run_cfg = dataclasses.replace(
            cfg,
            channel_batch_msgs=50.0,
            channel_sync_s=0.004,
            browser_rows_per_s=1.5 * cfg.apply_rows_per_s,
            apply_memory_bytes=memory_msgs * msg_bytes,
        )
        rate = 0.8 * run_cfg.max_rows_per_s
        tr = simulate_config(run_cfg, 60, seed=2, profile=profiles.constant(rate), trace=True).trace
        after = tr["commit"] > 10.0
        waits[memory_msgs] = (tr["get"][after] - tr["recv"][after], tr["done"][after] - tr["get"][after])
    on_queue, in_memory = waits[math.inf]
    assert np.all(on_queue == 0.0)
    one_service_s = cfg.rows_per_txn * cfg.trans_batch_sz * cfg.apply_servers / cfg.apply_rows_per_s
    assert in_memory.mean() > 5 * one_service_s  # the batch's wait, in memory
    held_on_queue, held_in_memory = waits[16]
    assert np.mean(held_on_queue > 0.0) > 0.9 and held_on_queue.mean() > 5 * held_in_memory.mean()
    assert (held_on_queue + held_in_memory).mean() == pytest.approx((on_queue + in_memory).mean(), rel=0.02)
