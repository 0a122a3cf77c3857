"""Imported monitor cells as wide tables: one table per import, one DOUBLE column per IBM column.

An import read by DuckDB's CSV reader (:mod:`engine.monitor.sqlimport`) is written with one
``CREATE TABLE monitor_cells_<import id> AS SELECT ... FROM read_csv(...)``: columns
:data:`KEY_COLUMNS` (the file's line, MONITOR_TIME and queue) and one DOUBLE per stored column,
named as IBM names it (NULL where the file has no value); the line is numbered afterwards
(:func:`number_lines`). ``monitor_cell_tables`` (schema
version 5) lists these tables with the columns that hold a value. Imports of older stores, and
those written by the row-by-row reader, keep their cells in ``monitor_rows`` (one row per
cell); :func:`sources_sql` reads both forms as one relation.
"""

from __future__ import annotations

import json

KEY_COLUMNS = ("_qrtune_line", "_qrtune_time", "_qrtune_queue")
"""The key columns of a wide cell table: the file's line, MONITOR_TIME and the queue ('' for CAPMON)."""
ROW_KEY = "_qrtune_key"
"""Orders a queue's rows of one MONITOR_TIME in :func:`sources_sql`: a later import, then a later line, wins."""
_KEY_OF = "{import_id} * 4294967296 + {line}"


