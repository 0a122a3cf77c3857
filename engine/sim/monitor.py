"""Rows shaped like Q Replication's monitor tables, from the simulation's accumulators.

Column names, units and meaning follow the product's tables:

``IBMQREP_CAPMON`` (one row per Q Capture MONITOR_INTERVAL)
    MONITOR_TIME (timestamp), CURRENT_MEMORY (bytes, at MONITOR_TIME), ROWS_PROCESSED,
    TRANS_PROCESSED, TRANS_SPILLED, MAX_TRANS_SIZE (bytes).
``IBMQREP_CAPQMON`` (per send queue)
    MONITOR_TIME, SENDQ, ROWS_PUBLISHED, TRANS_PUBLISHED, MQ_MESSAGES, MQ_BYTES, XMITQDEPTH
    (messages at MONITOR_TIME).
``IBMQREP_APPLYMON`` (per receive queue and Q Apply MONITOR_INTERVAL)
    MONITOR_TIME, RECVQ, QSTART_TIME, CURRENT_MEMORY (bytes), QDEPTH (messages),
    END2END_LATENCY, CAPTURE_LATENCY, QLATENCY, APPLY_LATENCY (ms, averages over the
    transactions applied in the interval, 0 when none, END2END = CAPTURE + Q + APPLY),
    ROWS_APPLIED, TRANS_APPLIED, MONSTER_TRANS, MEM_FULL_TIME (s), OLDEST_TRANS (timestamp:
    every transaction committed at the source before it has been applied).

Counters are per interval (reset at each MONITOR_TIME), as in the product.
"""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta

import numpy as np

from engine.io.csvcell import text_cell
from engine.sim.accumulate import Accumulator

DB2_TS = "%Y-%m-%d-%H.%M.%S.%f"


def _fold(x: np.ndarray, f: int) -> np.ndarray:
    n = len(x) // f
    return x[: n * f].reshape(n, f).sum(axis=1)


def _fold_max(x: np.ndarray, f: int) -> np.ndarray:
    n = len(x) // f
    return x[: n * f].reshape(n, f).max(axis=1) if n else np.zeros(0)


def _stamp(start: datetime, seconds) -> list[str]:
    return [(start + timedelta(seconds=float(s))).strftime(DB2_TS) for s in seconds]


def monitor_columns(
    acc: Accumulator,
    capture_s: float,
    apply_s: float,
    start: datetime,
    sendq: str = "SENDQ.A.B",
    recvq: str = "RECVQ.A.B",
) -> dict[str, dict[str, np.ndarray]]:
    """Column arrays per table (timestamps as Db2 timestamp strings).

    Parameters
    ----------
    acc : Accumulator
        Filled by the run; its bin width divides both intervals.
    capture_s, apply_s : float
        MONITOR_INTERVAL of Q Capture and Q Apply, s.
    start : datetime
        Wall-clock time of simulated time 0.
    """
    out = {}
    fc = max(1, round(capture_s / acc.dt))
    fa = max(1, round(apply_s / acc.dt))
    nc, na = acc.nbins // fc, acc.nbins // fa
    tc = (np.arange(nc) + 1) * fc * acc.dt
    ta = (np.arange(na) + 1) * fa * acc.dt
    cap_mem = acc.level_at_edges("cap_memory")
    out["IBMQREP_CAPMON"] = {
        "MONITOR_TIME": np.array(_stamp(start, tc)),
        "CURRENT_MEMORY": np.rint(cap_mem[(np.arange(nc) + 1) * fc]).astype(np.int64),
        "ROWS_PROCESSED": np.rint(_fold(acc.series("cap_rows"), fc)).astype(np.int64),
        "TRANS_PROCESSED": np.rint(_fold(acc.series("cap_trans"), fc)).astype(np.int64),
        "TRANS_SPILLED": np.rint(_fold(acc.series("cap_spilled"), fc)).astype(np.int64),
        "MAX_TRANS_SIZE": np.rint(_fold_max(acc.maxes.get("cap_max_trans", np.zeros(acc.nbins)), fc)).astype(
            np.int64
        ),
    }
    xq = acc.level_at_edges("xmitq_msgs")
    out["IBMQREP_CAPQMON"] = {
        "MONITOR_TIME": np.array(_stamp(start, tc)),
        "SENDQ": np.array([sendq] * nc),
        "ROWS_PUBLISHED": np.rint(_fold(acc.series("pub_rows"), fc)).astype(np.int64),
        "TRANS_PUBLISHED": np.rint(_fold(acc.series("pub_trans"), fc)).astype(np.int64),
        "MQ_MESSAGES": np.rint(_fold(acc.series("pub_msgs"), fc)).astype(np.int64),
        "MQ_BYTES": np.rint(_fold(acc.series("pub_bytes"), fc)).astype(np.int64),
        "XMITQDEPTH": np.rint(xq[(np.arange(nc) + 1) * fc]).astype(np.int64),
    }
    n = _fold(acc.series("app_trans"), fa)
    safe = np.where(n > 0, n, 1.0)

    def mean(name):
        return np.where(n > 0, _fold(acc.series(name), fa) / safe, 0.0)

    e2e, capl, ql, apl = mean("lat_e2e_ms"), mean("lat_capture_ms"), mean("lat_q_ms"), mean("lat_apply_ms")
    edges_a = (np.arange(na) + 1) * fa
    oldest = acc.mins.get("oldest", np.full(acc.nbins + 1, np.inf))[edges_a]
    oldest = np.where(np.isfinite(oldest), oldest, ta)
    out["IBMQREP_APPLYMON"] = {
        "MONITOR_TIME": np.array(_stamp(start, ta)),
        "RECVQ": np.array([recvq] * na),
        "QSTART_TIME": np.array(_stamp(start, np.zeros(na))),
        "CURRENT_MEMORY": np.rint(acc.level_at_edges("apply_memory")[edges_a]).astype(np.int64),
        "QDEPTH": np.rint(acc.level_at_edges("recvq_msgs")[edges_a]).astype(np.int64),
        "END2END_LATENCY": e2e,
        "CAPTURE_LATENCY": capl,
        "QLATENCY": ql,
        "APPLY_LATENCY": apl,
        "ROWS_APPLIED": np.rint(_fold(acc.series("app_rows"), fa)).astype(np.int64),
        "TRANS_APPLIED": np.rint(n).astype(np.int64),
        "MONSTER_TRANS": np.rint(_fold(acc.series("monster"), fa)).astype(np.int64),
        "MEM_FULL_TIME": _fold(acc.busy_per_bin("mem_full"), fa),
        "OLDEST_TRANS": np.array(_stamp(start, oldest)),
    }
    return out


def rows_from_columns(cols: dict[str, np.ndarray]) -> list[dict]:
    """Turn column arrays into a list of row dicts with plain Python values."""
    names = list(cols)
    if not names:
        return []
    lists = [cols[k].tolist() for k in names]
    return [dict(zip(names, vals)) for vals in zip(*lists)]


def to_csv(cols: dict[str, np.ndarray]) -> str:
    """CSV text of one table (header line of column names), as a monitor export would look."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(list(cols))
    for row in rows_from_columns(cols):
        w.writerow([f"{v:.3f}" if isinstance(v, float) else text_cell(v) for v in row.values()])
    return buf.getvalue()
