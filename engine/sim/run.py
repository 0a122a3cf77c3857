"""Run a simulation: chunks of transactions through the pipeline, into accumulators, then results."""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime

import numpy as np

from engine.errors import FieldError, QrtuneError, UnsupportedKindError, ValueRangeError
from engine.sim import cf_course, stationary
from engine.sim import profiles as _profiles
from engine.sim.accumulate import Accumulator
from engine.sim.config import PipelineConfig, build_config
from engine.sim.events import Event, Warp
from engine.sim.kernels import warm_up_in_background
from engine.sim.knobs import knob
from engine.sim.limits import RunSize, check_simulation_budget
from engine.sim.mirror import simulate_mirror
from engine.sim.monitor import monitor_columns
from engine.sim.pipeline import ChunkResult, QrepPipeline
from engine.sim.result import SIM_VERSION, SimResult, SimulationCancelled

#: Transactions per chunk the run aims for (bounds memory: about 0.5 KB per transaction).
CHUNK_TXNS = 400_000
#: A chunk spans at most this much simulated time, s, or more in a long run (progress, cancel) ...
MIN_LONGEST_CHUNK_S = 120.0
#: ... so that a quiet run has no more chunks than this: each chunk costs work per time bin.
MAX_CHUNKS_BY_TIME = 20


def _workload_chunks(
    profile, rows_per_txn: int, duration_s: float, block_s: float, children, chunk_blocks: int
):
    """The run's source transactions chunk by chunk: ``(transactions, final, end_s)``.

    Block ``k`` (``block_s`` seconds of simulated time) draws from its own child generator
    ``children[k]``, so the draws do not depend on the chunk size; a chunk is ``chunk_blocks``
    blocks (:func:`engine.sim.profiles.generate_blocks`). ``final`` says whether the chunk is
    the last and ``end_s`` is the simulated time it ends at, s.
    """
    n = len(children)
    for first in range(0, n, chunk_blocks):
        stop = min(first + chunk_blocks, n)
        bounds_s = [k * block_s for k in range(first, stop)] + [min(duration_s, stop * block_s)]
        rngs = [np.random.default_rng(children[k]) for k in range(first, stop)]
        tx = _profiles.generate_blocks(profile, bounds_s, rows_per_txn, rngs)
        yield tx, stop >= n, bounds_s[-1]


class _OneBehind:
    """Runs calls one at a time in a worker thread, in the order given, at most one behind the caller.

    The run adds a chunk's results to the accumulators here while its main thread pushes the
    next chunk through the pipeline: both are mostly numpy and compiled kernels, which release
    the GIL, so on a machine with two or more CPUs they overlap. Only one call waits at a time,
    so memory stays that of one chunk; an exception in a call is raised by the next
    :meth:`submit` or by :meth:`drain`.
    """

    def __init__(self):
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="qrtune-sim-accumulate")
        self._last: Future | None = None

    def submit(self, fn, *args) -> None:
        """Call ``fn(*args)`` in the worker once the previous call has returned."""
        self.drain()
        self._last = self._pool.submit(fn, *args)

    def drain(self) -> None:
        """Wait for the last call; raise its exception, if any."""
        last, self._last = self._last, None
        if last is not None:
            last.result()

    def __enter__(self) -> _OneBehind:
        return self

    def __exit__(self, *exc) -> None:
        self._pool.shutdown(wait=True)


