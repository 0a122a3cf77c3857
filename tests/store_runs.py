"""Runs written straight into a store for tests of what reads them (views, exports, the Compare tab).

Test modules import it by name (``from store_runs import record_simulated``): pytest puts ``tests/``
on the import path when it loads ``tests/conftest.py``.
"""

from __future__ import annotations

from engine.store.bundles import RunBundle, metric_rows, project_identity, run_record


def record_simulated(store, project, metrics, units=None, timeseries=None, seed=None, settings=None) -> int:
    """Record a ``simulate`` run of ``project`` with these metrics (name -> value, unit) and time series
    (name -> (t_s, values)), built from the store's own record builders; its run id."""
    record = run_record(kind="simulate", settings=settings or {}, seed=seed, **project_identity(project))
    return store.record_run(
        project, RunBundle(record, metric_rows(metrics, units), [], dict(timeseries or {}))
    )
