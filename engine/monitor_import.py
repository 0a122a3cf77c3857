"""Importing exports of the Q Replication monitor tables into the store.

Q Capture writes a row to IBMQREP_CAPMON (the program) and one per send queue to
IBMQREP_CAPQMON at every MONITOR_INTERVAL; Q Apply writes one per receive queue to
IBMQREP_APPLYMON. Their columns grew over releases, so a file may carry columns
this module does not list and lack optional ones; only MONITOR_TIME and the queue
column (SENDQ for CAPQMON, RECVQ for APPLYMON) are required. Files are header CSV,
Db2 DEL or z/OS UNLOAD DELIMITED exports, or CLP output (:mod:`engine.monitor_formats`);
a file without a header has its table's documented column order
(:mod:`engine.monitor_layouts`).

MONITOR_INTERVAL is a parameter (IBMQREP_APPLYPARMS, IBMQREP_CAPPARMS), not a column of
IBMQREP_APPLYMON: each row's interval is the time since the queue's previous row, and the
first row of a queue takes the parameter when its export is imported with the monitor
files, else the median spacing of MONITOR_TIME (:func:`interval_lengths_s`).

Units are the product's: counters (ROWS_PUBLISHED, TRANS_PUBLISHED, ROWS_APPLIED ...)
are per monitor interval; latencies (END2END_LATENCY, QLATENCY, APPLY_LATENCY,
CAPTURE_LATENCY) are the interval's average in milliseconds; MONITOR_INTERVAL is in
milliseconds; CURRENT_MEMORY in bytes; MQ_BYTES in bytes. Values are stored
unchanged, one cell per row of ``monitor_rows``; timestamp columns other than
MONITOR_TIME are stored as seconds since the epoch.

Every file is parsed completely before anything is written, and all files of one
import are written in one transaction: a malformed row is reported with file and
line, and nothing of that import is left behind.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np

from engine.monitor_formats import RawTable, column_name, read_raw
from engine.monitor_layouts import (
    APPLYMON,
    CAPMON,
    CAPQMON,
    INTERVAL_SOURCE,
    MONITOR_TABLES,
    TABLES,
    TableSpec,
    layout_for,
    layouts,
)
from engine.store.errors import MonitorImportError

_EPOCH = datetime(1970, 1, 1)


_NULLS = {"", "NULL", "-", "?"}
_TS_PATTERNS = (
    re.compile(r"^(\d{4})-(\d{2})-(\d{2})[-T ](\d{2})[.:](\d{2})[.:](\d{2})(?:[.,](\d{1,12}))?$"),
)
KNOWN_COLUMNS = frozenset(
    {"MONITOR_TIME"}
    | {c for t in TABLES.values() for c in (*t.numeric, *t.text, *t.times)}
    | {c for t in TABLES.values() for cols in layouts(t).values() for c in cols} - {"QMGR"}
)
"""Column names that mark a file's first line as a header."""


@dataclass(frozen=True)
class ParsedFile:
    """One monitor CSV parsed into long-form columns, ready to write.

    Attributes
    ----------
    file : str
    table : TableSpec
    n_rows : int
        Data rows.
    numeric_columns : tuple[str, ...]
        Columns stored.
    ignored_columns : tuple[str, ...]
        Text columns skipped.
    line, monitor_time, queue, col, value : numpy.ndarray
        One entry per stored cell.
    shape : str
        The file's shape (``csv``, ``del``, ``clp``, ``clp-x``; :mod:`engine.monitor_formats`).
    interval_source : str
        Where MONITOR_INTERVAL came from (the file's column, or the spacing of MONITOR_TIME).
    """

    file: str
    table: TableSpec
    n_rows: int
    numeric_columns: tuple
    ignored_columns: tuple
    line: np.ndarray
    monitor_time: np.ndarray
    queue: np.ndarray
    col: np.ndarray
    value: np.ndarray
    shape: str = "csv"
    interval_source: str = "file's MONITOR_INTERVAL column"

    def columns(self) -> dict:
        """The arrays :meth:`engine.store.Store.record_monitor_import` takes."""
        return {
            "n_rows": self.n_rows,
            "numeric_columns": self.numeric_columns,
            "line": self.line,
            "monitor_time": self.monitor_time,
            "queue": self.queue,
            "col": self.col,
            "value": self.value,
        }


