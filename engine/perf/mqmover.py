"""The ``mq-mover`` engine: a putter outpacing one channel through a transmission queue.

Settings (flat, see ../shared/validation; defaults and ranges from :mod:`engine.registry`):
``messages`` (null: the putter keeps a standing backlog of ``backlog_mb`` on the queue),
``message_bytes``, ``persistent``, ``msgs_per_put_commit``, ``batchsz``, ``ssl``,
``read_ahead``, ``compmsg``, ``compressibility``, ``network_latency_ms``, ``network_mbps``,
``buffpool_buffers``, ``dwp_start_pct``, ``dwp_target_pct``, ``pageclas``, ``sharecnv`` (how the
application connects, for the storage per connection only: ``local``, ``"0"``, ``"1"`` or ``"10"``).
``channel`` (a description) and ``cpu_model`` are reported in ``ignored`` with the reason.

Predicts elapsed time, when the putter is done, peak depth, MB/s moved, the
get rates from buffers and from the page set and the CPU and elapsed cost
per message by task, with :mod:`engine.perf.mq_bufferpool`. Times include the
monitoring lead of the published charts (``timeline_offset_s`` of mq.json) so
they are read on the same axis.

It also sizes (:func:`sizing`): the backlog the putter builds when the pool holds it, the
BUFFPOOL buffers that hold that backlog (and every message, as when the channel is stopped)
below the DWP start, and the storage one connection and the channel take
(:mod:`engine.perf.mq_calculators`).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.perf import mq_bufferpool as bp
from engine.perf import mq_calculators as mc
from engine.perf.result import Prediction, StageResult
from engine.settings import SettingsReader, unused_settings

REFERENCE_CPU = "zEC12-2827"
#: ``sharecnv`` setting -> SHARECNV of :func:`engine.perf.mq_calculators.connection_storage_kb` (None: local).
SHARECNV = {"local": None, "0": 0, "1": 1, "10": 10}


#: Scenario kind whose registry paths the engine reads.
SCENARIO_KIND = "mq-mover"


def _reader(settings: dict) -> SettingsReader:
    """A reader of a mover scenario: every default and range from :mod:`engine.registry`."""
    return SettingsReader(settings, SCENARIO_KIND)


def build(settings: dict, coeffs: dict | None = None):
    """(pool, channel, putter, messages, used paths) for a mover scenario.

    Defaults and ranges of every setting come from :mod:`engine.registry`.

    Raises
    ------
    FieldError
        A setting is missing a valid value (the message names it and what is allowed).
    """
    c = coeffs or bp.coefficients()
    r = _reader(settings)
    messages = r.optional_integer("messages")
    size = r.integer("message_bytes")
    low, high = r.value("dwp_target_pct")
    pool = bp.BufferPool(
        buffers=r.integer("buffpool_buffers"),
        dwp_start_pct=r.integer("dwp_start_pct"),
        dwp_target_pct=(float(low), float(high)),
        sync_write_pct=c["assumed"]["sync_write_pct"],
        pageclas=r.choice("pageclas"),
    )
    channel = bp.Channel(
        ssl=r.flag("ssl"),  # the free-text ``channel`` description never selects physics
        batchsz=r.integer("batchsz"),
        network_latency_ms=r.number("network_latency_ms"),
        network_mbps=r.number("network_mbps"),
        read_ahead=r.flag("read_ahead"),
        compmsg=r.choice("compmsg"),
        compressibility=r.number("compressibility"),
        coeffs=c,
    )
    putter = bp.Putter(size, r.integer("msgs_per_put_commit"), r.flag("persistent"), coeffs=c)
    r.choice("sharecnv")  # read by sizing (the connection's storage)
    r.number("backlog_mb")  # read by backlog_msgs (the standing backlog when messages is null)
    return pool, channel, putter, messages, r.used


def backlog_msgs(settings: dict) -> float:
    """Messages of the standing backlog ``backlog_mb`` (used when ``messages`` is null)."""
    r = _reader(settings)
    return r.number("backlog_mb") * 2**20 / r.integer("message_bytes")


def inert_settings(settings: dict, channel, result) -> dict:
    """Settings path -> why it cannot change this mover's results (reported in ``ignored``)."""
    out = {
        "channel": "a label: the engine never reads physics from free text (SSL sets TLS)",
        "cpu_model": f"the MQ costs are seed 003's {REFERENCE_CPU} measurements, not scaled to other processors",
    }
    if channel.compmsg == "NONE":
        out["compressibility"] = "COMPMSG NONE: nothing is compressed"
    if settings.get("messages") is not None:
        out["backlog_mb"] = "Messages is set: the run puts that many messages, it keeps no standing backlog"
    if channel.network_latency_ms <= 0.0:
        out["batchsz"] = (
            "with no network latency a batch's confirm flow adds nothing beyond the channel's own "
            "time per message"
        )
    return out


