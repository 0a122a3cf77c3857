"""The headlines of a prediction, as rich text (no pyqtgraph here: the window shows one above the
canvas before the Results tab's charts are ever built).

* pipelines (Q Replication, Db2 Mirror): throughput, END2END_LATENCY or response time, and the
  bottleneck or, when the offered rate is held, the headroom (:func:`pipeline_headline`);
* ``db2-v8-storage``: DBM1 storage V7 -> V8, relief, headroom; CPU band, catalog time (:func:`v8_headline`);
* ``mq-mover``: MB/s moved, the bottleneck, the BUFFPOOL that holds the backlog (:func:`mover_headline`).
"""

from __future__ import annotations

import math

from app import style
from engine.limit import Limit, limit_of
from engine.metrics import label as metric_label
from engine.metrics.catalog import display_value, format_number
from engine.metrics.stages import stage_label

#: Colours of the sizing views: before/now, after/estimated, the limit, within it.
OLD, NEW, LIMIT, OK, NOW = style.QUEUE, style.APPLY, style.BOTTLENECK, style.WITHIN_LIMIT, style.CAPTURE

#: Metrics tried in order for the headline throughput of each scenario kind.
HEADLINE = (
    "apply_rows_per_s",
    "capture_rows_per_s",
    "throughput",
    "tps",
    "transfer_mb_per_s",
    "channel_msgs_per_s",
)


def headline(metrics: dict, units: dict) -> tuple[str, float, str] | None:
    """(metric, value, unit) shown as the throughput, or None."""
    for name in HEADLINE:
        value = metrics.get(name)
        if isinstance(value, (int, float)) and math.isfinite(value):
            return name, float(value), units.get(name, "")
    return None


def limit_html(limit: Limit, head: tuple[str, float, str] | None) -> str:
    """The headline's bottleneck part as rich text: "bottleneck Q Apply agents at 95%", or, when the offered
    rate is held, "holds 30,000 rows/s; headroom 35% at qapply_agents" (the plain text of the other views
    is :meth:`engine.limit.Limit.text`)."""
    if limit.stage is None:
        return ""
    if limit.holds_offered:
        rate = f"<b style='color:{OK}'>holds {format_number(head[1])} {head[2]}</b>; " if head else ""
        return (
            f"{rate}headroom <b>{limit.headroom_pct:.0f}%</b> at {stage_label(limit.stage)} "
            f"({limit.utilisation * 100:.0f}% busy)"
        )
    return f"bottleneck <b style='color:{LIMIT}'>{stage_label(limit.stage)}</b> at {limit.utilisation * 100:.0f}%"


def _n(metrics: dict, name: str):
    """``metrics[name]`` when it is a finite number, else None."""
    v = metrics.get(name)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def _whole(value: float) -> str:
    """A size without decimals from 100 up (``908``, ``1,686``), else :func:`format_number`."""
    return f"{value:,.0f}" if abs(value) >= 100 else format_number(value)


