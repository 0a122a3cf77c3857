"""Imported monitor-table files: one ``monitor_imports`` row per file, its numeric cells in a wide
table of its own or in ``monitor_rows``.

DuckDB's CSV reader writes a file as one wide table (:mod:`engine.store.monitor_tables`). The
row-by-row reader writes it batch by batch in long form, one ``monitor_rows`` row per cell
(:meth:`MonitorMixin.begin_monitor_import`, :meth:`~MonitorMixin.append_monitor_cells`,
:meth:`~MonitorMixin.finish_monitor_import`), each batch committed so that DuckDB's memory stays
bounded; imports of stores before schema version 5 are in that form too. Until it is finished an
import has ``n_rows = -1`` (:data:`UNFINISHED`): readers skip it, a failed import is removed
(:meth:`~MonitorMixin.discard_monitor_imports`) and one left by a killed process is removed by the
next import, so an import that fails half way leaves nothing behind.
:meth:`~MonitorMixin.monitor_wide_sql` reads both forms back one row per queue and MONITOR_TIME,
aggregated by DuckDB, so a reader never holds the rows in memory.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from engine.store.base import StoreBase
from engine.store.monitor_tables import ROW_KEY, drop_cells_tables, import_cells_sql, quoted, sources_sql
from engine.store.provenance import utc_now
from engine.store.records import MonitorImport

_batch_names = itertools.count()


MONITOR_MEMORY_LIMIT = "384MB"
"""DuckDB's memory limit while monitor rows are aggregated (``qrtune fit``): beyond it DuckDB
writes to disk, so a fit does not hold every imported row in memory."""
IMPORT_MEMORY_LIMIT = "128MB"
"""DuckDB's memory limit while a file is imported: DuckDB keeps no more of the rows written."""


UNFINISHED = -1
"""``monitor_imports.n_rows`` of an import still being written (or left by a killed process)."""
CHECKPOINT_EVERY = 4
"""Batches of an import between checkpoints (DuckDB lets go of the memory of written rows at one)."""


def _finished_imports(prefix: str, project_name: str | None) -> tuple[str, list]:
    """SQL condition (and its parameters) on ``monitor_imports`` (columns written ``prefix`` + name).

    It keeps the finished imports, of ``project_name`` only when given.
    """
    where = f"{prefix}n_rows != {UNFINISHED}"
    if project_name is None:
        return where, []
    return f"{where} AND {prefix}project_name = ?", [project_name]


