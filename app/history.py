"""The run history: the GUI's door to the results store (:mod:`engine.store`).

A DuckDB file has one writer at a time, so the store is opened only for the
length of one read or write (and waits briefly if a command-line sweep holds
it). duckdb is imported on first use, not when the window opens.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

#: Seconds to wait for another process's write lock before reporting it.
LOCK_WAIT_S = 2.0


class RunHistory(QObject):
    """Records runs and reads them back.

    Signals
    -------
    runs_changed()
        Runs were recorded (the list should refresh).

    Parameters
    ----------
    db_path : str or Path, optional
        The store file; default :func:`engine.store.default_db_path` (``$QRTUNE_DB`` or the
        user data folder).
    """

    runs_changed = Signal()

    def __init__(self, db_path: str | Path | None = None, parent=None):
        super().__init__(parent)
        self._db_path = Path(db_path) if db_path else None

    @property
    def db_path(self) -> Path:
        if self._db_path is None:
            from engine.store import default_db_path

            self._db_path = default_db_path()
        return self._db_path

    def open(self, read_only: bool = False):
        """An open :class:`engine.store.Store` (use as a context manager).

        ``read_only`` says the caller only reads; the connection is still opened read-write
        unless the file itself is read-only: DuckDB refuses, within one process, a connection
        whose configuration differs from one already open, and the window's background tasks
        (a sweep, a monitor import) write while this thread lists the runs.

        Raises
        ------
        StoreError, StoreLockedError
            The file is not a store, or another process holds it.
        """
        import os

        from engine.store import Store

        read_only = read_only and self.db_path.exists() and not os.access(self.db_path, os.W_OK)
        return Store.open(self.db_path, read_only=read_only, wait_s=LOCK_WAIT_S)

    # -- writing ------------------------------------------------------------------------
    def record_prediction(self, project, prediction, settings: dict | None = None, label: str = "") -> int:
        """Store one steady-state prediction made in the window (kind ``gui``); returns its run id."""
        from engine.store.bundles import prediction_bundle

        bundle = prediction_bundle(project, prediction, kind="gui", settings=settings, label=label)
        with self.open() as store:
            run_id = store.record_run(project, bundle)
        self.runs_changed.emit()
        return run_id

    def notify(self) -> None:
        """Tell views that runs were recorded elsewhere (a worker thread)."""
        self.runs_changed.emit()

    def ensure_store(self) -> str:
        """Create the store (its schema) in this thread if the file does not exist yet; return its path.

        Called before a background task that writes starts: two connections of one process
        creating the schema at once conflict ("Catalog write-write conflict"), as when the
        runs list refreshes while a first monitor import creates the store.
        """
        if not self.db_path.exists():
            with self.open():
                pass
        return str(self.db_path)

    # -- reading ------------------------------------------------------------------------
    def list_runs(self, project_name: str | None = None, limit: int = 500) -> list:
        """RunRecords, newest first; empty when the store file does not exist yet."""
        if not self.db_path.exists():
            return []
        with self.open(read_only=True) as store:
            return store.list_runs(project_name=project_name, limit=limit)

    def load_runs(self, run_ids) -> list:
        """RunData of each id, in order."""
        with self.open(read_only=True) as store:
            return [store.load_run(int(i)) for i in run_ids]

    def compare(self, run_ids):
        """The engine's comparison of ``run_ids`` (first run is the reference)."""
        from app.comparison import compare

        with self.open(read_only=True) as store:
            return compare(store, [int(i) for i in run_ids])
