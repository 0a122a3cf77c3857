"""Importing exports of the Q Replication monitor tables into the store.

Q Capture writes a row to IBMQREP_CAPMON (the program) and one per send queue to
IBMQREP_CAPQMON at every MONITOR_INTERVAL; Q Apply writes one per receive queue to
IBMQREP_APPLYMON. Their columns grew over releases, so a file may carry columns
this module does not list and lack optional ones; only MONITOR_TIME and the queue
column (SENDQ for CAPQMON, RECVQ for APPLYMON) are required. Files are header CSV,
Db2 DEL or z/OS UNLOAD DELIMITED exports, or CLP output (:mod:`engine.monitor.formats`);
a file without a header has its table's documented column order
(:mod:`engine.monitor.layouts`).

MONITOR_INTERVAL is a parameter (IBMQREP_APPLYPARMS, IBMQREP_CAPPARMS), not a column of
IBMQREP_APPLYMON: each row's interval is the time since the queue's previous row, and the
first row of a queue takes the parameter when its export is imported with the monitor
files, else the median spacing of MONITOR_TIME (:mod:`engine.monitor.intervals`).

Only the columns qrtune reads are stored (:data:`engine.monitor.catalogue.STORED`: those the
fit, the Monitor view and the timing comparison use); a file's other columns are listed as not
imported and not read, so their content (text, bit data, a value of a newer release) does not
matter.

Units are the product's: counters (ROWS_PUBLISHED, TRANS_PUBLISHED, ROWS_APPLIED ...)
are per monitor interval; latencies (END2END_LATENCY, QLATENCY, APPLY_LATENCY,
CAPTURE_LATENCY) are the interval's average in milliseconds; MONITOR_INTERVAL is in
milliseconds; MQ_BYTES in bytes. Values are stored unchanged (a wide table per file read by
DuckDB, else one cell per row of ``monitor_rows``; :mod:`engine.store.monitor`).

A delimited file (header CSV, DEL, UNLOAD DELIMITED) is read, checked and written by DuckDB's
CSV reader in one streaming pass (:mod:`engine.monitor.sqlimport`); a file with a problem to
report, CLP output and EBCDIC are read, checked and written in batches of :data:`CHUNK_ROWS`
rows (:mod:`engine.monitor.cells`), so memory does not grow with the file either way. The files
of one import are all or nothing: a malformed row is reported with file, line, column and value,
and nothing of that import is left behind (:func:`import_files`).
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path

import numpy as np

from engine.io.atomicfile import atomic_write_text
from engine.io.csvcell import text_cell
from engine.monitor.catalogue import stored_columns, unread_columns
from engine.monitor.cells import CheckedRows, batch_cells, check_rows
from engine.monitor.formats import RawTable, column_name, read_raw
from engine.monitor.intervals import write_intervals
from engine.monitor.layouts import (
    APPLYMON,
    CAPMON,
    CAPQMON,
    CONFIG_TABLES,
    INTERVAL_SOURCE,
    MONITOR_TABLES,
    TABLES,
    TableSpec,
    layouts,
    match_layout,
    parameter_layout,
)
from engine.monitor.sqlimport import NotPlain, import_delimited
from engine.monitor.sqlimport import Result as SqlResult
from engine.monitor.values import parse_timestamp, to_float
from engine.store.errors import MonitorImportError
from engine.store.monitor import IMPORT_MEMORY_LIMIT

CHUNK_ROWS = 50_000
"""Rows read, checked and written at a time."""
KNOWN_COLUMNS = frozenset(
    {"MONITOR_TIME"}
    | {c for t in TABLES.values() for c in (*t.numeric, *t.text, *t.times)}
    | {c for t in TABLES.values() for cols in layouts(t).values() for c in cols} - {"QMGR"}
)
"""Column names that mark a file's first line as a header."""
_ROW_KEYS = "_qrtune_monitor_row_keys"
"""Temporary table of one file's (line, MONITOR_TIME, queue), for the intervals of a file without MONITOR_INTERVAL."""


