"""Measured against predicted: imported monitor intervals, the engine on each, and a fit (no Qt here).

The background task of the Monitor view (journey 8, "does the model match my system?"):
import IBMQREP_CAPMON / IBMQREP_CAPQMON / IBMQREP_APPLYMON CSV exports for the open
project (:mod:`engine.monitor_import`), turn the project's imported rows into intervals
(:func:`engine.fit.intervals_from_monitor`), predict every interval at its measured
offered rate, and optionally fit the engine's coefficients with every n-th interval held
out (:func:`engine.fit.fit_coefficients`), keeping the fit in the store like ``qrtune fit``.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine.model import Project


@dataclass
class MonitorOutcome:
    """Measured and predicted values per interval, and the fit when one was made.

    Attributes
    ----------
    intervals : list of engine.fit.Interval
        In time order.
    predicted : list of dict
        The engine's metrics for each interval with its current coefficients.
    fitted : list of dict
        The same with the fitted coefficients (empty without a fit).
    held_out : list of bool
        Whether each interval was held out of the fit.
    fit : engine.fit.FitResult or None
    fit_id : int or None
        The fit's id in the store.
    imported_rows : int
        Rows imported by this task (0 when nothing was imported).
    tables : tuple of str
        Monitor tables the project has rows of.
    """

    intervals: list
    predicted: list
    fitted: list = field(default_factory=list)
    held_out: list = field(default_factory=list)
    fit: object | None = None
    fit_id: int | None = None
    imported_rows: int = 0
    tables: tuple = ()


def settings_at(settings: dict, offered_rows_per_s: float) -> dict:
    """``settings`` with the workload offering ``offered_rows_per_s`` (an interval's measured rate)."""
    s = copy.deepcopy(settings)
    s.setdefault("workload", {})["offered_rows_per_s"] = float(offered_rows_per_s)
    return s


def monitor_task(
    project: Project,
    db_path: str | Path,
    files: Sequence[str | Path] = (),
    fit: bool = False,
    holdout_every: int = 4,
):
    """The task function for :class:`app.worker.TaskRunner`.

    Raises (inside the task, shown by the view)
    ------
    MonitorImportError
        A file is malformed (file and line named; nothing is imported).
    FitError
        No engine coefficients to fit, fewer than 4 intervals, nothing comparable.
    """
    from engine.scenario import project_to_scenario

    settings = project_to_scenario(project)  # TopologyError now, before the task starts
    default_s = float((settings.get("qapply") or {}).get("monitor_interval_ms") or 10_000) / 1000.0

    def fn(progress, cancelled, partial):
        from app.worker import Cancelled
        from engine.fit import engine_fit_model, fit_coefficients, intervals_from_monitor, split
        from engine.monitor_import import import_files, load_monitor_rows
        from engine.store import Store

        with Store.open(db_path, wait_s=5.0) as store:
            imported = 0
            if files:
                progress(0.05, f"importing {len(files)} file(s)")
                done = import_files(
                    store, files, project.name, progress=lambda f, text: progress(0.05 + 0.15 * f, text)
                )
                imported = sum(pf.n_rows for _, pf in done)
            tables = load_monitor_rows(store, project.name)
            intervals = intervals_from_monitor(tables, default_s) if tables else []
            if cancelled():
                raise Cancelled()
            outcome = MonitorOutcome(intervals, [], imported_rows=imported, tables=tuple(sorted(tables)))
            if not intervals:
                return outcome
            model = engine_fit_model(settings)
            base = {k: float(v[0]) for k, v in model.parameters.items()}
            progress(0.2, f"predicting {len(intervals)} intervals")
            outcome.predicted = [
                model.predict(settings_at(settings, iv.offered_rows_per_s), base).metrics for iv in intervals
            ]
            if not fit:
                return outcome
            if cancelled():
                raise Cancelled()
            progress(0.4, f"fitting {len(model.parameters)} coefficients")
            result = fit_coefficients(model, settings, intervals, holdout_every)
            if cancelled():
                raise Cancelled()
            held = {id(iv) for iv in split(intervals, holdout_every)[1]}
            outcome.held_out = [id(iv) in held for iv in intervals]
            outcome.fitted = [
                model.predict(settings_at(settings, iv.offered_rows_per_s), result.fitted).metrics
                for iv in intervals
            ]
            outcome.fit = result
            outcome.fit_id = store.record_fit(project, result)
            progress(1.0, "fitted")
        return outcome

    return fn
