"""Runs out of the store as a table: one row per run, its key settings and every metric side by side.

Written as Parquet (DuckDB's writer) or CSV. In CSV a text cell that starts with ``=``, ``+``,
``-`` or ``@`` is written with a leading apostrophe, so a spreadsheet shows it as text instead of
running it as a formula (numbers are left as they are).
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from engine.io.csvcell import text_cell
from engine.io.projectfile import atomic_write_text
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


def export_runs(
    store, out: str | os.PathLike, fmt: str, run_ids: Sequence[int] | None = None, sweep_id: int | None = None
) -> int:
    """Write the selected runs to ``out`` as ``csv`` or ``parquet``; returns the number of rows.

    The file is written to a temporary name next to ``out`` and renamed over it.

    Raises
    ------
    StoreError
        Unknown format.
    UnknownRunError
        Nothing selected exists.
    """
    if fmt not in FORMATS:
        raise StoreError(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
    sql, args = export_query(store, run_ids, sweep_id)
    out = Path(out)
    if fmt == "csv":
        cursor = store.con.execute(sql, args)
        header = [d[0] for d in cursor.description]
        rows = cursor.fetchall()
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(header)
        writer.writerows([safe_cell(v) for v in row] for row in rows)
        atomic_write_text(out, buf.getvalue())
        return len(rows)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent or ".")
    os.close(fd)
    os.unlink(tmp)  # DuckDB creates the file itself (with the user's umask)
    try:
        store.con.execute(
            f"COPY ({sql}) TO '{tmp.replace(chr(39), chr(39) * 2)}' (FORMAT PARQUET)", args
        ).fetchall()
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return int(store.con.execute(f"SELECT count(*) FROM ({sql})", args).fetchall()[0][0])