@dataclass(frozen=True)
class ImportedFile:
    """What the import of one file wrote (``qrtune import-monitor`` prints it).

    Attributes
    ----------
    file : str
    table : TableSpec
    shape : str
        ``csv``, ``del``, ``clp`` or ``clp-x`` (:mod:`engine.monitor.formats`).
    n_rows : int
        Data rows imported.
    numeric_columns : tuple[str, ...]
        Columns stored (:func:`engine.monitor.catalogue.stored_columns`, and MONITOR_INTERVAL).
    ignored_columns : tuple[str, ...]
        The file's columns qrtune does not read, not stored (:func:`engine.monitor.catalogue.unread_columns`).
    interval_source : str
        Where MONITOR_INTERVAL came from.
    first_monitor_time, last_monitor_time : datetime or None
        The span of MONITOR_TIME (None without rows).
    """

    file: str
    table: TableSpec
    shape: str
    n_rows: int
    numeric_columns: tuple[str, ...]
    ignored_columns: tuple[str, ...]
    interval_source: str
    first_monitor_time: datetime | None = None
    last_monitor_time: datetime | None = None


@dataclass(frozen=True)
class ParsedFile(ImportedFile):
    """One monitor file parsed into long-form columns in memory (:func:`parse_file`), ready to write.

    Attributes
    ----------
    line, monitor_time, queue, col, value : numpy.ndarray
        One entry per stored cell (besides those of :class:`ImportedFile`).
    """

    line: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    monitor_time: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype="datetime64[us]"))
    queue: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=object))
    col: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=object))
    value: np.ndarray = field(default_factory=lambda: np.zeros(0))

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


SAMPLE_ROWS = 20
"""Rows of a headerless file whose cells choose its layout (:func:`engine.monitor.layouts.match_layout`)."""


def _config_table_in_name(path: str) -> str | None:
    stem = Path(path).name.upper()
    return next(
        (t for t in CONFIG_TABLES if t.removeprefix("IBMQREP_") in stem.replace("IBMQREP_", "")), None
    )


def _table_of(
    path: str, raw: RawTable, columns: Sequence[str] | None, platform: str | None = None
) -> TableSpec:
    names = tuple(columns or raw.header or ())
    named = _table_from_name(path)
    if named is None and _config_table_in_name(path):
        raise MonitorImportError(
            f"{path}: {_config_table_in_name(path)} holds configuration, not monitor rows; "
            "read it with qrtune import-config"
        )
    if names or raw.first is None or named is not None:
        return named or detect_table(path, names)
    table, _, _ = match_layout(
        tuple(MONITOR_TABLES.values()),
        raw.sample(SAMPLE_ROWS),
        platform=platform,
        where=f"{path}:{raw.first[0]}",
    )
    assert isinstance(table, TableSpec)  # the candidates were specs
    return table


def _column_names(
    path: str,
    raw: RawTable,
    table: TableSpec,
    release: str | None,
    columns: Sequence[str] | None,
    platform: str | None = None,
) -> tuple[str, ...]:
    """The file's column order: ``--columns``, its header, or the release's documented layout."""
    if columns:
        names = tuple(column_name(c) for c in columns)
    elif raw.header is not None:
        names = raw.header
    elif raw.first is not None and table.is_parameters:
        names = parameter_layout(table, len(raw.first[1]), release, f"{path}:{raw.first[0]}")
    elif raw.first is not None:
        where = f"{path}:{raw.first[0]}"
        _, names, _ = match_layout(
            (table,), raw.sample(SAMPLE_ROWS), release=release, platform=platform, where=where
        )
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


def _raise_errors(path: str, errors: list, max_errors: int, hint: str) -> None:
    errors.sort(key=lambda e: int(e[len(path) + 1 :].split(":", 1)[0]))
    more = " (stopped after the first problems)" if len(errors) >= max_errors else ""
    raise MonitorImportError(
        f"{len(errors)} malformed row(s) in {Path(path).name}; nothing was imported{more}:\n  "
        + "\n  ".join(errors[:max_errors])
        + hint
    )


@dataclass
class _Batch:
    """One batch of checked rows as columns: line, MONITOR_TIME, queue code and the queues' names."""

    rows: dict
    queue_names: list

    @classmethod
    def of(cls, rows: CheckedRows) -> _Batch:
        codes: dict[str, int] = {}
        queue_code = np.fromiter(
            (codes.setdefault(q, len(codes)) for q in rows.queue), dtype=np.int32, count=len(rows)
        )
        columns = {
            "line": rows.line.astype(np.int32),
            "monitor_time": rows.monitor_time,
            "queue_code": queue_code,
        }
        return cls(columns, list(codes))

    def write_keys(self, store) -> None:
        """Append the rows' (line, MONITOR_TIME, queue) to the temporary row-key table."""
        name = "_qrtune_keys_batch"
        store.con.register(name, self.rows)
        try:
            store.con.execute(
                f"INSERT INTO {_ROW_KEYS} SELECT line, monitor_time, list_extract(?, queue_code + 1) FROM {name}",
                [self.queue_names],
            ).fetchall()
        finally:
            store.con.unregister(name)