def _kb(value: float) -> str:
    """A storage figure in KB to three significant digits below 100 (``14``, ``2.43``, ``107``)."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def _pct(value: float) -> str:
    """A signed percentage without a trailing .0 (``-5%``, ``+15%``, ``+2.5%``)."""
    return f"{value:+.1f}".replace(".0", "").replace("-", "\u2212") + "%"


def v8_headline(metrics: dict, summary=None) -> str:
    """The ``db2-v8-storage`` headline: storage below the bar V7 -> V8, relief, headroom; CPU band, catalog time.

    ``summary`` (:class:`engine.perf.db2v8.MigrationSummary`) adds the workload type and catalog GB.
    """
    v7, v8 = _n(metrics, "v7_total_mb"), _n(metrics, "v8_estimated_total_mb")
    relief, relief_pct = _n(metrics, "relief_mb"), _n(metrics, "relief_pct")
    region, room = _n(metrics, "dbm1_region_mb"), _n(metrics, "v8_headroom_mb")
    first = []
    if v7 is not None and v8 is not None:
        first.append(f"DBM1 below the bar: V7 <b>{_whole(v7)}</b> MB \u2192 V8 <b>{_whole(v8)}</b> MB")
    if relief is not None:
        first.append(
            f"relief <b>{_whole(relief)}</b> MB" + (f" ({relief_pct:.0f}%)" if relief_pct is not None else "")
        )
    if room is not None and region is not None:
        from engine.perf.db2v8 import BAR_MB

        where = "the 2 GB bar" if region >= BAR_MB else f"the {_whole(region)} MB extended region"
        if room >= 0:
            first.append(
                f"<b style='color:{OK}'>fits</b> under {where} with <b>{_whole(room)}</b> MB headroom"
            )
        else:
            first.append(
                f"<b style='color:{LIMIT}'>does not fit</b> under {where}: <b>{_whole(-room)}</b> MB over"
            )
    second = []
    lo, hi = _n(metrics, "v8_cpu_change_low_pct"), _n(metrics, "v8_cpu_change_high_pct")
    if lo is not None and hi is not None:
        workload = f" ({summary.workload_type.replace('_', ' ')})" if summary is not None else ""
        text = f"Db2 CPU V7 \u2192 V8{workload}: <b>{_pct(lo)} .. {_pct(hi)}</b>"
        cpu = _n(metrics, "v8_db2_cpu_ms_per_txn")
        if cpu is not None and summary is not None and summary.v8_cpu_ms_per_txn_band is not None:
            b_lo, b_hi = summary.v8_cpu_ms_per_txn_band
            text += (
                f", {summary.v7_cpu_ms_per_txn:g} ms \u2192 <b>{format_number(b_lo)} .. "
                f"{format_number(b_hi)}</b> ms per transaction"
            )
        second.append(text)
    minutes = _n(metrics, "catalog_migration_min")
    if minutes is not None:
        gb = (
            f" <small>({summary.catalog_gb:g} GB of catalog)</small>"
            if summary is not None and summary.catalog_gb is not None
            else ""
        )
        second.append(f"catalog migration to new-function mode about <b>{minutes:,.0f}</b> min{gb}")
    else:
        second.append("<small>catalog migration time: set CATALOG_GB</small>")
    sep = " &nbsp;|&nbsp; "
    return sep.join(first) + ("<br>" + sep.join(second) if second else "")


def mover_headline(metrics: dict, bottleneck: str | None, utilisation: float | None) -> str:
    """The ``mq-mover`` headline: MB/s moved and the bottleneck; the BUFFPOOL that holds the backlog and
    the storage per connection and per channel."""
    from engine.perf.mq_bufferpool import buffers_mb

    first = []
    rate = _n(metrics, "transfer_mb_per_s")
    if rate is not None:
        took = _n(metrics, "elapsed_s")
        first.append(
            f"<b>{format_number(rate)}</b> MiB/s moved" + (f" in {took:,.0f} s" if took is not None else "")
        )
    if bottleneck:
        tail = f" at {utilisation * 100:.0f}%" if utilisation is not None else ""
        text = f"bottleneck <b style='color:{LIMIT}'>{stage_label(bottleneck)}</b>{tail}"
        share = _n(metrics, "pageset_get_fraction")
        if share:
            text += f": {share * 100:.0f}% of gets from the page set"
        first.append(text)
    second = []
    now = _n(metrics, "buffpool_buffers")
    backlog, need = _n(metrics, "backlog_msgs"), _n(metrics, "buffers_to_hold_backlog")
    if backlog is not None and need is not None:
        if backlog <= 0:
            second.append("the channel keeps up: no backlog builds")
        elif now is not None and now >= need:
            second.append(
                f"BUFFPOOL {now:,.0f} buffers <b style='color:{OK}'>holds</b> the {backlog:,.0f}-message "
                "backlog"
            )
        else:
            second.append(
                f"to hold the {backlog:,.0f}-message backlog: BUFFPOOL <b>{need:,.0f}</b> buffers "
                f"({_whole(buffers_mb(need))} MB)" + (f", now {now:,.0f}" if now is not None else "")
            )
    elif rate is None:
        second.append("a backlog deeper than the pool: every get is from the page set")
    conn, csa, chan = (
        _n(metrics, k) for k in ("storage_per_connection_kb", "csa_per_connection_kb", "channel_storage_kb")
    )
    if conn is not None:
        second.append(
            f"storage per connection <b>{_kb(conn)}</b> KB"
            + (f" (+{_kb(csa)} KB CSA)" if csa is not None else "")
            + (f", per channel <b>{_kb(chan)}</b> KB" if chan is not None else "")
        )
    sep = " &nbsp;|&nbsp; "
    return sep.join(first) + ("<br>" + sep.join(second) if second else "")


def pipeline_headline(metrics: dict, units: dict, systems: tuple, limit: Limit) -> str:
    """The pipeline headline: throughput (per system when two-way), END2END_LATENCY or response time,
    and the bottleneck or the headroom of a held offered rate."""
    head = headline(metrics, units)
    parts = []
    if head:
        name, value, unit = head
        applied = [s.get("applied_rows_per_s") for s in systems]
        if systems and name == "apply_rows_per_s" and all(a is not None for a in applied):
            parts.append(
                f"<b>{format_number(value)}</b> {unit} <small>applied on each system "
                f"({format_number(sum(applied))} in all)</small>"
            )
        else:
            parts.append(f"<b>{format_number(value)}</b> {unit} <small>({metric_label(name)})</small>")
    for key in ("end2end_latency_ms", "response_time_ms"):
        if isinstance(metrics.get(key), (int, float)):
            value, unit = display_value(metrics[key], "ms")
            parts.append(f"{metric_label(key)} <b>{format_number(value)}</b> {unit}")
    parts += [t for t in (limit_html(limit, head),) if t]
    return " &nbsp;|&nbsp; ".join(parts) or "<b>Predicted</b>"


def summary_headline(prediction) -> str:
    """The headline of ``prediction`` whatever its kind (the one-line summary above the canvas)."""
    limit = limit_of(prediction)
    if prediction.kind == "db2-v8-storage":
        return v8_headline(prediction.metrics) or "<b>Predicted</b>"
    if prediction.kind == "mq-mover":
        return mover_headline(prediction.metrics, limit.stage, limit.utilisation if limit.stage else None)
    return pipeline_headline(prediction.metrics, prediction.units, (), limit)