class MonitorMixin(StoreBase):
    """The monitor-import part of :class:`engine.store.Store` (needs :class:`~engine.store.base.StoreBase`)."""

    con: Any
    """The open DuckDB connection (:class:`~engine.store.base.StoreBase` sets it)."""

    @contextmanager
    def monitor_memory_limit(self, limit: str = MONITOR_MEMORY_LIMIT) -> Iterator[None]:
        """Run the block with DuckDB's memory limit at ``limit`` (the previous limit is restored)."""
        import duckdb  # loaded already (the store is open); not at import: simulate never needs it

        con = self.con
        before = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
        con.execute(f"SET memory_limit = '{limit}'").fetchall()
        try:
            yield
        finally:
            try:
                con.execute("SET memory_limit = ?", [before]).fetchall()
            except duckdb.Error:  # DuckDB 1.3 prints a default it cannot parse back ('16.0 PiB')
                con.execute("RESET memory_limit").fetchall()

    def begin_monitor_import(self, project_name: str, file: str, table_name: str) -> int:
        """Start writing one monitor file; returns its import id, unfinished until :meth:`finish_monitor_import`."""
        self._check_writable()
        with self.transaction():
            new_id = self.next_id("monitor_imports")
            self.insert_records(
                [MonitorImport(new_id, project_name, file, table_name, utc_now(), UNFINISHED, ())]
            )
        return new_id

    def discard_monitor_imports(self, import_ids=None) -> None:
        """Remove imports and their cells (long form and wide tables): those of ``import_ids``, or (None) every unfinished one."""
        where = "id = ANY(?::BIGINT[])" if import_ids is not None else f"n_rows = {UNFINISHED}"
        args = [[int(i) for i in import_ids]] if import_ids is not None else []
        with self.transaction():
            drop_cells_tables(self.con, where, args)
            self.con.execute(
                f"DELETE FROM monitor_rows WHERE import_id IN (SELECT id FROM monitor_imports WHERE {where})",
                args,
            ).fetchall()
            self.con.execute(f"DELETE FROM monitor_imports WHERE {where}", args).fetchall()

    def checkpoint_monitor_rows(self, batches_written: int) -> None:
        """Checkpoint every :data:`CHECKPOINT_EVERY` batches (not inside a caller's transaction)."""
        if batches_written % CHECKPOINT_EVERY == 0 and not self._in_tx:
            self.con.execute("CHECKPOINT").fetchall()

    def append_monitor_cells(
        self,
        import_id: int,
        table_name: str,
        rows: dict,
        queue_names: list,
        cells: list,
    ) -> None:
        """Write one batch of cells of an import.

        Parameters
        ----------
        import_id : int
        table_name : str
        rows : dict
            Per row of the batch: ``line`` (int), ``monitor_time`` (datetime64[us]), ``queue_code``
            (int, index into ``queue_names``).
        queue_names : list of str
        cells : list of (str, numpy.ndarray, numpy.ndarray)
            ``(column, row mask, values)``: the values of the rows where the mask is set.
        """
        if not cells or not len(rows["line"]):
            return
        batch = {
            "_qrtune_line": np.asarray(rows["line"], dtype=np.int32),
            "_qrtune_time": np.asarray(rows["monitor_time"], dtype="datetime64[us]"),
            "_qrtune_queue": np.asarray(rows["queue_code"], dtype=np.int32) + 1,
        }
        for k, (_, mask, values) in enumerate(cells):
            full = np.full(len(mask), np.nan)
            full[mask] = values
            batch[f"v{k}"] = full
        wide = ", ".join(f"v{k} AS {quoted(column)}" for k, (column, _, _) in enumerate(cells))
        name = f"_qrtune_cells_{next(_batch_names)}"
        self.con.register(name, batch)
        try:
            self.con.execute(
                "INSERT INTO monitor_rows SELECT ?, ?, _qrtune_line, _qrtune_time, list_extract(?, _qrtune_queue), "
                f"col, value FROM (UNPIVOT (SELECT _qrtune_line, _qrtune_time, _qrtune_queue, {wide} FROM {name}) "
                "ON COLUMNS(* EXCLUDE (_qrtune_line, _qrtune_time, _qrtune_queue)) INTO NAME col VALUE value) "
                "WHERE NOT isnan(value)",
                [import_id, table_name, list(queue_names)],
            ).fetchall()
        finally:
            self.con.unregister(name)

    def finish_monitor_import(self, import_id: int, n_rows: int, numeric_columns: tuple) -> None:
        """Record the rows and stored columns of an import written with :meth:`append_monitor_cells`."""
        self.con.execute(
            "UPDATE monitor_imports SET n_rows = ?, columns_json = ? WHERE id = ?",
            [int(n_rows), json.dumps(list(numeric_columns)), import_id],
        ).fetchall()

    def record_monitor_import(self, project_name: str, file: str, table_name: str, columns: dict) -> int:
        """Write one parsed monitor file (long-form column arrays) and its import row; returns the import id.

        ``columns`` holds equal-length arrays ``line``, ``monitor_time`` (datetime64[us]),
        ``queue``, ``col``, ``value`` and the list ``numeric_columns``. Callers wanting
        several files all-or-nothing wrap the calls in :meth:`transaction`.
        """
        with self.transaction():
            new_id = self.begin_monitor_import(project_name, file, table_name)
            queue_names, codes = np.unique(np.asarray(columns["queue"], dtype=str), return_inverse=True)
            cols = np.asarray(columns["col"], dtype=object)
            rows = {"line": columns["line"], "monitor_time": columns["monitor_time"], "queue_code": codes}
            for column in dict.fromkeys(cols.tolist()):
                mask = cols == column
                self.append_monitor_cells(
                    new_id,
                    table_name,
                    rows,
                    queue_names.tolist(),
                    [(column, mask, np.asarray(columns["value"])[mask])],
                )
            self.finish_monitor_import(new_id, columns["n_rows"], tuple(columns["numeric_columns"]))
        return new_id

    def monitor_columns(self, project_name: str | None = None) -> dict[str, tuple[str, ...]]:
        """Table -> the columns with at least one imported cell (for ``project_name``, or all imports)."""
        where, args = _finished_imports("i.", project_name)
        sql = (
            "SELECT DISTINCT r.table_name, r.col FROM monitor_rows r JOIN monitor_imports i ON i.id = r.import_id "
            f"WHERE {where} UNION SELECT DISTINCT i.table_name, unnest(CAST(t.columns_json AS JSON)::VARCHAR[]) "
            f"FROM monitor_cell_tables t JOIN monitor_imports i ON i.id = t.import_id WHERE {where}"
        )
        out: dict[str, list] = {}
        for table, col in self.con.execute(sql + " ORDER BY 1, 2", args + args).fetchall():
            out.setdefault(table, []).append(col)
        return {t: tuple(c) for t, c in out.items()}

    def monitor_wide_sql(self, table_name: str, columns, project_name: str | None = None) -> tuple[str, list]:
        """SQL (and its parameters) of the imported rows of ``table_name`` one per queue and MONITOR_TIME.

        Columns ``queue``, ``monitor_time`` and one DOUBLE per name in ``columns`` (NULL where no
        import has the cell). Rows imported more than once (overlapping exports) are merged: each
        column takes the value of the latest import that has it (the later line within one file).
        Imports in long form (``monitor_rows``) and in wide tables are read alike.
        """
        where, where_args = _finished_imports("i.", project_name)
        source, args = sources_sql(self.con, table_name, columns, where, where_args)
        picks = "".join(
            f", arg_max({quoted(c)}, {ROW_KEY}) FILTER (WHERE {quoted(c)} IS NOT NULL) AS {quoted(c)}"
            for c in columns
        )
        return f"SELECT queue, monitor_time{picks} FROM ({source}) GROUP BY queue, monitor_time", args

    def import_cells_sql(self, import_id: int) -> tuple[str, list]:
        """SQL (and its parameters) of one import's cells in long form: line, monitor_time, queue, col, value."""
        return import_cells_sql(self.con, import_id)

    def list_monitor_imports(self, project_name: str | None = None) -> list[MonitorImport]:
        """Imported monitor files, oldest first (not those still being written)."""
        where, args = _finished_imports("", project_name)
        sql = (
            "SELECT id, project_name, file, table_name, imported, n_rows, columns_json FROM monitor_imports "
            f"WHERE {where}"
        )
        rows = self.con.execute(sql + " ORDER BY id", args).fetchall()
        return [MonitorImport(*r[:6], tuple(json.loads(r[6]))) for r in rows]