@dataclass
class _FileImport:
    """The state of one file's import while its batches stream through.

    Attributes
    ----------
    path : str
    raw : RawTable
    table : TableSpec
    names : tuple[str, ...]
        The file's column order.
    max_errors : int
        Problems collected before giving up.
    names_given : bool
        The column order came from ``--columns``.
    errors : list of str
        ``file:line: what`` per problem found so far.
    n_rows : int
        Rows written so far.
    first_time, last_time : datetime or None
        The span of MONITOR_TIME written so far.
    """

    path: str
    raw: RawTable
    table: TableSpec
    names: tuple
    max_errors: int
    names_given: bool = False
    errors: list = field(init=False, default_factory=list)
    n_rows: int = 0
    first_time: datetime | None = None
    last_time: datetime | None = None

    @property
    def needs_intervals(self) -> bool:
        """True when the file has no MONITOR_INTERVAL column (it is derived from MONITOR_TIME)."""
        return "MONITOR_INTERVAL" not in self.names

    def check(self, raw_rows: list):
        """A batch's checked rows and stored cells; problems go to :attr:`errors`."""
        rows, bad = check_rows(
            self.path, raw_rows, self.names, self.table, self.max_errors - len(self.errors)
        )
        self.errors += bad
        if len(self.errors) >= self.max_errors:
            return rows, []
        return rows, batch_cells(self.path, self.names, self.table, rows, self.errors, self.max_errors)

    def write(self, store, import_id: int, rows: CheckedRows, cells: list) -> None:
        """Write a checked batch."""
        if not rows:
            return
        batch = _Batch.of(rows)
        store.append_monitor_cells(import_id, self.table.name, batch.rows, batch.queue_names, cells)
        if self.needs_intervals:
            batch.write_keys(store)
        times = batch.rows["monitor_time"]
        low, high = times.min().astype(datetime), times.max().astype(datetime)
        self.first_time = low if self.first_time is None else min(self.first_time, low)
        self.last_time = high if self.last_time is None else max(self.last_time, high)
        self.n_rows += len(rows)

    def take(self, done: SqlResult) -> None:
        """What DuckDB's pass over the file wrote (:func:`engine.monitor.sqlimport.import_delimited`)."""
        self.n_rows = done.n_rows
        self.first_time, self.last_time = done.first_time, done.last_time

    def raise_errors(self) -> None:
        """Raise :class:`MonitorImportError` listing :attr:`errors` (with a hint for a headerless file)."""
        hint = ""
        if self.raw.header is None and not self.names_given:
            hint = (
                f"\n  (columns in the documented order of {self.table.name} with {len(self.names)} columns; "
                "if the table differs, name them with --columns or export a header)"
            )
        _raise_errors(self.path, self.errors, self.max_errors, hint)


def _progress_of(path: str, raw: RawTable, report: Callable[[float, str], None] | None):
    """A function of the last line read that reports the share of the file read (estimated from its first lines)."""
    if report is None:
        return lambda line: None
    size = max(1, os.path.getsize(path))
    first_line = raw.first[0] if raw.first else 1
    sample = sum(len(f) + 1 for f in (raw.first[1] if raw.first else [])) or 1
    name = Path(path).name

    def progress(line: int) -> None:
        report(min(0.99, (line - first_line + 1) * sample / size), f"{name}: line {line:,}")

    return progress


def _shares(job: _FileImport, progress):
    """``report(share, what)`` of the DuckDB passes over one file, as the import's progress."""
    if progress is None:
        return None
    name = Path(job.path).name
    return lambda share, what: progress(min(0.99, share), f"{name}: {what}")


