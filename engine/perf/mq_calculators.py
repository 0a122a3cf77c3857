"""MQ for z/OS storage and cost calculators (coefficients in ``mq.json`` ``calculators``).

* :func:`connection_storage_kb` - queue manager storage below the bar per connection.
* :func:`csa_per_connection_kb` - common service area (CSA) storage per connection.
* :func:`channel_footprint_kb` - channel initiator storage one channel holds, by message size.
* :func:`ssl_renegotiation_us_per_msg` - secret key renegotiation CPU per message (band).
* :func:`compression_cost` - dispatcher CPU for ZLIBFAST (zEDC hardware over DEFMINREQSIZE,
  software below) or ZLIBHIGH (software), and where inflation runs (INFMINREQSIZE).
* :func:`log_bytes_per_message`, :func:`years_until_rba_reset` - 6 vs 8 byte log RBA.
"""

from __future__ import annotations

import math

from engine.errors import FieldError
from engine.perf.coeffload import load


def coefficients() -> dict:
    """The fitted ``mq.json`` document (its ``calculators`` section serves this module)."""
    return load("mq")


def _k() -> dict:
    return coefficients()["calculators"]


def _pos(name, v, zero_ok=False):
    if (
        isinstance(v, bool)
        or not isinstance(v, (int, float))
        or not math.isfinite(v)
        or v < 0
        or (v == 0 and not zero_ok)
    ):
        raise FieldError(name, v, "a number " + (">= 0" if zero_ok else "> 0"))
    return float(v)


def connection_storage_kb(sharecnv: int | None = None, shared_queue: bool = False) -> float:
    """Below-the-bar KB per connection: local (None/0), SHARECNV(1), or per conversation at SHARECNV(10)."""
    k = _k()["connection_storage_kb"]
    base = {None: k["local"], 0: k["local"], 1: k["sharecnv1"], 10: k["sharecnv10_per_conversation"]}
    if sharecnv not in base:
        raise FieldError("sharecnv", sharecnv, "null, 0, 1 or 10")
    return base[sharecnv] + (k["shared_queue_extra"] if shared_queue else 0.0)


def csa_per_connection_kb(sharecnv: int | None = None) -> float:
    """CSA KB per connection: local connections, MCA channels and SVRCONN SHARECNV(0) (None/0), or
    SVRCONN channels with SHARECNV(1), (5) or (10) (per connection, the clients sharing the channel instance)."""
    k = _k()["csa_kb_per_connection"]
    base = {None: k["local"], 0: k["local"], 1: k["sharecnv1"], 5: k["sharecnv5"], 10: k["sharecnv10"]}
    if sharecnv not in base:
        raise FieldError("sharecnv", sharecnv, "null, 0, 1, 5 or 10")
    return base[sharecnv]


def channel_footprint_kb(message_kb: float) -> float:
    """KB of channel initiator storage one channel holds for messages of ``message_kb``."""
    m = _pos("message_kb", message_kb)
    k = _k()["channel_footprint_kb"]
    return k["fixed"] + k["per_msg_kb_to_64"] * min(m, 64.0) + k["per_msg_kb_above_64"] * max(m - 64.0, 0.0)


def ssl_renegotiation_us_per_msg(
    message_kb: float, reneg_kb: float = 1024.0, compressibility: float = 0.0
) -> tuple[float, float]:
    """(low, high) CPU us per message for secret key renegotiation every ``reneg_kb`` of data.

    Compression before encryption shrinks the data, so more messages flow per renegotiation.
    """
    m = _pos("message_kb", message_kb)
    r = _pos("reneg_kb", reneg_kb)
    if not 0 <= compressibility < 1:
        raise FieldError("compressibility", compressibility, "a fraction from 0 to below 1")
    msgs = r / (m * (1.0 - compressibility))
    lo, hi = _k()["ssl"]["negotiation_us"]
    return lo / msgs, hi / msgs


def compression_cost(
    message_kb: float,
    compressibility: float,
    method: str = "ZLIBFAST",
    ssl: bool = False,
    infminreqsize_kb: float | None = None,
) -> dict:
    """Extra dispatcher CPU (us per message) to compress and to inflate, and where each runs."""
    m = _pos("message_kb", message_kb)
    if method not in ("NONE", "ZLIBFAST", "ZLIBHIGH"):
        raise FieldError("compmsg", method, "one of 'NONE', 'ZLIBFAST', 'ZLIBHIGH'")
    if not 0 <= compressibility < 1:
        raise FieldError("compressibility", compressibility, "a fraction from 0 to below 1")
    k = _k()["compression"]
    seg = _k()["ssl"]["segment_kb"] if ssl else 32.0
    seg = min(seg, m)
    inf_min = k["infminreqsize_kb"] if infminreqsize_kb is None else infminreqsize_kb
    if method == "NONE":
        return {"compress_us": 0.0, "inflate_us": 0.0, "compress_in": "none", "inflate_in": "none"}
    hw_compress = method == "ZLIBFAST" and seg >= k["defminreqsize_kb"]
    compress_us = m * (k["zlibfast_hw_us_per_kb"] if hw_compress else k["software_us_per_kb"])
    compressed_seg = seg * (1.0 - compressibility)
    hw_inflate = compressibility > 0 and compressed_seg >= inf_min
    inflate_us = (
        0.0
        if compressibility == 0
        else (0.0 if hw_inflate else m * (1.0 - compressibility) * k["software_inflate_us_per_kb"])
    )
    return {
        "compress_us": compress_us,
        "inflate_us": inflate_us,
        "compress_in": "zEDC" if hw_compress else "software",
        "inflate_in": "none" if compressibility == 0 else ("zEDC" if hw_inflate else "software"),
    }


def log_bytes_per_message(message_bytes: float, rba8: bool = True) -> float:
    """Log bytes written per persistent message, with the 8-byte RBA's extra bytes when ``rba8``."""
    k = _k()["log"]
    b = _pos("message_bytes", message_bytes)
    return b + k["bytes_per_message"] + (k["rba8_extra_bytes_per_message"] if rba8 else 0.0)


def years_until_rba_reset(tb_per_year: float, growth_pct_per_year: float, rba8: bool = True) -> float:
    """Years until the log RBA range is used up at ``tb_per_year`` growing ``growth_pct_per_year``."""
    v = _pos("tb_per_year", tb_per_year) * 2**40
    g = _pos("growth_pct_per_year", growth_pct_per_year, zero_ok=True) / 100.0
    limit = _k()["log"]["rba8_bytes" if rba8 else "rba6_bytes"]
    if g == 0:
        return limit / v
    # sum_{t<T} v (1+g)^t = limit  ->  T = log(1 + limit g / v) / log(1+g); log1p keeps a growth of
    # 1e-16 a year (where 1 + g rounds to 1) from dividing by zero, and tends to limit / v as g -> 0
    return math.log1p(limit * g / v) / math.log1p(g)