def _accumulate(acc: Accumulator, r: ChunkResult, cfg: PipelineConfig, trace: dict | None) -> None:
    """Add one chunk to the accumulators.

    Per-transaction quantities are summed per message where they can be (a message's
    transactions share its put, get and target commit), so most work is per message; each
    array of times is put into the bins once (:class:`engine.sim.accumulate.Binned`) for all
    the series that count at those times.
    """
    t, m = r.txn, r.msg
    for name, (s, e) in r.busy.items():
        acc.busy(f"busy.{name}", s, e, 1.0 / cfg.apply_servers if name == "apply" else 1.0)
    if not m:
        return
    g = t["group"]
    rows = t["rows"].astype(float)
    commit = t["commit"]
    n = m["m_txns"]
    starts = np.zeros(len(n), dtype=np.int64)  # each message's first transaction
    starts[1:] = np.cumsum(n[:-1])
    m_commit_sum = np.add.reduceat(commit, starts)
    m_first_commit = commit[starts]
    m_rows, m_msgs, m_bytes = m["m_rows"], m["m_msgs"], m["m_bytes"]
    put, get, done = m["put"], m["get"], m["ap_dep"]
    # transaction level: source and capture
    at = acc.binned(commit)
    rows_at, txns_at = at.sums(rows), at.sums()
    acc.add_sums("source_rows", rows_at)
    acc.add_sums("source_trans", txns_at)
    acc.enter_sums("inflight_rows", rows_at)
    acc.enter_sums("in_capture_rows", rows_at)
    acc.enter_sums("inflight_trans", txns_at)
    acc.area_in("inflight_rows_area", at, rows)
    at = acc.binned(t["cap_dep"])
    acc.add_sums("cap_rows", at.sums(rows))
    acc.add_sums("cap_trans", at.sums())
    acc.add_sums("cap_spilled", at.sums(t["spilled"]))
    acc.maximum("cap_max_trans", at, t["bytes"])
    held = np.minimum(t["bytes"], cfg.capture_memory_bytes)
    acc.enter_sums("cap_memory", acc.binned(t["cap_start"] - (commit - t["begin"])).sums(held))
    # message level
    at = acc.binned(put)
    held_m = m_bytes.copy()  # a message's transactions leave Q Capture's memory at its put ...
    spilled = np.flatnonzero(t["spilled"])
    np.subtract.at(
        held_m, g[spilled], t["bytes"][spilled] - held[spilled]
    )  # ... a spilled one held at most the limit
    acc.leave_sums("cap_memory", at.sums(held_m))
    rows_at, msgs_at = at.sums(m_rows), at.sums(m_msgs)
    acc.leave_sums("in_capture_rows", rows_at)
    acc.enter_sums("in_mq_rows", rows_at)
    acc.add_sums("pub_rows", rows_at)
    acc.add_sums("pub_trans", at.sums(n))
    acc.add_sums("pub_msgs", msgs_at)
    acc.add_sums("pub_bytes", at.sums(m_bytes))
    acc.enter_sums("xmitq_msgs", msgs_at)
    at = acc.binned(m["ch_dep"])
    msgs_at = at.sums(m_msgs)
    acc.leave_sums("xmitq_msgs", msgs_at)
    acc.add_sums("ch_msgs", msgs_at)
    acc.add_sums("ch_rows", at.sums(m_rows))
    acc.add_sums("pageset_msgs", at.sums(m_msgs * m["pageset"]))
    acc.enter_sums("recvq_msgs", acc.binned(m["recv"]).sums(m_msgs))
    at = acc.binned(get)
    rows_at = at.sums(m_rows)
    acc.leave_sums("in_mq_rows", rows_at)
    acc.enter_sums("in_apply_rows", rows_at)
    acc.add_sums("recvq_pageset_msgs", at.sums(m_msgs * m["recv_pageset"]))
    acc.leave_sums("recvq_msgs", at.sums(m_msgs))
    acc.enter_sums("apply_memory", at.sums(m_bytes))
    blocked = get > m["block_from"]
    acc.busy("mem_full", m["block_from"][blocked], get[blocked])
    at = acc.binned(done)
    rows_at, txns_at = at.sums(m_rows), at.sums(n)
    acc.leave_sums("in_apply_rows", rows_at)
    acc.leave_sums("inflight_rows", rows_at)
    acc.leave_sums("inflight_trans", txns_at)
    acc.area_out("inflight_rows_area", at, m_rows)
    acc.leave_sums("apply_memory", at.sums(m_bytes))
    acc.add_sums("app_rows", rows_at)
    acc.add_sums("app_msgs", at.sums(m_msgs))
    acc.add_sums("app_trans", txns_at)
    monster = np.flatnonzero(t["bytes"] > cfg.apply_memory_bytes)
    if monster.size:
        acc.add_sums("monster", at.sums(np.bincount(g[monster], minlength=len(done)).astype(float)))
    acc.add_sums("lat_e2e_ms", at.sums(1000.0 * (n * done - m_commit_sum)))
    acc.add_sums("lat_capture_ms", at.sums(1000.0 * (n * put - m_commit_sum)))
    acc.add_sums("lat_q_ms", at.sums(1000.0 * n * (get - put)))
    acc.add_sums("lat_apply_ms", at.sums(1000.0 * n * (done - get)))
    done_t = done[g]
    inside = acc.real(done_t) < acc.duration
    acc.histogram("e2e_ms", 1000.0 * (done_t[inside] - commit[inside]), done_t[inside])
    acc.oldest("oldest", m_first_commit, done)
    if trace is not None:
        for k in ("commit", "rows", "cap_dep", "u", "v"):
            trace.setdefault(k, []).append(t[k])
        for k, v in (
            ("put", put[g]),
            ("get", get[g]),
            ("done", done_t),
            ("visible", m["visible"][g]),
            ("ch_dep", m["ch_dep"][g]),
            ("pageset", m["pageset"][g]),
            ("recv", m["recv"][g]),
        ):
            trace.setdefault(k, []).append(v)
        trace.setdefault("m_rows", []).append(m["m_rows"])
        trace.setdefault("m_put", []).append(m["put"])
        trace.setdefault("m_ch_dep", []).append(m["ch_dep"])
        for k in ("v", "ap_start", "ap_dep"):
            trace.setdefault(f"m_{k}", []).append(m[f"m_{k}" if k == "v" else k])


