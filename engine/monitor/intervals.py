"""MONITOR_INTERVAL of the rows of a monitor export that lacks it, from the spacing of MONITOR_TIME.

MONITOR_INTERVAL is a parameter (IBMQREP_APPLYPARMS, IBMQREP_CAPPARMS), not a column of
IBMQREP_APPLYMON: each row's interval is the time since the queue's previous row, and the first
row of a queue takes the parameter when its export is imported with the monitor files, else the
median spacing of MONITOR_TIME (:func:`interval_lengths_sql`).
"""

from __future__ import annotations

import math


def interval_lengths_sql(relation: str, order_by: str = "monitor_time", first_s: str = "NULL") -> str:
    """SQL of ``relation``'s rows with ``length_s``: each row's interval from the spacing of MONITOR_TIME.

    A row's interval is the time since its queue's previous row (``relation`` has columns
    ``queue`` and ``monitor_time``; ``order_by`` orders a queue's rows); the first row of a queue
    takes ``first_s`` (an SQL expression: the MONITOR_INTERVAL parameter in s) when not NULL,
    else the median spacing of its queue. ``length_s`` is NULL for a repeated MONITOR_TIME and
    for the single row of a queue without ``first_s``.
    """
    seconds = "epoch_us(monitor_time) / 1e6"
    gaps = (
        f"SELECT *, {seconds} - lag({seconds}) OVER (PARTITION BY queue ORDER BY {order_by}) AS gap_s "
        f"FROM {relation}"
    )
    medians = (
        f"SELECT *, median(CASE WHEN gap_s > 0 THEN gap_s END) OVER (PARTITION BY queue) AS queue_median_s "
        f"FROM ({gaps})"
    )
    return (
        f"SELECT *, CASE WHEN gap_s IS NULL THEN coalesce({first_s}, queue_median_s) "
        f"WHEN gap_s > 0 THEN gap_s END AS length_s FROM ({medians})"
    )


def parameter_interval_s(value: float, median_s: float | None) -> float:
    """MONITOR_INTERVAL from IBMQREP_APPLYPARMS/CAPPARMS in s.

    Milliseconds since Version 9.7, seconds before: the unit is the one that brings the value
    nearer the median spacing of MONITOR_TIME ``median_s`` (milliseconds when the rows cannot tell).
    """
    if median_s is None or not median_s > 0:
        return value / 1000.0
    return min((value / 1000.0, value), key=lambda s: abs(math.log(s / median_s)) if s > 0 else math.inf)


def write_intervals(con, import_id: int, table_name: str, keys: str, interval_ms: float | None) -> str:
    """Store each row's MONITOR_INTERVAL (ms) from the row keys ``keys`` in ``monitor_rows``; where it came from.

    The cells are written in long form (one row each), which DuckDB writes within its memory
    limit whatever the number of rows (an UPDATE of a wide table holds every changed row).

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
    import_id : int
    table_name : str
        The monitor table (``IBMQREP_APPLYMON`` ...).
    keys : str
        A relation with columns ``line``, ``monitor_time`` and ``queue``, one row per file row.
    interval_ms : float or None
        The MONITOR_INTERVAL parameter (ms, or s before Version 9.7) for the first row of each
        queue; None: the queue's median spacing.
    """
    first_s = None
    if interval_ms:
        median_s = con.execute(
            f"SELECT median(length_s) FROM ({interval_lengths_sql(keys, 'monitor_time, line')})"
        ).fetchall()[0][0]
        first_s = parameter_interval_s(interval_ms, median_s)
    lengths = interval_lengths_sql(keys, "monitor_time, line", "CAST(? AS DOUBLE)")
    con.execute(
        "INSERT INTO monitor_rows SELECT ?, ?, line, monitor_time, queue, 'MONITOR_INTERVAL', length_s * 1000.0 "
        f"FROM ({lengths}) WHERE length_s IS NOT NULL",
        [int(import_id), table_name, first_s],
    ).fetchall()
    return "MONITOR_TIME spacing" + (" and the parameter table (first interval)" if first_s else "")


__all__ = ["interval_lengths_sql", "parameter_interval_s", "write_intervals"]
