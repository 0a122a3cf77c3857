"""MQ mover: SSL channels (16 KB segments plus the SSL task's CPU) and strict flag settings."""

import copy

import pytest

from engine.errors import FieldError
from engine.perf import mq_bufferpool as bp
from engine.perf import mqmover


def _mover(calibration):
    s = copy.deepcopy(next(x for x in calibration["scenarios"] if x["id"] == "mq-xmitq-200k-buffers"))
    s.pop("measured")
    return s


def test_ssl_adds_segments_and_ssl_task_cpu(calibration):
    s = _mover(calibration)
    plain = mqmover.predict(s).metrics
    s["ssl"] = True
    ssl = mqmover.predict(s).metrics
    k = bp.coefficients()
    kb = (s["message_bytes"] + k["header_bytes"]) / 1024.0
    assert ssl["ssl_cpu_us_per_msg"] == pytest.approx(k["calculators"]["ssl"]["ssl_task_us_per_kb"] * kb)
    parts = (
        "putter_cpu_us_per_msg",
        "dwp_cpu_us_per_msg",
        "adaptor_cpu_us_per_msg",
        "dispatcher_cpu_us_per_msg",
        "ssl_cpu_us_per_msg",
    )
    assert ssl["total_cpu_us_per_msg"] == pytest.approx(sum(ssl[p] for p in parts))
    assert ssl["total_cpu_us_per_msg"] > plain["total_cpu_us_per_msg"] + 0.9 * ssl["ssl_cpu_us_per_msg"]
    assert ssl["get_rate_from_bufferpool_msgs_per_s"] < plain["get_rate_from_bufferpool_msgs_per_s"]
    assert ssl["elapsed_s"] > plain["elapsed_s"]
    # 64 KB + header: 4 segments of 16 KB + 1 with SSL, 2 + 1 segments of 32 KB without
    assert bp.Channel(ssl=True).segments(65536) == 5
    assert bp.Channel(ssl=False).segments(65536) == 3


@pytest.mark.parametrize("key, value", [("ssl", "yes"), ("read_ahead", "no"), ("persistent", 1)])
def test_flags_must_be_booleans(calibration, key, value):
    s = _mover(calibration)
    s[key] = value
    with pytest.raises(FieldError, match=key):
        mqmover.predict(s)


def test_compression_costs_sender_cpu_and_saves_wire_bytes(calibration):
    from engine.perf import mq_calculators as mc

    s = _mover(calibration)
    s.update(message_bytes=65536, messages=50_000, network_mbps=100.0)  # a slow link: wire time dominates
    plain = mqmover.predict(s)
    s.update(compmsg="ZLIBFAST", compressibility=0.5)
    comp = mqmover.predict(s)
    expected = mc.compression_cost(64.0, 0.5, "ZLIBFAST", False)
    assert comp.metrics["compress_cpu_us_per_msg"] == pytest.approx(expected["compress_us"])
    assert comp.metrics["receiver_inflate_cpu_us_per_msg"] == pytest.approx(expected["inflate_us"])
    assert comp.metrics["total_cpu_us_per_msg"] > plain.metrics["total_cpu_us_per_msg"]
    # half the bytes on a 100 Mb/s link: the channel moves messages faster
    assert (
        comp.metrics["get_rate_from_bufferpool_msgs_per_s"]
        > 1.5 * plain.metrics["get_rate_from_bufferpool_msgs_per_s"]
    )
    assert "compmsg" not in comp.ignored and "compressibility" not in comp.ignored
    s["compmsg"] = "LZ4"
    with pytest.raises(FieldError, match="compmsg"):
        mqmover.predict(s)