def parse_timestamp(text: str) -> datetime | None:
    """A Db2 (``2013-04-02-10.15.30.123456``) or ISO timestamp; None when ``text`` is neither."""
    text = text.strip()
    if len(text) in (19, 26) and text[4] == "-" and text[7] == "-":  # the usual forms, at C speed
        if text[10] == "-" and text[13] == "." and text[16] == ".":
            iso = f"{text[:10]} {text[11:13]}:{text[14:16]}:{text[17:]}"
        else:
            iso = text
        try:
            ts = datetime.fromisoformat(iso)
        except ValueError:
            ts = None
        if (
            ts is not None
            and ts.tzinfo is None
            and iso[10] in " T"
            and iso[13] == ":"
            and iso[16] == ":"
            and (len(iso) == 19 or iso[19] in ".,")
        ):
            return ts
    m = _TS_PATTERNS[0].match(text)
    if not m:
        return None
    y, mo, d, h, mi, s, frac = m.groups()
    micro = int((frac or "0").ljust(6, "0")[:6])
    try:
        return datetime(int(y), int(mo), int(d), int(h), int(mi), int(s), micro)
    except ValueError:
        return None


def _table_from_name(path: str) -> TableSpec | None:
    stem = Path(path).name.upper()
    for name in (*TABLES, *(t.removeprefix("IBMQREP_") for t in TABLES)):
        if name in stem:
            return TABLES[name if name.startswith("IBMQREP_") else "IBMQREP_" + name]
    return None


def _table_from_columns(header: Sequence[str]) -> TableSpec | None:
    cols = set(header)
    if "RECVQ" in cols:
        return APPLYMON
    if "SENDQ" in cols:
        return CAPQMON
    if cols & {"ROWS_PROCESSED", "TRANS_PROCESSED", "CURRENT_LOG_TIME", "CAPTURE_IDLE"}:
        return CAPMON
    return None


def _table_from_column_count(n_fields: int) -> TableSpec | None:
    """The monitor table with a documented layout of ``n_fields`` columns (the counts do not overlap)."""
    matches = [t for t in MONITOR_TABLES.values() if any(len(c) == n_fields for c in layouts(t).values())]
    return matches[0] if len(matches) == 1 else None


def detect_table(path: str, header: Sequence[str]) -> TableSpec:
    """Which table a file holds: by the table name in the file name, else by its columns.

    Raises
    ------
    MonitorImportError
        Neither tells.
    """
    table = _table_from_name(path) or _table_from_columns(header)
    if table is None:
        raise MonitorImportError(
            f"{path}:1: cannot tell which monitor table this is; name the file after the table "
            "(…CAPMON.csv, …CAPQMON.csv, …APPLYMON.del, …APPLYPARMS.del) or export the header with MONITOR_TIME "
            "and RECVQ (IBMQREP_APPLYMON), SENDQ (IBMQREP_CAPQMON) or ROWS_PROCESSED (IBMQREP_CAPMON)"
        )
    return table


def _table_of(path: str, raw: RawTable, columns: Sequence[str] | None) -> TableSpec:
    names = tuple(columns or raw.header or ())
    if names or not raw.rows:
        return detect_table(path, names)
    table = _table_from_name(path) or _table_from_column_count(len(raw.rows[0][1]))
    return table or detect_table(path, ())


def _column_names(
    path: str, raw: RawTable, table: TableSpec, release: str | None, columns: Sequence[str] | None
) -> tuple[str, ...]:
    """The file's column order: ``--columns``, its header, or the release's documented layout."""
    if columns:
        names = tuple(column_name(c) for c in columns)
    elif raw.header is not None:
        names = raw.header
    elif raw.rows:
        names = layout_for(table, len(raw.rows[0][1]), release, f"{path}:{raw.rows[0][0]}")
    else:
        raise MonitorImportError(f"{path}:1: no rows and no header line")
    required = (
        ["MONITOR_INTERVAL"]
        if table.is_parameters
        else ["MONITOR_TIME"] + ([table.queue_column] if table.queue_column else [])
    )
    missing = [c for c in required if c not in names]
    if missing:
        raise MonitorImportError(
            f"{path}:1: {table.name} export lacks column {', '.join(missing)}; header has: {', '.join(names)}"
        )
    dupes = sorted({h for h in names if names.count(h) > 1})
    if dupes:
        raise MonitorImportError(f"{path}:1: column {', '.join(dupes)} appears twice in the header")
    return names


def _floats(values: list[str]) -> np.ndarray | None:
    """``values`` as finite floats in one numpy conversion; None when any is not a finite number."""
    try:
        out = np.asarray(values, dtype=np.float64)
    except ValueError:
        return None
    return out if np.isfinite(out).all() else None


