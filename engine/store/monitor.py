"""Imported monitor-table files: one ``monitor_imports`` row per file, its numeric cells in ``monitor_rows``."""

from __future__ import annotations

import json

import numpy as np

from engine.store.provenance import utc_now
from engine.store.records import MonitorImport, MonitorRow


class MonitorMixin:
    """The monitor-import part of :class:`engine.store.Store` (needs :class:`~engine.store.base.StoreBase`)."""

    def record_monitor_import(self, project_name: str, file: str, table_name: str, columns: dict) -> int:
        """Write one parsed monitor file (long-form column arrays) and its import row; returns the import id.

        ``columns`` holds equal-length arrays ``line``, ``monitor_time`` (datetime64[us]),
        ``queue``, ``col``, ``value`` and the list ``numeric_columns``. Callers wanting
        several files all-or-nothing wrap the calls in :meth:`transaction`.
        """
        self._check_writable()
        with self.transaction():
            new_id = self.next_id("monitor_imports")
            self.insert_records(
                [
                    MonitorImport(
                        new_id,
                        project_name,
                        file,
                        table_name,
                        utc_now(),
                        int(columns["n_rows"]),
                        tuple(columns["numeric_columns"]),
                    )
                ]
            )
            size = len(columns["line"])
            if size:
                self.insert_record_columns(
                    MonitorRow,
                    import_id=np.full(size, new_id, dtype=np.int64),
                    table_name=np.full(size, table_name, dtype=object),
                    line=np.asarray(columns["line"], dtype=np.int32),
                    monitor_time=np.asarray(columns["monitor_time"], dtype="datetime64[us]"),
                    queue=np.asarray(columns["queue"], dtype=object),
                    column=np.asarray(columns["col"], dtype=object),
                    value=np.asarray(columns["value"], dtype=np.float64),
                )
        return new_id

    def list_monitor_imports(self, project_name: str | None = None) -> list[MonitorImport]:
        """Imported monitor files, oldest first."""
        sql = "SELECT id, project_name, file, table_name, imported, n_rows, columns_json FROM monitor_imports"
        args: list = []
        if project_name is not None:
            sql += " WHERE project_name = ?"
            args.append(project_name)
        rows = self.con.execute(sql + " ORDER BY id", args).fetchall()
        return [MonitorImport(*r[:6], tuple(json.loads(r[6]))) for r in rows]
