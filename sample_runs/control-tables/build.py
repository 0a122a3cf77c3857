"""Write sample exports of the Q Replication control tables (``qrtune import-config``'s input).

Run: ``.venv/bin/python sample_runs/control-tables/build.py``.

There is no Q Replication system here: the rows are generated, as ``EXPORT TO f.del OF DEL
SELECT * FROM ASN.IBMQREP_...`` writes them at 11.5 (no header, strings quoted, NULL empty), in
each table's 11.5 column order (:mod:`engine.monitor.layouts`): two queue maps from QMA to QMB,
each with its own send and receive queue and knobs, three subscriptions on the first and two on
the second. Values are IBM's documented defaults except the knobs a DBA tunes (COMMIT_INTERVAL,
MEMORY_LIMIT, NUM_APPLY_AGENTS, MAX_MESSAGE_SIZE).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from engine.monitor.layouts import columns_at  # noqa: E402

RELEASE = "11.5"
TIME = "2024-03-04-09.00.00.000000"
ROWS = {
    "IBMQREP_CAPPARMS": [
        {
            "QMGR": "QMA",
            "RESTARTQ": "ASN.QMA.RESTARTQ",
            "ADMINQ": "ASN.QMA.ADMINQ",
            "STARTMODE": "WARMSI",
            "MEMORY_LIMIT": 800,
            "COMMIT_INTERVAL": 250,
            "AUTOSTOP": "N",
            "MONITOR_INTERVAL": 30000,
            "SLEEP_INTERVAL": 500,
            "MSG_PERSISTENCE": "Y",
            "TRANS_BATCH_SZ": 1,
            "ARCH_LEVEL": "1140",
            "COMPATIBILITY": "1140",
        }
    ],
    "IBMQREP_APPLYPARMS": [
        {
            "QMGR": "QMB",
            "MONITOR_INTERVAL": 30000,
            "ARCH_LEVEL": "1140",
            "DEADLOCK_RETRIES": 3,
            "COMMIT_COUNT": 1,
        }
    ],
    "IBMQREP_SENDQUEUES": [
        {
            "PUBQMAPNAME": "QMA_TO_QMB_ORDERS",
            "SENDQ": "ASN.QMA_TO_QMB.ORDERS.DATAQ",
            "RECVQ": "ASN.QMA_TO_QMB.ORDERS.DATAQ",
            "STATE": "A",
            "STATE_TIME": TIME,
            "HEARTBEAT_INTERVAL": 60000,
            "MAX_MESSAGE_SIZE": 10240,
            "NUM_PARALLEL_SENDQS": 1,
        },
        {
            "PUBQMAPNAME": "QMA_TO_QMB_STOCK",
            "SENDQ": "ASN.QMA_TO_QMB.STOCK.DATAQ",
            "RECVQ": "ASN.QMA_TO_QMB.STOCK.DATAQ",
            "STATE": "A",
            "STATE_TIME": TIME,
            "HEARTBEAT_INTERVAL": 60000,
            "MAX_MESSAGE_SIZE": 4096,
            "NUM_PARALLEL_SENDQS": 2,
        },
    ],
    "IBMQREP_RECVQUEUES": [
        {
            "REPQMAPNAME": "QMA_TO_QMB_ORDERS",
            "RECVQ": "ASN.QMA_TO_QMB.ORDERS.DATAQ",
            "SENDQ": "ASN.QMA_TO_QMB.ORDERS.DATAQ",
            "ADMINQ": "ASN.QMA.ADMINQ",
            "NUM_APPLY_AGENTS": 12,
            "MEMORY_LIMIT": 256,
            "CAPTURE_SERVER": "SRCDB",
            "CAPTURE_ALIAS": "SRCDB",
            "CAPTURE_SCHEMA": "ASN",
            "STATE": "A",
            "STATE_TIME": TIME,
        },
        {
            "REPQMAPNAME": "QMA_TO_QMB_STOCK",
            "RECVQ": "ASN.QMA_TO_QMB.STOCK.DATAQ",
            "SENDQ": "ASN.QMA_TO_QMB.STOCK.DATAQ",
            "ADMINQ": "ASN.QMA.ADMINQ",
            "NUM_APPLY_AGENTS": 4,
            "MEMORY_LIMIT": 64,
            "CAPTURE_SERVER": "SRCDB",
            "CAPTURE_ALIAS": "SRCDB",
            "CAPTURE_SCHEMA": "ASN",
            "STATE": "A",
            "STATE_TIME": TIME,
        },
    ],
    "IBMQREP_SUBS": [
        {
            "SUBNAME": f"{table}0001",
            "SOURCE_OWNER": "SALES",
            "SOURCE_NAME": table,
            "TARGET_OWNER": "SALES",
            "TARGET_NAME": table,
            "SENDQ": sendq,
            "STATE": "A",
            "STATE_TIME": TIME,
            "CHANGED_COLS_ONLY": "Y",
        }
        for table, sendq in (
            ("ORDERS", "ASN.QMA_TO_QMB.ORDERS.DATAQ"),
            ("ORDER_LINES", "ASN.QMA_TO_QMB.ORDERS.DATAQ"),
            ("CUSTOMERS", "ASN.QMA_TO_QMB.ORDERS.DATAQ"),
            ("STOCK", "ASN.QMA_TO_QMB.STOCK.DATAQ"),
            ("WAREHOUSES", "ASN.QMA_TO_QMB.STOCK.DATAQ"),
        )
    ],
}


def del_line(row: dict, table: str) -> str:
    """One row as EXPORT ... OF DEL writes it: strings and timestamps quoted, numbers bare, NULL empty."""
    fields = []
    for column in columns_at(table, RELEASE):
        value = row.get(column.name)
        if value is None:
            fields.append("")
        elif column.kind == "number":
            fields.append(str(value))
        else:
            fields.append('"' + str(value).replace('"', '""') + '"')
    return ",".join(fields) + "\n"


def main() -> None:
    for table, rows in ROWS.items():
        path = HERE / f"{table.removeprefix('IBMQREP_')}.del"
        path.write_text("".join(del_line(r, table) for r in rows), encoding="utf-8")
        print(f"wrote {path.name}: {len(rows)} row(s) of {table} at {RELEASE}")


if __name__ == "__main__":
    main()
