"""The Q Replication monitor and parameter tables: what qrtune reads from each, and their column order.

A file with a header line names its columns. A Db2 ``EXPORT ... OF DEL``, ``db2 -x`` output or a
z/OS ``UNLOAD ... DELIMITED`` file does not: its columns are in the table's column order, which is
the order of the release's ``CREATE TABLE`` plus the columns each later release's migration script
appended (``ALTER TABLE ... ADD``). :data:`RELEASES` lists, per table, the columns each release
appended, so the layout of a table at release R is the concatenation up to R. A headerless file is
matched to the release whose layout has as many columns as the file (or the one named with
``--release``), and then checked cell by cell: timestamps where the layout has TIMESTAMP columns,
numbers where it has counters. A table whose columns differ from every documented layout is
reported with the counts that were expected; ``--columns`` (or a header line) then names them.

Sources: the column descriptions of IBMQREP_CAPMON, IBMQREP_CAPQMON, IBMQREP_APPLYMON,
IBMQREP_CAPPARMS and IBMQREP_APPLYPARMS in the Q Replication reference (Version 9.1 to 11.4) and
the control-table migration scripts of Versions 9.5, 9.7 and 9.7 Fix Pack 3 (``asnqcap*``/
``asnqapp*`` migration SQL), which add the columns below in this order.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.store.errors import MonitorImportError


@dataclass(frozen=True)
class TableSpec:
    """What qrtune knows about one monitor or parameter table.

    Attributes
    ----------
    name : str
        Table name as IBM spells it.
    queue_column : str or None
        Column naming the queue a row is about (None: one row per program).
    numeric : tuple[str, ...]
        Known numeric columns: a value that is not a number is an error.
    text : tuple[str, ...]
        Known text and ``FOR BIT DATA`` columns (log sequence numbers, names), not stored.
    times : tuple[str, ...]
        Known timestamp columns besides MONITOR_TIME.
    bit_data : tuple[str, ...]
        ``FOR BIT DATA`` columns (exported as raw bytes, or as hex with ``HEX()``).
    """

    name: str
    queue_column: str | None
    numeric: tuple
    text: tuple = ()
    times: tuple = ()
    bit_data: tuple = ()

    @property
    def is_parameters(self) -> bool:
        """True for IBMQREP_CAPPARMS / IBMQREP_APPLYPARMS (one row, no MONITOR_TIME)."""
        return self.name.endswith("PARMS")


RELEASES: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "IBMQREP_APPLYMON": (
        (
            "9.1",
            (
                "MONITOR_TIME",
                "RECVQ",
                "QSTART_TIME",
                "CURRENT_MEMORY",
                "QDEPTH",
                "END2END_LATENCY",
                "QLATENCY",
                "APPLY_LATENCY",
                "TRANS_APPLIED",
                "ROWS_APPLIED",
                "TRANS_SERIALIZED",
                "RI_DEPENDENCIES",
                "RI_RETRIES",
                "DEADLOCK_RETRIES",
                "ROWS_NOT_APPLIED",
                "MONSTER_TRANS",
                "MEM_FULL_TIME",
                "APPLY_SLEEP_TIME",
                "SPILLED_ROWS",
                "SPILLEDROWSAPPLIED",
                "OLDEST_TRANS",
                "OKSQLSTATE_ERRORS",
                "HEARTBEAT_LATENCY",
                "KEY_DEPENDENCIES",
                "UNIQ_DEPENDENCIES",
                "UNIQ_RETRIES",
            ),
        ),
        ("9.5", ("JOB_DEPENDENCIES", "CAPTURE_LATENCY")),
        ("9.7", ("OLDEST_COMMIT_LSN", "ROWS_PROCESSED", "Q_PERCENT_FULL", "OLDEST_COMMIT_SEQ")),
        ("9.7.3", ("MQ_BYTES", "MQGET_TIME", "NUM_MQGETS")),
    ),
    "IBMQREP_CAPQMON": (
        (
            "9.1",
            (
                "MONITOR_TIME",
                "SENDQ",
                "ROWS_PUBLISHED",
                "TRANS_PUBLISHED",
                "CHG_ROWS_SKIPPED",
                "DELROWS_SUPPRESSED",
                "ROWS_SKIPPED",
            ),
        ),
        ("9.5", ("LOBS_TOO_BIG", "XMLDOCS_TOO_BIG", "QFULL_ERROR_COUNT")),
        ("9.7", ("MQ_BYTES", "MQ_MESSAGES", "CURRENT_SEQ", "RESTART_SEQ")),
        ("9.7.3", ("MQPUT_TIME",)),
    ),
    "IBMQREP_CAPMON": (
        (
            "9.1",
            (
                "MONITOR_TIME",
                "CURRENT_LOG_TIME",
                "CAPTURE_IDLE",
                "CURRENT_MEMORY",
                "ROWS_PROCESSED",
                "TRANS_SKIPPED",
                "TRANS_PROCESSED",
                "TRANS_SPILLED",
                "MAX_TRANS_SIZE",
                "QUEUES_IN_ERROR",
                "RESTART_SEQ",
                "CURRENT_SEQ",
            ),
        ),
        ("9.5", ("LAST_EOL_TIME",)),
        ("9.7", ("LOGREAD_API_TIME", "NUM_LOGREAD_CALLS", "NUM_END_OF_LOGS", "LOGRDR_SLEEPTIME")),
        ("9.7.3", ("NUM_LOGREAD_F_CALLS", "TRANS_QUEUED", "NUM_WARNTXS", "NUM_WARNLOGAPI")),
    ),
    # The parameter tables have many more columns; only the leading ones up to MONITOR_INTERVAL are
    # listed (a headerless export of SELECT * is read by position, extra columns are ignored).
    "IBMQREP_APPLYPARMS": (("9.1", ("QMGR", "MONITOR_LIMIT", "TRACE_LIMIT", "MONITOR_INTERVAL")),),
    "IBMQREP_CAPPARMS": (
        (
            "9.1",
            (
                "QMGR",
                "REMOTE_SRC_SERVER",
                "RESTARTQ",
                "ADMINQ",
                "STARTMODE",
                "MEMORY_LIMIT",
                "COMMIT_INTERVAL",
                "AUTOSTOP",
                "MONITOR_INTERVAL",
            ),
        ),
    ),
}
"""Per table, the columns each release appended, oldest release first ("9.7.3": 9.7 Fix Pack 3)."""


def _monitor_table(name: str, queue_column: str | None, later: tuple, **columns) -> TableSpec:
    """A monitor table's spec, its numeric columns derived from its layouts.

    Parameters
    ----------
    name, queue_column
        As :class:`TableSpec`.
    later : tuple[str, ...]
        Numeric columns the layouts of :data:`RELEASES` do not list (a file names them in its
        header line).
    **columns
        ``text``, ``times`` and ``bit_data`` of :class:`TableSpec`.

    Returns
    -------
    TableSpec
        Numeric columns: MONITOR_INTERVAL (from the parameter table), every column of the
        table's layouts that is not MONITOR_TIME, the queue, a text or a timestamp column, and
        ``later``.
    """
    other = {"MONITOR_TIME", queue_column, *columns.get("text", ()), *columns.get("times", ())}
    listed = tuple(c for _, added in RELEASES[name] for c in added if c not in other)
    return TableSpec(name, queue_column, ("MONITOR_INTERVAL", *listed, *later), **columns)


CAPMON = _monitor_table(
    "IBMQREP_CAPMON",
    None,
    later=("MQCMIT_TIME", "ROWS_SKIPPED"),
    text=("RESTART_SEQ", "CURRENT_SEQ", "RESTART_LSN", "CURRENT_LSN"),
    times=("CURRENT_LOG_TIME", "LAST_EOL_TIME", "RESTART_TIME"),
    bit_data=("RESTART_SEQ", "CURRENT_SEQ", "RESTART_LSN", "CURRENT_LSN"),
)
CAPQMON = _monitor_table(
    "IBMQREP_CAPQMON",
    "SENDQ",
    later=("TRANS_SPILLED", "MAX_TRANS_SIZE"),
    text=("CURRENT_SEQ", "RESTART_SEQ", "LAST_PUBLISHED_LSN"),
    times=("LAST_PUBLISHED_TIME",),
    bit_data=("CURRENT_SEQ", "RESTART_SEQ", "LAST_PUBLISHED_LSN"),
)
APPLYMON = _monitor_table(
    "IBMQREP_APPLYMON",
    "RECVQ",
    later=("MQ_MESSAGES", "TRANS_RECEIVED", "MCGSYNC_TIME", "DBMS_TIME"),
    text=("OLDEST_COMMIT_LSN", "OLDEST_COMMIT_SEQ"),
    times=("QSTART_TIME", "OLDEST_TRANS", "OLDEST_INFLT_TRANS"),
    bit_data=("OLDEST_COMMIT_LSN", "OLDEST_COMMIT_SEQ"),
)
CAPPARMS = TableSpec("IBMQREP_CAPPARMS", None, numeric=("MONITOR_INTERVAL",))
APPLYPARMS = TableSpec("IBMQREP_APPLYPARMS", None, numeric=("MONITOR_INTERVAL",))
MONITOR_TABLES = {t.name: t for t in (CAPMON, CAPQMON, APPLYMON)}
"""The tables with one row per MONITOR_INTERVAL."""
TABLES = {**MONITOR_TABLES, CAPPARMS.name: CAPPARMS, APPLYPARMS.name: APPLYPARMS}
"""Every table a file may hold."""
INTERVAL_SOURCE = {"IBMQREP_CAPMON": CAPPARMS, "IBMQREP_CAPQMON": CAPPARMS, "IBMQREP_APPLYMON": APPLYPARMS}
"""The parameter table holding each monitor table's MONITOR_INTERVAL."""


