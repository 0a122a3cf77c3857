"""Importing a delimited monitor export with DuckDB's CSV reader, checked column by column in SQL.

A header CSV or a headerless DEL / UNLOAD DELIMITED file (UTF-8 or Latin-1, raw or hex FOR BIT
DATA) is read by DuckDB's ``read_csv`` with every column as text, in streaming passes over the
file, so neither the rows nor their cells are held in memory:

1. for columns no layout lists (a header CSV may have them): whether all their values are
   numbers or all timestamps;
2. the cells: ``CREATE TABLE monitor_cells_<import id> AS SELECT ... FROM read_csv(...)``, one
   DOUBLE column per numeric and timestamp column (:mod:`engine.store.monitor_tables`), no
   Python per row; the reader converts those fields itself (DOUBLE, TIMESTAMP in the first
   row's form) and refuses the file at a value that is not one; one scan of the written table
   finds values that are not finite (and counts the rows and each column's values);
3. the row keys (line, MONITOR_TIME, queue), copied from that table when the file has no
   MONITOR_INTERVAL column (they give each queue's intervals).

A value that is not what its column holds, a row with another number of fields, a timestamp in
another form than the first row's, EBCDIC: :func:`import_delimited` removes what it wrote and
raises :class:`NotPlain`, and the caller reads the file with the row-by-row reader of
:mod:`engine.monitor.cells`, which names each problem's file, line, column and value. A row's
``line`` is its position among the data rows plus the lines before the first (exact unless a
value holds a line break or blank lines sit between rows; it only orders rows of one
MONITOR_TIME).
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from engine.monitor.values import NULLS
from engine.store.monitor_tables import KEY_COLUMNS, cells_table, create_cells_table, register_cells_table

ENCODINGS = {"utf-8-sig": "utf-8", "latin-1": "utf-8"}
"""Python codec of a file -> DuckDB's ``read_csv`` encoding (others go the row-by-row way).

A Latin-1 file is read as UTF-8: DuckDB decodes only the fields a pass reads (numbers,
timestamps, the queue), which are ASCII in an export (a queue name that is not ASCII sends the
file the row-by-row way, :data:`_NOT_ASCII`); decoding the whole file as Latin-1 would cost a
pass of its own and refuse the bytes 0x80 .. 0x9F of raw FOR BIT DATA.
"""
TIME_FORMATS = (
    "%Y-%m-%d-%H.%M.%S.%f",
    "%Y-%m-%d-%H.%M.%S",
    "%Y-%m-%d %H:%M:%S.%f",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%S.%f",
    "%Y-%m-%dT%H:%M:%S",
)
"""Timestamp forms read in SQL: Db2's, ISO with a blank or a T (others go the row-by-row way)."""
POLL_S = 0.2
"""How often DuckDB's progress is read while a pass runs."""


class NotPlain(Exception):
    """The file needs the row-by-row reader (its message says why)."""


@dataclass(frozen=True)
class Result:
    """What the passes found and wrote.

    Attributes
    ----------
    n_rows : int
    kinds : dict[str, str or None]
        Column -> ``number``, ``time``, ``skip`` (or None: no value) for every column besides
        MONITOR_TIME, the queue and the text columns.
    first_time, last_time : datetime or None
    """

    n_rows: int
    kinds: dict
    first_time: datetime | None
    last_time: datetime | None


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def time_format(text: str) -> str | None:
    """The ``strptime`` form of a timestamp's text (one of :data:`TIME_FORMATS`); None for another form."""
    text = text.strip()
    if len(text) < 19 or text[4] != "-" or text[7] != "-" or text[10] not in "- T":
        return None
    clock = "%H.%M.%S" if text[13] == "." else "%H:%M:%S"
    form = f"%Y-%m-%d{text[10]}{clock}" + (".%f" if len(text) > 19 else "")
    return form if form in TIME_FORMATS else None


COPY_BLOCK = 1 << 22
"""Bytes copied at a time by :func:`readable_copy`."""


def line_ending(path: str) -> str:
    """``\\r\\n`` when the file's first line ends so (an export written on Windows), else ``\\n``."""
    with open(path, "rb") as f:
        head = f.read(COPY_BLOCK)
    end = head.find(b"\n")
    return "\r\n" if end > 0 and head[end - 1 : end] == b"\r" else "\n"


