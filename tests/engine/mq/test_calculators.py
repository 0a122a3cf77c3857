"""MQ calculators: compression thresholds, SSL renegotiation, RBA, storage."""

import pytest

from engine.errors import FieldError
from engine.perf import mq_calculators as mc


def test_compression_thresholds():
    hw = mc.compression_cost(64, 0.4, "ZLIBFAST")
    sw = mc.compression_cost(64, 0.4, "ZLIBHIGH")
    assert hw["compress_in"] == "zEDC" and sw["compress_in"] == "software"
    assert sw["compress_us"] > 10 * hw["compress_us"]
    # a 16 KB SSL segment 40% compressible is below the 16 KB inflate threshold: software
    assert mc.compression_cost(64, 0.4, "ZLIBFAST", ssl=True)["inflate_in"] == "software"
    assert mc.compression_cost(64, 0.4, "ZLIBFAST", ssl=True, infminreqsize_kb=4)["inflate_in"] == "zEDC"
    assert mc.compression_cost(2, 0.4, "ZLIBFAST")["compress_in"] == "software"  # below DEFMINREQSIZE


def test_ssl_renegotiation_falls_with_compression():
    lo, hi = mc.ssl_renegotiation_us_per_msg(64, 1024)
    clo, chi = mc.ssl_renegotiation_us_per_msg(64, 1024, compressibility=0.4)
    assert lo < hi and clo == pytest.approx(lo * 0.6)


def test_rba_and_storage():
    assert mc.years_until_rba_reset(256, 100, rba8=False) == pytest.approx(1.0)
    assert mc.years_until_rba_reset(256, 100, rba8=True) > 15
    assert mc.log_bytes_per_message(1024, True) > mc.log_bytes_per_message(1024, False)
    assert mc.channel_footprint_kb(1024) > 8 * mc.channel_footprint_kb(1)
    assert mc.connection_storage_kb(1) > mc.connection_storage_kb(None)
    with pytest.raises(FieldError, match="sharecnv"):
        mc.connection_storage_kb(3)
