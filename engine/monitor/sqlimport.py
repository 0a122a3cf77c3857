"""Importing a delimited monitor export with DuckDB's CSV reader, checked column by column in SQL.

A header CSV or a headerless DEL / UNLOAD DELIMITED file (UTF-8 or Latin-1, raw or hex FOR BIT
DATA) is read by DuckDB's ``read_csv`` in one streaming pass, so neither the rows nor their
cells are held in memory: ``CREATE TABLE monitor_cells_<import id> AS SELECT ... FROM
read_csv(...)`` writes MONITOR_TIME, the queue and one DOUBLE column per column an import stores
(:data:`engine.monitor.catalogue.STORED`; :mod:`engine.store.monitor_tables`), no Python per
row. The reader converts only those fields (DOUBLE, MONITOR_TIME as a TIMESTAMP in the first
row's form) and refuses the file at a value that is not one; it splits the other fields off
without reading them. The query has no window or order, so DuckDB reads the file on every core
and keeps its row order (``preserve_insertion_order``): each row's ``line`` is then set from
its position in the table. One scan of the written table finds values that are not finite and
bad row keys (and counts the rows and each column's values).

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

from engine.monitor.catalogue import stored_columns
from engine.monitor.intervals import write_intervals
from engine.monitor.values import NULLS
from engine.store.monitor_tables import (
    KEY_COLUMNS,
    cells_table,
    create_cells_table,
    number_lines,
    register_cells_table,
)

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
    first_time, last_time : datetime or None
    interval_source : str or None
        Where a derived MONITOR_INTERVAL came from (None: the file has the column).
    """

    n_rows: int
    first_time: datetime | None
    last_time: datetime | None
    interval_source: str | None = None


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
    """One file's stored columns (column -> its index), MONITOR_TIME's and the queue's index, and the time form of its first row."""

    names: tuple
    time_index: int
    queue_index: int | None
    numeric: dict
    time_format: str

    @property
    def queue(self) -> str:
        """SQL of the queue column ('' for a table without one)."""
        return f"trim(c{self.queue_index})" if self.queue_index is not None else "''"

    def types(self) -> dict[int, str]:
        """Field index -> the type DuckDB's reader gives it: MONITOR_TIME and the stored columns."""
        return {self.time_index: "TIMESTAMP", **{i: "DOUBLE" for i in self.numeric.values()}}


def plan_of(names: tuple, table, first_fields: list) -> Plan:
    """The file's stored columns (:func:`engine.monitor.catalogue.stored_columns`) and MONITOR_TIME's form.

    Raises
    ------
    NotPlain
        The first row's MONITOR_TIME is in a form :data:`TIME_FORMATS` does not have.
    """
    numeric = {n: names.index(n) for n in stored_columns(table.name, names)}
    queue = names.index(table.queue_column) if table.queue_column else None
    at = names.index("MONITOR_TIME")
    form = time_format(first_fields[at]) if len(first_fields) == len(names) else None
    if form is None:
        raise NotPlain("MONITOR_TIME in another form")
    return Plan(names, at, queue, numeric, form)


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


def _cells_sql(plan: Plan, source: str) -> tuple[str, tuple]:
    """The file's rows as the wide cell table stores them (but ``line``), and the stored columns (IBM's names).

    ``source`` reads the fields with :meth:`Plan.types`. Columns MONITOR_TIME and the queue of
    :data:`engine.store.monitor_tables.KEY_COLUMNS`, then one DOUBLE per stored column.
    """
    _, time, queue = KEY_COLUMNS
    picks = "".join(f", c{i} AS {_q(name)}" for name, i in plan.numeric.items())
    return f"SELECT c{plan.time_index} AS {time}, {plan.queue} AS {queue}{picks} FROM {source}", tuple(
        plan.numeric
    )


_BAD_KEYS = "{time} IS NULL OR {queue} IS NULL OR starts_with({queue}, '''')"
"""A row key that the row-by-row reader must report or unescape (no time, no queue, an escaped name)."""
_NOT_ASCII = " OR strlen({queue}) <> length({queue})"
"""A queue name that is not ASCII: in a Latin-1 file (read as UTF-8) the row-by-row reader decodes it."""


@dataclass(frozen=True)
class _Target:
    """Where one file's pass writes: the import and its table, the file's first data line and codec, MONITOR_INTERVAL's parameter."""

    import_id: int
    table: str
    first_line: int
    encoding: str
    interval_ms: float | None


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


def _check(con, plan: Plan, table: str, stored: tuple, target: _Target) -> Result:
    """Check the written wide table in one scan, number its lines and derive MONITOR_INTERVAL; :class:`NotPlain` for a value to report."""
    n_rows, first, last, bad_keys, bad_cells, *counts = con.execute(
        _checks_sql(table, stored, plan.queue_index is not None, target.encoding == "latin-1")
    ).fetchall()[0]
    if bad_keys or bad_cells:
        raise NotPlain(f"{bad_keys + bad_cells} value(s) to report")
    if not n_rows:  # the file has a first row (read_raw found it): DuckDB did not read it
        raise NotPlain("no row read")
    number_lines(con, target.import_id, target.first_line)
    register_cells_table(con, target.import_id, [c for c, n in zip(stored, counts) if n])
    interval_source = None
    if "MONITOR_INTERVAL" not in plan.names:  # read the row keys from the written table
        line, time, queue = KEY_COLUMNS
        keys = f"(SELECT {line} AS line, {time} AS monitor_time, {queue} AS queue FROM {table})"
        interval_source = write_intervals(con, target.import_id, target.table, keys, target.interval_ms)
    return Result(int(n_rows), first, last, interval_source)


def import_delimited(
    store,
    job,
    import_id: int,
    interval_ms: float | None = None,
    report: Callable[[float, str], None] | None = None,
) -> Result:
    """Check and write one delimited file with DuckDB; :class:`NotPlain` when it needs the row-by-row reader.

    Parameters
    ----------
    store : engine.store.Store
    job
        The file's import (:class:`engine.monitor.importer._FileImport`: path, raw, table, names).
    import_id : int
    interval_ms : float, optional
        The MONITOR_INTERVAL parameter for the first row of each queue of a file without the
        column (:func:`engine.monitor.intervals.write_intervals`).
    report : callable, optional
        ``report(share, what)`` with the share of the file read.

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
    target = _Target(import_id, job.table.name, raw.first[0], raw.encoding, interval_ms)
    part = None if report is None else (lambda share: report(share, "reading"))
    con = store.con
    with readable_copy(job.path) as path:
        source = source_sql(
            path,
            len(job.names),
            raw.delimiter,
            raw.header is not None,
            raw.encoding,
            plan.types(),
            plan.time_format,
        )
        cells, stored = _cells_sql(plan, source)
        try:
            with _Poll(con, part):  # committed on its own: the table's rowids are then its rows' positions
                table = create_cells_table(con, import_id, cells, [])
            with store.transaction():
                return _check(con, plan, table, stored, target)
        except Exception as e:
            con.execute(f"DROP TABLE IF EXISTS {cells_table(import_id)}").fetchall()
            con.execute("DELETE FROM monitor_cell_tables WHERE import_id = ?", [import_id]).fetchall()
            if isinstance(e, NotPlain):
                raise
            raise NotPlain(str(e).splitlines()[0]) from None  # DuckDB's reader refused something