def _catch_up(
    edges: np.ndarray, inflight: np.ndarray, events: Iterable[Event], duration: float
) -> list[dict]:
    """Peak backlog during each event and the time after it ends until the backlog is back to normal.

    "Normal" is the in-flight rows before the event began: mean + 3 standard deviations over the
    preceding minute (or what there is of it), at least the largest level seen in that window.
    """
    out = []
    for ev in events:
        before = (edges < ev.start_s) & (edges >= max(0.0, ev.start_s - 60.0))
        base = inflight[before]
        if base.size:
            threshold = max(base.mean() + 3.0 * base.std(), base.max())
        else:
            threshold = 0.0
        during = (edges >= ev.start_s) & (edges <= min(ev.end_s, duration))
        after = np.flatnonzero((edges >= ev.end_s) & (inflight <= threshold))
        window = edges >= ev.start_s
        peak_i = int(np.argmax(np.where(window, inflight, -np.inf))) if window.any() else None
        out.append(
            {
                **ev.to_json(),
                "end_s": ev.end_s,
                "peak_backlog_rows": float(inflight[peak_i]) if peak_i is not None else None,
                "peak_at_s": float(edges[peak_i]) if peak_i is not None else None,
                "backlog_at_end_of_event_rows": float(inflight[during][-1]) if during.any() else None,
                "normal_backlog_rows": float(threshold),
                "catch_up_s": float(edges[after[0]] - ev.end_s)
                if after.size and ev.end_s <= duration
                else None,
            }
        )
    return out


def _summary(
    acc: Accumulator,
    cfg: PipelineConfig,
    events,
    offered: float,
    seed,
    duration: float,
    n_txn: int,
    n_rows: int,
    profile,
) -> dict:
    inflight = acc.level_at_edges("inflight_rows")
    applied = float(acc.series("app_rows").sum())
    n_app = float(acc.series("app_trans").sum())

    def mean_lat(name):
        return float(acc.series(name).sum() / n_app) if n_app else None

    util = {}
    for name in acc.busy_names():
        if name.startswith("busy."):
            util[name[5:]] = float(acc.busy_per_bin(name).sum() / acc.duration)
    return {
        "engine": SIM_VERSION,
        "coefficients_version": cfg.coefficients_version,
        "seed": seed,
        "duration_s": duration,
        "profile": profile.to_json(),
        "offered_rows_per_s": offered,
        "predicted_rows_per_s": cfg.predicted_rows_per_s,
        "txns_generated": n_txn,
        "rows_generated": n_rows,
        "rows_applied": applied,
        "rows_in_flight_at_end": float(inflight[-1]),
        "throughput_rows_per_s": applied / duration,
        "capture_rows_per_s": float(acc.series("cap_rows").sum()) / duration,
        "end2end_latency_ms": {
            "mean": mean_lat("lat_e2e_ms"),
            "p50": acc.percentile_ms("e2e_ms", 50),
            "p95": acc.percentile_ms("e2e_ms", 95),
            "p99": acc.percentile_ms("e2e_ms", 99),
        },
        "capture_latency_ms": mean_lat("lat_capture_ms"),
        "qlatency_ms": mean_lat("lat_q_ms"),
        "apply_latency_ms": mean_lat("lat_apply_ms"),
        "peak_backlog_rows": float(inflight.max()),
        "peak_xmitq_depth_msgs": float(acc.level_at_edges("xmitq_msgs").max()),
        "peak_recvq_depth_msgs": float(acc.level_at_edges("recvq_msgs").max()),
        "xmitq_buffer_msgs": cfg.xmitq_buffer_msgs if math.isfinite(cfg.xmitq_buffer_msgs) else None,
        "peak_capture_memory_bytes": float(acc.level_at_edges("cap_memory").max()),
        "peak_apply_memory_bytes": float(acc.level_at_edges("apply_memory").max()),
        "trans_spilled": float(acc.series("cap_spilled").sum()),
        "pageset_msgs": float(acc.series("pageset_msgs").sum()),
        "recvq_pageset_msgs": float(acc.series("recvq_pageset_msgs").sum()),
        "mem_full_time_s": float(acc.busy_per_bin("mem_full").sum()),
        "utilisation": util,
        "stages": cfg.stage_table(),
        "events": _catch_up(acc.edges, inflight, events, duration),
        "notes": list(cfg.notes),
    }


