"""Buffer-pool thresholds, channel segments and the mover timeline."""

import pytest

from engine.errors import FieldError
from engine.perf import mq_bufferpool as bp
from engine.perf import mqmover


def test_dwp_starts_at_85_and_holds_75_to_85():
    pool = bp.BufferPool(200_000)
    assert pool.dwp_start_buffers == 170_000
    assert pool.dwp_hold_buffers == 160_000
    assert pool.state(160_000) == "normal"
    assert pool.state(170_000) == "dwp"
    assert pool.state(160_000, dwp_running=True) == "dwp"  # keeps writing inside its band
    assert pool.state(149_000, dwp_running=True) == "normal"  # stops below 75%
    assert pool.state(195_000) == "sync_write"


def test_thresholds_are_validated():
    with pytest.raises(FieldError, match="dwp_target_pct"):
        bp.BufferPool(1000, dwp_start_pct=70, dwp_target_pct=(75, 85))
    with pytest.raises(FieldError, match="pageclas"):
        bp.BufferPool(1000, pageclas="2KB")


def test_capacity_and_segments():
    pool = bp.BufferPool(200_000)
    assert pool.capacity_messages(2048) == 200_000  # one buffer per short message
    assert bp.pages_per_message(65536) == 17
    ch = bp.Channel()
    assert ch.segments(65536) == 3 and ch.dispatcher_requests(65536) == 4
    assert bp.Channel(ssl=True).segments(65536) == 5
    assert ch.dispatcher_requests(2048) == 2


def test_pageset_gets_are_slower_and_read_ahead_helps():
    ch = bp.Channel(batchsz=200)
    assert ch.get_rate_msgs_per_s(2048, True) < ch.get_rate_msgs_per_s(2048, False) / 4
    ra = bp.Channel(batchsz=200, read_ahead=True)
    assert ra.get_rate_msgs_per_s(2048, True) > ch.get_rate_msgs_per_s(2048, True)


def _mover(**kw):
    s = {
        "kind": "mq-mover",
        "messages": 819200,
        "message_bytes": 2048,
        "persistent": False,
        "msgs_per_put_commit": 200,
        "batchsz": 200,
        "buffpool_buffers": 200_000,
        "pageclas": "4KB",
        "dwp_start_pct": 85,
        "dwp_target_pct": [75, 85],
    }
    s.update(kw)
    return mqmover.predict(s).metrics


def test_bigger_pool_finishes_sooner_without_pageset_gets():
    small, big = _mover(), _mover(buffpool_buffers=1_048_576)
    assert big["elapsed_s"] < small["elapsed_s"] / 2
    assert big["pageset_get_fraction"] == 0 and small["pageset_get_fraction"] > 0.3
    assert big["dwp_cpu_us_per_msg"] == 0
    assert big["total_cpu_us_per_msg"] < small["total_cpu_us_per_msg"]
    # the putter outpaces the channel: the peak depth is most of what was put
    assert 0.5 * 819200 < big["peak_depth"] < 819200


def test_peak_depth_and_elapsed_grow_with_messages():
    a, b = _mover(messages=400_000), _mover(messages=800_000)
    assert b["peak_depth"] > a["peak_depth"] and b["elapsed_s"] > a["elapsed_s"]


def test_the_2kb_run_lands_within_the_fit_tolerance():
    """Shared coefficients reproduce the published 2 KB timeline to about 10%, not exactly."""
    m = _mover()
    assert m["get_rate_from_bufferpool_msgs_per_s"] == pytest.approx(28000, rel=0.10)
    assert m["get_rate_from_pageset_msgs_per_s"] == pytest.approx(3600, rel=0.15)
    assert m["elapsed_s"] == pytest.approx(166, rel=0.08)
    assert m["peak_depth"] == pytest.approx(685_542, rel=0.08)


def _backlog(**kw):
    return _mover(messages=None, message_bytes=65536, **kw)


def test_buffpool_matters_with_a_standing_backlog():
    """messages null: a pool that holds the backlog serves every get from buffers, no DWP writes."""
    small = _backlog(buffpool_buffers=200_000)
    big = _backlog(buffpool_buffers=1_048_576 * 2)  # 8 GB pool, 2 GB backlog
    assert small["pageset_get_fraction"] == 1.0 and big["pageset_get_fraction"] == 0.0
    assert big["dwp_cpu_us_per_msg"] == 0 < small["dwp_cpu_us_per_msg"]
    assert big["total_elapsed_us_per_msg"] < small["total_elapsed_us_per_msg"] / 3
    assert big["channel_msgs_per_s"] > 3 * small["channel_msgs_per_s"]


def test_the_pageset_share_ramps_through_the_dwp_band():
    """Backlog between the DWP's low threshold and its start: part of the gets read the page set."""
    pool = bp.BufferPool(200_000)
    low, start = 150_000, 170_000  # messages of one page each
    assert bp.backlog_pageset_fraction(pool, low, 2048) == 0.0
    assert bp.backlog_pageset_fraction(pool, (low + start) / 2, 2048) == pytest.approx(0.5)
    assert bp.backlog_pageset_fraction(pool, start, 2048) == 1.0
    shares = [
        _mover(messages=None, backlog_mb=mb)["pageset_get_fraction"] for mb in (250, 300, 320, 340, 400)
    ]
    assert shares == sorted(shares) and shares[0] == 0.0 and shares[-1] == 1.0


def test_every_mover_coefficient_is_fitted_on_more_points_and_inside_its_bounds():
    c = bp.coefficients()
    assert c["fit"]["points"] >= 2 * c["fit"]["coefficients"] - 2
    assert set(c["mover"]) == set(c["bounds"])
    for name, v in c["mover"].items():
        b = c["bounds"][name]
        assert b["low"] <= v <= b["high"] and b["unit"] and b["meaning"], name
    assert not c["fit"]["at_bounds"]


def test_fixed_pages_cost_less():
    assert _mover(pageclas="FIXED4KB")["dwp_cpu_us_per_msg"] < _mover()["dwp_cpu_us_per_msg"]
