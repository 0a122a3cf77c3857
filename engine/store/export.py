"""Runs out of the store as a table: one row per run, its key settings and every metric side by side.

Written as Parquet (DuckDB's writer) or CSV. In CSV a text cell that starts with ``=``, ``+``,
``-`` or ``@`` is written with a leading apostrophe, so a spreadsheet shows it as text instead of
running it as a formula (numbers are left as they are).
"""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Sequence

from engine.io.atomicfile import atomic_file, atomic_path
from engine.io.csvcell import text_cell
from engine.store.errors import StoreError, UnknownRunError
from engine.store.views import METRIC_COLUMNS

FORMATS = ("csv", "parquet")
"""Export formats."""


def _selection_sql(run_ids: Sequence[int] | None, sweep_id: int | None) -> tuple[str, list]:
    if sweep_id is not None:
        return "SELECT id AS run_id FROM runs WHERE sweep_id = ?", [int(sweep_id)]
    return "SELECT unnest(?::BIGINT[]) AS run_id", [[int(i) for i in run_ids or ()]]


def export_query(
    store, run_ids: Sequence[int] | None = None, sweep_id: int | None = None
) -> tuple[str, list]:
    """SQL (and its parameters) giving one row per selected run: ``run_summary`` plus every metric.

    Raises
    ------
    UnknownRunError
        A run id or the sweep names nothing in the store.
    """
    select, args = _selection_sql(run_ids, sweep_id)
    found = {
        r[0]
        for r in store.con.execute(
            f"SELECT s.run_id FROM ({select}) s JOIN runs r ON r.id = s.run_id", args
        ).fetchall()
    }
    wanted = set(run_ids or ()) if sweep_id is None else found
    if not found or wanted - found:
        what = (
            f"sweep {sweep_id}"
            if sweep_id is not None
            else f"run {', '.join(map(str, sorted(wanted - found)))}"
        )
        raise UnknownRunError(
            f"no {what} in the store {store.path} (list them with qrtune runs --db {store.path})"
        )
    names = [
        r[0]
        for r in store.con.execute(
            f"SELECT DISTINCT metric FROM metrics WHERE run_id IN ({select}) ORDER BY metric", args
        ).fetchall()
    ]
    extra = [n for n in names if n not in METRIC_COLUMNS]
    pivot = "".join(
        f", max(value) FILTER (WHERE metric = '{n.replace(chr(39), '')}') AS \"{n}\"" for n in extra
    )
    sql = (
        f"WITH sel AS ({select}), more AS (SELECT run_id{pivot} FROM metrics WHERE run_id IN (SELECT run_id "
        f"FROM sel) GROUP BY run_id) SELECT s.* EXCLUDE (error), more.* EXCLUDE (run_id), s.error "
        f"FROM run_summary s JOIN sel USING (run_id) LEFT JOIN more USING (run_id) "
        f"ORDER BY s.sweep_id NULLS FIRST, s.point_index, s.run_id"
    )
    return sql, args


def safe_cell(value) -> object:
    """A CSV cell a spreadsheet will not evaluate: text starting like a formula gets a leading apostrophe."""
    return "" if value is None else text_cell(value)


#: Rows fetched from the store at a time while a CSV export is written (memory stays bounded).
EXPORT_CHUNK_ROWS = 2048


def export_runs(
    store, out: str | os.PathLike, fmt: str, run_ids: Sequence[int] | None = None, sweep_id: int | None = None
) -> int:
    """Write the selected runs to ``out`` as ``csv`` or ``parquet``; returns the number of rows.

    The file is written atomically (:mod:`engine.io.atomicfile`); CSV rows are streamed from
    the store :data:`EXPORT_CHUNK_ROWS` at a time, so a 100,000-point sweep is never held in memory.

    Raises
    ------
    StoreError
        Unknown format.
    UnknownRunError
        Nothing selected exists.
    OutputFileError
        ``out`` cannot be written (a device, a full disk); a previous file is unchanged.
    """
    if fmt not in FORMATS:
        raise StoreError(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
    sql, args = export_query(store, run_ids, sweep_id)
    if fmt == "csv":
        return _write_csv(store, out, sql, args)
    return _write_parquet(store, out, sql, args)


def _write_csv(store, out, sql: str, args: list) -> int:
    rows = 0
    with atomic_file(out, text=True, newline="") as f:
        cursor = store.con.execute(sql, args)
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow([d[0] for d in cursor.description])
        while chunk := cursor.fetchmany(EXPORT_CHUNK_ROWS):
            writer.writerows([safe_cell(v) for v in row] for row in chunk)
            rows += len(chunk)
    return rows


def _os_error(e: Exception) -> OSError:
    """DuckDB's IO error as an OSError with its errno (DuckDB appends ``"errno":"28"`` to the message)."""
    found = re.search(r'"errno"\s*:\s*"?(\d+)', str(e))
    if found:
        code = int(found.group(1))
        return OSError(code, os.strerror(code))
    return OSError(str(e).splitlines()[0][:200])


def _write_parquet(store, out, sql: str, args: list) -> int:
    import duckdb

    with atomic_path(out) as tmp:
        try:
            store.con.execute(
                f"COPY ({sql}) TO '{str(tmp).replace(chr(39), chr(39) * 2)}' (FORMAT PARQUET)", args
            ).fetchall()
        except duckdb.IOException as e:  # a full disk while DuckDB writes
            raise _os_error(e) from None
    return int(store.con.execute(f"SELECT count(*) FROM ({sql})", args).fetchall()[0][0])