def layouts(table: TableSpec) -> dict[str, tuple[str, ...]]:
    """Release -> the table's full column order at that release (later releases keep the 9.7.3 order)."""
    out: dict[str, tuple[str, ...]] = {}
    columns: tuple[str, ...] = ()
    for release, added in RELEASES[table.name]:
        columns += added
        out[release] = columns
    return out


def release_names() -> tuple[str, ...]:
    """Every release any table lists, oldest first."""
    return tuple(dict.fromkeys(r for rel in RELEASES.values() for r, _ in rel))


def layout_for(table: TableSpec, n_fields: int, release: str | None, where: str) -> tuple[str, ...]:
    """The column order of a headerless file of ``table`` with ``n_fields`` fields per row.

    Parameters
    ----------
    table : TableSpec
    n_fields : int
        Fields in the file's first row.
    release : str or None
        ``--release``: use this release's layout; None: the release whose layout has ``n_fields``
        columns (a parameter table: any export of at least its listed columns, or of
        MONITOR_INTERVAL alone).
    where : str
        ``file:line`` for messages.

    Raises
    ------
    MonitorImportError
        Unknown release, or no documented layout with that many columns.
    """
    by_release = layouts(table)
    if table.is_parameters and n_fields == 1:  # EXPORT ... SELECT MONITOR_INTERVAL FROM ...
        return ("MONITOR_INTERVAL",)
    if release is not None:
        if release not in by_release:
            raise MonitorImportError(f"{where}: --release {release!r} is not one of {', '.join(by_release)}")
        columns = by_release[release]
    else:
        columns = next((c for c in by_release.values() if len(c) == n_fields), None)
        if columns is None and table.is_parameters and n_fields >= len(by_release["9.1"]):
            columns = by_release["9.1"]
        if columns is None:
            expected = ", ".join(f"{len(c)} ({r})" for r, c in by_release.items())
            raise MonitorImportError(
                f"{where}: {table.name} export without a header has {n_fields} columns; the documented "
                f"layouts have {expected}. Export with a header line, or name the columns with --columns"
            )
    if table.is_parameters:
        return columns + tuple(f"_EXTRA{i}" for i in range(max(0, n_fields - len(columns))))
    if len(columns) != n_fields:
        raise MonitorImportError(
            f"{where}: {table.name} at release {release} has {len(columns)} columns, the file {n_fields}"
        )
    return columns
