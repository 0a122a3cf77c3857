"""The charts of a simulation over time, described once for the window's Simulation tab and the PDF.

:func:`simulation_charts` turns a simulation's time series (``name -> (t_s, values)``: the
simulator's, or a stored run's) into four :class:`engine.report.line_charts.LineChartSpec`
against elapsed time (seconds, minutes from 10 minutes on, hours from 5 hours on):

* ``depth`` - the transmit and receive queues' depths, with the transmit queue's buffer pool dashed,
* ``latency`` - END2END_LATENCY and its parts, in the unit of their magnitude (ms, s, min),
* ``rate`` - rows per second offered, captured, sent and applied,
* ``castout`` - messages read back from the page sets (those that found their buffer pool full),

each outage or slow-down shaded from its start to its end.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from engine.metrics.catalog import display_scale, format_number, label
from engine.outage_events import EVENT_LABELS
from engine.report.charts import Axis
from engine.report.line_charts import Band, LineChartSpec, LineSeries, RefLine, XAxis

#: How a simulation's series are named in the colour keys: by the monitor column the simulator writes
#: the same figure to (:mod:`engine.sim.monitor`) where there is one; the catalogue names the latencies.
SERIES_LABELS = {
    "xmitq.depth_msgs": "transmit queue (XMITQDEPTH)",
    "recvq.depth_msgs": "receive queue (QDEPTH)",
    "mq_pageset.msgs_per_s": "MQ channel, from the transmit queue's page set",
    "recvq_pageset.msgs_per_s": "Q Apply browser, from the receive queue's page set",
    "source.rows_per_s": "source (offered)",
    "qcapture.rows_per_s": "Q Capture (ROWS_PROCESSED)",
    "mq_channel.rows_per_s": "MQ channel",
    "qapply.rows_per_s": "Q Apply (ROWS_APPLIED)",
}
#: Curves a chart shows at most.
MAX_CURVES = 4
#: The summary figure a run records the transmit queue's buffer pool in (messages; absent: unbounded).
BUFFER_POOL_METRIC = "xmitq_buffer_msgs"


@dataclass(frozen=True)
class _Kind:
    """One chart of a simulation: its title and value axis."""

    title: str
    axis: Axis


#: The charts, by kind, in the order :func:`simulation_charts` gives them.
KINDS = {
    "depth": _Kind("Queue depth", Axis("queue depth", "messages")),
    "latency": _Kind("Latency over time", Axis("latency", "ms")),
    "rate": _Kind("Rows per second over time", Axis("rate", "rows/s")),
    # the messages read back from the page set (those that found their buffer pool full), not cast-out
    "castout": _Kind("Messages read back from the page set", Axis("read back", "msgs/s")),
}


#: The order of the series in a chart (and so their colours), whatever order they come in: the
#: simulator's (a store reads them back by name).
SERIES_ORDER = (
    "xmitq.depth_msgs",
    "recvq.depth_msgs",
    "end2end_latency_ms",
    "capture_latency_ms",
    "qlatency_ms",
    "apply_latency_ms",
    "source.rows_per_s",
    "qcapture.rows_per_s",
    "mq_channel.rows_per_s",
    "qapply.rows_per_s",
    "mq_pageset.msgs_per_s",
    "recvq_pageset.msgs_per_s",
)


def _order(name: str) -> tuple[int, str]:
    return (SERIES_ORDER.index(name) if name in SERIES_ORDER else len(SERIES_ORDER), name)


def split_series(timeseries: Mapping) -> tuple[dict, dict, dict, dict]:
    """(queue depth, latency, row rate, page-set read) series by name, each in :data:`SERIES_ORDER`;
    memory and utilisation are left out."""
    depth, latency, rate, castout = {}, {}, {}, {}
    for name in sorted(timeseries, key=_order):
        tv = timeseries[name]
        low = name.lower()
        if "depth" in low:
            depth[name] = tv
        elif "latency" in low:
            latency[name] = tv
        elif low.endswith("rows_per_s"):
            rate[name] = tv
        elif "pageset" in low and low.endswith("msgs_per_s"):
            castout[name] = tv
    return depth, latency, rate, castout


def elapsed_axis(t_s) -> tuple[float, str]:
    """Divisor and x-axis label for elapsed time: minutes from 10 minutes on, hours from 5 hours on."""
    end = float(np.nanmax(t_s)) if len(t_s) else 0.0
    if end >= 5 * 3600:
        return 3600.0, "elapsed hours"
    if end >= 600:
        return 60.0, "elapsed minutes"
    return 1.0, "elapsed seconds"


def series_label(name: str) -> str:
    """A simulation series as its colour key names it (:data:`SERIES_LABELS`, else the catalogue's label)."""
    return SERIES_LABELS.get(name, label(name))


def _curve(name: str, t_s, values, divisor: float, factor: float) -> LineSeries:
    """One series: time in the axis' unit, values scaled by ``factor``, a gap where one is not finite."""
    t = np.asarray(t_s, dtype=float) / divisor
    v = np.asarray(values, dtype=float) * factor
    ok = np.isfinite(v)
    return LineSeries(
        series_label(name), tuple(zip(t.tolist(), [y if good else None for y, good in zip(v.tolist(), ok)]))
    )


def _bands(events: Iterable, divisor: float) -> tuple[Band, ...]:
    """Each event ``(kind, start_s, end_s)`` shaded in the axis' unit."""
    return tuple(
        Band(start / divisor, end / divisor, EVENT_LABELS.get(kind, kind.replace("_", " ")))
        for kind, start, end in events
        if end > start
    )


def simulation_chart(
    kind: str, series: Mapping, divisor: float, axis: str, end: float, events=(), lines=()
) -> LineChartSpec:
    """The chart ``kind`` (:data:`KINDS`) of ``series`` (name -> (t_s, values)), time divided by ``divisor``."""
    spec = KINDS[kind]
    shown = list(series.items())[:MAX_CURVES]
    peak = max((float(np.nanmax(np.abs(v))) for _, (_, v) in shown if np.isfinite(v).any()), default=0.0)
    factor, unit = display_scale(peak, spec.axis.unit) if kind == "latency" else (1.0, spec.axis.unit)
    return LineChartSpec(
        spec.title,
        XAxis.span_of(0.0, end / divisor, axis),
        Axis(spec.axis.label, unit),
        tuple(_curve(name, t, v, divisor, factor) for name, (t, v) in shown),
        tuple(lines),
        bands=_bands(events, divisor),
    )


def simulation_charts(
    timeseries: Mapping, events: Sequence = (), buffer_pool_msgs: float | None = None
) -> dict[str, LineChartSpec]:
    """The queue depth, latency, row rate and page-set read charts of a simulation, by kind (:data:`KINDS`).

    Parameters
    ----------
    timeseries : mapping
        Series name -> (t_s, values), as the simulator gives them and the store reads them back.
    events : sequence of (str, float, float)
        Each outage or slow-down's kind (``channel_stop``), start and end (s).
    buffer_pool_msgs : float, optional
        Messages the transmit queue's buffer pool holds (dashed on the depth chart); None: unbounded.
    """
    arrays = {
        name: (np.asarray(t, dtype=float), np.asarray(v, dtype=float)) for name, (t, v) in timeseries.items()
    }
    ends = [float(np.nanmax(t)) for t, _ in arrays.values() if len(t)]
    end = max(ends, default=0.0)
    divisor, axis = elapsed_axis(np.array([end]))
    pool = (
        (
            RefLine(
                buffer_pool_msgs,
                f"buffer pool holds {format_number(buffer_pool_msgs)} messages; beyond it the page set",
                "bottleneck",
            ),
        )
        if buffer_pool_msgs
        else ()
    )
    groups = dict(zip(KINDS, split_series(arrays)))
    return {
        kind: simulation_chart(
            kind, groups[kind], divisor, axis, end, events, pool if kind == "depth" else ()
        )
        for kind in KINDS
    }


def event_spans(events: Iterable) -> list[tuple[str, float, float]]:
    """``(kind, start_s, end_s)`` of each event: the simulator's per-event summaries (mappings) or
    :class:`engine.outage_events.Event`; one without a start or end is left out."""
    out = []
    for ev in events:
        get = ev.get if isinstance(ev, Mapping) else lambda k, e=ev: getattr(e, k, None)
        kind, start, end = get("kind") or get("type") or "event", get("start_s"), get("end_s")
        if isinstance(start, (int, float)) and isinstance(end, (int, float)):
            out.append((str(kind), float(start), float(end)))
    return out


__all__ = [
    "BUFFER_POOL_METRIC",
    "KINDS",
    "SERIES_LABELS",
    "elapsed_axis",
    "event_spans",
    "series_label",
    "simulation_charts",
    "split_series",
]
