"""An open store file: the connection, its lock, transactions and writing records column-wise.

:class:`engine.store.Store` is this plus one mixin per concern (runs, sweeps, monitor imports,
fits), all over the one connection held here.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path

import numpy as np

from engine.store.connection import check_blocks, connect, default_db_path
from engine.store.errors import StoreError, StoreNeedsMigrationError
from engine.store.records import TABLE_OF
from engine.store.schema import SCHEMA_VERSION, current_version, migrate

_names = itertools.count()

#: Seconds a released store waits to get its file back from another process (see :meth:`StoreBase.release`).
REACQUIRE_WAIT_S = 60.0

_DTYPES = {"int": np.int64, "float": np.float64, "datetime": "datetime64[us]"}
"""numpy dtype of a record field by its annotation (anything else, and optional values: object)."""


def where_equal(conditions: Mapping[str, object]) -> tuple[str, list]:
    """An SQL filter on equal values: ``" WHERE a = ? AND b = ?"`` and its arguments.

    Parameters
    ----------
    conditions : Mapping[str, object]
        Column (as the query names it, ``s.project_name``) -> the value it must equal; a None
        value puts no condition on its column.

    Returns
    -------
    tuple[str, list]
        The clause ("" when no value is given) and the values in order.
    """
    given = [(column, value) for column, value in conditions.items() if value is not None]
    if not given:
        return "", []
    return " WHERE " + " AND ".join(f"{column} = ?" for column, _ in given), [value for _, value in given]


def record_columns(records: Sequence, names: Sequence[str] | None = None, record_type=None) -> dict:
    """Fields of ``records`` (of one type of :mod:`engine.store.records`) as columns, by field name.

    Parameters
    ----------
    records : sequence
        Records of one type (may be empty when ``record_type`` is given).
    names : sequence of str, optional
        The fields wanted (default: every field), in the record's order.
    record_type : type, optional
        The records' type (default: the first record's).

    Returns
    -------
    dict[str, numpy.ndarray]
        int and float fields as int64/float64, datetimes as ``datetime64[us]``, anything else
        (text, optional values) as objects; a ``json`` field holds its value as JSON text.
    """
    record_type = record_type or type(records[0])
    out = {}
    for f in fields(record_type):
        if names is not None and f.name not in names:
            continue
        values = [getattr(r, f.name) for r in records]
        if f.metadata.get("json"):
            values = [json.dumps(list(v) if isinstance(v, tuple) else v) for v in values]
        out[f.name] = np.array(values, dtype=_DTYPES.get(f.type, object))
    return out


class StoreBase:
    """An open results store (one DuckDB file).

    Open with :meth:`open`; use as a context manager or call :meth:`close`.
    A writable store holds the file's lock until closed, so keep it open only as
    long as needed (DuckDB allows one writing process per file).
    """

    def __init__(self, con, path: Path, read_only: bool, wait_s: float = 0.0):
        self._con = con
        self.path = path
        self.read_only = read_only
        self.wait_s = wait_s
        self._next_run_id: int | None = None
        self._in_tx = False
        self._released = False
        #: Seconds a released store waits to get its file back (``math.inf``: as long as it takes,
        #: for a writer whose work resumes, such as a sweep).
        self.reacquire_wait_s = REACQUIRE_WAIT_S
        #: Called every few seconds while that wait lasts, with the seconds waited and who holds
        #: the file (see :func:`engine.store.connection.connect`); None: wait silently.
        self.on_wait = None

    # -- opening and closing --------------------------------------------------------
    @classmethod
    def open(cls, path: str | os.PathLike | None = None, read_only: bool = False, wait_s: float = 0.0):
        """Open (and create or migrate when writable) the store at ``path``.

        Parameters
        ----------
        path : str or PathLike, optional
            Store file; default :func:`~engine.store.connection.default_db_path`.
        read_only : bool
            Read without taking the write lock (several readers may share a file no one writes).
        wait_s : float
            Seconds to wait for another process's lock before giving up.

        Raises
        ------
        StoreLockedError
            Another process holds the file.
        StoreNeedsMigrationError
            Read-only open of a store from an older qrtune (a writable open migrates it).
        StoreError
            Not a store, a store from a newer qrtune, or (read-only) a missing file.
        """
        path = Path(path) if path is not None else default_db_path()
        con = connect(path, read_only=read_only, wait_s=wait_s)
        try:
            check_blocks(con, path)
            if read_only:
                version = current_version(con)
                if version < SCHEMA_VERSION:
                    raise StoreNeedsMigrationError(
                        f"the store {path} has schema version {version}; this qrtune reads version "
                        f"{SCHEMA_VERSION}: open it once for writing to migrate it"
                    )
                if version > SCHEMA_VERSION:
                    raise StoreError(
                        f"the store {path} has schema version {version}, newer than this qrtune "
                        f"understands (up to {SCHEMA_VERSION})"
                    )
            else:
                migrate(con, str(path))
        except Exception:
            con.close()
            raise
        return cls(con, path, read_only, wait_s)

    def close(self) -> None:
        """Release the file (and its lock) for good."""
        self._released = False
        if self._con is not None:
            self._con.close()
            self._con = None

    def release(self) -> None:
        """Let go of the file between writes; the next use of :attr:`con` opens it again.

        A long writer (a sweep) calls this after each write so that another process (the
        workbench, a ``qrtune runs``) can open the file in between. Reopening waits up to
        :data:`REACQUIRE_WAIT_S` (or ``wait_s`` if longer) for whoever took it meanwhile.

        Raises
        ------
        StoreError
            Called inside :meth:`transaction`.
        """
        if self._in_tx:
            raise StoreError(f"the store {self.path} cannot be released inside a transaction")
        if self._con is not None:
            self._con.close()
            self._con = None
            self._released = True
            self._next_run_id = None  # another process may record runs meanwhile

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def con(self):
        """The DuckDB connection (for read queries by compare, fit and the GUI).

        Raises
        ------
        StoreError
            The store was closed.
        StoreLockedError
            The store was released and another process still holds the file after
            waiting :attr:`reacquire_wait_s` seconds (:data:`REACQUIRE_WAIT_S` unless set).
        """
        if self._con is None:
            if not self._released:
                raise StoreError(f"the store {self.path} is closed")
            self._con = connect(
                self.path,
                read_only=self.read_only,
                wait_s=max(self.wait_s, self.reacquire_wait_s),
                on_wait=self.on_wait,
            )
            self._released = False
        return self._con

    @property
    def schema_version(self) -> int:
        """Schema version of the open file."""
        return current_version(self.con)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Group writes: all of them are committed together or none is (nested use joins the outer)."""
        if self._in_tx:
            yield
            return
        self.con.execute("BEGIN TRANSACTION").fetchall()
        self._in_tx = True
        try:
            yield
        except BaseException:
            self._in_tx = False
            self._next_run_id = None
            self.con.execute("ROLLBACK").fetchall()
            raise
        self._in_tx = False
        self.con.execute("COMMIT").fetchall()

    # -- writing ----------------------------------------------------------------------
    def insert_columns(self, table: str, columns: Mapping[str, np.ndarray]) -> None:
        """Insert column arrays in one statement (DuckDB scans the numpy dict; no executemany)."""
        n = len(next(iter(columns.values())))
        if n == 0:
            return
        name = f"_qrtune_batch_{next(_names)}"
        self.con.register(name, {k: np.ascontiguousarray(v) for k, v in columns.items()})
        try:
            self.con.execute(
                f"INSERT INTO {table} ({', '.join(columns)}) SELECT {', '.join(columns)} FROM {name}"
            ).fetchall()
        finally:
            self.con.unregister(name)

    def insert_records(self, records: Sequence, **columns: np.ndarray) -> None:
        """Write ``records`` (all of one type of :mod:`engine.store.records`) into their table.

        The column list comes from the record's fields; ``columns`` gives whole columns instead
        (by field name), e.g. the run ids the store assigned.
        """
        if not records:
            return
        record_type = type(records[0])
        rest = [f.name for f in fields(record_type) if f.name not in columns]
        self.insert_record_columns(record_type, **record_columns(records, rest), **columns)

    def insert_record_columns(self, record_type: type, **columns: np.ndarray) -> None:
        """Write rows of ``record_type`` given column-wise, one array per field (by field name).

        Raises
        ------
        ValueError
            A field has no column.
        """
        missing = [f.name for f in fields(record_type) if f.name not in columns]
        if missing:
            raise ValueError(f"{record_type.__name__}: no column for {', '.join(missing)}")
        self.insert_columns(
            TABLE_OF[record_type],
            {f.metadata.get("column", f.name): np.asarray(columns[f.name]) for f in fields(record_type)},
        )

    def next_id(self, table: str) -> int:
        """The next free ``id`` of ``table``."""
        return int(self.con.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}").fetchall()[0][0])

    def _check_writable(self) -> None:
        if self.read_only:
            raise StoreError(f"the store {self.path} is open read-only")