def _to_float(text: str) -> float | None:
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _check_rows(path: str, raw_rows: list, names: tuple, table: TableSpec, max_errors: int):
    """Rows with the right field count, a MONITOR_TIME and a queue: ``(rows, errors)``.

    Each row is ``(line, MONITOR_TIME, queue, fields)``.
    """
    i_time = names.index("MONITOR_TIME")
    i_queue = names.index(table.queue_column) if table.queue_column else None
    errors: list[str] = []
    rows: list[tuple[int, datetime, str, list[str]]] = []
    for line, fields in raw_rows:
        if len(errors) >= max_errors:
            break
        if len(fields) != len(names):
            errors.append(f"{path}:{line}: {len(fields)} fields but the header has {len(names)}")
            continue
        ts = parse_timestamp(fields[i_time])
        queue = fields[i_queue].strip() if i_queue is not None else ""
        if ts is None:
            errors.append(
                f"{path}:{line}: MONITOR_TIME {fields[i_time]!r} is not a timestamp "
                "(expected YYYY-MM-DD-HH.MM.SS.ffffff or YYYY-MM-DD HH:MM:SS)"
            )
        elif i_queue is not None and not queue:
            errors.append(f"{path}:{line}: {table.queue_column} is empty")
        else:
            rows.append((line, ts, queue, fields))
    return rows, errors


def _numbers(
    path: str, name: str, raw: list, present: np.ndarray, line_arr: np.ndarray, errors: list, max_errors: int
) -> np.ndarray:
    """A numeric column's present values; each value that is not a number is an error."""
    values = [v for v, p in zip(raw, present) if p]
    numbers = _floats(values)
    if numbers is not None:
        return numbers
    for k in np.flatnonzero(present):
        if _to_float(raw[k]) is None and len(errors) < max_errors:
            errors.append(f"{path}:{line_arr[k]}: {name} {raw[k]!r} is not a number")
    return np.zeros(len(values))


def _seconds_since_epoch(
    path: str, name: str, raw: list, present: np.ndarray, line_arr: np.ndarray, errors: list
) -> np.ndarray:
    """A timestamp column's present values as seconds since 1970-01-01; a bad value is an error."""
    stamps = [parse_timestamp(v) for v, p in zip(raw, present) if p]
    bad = next((int(line_arr[k]) for k, s in zip(np.flatnonzero(present), stamps) if s is None), None)
    if bad is not None:
        errors.append(f"{path}:{bad}: {name} is not a timestamp")
    return np.asarray([((s or _EPOCH) - _EPOCH).total_seconds() for s in stamps], dtype=float)


def _column_kind(name: str, table: TableSpec, raw: list, present: np.ndarray) -> str:
    """``number``, ``time`` or ``skip``: known columns by the table spec, others by their values."""
    if name in table.numeric:
        return "number"
    if name in table.times:
        return "time"
    values = [v for v, p in zip(raw, present) if p]
    if values and _floats(values) is not None:
        return "number"
    if values and all(parse_timestamp(v) for v in values):
        return "time"
    return "skip"


def _stored_columns(path: str, names: tuple, table: TableSpec, rows: list, errors: list, max_errors: int):
    """Column by column (a week of 10-second rows is 60,480 lines): ``(stored, ignored)``.

    Known numeric columns must hold numbers; unknown ones are stored when all their values are
    numbers or timestamps, else skipped. ``stored`` holds ``(name, row mask, values)``.
    """
    line_arr = np.asarray([r[0] for r in rows], dtype=np.int32)
    skip = {"MONITOR_TIME", table.queue_column} | set(table.text)
    stored: list[tuple[str, np.ndarray, np.ndarray]] = []
    ignored: list[str] = []
    for i, name in enumerate(names):
        if name in skip or not name or len(errors) >= max_errors:
            continue
        raw = [r[3][i].strip() for r in rows]
        present = np.asarray([v.upper() not in _NULLS for v in raw], dtype=bool)
        kind = _column_kind(name, table, raw, present)
        if kind == "number":
            stored.append((name, present, _numbers(path, name, raw, present, line_arr, errors, max_errors)))
        elif kind == "time":
            stored.append((name, present, _seconds_since_epoch(path, name, raw, present, line_arr, errors)))
        else:
            ignored.append(name)
    return stored, ignored


