"""The results store: every run kept in one DuckDB file, ready to list and compare.

Tables (flat records of :mod:`engine.store.records`, schema in :mod:`engine.store.schema`):
``runs`` (id, project name and hash, settings JSON, engine and coefficient versions,
seed, kind, started, status, scenario kind, bottleneck, sweep and point), ``metrics``
(run, metric, value, unit), ``stage_metrics`` (run, stage, capacity, utilisation,
latency_ms, unit), ``timeseries`` (run, t_s, series, value), ``sweeps``,
``monitor_imports``, ``monitor_cell_tables`` (one wide table per import read by DuckDB's CSV
reader) and ``monitor_rows`` (imported IBMQREP_CAPMON / CAPQMON / APPLYMON cells in long form), ``fits`` and ``projects`` (project content by hash). The file
carries a schema version; opening it for writing migrates it.

Python API (what the GUI uses)
------------------------------
>>> from engine.store import Store, default_db_path
>>> with Store.open(path) as store:                       # path=None: default file
...     run_id = store.record_run(project, prediction_bundle(project, prediction, kind="gui"))
...     sim_id = store.record_run(project, simulation_bundle(project, result, settings=..., label=...))
...     runs = store.list_runs(project_name=project.name)    # RunRecord, newest first
...     data = store.load_run(run_id)                        # RunData: run, metrics, stages, timeseries
>>> from engine.compare import compare_runs
>>> comparison = compare_runs(store, [run_a, run_b])         # settings that differ, metric deltas

* ``Store.open(path=None, read_only=False, wait_s=0.0)``: creates or migrates the file.
  DuckDB allows one writing process per file; when another process holds it, ``open``
  waits up to ``wait_s`` seconds, then raises :class:`StoreLockedError` with a message
  naming the file and the process. Keep a writable store open only while writing.
* ``record_run(project, bundle) -> run_id``: one run, built by the one set of bundle builders every
  front end uses (:mod:`engine.store.bundles`: ``prediction_bundle``, ``failure_bundle`` for a run
  the engine rejected, kept as ``failed`` with its error; :mod:`engine.sim.bundle`:
  ``simulation_bundle``); ``record_prediction(project, prediction, kind="predict", label="")`` is
  ``record_run`` of a ``prediction_bundle``.
* ``record_runs(bundles) -> [run_id]``: many runs in one transaction (sweeps, studies); build bundles
  with ``bundle_from_prediction``, ``bundle_failed`` or ``engine.sim.bundle.bundle_simulation``.
* ``release()``: let go of the file between writes (a long sweep does, so the workbench can
  open the file meanwhile); the next use reopens it, waiting up to ``REACQUIRE_WAIT_S``.
* ``list_runs(project_name=None, kind=None, sweep_id=None, limit=None)`` (newest first; a sweep's
  runs in point order), ``count_runs(...)``, ``get_runs(ids)``, ``load_run(id)``, ``metrics_of(ids)``,
  ``stages_of(ids)``, ``list_sweeps(project_name=None)`` (points recorded of each),
  ``list_monitor_imports(project_name=None)``,
  ``latest_fit(project_name)``; ``store.con`` is the DuckDB connection for custom reads.
* ``project_hash(project)``: sha256 of the project's model content (not its name,
  labels or canvas positions).

Writes are columnar (numpy arrays scanned by DuckDB, or the appender), never ``executemany``.
"""

from engine.store.base import REACQUIRE_WAIT_S
from engine.store.bundles import (
    RunBundle,
    bundle_failed,
    bundle_from_prediction,
    failure_bundle,
    prediction_bundle,
    project_identity,
)
from engine.store.connection import DEFAULT_FILE_NAME, ENV_DB, connect, default_db_path
from engine.store.errors import (
    FitError,
    MonitorImportError,
    StoreError,
    StoreLockedError,
    StoreMissingError,
    StoreNeedsMigrationError,
    UnknownRunError,
)
from engine.store.provenance import canonical_json, engine_version, error_text, project_hash, utc_now
from engine.store.records import (
    RUN_KINDS,
    MetricRow,
    MonitorImport,
    MonitorRow,
    RunData,
    RunRecord,
    StageMetricRow,
    TimeseriesPoint,
)
from engine.store.schema import SCHEMA_VERSION
from engine.store.store import Store

__all__ = [
    "DEFAULT_FILE_NAME",
    "ENV_DB",
    "REACQUIRE_WAIT_S",
    "RUN_KINDS",
    "SCHEMA_VERSION",
    "FitError",
    "MetricRow",
    "MonitorImport",
    "MonitorImportError",
    "MonitorRow",
    "RunBundle",
    "RunData",
    "RunRecord",
    "StageMetricRow",
    "Store",
    "StoreError",
    "StoreMissingError",
    "StoreLockedError",
    "StoreNeedsMigrationError",
    "TimeseriesPoint",
    "UnknownRunError",
    "bundle_failed",
    "bundle_from_prediction",
    "failure_bundle",
    "prediction_bundle",
    "project_identity",
    "canonical_json",
    "connect",
    "default_db_path",
    "engine_version",
    "error_text",
    "project_hash",
    "utc_now",
]