def _timeseries(acc: Accumulator, cfg: PipelineConfig) -> dict:
    dt = acc.dt
    n = acc.series("app_trans")
    safe = np.where(n > 0, n, 1.0)
    ts = {
        "t_s": acc.edges[1:],
        "source.rows_per_s": acc.series("source_rows") / dt,
        "qcapture.rows_per_s": acc.series("cap_rows") / dt,
        "qcapture.memory_bytes": acc.level_at_edges("cap_memory")[1:],
        "xmitq.depth_msgs": acc.level_at_edges("xmitq_msgs")[1:],
        "mq_channel.msgs_per_s": acc.series("ch_msgs") / dt,
        "mq_channel.rows_per_s": acc.series("ch_rows") / dt,
        "mq_pageset.msgs_per_s": acc.series("pageset_msgs") / dt,
        "recvq_pageset.msgs_per_s": acc.series("recvq_pageset_msgs") / dt,
        "recvq.depth_msgs": acc.level_at_edges("recvq_msgs")[1:],
        "qapply.rows_per_s": acc.series("app_rows") / dt,
        "qapply.memory_bytes": acc.level_at_edges("apply_memory")[1:],
        "qapply.mem_full_s": acc.busy_per_bin("mem_full"),
        "inflight.rows": acc.level_at_edges("inflight_rows")[1:],
        "inflight.rows_avg": acc.busy_per_bin("inflight_rows_area") / dt,
        "end2end_latency_ms": np.where(n > 0, acc.series("lat_e2e_ms") / safe, 0.0),
        "capture_latency_ms": np.where(n > 0, acc.series("lat_capture_ms") / safe, 0.0),
        "qlatency_ms": np.where(n > 0, acc.series("lat_q_ms") / safe, 0.0),
        "apply_latency_ms": np.where(n > 0, acc.series("lat_apply_ms") / safe, 0.0),
    }
    for name in acc.busy_names():
        if name.startswith("busy."):
            stage = name[5:] if name != "busy.apply" else "qapply"
            ts[f"{stage}.utilisation"] = acc.busy_per_bin(name) / dt
    return ts


def _bin_width(duration_s: float, cfg: PipelineConfig) -> float:
    """1 s (or coarser for long runs) dividing both monitor intervals."""
    ms = math.gcd(round(cfg.capture_monitor_s * 1000), round(cfg.apply_monitor_s * 1000))
    step = math.gcd(ms, 1000) / 1000.0
    while duration_s / step > 20_000 and (ms / 1000.0) % (2 * step) < 1e-9:
        step *= 2
    return step