def quoted(name: str) -> str:
    """``name`` as an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def cells_table(import_id: int) -> str:
    """Name of the wide cell table of import ``import_id``."""
    return f"monitor_cells_{int(import_id)}"


def create_cells_table(con, import_id: int, select_sql: str, args: list) -> str:
    """``CREATE TABLE monitor_cells_<id> AS select_sql``; returns the table's name.

    ``select_sql`` gives the time and queue of :data:`KEY_COLUMNS`, then one DOUBLE per column
    (IBM's names), in the file's row order; :func:`number_lines` adds the line.
    """
    name = cells_table(import_id)
    con.execute(f"CREATE TABLE {name} AS {select_sql}", args).fetchall()
    return name


def number_lines(con, import_id: int, first_line: int) -> None:
    """Add the line column of :data:`KEY_COLUMNS` to the wide table of ``import_id``: ``first_line`` + the row's position.

    The table keeps the order its rows were written in (DuckDB's ``preserve_insertion_order``),
    so a row's position is its ``rowid``; numbering them here keeps the write free of a window,
    which would read the file on one core.
    """
    line = KEY_COLUMNS[0]
    name = cells_table(import_id)
    con.execute(f"ALTER TABLE {name} ADD COLUMN {line} INTEGER").fetchall()
    con.execute(f"UPDATE {name} SET {line} = CAST(rowid + ? AS INTEGER)", [int(first_line)]).fetchall()


def register_cells_table(con, import_id: int, columns) -> None:
    """List the wide table of ``import_id`` (and ``columns``, those with a value) in ``monitor_cell_tables``."""
    con.execute(
        "INSERT INTO monitor_cell_tables VALUES (?, ?, ?)",
        [int(import_id), cells_table(import_id), json.dumps(list(columns))],
    ).fetchall()


def drop_cells_tables(con, where: str, args: list) -> None:
    """Drop the wide tables of the imports ``SELECT id FROM monitor_imports WHERE {where}`` selects."""
    rows = con.execute(
        f"SELECT import_id, cells_table FROM monitor_cell_tables WHERE import_id IN "
        f"(SELECT id FROM monitor_imports WHERE {where})",
        args,
    ).fetchall()
    for import_id, name in rows:
        con.execute(f"DROP TABLE IF EXISTS {quoted(name)}").fetchall()
        con.execute("DELETE FROM monitor_cell_tables WHERE import_id = ?", [import_id]).fetchall()
    # a table written but not yet listed when its process was killed (its id may be given out again)
    for (import_id,) in con.execute(f"SELECT id FROM monitor_imports WHERE {where}", args).fetchall():
        con.execute(f"DROP TABLE IF EXISTS {cells_table(import_id)}").fetchall()
    # a table left by a process killed before it was listed
    listed = {r[0] for r in con.execute("SELECT cells_table FROM monitor_cell_tables").fetchall()}
    known = {r[0] for r in con.execute("SELECT id FROM monitor_imports").fetchall()}
    for (name,) in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'monitor\\_cells\\_%' ESCAPE '\\'"
    ).fetchall():
        suffix = name.rsplit("_", 1)[-1]
        if name not in listed and (not suffix.isdigit() or int(suffix) not in known):
            con.execute(f"DROP TABLE IF EXISTS {quoted(name)}").fetchall()


def wide_tables(con, table_name: str, finished_where: str, args: list) -> list[tuple[int, str, list]]:
    """(import id, wide table, columns with a value) of the imports of ``table_name`` the condition keeps.

    ``finished_where`` is a condition on ``monitor_imports`` written with prefix ``i.``.
    """
    rows = con.execute(
        "SELECT t.import_id, t.cells_table, t.columns_json FROM monitor_cell_tables t "
        f"JOIN monitor_imports i ON i.id = t.import_id WHERE {finished_where} AND i.table_name = ? "
        "ORDER BY t.import_id",
        [*args, table_name],
    ).fetchall()
    return [(int(i), str(name), json.loads(cols)) for i, name, cols in rows]


def sources_sql(con, table_name: str, columns, finished_where: str, args: list) -> tuple[str, list]:
    """One relation of the imported rows of ``table_name``, long-form and wide imports alike.

    Columns ``queue``, ``monitor_time``, :data:`ROW_KEY` and one DOUBLE per name in ``columns``
    (NULL where a row has no such cell); a long-form import gives one row per cell.
    """
    long_picks = "".join(f", CASE WHEN r.col = ? THEN r.value END AS {quoted(c)}" for c in columns)
    key = _KEY_OF.format(import_id="r.import_id", line="r.line")
    parts = [
        f"SELECT r.queue, r.monitor_time, {key} AS {ROW_KEY}{long_picks} FROM monitor_rows r "
        f"JOIN monitor_imports i ON i.id = r.import_id WHERE {finished_where} AND r.table_name = ?"
    ]
    out_args = [*columns, *args, table_name]
    for import_id, name, present in wide_tables(con, table_name, finished_where, args):
        picks = "".join(f", {quoted(c) if c in present else 'NULL::DOUBLE'} AS {quoted(c)}" for c in columns)
        line, time, queue = KEY_COLUMNS
        parts.append(
            f"SELECT {queue} AS queue, {time} AS monitor_time, "
            f"{_KEY_OF.format(import_id=import_id, line=line)} AS {ROW_KEY}{picks} FROM {quoted(name)}"
        )
    return " UNION ALL ".join(parts), out_args


def import_cells_sql(con, import_id: int) -> tuple[str, list]:
    """The cells of one import in long form (line, monitor_time, queue, col, value), from either form."""
    long_form = "SELECT line, monitor_time, queue, col, value FROM monitor_rows WHERE import_id = ?"
    rows = con.execute(
        "SELECT cells_table, columns_json FROM monitor_cell_tables WHERE import_id = ?", [int(import_id)]
    ).fetchall()
    if not rows or not json.loads(rows[0][1]):
        return long_form, [int(import_id)]
    name, columns = rows[0][0], json.loads(rows[0][1])
    line, time, queue = KEY_COLUMNS
    on = ", ".join(quoted(c) for c in columns)
    wide = (
        f"SELECT {line} AS line, {time} AS monitor_time, {queue} AS queue, col, value FROM "
        f"(UNPIVOT (SELECT {line}, {time}, {queue}, {on} FROM {quoted(name)}) ON {on} INTO NAME col VALUE value)"
    )
    return f"{long_form} UNION ALL {wide}", [int(import_id)]


__all__ = [
    "KEY_COLUMNS",
    "ROW_KEY",
    "cells_table",
    "create_cells_table",
    "drop_cells_tables",
    "import_cells_sql",
    "number_lines",
    "quoted",
    "register_cells_table",
    "sources_sql",
    "wide_tables",
]
