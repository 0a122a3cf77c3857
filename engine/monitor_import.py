"""Importing CSV exports of the Q Replication monitor tables into the store.

Q Capture writes a row to IBMQREP_CAPMON (the program) and one per send queue to
IBMQREP_CAPQMON at every MONITOR_INTERVAL; Q Apply writes one per receive queue to
IBMQREP_APPLYMON. Their columns grew over releases, so a file may carry columns
this module does not list and lack optional ones; only MONITOR_TIME and the queue
column (SENDQ for CAPQMON, RECVQ for APPLYMON) are required.

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

from engine.store.errors import MonitorImportError


@dataclass(frozen=True)
class TableSpec:
    """What qrtune knows about one monitor table.

    Attributes
    ----------
    name : str
        Table name as IBM spells it.
    queue_column : str or None
        Column naming the queue a row is about (None: one row per program).
    numeric : tuple[str, ...]
        Known numeric columns: a value that is not a number is an error.
    text : tuple[str, ...]
        Known text columns (log sequence numbers, names), skipped.
    times : tuple[str, ...]
        Known timestamp columns besides MONITOR_TIME.
    """

    name: str
    queue_column: str | None
    numeric: tuple
    text: tuple = ()
    times: tuple = ()


CAPMON = TableSpec(
    "IBMQREP_CAPMON",
    None,
    numeric=("MONITOR_INTERVAL", "CAPTURE_IDLE", "CURRENT_MEMORY", "ROWS_PROCESSED", "TRANS_SKIPPED",
             "TRANS_PROCESSED", "TRANS_SPILLED", "MAX_TRANS_SIZE", "QUEUES_IN_ERROR", "LOGREAD_API_TIME",
             "NUM_LOGREAD_CALLS", "NUM_END_OF_LOGS", "LOGRDR_SLEEPTIME", "NUM_LOGREAD_F_CALLS", "TRANS_QUEUED",
             "NUM_WARNTXS", "NUM_WARNLOGAPI", "MQCMIT_TIME", "ROWS_SKIPPED"),
    text=("RESTART_SEQ", "CURRENT_SEQ", "RESTART_LSN", "CURRENT_LSN"),
    times=("CURRENT_LOG_TIME", "LAST_EOL_TIME", "RESTART_TIME"),
)
CAPQMON = TableSpec(
    "IBMQREP_CAPQMON",
    "SENDQ",
    numeric=("MONITOR_INTERVAL", "ROWS_PUBLISHED", "TRANS_PUBLISHED", "CHG_ROWS_SKIPPED", "DELROWS_SUPPRESSED",
             "ROWS_SKIPPED", "LOBS_TOO_BIG", "XMLDOCS_TOO_BIG", "QFULL_ERROR_COUNT", "MQ_BYTES", "MQ_MESSAGES",
             "MQPUT_TIME", "TRANS_SPILLED", "MAX_TRANS_SIZE"),
    text=("CURRENT_SEQ", "RESTART_SEQ", "LAST_PUBLISHED_LSN"),
    times=("LAST_PUBLISHED_TIME",),
)
APPLYMON = TableSpec(
    "IBMQREP_APPLYMON",
    "RECVQ",
    numeric=("MONITOR_INTERVAL", "CURRENT_MEMORY", "QDEPTH", "END2END_LATENCY", "QLATENCY", "APPLY_LATENCY",
             "CAPTURE_LATENCY", "TRANS_APPLIED", "ROWS_APPLIED", "TRANS_SERIALIZED", "RI_DEPENDENCIES",
             "RI_RETRIES", "DEADLOCK_RETRIES", "ROWS_NOT_APPLIED", "MONSTER_TRANS", "MEM_FULL_TIME",
             "APPLY_SLEEP_TIME", "SPILLED_ROWS", "SPILLEDROWSAPPLIED", "OKSQLSTATE_ERRORS", "HEARTBEAT_LATENCY",
             "KEY_DEPENDENCIES", "UNIQ_DEPENDENCIES", "UNIQ_RETRIES", "JOB_DEPENDENCIES", "MQ_BYTES",
             "MQ_MESSAGES", "MQGET_TIME", "NUM_MQGETS", "Q_PERCENT_FULL", "ROWS_PROCESSED", "TRANS_RECEIVED",
             "MCGSYNC_TIME", "DBMS_TIME"),
    text=("OLDEST_COMMIT_LSN", "OLDEST_COMMIT_SEQ"),
    times=("QSTART_TIME", "OLDEST_TRANS", "OLDEST_INFLT_TRANS"),
)
TABLES = {t.name: t for t in (CAPMON, CAPQMON, APPLYMON)}

_NULLS = {"", "NULL", "-", "?"}
_TS_PATTERNS = (
    re.compile(r"^(\d{4})-(\d{2})-(\d{2})[-T ](\d{2})[.:](\d{2})[.:](\d{2})(?:[.,](\d{1,12}))?$"),
)


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

    def columns(self) -> dict:
        """The arrays :meth:`engine.store.Store.record_monitor_import` takes."""
        return {"n_rows": self.n_rows, "numeric_columns": self.numeric_columns, "line": self.line,
                "monitor_time": self.monitor_time, "queue": self.queue, "col": self.col, "value": self.value}


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
        if ts is not None and ts.tzinfo is None and iso[10] in " T" and iso[13] == ":" and iso[16] == ":" \
                and (len(iso) == 19 or iso[19] in ".,"):
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


def _header_name(raw: str) -> str:
    return raw.strip().strip('"').strip().rsplit(".", 1)[-1].upper()


def detect_table(path: str, header: Sequence[str]) -> TableSpec:
    """Which monitor table a file holds: by the table name in the file name, else by its columns.

    Raises
    ------
    MonitorImportError
        Neither tells.
    """
    stem = Path(path).name.upper()
    for name in ("IBMQREP_CAPQMON", "IBMQREP_CAPMON", "IBMQREP_APPLYMON", "CAPQMON", "CAPMON", "APPLYMON"):
        if name in stem:
            return TABLES[name if name.startswith("IBMQREP_") else "IBMQREP_" + name]
    cols = set(header)
    if "RECVQ" in cols:
        return APPLYMON
    if "SENDQ" in cols:
        return CAPQMON
    if cols & {"ROWS_PROCESSED", "TRANS_PROCESSED", "CURRENT_LOG_TIME", "CAPTURE_IDLE"}:
        return CAPMON
    raise MonitorImportError(
        f"{path}:1: cannot tell which monitor table this is; name the file after the table "
        "(…CAPMON.csv, …CAPQMON.csv, …APPLYMON.csv) or export the header with MONITOR_TIME and RECVQ "
        "(IBMQREP_APPLYMON), SENDQ (IBMQREP_CAPQMON) or ROWS_PROCESSED (IBMQREP_CAPMON)"
    )


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


def parse_file(path: str | Path, max_errors: int = 10) -> ParsedFile:
    """Parse one CSV export (comma, semicolon, tab or bar separated; header line required).

    Raises
    ------
    MonitorImportError
        The file cannot be read, lacks a required column, or has malformed rows; the
        message lists up to ``max_errors`` problems as ``file:line: what``.
    """
    path = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise MonitorImportError(f"{path}: cannot read the file: {e}") from None
    first = text.split("\n", 1)[0]
    if not first.strip():
        raise MonitorImportError(f"{path}:1: empty file or no header line (expected column names such as MONITOR_TIME)")
    delimiter = max(",;\t|", key=first.count)
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    header = [_header_name(h) for h in next(reader)]
    table = detect_table(path, header)
    required = ["MONITOR_TIME"] + ([table.queue_column] if table.queue_column else [])
    missing = [c for c in required if c not in header]
    if missing:
        raise MonitorImportError(
            f"{path}:1: {table.name} export lacks column {', '.join(missing)}; header has: {', '.join(header)}"
        )
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        raise MonitorImportError(f"{path}:1: column {', '.join(dupes)} appears twice in the header")
    i_time = header.index("MONITOR_TIME")
    i_queue = header.index(table.queue_column) if table.queue_column else None
    skip = {"MONITOR_TIME", table.queue_column} | set(table.text)
    candidates = [(i, h) for i, h in enumerate(header) if h not in skip and h]
    errors: list[str] = []
    rows: list[tuple[int, datetime, str, list[str]]] = []
    for fields in reader:
        line = reader.line_num
        if not fields or all(not f.strip() for f in fields):
            continue
        if len(fields) != len(header):
            errors.append(f"{path}:{line}: {len(fields)} fields but the header has {len(header)}")
        else:
            ts = parse_timestamp(fields[i_time])
            if ts is None:
                errors.append(f"{path}:{line}: MONITOR_TIME {fields[i_time]!r} is not a timestamp "
                              "(expected YYYY-MM-DD-HH.MM.SS.ffffff or YYYY-MM-DD HH:MM:SS)")
            else:
                queue = fields[i_queue].strip() if i_queue is not None else ""
                if i_queue is not None and not queue:
                    errors.append(f"{path}:{line}: {table.queue_column} is empty")
                else:
                    rows.append((line, ts, queue, fields))
        if len(errors) >= max_errors:
            break
    # Column by column (a week of 10-second rows is 60,480 lines): known numeric columns must hold
    # numbers; unknown ones are stored when all their values are numbers or timestamps, else skipped.
    line_arr = np.asarray([r[0] for r in rows], dtype=np.int32)
    stored: list[tuple[str, np.ndarray, np.ndarray]] = []  # (name, row mask, values)
    ignored: list[str] = []
    epoch = datetime(1970, 1, 1)
    for i, name in candidates:
        raw = [r[3][i].strip() for r in rows]
        present = np.asarray([v.upper() not in _NULLS for v in raw], dtype=bool)
        values = [v for v, p in zip(raw, present) if p]
        numbers = _floats(values)
        if name in table.numeric or (name not in table.times and numbers is not None and values):
            if numbers is None:
                for k in np.flatnonzero(present):
                    if _to_float(raw[k]) is None:
                        errors.append(f"{path}:{line_arr[k]}: {name} {raw[k]!r} is not a number")
                        if len(errors) >= max_errors:
                            break
                numbers = np.zeros(len(values))
            stored.append((name, present, numbers))
        elif name in table.times or (values and all(parse_timestamp(v) for v in values)):
            stamps = [parse_timestamp(v) for v in values]
            bad = next((int(line_arr[k]) for k, s in zip(np.flatnonzero(present), stamps) if s is None), None)
            if bad is not None:
                errors.append(f"{path}:{bad}: {name} is not a timestamp")
                stamps = [s or epoch for s in stamps]
            stored.append((name, present, np.asarray([(s - epoch).total_seconds() for s in stamps], dtype=float)))
        else:
            ignored.append(name)
        if len(errors) >= max_errors:
            break
    if errors:
        errors.sort(key=lambda e: int(e[len(path) + 1:].split(":", 1)[0]))
        more = " (stopped after the first problems)" if len(errors) >= max_errors else ""
        raise MonitorImportError(
            f"{len(errors)} malformed row(s) in {Path(path).name}; nothing was imported{more}:\n  "
            + "\n  ".join(errors[:max_errors])
        )
    time_arr = np.asarray([r[1] for r in rows], dtype="datetime64[us]")
    queue_arr = np.asarray([r[2] for r in rows], dtype=object)
    parts = [(np.flatnonzero(mask), name, vals) for name, mask, vals in stored]
    cat = (lambda arrays, dtype: np.concatenate(arrays) if arrays else np.asarray([], dtype=dtype))
    lines = cat([line_arr[idx] for idx, _, _ in parts], np.int32)
    times = cat([time_arr[idx] for idx, _, _ in parts], "datetime64[us]")
    queues = cat([queue_arr[idx] for idx, _, _ in parts], object)
    cols = cat([np.full(idx.size, name, dtype=object) for idx, name, _ in parts], object)
    vals = cat([np.asarray(v, dtype=np.float64) for _, _, v in parts], np.float64)
    return ParsedFile(
        path, table, len(rows), tuple(name for name, _, _ in stored), tuple(ignored),
        lines.astype(np.int32), times.astype("datetime64[us]"), queues.astype(object), cols.astype(object),
        vals.astype(np.float64),
    )


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
    return write_parsed(store, [parse_file(p) for p in paths], project_name)


def write_parsed(store, parsed: Sequence[ParsedFile], project_name: str = "") -> list[tuple[int, ParsedFile]]:
    """Write parsed files in one transaction; returns (import_id, ParsedFile) pairs."""
    out = []
    with store.transaction():
        for pf in parsed:
            import_id = store.record_monitor_import(project_name, str(Path(pf.file).resolve()), pf.table.name,
                                                    pf.columns())
            out.append((import_id, pf))
    return out


def load_monitor_rows(store, project_name: str | None = None) -> dict[str, dict]:
    """Imported rows as wide tables: table name -> {"monitor_time", "queue", column -> array}.

    One row per table, queue and MONITOR_TIME, sorted by queue and time; absent cells are
    NaN. Rows imported more than once (overlapping exports) are merged: each column takes
    the value of the latest import that has it, so no interval is counted twice and the
    store keeps everything that was imported.
    """
    sql = ("SELECT r.table_name, r.import_id, r.line, r.monitor_time, r.queue, r.col, r.value FROM monitor_rows r "
           "JOIN monitor_imports i ON i.id = r.import_id")
    args: list = []
    if project_name is not None:
        sql += " WHERE i.project_name = ?"
        args.append(project_name)
    cells = store.con.execute(sql + " ORDER BY r.table_name, r.queue, r.monitor_time, r.import_id, r.line",
                              args).fetchnumpy()
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
    "parse_file",
    "parse_timestamp",
    "to_csv_text",
    "write_parsed",
]