def _stream_rows(
    store, job: _FileImport, import_id: int, interval_ms, chunk_rows: int, progress
) -> str | None:
    """Check and write a file row by row in batches (each committed); where a derived MONITOR_INTERVAL came from.

    Raises
    ------
    MonitorImportError
        Malformed rows (up to ``max_errors`` listed); the caller discards the import.
    """
    if job.needs_intervals:
        store.con.execute(
            f"CREATE OR REPLACE TEMP TABLE {_ROW_KEYS} (line INTEGER, monitor_time TIMESTAMP, queue VARCHAR)"
        ).fetchall()
    try:
        report = _progress_of(job.path, job.raw, progress)
        for written, raw_rows in enumerate(job.raw.batches(chunk_rows), start=1):
            rows, cells = job.check(raw_rows)
            if job.errors:
                if len(job.errors) >= job.max_errors:
                    break
                continue  # look for more problems; nothing more is written
            with store.transaction():
                job.write(store, import_id, rows, cells)
            store.checkpoint_monitor_rows(written)
            report(raw_rows[-1][0])
        if job.errors:
            job.raise_errors()
        if not job.needs_intervals:
            return None
        if not job.n_rows:
            return "MONITOR_TIME spacing"
        with store.transaction():
            return write_intervals(store.con, import_id, job.table.name, _ROW_KEYS, interval_ms)
    finally:
        if job.needs_intervals:
            store.con.execute(f"DROP TABLE IF EXISTS {_ROW_KEYS}").fetchall()


def _stream_file(
    store, job: _FileImport, import_id: int, interval_ms, chunk_rows: int, progress
) -> ImportedFile:
    """Write one file (DuckDB's pass, else batch by batch, each batch committed); what was written (the import stays unfinished).

    Raises
    ------
    MonitorImportError
        Malformed rows (up to ``max_errors`` listed); the caller discards the import.
    """
    try:
        done = import_delimited(store, job, import_id, interval_ms, _shares(job, progress))
        job.take(done)
        source = done.interval_source
    except NotPlain:
        source = _stream_rows(store, job, import_id, interval_ms, chunk_rows, progress)
    numeric = stored_columns(job.table.name, job.names)
    if source is None:
        source = "file's MONITOR_INTERVAL column"
    elif job.n_rows:
        numeric += ("MONITOR_INTERVAL",)
    keys = ("MONITOR_TIME", job.table.queue_column)
    return ImportedFile(
        job.path,
        job.table,
        job.raw.shape,
        job.n_rows,
        numeric,
        unread_columns(job.table.name, job.names, keys),
        source,
        job.first_time,
        job.last_time,
    )


def _import_all(
    store, plan: list, project_name: str, chunk_rows: int, progress
) -> list[tuple[int, ImportedFile]]:
    """Stream every file of ``plan``; all are finished together, or all discarded when one fails."""
    done, ids = [], []
    try:
        for k, (job, interval_ms) in enumerate(plan):
            import_id = store.begin_monitor_import(
                project_name, str(Path(job.path).resolve()), job.table.name
            )
            ids.append(import_id)
            part = None if progress is None else (lambda f, text, k=k: progress((k + f) / len(plan), text))
            done.append((import_id, _stream_file(store, job, import_id, interval_ms, chunk_rows, part)))
        with store.transaction():
            for import_id, f in done:
                store.finish_monitor_import(import_id, f.n_rows, f.numeric_columns)
    except BaseException:
        try:
            store.discard_monitor_imports(ids)
        except Exception:  # noqa: BLE001 - the next import removes what is left (it is unfinished)
            pass
        raise
    return done


def read_file(
    path: str | Path,
    *,
    release: str | None = None,
    columns: Sequence[str] | None = None,
    platform: str | None = None,
):
    """A file's shape (rows read on demand), its table and its column order: ``(raw, table, names)``.

    Raises
    ------
    MonitorImportError
        Unreadable, unknown table, or columns that match no documented layout.
    """
    path = str(path)
    raw = read_raw(path, KNOWN_COLUMNS)
    platform = platform or ("zos" if raw.encoding == "cp037" else None)  # EBCDIC: transferred from z/OS
    table = _table_of(path, raw, columns, platform)
    return raw, table, _column_names(path, raw, table, release, columns, platform)


def _monitor_job(
    path: str,
    max_errors: int,
    release: str | None,
    columns: Sequence[str] | None,
    platform: str | None = None,
) -> _FileImport:
    raw, table, names = read_file(path, release=release, columns=columns, platform=platform)
    if table.is_parameters:
        raise MonitorImportError(
            f"{path}: {table.name} holds MONITOR_INTERVAL, not monitor rows; import it "
            "together with the monitor files"
        )
    return _FileImport(path, raw, table, names, max_errors, names_given=bool(columns))


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
    if not table.is_parameters or raw.first is None:
        raise MonitorImportError(f"{path}: expected one row of IBMQREP_APPLYPARMS or IBMQREP_CAPPARMS")
    line, fields = raw.first
    text = fields[names.index("MONITOR_INTERVAL")] if len(fields) == len(names) else ""
    value = to_float(text)
    if value is None or value <= 0:
        raise MonitorImportError(f"{path}:{line}: MONITOR_INTERVAL {text[:80]!r} is not a positive number")
    return table, value


