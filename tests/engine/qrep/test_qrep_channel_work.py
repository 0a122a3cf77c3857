"""Channel compression (COMPMSG) and TLS on the Q Replication channel (engine.perf.qrep.channel)."""

from __future__ import annotations

import pytest
from qrep_test_helpers import with_setting

from engine.perf.mqtransport import coefficients
from engine.perf.qrep import predict, solve_settings
from engine.perf.qrep.channel import NO_EXTRA_WORK, channel_work
from engine.perf.qrep.coefficients import load
from engine.perf.qrep.inputs import read_inputs


def _channel(p):
    return {s.name: s for s in p.stages}["mq_channel"]


def test_no_compression_and_no_tls_add_nothing(baseline):
    inp, _ = read_inputs(baseline)
    assert channel_work(inp, 6000.0, load()) is NO_EXTRA_WORK


def test_compression_helps_a_thin_network_and_zlibhigh_costs_more_than_zlibfast(baseline):
    thin = with_setting(baseline, "hardware.network_mbps", 100.0)
    plain = predict(thin)
    assert plain.bottleneck == "mq_channel"
    fast = predict(with_setting(thin, "mq.compmsg", "ZLIBFAST"))
    high = predict(with_setting(thin, "mq.compmsg", "ZLIBHIGH"))
    assert fast.metrics["apply_rows_per_s"] > 1.3 * plain.metrics["apply_rows_per_s"]
    assert _channel(high).service_ms > _channel(fast).service_ms
    # bytes on the wire shrink with compressibility: more compressible data, faster thin channel
    more = predict(with_setting(with_setting(thin, "mq.compmsg", "ZLIBFAST"), "mq.compressibility", 0.8))
    assert _channel(more).capacity > _channel(fast).capacity
    # the published message size is the uncompressed MQ message
    assert fast.metrics["msg_size_kb"] == pytest.approx(plain.metrics["msg_size_kb"])


def test_tls_costs_channel_time_and_cpu_on_both_sides(baseline):
    offered = with_setting(baseline, "workload.offered_rows_per_s", 20_000)  # same rate: same queueing
    plain = solve_settings(offered)
    tls = solve_settings(with_setting(offered, "mq.ssl", True))
    assert tls.demands.channel_send_us > tls.demands.channel_receive_us > 0.0  # renegotiation on the sender
    assert tls.demands.capture_mq_other_msg_us > plain.demands.capture_mq_other_msg_us
    assert tls.demands.apply_mq_other_msg_us > plain.demands.apply_mq_other_msg_us
    assert {s.name: s for s in tls.stages}["mq_channel"].service_ms > {s.name: s for s in plain.stages}[
        "mq_channel"
    ].service_ms
    assert tls.qlatency_ms > plain.qlatency_ms


def test_tls_sends_16_kb_segments(baseline):
    big = with_setting(baseline, "qcapture.trans_batch_sz", 20)  # ~38 KB messages
    assert solve_settings(big).geometry.segments_per_msg == 2
    assert solve_settings(with_setting(big, "mq.ssl", True)).geometry.segments_per_msg == 3


def test_compressibility_is_ignored_without_compression_and_channel_settings_in_a_drain(baseline):
    s = with_setting(with_setting(baseline, "mq.compressibility", 0.3), "mq.ssl", False)
    assert "mq.compressibility" in predict(s).ignored
    assert "mq.compressibility" not in predict(with_setting(s, "mq.compmsg", "ZLIBFAST")).ignored
    drain = with_setting(with_setting(s, "run.mode", "drain"), "run.initial_receive_queue_depth", 100000)
    drain = with_setting(drain, "mq.compmsg", "ZLIBFAST")
    assert {"mq.compmsg", "mq.ssl", "mq.compressibility"} <= set(predict(drain).ignored)


def test_bad_compmsg_names_the_field(baseline):
    from engine.errors import ValueRangeError

    with pytest.raises(ValueRangeError, match="mq.compmsg"):
        predict(with_setting(baseline, "mq.compmsg", "GZIP"))


def test_a_long_haul_channel_carries_at_most_its_tcp_window_per_round_trip(baseline):
    near = predict(baseline)
    far = predict(with_setting(baseline, "hardware.network_latency_ms", 25.0))  # a 50 ms round trip
    k = coefficients()
    wire_bytes = far.metrics["channel_mb_per_s"] * 1e6 / far.metrics["channel_msgs_per_s"] + k["header_bytes"]
    assert _channel(far).capacity_msgs_per_s == pytest.approx(
        k["tcp_window_bytes"] / 0.05 / wire_bytes, rel=0.02
    )
    assert far.metrics["channel_msgs_per_s"] < 0.5 * near.metrics["channel_msgs_per_s"]
    assert _channel(near).capacity_msgs_per_s > 2 * _channel(far).capacity_msgs_per_s