def simulate_config(
    cfg: PipelineConfig,
    duration_s: float,
    seed: int | None = 0,
    profile=None,
    events=(),
    progress: Callable[[float], None] | None = None,
    cancel: Callable[[], bool] | None = None,
    trace: bool = False,
    start_time: datetime | None = None,
    python_kernel: bool = False,
    chunk_txns: int = CHUNK_TXNS,
    initial_recvq_msgs: int = 0,
    stationary_windows: bool = True,
) -> SimResult:
    """Simulate a pipeline described by ``cfg`` (see :func:`engine.sim.simulate` for the parameters).

    ``stationary_windows``: represent stationary stretches of the run by copies of a simulated
    window (:mod:`engine.sim.stationary`); False simulates every transaction.
    """
    events = tuple(events)
    _check_run(duration_s, events, initial_recvq_msgs)
    if profile is None:
        profile = _profiles.constant(default_rate(cfg))
    dt = _bin_width(duration_s, cfg)
    plan = _stationary_plan(
        profile,
        events,
        duration_s,
        dt,
        cfg,
        chunk_txns,
        stationary_windows and not trace and not initial_recvq_msgs,
    )
    check_simulation_budget(
        RunSize(
            duration_s,
            profile.rows_per_txn or cfg.rows_per_txn,
            dt,
            int(initial_recvq_msgs),
            cfg.trans_batch_sz,
        ),
        profile,
        chunk_txns,
        copied_rows=plan.static_copied_rows() if plan is not None else 0.0,
    )
    duration_s = max(dt, round(duration_s / dt) * dt)
    acc = Accumulator(duration_s, dt)
    # one child generator per block of simulated time: the draws do not depend on the chunk size
    seq = np.random.SeedSequence(seed)
    seed = seq.entropy
    block_s = max(1.0, duration_s / 20_000)
    children = seq.spawn(math.ceil(duration_s / block_s))
    pipe = QrepPipeline(
        cfg, Warp.from_events(events, "channel"), Warp.from_events(events, "apply"), python_kernel
    )
    rpt = profile.rows_per_txn or cfg.rows_per_txn
    peak_txn_per_s = max(profile.peak_rows_per_s(duration_s) / rpt, 1e-9)
    longest_chunk_s = max(MIN_LONGEST_CHUNK_S, duration_s / MAX_CHUNKS_BY_TIME)
    chunk_blocks = int(
        np.clip(round(chunk_txns / peak_txn_per_s / block_s), 1, max(1, longest_chunk_s / block_s))
    )
    tr: dict | None = {} if trace else None
    n_txn, n_rows, last_done = _run_preload(pipe, int(initial_recvq_msgs), chunk_txns, acc, cfg, tr, cancel)
    preload_applied_s = last_done
    copied = None
    if plan is not None:
        window_block_s = plan.w_s / math.ceil(plan.w_s / block_s - 1e-9)  # blocks within windows
        n_txn, n_rows, last_done, copied = _run_windows(
            pipe, plan, profile, cfg, acc, (seq, window_block_s), events, progress, cancel
        )
    else:
        workload = _workload_chunks(profile, cfg.rows_per_txn, duration_s, block_s, children, chunk_blocks)
        with _OneBehind() as behind:
            for tx, final, t1 in workload:
                if cancel is not None and cancel():
                    raise SimulationCancelled("simulation cancelled")
                n_txn += len(tx)
                n_rows += int(tx.rows.sum())
                for res in pipe.run_chunk(tx, final=final):
                    behind.submit(_accumulate, acc, res, cfg, tr)
                    if res.msg and len(res.msg["ap_dep"]):
                        last_done = max(last_done, float(res.msg["ap_dep"].max()))
                if progress is not None:
                    progress(t1 / duration_s)
            behind.drain()
    summary = _summary(
        acc, cfg, events, profile.mean_rows_per_s(duration_s), seed, duration_s, n_txn, n_rows, profile
    )
    summary.update(_copied_figures(copied, n_txn, n_rows))
    summary["pageset_fixed_point_iterations"] = pipe.pageset_iterations
    summary.update(_drain_figures(summary, duration_s, last_done, initial_recvq_msgs, preload_applied_s))
    cf_summary, cf_series, gate = cf_course.course(acc, cfg, initial_recvq_msgs)
    if gate is not None:  # puts failed: again, Q Capture held back by the structure (cf_course)
        return simulate_config(
            dataclasses.replace(cfg, cf_gate=gate),
            duration_s,
            seed,
            profile,
            events,
            progress,
            cancel,
            trace,
            start_time,
            python_kernel,
            chunk_txns,
            initial_recvq_msgs,
            stationary_windows=False,
        )
    summary.update(cf_summary)
    note = cf_course.stop_note(cf_summary, cfg.cf_structure[0]) if cfg.cf_structure else None
    if note is not None:
        summary["notes"] = [*summary["notes"], note]
    if tr is not None:
        tr = {k: np.concatenate(v) for k, v in tr.items()}
    start = start_time or datetime(2024, 1, 1)
    mon = monitor_columns(acc, cfg.capture_monitor_s, cfg.apply_monitor_s, start)
    return SimResult(mon, {**_timeseries(acc, cfg), **cf_series}, summary, cfg, tr)


def _stationary_plan(profile, events, duration_s: float, dt: float, cfg, chunk_txns: int, allowed: bool):
    """The copying plan of a run (:mod:`engine.sim.stationary`), or None when no window can be a copy."""
    if not allowed:
        return None
    rpt = profile.rows_per_txn or cfg.rows_per_txn
    w_s = stationary.window_s(dt, cfg.apply_monitor_s, profile.peak_rows_per_s(duration_s) / rpt, chunk_txns)
    plan = stationary.Plan(profile, events, duration_s, w_s, cfg.replication_rows_per_s)
    return plan if plan.static_copies() > 0 else None


def _window_transactions(profile, rows_per_txn: int, a_s: float, b_s: float, seeding, shift_s: float):
    """Source transactions of run time ``[a_s, b_s)`` on the pipeline's clock (``shift_s`` earlier).

    Block ``k`` of ``block_s`` seconds draws from the ``k``-th child of the run's seed
    sequence, as in :func:`_workload_chunks`.
    """
    seq, block_s = seeding
    first, stop = round(a_s / block_s), math.ceil(b_s / block_s - 1e-9)
    bounds_s = [max(a_s, k * block_s) for k in range(first, stop)] + [b_s]
    rngs = [
        np.random.default_rng(np.random.SeedSequence(seq.entropy, spawn_key=(k,))) for k in range(first, stop)
    ]
    tx = _profiles.generate_blocks(profile, bounds_s, rows_per_txn, rngs)
    if shift_s:
        tx = _profiles.Transactions(tx.commit_s - shift_s, tx.rows, tx.begin_s - shift_s, tx.u, tx.v)
    return tx


