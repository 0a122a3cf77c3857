"""The store's tables, its schema version and the migrations between versions.

A store file carries its schema version in ``schema_info``. Opening a store
for writing applies every migration from its version up to
:data:`SCHEMA_VERSION` in one transaction; a store from a newer qrtune is a
clear error, never a silent misread.

Schema history
--------------
1. ``runs``, ``projects``, ``metrics``, ``stage_metrics``, ``timeseries``,
   ``sweeps``, ``monitor_imports``, ``monitor_rows``.
2. ``fits``: coefficient sets fitted to imported monitor intervals
   (``qrtune fit``), with their error before and after on held-out intervals.
3. ``sweeps.base_settings_json`` (sweep points stored as patches); the views.
4. The views again: ``run_summary`` gives simulations' throughput and catch-up
   (``throughput_rows_per_s``, ``event1_catch_up_s``) as ``apply_rows_per_s`` and ``catch_up_s``.
5. ``monitor_cell_tables``: monitor imports written as wide tables (``monitor_cells_<import id>``,
   one DOUBLE column per IBM column; :mod:`engine.store.monitor_tables`). Imports of earlier
   versions keep their cells in ``monitor_rows`` and are read as before.
"""

from __future__ import annotations

from datetime import UTC, datetime

from engine.store.errors import StoreError
from engine.store.views import VIEW_STATEMENTS

#: Version a store written by this qrtune has.
SCHEMA_VERSION = 5

_V1 = [
    """CREATE TABLE schema_info (version INTEGER NOT NULL, migrated TIMESTAMP NOT NULL)""",
    """CREATE TABLE projects (
        hash VARCHAR PRIMARY KEY, name VARCHAR NOT NULL, project_json VARCHAR NOT NULL)""",
    """CREATE TABLE runs (
        id BIGINT PRIMARY KEY,
        project_name VARCHAR NOT NULL,
        project_hash VARCHAR NOT NULL,
        settings_json VARCHAR NOT NULL,
        engine_version VARCHAR NOT NULL,
        coefficients_version VARCHAR NOT NULL,
        seed BIGINT,
        kind VARCHAR NOT NULL,
        started TIMESTAMP NOT NULL,
        status VARCHAR NOT NULL,
        scenario_kind VARCHAR NOT NULL,
        bottleneck VARCHAR,
        sweep_id BIGINT,
        point_index INTEGER,
        label VARCHAR NOT NULL,
        error VARCHAR NOT NULL)""",
    """CREATE TABLE metrics (run_id BIGINT NOT NULL, metric VARCHAR NOT NULL, value DOUBLE, unit VARCHAR)""",
    """CREATE TABLE stage_metrics (
        run_id BIGINT NOT NULL, stage VARCHAR NOT NULL, capacity DOUBLE, utilisation DOUBLE,
        latency_ms DOUBLE, unit VARCHAR)""",
    """CREATE TABLE timeseries (run_id BIGINT NOT NULL, t_s DOUBLE NOT NULL, series VARCHAR NOT NULL,
        value DOUBLE)""",
    """CREATE TABLE sweeps (
        id BIGINT PRIMARY KEY, sweep_key VARCHAR NOT NULL UNIQUE, project_name VARCHAR NOT NULL,
        project_hash VARCHAR NOT NULL, axes_json VARCHAR NOT NULL, n_points INTEGER NOT NULL,
        started TIMESTAMP NOT NULL)""",
    """CREATE TABLE monitor_imports (
        id BIGINT PRIMARY KEY, project_name VARCHAR NOT NULL, file VARCHAR NOT NULL,
        table_name VARCHAR NOT NULL, imported TIMESTAMP NOT NULL, n_rows INTEGER NOT NULL,
        columns_json VARCHAR NOT NULL)""",
    """CREATE TABLE monitor_rows (
        import_id BIGINT NOT NULL, table_name VARCHAR NOT NULL, line INTEGER NOT NULL,
        monitor_time TIMESTAMP NOT NULL, queue VARCHAR NOT NULL, col VARCHAR NOT NULL, value DOUBLE)""",
]

_V2 = [
    """CREATE TABLE fits (
        id BIGINT PRIMARY KEY, project_name VARCHAR NOT NULL, project_hash VARCHAR NOT NULL,
        created TIMESTAMP NOT NULL, base_coefficients_version VARCHAR NOT NULL,
        coefficients_json VARCHAR NOT NULL, n_fit INTEGER NOT NULL, n_holdout INTEGER NOT NULL,
        error_before_pct DOUBLE, error_after_pct DOUBLE, report_json VARCHAR NOT NULL)""",
]

_V3 = ["ALTER TABLE sweeps ADD COLUMN base_settings_json VARCHAR", *VIEW_STATEMENTS]
_V4 = [*VIEW_STATEMENTS]
_V5 = [
    """CREATE TABLE monitor_cell_tables (
        import_id BIGINT PRIMARY KEY, cells_table VARCHAR NOT NULL, columns_json VARCHAR NOT NULL)""",
]

#: Version reached -> statements that reach it from the version before.
MIGRATIONS: dict[int, list[str]] = {1: _V1, 2: _V2, 3: _V3, 4: _V4, 5: _V5}


def current_version(con) -> int:
    """Schema version of the open database: 0 for an empty file.

    Raises
    ------
    StoreError
        The file holds tables but no ``schema_info``: it is not a qrtune store.
    """
    tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    if "schema_info" not in tables:
        if tables:
            raise StoreError(
                "the database file holds tables but is not a qrtune results store "
                f"(tables: {', '.join(sorted(tables)[:8])}); choose another file with --db"
            )
        return 0
    rows = con.execute("SELECT max(version) FROM schema_info").fetchall()
    return int(rows[0][0] or 0)


def migrate(con, path: str = "") -> int:
    """Bring the open, writable database up to :data:`SCHEMA_VERSION`.

    Every step runs in one transaction: a crash mid-migration leaves the old version.

    Returns
    -------
    int
        The version the store had before (0 for a new file).

    Raises
    ------
    StoreError
        The store was written by a newer qrtune (schema version above ours).
    """
    before = current_version(con)
    if before > SCHEMA_VERSION:
        raise StoreError(
            f"the store {path or ''} has schema version {before}, newer than this qrtune understands "
            f"(up to {SCHEMA_VERSION}); upgrade qrtune or choose another file with --db"
        )
    if before == SCHEMA_VERSION:
        return before
    now = datetime.now(UTC).replace(tzinfo=None)
    con.execute("BEGIN TRANSACTION").fetchall()
    try:
        for version in range(before + 1, SCHEMA_VERSION + 1):
            for statement in MIGRATIONS[version]:
                con.execute(statement).fetchall()
            con.execute("INSERT INTO schema_info VALUES (?, ?)", [version, now]).fetchall()
        con.execute("COMMIT").fetchall()
    except Exception:
        con.execute("ROLLBACK").fetchall()
        raise
    return before


__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "current_version", "migrate"]