def _plan(
    paths: Sequence[str | Path],
    release: str | None,
    columns: Sequence[str] | None,
    max_errors: int,
    platform: str | None = None,
):
    """The monitor files of ``paths`` checked at their head, each with the MONITOR_INTERVAL parameter that serves it.

    Files of IBMQREP_APPLYPARMS / IBMQREP_CAPPARMS among ``paths`` are read first; their
    MONITOR_INTERVAL serves the monitor files of the same program (Q Apply / Q Capture).
    """
    monitor, interval_ms = [], {}
    for p in map(str, paths):
        table = _table_of(p, read_raw(p, KNOWN_COLUMNS), None, platform)
        if table.is_parameters:
            interval_ms[table.name] = parse_parameters(p, release=release)[1]
        else:
            monitor.append(p)
    jobs = [_monitor_job(p, max_errors, release, columns, platform) for p in monitor]
    return [(job, interval_ms.get(INTERVAL_SOURCE[job.table.name].name)) for job in jobs]


def import_files(
    store,
    paths: Sequence[str | Path],
    project_name: str = "",
    *,
    release: str | None = None,
    columns: Sequence[str] | None = None,
    platform: str | None = None,
    max_errors: int = 10,
    chunk_rows: int = CHUNK_ROWS,
    progress: Callable[[float, str], None] | None = None,
) -> list[tuple[int, ImportedFile]]:
    """Import monitor exports (and the parameter exports giving their MONITOR_INTERVAL), all or nothing.

    Each batch is committed (so that DuckDB's memory stays bounded) to imports marked unfinished;
    they are finished together at the end, or removed when any file fails (and, if the process
    is killed, by the next import; readers never see an unfinished import).

    Parameters
    ----------
    store : engine.store.Store
        Open for writing.
    paths : sequence of str or Path
        Header CSV, DEL or UNLOAD DELIMITED, CLP table or ``db2 -x`` output of IBMQREP_CAPMON,
        IBMQREP_CAPQMON or IBMQREP_APPLYMON (:mod:`engine.monitor.formats`), and optionally
        IBMQREP_APPLYPARMS / IBMQREP_CAPPARMS exports.
    project_name : str
        Project the rows belong to (for ``qrtune fit``).
    release : str, optional
        Q Replication release whose column order a headerless file has
        (:func:`engine.monitor.layouts.release_names`); default: by column count and cell types.
    columns : sequence of str, optional
        The column order of every monitor file, overriding a header or the release layout.
    platform : str, optional
        ``luw`` or ``zos`` (their IBMQREP_APPLYMON column orders differ from 9.7 on); default: by
        the cells, z/OS for an EBCDIC file.
    max_errors : int
        Problems listed before giving up.
    chunk_rows : int
        Rows read, checked and written at a time (memory is proportional to it, not to the file).
    progress : callable, optional
        ``progress(fraction, text)`` with the share of all files read so far.

    Returns
    -------
    list of (import_id, ImportedFile)

    Raises
    ------
    MonitorImportError
        A file cannot be read or is malformed: the message lists up to ``max_errors`` problems
        as ``file:line: what`` and nothing of the import is left in the store.
    """
    plan = _plan(paths, release, columns, max_errors, platform)
    with store.monitor_memory_limit(IMPORT_MEMORY_LIMIT):
        store.discard_monitor_imports()  # what an import killed half way left
        return _import_all(store, plan, project_name, chunk_rows, progress)