@dataclass(frozen=True)
class Sizing:
    """The buffer pool and storage a mover scenario needs.

    Attributes
    ----------
    buffers : int
        4 KB buffers of the pool now (BUFFPOOL).
    dwp_start_depth_msgs : float
        Messages the pool holds before the deferred write processor starts casting out.
    messages : float or None
        Messages the putter puts (None: a backlog deeper than the pool).
    backlog_msgs : float or None
        Deepest the queue gets when the pool holds every message: what the putter puts beyond
        what the channel gets from buffers meanwhile (0 when the channel keeps up).
    buffers_to_hold_backlog, buffers_to_hold_all_msgs : int or None
        4 KB buffers that hold ``backlog_msgs``, and every message (the channel stopped), below the
        DWP start (:func:`engine.perf.mq_bufferpool.buffers_to_hold`).
    storage_per_connection_kb, csa_per_connection_kb : float
        Queue manager storage below the bar and CSA one connection of the application takes, KB.
    channel_storage_kb : float
        Channel initiator storage the channel holds for messages of this size, KB.
    """

    buffers: int
    dwp_start_depth_msgs: float
    messages: float | None
    backlog_msgs: float | None
    buffers_to_hold_backlog: int | None
    buffers_to_hold_all_msgs: int | None
    storage_per_connection_kb: float
    csa_per_connection_kb: float
    channel_storage_kb: float


def _sharecnv(settings: dict):
    return SHARECNV[_reader(settings).choice("sharecnv")]


def _built(settings: dict, coeffs: dict | None):
    """(coefficients, pool, channel, putter, messages) of a mover scenario.

    The coefficients are ``coeffs``, or the calibrated ones (:func:`engine.perf.mq_bufferpool.coefficients`)
    when None; the rest is :func:`build` with them.

    Raises
    ------
    FieldError
        A setting is out of range.
    """
    c = coeffs or bp.coefficients()
    pool, channel, putter, messages, _used = build(settings, c)
    return c, pool, channel, putter, messages


def sizing(settings: dict, coeffs: dict | None = None) -> Sizing:
    """The buffer pool and storage sizing of a mover scenario; see :class:`Sizing`.

    Raises
    ------
    FieldError
        A setting is out of range.
    """
    c, pool, channel, putter, messages = _built(settings, coeffs)
    size = putter.message_bytes
    share = _sharecnv(settings)
    backlog = hold_backlog = hold_all = None
    if messages is not None:
        kept_up = channel.get_rate_msgs_per_s(size, False) / putter.rate_msgs_per_s()
        backlog = messages * max(0.0, 1.0 - kept_up)
        hold_backlog = bp.buffers_to_hold(backlog, size, pool.dwp_start_pct, c)
        hold_all = bp.buffers_to_hold(messages, size, pool.dwp_start_pct, c)
    return Sizing(
        buffers=int(pool.buffers),
        dwp_start_depth_msgs=pool.messages_before_dwp(size, c),
        messages=messages,
        backlog_msgs=backlog,
        buffers_to_hold_backlog=hold_backlog,
        buffers_to_hold_all_msgs=hold_all,
        storage_per_connection_kb=mc.connection_storage_kb(share),
        csa_per_connection_kb=mc.csa_per_connection_kb(share),
        channel_storage_kb=mc.channel_footprint_kb(size / 1024.0),
    )