@contextmanager
def readable_copy(path: str) -> Iterator[str]:
    """The file as DuckDB reads it: itself, or (lines ending in CR LF) a temporary copy with LF line ends.

    DuckDB's strict CSV reader reads no row of a file whose lines end in CR LF (an export written
    on Windows; its ``new_line='\\r\\n'`` does not read them either), so such a file is copied
    block by block with every CR LF made a LF (inside a quoted value too: only raw FOR BIT DATA
    and text columns hold one, and they are not stored) and removed afterwards. A file with LF
    line ends is read where it is, whatever bytes its quoted values hold (a CR, a LF, bytes that
    are not UTF-8: DuckDB decodes only the fields a pass reads).
    """
    if line_ending(path) == "\n":
        yield path
        return
    fd, copy = tempfile.mkstemp(prefix="qrtune-import-", suffix=".del")
    try:
        with open(path, "rb") as src, os.fdopen(fd, "wb") as dst:
            carry = b""
            while block := src.read(COPY_BLOCK):
                block = carry + block
                carry, block = (b"\r", block[:-1]) if block.endswith(b"\r") else (b"", block)
                dst.write(block.replace(b"\r\n", b"\n"))
            dst.write(carry)
        yield copy
    finally:
        os.unlink(copy)


def source_sql(
    path: str,
    n_fields: int,
    delimiter: str,
    header: bool,
    encoding: str,
    types: Mapping[int, str] | None = None,
    time_format: str = TIME_FORMATS[0],
) -> str:
    """``read_csv`` of the file with its fields as columns ``c0`` .. ``c{n-1}`` (NULL as exports write it).

    A field is text unless ``types`` gives it ``DOUBLE`` or ``TIMESTAMP`` (in ``time_format``):
    then DuckDB's reader converts it and refuses the file at a value that is not one.

    Raises
    ------
    NotPlain
        An encoding DuckDB does not read (EBCDIC).
    """
    if encoding not in ENCODINGS:
        raise NotPlain(f"encoding {encoding}")
    types = types or {}
    columns = ", ".join(f"'c{i}': '{types.get(i, 'VARCHAR')}'" for i in range(n_fields))
    nulls = ", ".join(_lit(n) for n in sorted(NULLS))
    return (
        f"read_csv({_lit(path)}, delim={_lit(delimiter)}, quote='\"', escape='\"', header={str(header).lower()}, "
        f"timestampformat={_lit(time_format)}, "
        f"columns={{{columns}}}, auto_detect=false, strict_mode=true, encoding={_lit(ENCODINGS[encoding])}, "
        f"nullstr=[{nulls}], null_padding=false, new_line='\\n')"
    )


@dataclass(frozen=True)
class Plan:
    """One file's columns by what they hold (column -> its index), and the time form of its first row."""

    names: tuple
    time_index: int
    queue_index: int | None
    numeric: dict
    times: dict
    other: dict
    time_format: str

    def time(self, i: int) -> str:
        """SQL of text column ``c{i}`` as a TIMESTAMP (NULL where it is not one)."""
        return f"try_strptime(c{i}, {_lit(self.time_format)})"

    @property
    def queue(self) -> str:
        """SQL of the queue column ('' for a table without one)."""
        return f"trim(c{self.queue_index})" if self.queue_index is not None else "''"


def plan_of(names: tuple, table, first_fields: list) -> Plan:
    """Which columns are stored as numbers or timestamps, which are decided by their values.

    Raises
    ------
    NotPlain
        The first row's MONITOR_TIME is in a form :data:`TIME_FORMATS` does not have.
    """
    skip = {"MONITOR_TIME", table.queue_column, *table.text, ""}
    numeric = {n: i for i, n in enumerate(names) if n in table.numeric}
    times = {n: i for i, n in enumerate(names) if n in table.times}
    other = {n: i for i, n in enumerate(names) if n not in skip and n not in numeric and n not in times}
    queue = names.index(table.queue_column) if table.queue_column else None
    at = names.index("MONITOR_TIME")
    form = time_format(first_fields[at]) if len(first_fields) == len(names) else None
    if form is None:
        raise NotPlain("MONITOR_TIME in another form")
    return Plan(names, at, queue, numeric, times, other, form)


