"""Buffer pool and storage sizing of the mover: the pool that holds the backlog, storage per connection and channel."""

import math
from pathlib import Path

import pytest

from engine import projectfile
from engine.errors import FieldError
from engine.perf import mq_bufferpool as bp
from engine.perf import mq_calculators as mc
from engine.perf import mqmover
from engine.predict import predict_project
from engine.scenario import project_to_scenario

SAMPLE = Path(__file__).resolve().parents[3] / "sample_runs" / "mq-buffer-pool-mover.json"


def _project():
    return projectfile.load(SAMPLE)


def test_buffers_to_hold_is_below_the_dwp_start():
    pages = bp.pages_per_message(2048)
    assert bp.buffers_to_hold(170_000, 2048, 85) == 200_000 * pages  # the seed's pool: DWP starts at 170,000
    assert bp.buffers_to_hold(1000, 10_000, 50) == math.ceil(1000 * bp.pages_per_message(10_000) / 0.5)
    assert bp.buffers_to_hold(0, 2048) == 0
    assert bp.BufferPool(200_000).messages_before_dwp(2048) == pytest.approx(170_000 / pages)
    assert bp.buffers_mb(256) == 1.0
    with pytest.raises(FieldError, match="dwp_start_pct"):
        bp.buffers_to_hold(10, 2048, 0)
    with pytest.raises(FieldError, match="messages"):
        bp.buffers_to_hold(-1, 2048)


def test_sizing_of_the_sample_against_the_rates():
    settings = project_to_scenario(_project())
    pool, channel, putter, messages, _ = mqmover.build(settings)
    z = mqmover.sizing(settings)
    put, get = putter.rate_msgs_per_s(), channel.get_rate_msgs_per_s(2048, False)
    assert put > get  # the putter outpaces the channel, so a backlog builds
    assert z.backlog_msgs == pytest.approx(messages - get * messages / put)
    assert z.buffers_to_hold_backlog == math.ceil(z.backlog_msgs * bp.pages_per_message(2048) / 0.85 - 1e-6)
    assert z.buffers_to_hold_all_msgs == math.ceil(819_200 / 0.85)
    assert z.buffers == 200_000 and z.dwp_start_depth_msgs == pytest.approx(170_000)
    # the seed's second test held the workload in 1,048,576 buffers: what we ask for is no more than that
    assert 200_000 < z.buffers_to_hold_backlog <= 1_048_576


def test_the_pool_that_holds_the_backlog_ends_page_set_reads():
    project = _project()
    qm = project.nodes_of("queue_manager")[0].id
    before = predict_project(project)
    need = int(before.metrics["buffers_to_hold_backlog"])
    assert before.metrics["pageset_get_fraction"] > 0.5 and before.bottleneck == "mq_pageset"
    held = predict_project(project.with_param(qm, "buffpool_pages", need))
    assert held.metrics["pageset_get_fraction"] == 0 and held.bottleneck != "mq_pageset"
    assert held.metrics["peak_depth"] == pytest.approx(before.metrics["backlog_msgs"])
    assert held.metrics["transfer_mb_per_s"] > 4 * before.metrics["transfer_mb_per_s"]
    short = predict_project(project.with_param(qm, "buffpool_pages", need - 1))
    assert short.metrics["pageset_get_fraction"] > 0


@pytest.mark.parametrize(
    "share, storage_kb, csa_kb", [("local", 14, 2.43), ("0", 14, 2.43), ("1", 21, 4.9), ("10", 15, 2.7)]
)
def test_storage_per_connection_follows_the_seed(share, storage_kb, csa_kb):
    # seed 003, "How much storage does a connection use?" and "CSA usage per connection"
    project = _project()
    putter = project.nodes_of("mq_application")[0].id
    p = predict_project(project.with_param(putter, "sharecnv", share))
    assert "sharecnv" not in p.ignored and all(p.ignored_reasons.get(k) for k in p.ignored)
    assert p.metrics["storage_per_connection_kb"] == pytest.approx(storage_kb)
    assert p.metrics["csa_per_connection_kb"] == pytest.approx(csa_kb)
    assert p.units["storage_per_connection_kb"] == "KB"


def test_channel_storage_by_message_size():
    p = predict_project(_project())
    assert p.metrics["channel_storage_kb"] == pytest.approx(mc.channel_footprint_kb(2.0))
    assert 107 <= p.metrics["channel_storage_kb"] < 115  # the seed: 107 KB at 1 KB, 115 KB at 32 KB
    assert mc.csa_per_connection_kb(5) == pytest.approx(2.9)
    with pytest.raises(FieldError, match="sharecnv"):
        mc.csa_per_connection_kb(3)
    with pytest.raises(FieldError, match="sharecnv"):
        mqmover.sizing({**project_to_scenario(_project()), "sharecnv": "2"})


def test_a_backlog_deeper_than_the_pool_has_no_backlog_size():
    settings = {**project_to_scenario(_project()), "messages": None}
    z = mqmover.sizing(settings)
    assert z.backlog_msgs is None and z.buffers_to_hold_backlog is None and z.buffers_to_hold_all_msgs is None
    p = mqmover.predict(settings)
    assert "buffers_to_hold_backlog" not in p.metrics and p.metrics["channel_storage_kb"] > 0
