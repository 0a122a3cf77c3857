"""Importing a delimited monitor export with DuckDB's CSV reader, checked column by column in SQL.

A header CSV or a headerless DEL / UNLOAD DELIMITED file (UTF-8 or Latin-1, raw or hex FOR BIT
DATA) is read by DuckDB's ``read_csv`` with every column as text, in streaming passes over the
file, so neither the rows nor their cells are held in memory:

1. for columns no layout lists (a header CSV may have them): whether all their values are
   numbers or all timestamps;
2. the cells: every numeric and timestamp cell written to ``monitor_rows`` (UNPIVOT); a cell that
   is not what its column holds is written as NaN, and one scan of the import's cells finds it;
3. the row keys (line, MONITOR_TIME, queue): they count the rows, and give each queue's
   intervals when the file has no MONITOR_INTERVAL column.

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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from engine.monitor.values import NULLS

ENCODINGS = {"utf-8-sig": "utf-8", "latin-1": "latin-1"}
"""Python codec of a file -> DuckDB's ``read_csv`` encoding (others go the row-by-row way)."""
TIME_FORMATS = (
    "%Y-%m-%d-%H.%M.%S.%f",
    "%Y-%m-%d-%H.%M.%S",
    "%Y-%m-%d %H:%M:%S.%f",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%S.%f",
    "%Y-%m-%dT%H:%M:%S",
)
"""Timestamp forms read in SQL: Db2's, ISO with a blank or a T (others go the row-by-row way)."""
KEYS = "_qrtune_sql_keys"
"""Temporary table of a file's row keys when the caller needs none of its own."""
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


_C1_CONTROLS = bytes(range(0x80, 0xA0))
"""Bytes DuckDB's Latin-1 decoder refuses; they occur only in raw FOR BIT DATA, which is not stored."""
COPY_BLOCK = 1 << 22
"""Bytes copied at a time by :func:`readable_copy`."""


def line_ending(path: str) -> str:
    """``\\r\\n`` when the file's first line ends so (an export written on Windows), else ``\\n``."""
    with open(path, "rb") as f:
        head = f.read(COPY_BLOCK)
    end = head.find(b"\n")
    return "\r\n" if end > 0 and head[end - 1 : end] == b"\r" else "\n"


@contextmanager
def readable_copy(path: str, encoding: str) -> Iterator[str]:
    """The file as DuckDB reads it: itself, or a cleaned temporary copy with LF line ends.

    DuckDB's strict CSV reader reads no row of a file whose lines end in CR LF (an export written
    on Windows), and its Latin-1 decoder refuses bytes 0x80 .. 0x9F, which a Latin-1 file holds in
    raw FOR BIT DATA (log sequence numbers) with CRs inside quoted values. Those values are not
    stored, and no number, timestamp or queue name has such bytes, so the copy ends every line
    with a LF (a CR LF becomes a LF, anywhere), maps a CR elsewhere to ``?`` and, for Latin-1,
    bytes 0x80 .. 0x9F to ``?``. It is written block by block and removed afterwards.
    """
    latin = encoding == "latin-1"
    if not latin and line_ending(path) == "\n":
        yield path
        return
    table = bytes.maketrans(_C1_CONTROLS, b"?" * len(_C1_CONTROLS)) if latin else None
    fd, copy = tempfile.mkstemp(prefix="qrtune-import-", suffix=".del")
    try:
        with open(path, "rb") as src, os.fdopen(fd, "wb") as dst:
            carry = b""
            while block := src.read(COPY_BLOCK):
                block = carry + (block.translate(table) if table else block)
                carry, block = (b"\r", block[:-1]) if block.endswith(b"\r") else (b"", block)
                dst.write(block.replace(b"\r\n", b"\n").replace(b"\r", b"?"))
            dst.write(carry.replace(b"\r", b"?"))
        yield copy
    finally:
        os.unlink(copy)