class _Poll:
    """Reports DuckDB's progress of the running query as a share of one pass, from a thread."""

    def __init__(self, con, report: Callable[[float], None] | None):
        self.con, self.done = con, threading.Event()
        self.report: Callable[[float], None] = report or (lambda share: None)
        self.polls = report is not None
        self.share = 0.0

    def __enter__(self):
        if self.polls:
            self.thread = threading.Thread(target=self._run, daemon=True)
            self.thread.start()
        return self

    def _run(self) -> None:
        while not self.done.wait(POLL_S):
            percent = self.con.query_progress()
            if percent is not None and percent / 100.0 > self.share:  # -1 when DuckDB cannot tell
                self.share = min(1.0, percent / 100.0)
                self.report(self.share)

    def __exit__(self, exc_type, *exc):
        self.done.set()
        if self.polls:
            self.thread.join()
            if exc_type is None:
                self.report(1.0)


def _run(con, sql: str, args: list, report) -> list:
    with _Poll(con, report):
        return con.execute(sql, args).fetchall()


def _kinds(plan: Plan, con, source: str, report) -> dict:
    """Column -> ``number`` / ``time`` / ``skip`` / None (no value) for every column that may be stored.

    Columns the layouts list take their type; another column is a number (a timestamp) when
    all its values are, counted in one pass over the file.
    """
    kinds: dict[str, str | None] = {}
    kinds.update({n: "number" for n in plan.numeric})
    kinds.update({n: "time" for n in plan.times})
    if not plan.other:
        return kinds
    parts = [
        f"count(c{i}), count(TRY_CAST(c{i} AS DOUBLE)), count({plan.time(i)})" for i in plan.other.values()
    ]
    counts = _run(con, f"SELECT {', '.join(parts)} FROM {source}", [], report)[0]
    for k, name in enumerate(plan.other):
        values, numbers, times = counts[3 * k : 3 * k + 3]
        kinds[name] = (
            None if not values else "number" if numbers == values else "time" if times == values else "skip"
        )
    return kinds


def _stored_types(plan: Plan, kinds: dict) -> dict[int, str]:
    """Field index -> the type DuckDB's reader gives it for the write pass: MONITOR_TIME and the stored columns."""
    types = {plan.time_index: "TIMESTAMP"}
    for i, name in enumerate(plan.names):
        kind = kinds.get(name)
        if kind in ("number", "time"):
            types[i] = "DOUBLE" if kind == "number" else "TIMESTAMP"
    return types


def _cells_sql(plan: Plan, kinds: dict, source: str, first_line: int) -> tuple[str, tuple]:
    """The file's rows as the wide cell table stores them, and the stored columns (IBM's names).

    ``source`` reads the fields with :func:`_stored_types`. Columns
    :data:`engine.store.monitor_tables.KEY_COLUMNS`, then one DOUBLE per numeric and timestamp
    column (timestamps as seconds since the epoch).
    """
    picks, stored = [], []
    for i, name in enumerate(plan.names):
        kind = kinds.get(name)
        if kind in ("number", "time"):
            value = f"c{i}" if kind == "number" else f"epoch_us(c{i}) / 1e6"
            picks.append(f", {value} AS {_q(name)}")
            stored.append(name)
    line, time, queue = KEY_COLUMNS
    sql = (
        f"SELECT CAST(row_number() OVER () + {first_line - 1} AS INTEGER) AS {line}, "
        f"c{plan.time_index} AS {time}, {plan.queue} AS {queue}{''.join(picks)} FROM {source}"
    )
    return sql, tuple(stored)


_BAD_KEYS = "{time} IS NULL OR {queue} IS NULL OR starts_with({queue}, '''')"
"""A row key that the row-by-row reader must report or unescape (no time, no queue, an escaped name)."""
_NOT_ASCII = " OR strlen({queue}) <> length({queue})"
"""A queue name that is not ASCII: in a Latin-1 file (read as UTF-8) the row-by-row reader decodes it."""


@dataclass(frozen=True)
class _Target:
    """Where one file's passes write: the import, its table name, the row-key table (or None), the file's codec."""

    import_id: int
    table: str
    keys: str | None
    first_line: int
    encoding: str


def _checks_sql(table: str, stored: tuple, has_queue: bool, latin: bool = False) -> str:
    """One scan of a wide cell table: rows, first and last MONITOR_TIME, bad keys, bad cells, values per column.

    ``latin``: the file is Latin-1 (read as UTF-8), so a queue name that is not ASCII is a bad key.
    """
    _, time, queue = KEY_COLUMNS
    bad_keys = _BAD_KEYS.format(time=time, queue=queue) + (f" OR {queue} = ''" if has_queue else "")
    bad_keys += _NOT_ASCII.format(queue=queue) if latin else ""
    bad_cells = " OR ".join(f"NOT isfinite({_q(c)})" for c in stored) or "FALSE"
    counts = "".join(f", count({_q(c)})" for c in stored)
    return (
        f"SELECT count(*), min({time}), max({time}), count_if({bad_keys}), count_if({bad_cells}){counts} "
        f"FROM {table}"
    )


