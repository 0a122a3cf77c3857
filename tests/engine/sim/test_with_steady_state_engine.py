"""The simulation on the baseline sample with the real steady-state engine."""

import pytest

from engine import projectfile
from engine.scenario import project_to_scenario
from engine.sim import profiles, simulate_settings
from engine.sim.events import Event


@pytest.fixture(scope="module")
def baseline(root=None):
    from pathlib import Path

    from engine.predict import predict_settings

    path = Path(__file__).resolve().parents[3] / "sample_runs" / "redpaper-baseline.json"
    project = projectfile.load(path)
    settings = project_to_scenario(project)
    return project, settings, predict_settings(settings)


def test_baseline_steady_throughput_within_2pct_of_the_prediction(baseline):
    project, settings, pred = baseline
    res = simulate_settings(settings, 120, prediction=pred, project=project, seed=1)
    predicted = res.config.predicted_rows_per_s
    assert predicted and res.summary["offered_rows_per_s"] == pytest.approx(predicted)
    assert res.summary["throughput_rows_per_s"] == pytest.approx(predicted, rel=0.02)
    assert all(0 <= u <= 1.0 + 1e-9 for u in res.summary["utilisation"].values())


def test_baseline_channel_outage_catch_up_is_finite_below_the_maximum(baseline):
    project, settings, pred = baseline
    rate = 0.6 * pred.metrics["apply_rows_per_s"]
    res = simulate_settings(
        settings,
        600,
        prediction=pred,
        project=project,
        seed=2,
        profile=profiles.constant(rate),
        events=[Event("channel_stop", 60, 120)],
    )
    e = res.summary["events"][0]
    assert e["backlog_at_end_of_event_rows"] == pytest.approx(rate * 120, rel=0.05)
    assert e["catch_up_s"] is not None and 0 < e["catch_up_s"] < 480


def test_overridden_coefficients_reach_the_simulation(baseline):
    """With coefficients other than the file's (as ``qrtune fit`` tries them), the simulation uses
    them too: its merged-log read delay follows ``log_merge_delay_ms`` (the baseline's Q Capture
    reads the source member's log through the data-sharing group)."""
    from engine.perf.qrep.coefficients import load

    project, settings, _ = baseline
    delay = load().values["log_merge_delay_ms"]
    runs = {}
    for extra_ms in (0.0, 50.0):
        over = {"log_merge_delay_ms": delay + extra_ms}
        res = simulate_settings(
            settings, 60, project=project, seed=1, coefficients=over, profile=profiles.constant(20000)
        )
        assert res.config.log_delay_s == pytest.approx((delay + extra_ms) / 1000.0)
        runs[extra_ms] = res.summary["capture_latency_ms"]
    assert runs[50.0] - runs[0.0] == pytest.approx(50.0, abs=3.0)


def test_drain_run_works_off_the_preloaded_queue_in_the_predicted_time(baseline):
    """``run.mode: drain``: Capture and the channel do not run; the pre-loaded receive queue is
    applied in about the steady-state engine's ``elapsed_s`` and no new work arrives."""
    import copy

    from engine.predict import predict_settings

    project, settings, _ = baseline
    drain = copy.deepcopy(settings)
    drain["run"] = {"mode": "drain", "initial_receive_queue_depth": 100_000}
    pred = predict_settings(drain)
    res = simulate_settings(drain, 90, project=project, seed=1)
    s = res.summary
    assert s["rows_applied"] == s["rows_generated"] == 100_000 * pred.metrics["rows_per_msg"]
    assert s["initial_queue_applied_s"] == pytest.approx(pred.metrics["elapsed_s"], rel=0.10)