def _window_stats(results, rate: float, tau_end_s: float, unapplied_rows: float) -> stationary.WindowStats:
    """What a simulated window measured: mean END2END of its applied transactions, rows still in flight."""
    n = lat = late_rows = 0.0
    for res in results:
        m = res.msg
        if not m or not len(m["ap_dep"]):
            continue
        done = m["ap_dep"] <= tau_end_s
        t = res.txn
        per_msg_commit = np.add.reduceat(
            t["commit"], np.concatenate(([0], np.cumsum(m["m_txns"][:-1]).astype(np.int64)))
        )
        n += float(m["m_txns"][done].sum())
        lat += float((m["m_txns"] * m["ap_dep"] - per_msg_commit)[done].sum())
        late_rows += float(m["m_rows"][~done].sum())
    return stationary.WindowStats(rate, lat / n if n else math.nan, unapplied_rows + late_rows)


def _run_windows(pipe, plan, profile, cfg, acc, seeding, events, progress, cancel):
    """The run window by window, copying stationary windows (:mod:`engine.sim.stationary`).

    Returns ``(transactions simulated, rows simulated, last target commit in run time, copied)``
    with ``copied`` the stretches of copied windows and the rows and transactions they stand for.
    """
    tmap = stationary.TimeMap()
    acc.timemap = tmap
    w_s, duration_s = plan.w_s, plan.duration_s
    rpt = profile.rows_per_txn or cfg.rows_per_txn
    n_txn = n_rows = emitted_rows = 0
    last_done_tau = 0.0
    stretches: list[stationary.Stretch] = []
    buffered: list = []
    ref_start = None
    tau_events = list(events)
    starts = [k * w_s for k in range(plan.n_windows)] + (
        [plan.n_windows * w_s] if plan.n_windows * w_s < duration_s - 1e-9 else []
    )
    with _OneBehind() as behind:
        for k, a in enumerate(starts):
            b = min(a + w_s, duration_s)
            if plan.copy_next():
                behind.drain()
                tmap.insert(a - tmap.total_s, w_s)
                if stretches and abs(stretches[-1].start_s + stretches[-1].length_s - a) < 1e-9:
                    last = stretches[-1]
                    stretches[-1] = stationary.Stretch(
                        last.start_s, last.length_s + w_s, last.ref_start_s, w_s
                    )
                else:
                    stretches.append(stationary.Stretch(a, w_s, ref_start, w_s))
                # events after the copied window happen that much earlier on the pipeline's clock
                tau_events = [
                    dataclasses.replace(tau, start_s=tau.start_s - w_s) if real.start_s >= a else tau
                    for real, tau in zip(events, tau_events)
                ]
                pipe.ch_warp = Warp.from_events(tau_events, "channel")
                pipe.ap_warp = Warp.from_events(tau_events, "apply")
                continue
            if cancel is not None and cancel():
                raise SimulationCancelled("simulation cancelled")
            _submit_window(behind, buffered, acc, cfg, _stretch_of(stretches, ref_start))
            tx = _window_transactions(profile, cfg.rows_per_txn, a, b, seeding, tmap.total_s)
            n_txn += len(tx)
            n_rows += int(tx.rows.sum())
            buffered = pipe.run_chunk(tx, final=k == len(starts) - 1)
            for res in buffered:
                if res.msg and len(res.msg["ap_dep"]):
                    last_done_tau = max(last_done_tau, float(res.msg["ap_dep"].max()))
                    emitted_rows += float(res.msg["m_rows"].sum())
            rate = float(profile.rate_at(np.array([a]))[0])
            plan.simulated(_window_stats(buffered, rate, b - tmap.total_s, n_rows - emitted_rows))
            ref_start = a
            if progress is not None:
                progress(b / duration_s)
        tail = []
        if plan.stats and plan.stats[-1] is None:  # the run ends with copies: apply what is in flight
            tail = pipe.run_chunk(_profiles.concat([]), final=True)
            for res in tail:
                if res.msg and len(res.msg["ap_dep"]):
                    last_done_tau = max(last_done_tau, float(res.msg["ap_dep"].max()))
        _submit_window(behind, buffered, acc, cfg, _stretch_of(stretches, ref_start))
        _submit_window(behind, tail, acc, cfg, None)
        behind.drain()
    stationary.fill_stretches(acc, stretches)
    copied_s = sum(st.length_s for st in stretches)
    copied_rows = sum(profile.rows_between(st.start_s, st.start_s + st.length_s) for st in stretches)
    copied = {"stretches": stretches, "s": copied_s, "rows": copied_rows, "txns": copied_rows / rpt}
    return n_txn, n_rows, float(tmap.real(last_done_tau)), copied


