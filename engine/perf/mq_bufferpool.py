"""The MQ for z/OS buffer pool, page set and channel get-send: one implementation for every engine.

Used by the mover engine (:mod:`engine.perf.mqmover`) and meant to be imported by
the Q Replication engine and the time-domain simulator. All costs come from
``assets/coefficients/mq.json`` (:func:`coefficients`).

Buffer pool
    ``buffers`` 4 KB buffers. A short message takes one buffer (MAXSHORTMSGS
    behaviour), a long one ``ceil((bytes + header) / 4096)`` pages. The deferred
    write processor (DWP) starts casting out when ``dwp_start_pct`` (85%) of the
    buffers are in use and holds usage in the ``dwp_target_pct`` band (75-85%);
    above ``sync_write_pct`` the putting task writes pages synchronously. A page
    cast out and stolen must be read back from the page set by the getter. A run
    that keeps a standing backlog (``messages`` null) reads back the share of its
    gets :func:`backlog_pageset_fraction` gives: none while the pool holds the
    backlog below the DWP band, all once the backlog is deeper than the DWP start.

Costs
    Few shared coefficients (``mq.json`` ``mover``, each with unit, meaning and
    bounds under ``bounds``): MQPUT and MQGET fixed CPU, one copy CPU per KB for
    both, one page-set I/O CPU per 4 KB page for the DWP's writes and the getter's
    reads, the page-set read wait per I/O and per page, the dispatcher's CPU per
    request and per KB sent, the put's wait per buffer page, the channel's own
    time per message and the putting application's loop
    (:mod:`engine.calibrate.misc.mq` fits them all at once).

Channel get-send
    The adaptor task gets the message (from buffers, or waiting for a page-set
    read, shortened by read-ahead), the dispatcher sends it in segments of up to
    32 KB (16 KB with SSL): ``segments = wire_bytes // segment + 1`` and one
    dispatcher request per segment plus one per message. With COMPMSG the
    dispatcher also compresses (its CPU counted with the dispatcher) and fewer
    bytes cross the network and the SSL task.

Typical use::

    bp = BufferPool(buffers=200_000)
    ch = Channel()
    bp.capacity_messages(2048)           # 200000
    ch.get_rate_msgs_per_s(2048, from_pageset=True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from engine.errors import FieldError, require_nonnegative
from engine.perf.mq_calculators import coefficients, compression_cost
from engine.settings import registry_defaults

#: The registry's product defaults of the mover's knobs (the defaults of the classes below).
_DEFAULT = registry_defaults("mq-mover")
DWP_START_PCT = float(_DEFAULT.integer("dwp_start_pct"))

BUFFER_BYTES = 4096
PAGECLAS = ("4KB", "FIXED4KB")


def _c(coeffs: dict | None) -> dict:
    return coeffs if coeffs is not None else coefficients()


def pages_per_message(message_bytes: int, coeffs: dict | None = None) -> int:
    """4 KB buffers one message occupies (header included; at least one).

    Raises
    ------
    FieldError
        ``message_bytes`` is not a positive number.
    """
    if isinstance(message_bytes, bool) or not isinstance(message_bytes, (int, float)) or message_bytes <= 0:
        raise FieldError("message_bytes", message_bytes, "a number of bytes > 0")
    wire = message_bytes + _c(coeffs)["header_bytes"]
    return max(1, math.ceil(wire / BUFFER_BYTES))


def pageset_read_wait_us(pages: float, coeffs: dict | None = None) -> float:
    """Wait (us) of reading ``pages`` 4 KB pages of one message back from a page set on DS8000-class
    disk: one synchronous read I/O and the transfer of each page (``mq.json`` ``mover``, fitted by
    :mod:`engine.calibrate.misc.mq` on every published page-set point of seed 003)."""
    k = _c(coeffs)["mover"]
    return k["pageset_read_wait_us"] + k["pageset_read_wait_us_per_page"] * pages


def buffers_to_hold(
    messages: float, message_bytes: int, dwp_start_pct: float = DWP_START_PCT, coeffs: dict | None = None
) -> int:
    """4 KB buffers a pool needs to hold ``messages`` messages below the DWP start threshold.

    Below ``dwp_start_pct`` nothing is cast out to the page set, so every get is from the pool:
    ``ceil(messages * pages_per_message / (dwp_start_pct / 100))``.

    Raises
    ------
    FieldError
        ``messages`` is not a number >= 0, ``message_bytes`` not > 0 or ``dwp_start_pct`` not in (0, 100].
    """
    require_nonnegative("messages", messages, "a number of messages >= 0")
    return buffers_below_dwp(messages * pages_per_message(message_bytes, coeffs), dwp_start_pct)


def buffers_below_dwp(pages: float, dwp_start_pct: float = DWP_START_PCT) -> int:
    """4 KB buffers a pool needs to hold ``pages`` pages of messages below the DWP start threshold.

    Raises
    ------
    FieldError
        ``pages`` is not a number >= 0 or ``dwp_start_pct`` not in (0, 100].
    """
    require_nonnegative("pages", pages, "a number of pages >= 0")
    if (
        isinstance(dwp_start_pct, bool)
        or not isinstance(dwp_start_pct, (int, float))
        or not 0 < dwp_start_pct <= 100
    ):
        raise FieldError("dwp_start_pct", dwp_start_pct, "a percentage above 0 and at most 100")
    return math.ceil(round(pages * 100.0 / dwp_start_pct, 6))


def buffers_mb(buffers: float) -> float:
    """MB (2**20 bytes) that ``buffers`` 4 KB buffers take."""
    return buffers * BUFFER_BYTES / 2**20


@dataclass(frozen=True)
class BufferPool:
    """An MQ buffer pool and its thresholds.

    Parameters
    ----------
    buffers : int
        4 KB buffers in the pool (BUFFPOOL pages).
    dwp_start_pct : float
        Usage (%) at which the deferred write processor starts (the registry default: :data:`DWP_START_PCT`).
    dwp_target_pct : tuple[float, float]
        Band (%) the DWP holds usage in once started.
    sync_write_pct : float
        Usage (%) above which puts write pages synchronously.
    pageclas : str
        ``4KB`` (page-fixed per I/O) or ``FIXED4KB`` (fixed for life).
    """

    buffers: int
    dwp_start_pct: float = DWP_START_PCT
    dwp_target_pct: tuple = tuple(float(p) for p in _DEFAULT.value("dwp_target_pct"))
    sync_write_pct: float = 95.0
    pageclas: str = _DEFAULT.choice("pageclas")

    def __post_init__(self):
        if isinstance(self.buffers, bool) or not isinstance(self.buffers, (int, float)) or self.buffers < 1:
            raise FieldError("buffpool_buffers", self.buffers, "an integer >= 1 buffer")
        lo, hi = self.dwp_target_pct
        if not (0 < lo <= hi <= self.dwp_start_pct <= self.sync_write_pct <= 100):
            raise FieldError(
                "dwp_target_pct",
                list(self.dwp_target_pct),
                "0 < low <= high <= dwp_start_pct <= sync_write_pct <= 100",
            )
        if self.pageclas not in PAGECLAS:
            raise FieldError("pageclas", self.pageclas, "one of '4KB', 'FIXED4KB'")

    def capacity_messages(self, message_bytes: int, coeffs: dict | None = None) -> float:
        """Messages of ``message_bytes`` the pool holds when full."""
        return self.buffers / pages_per_message(message_bytes, coeffs)

    def messages_before_dwp(self, message_bytes: int, coeffs: dict | None = None) -> float:
        """Messages of ``message_bytes`` the pool holds before the DWP starts casting out."""
        return self.dwp_start_buffers / pages_per_message(message_bytes, coeffs)

    @property
    def dwp_start_buffers(self) -> float:
        """Buffers in use when the DWP starts casting out."""
        return self.buffers * self.dwp_start_pct / 100.0

    @property
    def dwp_hold_buffers(self) -> float:
        """Buffers the DWP keeps in use once started (middle of its band)."""
        lo, hi = self.dwp_target_pct
        return self.buffers * (lo + hi) / 200.0

    def state(self, used_buffers: float, dwp_running: bool = False) -> str:
        """``normal``, ``dwp`` (casting out) or ``sync_write`` for a usage level.

        The DWP starts at ``dwp_start_pct`` and, once running, keeps writing until
        usage falls to the low end of its band (hysteresis).
        """
        pct = 100.0 * used_buffers / self.buffers
        if pct >= self.sync_write_pct:
            return "sync_write"
        if pct >= self.dwp_start_pct or (dwp_running and pct > self.dwp_target_pct[0]):
            return "dwp"
        return "normal"


@dataclass(frozen=True)
class Channel:
    """A sender channel's get-send path (adaptor + dispatcher).

    Parameters
    ----------
    ssl : bool
        TLS on the channel (16 KB segments instead of 32 KB).
    batchsz : int
        Messages per channel batch.
    network_latency_ms : float
        One-way network delay, paid twice per batch (the confirm flow).
    network_mbps : float
        Link bandwidth in Mb/s.
    read_ahead : bool
        Queue manager read-ahead of page-set pages for deep queues.
    compmsg : str
        COMPMSG: ``NONE``, ``ZLIBFAST`` (zEDC hardware when segments are big enough) or ``ZLIBHIGH``.
    compressibility : float
        Share of the message bytes compression removes (0 to below 1); fewer bytes on the wire
        and to encrypt, the compression CPU on the sender (:func:`engine.perf.mq_calculators.compression_cost`).
    coeffs : dict, optional
        ``mq.json`` document (defaults to the stored one).
    """

    ssl: bool = _DEFAULT.flag("ssl")
    batchsz: int = _DEFAULT.integer("batchsz")
    network_latency_ms: float = _DEFAULT.number("network_latency_ms")
    network_mbps: float = _DEFAULT.number("network_mbps")
    read_ahead: bool = _DEFAULT.flag("read_ahead")
    compmsg: str = _DEFAULT.choice("compmsg")
    compressibility: float = _DEFAULT.number("compressibility")
    coeffs: dict | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if self.compmsg not in ("NONE", "ZLIBFAST", "ZLIBHIGH"):
            raise FieldError("compmsg", self.compmsg, "one of 'NONE', 'ZLIBFAST', 'ZLIBHIGH'")
        c = self.compressibility
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0 <= c < 1:
            raise FieldError("compressibility", c, "a fraction from 0 to below 1")

    @property
    def c(self) -> dict:
        return _c(self.coeffs)

    def _sent_fraction(self) -> float:
        return 1.0 - (self.compressibility if self.compmsg != "NONE" else 0.0)

    def compression(self, message_bytes: int) -> dict:
        """Compression (sender) and inflation (receiver) CPU per message, us, and where each runs."""
        return compression_cost(message_bytes / 1024.0, self.compressibility, self.compmsg, self.ssl)

    def segment_bytes(self) -> int:
        """Largest segment the dispatcher sends (32 KB, or 16 KB with SSL)."""
        return 16384 if self.ssl else 32768

    def segments(self, message_bytes: int) -> int:
        """Segments of one message: ``wire_bytes // segment + 1``."""
        wire = message_bytes + self.c["header_bytes"]
        return int(wire // self.segment_bytes()) + 1

    def dispatcher_requests(self, message_bytes: int) -> int:
        """Dispatcher requests per message: one per segment plus one."""
        return self.segments(message_bytes) + 1

    def wire_kb(self, message_bytes: int) -> float:
        """KB one message puts on the wire: what compression leaves of the data, plus MQ's headers."""
        return (message_bytes * self._sent_fraction() + self.c["header_bytes"]) / 1024.0

    def adaptor_cpu_us(self, message_bytes: int, from_pageset: bool = False) -> float:
        """Adaptor (MQGET) CPU per message, microseconds.

        The fixed MQGET cost, the copy of the message with its headers out of the buffers and,
        when the message was cast out, the page-set I/O CPU of every page read back.
        """
        k = self.c["mover"]
        kb = (message_bytes + self.c["header_bytes"]) / 1024.0
        cpu = k["mqget_cpu_us"] + k["copy_cpu_us_per_kb"] * kb
        if from_pageset:
            cpu += k["page_io_cpu_us"] * pages_per_message(message_bytes, self.c)
        return cpu

    def pageset_read_us(self, message_bytes: int) -> float:
        """Wait for reading one message back from the page set, microseconds (read-ahead divides it).

        One synchronous read I/O plus the transfer of each of its 4 KB pages (:func:`pageset_read_wait_us`).
        """
        wait = pageset_read_wait_us(pages_per_message(message_bytes, self.c), self.c)
        return wait / (self.c["assumed"]["read_ahead_factor"] if self.read_ahead else 1.0)

    def dispatcher_cpu_us(self, message_bytes: int) -> float:
        """Dispatcher CPU per message (requests and bytes sent), microseconds; with SSL more, smaller segments."""
        k = self.c["mover"]
        return k["dispatcher_request_cpu_us"] * self.dispatcher_requests(message_bytes) + k[
            "send_cpu_us_per_kb"
        ] * self.wire_kb(message_bytes)

    def ssl_cpu_us(self, message_bytes: int) -> float:
        """SSL task CPU per message (encryption per KB, seed 003's SSL cost table), microseconds; 0 without SSL."""
        if not self.ssl:
            return 0.0
        return self.c["calculators"]["ssl"]["ssl_task_us_per_kb"] * self.wire_kb(message_bytes)

    def adaptor_elapsed_us(self, message_bytes: int, from_pageset: bool) -> float:
        """Adaptor elapsed per message: CPU plus the page-set wait when the message was cast out."""
        cpu = self.adaptor_cpu_us(message_bytes, from_pageset)
        return cpu + (self.pageset_read_us(message_bytes) if from_pageset else 0.0)

    def get_send_us(self, message_bytes: int, from_pageset: bool) -> float:
        """Channel time per message (get, send, wire and the batch confirm share), microseconds.

        The message channel agent gets and sends one message after the other, so the adaptor's,
        the dispatcher's (and the SSL task's) times add up, with the channel's own elapsed time
        per message beyond CPU (``channel_send_us``), the bits on the wire and the share of the
        batch confirm round trip.
        """
        wire_us = self.wire_kb(message_bytes) * 1024 * 8 / (self.network_mbps * 1e6) * 1e6
        batch_us = 2 * self.network_latency_ms * 1000.0 / max(1, self.batchsz)
        return (
            self.adaptor_elapsed_us(message_bytes, from_pageset)
            + self.dispatcher_cpu_us(message_bytes)
            + self.compression(message_bytes)["compress_us"]
            + self.ssl_cpu_us(message_bytes)
            + self.c["mover"]["channel_send_us"]
            + wire_us
            + batch_us
        )

    def get_rate_msgs_per_s(self, message_bytes: int, from_pageset: bool) -> float:
        """Messages per second the channel gets and sends, from buffers or from the page set."""
        return 1e6 / self.get_send_us(message_bytes, from_pageset)


@dataclass(frozen=True)
class Putter:
    """A putting application (MQPUT in batches, then MQCMIT)."""

    message_bytes: int
    msgs_per_commit: int = _DEFAULT.integer("msgs_per_put_commit")
    persistent: bool = _DEFAULT.flag("persistent")
    coeffs: dict | None = field(default=None, compare=False, repr=False)

    @property
    def c(self) -> dict:
        return _c(self.coeffs)

    def cpu_us(self) -> float:
        """MQPUT CPU per message: the fixed MQPUT cost and the copy of the message into buffers, us."""
        k = self.c["mover"]
        return k["mqput_cpu_us"] + k["copy_cpu_us_per_kb"] * self.message_bytes / 1024.0

    def elapsed_us(self) -> float:
        """MQPUT elapsed per message: CPU plus the wait to obtain each 4 KB buffer page, us."""
        pages = pages_per_message(self.message_bytes, self.c)
        return self.cpu_us() + self.c["mover"]["put_wait_us_per_page"] * pages

    def wall_us(self) -> float:
        """Wall time per message of the putting loop: put, commit share and the application's own work, us."""
        a = self.c["assumed"]
        commit = a["commit_elapsed_us"] + (a["persistent_force_us"] if self.persistent else 0.0)
        return self.elapsed_us() + commit / max(1, self.msgs_per_commit) + self.c["mover"]["app_loop_us"]

    def rate_msgs_per_s(self) -> float:
        """Messages per second the putter can put."""
        return 1e6 / self.wall_us()


@dataclass(frozen=True)
class MoverResult:
    """Outcome of moving ``messages`` through one transmission queue.

    Times are seconds from the start of the run; rates in messages per second.
    """

    messages: float | None
    putter_done_s: float | None
    elapsed_s: float | None
    peak_depth: float | None
    gets_from_pageset: float
    gets_from_bufferpool: float
    get_rate_bufferpool: float
    get_rate_pageset: float
    pageset_fraction: float
    dwp_started: bool
    sync_writes: bool


def backlog_pageset_fraction(pool: BufferPool, backlog_msgs: float, message_bytes: int, coeffs=None) -> float:
    """Share of gets that find their message cast out, for a standing backlog of ``backlog_msgs``.

    The queue is first in, first out and the pool keeps the newest messages: a backlog the pool
    holds below the DWP's low threshold is got from buffers (0); one deeper than the DWP start
    has its oldest messages cast out, and the getter reads every one back from the page set (1).
    In between the DWP holds usage anywhere in its band, so the share ramps linearly.
    """
    pages = pages_per_message(message_bytes, coeffs)
    low = pool.buffers * pool.dwp_target_pct[0] / 100.0 / pages
    start = pool.dwp_start_buffers / pages
    if backlog_msgs <= low:
        return 0.0
    if backlog_msgs >= start or start <= low:
        return 1.0
    return (backlog_msgs - low) / (start - low)


def _steady_backlog(pool, channel, putter, backlog_msgs: float) -> MoverResult:
    """A putter that keeps a standing backlog of ``backlog_msgs`` on the queue (``messages`` null)."""
    c = channel.c
    size = putter.message_bytes
    g_bp = channel.get_rate_msgs_per_s(size, False)
    g_ps = channel.get_rate_msgs_per_s(size, True)
    f = backlog_pageset_fraction(pool, backlog_msgs, size, c)
    dwp_msgs = c["assumed"]["dwp_pages_per_s"] / pages_per_message(size, c)
    sync = f > 0 and putter.rate_msgs_per_s() > g_ps + dwp_msgs
    return MoverResult(None, None, None, backlog_msgs, f, 1.0 - f, g_bp, g_ps, f, f > 0, sync)


def move(
    pool: BufferPool, channel: Channel, putter: Putter, messages: float | None, backlog_msgs: float = math.inf
) -> MoverResult:
    """Piecewise-analytic timeline of a putter outpacing the channel through ``pool``.

    1. The queue fills at ``put - get`` (gets from buffers) until DWP start usage.
    2. From then the oldest messages are cast out and stolen, so the channel reads
       them back from the page set; the putter carries on (synchronous writes, if
       the DWP cannot keep up, slow it to the DWP rate).
    3. After the last put the channel drains the page-set part at the page-set rate
       and the part the DWP left in buffers (middle of its band) at the buffer rate.

    ``messages=None`` means a putter that keeps a standing backlog of ``backlog_msgs`` on the
    queue: the share of gets from the page set follows :func:`backlog_pageset_fraction`.
    """
    if messages is None:
        return _steady_backlog(pool, channel, putter, backlog_msgs)
    c = channel.c
    size = putter.message_bytes
    pages = pages_per_message(size, c)
    g_bp = channel.get_rate_msgs_per_s(size, False)
    g_ps = channel.get_rate_msgs_per_s(size, True)
    put = putter.rate_msgs_per_s()
    dwp_msgs = c["assumed"]["dwp_pages_per_s"] / pages
    start = pool.dwp_start_buffers / pages
    hold = pool.dwp_hold_buffers / pages
    t_free = messages / put
    t_fill = start / (put - g_bp) if put > g_bp else math.inf
    if t_fill >= t_free:
        peak = max(0.0, messages - g_bp * t_free)
        drain = peak / g_bp
        return MoverResult(
            messages, t_free, t_free + drain, peak, 0.0, messages, g_bp, g_ps, 0.0, False, False
        )
    # phase 2: putter limited by what the DWP can free (synchronous writes otherwise)
    put2 = min(put, g_ps + dwp_msgs)
    remaining = messages - put * t_fill
    t_put = t_fill + remaining / put2
    got_ps_during = g_ps * (t_put - t_fill)
    peak = messages - g_bp * t_fill - got_ps_during
    in_bp = min(peak, hold)
    on_ps = peak - in_bp
    drain = on_ps / g_ps + in_bp / g_bp
    from_ps = got_ps_during + on_ps
    from_bp = messages - from_ps
    return MoverResult(
        messages,
        t_put,
        t_put + drain,
        peak,
        from_ps,
        from_bp,
        g_bp,
        g_ps,
        from_ps / messages,
        True,
        put2 < put,
    )


def task_costs(pool: BufferPool, channel: Channel, putter: Putter, result: MoverResult) -> dict:
    """CPU and elapsed microseconds per message by task (putter, DWP, adaptor, dispatcher) and totals."""
    c = channel.c
    size = putter.message_bytes
    pages = pages_per_message(size, c)
    f = result.pageset_fraction
    fixed = 1.0 - (c["assumed"]["pageclas_fixed_saving"] if pool.pageclas == "FIXED4KB" else 0.0)
    # the DWP writes every page of a message that is read back later (cast out, then stolen)
    dwp = f * c["mover"]["page_io_cpu_us"] * pages * fixed
    put_cpu, put_el = putter.cpu_us(), putter.elapsed_us()
    a_cpu = (1.0 - f) * channel.adaptor_cpu_us(size) + f * channel.adaptor_cpu_us(size, True)
    a_el = a_cpu + f * channel.pageset_read_us(size)
    comp = channel.compression(size)
    d_cpu = channel.dispatcher_cpu_us(size) + comp["compress_us"]
    ssl = channel.ssl_cpu_us(size)
    out = {
        "putter_cpu_us_per_msg": put_cpu,
        "putter_elapsed_us_per_msg": put_el,
        "dwp_cpu_us_per_msg": dwp,
        "adaptor_cpu_us_per_msg": a_cpu,
        "adaptor_elapsed_us_per_msg": a_el,
        "dispatcher_cpu_us_per_msg": d_cpu,
        "dispatcher_elapsed_us_per_msg": d_cpu,
    }
    if channel.ssl:
        out["ssl_cpu_us_per_msg"] = ssl
    if channel.compmsg != "NONE":
        out["compress_cpu_us_per_msg"] = comp["compress_us"]
        out["receiver_inflate_cpu_us_per_msg"] = comp["inflate_us"]
    out["total_cpu_us_per_msg"] = put_cpu + dwp + a_cpu + d_cpu + ssl
    out["total_elapsed_us_per_msg"] = put_el + dwp + a_el + d_cpu + ssl
    return out