def _write(con, plan: Plan, kinds: dict, source: str, target: _Target, part) -> tuple:
    """Pass 2: the wide cell table, read straight from the file; :class:`NotPlain` when a value is not its column's.

    The row keys (when the caller wants them) and the checks are read from the written table,
    not from the file again.

    Returns
    -------
    (n_rows, first MONITOR_TIME, last MONITOR_TIME)
    """
    cells, stored = _cells_sql(plan, kinds, source, target.first_line)
    with _Poll(con, part(1, "reading")):
        table = create_cells_table(con, target.import_id, cells, [])
    n_rows, first, last, bad_keys, bad_cells, *counts = con.execute(
        _checks_sql(table, stored, plan.queue_index is not None, target.encoding == "latin-1")
    ).fetchall()[0]
    if bad_keys or bad_cells:
        raise NotPlain(f"{bad_keys + bad_cells} value(s) to report")
    if not n_rows:  # the file has a first row (read_raw found it): DuckDB did not read it
        raise NotPlain("no row read")
    register_cells_table(con, target.import_id, [c for c, n in zip(stored, counts) if n])
    if target.keys:
        line, time, queue = KEY_COLUMNS
        _run(
            con,
            f"INSERT INTO {target.keys} SELECT {line}, {time}, {queue} FROM {table}",
            [],
            part(2, "row keys"),
        )
    return int(n_rows), first, last


def import_delimited(
    store,
    job,
    import_id: int,
    keys_table: str | None,
    report: Callable[[float, str], None] | None = None,
) -> Result:
    """Check and write one delimited file with DuckDB; :class:`NotPlain` when it needs the row-by-row reader.

    Parameters
    ----------
    store : engine.store.Store
    job
        The file's import (:class:`engine.monitor.importer._FileImport`: path, raw, table, names).
    import_id : int
    keys_table : str or None
        Temporary table (line, monitor_time, queue) to fill with a row per file row (a file
        without MONITOR_INTERVAL), or None.
    report : callable, optional
        ``report(share, what)`` with the share of the file's passes done.

    Raises
    ------
    NotPlain
        The file has a problem to report line by line, or a form DuckDB does not read here;
        nothing is left written for ``import_id``.
    """
    raw = job.raw
    if raw.shape not in ("csv", "del") or raw.first is None:
        raise NotPlain(f"shape {raw.shape}")
    plan = plan_of(job.names, job.table, raw.first[1])
    if raw.encoding not in ENCODINGS:
        raise NotPlain(f"encoding {raw.encoding}")
    with readable_copy(job.path) as path:

        def source(types=None) -> str:
            header = raw.header is not None
            return source_sql(
                path, len(job.names), raw.delimiter, header, raw.encoding, types, plan.time_format
            )

        return _passes(store, job, import_id, keys_table, plan, source, report)


def _passes(store, job, import_id: int, keys_table: str | None, plan: Plan, source, report) -> Result:
    """The passes of :func:`import_delimited` over ``source(types)``; what is written is removed on any problem."""
    shares = (0.1, 0.8, 0.1) if plan.other else (0.0, 0.9, 0.1)

    def part(k: int, what: str):
        if report is None:
            return None
        return lambda share: report(sum(shares[:k]) + shares[k] * share, what)

    con = store.con
    target = _Target(import_id, job.table.name, keys_table, job.raw.first[0], job.raw.encoding)
    try:
        kinds = _kinds(plan, con, source(), part(0, "checking columns"))
        with store.transaction():
            n_rows, first, last = _write(con, plan, kinds, source(_stored_types(plan, kinds)), target, part)
    except Exception as e:
        con.execute(f"DROP TABLE IF EXISTS {cells_table(import_id)}").fetchall()
        con.execute("DELETE FROM monitor_cell_tables WHERE import_id = ?", [import_id]).fetchall()
        if keys_table:
            con.execute(f"DELETE FROM {keys_table}").fetchall()
        if isinstance(e, NotPlain):
            raise
        raise NotPlain(str(e).splitlines()[0]) from None  # DuckDB's reader refused something
    return Result(n_rows, kinds, first, last)