@pytest.mark.parametrize("sample", ["four-queue-maps", "redpaper-baseline"])
def test_an_apply_server_takes_the_steady_state_agent_time(sample):
    # several queue maps are pooled: NUM_APPLY_AGENTS per map, each taking an agent's time (not
    # the map count times faster), also when the apply LPAR's CPU caps how many work at once
    from pathlib import Path

    from engine.perf.qrep import solve_settings
    from engine.predict import predict_settings
    from engine.sim.config import build_config
    from engine.sim.knobs import knob

    path = Path(__file__).resolve().parents[3] / "sample_runs" / f"{sample}.json"
    project = projectfile.load(path)
    settings = project_to_scenario(project)
    cfg = build_config(settings, predict_settings(settings), project)
    maps = knob(settings, "qcapture.queue_maps")
    assert cfg.agents == knob(settings, "qapply.num_apply_agents") * maps
    per_server_ms = 1000.0 * cfg.rows_per_target_txn * cfg.apply_servers / cfg.apply_rows_per_s
    # within 15%: whole servers when the CPU caps them, the agents' capacity at full latch stretch
    assert per_server_ms == pytest.approx(solve_settings(settings).agent_ms, rel=0.15)


def test_the_simulation_reads_back_its_own_backlog_not_the_steady_states():
    # zos-to-linux-bindings: the receiving Linux queue manager's queue buffer holds fewer messages
    # than the steady state's modelled depth, so its browser and channel pay for reading messages
    # back from the queue file; the simulation models its queues' depth and takes those stages'
    # speeds without that share (or the channel would be charged twice and saturate early)
    from pathlib import Path

    from engine.predict import predict_settings
    from engine.sim.config import build_config

    path = Path(__file__).resolve().parents[3] / "sample_runs" / "zos-to-linux-bindings.json"
    project = projectfile.load(path)
    settings = project_to_scenario(project)
    pred = predict_settings(settings)
    cfg = build_config(settings, pred, project)
    by_name = {st.name: st for st in pred.stages}
    browser = by_name["qapply_browser"]
    assert browser.backlog_read_ms > 0.0 and by_name["mq_channel"].backlog_read_ms > 0.0
    own_ms_per_msg = 1000.0 / browser.capacity_msgs_per_s - browser.backlog_read_ms
    assert cfg.browser_rows_per_s == pytest.approx(
        browser.capacity * 1000.0 / browser.capacity_msgs_per_s / own_ms_per_msg, rel=1e-9
    )
    assert cfg.recvq_buffer_msgs < 100 and cfg.recvq_pageset_s_per_msg > 0.0


def test_stages_on_z_os_queue_managers_with_room_in_the_buffer_pool_read_nothing_back(baseline):
    project, settings, pred = baseline
    from engine.sim.config import build_config

    cfg = build_config(settings, pred, project)
    browser = next(st for st in pred.stages if st.name == "qapply_browser")
    assert browser.backlog_read_ms == 0.0
    assert cfg.browser_rows_per_s == pytest.approx(browser.capacity, rel=1e-12)


@pytest.mark.parametrize("memory_mb", [1, 200])
def test_the_simulation_finds_the_dependency_graphs_limit_itself(baseline, memory_mb):
    # chains of about 125 dependent target transactions: 1 MB of Q Apply memory holds about one
    # and a half of them, 200 MB all the agents need; the simulation takes the agents' own
    # capacity and resolves the dependencies in its own memory, the steady state by Little's law
    import copy

    from engine.predict import predict_settings
    from engine.sim.config import build_config

    project, settings, free = baseline
    s = copy.deepcopy(settings)
    s["workload"]["dependent_txn_pct"] = 80.0
    s["qapply"]["memory_limit_mb"] = memory_mb
    pred = predict_settings(s)
    cfg = build_config(s, pred, project)
    own = next(st.capacity for st in free.stages if st.name == "qapply_agents")
    assert dict(cfg.apply_stages)["qapply_agents"] >= 0.99 * own  # the agents' own capacity, not the graph's
    res = simulate_settings(s, 20, prediction=pred, project=project, seed=3)
    predicted = pred.metrics["apply_rows_per_s"]
    assert (predicted < 0.5 * free.metrics["apply_rows_per_s"]) == (memory_mb == 1)
    assert res.summary["throughput_rows_per_s"] == pytest.approx(predicted, rel=0.05)