def _raise_errors(path: str, errors: list, max_errors: int, hint: str) -> None:
    errors.sort(key=lambda e: int(e[len(path) + 1 :].split(":", 1)[0]))
    more = " (stopped after the first problems)" if len(errors) >= max_errors else ""
    raise MonitorImportError(
        f"{len(errors)} malformed row(s) in {Path(path).name}; nothing was imported{more}:\n  "
        + "\n  ".join(errors[:max_errors])
        + hint
    )


def interval_lengths_s(times_s: np.ndarray, queues: np.ndarray, first_s: float | None = None) -> np.ndarray:
    """Each monitor row's interval (s) from the spacing of MONITOR_TIME, queue by queue.

    A row's interval is the time since the queue's previous row; the first row of a queue has
    no previous row and takes ``first_s`` (the MONITOR_INTERVAL parameter) when given, else the
    median spacing of that queue's rows. NaN only for a queue with a single row and no ``first_s``.

    Parameters
    ----------
    times_s : numpy.ndarray
        MONITOR_TIME per row, s (any epoch).
    queues : numpy.ndarray
        Queue per row ("" for IBMQREP_CAPMON).
    first_s : float, optional
        MONITOR_INTERVAL, s.
    """
    out = np.full(len(times_s), np.nan)
    for q in dict.fromkeys(queues.tolist()):
        idx = np.flatnonzero(queues == q)
        idx = idx[np.argsort(times_s[idx], kind="stable")]
        gaps = np.diff(times_s[idx])
        positive = gaps[gaps > 0]
        out[idx[1:]] = np.where(gaps > 0, gaps, np.nan)
        if first_s is not None:
            out[idx[0]] = first_s
        elif positive.size:
            out[idx[0]] = float(np.median(positive))
    return out


def parameter_interval_s(value: float, times_s: np.ndarray, queues: np.ndarray) -> float:
    """MONITOR_INTERVAL from IBMQREP_APPLYPARMS/CAPPARMS in s.

    Milliseconds since Version 9.7, seconds before: the unit is the one that brings the value
    nearer the median spacing of MONITOR_TIME (milliseconds when the rows cannot tell).
    """
    spacing = interval_lengths_s(times_s, queues)
    spacing = spacing[np.isfinite(spacing)]
    if not spacing.size:
        return value / 1000.0
    median_s = float(np.median(spacing))
    return min((value / 1000.0, value), key=lambda s: abs(math.log(s / median_s)) if s > 0 else math.inf)


def _with_monitor_interval(stored: list, rows: list, interval_ms: float | None) -> tuple[list, str]:
    """Add MONITOR_INTERVAL (ms) per row when the file lacks it (IBMQREP_APPLYMON never has it)."""
    if any(name == "MONITOR_INTERVAL" for name, _, _ in stored) or not rows:
        return stored, "file's MONITOR_INTERVAL column"
    times_s = np.asarray([r[1] for r in rows], dtype="datetime64[us]").astype(np.int64) / 1e6
    queues = np.asarray([r[2] for r in rows], dtype=object)
    first_s = parameter_interval_s(interval_ms, times_s, queues) if interval_ms else None
    lengths_s = interval_lengths_s(times_s, queues, first_s)
    present = np.isfinite(lengths_s)
    source = "MONITOR_TIME spacing" + (" and the parameter table (first interval)" if first_s else "")
    return stored + [("MONITOR_INTERVAL", present, lengths_s[present] * 1000.0)], source


def _long_form(path: str, table: TableSpec, rows: list, stored: list, ignored: list, **extra) -> ParsedFile:
    line_arr = np.asarray([r[0] for r in rows], dtype=np.int32)
    time_arr = np.asarray([r[1] for r in rows], dtype="datetime64[us]")
    queue_arr = np.asarray([r[2] for r in rows], dtype=object)
    parts = [(np.flatnonzero(mask), name, vals) for name, mask, vals in stored]

    def cat(arrays, dtype):
        return np.concatenate(arrays).astype(dtype) if arrays else np.asarray([], dtype=dtype)

    return ParsedFile(
        path,
        table,
        len(rows),
        tuple(name for name, _, _ in stored),
        tuple(ignored),
        cat([line_arr[idx] for idx, _, _ in parts], np.int32),
        cat([time_arr[idx] for idx, _, _ in parts], "datetime64[us]"),
        cat([queue_arr[idx] for idx, _, _ in parts], object),
        cat([np.full(idx.size, name, dtype=object) for idx, name, _ in parts], object),
        cat([np.asarray(v, dtype=np.float64) for _, _, v in parts], np.float64),
        **extra,
    )


