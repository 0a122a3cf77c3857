"""Db2 Mirror: read-only work is not mirrored; the link speed matters where the link is busy (seed 002)."""

from dataclasses import replace
from pathlib import Path

import pytest

from engine import projectfile
from engine.perf import mirror
from engine.perf.coeffload import load
from engine.predict import predict_project

SAMPLES = Path(__file__).resolve().parents[3] / "sample_runs"
PAIRS = ("mirror-active-passive.json", "mirror-active-active.json")


def _source(project):
    return next(n for n in project.nodes_of("db2_mirror_node") if n.params["role"] == "source")


def _read_only(project):
    src = _source(project).id
    return project.with_param(src, "write_pct", 0.0).with_param(src, "read_pct", 100.0)


def _link(project, **params):
    link = project.nodes_of("roce_link")[0]
    for name, value in params.items():
        project = project.with_param(link.id, name, value)
    return project


@pytest.mark.parametrize("sample", PAIRS)
def test_read_only_work_loses_nothing_with_distance_or_a_slow_link(sample):
    ro = _read_only(projectfile.load(SAMPLES / sample))
    near = predict_project(_link(ro, distance_km=0.0))
    far = predict_project(_link(ro, distance_km=10.0, link_gbps=1.0))
    assert far.metrics["tps"] == pytest.approx(near.metrics["tps"], rel=1e-12)
    assert far.metrics["response_time_ms"] == pytest.approx(near.metrics["response_time_ms"], rel=1e-12)
    for path in ("link.speed_gbps", "link.distance_km", "workload.row_bytes"):
        assert "read-only work is not mirrored" in far.ignored_reasons[path]


def test_read_only_active_passive_runs_as_without_mirror():
    ro = _read_only(projectfile.load(SAMPLES / "mirror-active-passive.json"))
    p = predict_project(_link(ro, distance_km=10.0))
    assert p.metrics["throughput_change_pct"] == pytest.approx(0.0, abs=1e-9)
    assert p.metrics["target_cpu_pct"] == pytest.approx(0.0, abs=1e-9)


def test_a_modifying_workload_still_pays_for_distance():
    base = projectfile.load(SAMPLES / "mirror-active-passive.json")
    near = predict_project(_link(base, distance_km=0.0)).metrics["tps"]
    far = predict_project(_link(base, distance_km=10.0)).metrics["tps"]
    assert far < 0.95 * near


def test_commit_is_mirrored_for_the_share_of_transactions_that_mirror_something():
    cfg, _ = mirror.parse_settings({"workload": {"write_pct": 10.0}})
    g = load("mirror")["global"]
    assert mirror.mirrored_txn_share(cfg, 0.1, 10.0, g) == pytest.approx(1.0 - 0.9**10)
    assert mirror.mirrored_txn_share(cfg, 0.0, 10.0, g) == 0.0
    rfu = replace(cfg, reads_for_update=True)
    p = g["rfu_share"]
    assert mirror.mirrored_txn_share(rfu, 0.0, 3.0, g) == pytest.approx(1.0 - (1.0 - p) ** 3)
    assert mirror.mirrored_txn_share(replace(cfg, opens_for_update_per_txn=1.0), 0.0, 3.0, g) == 1.0


def test_transfer_demand_is_the_mirrored_bytes_over_the_link_speed():
    coeffs = load("mirror")
    cfg, _ = mirror.parse_settings(
        {
            "workload": {"write_pct": 40.0, "row_bytes": 5000.0, "commitment_control": False},
            "link": {"speed_gbps": 10.0},
        }
    )
    d = mirror.demands(cfg, coeffs)
    ops = coeffs["profiles"][cfg.api]["ops_per_txn"]
    writes = 0.4 * ops
    # 5,000 bytes need two 4,096-byte frames, each with 98 bytes of RoCE v2 framing
    expected = writes * (5000.0 + 2 * 98.0) * 8.0 / 10e9
    assert d.link_transfer_s == pytest.approx(expected, rel=1e-12)


def test_a_busy_link_queues_and_caps_throughput():
    base = projectfile.load(SAMPLES / "mirror-active-passive.json")
    fast = predict_project(_link(base, link_gbps=100.0))
    slow = predict_project(_link(base, link_gbps=1.0))
    assert slow.metrics["response_time_ms"] > 1.2 * fast.metrics["response_time_ms"]
    transfer = next(s for s in slow.stages if s.name == "mirror_link_transfer")
    # one direction of the link is a single server: the transactions it carries <= 1 / demand
    assert slow.metrics["tps"] <= transfer.capacity * (1 + 1e-9)
    assert transfer.utilisation > 0.8
    assert slow.bottleneck == "mirror_link"
    # where the link is nearly idle its speed changes the response time only by the transfer time
    faster = predict_project(_link(base, link_gbps=1000.0))
    gap = fast.metrics["response_time_ms"] - faster.metrics["response_time_ms"]
    assert 0.0 < gap < 0.01 * fast.metrics["response_time_ms"]
    assert "link.speed_gbps" not in fast.ignored


def test_row_size_beyond_the_link_limit_is_refused():
    from engine.errors import QrtuneError

    with pytest.raises(QrtuneError, match="row_bytes"):
        mirror.parse_settings({"workload": {"row_bytes": 40_000.0}})