def evaluate(settings: dict, coeffs: dict | None = None):
    """(metrics, pool, channel, putter, result, messages) of a mover scenario with ``coeffs``.

    The calibration (:mod:`engine.calibrate.misc.mq`) fits the coefficients through this function.

    Raises
    ------
    FieldError
        A setting is out of range.
    """
    c, pool, channel, putter, messages = _built(settings, coeffs)
    r = bp.move(pool, channel, putter, messages, backlog_msgs(settings))
    m = dict(bp.task_costs(pool, channel, putter, r))
    m["get_rate_from_bufferpool_msgs_per_s"] = r.get_rate_bufferpool
    m["get_rate_from_pageset_msgs_per_s"] = r.get_rate_pageset
    m["capacity_msgs"] = pool.capacity_messages(putter.message_bytes, c)
    m["pages_per_msg"] = float(bp.pages_per_message(putter.message_bytes, c))
    m["pageset_get_fraction"] = r.pageset_fraction
    if r.elapsed_s is not None:
        off = c["timeline_offset_s"]
        m["elapsed_s"] = r.elapsed_s + off
        m["putter_done_s"] = r.putter_done_s + off
        m["peak_depth"] = r.peak_depth
        m["transfer_mb_per_s"] = messages * putter.message_bytes / 2**20 / m["elapsed_s"]
    else:
        f = r.pageset_fraction
        rate = 1.0 / (f / r.get_rate_pageset + (1.0 - f) / r.get_rate_bufferpool)
        m["backlog_depth_msgs"] = r.peak_depth
        m["channel_msgs_per_s"] = rate
        m["transfer_mb_per_s"] = rate * putter.message_bytes / 2**20
    return m, pool, channel, putter, r, messages


#: Unit of each metric of the MQ mover (a ``..._us_per_msg`` cost is in us; see :func:`metric_unit`).
UNITS = {
    "elapsed_s": "s",
    "putter_done_s": "s",
    "peak_depth": "messages",
    "transfer_mb_per_s": "MiB/s",
    "backlog_depth_msgs": "messages",
    "channel_msgs_per_s": "msgs/s",
    "get_rate_from_bufferpool_msgs_per_s": "msgs/s",
    "get_rate_from_pageset_msgs_per_s": "msgs/s",
    "capacity_msgs": "messages",
    "pages_per_msg": "4 KB pages",
    "pageset_get_fraction": "share of gets",
    "buffpool_buffers": "4 KB buffers",
    "dwp_start_depth_msgs": "messages",
    "backlog_msgs": "messages",
    "buffers_to_hold_backlog": "4 KB buffers",
    "buffers_to_hold_all_msgs": "4 KB buffers",
    "storage_per_connection_kb": "KB",
    "csa_per_connection_kb": "KB",
    "channel_storage_kb": "KB",
}


def metric_unit(metric: str) -> str:
    """Unit of an MQ mover metric: :data:`UNITS`, ``us`` for a per-message cost, else none."""
    return UNITS.get(metric, "us" if metric.endswith("_us_per_msg") else "")


def predict(settings: dict) -> Prediction:
    """Predict an ``mq-mover`` scenario; see the module docstring.

    Raises
    ------
    FieldError
        A setting is out of range.
    """
    c = bp.coefficients()
    m, pool, channel, putter, r, messages = evaluate(settings, c)
    used = build(settings, c)[4]
    z = sizing(settings, c)
    m["buffpool_buffers"] = float(z.buffers)
    m["dwp_start_depth_msgs"] = z.dwp_start_depth_msgs
    if z.backlog_msgs is not None:
        m["backlog_msgs"] = z.backlog_msgs
        m["buffers_to_hold_backlog"] = float(z.buffers_to_hold_backlog)
        m["buffers_to_hold_all_msgs"] = float(z.buffers_to_hold_all_msgs)
    m["storage_per_connection_kb"] = z.storage_per_connection_kb
    m["csa_per_connection_kb"] = z.csa_per_connection_kb
    m["channel_storage_kb"] = z.channel_storage_kb
    units = {k: metric_unit(k) for k in m}
    put_rate = putter.rate_msgs_per_s()
    drain_rate = r.get_rate_pageset if r.dwp_started else r.get_rate_bufferpool
    stages = (
        StageResult("putter", put_rate, 1.0, "msgs/s", putter.wall_us() / 1000.0),
        StageResult(
            "mq_pageset",
            r.get_rate_pageset,
            1.0 if r.dwp_started else 0.0,
            "msgs/s",
            channel.pageset_read_us(putter.message_bytes) / 1000.0,
        ),
        StageResult(
            "mq_channel",
            r.get_rate_bufferpool,
            min(1.0, put_rate / r.get_rate_bufferpool),
            "msgs/s",
            channel.get_send_us(putter.message_bytes, False) / 1000.0,
        ),
    )
    bottleneck = "mq_pageset" if r.dwp_started else ("mq_channel" if put_rate > drain_rate else None)
    reasons = {p: "not used by the MQ mover engine" for p in unused_settings(settings, used)}
    reasons.update({p: why for p, why in inert_settings(settings, channel, r).items() if p in settings})
    return Prediction.explained(
        "mq-mover",
        m,
        reasons,
        units=units,
        stages=stages,
        bottleneck=bottleneck,
        coefficients_version=c.get("version", ""),
    )