def parse_file(
    path: str | Path,
    max_errors: int = 10,
    *,
    release: str | None = None,
    columns: Sequence[str] | None = None,
    interval_ms: float | None = None,
    chunk_rows: int = CHUNK_ROWS,
) -> ParsedFile:
    """Parse one export of IBMQREP_CAPMON, IBMQREP_CAPQMON or IBMQREP_APPLYMON into memory (small files, tests).

    The file goes through the import of :func:`import_files` into a temporary store and its
    cells are read back; ``qrtune import-monitor`` streams into the store instead.

    Parameters
    ----------
    path, max_errors, release, columns, chunk_rows
        As for :func:`import_files`.
    interval_ms : float, optional
        MONITOR_INTERVAL from the parameter table (ms, or s before Version 9.7), used for the
        first interval of each queue when the file has no MONITOR_INTERVAL column.

    Raises
    ------
    MonitorImportError
        The file cannot be read, lacks a required column, or has malformed rows; the
        message lists up to ``max_errors`` problems as ``file:line: what``.
    """
    from engine.store import Store

    job = _monitor_job(str(path), max_errors, release, columns)
    with tempfile.TemporaryDirectory() as folder, Store.open(Path(folder) / "parse.duckdb") as store:
        [(import_id, done)] = _import_all(store, [(job, interval_ms)], "", chunk_rows, None)
        cells_sql, args = store.import_cells_sql(import_id)
        cells = store.con.execute(
            f"SELECT * FROM ({cells_sql}) ORDER BY list_position(?, col) NULLS LAST, line",
            [*args, list(job.names)],
        ).fetchnumpy()
    return ParsedFile(
        **{f.name: getattr(done, f.name) for f in fields(ImportedFile)},
        line=np.asarray(cells["line"], dtype=np.int32),
        monitor_time=np.asarray(cells["monitor_time"]).astype("datetime64[us]"),
        queue=np.asarray(cells["queue"], dtype=object),
        col=np.asarray(cells["col"], dtype=object),
        value=np.asarray(cells["value"], dtype=np.float64),
    )


def parse_files(
    paths: Sequence[str | Path], *, release: str | None = None, columns: Sequence[str] | None = None
) -> list[ParsedFile]:
    """:func:`parse_file` of each monitor file of ``paths``, the parameter exports among them giving MONITOR_INTERVAL."""
    return [
        parse_file(job.path, release=release, columns=columns, interval_ms=interval_ms)
        for job, interval_ms in _plan(paths, release, columns, 10)
    ]


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
    store keeps everything that was imported. DuckDB does the merge; only the wide arrays
    are held in memory.
    """
    out: dict[str, dict] = {}
    for table, cols in store.monitor_columns(project_name).items():
        sql, args = store.monitor_wide_sql(table, cols, project_name)
        values = ", ".join(f'coalesce("{i}", \'NaN\'::DOUBLE) AS "{i}"' for i in range(len(cols)))
        renamed = ", ".join(
            f'"{c}" AS "{i}"' for i, c in enumerate(cols)
        )  # fetch by position, names may repeat case
        wide = store.con.execute(
            f"SELECT queue, monitor_time, {values} FROM (SELECT queue, monitor_time, {renamed} FROM ({sql})) "
            "ORDER BY queue, monitor_time",
            args,
        ).fetchnumpy()
        out[table] = {
            "monitor_time": np.asarray(wide["monitor_time"]).astype("datetime64[us]"),
            "queue": np.asarray(wide["queue"], dtype=object),
            **{c: np.asarray(wide[str(i)], dtype=np.float64) for i, c in enumerate(cols)},
        }
    return out


def to_csv_text(table: str, rows: Sequence[dict], columns: Sequence[str] | None = None) -> str:
    """Write monitor rows (dicts of column -> value) as a CSV export with a header.

    MONITOR_TIME (and other datetime values) are written in Db2's ``YYYY-MM-DD-HH.MM.SS.ffffff`` form;
    text that starts like a spreadsheet formula gets an apostrophe (:func:`engine.io.csvcell.text_cell`,
    undone when the file is imported).
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
                out.append(text_cell(v))
        w.writerow(out)
    return buf.getvalue()


def write_exports(tables: Mapping[str, Sequence[dict]], folder) -> list[Path]:
    """Write each table's rows (:func:`to_csv_text`) to ``TABLE.csv`` in ``folder``, as a user exports them.

    Parameters
    ----------
    tables : Mapping[str, Sequence[dict]]
        Monitor table name (``IBMQREP_APPLYMON``) -> its rows, e.g. from
        :func:`engine.calibrate.fit.synthesize_intervals`.
    folder : path
        An existing folder.

    Returns
    -------
    list of Path
        The files written, in the order of ``tables``.
    """
    files = []
    for table, rows in tables.items():
        path = Path(folder) / f"{table}.csv"
        atomic_write_text(path, to_csv_text(table, rows))
        files.append(path)
    return files


__all__ = [
    "APPLYMON",
    "CAPMON",
    "CAPQMON",
    "CHUNK_ROWS",
    "TABLES",
    "ImportedFile",
    "ParsedFile",
    "TableSpec",
    "detect_table",
    "import_files",
    "load_monitor_rows",
    "parse_file",
    "parse_files",
    "parse_parameters",
    "parse_timestamp",
    "read_file",
    "to_csv_text",
    "write_exports",
    "write_parsed",
]
