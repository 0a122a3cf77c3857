"""The monitor-table columns qrtune reads, table by table: an import stores these and no others.

The fit, the Monitor view (which shows the fit's intervals) and the comparison of the timing
columns (:mod:`engine.monitor.timing`) read an interval from a few columns of each table:
IBMQREP_APPLYMON's applied rows and transactions, its latencies (ms) and its 10.2.1+ timing
columns; IBMQREP_CAPQMON's published rows, messages and bytes and its MQPUT time; IBMQREP_CAPMON's
MQCMIT time. An import stores those (and MONITOR_INTERVAL, in ms) and leaves a file's other
columns out of the store unread, so a column qrtune does not read costs neither time nor space
and a value in it that is not a number does not stop an import.
"""

from __future__ import annotations

from engine.metrics.catalog import APPLYMON_LATENCIES
from engine.monitor.timing import columns_of

APPLYMON_READ = (
    "MONITOR_INTERVAL",
    "ROWS_APPLIED",
    "TRANS_APPLIED",
    *APPLYMON_LATENCIES,
    *columns_of("IBMQREP_APPLYMON"),
)
"""IBMQREP_APPLYMON columns an interval is made of."""
CAPQMON_READ = (
    "MONITOR_INTERVAL",
    "ROWS_PUBLISHED",
    "MQ_MESSAGES",
    "MQ_BYTES",
    *columns_of("IBMQREP_CAPQMON"),
)
"""IBMQREP_CAPQMON columns that give an interval's offered rate, message size and MQPUT time."""
CAPMON_READ = columns_of("IBMQREP_CAPMON")
"""IBMQREP_CAPMON columns that give an interval's MQCMIT time."""
STORED = {
    "IBMQREP_APPLYMON": APPLYMON_READ,
    "IBMQREP_CAPQMON": CAPQMON_READ,
    "IBMQREP_CAPMON": ("MONITOR_INTERVAL", *CAPMON_READ),
}
"""Monitor table -> the columns an import stores (all numeric; MONITOR_INTERVAL is derived when a file lacks it)."""


def stored_columns(table_name: str, names) -> tuple[str, ...]:
    """The columns of ``names`` (a file's column order) an import of ``table_name`` stores, in file order."""
    keep = set(STORED.get(table_name, ()))
    return tuple(n for n in names if n in keep)


def unread_columns(table_name: str, names, keys) -> tuple[str, ...]:
    """The columns of ``names`` an import leaves out: neither stored nor one of ``keys`` (MONITOR_TIME, the queue)."""
    keep = set(STORED.get(table_name, ())) | set(keys)
    return tuple(n for n in names if n and n not in keep)


__all__ = ["APPLYMON_READ", "CAPMON_READ", "CAPQMON_READ", "STORED", "stored_columns", "unread_columns"]