def _submit_window(behind, results: list, acc, cfg, reference: stationary.Stretch | None) -> None:
    """Accumulate a simulated window's results; first weigh its histogram values for the copies of it
    (``reference``: the stretch that repeats it, if any)."""
    if reference is not None and results:
        behind.drain()
        acc.weigh_window(reference.ref_start_s, reference.w_s, reference.copies)
    for res in results:
        behind.submit(_accumulate, acc, res, cfg, None)
    results.clear()


def _stretch_of(stretches: list, ref_start_s) -> stationary.Stretch | None:
    """The last stretch if it repeats the window starting at ``ref_start_s``."""
    if stretches and ref_start_s is not None and stretches[-1].ref_start_s == ref_start_s:
        return stretches[-1]
    return None


def _copied_figures(copied, n_txn: int, n_rows: int) -> dict:
    """Summary figures of the copied windows (none when every transaction was simulated)."""
    if copied is None:
        return {"replicated_s": 0.0, "txns_simulated": n_txn}
    return {
        "replicated_s": copied["s"],
        "replicated_windows": [
            {"start_s": st.start_s, "length_s": st.length_s, "copy_of_s": st.ref_start_s}
            for st in copied["stretches"]
        ],
        "txns_simulated": n_txn,
        "txns_generated": n_txn + round(copied["txns"]),
        "rows_generated": n_rows + round(copied["rows"]),
    }


def _check_run(duration_s: float, events: tuple, initial_recvq_msgs) -> None:
    """Refuse a duration that is not > 0 s, a Db2 Mirror event or a negative pre-loaded depth, naming the field."""
    if not (isinstance(duration_s, (int, float)) and math.isfinite(duration_s) and duration_s > 0):
        raise FieldError("duration", duration_s, "a duration > 0 s")
    if any(e.target == "mirror" for e in events):
        raise FieldError(
            "--event",
            next(e.kind for e in events if e.target == "mirror"),
            "channel_stop, apply_stop or target_slow for a Q Replication project",
        )
    if not (isinstance(initial_recvq_msgs, (int, float)) and 0 <= initial_recvq_msgs < math.inf):
        raise ValueRangeError(
            "run.initial_receive_queue_depth (INITIAL_DEPTH_MSGS)",
            initial_recvq_msgs,
            "a number of messages >= 0",
        )


def _run_preload(pipe, initial_msgs: int, chunk_txns: int, acc, cfg, tr, cancel) -> tuple[int, int, float]:
    """Apply the messages pre-loaded on the receive queue; (transactions, rows, last apply time in s)."""
    n_txn = n_rows = 0
    last_done_s = 0.0
    for pre in pipe.preload_chunks(initial_msgs, chunk_txns):
        if cancel is not None and cancel():
            raise SimulationCancelled("simulation cancelled")
        last_done_s = max(last_done_s, float(pre.msg["ap_dep"].max()))
        _accumulate(acc, pre, cfg, tr)
        n_txn += len(pre.txn["rows"])
        n_rows += int(pre.txn["rows"].sum())
    return n_txn, n_rows, last_done_s


def _drain_figures(
    summary: dict, duration_s: float, last_done_s: float, initial_msgs, preload_applied_s: float
) -> dict:
    """The switch-over drain (source stopped at the end: everything in flight applied by ``last_done_s``)
    and the pre-loaded queue's figures."""
    out = {
        "in_flight_drain_s": max(0.0, last_done_s - duration_s)
        if summary["rows_in_flight_at_end"] > 0
        else 0.0,
        "initial_recvq_msgs": int(initial_msgs),
    }
    if initial_msgs:
        out["initial_queue_applied_s"] = preload_applied_s
    return out


def default_rate(cfg: PipelineConfig) -> float:
    """Offered rate when the workload says "drive to the maximum": the predicted throughput, rows/s.

    Falls back to the smallest stage capacity when the prediction gives no throughput.
    """
    return min(cfg.predicted_rows_per_s or cfg.max_rows_per_s, cfg.max_rows_per_s)


