"""The window lists runs while a background task writes to the same store (one process, one configuration)."""

from __future__ import annotations

from app.history import RunHistory
from engine.store import Store


def test_listing_runs_while_a_task_holds_a_write_connection(tmp_path):
    path = tmp_path / "runs.duckdb"
    history = RunHistory(str(path))
    assert history.list_runs() == []  # creates the store
    with Store.open(path, wait_s=5.0):  # a sweep or a monitor import writing in its worker thread
        assert (
            history.list_runs() == []
        )  # DuckDB refused a read-only connection here ("different configuration")