def read_file(path: str | Path, *, release: str | None = None, columns: Sequence[str] | None = None):
    """A file's text fields, its table and its column order: ``(raw, table, names)``.

    Raises
    ------
    MonitorImportError
        Unreadable, unknown table, or columns that match no documented layout.
    """
    path = str(path)
    raw = read_raw(path, KNOWN_COLUMNS)
    table = _table_of(path, raw, columns)
    return raw, table, _column_names(path, raw, table, release, columns)


def parse_file(
    path: str | Path,
    max_errors: int = 10,
    *,
    release: str | None = None,
    columns: Sequence[str] | None = None,
    interval_ms: float | None = None,
) -> ParsedFile:
    """Parse one export of IBMQREP_CAPMON, IBMQREP_CAPQMON or IBMQREP_APPLYMON.

    Parameters
    ----------
    path : str or Path
        Header CSV, DEL or UNLOAD DELIMITED, CLP table or ``db2 -x`` output
        (:mod:`engine.monitor_formats`).
    max_errors : int
        Problems listed before giving up.
    release : str, optional
        Q Replication release whose column order a headerless file has
        (:data:`engine.monitor_layouts.RELEASES`); default: by column count.
    columns : sequence of str, optional
        The column order, overriding the file's header or the release layout.
    interval_ms : float, optional
        MONITOR_INTERVAL from the parameter table (ms, or s before Version 9.7), used for the
        first interval of each queue when the file has no MONITOR_INTERVAL column.

    Raises
    ------
    MonitorImportError
        The file cannot be read, lacks a required column, or has malformed rows; the
        message lists up to ``max_errors`` problems as ``file:line: what``.
    """
    path = str(path)
    raw, table, names = read_file(path, release=release, columns=columns)
    if table.is_parameters:
        raise MonitorImportError(
            f"{path}: {table.name} holds MONITOR_INTERVAL, not monitor rows; import it "
            "together with the monitor files"
        )
    rows, errors = _check_rows(path, raw.rows, names, table, max_errors)
    stored, ignored = _stored_columns(path, names, table, rows, errors, max_errors)
    if errors:
        hint = (
            ""
            if raw.header or columns
            else (
                f"\n  (columns in the documented order of {table.name} with {len(names)} columns; "
                "if the table differs, name them with --columns or export a header)"
            )
        )
        _raise_errors(path, errors, max_errors, hint)
    stored, source = _with_monitor_interval(stored, rows, interval_ms)
    return _long_form(path, table, rows, stored, ignored, shape=raw.shape, interval_source=source)


def parse_parameters(
    path: str | Path, *, release: str | None = None, columns: Sequence[str] | None = None
) -> tuple[TableSpec, float]:
    """``(table, MONITOR_INTERVAL)`` of an IBMQREP_APPLYPARMS or IBMQREP_CAPPARMS export.

    Raises
    ------
    MonitorImportError
        Not a parameter table, or MONITOR_INTERVAL is not a positive number.
    """
    path = str(path)
    raw, table, names = read_file(path, release=release, columns=columns)
    if not table.is_parameters or not raw.rows:
        raise MonitorImportError(f"{path}: expected one row of IBMQREP_APPLYPARMS or IBMQREP_CAPPARMS")
    line, fields = raw.rows[0]
    text = fields[names.index("MONITOR_INTERVAL")] if len(fields) == len(names) else ""
    value = _to_float(text)
    if value is None or value <= 0:
        raise MonitorImportError(f"{path}:{line}: MONITOR_INTERVAL {text!r} is not a positive number")
    return table, value


def parse_files(
    paths: Sequence[str | Path], *, release: str | None = None, columns: Sequence[str] | None = None
) -> list[ParsedFile]:
    """Parse monitor exports together with the parameter tables that give their MONITOR_INTERVAL.

    Files of IBMQREP_APPLYPARMS / IBMQREP_CAPPARMS among ``paths`` are read first; their
    MONITOR_INTERVAL serves the monitor files of the same program (Q Apply / Q Capture).
    ``release`` and ``columns`` are those of :func:`parse_file` (``columns`` for the monitor files).
    """
    monitor, interval_ms = [], {}
    for p in paths:
        table = _table_of(str(p), read_raw(str(p), KNOWN_COLUMNS), None)
        if table.is_parameters:
            interval_ms[table.name] = parse_parameters(p, release=release)[1]
        else:
            monitor.append((p, table))
    return [
        parse_file(
            p, release=release, columns=columns, interval_ms=interval_ms.get(INTERVAL_SOURCE[t.name].name)
        )
        for p, t in monitor
    ]


