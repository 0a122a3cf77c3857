"""The monitor cells' two layouts: long form (``monitor_rows``, stores before schema version 5 and the
row-by-row reader) and one wide table per import (DuckDB's CSV reader); both are read as one."""

from __future__ import annotations

from datetime import datetime, timedelta

import duckdb
import numpy as np

from engine.monitor.importer import import_files, load_monitor_rows, to_csv_text
from engine.store import Store
from engine.store.schema import MIGRATIONS

T0 = datetime(2024, 3, 4, 8, 0, 0)


def _version_4_store(path) -> None:
    """A store as qrtune wrote it at schema version 4: one import of 3 APPLYMON rows, in long form."""
    con = duckdb.connect(str(path))
    for version in range(1, 5):
        for statement in MIGRATIONS[version]:
            con.execute(statement)
        con.execute("INSERT INTO schema_info VALUES (?, now()::TIMESTAMP)", [version])
    con.execute(
        "INSERT INTO monitor_imports VALUES (1, 'p', '/old/APPLYMON.csv', 'IBMQREP_APPLYMON', now()::TIMESTAMP, 3, "
        '\'["ROWS_APPLIED", "MONITOR_INTERVAL"]\')'
    )
    for k in range(3):
        t = T0 + timedelta(seconds=10 * (k + 1))
        for col, value in (("ROWS_APPLIED", 100.0 + k), ("MONITOR_INTERVAL", 10_000.0)):
            con.execute(
                "INSERT INTO monitor_rows VALUES (1, 'IBMQREP_APPLYMON', ?, ?, 'Q1', ?, ?)",
                [k + 2, t, col, value],
            )
    con.close()


def test_a_version_4_store_keeps_its_cells_and_new_imports_go_to_a_wide_table(tmp_path):
    db = tmp_path / "old.duckdb"
    _version_4_store(db)
    rows = [
        {
            "MONITOR_TIME": T0 + timedelta(seconds=10 * (k + 3)),  # overlaps the old import's last row
            "RECVQ": "Q1",
            "ROWS_APPLIED": 500 + k,
            "TRANS_APPLIED": 50,
            "MONITOR_INTERVAL": 10_000,
        }
        for k in range(3)
    ]
    f = tmp_path / "new_APPLYMON.csv"
    f.write_text(to_csv_text("IBMQREP_APPLYMON", rows))
    with Store.open(db) as store:
        assert store.schema_version == 5
        [(import_id, _)] = import_files(store, [f], "p")
        wide = load_monitor_rows(store, "p")["IBMQREP_APPLYMON"]
        assert store.monitor_columns("p")["IBMQREP_APPLYMON"] == (
            "MONITOR_INTERVAL",
            "ROWS_APPLIED",
            "TRANS_APPLIED",
        )
        (table,) = store.con.execute(
            "SELECT cells_table FROM monitor_cell_tables WHERE import_id = ?", [import_id]
        ).fetchall()[0]
        assert store.con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0] == 3
        assert (
            store.con.execute(
                "SELECT count(*) FROM monitor_rows WHERE import_id = ?", [import_id]
            ).fetchall()[0][0]
            == 0
        )
    # 5 intervals: two of the old import, the overlapping one from the newer import, two new ones
    assert list(wide["ROWS_APPLIED"]) == [100.0, 101.0, 500.0, 501.0, 502.0]
    assert np.isnan(wide["TRANS_APPLIED"][:2]).all() and list(wide["TRANS_APPLIED"][2:]) == [50.0] * 3
    with Store.open(db) as store:
        store.discard_monitor_imports([import_id])
        assert not store.con.execute(f"SELECT * FROM duckdb_tables() WHERE table_name = '{table}'").fetchall()
        assert list(load_monitor_rows(store, "p")["IBMQREP_APPLYMON"]["ROWS_APPLIED"]) == [
            100.0,
            101.0,
            102.0,
        ]