def source_sql(path: str, n_fields: int, delimiter: str, header: bool, encoding: str) -> str:
    """``read_csv`` of the file with its fields as text columns ``c0`` .. ``c{n-1}`` (NULL as exports write it).

    Raises
    ------
    NotPlain
        An encoding DuckDB does not read (EBCDIC).
    """
    if encoding not in ENCODINGS:
        raise NotPlain(f"encoding {encoding}")
    columns = ", ".join(f"'c{i}': 'VARCHAR'" for i in range(n_fields))
    nulls = ", ".join(_lit(n) for n in sorted(NULLS))
    return (
        f"read_csv({_lit(path)}, delim={_lit(delimiter)}, quote='\"', escape='\"', header={str(header).lower()}, "
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

    def time(self, i: int, strict: bool = False) -> str:
        """SQL of column ``c{i}`` as a TIMESTAMP (NULL where it is not one; an error if ``strict``)."""
        return f"{'' if strict else 'try_'}strptime(c{i}, {_lit(self.time_format)})"

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


def _cells_sql(plan: Plan, kinds: dict, source: str, first_line: int) -> str:
    """The file's numeric and timestamp cells in long form (line, monitor_time, queue, col, value).

    A cell whose text is not a number (a timestamp) becomes NaN, so that one scan finds them.
    """
    nan = "'NaN'::DOUBLE"
    picks = []
    for i, name in enumerate(plan.names):
        kind = kinds.get(name) or ""
        value = {"number": f"TRY_CAST(c{i} AS DOUBLE)", "time": f"epoch_us({plan.time(i)}) / 1e6"}.get(kind)
        if value:
            picks.append(f"CASE WHEN c{i} IS NOT NULL THEN coalesce({value}, {nan}) END AS {_q(name)}")
    if not picks:
        return ""
    wide = (
        f"SELECT row_number() OVER () + {first_line - 1} AS _qrtune_line, "
        f"{plan.time(plan.time_index, strict=True)} AS _qrtune_time, {plan.queue} AS _qrtune_queue, "
        f"{', '.join(picks)} FROM {source}"
    )
    return (
        f"UNPIVOT ({wide}) ON COLUMNS(* EXCLUDE (_qrtune_line, _qrtune_time, _qrtune_queue)) "
        "INTO NAME col VALUE value"
    )


_BAD_KEYS = "monitor_time IS NULL OR queue IS NULL OR starts_with(queue, '''')"
"""A row key that the row-by-row reader must report or unescape (no time, no queue, an escaped name)."""


@dataclass(frozen=True)
class _Target:
    """Where one file's passes write: the import, its table name and the row-key table."""

    import_id: int
    table: str
    keys: str
    first_line: int


def _write(con, plan: Plan, kinds: dict, source: str, target: _Target, part) -> tuple:
    """Passes 2 and 3: the cells and the row keys; :class:`NotPlain` when a value is not its column's.

    Returns
    -------
    (n_rows, first MONITOR_TIME, last MONITOR_TIME)
    """
    cells = _cells_sql(plan, kinds, source, target.first_line)
    if cells:
        _run(
            con,
            "INSERT INTO monitor_rows SELECT ?, ?, _qrtune_line, _qrtune_time, _qrtune_queue, col, value "
            f"FROM ({cells})",
            [target.import_id, target.table],
            part(1, "reading"),
        )
    _run(
        con,
        f"INSERT INTO {target.keys} SELECT row_number() OVER () + {target.first_line - 1}, "
        f"{plan.time(plan.time_index, strict=True)}, {plan.queue} FROM {source}",
        [],
        part(2, "row keys"),
    )
    empty_queue = " OR queue = ''" if plan.queue_index is not None else ""
    n_rows, first, last, bad_keys = con.execute(
        f"SELECT count(*), min(monitor_time), max(monitor_time), count_if({_BAD_KEYS}{empty_queue}) "
        f"FROM {target.keys}"
    ).fetchall()[0]
    bad_cells = con.execute(
        "SELECT count(*) FROM monitor_rows WHERE import_id = ? AND NOT isfinite(value)", [target.import_id]
    ).fetchall()[0][0]
    if bad_keys or bad_cells:
        raise NotPlain(f"{bad_keys + bad_cells} value(s) to report")
    if not n_rows:  # the file has a first row (read_raw found it): DuckDB did not read it
        raise NotPlain("no row read")
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
    with readable_copy(job.path, raw.encoding) as path:
        source = source_sql(path, len(job.names), raw.delimiter, raw.header is not None, raw.encoding)
        return _passes(store, job, import_id, keys_table, plan, source, report)


def _passes(store, job, import_id: int, keys_table: str | None, plan: Plan, source: str, report) -> Result:
    """The passes of :func:`import_delimited` over ``source``; what is written is removed on any problem."""
    raw = job.raw
    shares = (0.1, 0.75, 0.15) if plan.other else (0.0, 0.85, 0.15)

    def part(k: int, what: str):
        if report is None:
            return None
        return lambda share: report(sum(shares[:k]) + shares[k] * share, what)

    con = store.con
    target = _Target(import_id, job.table.name, keys_table or KEYS, raw.first[0])
    if not keys_table:
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {KEYS} (line BIGINT, monitor_time TIMESTAMP, queue VARCHAR)"
        )
    try:
        kinds = _kinds(plan, con, source, part(0, "checking columns"))
        with store.transaction():
            n_rows, first, last = _write(con, plan, kinds, source, target, part)
    except Exception as e:
        con.execute("DELETE FROM monitor_rows WHERE import_id = ?", [import_id]).fetchall()
        con.execute(f"DELETE FROM {target.keys}").fetchall()
        if isinstance(e, NotPlain):
            raise
        raise NotPlain(str(e).splitlines()[0]) from None  # DuckDB's reader refused something
    finally:
        if not keys_table:
            con.execute(f"DROP TABLE IF EXISTS {KEYS}").fetchall()
    return Result(n_rows, kinds, first, last)