def settings_at_load(settings: dict, profile, duration_s: float) -> dict:
    """``settings`` offering ``profile``'s mean rate as an open workload (the settings themselves without a profile).

    The simulation's service demands come from the steady-state cost model evaluated at the
    load it simulates: CPU contention, the rows Q Capture puts per MQ commit and the agents'
    Db2 class 2 time all depend on the rate. A run given a profile is therefore evaluated at
    the profile's average rate over the run (its own rows per transaction when it has them);
    the workload is then open (no application jobs). A drain (``run.mode: drain``) keeps its
    settings: the source is quiet.
    """
    if profile is None or knob(settings, "run.mode") == "drain":
        return settings
    out = copy.deepcopy(settings)
    workload = out.setdefault("workload", {})
    workload["offered_rows_per_s"] = float(profile.mean_rows_per_s(duration_s))
    workload.pop("jobs", None)
    workload.pop("think_time_ms", None)
    if profile.rows_per_txn is not None:
        workload["rows_per_txn"] = int(profile.rows_per_txn)
    return out


def _predict(settings: dict, coefficients=None):
    """The steady-state prediction (with ``coefficients`` for the Q Replication engine when given)."""
    if coefficients is not None:
        from engine.perf import qrep

        return qrep.predict(settings, coefficients)
    from engine.predict import predict_settings

    return predict_settings(settings)


def _drain_prediction(settings: dict, coefficients=None):
    """The steady-state prediction of ``settings`` draining a deep receive queue, or None."""
    drain = copy.deepcopy(settings)
    drain["run"] = {"mode": "drain", "initial_receive_queue_depth": 1_000_000}
    try:
        return _predict(drain, coefficients)
    except QrtuneError:
        return None


#: What to use instead of the simulation for the kinds it does not simulate.
OTHER_KINDS = {
    "mq-mover": (
        "an MQ buffer-pool mover",
        (
            "qrtune predict PROJECT gives its timeline: elapsed time, when the "
            "putter is done, peak depth and the get rates from the buffer pool "
            "and the page set"
        ),
    ),
    "db2-v8-storage": ("a Db2 V8 storage sizing", "qrtune predict PROJECT (or qrtune v8) gives its figures"),
}


def unsupported_message(kind) -> str:
    """Why a project of ``kind`` cannot be simulated and what to use instead."""
    what, instead = OTHER_KINDS.get(kind, ("", "qrtune predict PROJECT gives its steady state"))
    return (
        f"cannot simulate a project of kind {kind!r}{' (' + what + ')' if what else ''}: qrtune simulate "
        f"handles kinds 'qrep' (Q Replication: unidirectional, bidirectional, peer-to-peer) and 'db2mirror' "
        f"(Db2 Mirror); {instead}"
    )


def simulate_settings(
    settings: dict, duration_s: float, prediction=None, project=None, coefficients=None, **kw
) -> SimResult:
    """Simulate scenario ``settings`` (kind ``qrep`` or ``db2mirror``), predicting its steady state first if needed.

    ``coefficients`` (Q Replication only): the steady-state engine's coefficients to use instead
    of its file (a :class:`engine.perf.qrep.coefficients.Coefficients` or a mapping that
    overrides named ones, as :func:`engine.perf.qrep.predict` takes), for the prediction, the
    drain prediction and the fitted delays, commit and batch times; pass the same ones a given
    ``prediction`` was made with. Other keywords: see :func:`simulate_config`.
    """
    kind = settings.get("kind")
    if kind == "qrep":
        warm_up_in_background()  # overlaps loading the compiled kernels with the prediction
    if kind == "db2mirror":
        return simulate_mirror(settings, duration_s, prediction=prediction, **kw)
    if kind != "qrep":
        raise UnsupportedKindError(unsupported_message(kind))
    settings = settings_at_load(settings, kw.get("profile"), duration_s)
    if prediction is None:
        prediction = _predict(settings, coefficients)
    drain = None
    if not any(st.name == "mq_pageset" for st in prediction.stages):
        drain = _drain_prediction(settings, coefficients)
    cfg = build_config(settings, prediction, project, drain, coefficients=coefficients)
    draining = knob(settings, "run.mode") == "drain"
    if kw.get("profile") is None:
        # a drain: the source is quiet, Q Apply works off the pre-loaded queue
        offered = 0.0 if draining else knob(settings, "workload.offered_rows_per_s")
        kw["profile"] = _profiles.constant(float(offered) if offered is not None else default_rate(cfg))
    if knob(settings, "run.mode") in ("drain", "catch-up") and "initial_recvq_msgs" not in kw:
        kw["initial_recvq_msgs"] = int(knob(settings, "run.initial_receive_queue_depth"))
    res = simulate_config(cfg, duration_s, **kw)
    res.settings = settings
    return res