def import_files(store, paths: Sequence[str | Path], project_name: str = "") -> list[tuple[int, ParsedFile]]:
    """Parse every file, then write them all in one transaction.

    Returns
    -------
    list of (import_id, ParsedFile)

    Raises
    ------
    MonitorImportError
        Any file is malformed; nothing is written.
    """
    return write_parsed(store, parse_files(paths), project_name)


def write_parsed(store, parsed: Sequence[ParsedFile], project_name: str = "") -> list[tuple[int, ParsedFile]]:
    """Write parsed files in one transaction; returns (import_id, ParsedFile) pairs."""
    out = []
    with store.transaction():
        for pf in parsed:
            import_id = store.record_monitor_import(
                project_name, str(Path(pf.file).resolve()), pf.table.name, pf.columns()
            )
            out.append((import_id, pf))
    return out


def load_monitor_rows(store, project_name: str | None = None) -> dict[str, dict]:
    """Imported rows as wide tables: table name -> {"monitor_time", "queue", column -> array}.

    One row per table, queue and MONITOR_TIME, sorted by queue and time; absent cells are
    NaN. Rows imported more than once (overlapping exports) are merged: each column takes
    the value of the latest import that has it, so no interval is counted twice and the
    store keeps everything that was imported.
    """
    sql = (
        "SELECT r.table_name, r.import_id, r.line, r.monitor_time, r.queue, r.col, r.value FROM monitor_rows r "
        "JOIN monitor_imports i ON i.id = r.import_id"
    )
    args: list = []
    if project_name is not None:
        sql += " WHERE i.project_name = ?"
        args.append(project_name)
    cells = store.con.execute(
        sql + " ORDER BY r.table_name, r.queue, r.monitor_time, r.import_id, r.line", args
    ).fetchnumpy()
    out: dict[str, dict] = {}
    tables = np.asarray(cells["table_name"], dtype=object)
    for table in dict.fromkeys(tables.tolist()):
        sel = np.flatnonzero(tables == table)
        queue = np.asarray(cells["queue"], dtype=object)[sel]
        times = np.asarray(cells["monitor_time"])[sel].astype("datetime64[us]")
        # one row per (queue, MONITOR_TIME): its cells are adjacent, and a later import's cells come
        # later and win (an overlapping export imported again is not counted twice; a newer
        # release's extra columns join the interval)
        starts = np.ones(sel.size, dtype=bool)
        starts[1:] = (queue[1:] != queue[:-1]) | (times[1:] != times[:-1])
        row = np.cumsum(starts) - 1
        first = np.flatnonzero(starts)
        wide: dict = {"monitor_time": times[first], "queue": queue[first]}
        cols = np.asarray(cells["col"], dtype=object)[sel]
        values = np.asarray(cells["value"], dtype=np.float64)[sel]
        for col in dict.fromkeys(cols.tolist()):
            pick = cols == col
            arr = np.full(first.size, np.nan)
            arr[row[pick]] = values[pick]
            wide[col] = arr
        out[table] = wide
    return out


def to_csv_text(table: str, rows: Sequence[dict], columns: Sequence[str] | None = None) -> str:
    """Write monitor rows (dicts of column -> value) as a CSV export with a header.

    MONITOR_TIME (and other datetime values) are written in Db2's ``YYYY-MM-DD-HH.MM.SS.ffffff`` form.
    Used by tests and by the simulator's export; ``table`` is only checked.
    """
    if table not in TABLES:
        raise ValueError(f"unknown monitor table {table!r}; expected one of {', '.join(TABLES)}")
    columns = list(columns or rows[0].keys())
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        out = []
        for c in columns:
            v = r.get(c)
            if isinstance(v, datetime):
                out.append(v.strftime("%Y-%m-%d-%H.%M.%S.%f"))
            elif v is None:
                out.append("")
            else:
                out.append(v)
        w.writerow(out)
    return buf.getvalue()


__all__ = [
    "APPLYMON",
    "CAPMON",
    "CAPQMON",
    "TABLES",
    "ParsedFile",
    "TableSpec",
    "detect_table",
    "import_files",
    "load_monitor_rows",
    "interval_lengths_s",
    "parse_file",
    "parse_files",
    "parse_parameters",
    "parse_timestamp",
    "to_csv_text",
    "write_parsed",
]
